//! Expressions of element-wise ops: `bcast.evaluate("(x - m) * r * g + b", x=..., ...)` and
//! `bcast.Expression` (parsed once, evaluated many times), over the library's
//! [`bcast::Expression`]. Operands are named by keyword, read in place as the element-wise
//! functions read theirs ([`convert::input`]); the expression runs with the GIL released,
//! into a new array or into `out=`.
//!
//! A Python scalar operand (exact `int`, `float`, `bool`) is a constant of the expression,
//! as a number written in its text is: it takes the element type of the first array operand
//! that is not bool, as numpy 2 gives a Python scalar the array's type (NEP 50). Arrays,
//! numpy scalars and 0-d arrays keep their dtypes.

use bcast::{DType, DTypeKind, EltwiseOp, ExprLiteral, ExprValue, Expression};
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyTuple};

use crate::args::Axis;
use crate::convert::{self, InArray};
use crate::eltwise::{out_arg, scalar_if_0d, spec};
use crate::errors::to_py_err;

/// An expression of element-wise ops, parsed once and evaluated on many operands.
///
/// ``Expression(text, *, auto_broadcast="numpy", axis=-1)`` parses ``text``: names are
/// operands, infix ``+ - * / % **`` are add, subtract, multiply, divide (integer quotients
/// floor, as OpenVINO's ``pythondiv``), floor_mod and power with Python's precedence,
/// ``< <= > >= == !=`` the comparisons, and every op of bcast's table is a call by its
/// name (``maximum(x + b, 0)``, ``select(x > 0, x, x * 0.1)``, ``divide_trunc(a, b)``,
/// ``fake_quantize(x, il, ih, ol, oh, levels=256)``). A number is a constant of the
/// operands' element type (the first non-bool operand's); ``true`` and ``false`` are bool
/// constants. Every op places its operands by its own rule under ``auto_broadcast``, as
/// ``bcast.add(..., auto_broadcast=...)`` does, and rounds as that op does (float16 after
/// every op), so the result is bit for bit the ops run one by one.
///
/// ``inputs``: the operand names, in the order the text first names them. ``str(e)``: the
/// expression as calls (``add(multiply(x, s), b)``), which parses back.
///
/// Raises ``bcast.BroadcastError`` for text that does not parse (naming the character),
/// ``TypeError`` for a call with a wrong number of operands.
#[pyclass(module = "bcast", name = "Expression", frozen)]
pub struct PyExpression {
    expr: Expression,
}

#[pymethods]
impl PyExpression {
    #[new]
    #[pyo3(
        signature = (text, *, auto_broadcast = "numpy", axis = Axis(-1)),
        text_signature = "(text, *, auto_broadcast='numpy', axis=-1)"
    )]
    fn new(text: &str, auto_broadcast: &str, axis: Axis) -> PyResult<Self> {
        let rule = spec(Some(auto_broadcast), axis)?;
        let expr = Expression::parse(text, rule).map_err(to_py_err)?;
        Ok(PyExpression { expr })
    }

    /// The operand names, in the order the text first names them.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.expr.inputs())
    }

    /// ``e.evaluate(operands=None, /, *, out=None, **named)``: the expression on the
    /// operands, by name (keywords, or a mapping for names that are Python keywords or
    /// ``out``). Returns a new array (a numpy scalar for a 0-d result, as numpy's ufuncs),
    /// or ``out``, written in place (any strides; it must have the result's dtype and shape
    /// and overlap no operand).
    ///
    /// Raises ``TypeError`` for a missing or unknown operand name, or a dtype bcast does not
    /// take; ``OverflowError`` for a Python int the operands' integer type cannot hold;
    /// ``bcast.BroadcastError`` for shapes that break an op's rule, operand types an op
    /// does not take, a Python float with integer operands, or an integer division by 0.
    #[pyo3(signature = (operands = None, /, *, out = None, **named))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        operands: Option<&Bound<'py, PyDict>>,
        out: Option<&Bound<'py, PyAny>>,
        named: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let all = PyDict::new(py);
        for d in [operands, named].into_iter().flatten() {
            for (k, v) in d.iter() {
                if all.contains(&k)? {
                    return Err(PyTypeError::new_err(format!(
                        "operand {} is given twice",
                        k.repr()?
                    )));
                }
                all.set_item(k, v)?;
            }
        }
        run(py, &self.expr, &all, out_arg(out)?, &Default::default())
    }

    fn __str__(&self) -> String {
        self.expr.to_string()
    }

    fn __repr__(&self) -> String {
        // The call form holds names, numbers and punctuation, never a quote.
        format!("Expression('{}')", self.expr)
    }
}

/// Names a `bcast.evaluate` keyword takes for itself: an operand cannot have them there.
const RESERVED: [&str; 4] = ["out", "auto_broadcast", "axis", "context"];

