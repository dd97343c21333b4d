//! Borrowed entry points for the bindings: [`TensorView`] operands (a typed `ArrayViewD` whose
//! element type is known at run time) read in place, written into a caller's [`TensorViewMut`]
//! or a fresh [`Tensor`], on the threads a [`Parallelism`] names. The C ABI and the Python
//! module wrap their callers' buffers in these, so no operand is copied.

use ndarray::{ArrayViewD, ArrayViewMutD};

use super::compare::compare;
use super::exec::{run_select, Dest};
use super::logical::logical;
use super::ops::{Arith, BinaryOp, Family};
use crate::auto_broadcast::AutoBroadcast;
use crate::dtype::DType;
use crate::error::BroadcastError;
use crate::exec::Parallelism;
use crate::tensor::Tensor;
use half::{bf16, f16};

macro_rules! define_views {
    ($(($v:ident, $t:ty)),*) => {
        /// A read-only view of any element type but strings.
        #[derive(Debug, Clone)]
        pub enum TensorView<'a> {
            $(
                #[doc = concat!("A view of `", stringify!($t), "`.")]
                $v(ArrayViewD<'a, $t>),
            )*
        }

        /// A writable view of any element type but strings.
        #[derive(Debug)]
        pub enum TensorViewMut<'a> {
            $(
                #[doc = concat!("A view of `", stringify!($t), "`.")]
                $v(ArrayViewMutD<'a, $t>),
            )*
        }

        impl TensorView<'_> {
            /// The element type.
            pub fn dtype(&self) -> DType {
                match self { $(TensorView::$v(_) => DType::$v,)* }
            }

            /// The shape.
            pub fn shape(&self) -> &[usize] {
                match self { $(TensorView::$v(a) => a.shape(),)* }
            }
        }

        impl TensorViewMut<'_> {
            /// The element type.
            pub fn dtype(&self) -> DType {
                match self { $(TensorViewMut::$v(_) => DType::$v,)* }
            }
        }

        $(
            impl<'a> From<ArrayViewD<'a, $t>> for TensorView<'a> {
                fn from(a: ArrayViewD<'a, $t>) -> Self {
                    TensorView::$v(a)
                }
            }

            impl<'a> From<ArrayViewMutD<'a, $t>> for TensorViewMut<'a> {
                fn from(a: ArrayViewMutD<'a, $t>) -> Self {
                    TensorViewMut::$v(a)
                }
            }
        )*
    };
}

define_views!(
    (Bool, bool),
    (I8, i8),
    (I16, i16),
    (I32, i32),
    (I64, i64),
    (U8, u8),
    (U16, u16),
    (U32, u32),
    (U64, u64),
    (F16, f16),
    (BF16, bf16),
    (F32, f32),
    (F64, f64)
);

/// Runs `$body` for two views of the same variant of `$e`, `$x`, `$y` the views, `$v` the
/// variant's [`Tensor`] constructor and `$m` its [`TensorViewMut`] one; `$other` for any
/// other pair. `@num`: numbers only; `@all`: bool too.
macro_rules! same_view {
    (@num $e:ident, $a:expr, $b:expr, |$x:ident, $y:ident, $v:ident, $m:ident| $body:expr, $other:expr) => {
        same_view!(@arms $e, $a, $b, $x, $y, $v, $m, $body, $other;
            I8 I16 I32 I64 U8 U16 U32 U64 F16 BF16 F32 F64)
    };
    (@all $e:ident, $a:expr, $b:expr, |$x:ident, $y:ident, $v:ident, $m:ident| $body:expr, $other:expr) => {
        same_view!(@arms $e, $a, $b, $x, $y, $v, $m, $body, $other;
            Bool I8 I16 I32 I64 U8 U16 U32 U64 F16 BF16 F32 F64)
    };
    (@arms $e:ident, $a:expr, $b:expr, $x:ident, $y:ident, $v:ident, $m:ident, $body:expr, $other:expr; $($var:ident)*) => {
        match ($a, $b) {
            $(
                ($e::$var($x), $e::$var($y)) => {
                    #[allow(unused_imports)]
                    use Tensor::$var as $v;
                    #[allow(unused_imports)]
                    use TensorViewMut::$var as $m;
                    $body
                }
            )*
            _ => $other,
        }
    };
}

impl BinaryOp {
    /// The element type `self` produces from two operands of type `dtype`: bool for
    /// comparisons and logical ops, `dtype` for arithmetic.
    ///
    /// # Errors
    /// [`BroadcastError::UnsupportedType`] for arithmetic on bool or strings, comparisons on
    /// strings, logical ops on anything but bool.
    pub fn output_dtype(&self, dtype: DType) -> Result<DType, BroadcastError> {
        let ok = match self.family() {
            Family::Arith => !matches!(dtype, DType::Bool | DType::String),
            Family::Compare => dtype != DType::String,
            Family::Logical => dtype == DType::Bool,
        };
        if !ok {
            return Err(BroadcastError::UnsupportedType {
                op: self.name(),
                dtype: dtype.name(),
            });
        }
        Ok(if self.family() == Family::Arith {
            dtype
        } else {
            DType::Bool
        })
    }
}

fn mismatch(op: &'static str, left: DType, right: DType) -> BroadcastError {
    BroadcastError::DTypeMismatch {
        op,
        left: left.name(),
        right: right.name(),
    }
}

