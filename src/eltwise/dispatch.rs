//! [`Tensor`]-level entry points: the element type is found at run time.

use super::compare::compare;
use super::exec::{run_select, Dest};
use super::logical::logical;
use super::ops::{Arith, BinaryOp, Family};
use crate::auto_broadcast::AutoBroadcast;
use crate::dtype::DType;
use crate::error::BroadcastError;
use crate::exec::Parallelism;
use crate::tensor::Tensor;

/// Runs `$body` for two tensors of the same numeric variant, with `$x`, `$y` their arrays and
/// `$v` the variant's constructor; `$other` for any other pair.
macro_rules! same_numeric {
    ($a:expr, $b:expr, |$x:ident, $y:ident, $v:ident| $body:expr, $other:expr) => {
        same_numeric!(@arms $a, $b, $x, $y, $v, $body, $other;
            I8 I16 I32 I64 U8 U16 U32 U64 F16 BF16 F32 F64)
    };
    (@arms $a:expr, $b:expr, $x:ident, $y:ident, $v:ident, $body:expr, $other:expr; $($var:ident)*) => {
        match ($a, $b) {
            $(
                (Tensor::$var($x), Tensor::$var($y)) => {
                    #[allow(unused_imports)]
                    use Tensor::$var as $v;
                    $body
                }
            )*
            _ => $other,
        }
    };
}

/// As `same_numeric!`, over every element type (bool and strings included).
macro_rules! same_any {
    ($a:expr, $b:expr, |$x:ident, $y:ident, $v:ident| $body:expr, $other:expr) => {
        same_numeric!(@arms $a, $b, $x, $y, $v, $body, $other;
            Bool I8 I16 I32 I64 U8 U16 U32 U64 F16 BF16 F32 F64 String)
    };
}

fn mismatch(op: &'static str, left: DType, right: DType) -> BroadcastError {
    BroadcastError::DTypeMismatch {
        op,
        left: left.name(),
        right: right.name(),
    }
}

fn unsupported(op: &'static str, dtype: DType) -> BroadcastError {
    BroadcastError::UnsupportedType {
        op,
        dtype: dtype.name(),
    }
}

/// The output element type of `op` on operands of type `dtype`, or why there is none.
fn out_dtype(op: BinaryOp, dtype: DType) -> Result<DType, BroadcastError> {
    let ok = match op.family() {
        Family::Arith => !matches!(dtype, DType::Bool | DType::String),
        Family::Compare => dtype != DType::String,
        Family::Logical => dtype == DType::Bool,
    };
    if !ok {
        return Err(unsupported(op.name(), dtype));
    }
    Ok(if op.family() == Family::Arith {
        dtype
    } else {
        DType::Bool
    })
}

fn returned<T>(r: Option<T>) -> T {
    r.expect("a fresh output is returned")
}

/// `op` on two tensors of the same element type under `spec`, into a new tensor (bool for
/// comparisons and logical ops, else the operands' type).
///
/// # Errors
/// [`BroadcastError::DTypeMismatch`] when `a` and `b` differ in type;
/// [`BroadcastError::UnsupportedType`] for arithmetic on bool or strings, comparisons on
/// strings, logical ops on anything but bool; [`BroadcastError::DivisionByZero`] for an
/// integer Divide, Mod or FloorMod by zero; the broadcast rule's errors.
///
/// ```
/// use bcast::{binary, AutoBroadcast, BinaryOp, Tensor};
/// use ndarray::array;
/// let a = Tensor::U8(array![200u8, 7].into_dyn());
/// let b = Tensor::U8(array![100u8].into_dyn());
/// let sum = binary(BinaryOp::Add, &a, &b, &AutoBroadcast::Numpy)?;
/// assert_eq!(sum, Tensor::U8(array![44u8, 107].into_dyn()));
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn binary(
    op: BinaryOp,
    a: &Tensor,
    b: &Tensor,
    spec: &AutoBroadcast,
) -> Result<Tensor, BroadcastError> {
    if a.dtype() != b.dtype() {
        return Err(mismatch(op.name(), a.dtype(), b.dtype()));
    }
    out_dtype(op, a.dtype())?;
    let par = Parallelism::Auto;
    let unsupported = || Err(unsupported(op.name(), a.dtype()));
    match op.family() {
        Family::Arith => same_numeric!(
            a,
            b,
            |x, y, V| {
                Arith::arith(op, x.view(), y.view(), spec, Dest::Fresh, par).map(|r| V(returned(r)))
            },
            unsupported()
        ),
        Family::Compare => {
            let r = same_numeric!(
                a,
                b,
                |x, y, _V| compare(op, x.view(), y.view(), spec, Dest::Fresh, par),
                match (a, b) {
                    (Tensor::Bool(x), Tensor::Bool(y)) => {
                        compare(op, x.view(), y.view(), spec, Dest::Fresh, par)
                    }
                    _ => None,
                }
            );
            match r {
                Some(r) => r.map(|r| Tensor::Bool(returned(r))),
                None => unsupported(),
            }
        }
        Family::Logical => match (a, b) {
            (Tensor::Bool(x), Tensor::Bool(y)) => {
                match logical(op, x.view(), y.view(), spec, Dest::Fresh, par) {
                    Some(r) => r.map(|r| Tensor::Bool(returned(r))),
                    None => unsupported(),
                }
            }
            _ => unsupported(),
        },
    }
}

