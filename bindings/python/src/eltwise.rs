//! The element-wise ops: one generic entry point, `_eltwise`, and the op table, `_ops()`,
//! from which `bcast/__init__.py` makes one Python function per op (`bcast.add`, ...,
//! `bcast.sum`, `bcast.fake_quantize`, ...). Adding an op to the library's table adds its
//! Python function; only its docstring is written in the package (`bcast/_docs.py`).
//!
//! Inputs are borrowed as views of numpy's own memory ([`convert::input`]) and handed to the
//! library as [`bcast::TensorView`]s, read in place whatever their strides (no copy; `<U`
//! strings, which only `select` takes, are decoded). The kernel runs with the GIL released;
//! the result moves to numpy without a copy, or is written into `out=`.

use bcast::{Arity, AutoBroadcast, DType, EltwiseOp, Parallelism, ShiftDirection, TensorView};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::args::Axis;
use crate::convert::{self, InArray};
use crate::errors::to_py_err;
use crate::promote;

/// Where one attribute of an op keeps its value.
enum Slot<'a> {
    /// A Python bool (`pythondiv`).
    Flag(&'a mut bool),
    /// ONNX's 0 / 1 integer flag (`fmod`).
    ZeroOne(&'a mut bool),
    /// A count (`levels`).
    Count(&'a mut u64),
    /// `"LEFT"` / `"RIGHT"` (`direction`).
    Direction(&'a mut ShiftDirection),
}

/// One attribute of an op: its Python keyword, whether a call must give it (the runtimes'
/// definitions have no default for FakeQuantize's `levels` and BitShift's `direction`), and
/// its value inside the op.
struct Attribute<'a> {
    name: &'static str,
    required: bool,
    slot: Slot<'a>,
}

/// The attributes of `op`, borrowed from it: read for their defaults (`_ops()`), written
/// from a call's keywords (`_eltwise`). The one place that knows the table's attributes.
fn attributes(op: &mut EltwiseOp) -> Vec<Attribute<'_>> {
    let (name, required, slot) = match op {
        EltwiseOp::Divide { pythondiv } => ("pythondiv", false, Slot::Flag(pythondiv)),
        EltwiseOp::OnnxMod { fmod } => ("fmod", false, Slot::ZeroOne(fmod)),
        EltwiseOp::FakeQuantize { levels } => ("levels", true, Slot::Count(levels)),
        EltwiseOp::BitShift { direction } => ("direction", true, Slot::Direction(direction)),
        _ => return Vec::new(),
    };
    vec![Attribute {
        name,
        required,
        slot,
    }]
}

impl Slot<'_> {
    /// The value as Python spells it.
    fn get<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Slot::Flag(v) => pyo3::types::PyBool::new(py, **v).to_owned().into_any(),
            Slot::ZeroOne(v) => (**v as i64).into_pyobject(py)?.into_any(),
            Slot::Count(v) => v.into_pyobject(py)?.into_any(),
            Slot::Direction(v) => PyString::new(py, v.name()).into_any(),
        })
    }

    /// Sets the value from a Python argument; `TypeError` or `ValueError` as Python's own
    /// functions raise them.
    fn set(&mut self, op: &'static str, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let kind = |want: &str| {
            PyTypeError::new_err(format!(
                "{op}: {name} must be {want}, not {}",
                value
                    .get_type()
                    .name()
                    .map_or_else(|_| "?".to_string(), |n| n.to_string())
            ))
        };
        match self {
            Slot::Flag(v) => **v = value.extract::<bool>().map_err(|_| kind("a bool"))?,
            Slot::ZeroOne(v) => {
                **v = match value.extract::<i64>().map_err(|_| kind("0 or 1"))? {
                    0 => false,
                    1 => true,
                    other => {
                        return Err(PyValueError::new_err(format!(
                            "{op}: {name} must be 0 or 1, not {other}"
                        )))
                    }
                }
            }
            Slot::Count(v) => {
                let n = value.extract::<i128>().map_err(|_| kind("an int"))?;
                // From 0 to 1 the library refuses with its own message; below 0 and beyond
                // u64 there is no count to give it.
                **v = u64::try_from(n).map_err(|_| {
                    to_py_err(bcast::BroadcastError::InvalidAttribute {
                        op,
                        reason: format!("{name} must be 2 or more and fit in 64 bits, not {n}"),
                    })
                })?
            }
            Slot::Direction(v) => {
                let text = value.extract::<String>().map_err(|_| kind("a str"))?;
                **v = text.parse().map_err(|_| {
                    PyValueError::new_err(format!(
                        "{op}: {name} must be \"LEFT\" or \"RIGHT\", not {text:?}"
                    ))
                })?
            }
        }
        Ok(())
    }
}