/// ``evaluate(expr, /, out=None, *, auto_broadcast="numpy", axis=-1, **operands)``: the
/// expression ``expr`` (text, see ``bcast.Expression``) on the operands named in it, in one
/// pass, e.g. ``bcast.evaluate("(x - m) * r * g + b", x=x, m=m, r=r, g=g, b=b)``.
///
/// Each operand is an array (any dtype bcast takes, any strides, read in place), a numpy
/// scalar or 0-d array (its dtype kept), or a Python int, float or bool, which is a constant
/// of the expression as a number in the text is: it takes the first non-bool array
/// operand's dtype, as numpy 2 types a Python scalar. Unlike numpy, a Python float with
/// integer arrays is refused (numpy would compute in float64), and integer ``/`` floors, as
/// numpy's ``//`` (OpenVINO's Divide with ``pythondiv``). Returns a new array (a numpy scalar
/// for a 0-d result), or ``out``, written in place.
///
/// Raises ``TypeError`` for a missing or unknown operand, or an operand named ``out``,
/// ``auto_broadcast`` or ``axis`` (use ``bcast.Expression(expr).evaluate({...})``);
/// ``OverflowError`` for a Python int beyond the integer type; ``bcast.BroadcastError`` as
/// ``Expression.evaluate`` does, and for text that does not parse.
#[pyfunction]
#[pyo3(
    signature = (expr, /, out = None, *, auto_broadcast = "numpy", axis = Axis(-1), context = None, **operands),
    text_signature = "(expr, /, out=None, *, auto_broadcast='numpy', axis=-1, context=None, **operands)"
)]
fn evaluate<'py>(
    py: Python<'py>,
    expr: &str,
    out: Option<&Bound<'py, PyAny>>,
    auto_broadcast: &str,
    axis: Axis,
    context: Option<&Bound<'py, crate::context::PyContext>>,
    operands: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let ctx = crate::context::context_of(context);
    let rule = spec(Some(auto_broadcast), axis)?;
    let out = out_arg(out)?;
    let e = Expression::parse(expr, rule).map_err(to_py_err)?;
    if let Some(name) = e.inputs().iter().find(|n| RESERVED.contains(&n.as_str())) {
        return Err(PyTypeError::new_err(format!(
            "the operand '{name}' cannot be passed to bcast.evaluate, which takes {name}= for \
             itself: use bcast.Expression(...).evaluate({{'{name}': ...}})"
        )));
    }
    let empty = PyDict::new(py);
    run(py, &e, operands.unwrap_or(&empty), out, &ctx)
}

/// A Python scalar operand: becomes a constant of the expression.
#[derive(Clone, Copy)]
enum Weak {
    Int(i128),
    Float(f64),
    Bool(bool),
}

/// `x` as a Python scalar, if it is an exact `int`, `float` or `bool` (numpy scalars and
/// subclasses are arrays, as in numpy 2's promotion).
fn weak(x: &Bound<'_, PyAny>) -> PyResult<Option<Weak>> {
    Ok(if x.is_exact_instance_of::<PyBool>() {
        Some(Weak::Bool(x.extract()?))
    } else if x.is_exact_instance_of::<PyInt>() {
        let v = x.extract::<i128>().map_err(|_| {
            PyOverflowError::new_err(format!("Python integer {x} is too large for bcast"))
        })?;
        Some(Weak::Int(v))
    } else if x.is_exact_instance_of::<PyFloat>() {
        Some(Weak::Float(x.extract()?))
    } else {
        None
    })
}

/// The operand names of `e` looked up in `operands`: each one's object, or `TypeError`
/// naming what is missing and what is unknown.
fn by_name<'py>(e: &Expression, operands: &Bound<'py, PyDict>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mut found = Vec::with_capacity(e.inputs().len());
    let mut missing = Vec::new();
    for name in e.inputs() {
        match operands.get_item(name)? {
            Some(v) => found.push(v),
            // Names are identifiers: quoted as Python's repr quotes them.
            None => missing.push(format!("'{name}'")),
        }
    }
    let mut unknown = Vec::new();
    for key in operands.keys() {
        let known = key
            .extract::<String>()
            .is_ok_and(|k| e.inputs().contains(&k));
        if !known {
            unknown.push(key.repr()?.to_string());
        }
    }
    if missing.is_empty() && unknown.is_empty() {
        return Ok(found);
    }
    let mut why = Vec::new();
    if !missing.is_empty() {
        why.push(format!("missing operand(s) {}", missing.join(", ")));
    }
    if !unknown.is_empty() {
        why.push(format!("unknown operand(s) {}", unknown.join(", ")));
    }
    Err(PyTypeError::new_err(format!(
        "{}: the expression {} takes {}",
        why.join("; "),
        e,
        e.inputs().join(", ")
    )))
}

/// numpy's message for a Python int its integer type cannot hold.
fn out_of_bounds(v: i128, dtype: DType) -> PyErr {
    PyOverflowError::new_err(format!(
        "Python integer {v} out of bounds for {}",
        convert::numpy_name(dtype)
    ))
}

