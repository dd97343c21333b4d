//! A tensor whose element type is known only at run time, for the command line, IR models
//! and conformance cases.

use half::{bf16, f16};
use ndarray::ArrayD;

use crate::element::DType;
use crate::error::BroadcastError;
use crate::exec::Parallelism;
use crate::plan::StridePlan;

/// An n-dimensional array of any bcast element type.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum Tensor {
    Bool(ArrayD<bool>),
    I8(ArrayD<i8>),
    I16(ArrayD<i16>),
    I32(ArrayD<i32>),
    I64(ArrayD<i64>),
    U8(ArrayD<u8>),
    U16(ArrayD<u16>),
    U32(ArrayD<u32>),
    U64(ArrayD<u64>),
    F16(ArrayD<f16>),
    BF16(ArrayD<bf16>),
    F32(ArrayD<f32>),
    F64(ArrayD<f64>),
    String(ArrayD<String>),
}

/// Runs `$body` with `$a` bound to the inner array of `$t`, whatever its element type, and
/// `$wrap` bound to the matching `Tensor` constructor.
#[macro_export]
#[doc(hidden)]
macro_rules! tensor_dispatch {
    ($t:expr, $a:ident, $wrap:ident => $body:expr) => {
        match $t {
            $crate::Tensor::Bool($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::Bool as $wrap;
                $body
            }
            $crate::Tensor::I8($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::I8 as $wrap;
                $body
            }
            $crate::Tensor::I16($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::I16 as $wrap;
                $body
            }
            $crate::Tensor::I32($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::I32 as $wrap;
                $body
            }
            $crate::Tensor::I64($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::I64 as $wrap;
                $body
            }
            $crate::Tensor::U8($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::U8 as $wrap;
                $body
            }
            $crate::Tensor::U16($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::U16 as $wrap;
                $body
            }
            $crate::Tensor::U32($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::U32 as $wrap;
                $body
            }
            $crate::Tensor::U64($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::U64 as $wrap;
                $body
            }
            $crate::Tensor::F16($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::F16 as $wrap;
                $body
            }
            $crate::Tensor::BF16($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::BF16 as $wrap;
                $body
            }
            $crate::Tensor::F32($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::F32 as $wrap;
                $body
            }
            $crate::Tensor::F64($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::F64 as $wrap;
                $body
            }
            $crate::Tensor::String($a) => {
                #[allow(unused_imports)]
                use $crate::Tensor::String as $wrap;
                $body
            }
        }
    };
}

impl Tensor {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Tensor::Bool(_) => DType::Bool,
            Tensor::I8(_) => DType::I8,
            Tensor::I16(_) => DType::I16,
            Tensor::I32(_) => DType::I32,
            Tensor::I64(_) => DType::I64,
            Tensor::U8(_) => DType::U8,
            Tensor::U16(_) => DType::U16,
            Tensor::U32(_) => DType::U32,
            Tensor::U64(_) => DType::U64,
            Tensor::F16(_) => DType::F16,
            Tensor::BF16(_) => DType::BF16,
            Tensor::F32(_) => DType::F32,
            Tensor::F64(_) => DType::F64,
            Tensor::String(_) => DType::String,
        }
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        tensor_dispatch!(self, a, _W => a.shape())
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        tensor_dispatch!(self, a, _W => a.len())
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs `plan` over this tensor into a new tensor of the same element type.
    ///
    /// # Errors
    /// As [`crate::run_plan`].
    pub fn run_plan(
        &self,
        plan: &StridePlan,
        par: Parallelism<'_>,
    ) -> Result<Tensor, BroadcastError> {
        tensor_dispatch!(self, a, W => Ok(W(crate::api::run_plan(plan, a.view(), par)?)))
    }

    /// Broadcasts this tensor to `target_shape` under `mode`.
    ///
    /// # Errors
    /// As [`crate::broadcast`].
    pub fn broadcast(
        &self,
        target_shape: &[usize],
        mode: &crate::Mode,
    ) -> Result<Tensor, BroadcastError> {
        let plan = crate::planners::plan(self.shape(), target_shape, mode)?;
        self.run_plan(&plan, Parallelism::Auto)
    }

    /// Whether the two tensors have the same element type, shape and elements, comparing
    /// numbers by their bits (a NaN equals a NaN with the same payload; `-0.0 != 0.0`).
    pub fn bit_equal(&self, other: &Tensor) -> bool {
        fn same<T, F: Fn(&T, &T) -> bool>(a: &ArrayD<T>, b: &ArrayD<T>, eq: F) -> bool {
            a.shape() == b.shape() && a.iter().zip(b.iter()).all(|(x, y)| eq(x, y))
        }
        match (self, other) {
            (Tensor::Bool(a), Tensor::Bool(b)) => same(a, b, |x, y| x == y),
            (Tensor::I8(a), Tensor::I8(b)) => same(a, b, |x, y| x == y),
            (Tensor::I16(a), Tensor::I16(b)) => same(a, b, |x, y| x == y),
            (Tensor::I32(a), Tensor::I32(b)) => same(a, b, |x, y| x == y),
            (Tensor::I64(a), Tensor::I64(b)) => same(a, b, |x, y| x == y),
            (Tensor::U8(a), Tensor::U8(b)) => same(a, b, |x, y| x == y),
            (Tensor::U16(a), Tensor::U16(b)) => same(a, b, |x, y| x == y),
            (Tensor::U32(a), Tensor::U32(b)) => same(a, b, |x, y| x == y),
            (Tensor::U64(a), Tensor::U64(b)) => same(a, b, |x, y| x == y),
            (Tensor::F16(a), Tensor::F16(b)) => same(a, b, |x, y| x.to_bits() == y.to_bits()),
            (Tensor::BF16(a), Tensor::BF16(b)) => same(a, b, |x, y| x.to_bits() == y.to_bits()),
            (Tensor::F32(a), Tensor::F32(b)) => same(a, b, |x, y| x.to_bits() == y.to_bits()),
            (Tensor::F64(a), Tensor::F64(b)) => same(a, b, |x, y| x.to_bits() == y.to_bits()),
            (Tensor::String(a), Tensor::String(b)) => same(a, b, |x, y| x == y),
            _ => false,
        }
    }
}

macro_rules! tensor_from {
    ($($t:ty => $v:ident),*) => {$(
        impl From<ArrayD<$t>> for Tensor {
            fn from(a: ArrayD<$t>) -> Self { Tensor::$v(a) }
        }
    )*};
}
tensor_from!(bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16,
    u32 => U32, u64 => U64, f16 => F16, bf16 => BF16, f32 => F32, f64 => F64, String => String);