/// The op table, as `bcast/__init__.py` needs it to make the functions: for every op, in
/// the table's order, `(name, fewest operands, most operands or None, takes_auto_broadcast,
/// [(attribute, default or None when a call must give it)])`.
#[pyfunction]
fn _ops(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let rows = PyList::empty(py);
    for mut op in EltwiseOp::ALL {
        let (fewest, most) = match op.arity() {
            Arity::Exactly(n) => (n, Some(n)),
            Arity::AtLeast(n) => (n, None),
        };
        let takes_auto_broadcast = op.takes_auto_broadcast();
        let name = op.name();
        let attrs = PyList::empty(py);
        for a in attributes(&mut op) {
            let default = if a.required {
                py.None().into_bound(py)
            } else {
                a.slot.get(py)?
            };
            attrs.append((a.name, default))?;
        }
        rows.append((name, fewest, most, takes_auto_broadcast, attrs))?;
    }
    Ok(rows)
}

/// The op of the table named `name` (the package's function name: `add`, `onnx_mod`, ...)
/// with its attributes set from `attrs` (keyword -> value, as the function takes them):
/// `ValueError` for a name not in the table, `TypeError` for an attribute the op does not
/// have or a required one (`levels`, `direction`) missing, the attribute's own errors for a
/// bad value. The functions (`_eltwise`) and `bcast.PreparedOp` both read ops through this.
pub(crate) fn op_named(name: &str, attrs: Option<&Bound<'_, PyDict>>) -> PyResult<EltwiseOp> {
    let mut op: EltwiseOp = name
        .parse()
        .map_err(|e: bcast::ParseBinaryOpError| PyValueError::new_err(e.to_string()))?;
    let op_name = op.name();
    let mut slots = attributes(&mut op);
    let mut given = vec![false; slots.len()];
    if let Some(attrs) = attrs {
        for (key, value) in attrs.iter() {
            let key: String = key.extract()?;
            let i = slots.iter().position(|a| a.name == key).ok_or_else(|| {
                PyTypeError::new_err(format!("{op_name} has no attribute {key:?}"))
            })?;
            slots[i].slot.set(op_name, &key, &value)?;
            given[i] = true;
        }
    }
    if let Some((a, _)) = slots.iter().zip(&given).find(|(a, g)| a.required && !**g) {
        return Err(PyTypeError::new_err(format!(
            "{op_name} needs its attribute {:?}",
            a.name
        )));
    }
    Ok(op)
}

/// The auto-broadcast rule named `name` (case-insensitive), with `axis` for pdpd; `None`:
/// the op broadcasts by its own rule (the numpy rule over its operands, or PRelu's).
pub(crate) fn spec(name: Option<&str>, axis: Axis) -> PyResult<AutoBroadcast> {
    let Some(name) = name else {
        return Ok(AutoBroadcast::Numpy);
    };
    match name.parse::<AutoBroadcast>() {
        Ok(AutoBroadcast::Pdpd { .. }) => Ok(AutoBroadcast::Pdpd { axis: axis.0 }),
        Ok(_) if axis.0 != -1 => Err(PyTypeError::new_err(format!(
            "axis is a pdpd argument; auto_broadcast {name:?} takes none"
        ))),
        Ok(other) => Ok(other),
        Err(e) => Err(PyValueError::new_err(e.to_string())),
    }
}

/// `out` as the caller gave it: `None`, or an array checked later by `with_out_view`. A
/// string is the old third positional argument, `auto_broadcast`, which is keyword-only.
pub(crate) fn out_arg<'a, 'py>(
    out: Option<&'a Bound<'py, PyAny>>,
) -> PyResult<Option<&'a Bound<'py, PyAny>>> {
    match out {
        Some(o) if o.is_instance_of::<PyString>() => Err(PyTypeError::new_err(format!(
            "out must be a numpy.ndarray, not str; the rule is keyword-only: \
             auto_broadcast={}",
            o.repr()?
        ))),
        Some(o) if o.is_none() => Ok(None),
        _ => Ok(out),
    }
}