/// The typed destination of a run: fresh, or the caller's view of the variant `$m`.
macro_rules! dest {
    ($out:expr, $m:ident, $err:expr) => {
        match $out {
            None => Dest::Fresh,
            Some($m(o)) => Dest::Into(o),
            Some(_) => return Err($err),
        }
    };
}

fn run(
    op: BinaryOp,
    a: TensorView<'_>,
    b: TensorView<'_>,
    spec: &AutoBroadcast,
    out: Option<TensorViewMut<'_>>,
    par: Parallelism<'_>,
) -> Result<Option<Tensor>, BroadcastError> {
    let dtype = a.dtype();
    if dtype != b.dtype() {
        return Err(mismatch(op.name(), dtype, b.dtype()));
    }
    let want = op.output_dtype(dtype)?;
    if let Some(o) = &out {
        if o.dtype() != want {
            return Err(mismatch(op.name(), want, o.dtype()));
        }
    }
    let unsupported = || BroadcastError::UnsupportedType {
        op: op.name(),
        dtype: dtype.name(),
    };
    match op.family() {
        Family::Arith => same_view!(@num TensorView, a, b, |x, y, V, M| {
            let dest = dest!(out, M, unsupported());
            Arith::arith(op, x, y, spec, dest, par).map(|r| r.map(V))
        }, Err(unsupported())),
        Family::Compare => {
            same_view!(@all TensorView, a, b, |x, y, _V, _M| {
                let dest = dest!(out, BoolOut, unsupported());
                match compare(op, x, y, spec, dest, par) {
                    Some(r) => r.map(|r| r.map(Tensor::Bool)),
                    None => Err(unsupported()),
                }
            }, Err(unsupported()))
        }
        Family::Logical => match (a, b) {
            (TensorView::Bool(x), TensorView::Bool(y)) => {
                let dest = dest!(out, BoolOut, unsupported());
                match logical(op, x, y, spec, dest, par) {
                    Some(r) => r.map(|r| r.map(Tensor::Bool)),
                    None => Err(unsupported()),
                }
            }
            _ => Err(unsupported()),
        },
    }
}

use TensorViewMut::Bool as BoolOut;

/// `op` on two views of the same element type under `spec`, into a new tensor (bool for
/// comparisons and logical ops, else the operands' type), on the threads `par` names. The
/// operands are read in place, in any layout.
///
/// # Errors
/// As [`crate::binary`].
pub fn binary_view(
    op: BinaryOp,
    a: TensorView<'_>,
    b: TensorView<'_>,
    spec: &AutoBroadcast,
    par: Parallelism<'_>,
) -> Result<Tensor, BroadcastError> {
    run(op, a, b, spec, None, par).map(|r| r.expect("a fresh output is returned"))
}

/// [`binary_view`] into `out`, which must have the output's element type
/// ([`BinaryOp::output_dtype`]) and shape; a row-major `out` is written in place.
///
/// # Errors
/// As [`crate::binary_into`].
pub fn binary_view_into(
    op: BinaryOp,
    a: TensorView<'_>,
    b: TensorView<'_>,
    spec: &AutoBroadcast,
    out: TensorViewMut<'_>,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    run(op, a, b, spec, Some(out), par).map(drop)
}

fn run_select_views(
    cond: ArrayViewD<'_, bool>,
    then: TensorView<'_>,
    else_: TensorView<'_>,
    spec: &AutoBroadcast,
    out: Option<TensorViewMut<'_>>,
    par: Parallelism<'_>,
) -> Result<Option<Tensor>, BroadcastError> {
    let (dt, de) = (then.dtype(), else_.dtype());
    if let Some(o) = &out {
        if dt == de && o.dtype() != dt {
            return Err(mismatch("select", dt, o.dtype()));
        }
    }
    same_view!(@all TensorView, then, else_, |t, e, V, M| {
        let dest = dest!(out, M, mismatch("select", dt, dt));
        run_select(cond, t, e, spec, dest, par).map(|r| r.map(V))
    }, Err(mismatch("select", dt, de)))
}

/// [`crate::select`] on views: `then` and `else_` of one element type, into a new tensor, on
/// the threads `par` names.
///
/// # Errors
/// [`BroadcastError::DTypeMismatch`] when `then` and `else_` differ; as [`crate::select`].
pub fn select_view(
    cond: ArrayViewD<'_, bool>,
    then: TensorView<'_>,
    else_: TensorView<'_>,
    spec: &AutoBroadcast,
    par: Parallelism<'_>,
) -> Result<Tensor, BroadcastError> {
    run_select_views(cond, then, else_, spec, None, par)
        .map(|r| r.expect("a fresh output is returned"))
}

/// [`select_view`] into `out`, which must have `then`'s element type and the output's shape.
///
/// # Errors
/// As [`select_view`]; [`BroadcastError::DTypeMismatch`] when `out` has another element
/// type; [`BroadcastError::OutputShape`] when it has another shape.
pub fn select_view_into(
    cond: ArrayViewD<'_, bool>,
    then: TensorView<'_>,
    else_: TensorView<'_>,
    spec: &AutoBroadcast,
    out: TensorViewMut<'_>,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    run_select_views(cond, then, else_, spec, Some(out), par).map(drop)
}
