//! The one table of element types, and everything derived from it.
//!
//! [`dtype_table!`] lists each element type once: its [`DType`] variant, its Rust type, the
//! unsigned integer of the same size the copy kernel moves it as (its *lane*; `clone` for
//! types that own memory), its OpenVINO name and its [`DTypeKind`]. From that one table come
//! [`DType`], the [`Tensor`](crate::Tensor) variants, the dispatch macros over a `Tensor`,
//! the [`Element`](crate::Element) impls (how a type reaches the executor), the
//! [`Summable`](crate::Summable) impls (every integer and float kind) and the typed
//! conversions between `Tensor` and `ArrayD<T>`. Adding an element type is one row here
//! plus its spelling in the codecs (`npy`, IR).

use std::fmt;
use std::str::FromStr;

/// The table. Each row: `(Variant, RustType, lane, "openvino-name", Kind)`.
///
/// Calls `$then!` with the rows, so that each generator below sees the same list.
///
/// Exported (`bcast::dtype_table!(my_generator!(args))` expands to `my_generator! { args ;
/// rows }`) so that the C and Python bindings generate their per-type code from these rows
/// too. The rows name `half::f16` and `half::bf16`: a caller has `half` in scope (`use
/// bcast::half;`).
#[macro_export]
macro_rules! dtype_table {
    ($($then:ident)::+ ! $(($($args:tt)*))?) => {
        $($then)::+! { $($($args)*)? ;
            (Bool, bool, u8, "boolean", Bool)
            (I8, i8, u8, "i8", Int)
            (I16, i16, u16, "i16", Int)
            (I32, i32, u32, "i32", Int)
            (I64, i64, u64, "i64", Int)
            (U8, u8, u8, "u8", Uint)
            (U16, u16, u16, "u16", Uint)
            (U32, u32, u32, "u32", Uint)
            (U64, u64, u64, "u64", Uint)
            (F16, half::f16, u16, "f16", Float)
            (BF16, half::bf16, u16, "bf16", Float)
            (F32, f32, u32, "f32", Float)
            (F64, f64, u64, "f64", Float)
            (String, String, clone, "string", Text)
        }
    };
}
pub(crate) use crate::dtype_table;

/// What kind of values an element type holds (which ops it takes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DTypeKind {
    /// `bool`.
    Bool,
    /// A signed integer.
    Int,
    /// An unsigned integer.
    Uint,
    /// A binary floating-point type (`f16`, `bf16`, `f32`, `f64`).
    Float,
    /// A string.
    Text,
}

impl DTypeKind {
    /// Integers and floats: the kinds that take arithmetic and sums.
    pub fn is_numeric(self) -> bool {
        matches!(self, DTypeKind::Int | DTypeKind::Uint | DTypeKind::Float)
    }
}

macro_rules! define_dtype {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        /// The element types of bcast, named as OpenVINO names them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum DType {
            $(
                #[doc = concat!("`", stringify!($t), "` (OpenVINO `", $name, "`).")]
                $v,
            )*
        }

        impl DType {
            /// Every element type, in the table's order.
            pub const ALL: [DType; [$(DType::$v),*].len()] = [$(DType::$v),*];

            /// OpenVINO's element type name (`boolean`, `i8`, ..., `bf16`, `f64`, `string`).
            pub fn name(self) -> &'static str {
                match self { $(DType::$v => $name,)* }
            }

            /// Size of one element in bytes (`size_of::<String>()` for strings).
            pub fn size(self) -> usize {
                match self { $(DType::$v => std::mem::size_of::<$t>(),)* }
            }

            /// What kind of values the type holds.
            pub fn kind(self) -> DTypeKind {
                match self { $(DType::$v => DTypeKind::$kind,)* }
            }
        }
    };
}
dtype_table!(define_dtype!);

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An element type name that [`DType::from_str`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown element type '{0}'")]
pub struct ParseDTypeError(pub String);

impl FromStr for DType {
    type Err = ParseDTypeError;

    /// OpenVINO's element type names, as [`DType::name`] gives them.
    ///
    /// ```
    /// use bcast::DType;
    /// assert_eq!("bf16".parse::<DType>().unwrap(), DType::BF16);
    /// assert_eq!("boolean".parse::<DType>().unwrap(), DType::Bool);
    /// assert!("f8e4m3".parse::<DType>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DType::ALL
            .iter()
            .copied()
            .find(|d| d.name() == s)
            .ok_or_else(|| ParseDTypeError(s.to_string()))
    }
}

