//! `bcast._bcast`, the native module behind the `bcast` Python package.
//!
//! - `convert.rs`: numpy <-> Rust for every element type (zero-copy in and out);
//! - `args.rs`: shapes, axes and modes from Python arguments;
//! - `errors.rs`: `bcast.BroadcastError` and the mapping of the library's errors;
//! - `broadcast.rs`: `broadcast`, `broadcast_arrays`, `output_shape`, `broadcast_shapes`,
//!   `reduce_to_input`;
//! - `eltwise.rs`: the element-wise ops;
//! - `expr.rs`: `evaluate` and `Expression`, expressions of element-wise ops in one pass;
//! - `prepared.rs`: `PreparedOp`, an element-wise op checked and planned once, run many times;
//! - `promote.rs`: Python scalars in the element-wise ops, typed as numpy 2 types them.
//!
//! The functions' doc comments are their Python docstrings, in numpy's format (which is
//! not Markdown: `>>>` examples are not block quotes), so the Markdown doc lints are off.
#![allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items)]

mod args;
mod broadcast;
mod context;
mod convert;
mod eltwise;
mod errors;
mod expr;
mod prepared;
mod promote;

use pyo3::prelude::*;

#[pymodule]
fn _bcast(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add(
        "BroadcastError",
        m.py().get_type::<errors::BroadcastError>(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<context::PyContext>()?;
    broadcast::register(m)?;
    eltwise::register(m)?;
    expr::register(m)?;
    prepared::register(m)?;
    Ok(())
}
