//! Comparisons: numbers (or bool) in, bool out. IEEE on floats: a NaN compares false,
//! except NotEqual, which is true; -0.0 == 0.0.

use ndarray::{ArrayD, ArrayViewD};

use super::exec::{run_binary, Dest, PerElement};
use super::ops::BinaryOp;
use crate::auto_broadcast::AutoBroadcast;
use crate::error::BroadcastError;
use crate::exec::Parallelism;

macro_rules! cmp {
    ($a:expr, $b:expr, $spec:expr, $dest:expr, $par:expr, |$x:ident, $y:ident| $body:expr) => {
        run_binary(
            $a,
            $b,
            $spec,
            &PerElement(|$x: T, $y: T| -> bool { $body }),
            $dest,
            $par,
        )
    };
}

/// Runs comparison `op` (`None` when `op` is not a comparison).
pub(crate) fn compare<T: PartialOrd + Copy + Sync>(
    op: BinaryOp,
    a: ArrayViewD<'_, T>,
    b: ArrayViewD<'_, T>,
    spec: &AutoBroadcast,
    dest: Dest<'_, bool>,
    par: Parallelism<'_>,
) -> Option<Result<Option<ArrayD<bool>>, BroadcastError>> {
    Some(match op {
        BinaryOp::Equal => cmp!(a, b, spec, dest, par, |x, y| x == y),
        BinaryOp::NotEqual => cmp!(a, b, spec, dest, par, |x, y| x != y),
        BinaryOp::Less => cmp!(a, b, spec, dest, par, |x, y| x < y),
        BinaryOp::LessEqual => cmp!(a, b, spec, dest, par, |x, y| x <= y),
        BinaryOp::Greater => cmp!(a, b, spec, dest, par, |x, y| x > y),
        BinaryOp::GreaterEqual => cmp!(a, b, spec, dest, par, |x, y| x >= y),
        _ => return None,
    })
}
