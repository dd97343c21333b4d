//! Python arguments into the library's: shapes, axes, modes (and, for the element-wise ops,
//! the auto-broadcast rule).

use bcast::{axes_from_ints, shape_from_ints, Mode};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::errors::to_py_err;

/// A shape: a sequence of integers (tuple, list, 1-d integer array), or one integer as numpy
/// takes it. Negative or oversized values raise `bcast.BroadcastError` with the library's
/// message; anything but integers raises `TypeError`.
pub fn shape(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<usize>> {
    let values = ints(obj, what)?;
    shape_from_ints(&values).map_err(to_py_err)
}

/// A list of axes (`axes_mapping`, `broadcast_axes`): as [`shape`], negative values refused.
pub fn axes(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<usize>> {
    let values = ints(obj, what)?;
    axes_from_ints(&values).map_err(to_py_err)
}

fn ints(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<i128>> {
    if obj.is_instance_of::<pyo3::types::PyString>() || obj.is_instance_of::<pyo3::types::PyBytes>()
    {
        return Err(type_error(obj, what));
    }
    if let Some(v) = index(obj)? {
        return Ok(vec![v]);
    }
    let items = obj.try_iter().map_err(|_| type_error(obj, what))?;
    items
        .map(|item| index(&item?)?.ok_or_else(|| type_error(obj, what)))
        .collect()
}

/// An integer (anything with `__index__`: int, numpy integers, bool), clamped to `i128`
/// (the library refuses such values with its own message); `None` for anything else.
fn index(obj: &Bound<'_, PyAny>) -> PyResult<Option<i128>> {
    let Ok(index) = obj.call_method0("__index__") else {
        return Ok(None);
    };
    Ok(Some(match index.extract::<i128>() {
        Ok(v) => v,
        Err(_) if index.lt(0)? => i128::MIN,
        Err(_) => i128::MAX,
    }))
}

fn type_error(obj: &Bound<'_, PyAny>, what: &str) -> PyErr {
    let ty = obj
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string());
    let expected = if what == "axis" {
        "an integer"
    } else {
        "an integer or a sequence of integers"
    };
    PyTypeError::new_err(format!("{what} must be {expected}, not {ty}"))
}

/// A PDPD `axis`: any Python integer (or object with `__index__`). One outside `i64` is
/// clamped to `i64::MIN`/`i64::MAX`, which no valid axis reaches, so the library still
/// refuses it with its own message (the Rust conformance runner does the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axis(pub i64);

impl<'a, 'py> FromPyObject<'a, 'py> for Axis {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let index = obj
            .call_method0("__index__")
            .map_err(|_| type_error(&obj, "axis"))?;
        if let Ok(v) = index.extract::<i64>() {
            return Ok(Axis(v));
        }
        Ok(Axis(if index.lt(0)? { i64::MIN } else { i64::MAX }))
    }
}

/// The mode named `name` with its arguments. An argument of another mode is a `TypeError`
/// (as an unexpected keyword is), not silently ignored; `axis=-1` is the default and is
/// accepted by every mode.
pub fn mode(
    name: &str,
    axes_mapping: Option<&Bound<'_, PyAny>>,
    axis: Axis,
    broadcast_axes: Option<&Bound<'_, PyAny>>,
) -> PyResult<Mode> {
    let Axis(axis) = axis;
    let mut mode: Mode = name
        .parse()
        .map_err(|e: bcast::ParseModeError| PyValueError::new_err(e.to_string()))?;
    let wrong = |arg: &str, owner: &str, mode: &Mode| {
        PyTypeError::new_err(format!(
            "{arg} is an argument of mode \"{owner}\"; mode \"{}\" does not take it",
            mode.name()
        ))
    };
    if axes_mapping.is_some() && !matches!(mode, Mode::Explicit { .. }) {
        return Err(wrong("axes_mapping", "explicit", &mode));
    }
    if broadcast_axes.is_some() && !matches!(mode, Mode::Axes { .. }) {
        return Err(wrong("broadcast_axes", "axes", &mode));
    }
    if axis != -1 && !matches!(mode, Mode::Pdpd { .. }) {
        return Err(wrong("axis", "pdpd", &mode));
    }
    match &mut mode {
        Mode::Explicit { axes_mapping: a } => {
            if let Some(obj) = axes_mapping {
                *a = axes(obj, "axes_mapping")?;
            }
        }
        Mode::Axes { broadcast_axes: a } => {
            if let Some(obj) = broadcast_axes {
                *a = axes(obj, "broadcast_axes")?;
            }
        }
        Mode::Pdpd { axis: a } => *a = axis,
        Mode::Numpy | Mode::Bidirectional => {}
    }
    Ok(mode)
}
