//! Logical ops: bool in, bool out.

use ndarray::{ArrayD, ArrayViewD};

use super::exec::{run_binary, Dest, PerElement};
use super::ops::BinaryOp;
use crate::auto_broadcast::AutoBroadcast;
use crate::error::BroadcastError;
use crate::exec::Parallelism;

/// Runs logical `op` (`None` when `op` is not a logical op).
pub(crate) fn logical(
    op: BinaryOp,
    a: ArrayViewD<'_, bool>,
    b: ArrayViewD<'_, bool>,
    spec: &AutoBroadcast,
    dest: Dest<'_, bool>,
    par: Parallelism<'_>,
) -> Option<Result<Option<ArrayD<bool>>, BroadcastError>> {
    Some(match op {
        BinaryOp::LogicalAnd => {
            run_binary(a, b, spec, &PerElement(|x: bool, y: bool| x & y), dest, par)
        }
        BinaryOp::LogicalOr => {
            run_binary(a, b, spec, &PerElement(|x: bool, y: bool| x | y), dest, par)
        }
        BinaryOp::LogicalXor => {
            run_binary(a, b, spec, &PerElement(|x: bool, y: bool| x ^ y), dest, par)
        }
        _ => return None,
    })
}
