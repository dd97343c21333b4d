//! `bcast.BroadcastError` and the mapping of the library's errors onto Python's.

use bcast::BroadcastError as RustError;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::{create_exception, PyErr};

create_exception!(
    bcast,
    BroadcastError,
    PyValueError,
    "A broadcast that breaks its mode's rule (or cannot be materialised). A ValueError; the\n\
     message is the library's: it names the mode, the shapes and the axis at fault."
);

/// The library's error as a Python exception: `TypeError` for an element type the operation
/// does not take (a bool or str gradient) and for a count of operands an element-wise op
/// does not take (as Python's functions raise for a wrong count of arguments),
/// `bcast.BroadcastError` for everything else.
pub fn to_py_err(e: RustError) -> PyErr {
    match e {
        RustError::UnsupportedType { .. } | RustError::Arity { .. } => {
            PyTypeError::new_err(e.to_string())
        }
        other => BroadcastError::new_err(other.to_string()),
    }
}