/// Runs `$body` with `$a` bound to the inner array of the [`crate::Tensor`] `$t` (by value or
/// by reference, as `$t` is), whatever its element type, and `$wrap` bound to the matching
/// `Tensor` constructor.
macro_rules! tensor_dispatch {
    ($t:expr, $a:ident, $wrap:ident => $body:expr) => {
        crate::dtype::dtype_table!(crate::dtype::tensor_dispatch_rows!($t, $a, $wrap, $body))
    };
}
pub(crate) use tensor_dispatch;

macro_rules! tensor_dispatch_rows {
    ($t:expr, $a:ident, $wrap:ident, $body:expr ; $(($v:ident, $ty:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        match $t {
            $(
                crate::Tensor::$v($a) => {
                    #[allow(unused_imports)]
                    use crate::Tensor::$v as $wrap;
                    $body
                }
            )*
        }
    };
}
pub(crate) use tensor_dispatch_rows;

/// [`tensor_dispatch!`] over the numeric kinds only (integers and floats: the types that
/// take arithmetic and sums); any other tensor evaluates `$other` instead.
macro_rules! numeric_dispatch {
    ($t:expr, $a:ident, $wrap:ident => $body:expr, _ => $other:expr) => {
        crate::dtype::dtype_table!(crate::dtype::numeric_dispatch_rows!(@arms [] ($t, $a, $wrap, $body, $other)))
    };
}
pub(crate) use numeric_dispatch;

/// The row muncher behind [`numeric_dispatch!`]: keeps the rows of kind `Int`, `Uint` and
/// `Float` as match arms.
macro_rules! numeric_dispatch_rows {
    (@arms [$($arms:tt)*] ($t:expr, $a:ident, $wrap:ident, $body:expr, $other:expr) ;) => {
        match $t {
            $($arms)*
            #[allow(unreachable_patterns)]
            _ => $other,
        }
    };
    (@arms [$($arms:tt)*] $args:tt ; ($v:ident, $ty:ty, $lane:tt, $name:literal, Bool) $($rest:tt)*) => {
        crate::dtype::numeric_dispatch_rows!(@arms [$($arms)*] $args ; $($rest)*)
    };
    (@arms [$($arms:tt)*] $args:tt ; ($v:ident, $ty:ty, $lane:tt, $name:literal, Text) $($rest:tt)*) => {
        crate::dtype::numeric_dispatch_rows!(@arms [$($arms)*] $args ; $($rest)*)
    };
    (@arms [$($arms:tt)*] ($t:expr, $a:ident, $wrap:ident, $body:expr, $other:expr) ; ($v:ident, $ty:ty, $lane:tt, $name:literal, $kind:ident) $($rest:tt)*) => {
        crate::dtype::numeric_dispatch_rows!(@arms [$($arms)* crate::Tensor::$v($a) => {
            #[allow(unused_imports)]
            use crate::Tensor::$v as $wrap;
            $body
        }] ($t, $a, $wrap, $body, $other) ; $($rest)*)
    };
}
pub(crate) use numeric_dispatch_rows;

/// Runs `$body` with `$T` a type alias for the Rust type of the [`DType`] `$d`.
macro_rules! dtype_dispatch {
    ($d:expr, $T:ident => $body:expr) => {
        crate::dtype::dtype_table!(crate::dtype::dtype_dispatch_rows!($d, $T, $body))
    };
}
pub(crate) use dtype_dispatch;

macro_rules! dtype_dispatch_rows {
    ($d:expr, $T:ident, $body:expr ; $(($v:ident, $ty:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        match $d {
            $(
                crate::dtype::DType::$v => {
                    type $T = $ty;
                    $body
                }
            )*
        }
    };
}
pub(crate) use dtype_dispatch_rows;