/// A 0-d result as numpy's scalar of its type, as numpy's ufuncs return one.
pub(crate) fn scalar_if_0d(r: Bound<'_, PyAny>) -> PyResult<Bound<'_, PyAny>> {
    if r.cast::<PyUntypedArray>()?.ndim() == 0 {
        r.get_item(PyTuple::empty(r.py()))
    } else {
        Ok(r)
    }
}

/// The operands typed as numpy 2 types Python scalars (NEP 50), and the op to run (a
/// comparison with an int beyond the array's type becomes one with the same answer).
fn typed_operands<'py>(
    op: EltwiseOp,
    operands: &[Bound<'py, PyAny>],
) -> PyResult<(Vec<Bound<'py, PyAny>>, EltwiseOp)> {
    Ok(match (op, operands) {
        (EltwiseOp::Select, [cond, then, else_]) => {
            let values = promote::promote(None, then, else_)?;
            (vec![cond.clone(), values.a, values.b], op)
        }
        (_, [a, b]) if op.arity() == Arity::Exactly(2) => {
            let p = promote::promote(Some(op), a, b)?;
            (vec![p.a, p.b], p.op.unwrap_or(op))
        }
        _ => (promote::promote_all(op, operands)?, op),
    })
}

/// The element type of `op`'s output on `inputs` (Select: its values'), or the library's
/// first refusal of them: the library checks the count, the attributes and the types
/// before anything is computed, so a run that cannot type its output stops there.
fn output_dtype(
    op: EltwiseOp,
    inputs: &[TensorView<'_>],
    spec: &AutoBroadcast,
) -> Result<DType, bcast::BroadcastError> {
    let typed: Result<DType, Option<bcast::BroadcastError>> = match (op, inputs) {
        (EltwiseOp::Select, [_, then, _]) => Ok(then.dtype()),
        (_, [first, ..]) if op.arity().admits(inputs.len()) => {
            op.output_dtype(first.dtype()).map_err(Some)
        }
        _ => Err(None),
    };
    typed.map_err(|own| {
        // The library's own refusal, which comes before anything is computed.
        let library = bcast::eltwise_view(op, inputs, spec, Parallelism::Serial).err();
        // Not reached without one: what the op cannot type, the library refuses.
        library.or(own).unwrap_or(bcast::BroadcastError::Arity {
            op: op.name(),
            expected: "another number of",
            got: inputs.len(),
        })
    })
}

/// Every element-wise op: `name` (the table's), its operands, `out`, its attributes (a
/// dict, or None for the defaults), the auto-broadcast rule (None: the op's own) and the
/// pdpd axis. The package's functions call this; it is not part of the API.
#[pyfunction]
#[pyo3(signature = (name, operands, out = None, attrs = None, auto_broadcast = None, axis = Axis(-1), context = None))]
#[allow(clippy::too_many_arguments)]
fn _eltwise<'py>(
    py: Python<'py>,
    name: &str,
    operands: Vec<Bound<'py, PyAny>>,
    out: Option<&Bound<'py, PyAny>>,
    attrs: Option<&Bound<'py, PyDict>>,
    auto_broadcast: Option<&str>,
    axis: Axis,
    context: Option<&Bound<'py, crate::context::PyContext>>,
) -> PyResult<Bound<'py, PyAny>> {
    let ctx = crate::context::context_of(context);
    let op = op_named(name, attrs)?;
    let spec = spec(auto_broadcast, axis)?;
    let out = out_arg(out)?;
    let (operands, op) = typed_operands(op, &operands)?;
    let inputs = operands
        .iter()
        .map(convert::input)
        .collect::<PyResult<Vec<InArray<'_>>>>()?;
    let views: Vec<TensorView<'_>> = inputs.iter().map(InArray::view).collect();
    match out {
        None => {
            let t = py
                .detach(|| ctx.run(|par| bcast::eltwise_view(op, &views, &spec, par)))
                .map_err(to_py_err)?;
            // Strings (Select's values): numpy's result type of two `<U` arrays, the wider.
            let width = inputs.iter().map(InArray::str_width).max().unwrap_or(0);
            let r = convert::tensor_to_numpy(py, t, width)?;
            // np.where returns 0-d arrays; numpy's ufuncs, scalars.
            if op == EltwiseOp::Select {
                Ok(r)
            } else {
                scalar_if_0d(r)
            }
        }
        Some(out) => {
            let dtype = output_dtype(op, &views, &spec).map_err(to_py_err)?;
            convert::with_out_view(py, dtype, out, |o| {
                ctx.run(|par| bcast::eltwise_view_into(op, &views, &spec, o, par))
            })?;
            Ok(out.clone())
        }
    }
}

/// Adds the op table and the generic entry point to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_ops, m)?)?;
    m.add_function(wrap_pyfunction!(_eltwise, m)?)?;
    Ok(())
}