/// [`binary`] into `out`, which must already have the output's element type and shape.
///
/// # Errors
/// As [`binary`]; [`BroadcastError::DTypeMismatch`] when `out` has another element type
/// (left: the op's output type, right: `out`'s); [`BroadcastError::OutputShape`] when it has
/// another shape.
pub fn binary_into(
    op: BinaryOp,
    a: &Tensor,
    b: &Tensor,
    spec: &AutoBroadcast,
    out: &mut Tensor,
) -> Result<(), BroadcastError> {
    binary_into_with(op, a, b, spec, out, Parallelism::Auto)
}

/// [`binary_into`] with a choice of threads (`Parallelism::Serial`, or a rayon pool used for
/// large outputs only, as every executor of the crate does).
///
/// # Errors
/// As [`binary_into`].
pub fn binary_into_with(
    op: BinaryOp,
    a: &Tensor,
    b: &Tensor,
    spec: &AutoBroadcast,
    out: &mut Tensor,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    if a.dtype() != b.dtype() {
        return Err(mismatch(op.name(), a.dtype(), b.dtype()));
    }
    let want = out_dtype(op, a.dtype())?;
    if out.dtype() != want {
        return Err(mismatch(op.name(), want, out.dtype()));
    }
    let unsupported = || Err(unsupported(op.name(), a.dtype()));
    match op.family() {
        Family::Arith => same_numeric!(
            a,
            b,
            |x, y, V| {
                let V(o) = out else { return unsupported() };
                Arith::arith(op, x.view(), y.view(), spec, Dest::Into(o.view_mut()), par).map(drop)
            },
            unsupported()
        ),
        Family::Compare | Family::Logical => {
            let Tensor::Bool(o) = out else {
                return unsupported();
            };
            let dest = Dest::Into(o.view_mut());
            let r = if op.family() == Family::Logical {
                match (a, b) {
                    (Tensor::Bool(x), Tensor::Bool(y)) => {
                        logical(op, x.view(), y.view(), spec, dest, par)
                    }
                    _ => None,
                }
            } else {
                same_numeric!(
                    a,
                    b,
                    |x, y, _V| compare(op, x.view(), y.view(), spec, dest, par),
                    match (a, b) {
                        (Tensor::Bool(x), Tensor::Bool(y)) => {
                            compare(op, x.view(), y.view(), spec, dest, par)
                        }
                        _ => None,
                    }
                )
            };
            match r {
                Some(r) => r.map(drop),
                None => unsupported(),
            }
        }
    }
}

/// [`crate::select`] on tensors: `cond` must be bool, `then` and `else_` of one element type.
///
/// # Errors
/// [`BroadcastError::UnsupportedType`] when `cond` is not bool,
/// [`BroadcastError::DTypeMismatch`] when `then` and `else_` differ; as [`crate::select`].
pub fn select_tensor(
    cond: &Tensor,
    then: &Tensor,
    else_: &Tensor,
    spec: &AutoBroadcast,
) -> Result<Tensor, BroadcastError> {
    let Tensor::Bool(c) = cond else {
        return Err(unsupported("select condition", cond.dtype()));
    };
    same_any!(
        then,
        else_,
        |t, e, V| {
            run_select(
                c.view(),
                t.view(),
                e.view(),
                spec,
                Dest::Fresh,
                Parallelism::Auto,
            )
            .map(|r| V(returned(r)))
        },
        Err(mismatch("select", then.dtype(), else_.dtype()))
    )
}
