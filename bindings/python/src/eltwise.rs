//! The element-wise ops (`bcast.add`, ..., `bcast.select`): not bound yet.
//!
//! They wait for the library's `bcast::binary(op: BinaryOp, &Tensor, &Tensor,
//! &AutoBroadcast)` and `bcast::select_tensor`. Binding them is mechanical, with what is
//! here already:
//! - inputs: `convert::input(x)?.to_tensor()` (a `Tensor` of the same dtype);
//! - the rule: `auto_broadcast` as `bcast::AutoBroadcast` (parsed from its name, with `axis`
//!   for pdpd), next to `args::mode`;
//! - the call inside `py.detach(..)`, errors through `errors::to_py_err`;
//! - the result: `convert::tensor_to_numpy(py, tensor)`, or, for `out=`, the result's
//!   `with_view!` dispatch into `NpElement::with_out` (as `broadcast.rs` does);
//! - one `#[pyfunction]` per op (`add`, `subtract`, ..., `select`) registered below, its
//!   docstring in numpy's format, and its stub in `python/bcast/__init__.pyi`.

use pyo3::prelude::*;

/// Adds the element-wise functions to the module (none yet).
pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