/// `e` with its Python scalar operands (`weak[i]` for input `i`) made constants: the other
/// inputs keep their order, literals and nodes theirs. `dtype` is the type the constants
/// take (the first non-bool array operand's).
fn with_constants(e: &Expression, weak: &[Option<Weak>], dtype: DType) -> PyResult<Expression> {
    let mut out = Expression::new();
    let mut inputs = Vec::with_capacity(weak.len());
    for (name, w) in e.inputs().iter().zip(weak) {
        let literal = match *w {
            None => {
                inputs.push(out.input(name));
                continue;
            }
            // A bool constant with numbers is 1 or 0, as numpy takes it.
            Some(Weak::Bool(b)) if dtype != DType::Bool => ExprLiteral::Int(i128::from(b)),
            Some(Weak::Bool(b)) => ExprLiteral::Bool(b),
            Some(Weak::Int(v)) => {
                if matches!(dtype.kind(), DTypeKind::Int | DTypeKind::Uint) {
                    let bits = 8 * dtype.size() as u32;
                    let (min, max) = match dtype.kind() {
                        DTypeKind::Int => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
                        _ => (0, (1i128 << bits) - 1),
                    };
                    if !(min..=max).contains(&v) {
                        return Err(out_of_bounds(v, dtype));
                    }
                }
                ExprLiteral::Int(v)
            }
            Some(Weak::Float(f)) => ExprLiteral::Float(f),
        };
        inputs.push(out.literal(literal));
    }
    let literals: Vec<ExprValue> = e.literals().iter().map(|l| out.literal(*l)).collect();
    let mut nodes = Vec::with_capacity(e.nodes().len());
    for node in e.nodes() {
        let args: Vec<ExprValue> = node
            .args
            .iter()
            .map(|a| match *a {
                ExprValue::Input(i) => inputs[i],
                ExprValue::Literal(i) => literals[i],
                ExprValue::Node(i) => nodes[i],
            })
            .collect();
        nodes.push(out.apply(node.op, &args, node.rule).map_err(to_py_err)?);
    }
    Ok(out)
}

/// `e` on `operands` (by name) into a new array or `out`.
fn run<'py>(
    py: Python<'py>,
    e: &Expression,
    operands: &Bound<'py, PyDict>,
    out: Option<&Bound<'py, PyAny>>,
    ctx: &bcast::exec::Context,
) -> PyResult<Bound<'py, PyAny>> {
    let objects = by_name(e, operands)?;
    let weak = objects.iter().map(weak).collect::<PyResult<Vec<_>>>()?;
    let mut arrays: Vec<InArray<'py>> = Vec::with_capacity(objects.len());
    for (o, w) in objects.iter().zip(&weak) {
        if w.is_none() {
            arrays.push(convert::input(o)?);
        }
    }
    let rebuilt;
    let (e, arrays) = if weak.iter().all(Option::is_none) {
        (e, arrays)
    } else {
        let first = arrays
            .iter()
            .map(InArray::dtype)
            .find(|d| *d != DType::Bool);
        let (weak, arrays, dtype) = match (first, arrays.is_empty()) {
            (Some(d), _) => (weak, arrays, d),
            // Bool arrays only: the constants are bool, or the library refuses them.
            (None, false) => (weak, arrays, DType::Bool),
            // Python scalars only: the first becomes an array of numpy's default type for
            // them all (float64 with a float among them, else int64, else bool).
            (None, true) => {
                let np = py.import("numpy")?;
                let default = if weak.iter().any(|w| matches!(w, Some(Weak::Float(_)))) {
                    "float64"
                } else if weak.iter().any(|w| matches!(w, Some(Weak::Int(_)))) {
                    "int64"
                } else {
                    "bool"
                };
                let kwargs = PyDict::new(py);
                kwargs.set_item("dtype", default)?;
                let first = np.call_method("asarray", (&objects[0],), Some(&kwargs))?;
                let array = convert::input(&first)?;
                let dtype = array.dtype();
                let mut weak = weak;
                weak[0] = None;
                (weak, vec![array], dtype)
            }
        };
        rebuilt = with_constants(e, &weak, dtype)?;
        (&rebuilt, arrays)
    };
    let views: Vec<bcast::TensorView<'_>> = arrays.iter().map(InArray::view).collect();
    let last = e.nodes().last().map(|n| n.op);
    match out {
        None => {
            let t = py
                .detach(|| ctx.run(|par| e.evaluate(&views, par)))
                .map_err(to_py_err)?;
            let width = arrays.iter().map(InArray::str_width).max().unwrap_or(0);
            let r = convert::tensor_to_numpy(py, t, width)?;
            // As the op functions: np.where gives 0-d arrays, numpy's ufuncs scalars.
            if last == Some(EltwiseOp::Select) {
                Ok(r)
            } else {
                scalar_if_0d(r)
            }
        }
        Some(out) => {
            let dtypes: Vec<DType> = views.iter().map(|v| v.dtype()).collect();
            let dtype = e.output_dtype(&dtypes).map_err(to_py_err)?;
            convert::with_out_view(py, dtype, out, |o| {
                ctx.run(|par| e.evaluate_into(&views, o, par))
            })?;
            Ok(out.clone())
        }
    }
}

/// Adds `evaluate` and `Expression` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyExpression>()?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    Ok(())
}
