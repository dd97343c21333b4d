//! The element-wise ops: `bcast.add`, ..., `bcast.logical_xor` and `bcast.select`, under
//! OpenVINO's auto-broadcast rules (`none`, `numpy`, `pdpd`).
//!
//! Inputs are borrowed as views of numpy's own memory ([`convert::input`]) and handed to the
//! library as [`bcast::TensorView`]s, read in place whatever their strides (no copy; `<U`
//! strings, which only `select` takes, are decoded). The kernel runs with the GIL released;
//! the result moves to numpy without a copy, or is written into `out=`.

use bcast::{AutoBroadcast, BinaryOp, DType, Parallelism, TensorView, TensorViewMut};
use half::{bf16, f16};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::args::Axis;
use crate::convert::{self, InArray, NpElement};
use crate::errors::to_py_err;

/// The auto-broadcast rule named `name` (case-insensitive), with `axis` for pdpd.
fn spec(name: &str, axis: Axis) -> PyResult<AutoBroadcast> {
    match name.parse::<AutoBroadcast>() {
        Ok(AutoBroadcast::Pdpd { .. }) => Ok(AutoBroadcast::Pdpd { axis: axis.0 }),
        Ok(_) if axis.0 != -1 => Err(PyTypeError::new_err(format!(
            "axis is a pdpd argument; auto_broadcast {name:?} takes none"
        ))),
        Ok(other) => Ok(other),
        Err(e) => Err(PyValueError::new_err(e.to_string())),
    }
}

/// The input as a library view (every type but strings).
fn view<'a>(x: &'a InArray<'_>) -> Option<TensorView<'a>> {
    Some(match x {
        InArray::Bool(a) => a.as_array().into(),
        InArray::I8(a) => a.as_array().into(),
        InArray::I16(a) => a.as_array().into(),
        InArray::I32(a) => a.as_array().into(),
        InArray::I64(a) => a.as_array().into(),
        InArray::U8(a) => a.as_array().into(),
        InArray::U16(a) => a.as_array().into(),
        InArray::U32(a) => a.as_array().into(),
        InArray::U64(a) => a.as_array().into(),
        InArray::F16(a) => a.as_array().into(),
        InArray::BF16(a) => a.as_array().into(),
        InArray::F32(a) => a.as_array().into(),
        InArray::F64(a) => a.as_array().into(),
        InArray::String(_) => return None,
    })
}

/// Runs `f` on the caller's `out` as a view of element type `dtype` (GIL released), after
/// `NpElement::with_out`'s checks (an ndarray of that dtype, writeable, not overlapping an
/// input).
fn with_out<'py, F>(py: Python<'py>, dtype: DType, out: &Bound<'py, PyAny>, f: F) -> PyResult<()>
where
    F: for<'a> FnOnce(TensorViewMut<'a>) -> Result<(), bcast::BroadcastError> + Send,
{
    macro_rules! typed {
        ($t:ty) => {
            <$t as NpElement>::with_out(py, out, move |o| f(TensorViewMut::from(o)))
        };
    }
    match dtype {
        DType::Bool => typed!(bool),
        DType::I8 => typed!(i8),
        DType::I16 => typed!(i16),
        DType::I32 => typed!(i32),
        DType::I64 => typed!(i64),
        DType::U8 => typed!(u8),
        DType::U16 => typed!(u16),
        DType::U32 => typed!(u32),
        DType::U64 => typed!(u64),
        DType::F16 => typed!(f16),
        DType::BF16 => typed!(bf16),
        DType::F32 => typed!(f32),
        DType::F64 => typed!(f64),
        DType::String => unreachable!("string results are not written through views"),
    }
}

fn mismatch(op: &'static str, a: &InArray<'_>, b: &InArray<'_>) -> PyErr {
    to_py_err(bcast::BroadcastError::DTypeMismatch {
        op,
        left: a.dtype_name(),
        right: b.dtype_name(),
    })
}

/// One binary op, from Python's arguments.
fn binary<'py>(
    py: Python<'py>,
    op: BinaryOp,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    auto_broadcast: &str,
    axis: Axis,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let spec = spec(auto_broadcast, axis)?;
    let (a, b) = (convert::input(a)?, convert::input(b)?);
    let (x, y) = match (view(&a), view(&b)) {
        (Some(x), Some(y)) => (x, y),
        // Strings: no op takes them; the library's own refusal.
        _ => {
            return bcast::binary(op, &a.to_tensor(), &b.to_tensor(), &spec)
                .map_err(to_py_err)
                .and_then(|t| convert::tensor_to_numpy(py, t))
        }
    };
    if x.dtype() != y.dtype() {
        return Err(mismatch(op.name(), &a, &b));
    }
    match out {
        None => {
            let t = py
                .detach(|| bcast::binary_view(op, x, y, &spec, Parallelism::Auto))
                .map_err(to_py_err)?;
            convert::tensor_to_numpy(py, t)
        }
        Some(out) => {
            let dtype = op.output_dtype(x.dtype()).map_err(to_py_err)?;
            with_out(py, dtype, out, |o| {
                bcast::binary_view_into(op, x, y, &spec, o, Parallelism::Auto)
            })?;
            Ok(out.clone())
        }
    }
}

macro_rules! binary_fn {
    ($name:ident, $op:expr, $what:literal, $dtypes:literal, $example:literal) => {
        #[doc = concat!($what, ", element-wise, under OpenVINO's auto-broadcast rules.

Parameters
----------
a, b : array_like
    The operands, of one dtype: ", $dtypes, ". Read in place (any strides, no copy).
auto_broadcast : {\"numpy\", \"none\", \"pdpd\"}, optional
    The rule: ``\"numpy\"`` (default) right-aligns the shapes, and per axis the dims are
    equal or one is 1 (both operands stretch); ``\"none\"`` needs equal shapes; ``\"pdpd\"``
    lays `b` (trailing 1s dropped) on `a`'s axes from `axis`, and the output is `a`'s shape.
axis : int, optional
    ``\"pdpd\"`` only: the first axis of `a` that `b` lies on; -1 (default) right-aligns.
out : ndarray, optional
    Where to write the result: writeable, of the result's dtype and shape, not overlapping
    an input.

Returns
-------
ndarray
    The result (bool for comparisons and logical ops, else the operands' dtype); `out`
    itself when given.

Raises
------
BroadcastError
    The shapes break the rule, the dtypes of `a` and `b` differ, an integer division or
    modulo by zero, or `out` has the wrong shape. A subclass of ``ValueError``.
TypeError
    The op is not defined for the dtype, or `out` has another dtype.

Examples
--------
>>> import numpy as np, bcast
", $example)]
        #[pyfunction]
        #[pyo3(
                    signature = (a, b, auto_broadcast = "numpy", axis = Axis(-1), out = None),
                    text_signature = "(a, b, auto_broadcast='numpy', axis=-1, out=None)"
                )]
        fn $name<'py>(
            py: Python<'py>,
            a: &Bound<'py, PyAny>,
            b: &Bound<'py, PyAny>,
            auto_broadcast: &str,
            axis: Axis,
            out: Option<&Bound<'py, PyAny>>,
        ) -> PyResult<Bound<'py, PyAny>> {
            binary(py, $op, a, b, auto_broadcast, axis, out)
        }
    };
}

binary_fn!(add, BinaryOp::Add, "``a + b`` (integers wrap)", "any number type",
    ">>> bcast.add(np.array([[1], [2]], np.int32), np.array([10, 20, 30], np.int32))\narray([[11, 21, 31],\n       [12, 22, 32]], dtype=int32)");
binary_fn!(
    subtract,
    BinaryOp::Subtract,
    "``a - b`` (integers wrap)",
    "any number type",
    ">>> bcast.subtract(np.array([5, 6], np.int64), np.array(1))\narray([4, 5])"
);
binary_fn!(
    multiply,
    BinaryOp::Multiply,
    "``a * b`` (integers wrap)",
    "any number type",
    ">>> bcast.multiply(np.array([2.0, 3.0]), np.array([4.0]))\narray([ 8., 12.])"
);
binary_fn!(
    maximum,
    BinaryOp::Maximum,
    "``a < b ? b : a`` (std::max: with a NaN, `a` wins)",
    "any number type",
    ">>> bcast.maximum(np.array([1, 5]), np.array([3, 2]))\narray([3, 5])"
);
binary_fn!(
    minimum,
    BinaryOp::Minimum,
    "``b < a ? b : a`` (std::min: with a NaN, `a` wins)",
    "any number type",
    ">>> bcast.minimum(np.array([1, 5]), np.array([3, 2]))\narray([1, 2])"
);
binary_fn!(
    squared_difference,
    BinaryOp::SquaredDifference,
    "``(a - b) * (a - b)``",
    "any number type",
    ">>> bcast.squared_difference(np.array([1.0, 4.0]), np.array(2.0))\narray([1., 4.])"
);
binary_fn!(
    power,
    BinaryOp::Power,
    "``a ** b`` (integers: computed in double, truncated back)",
    "any number type",
    ">>> bcast.power(np.array([2, 3]), np.array([3, -1]))\narray([8, 0])"
);
binary_fn!(
    floor_mod,
    BinaryOp::FloorMod,
    "The remainder with the divisor's sign (Python's ``%``)",
    "any number type",
    ">>> bcast.floor_mod(np.array([-7, 7]), np.array(2))\narray([1, 1])"
);
binary_fn!(
    r#mod,
    BinaryOp::Mod,
    "The remainder with the dividend's sign (C's ``%``, ``fmod``)",
    "any number type",
    ">>> bcast.mod(np.array([-7, 7]), np.array(2))\narray([-1,  1])"
);
binary_fn!(
    equal,
    BinaryOp::Equal,
    "``a == b`` (bool out)",
    "any number type or bool",
    ">>> bcast.equal(np.array([1, 2]), np.array(2))\narray([False,  True])"
);
binary_fn!(
    not_equal,
    BinaryOp::NotEqual,
    "``a != b`` (bool out)",
    "any number type or bool",
    ">>> bcast.not_equal(np.array([1, 2]), np.array(2))\narray([ True, False])"
);
binary_fn!(
    less,
    BinaryOp::Less,
    "``a < b`` (bool out)",
    "any number type or bool",
    ">>> bcast.less(np.array([1, 2]), np.array(2))\narray([ True, False])"
);
binary_fn!(
    less_equal,
    BinaryOp::LessEqual,
    "``a <= b`` (bool out)",
    "any number type or bool",
    ">>> bcast.less_equal(np.array([1, 2]), np.array(2))\narray([ True,  True])"
);
binary_fn!(
    greater,
    BinaryOp::Greater,
    "``a > b`` (bool out)",
    "any number type or bool",
    ">>> bcast.greater(np.array([1, 2]), np.array(1))\narray([False,  True])"
);
binary_fn!(
    greater_equal,
    BinaryOp::GreaterEqual,
    "``a >= b`` (bool out)",
    "any number type or bool",
    ">>> bcast.greater_equal(np.array([1, 2]), np.array(2))\narray([False,  True])"
);
binary_fn!(
    logical_and,
    BinaryOp::LogicalAnd,
    "``a and b``",
    "bool only",
    ">>> bcast.logical_and(np.array([True, False]), np.array(True))\narray([ True, False])"
);
binary_fn!(
    logical_or,
    BinaryOp::LogicalOr,
    "``a or b``",
    "bool only",
    ">>> bcast.logical_or(np.array([True, False]), np.array(False))\narray([ True, False])"
);
binary_fn!(
    logical_xor,
    BinaryOp::LogicalXor,
    "``a != b`` on bools",
    "bool only",
    ">>> bcast.logical_xor(np.array([True, False]), np.array(True))\narray([False,  True])"
);

/// ``a / b``, element-wise, under OpenVINO's auto-broadcast rules.
///
/// Floats divide as IEEE (a zero divisor gives inf or nan); integers floor the quotient when
/// `pythondiv` (OpenVINO's default, Python's ``//``: -7 / 2 = -4), else truncate it toward
/// zero (C's ``/``: -3). ``MIN / -1`` wraps to ``MIN``.
///
/// Parameters
/// ----------
/// a, b : array_like
///     The operands, of one number dtype. Read in place (any strides, no copy).
/// pythondiv : bool, optional
///     Floor (True, default) or truncate (False) integer quotients.
/// auto_broadcast : {"numpy", "none", "pdpd"}, optional
///     The rule, as for ``add``.
/// axis : int, optional
///     ``"pdpd"`` only: the first axis of `a` that `b` lies on; -1 (default) right-aligns.
/// out : ndarray, optional
///     Where to write the result: writeable, of the operands' dtype and the output shape.
///
/// Returns
/// -------
/// ndarray
///     The quotients; `out` itself when given.
///
/// Raises
/// ------
/// BroadcastError
///     The shapes break the rule, the dtypes differ, an integer divisor is 0, or `out` has
///     the wrong shape.
/// TypeError
///     A bool operand, or `out` of another dtype.
///
/// Examples
/// --------
/// >>> import numpy as np, bcast
/// >>> bcast.divide(np.array([-7, 7]), np.array(2))
/// array([-4,  3])
/// >>> bcast.divide(np.array([-7, 7]), np.array(2), pythondiv=False)
/// array([-3,  3])
#[pyfunction]
#[pyo3(
    signature = (a, b, pythondiv = true, auto_broadcast = "numpy", axis = Axis(-1), out = None),
    text_signature = "(a, b, pythondiv=True, auto_broadcast='numpy', axis=-1, out=None)"
)]
fn divide<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    pythondiv: bool,
    auto_broadcast: &str,
    axis: Axis,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    binary(
        py,
        BinaryOp::Divide { pythondiv },
        a,
        b,
        auto_broadcast,
        axis,
        out,
    )
}

/// ``cond ? then : else_``, element-wise, under OpenVINO's auto-broadcast rules (Select-1).
///
/// Parameters
/// ----------
/// cond : array_like of bool
///     The condition.
/// then, else_ : array_like
///     The values, of one dtype (any bcast dtype, str included). Numbers and bools are read
///     in place (any strides, no copy).
/// auto_broadcast : {"numpy", "none", "pdpd"}, optional
///     ``"numpy"`` (default): the three shapes broadcast together; ``"none"``: all three
///     equal; ``"pdpd"``: the output is `then`'s shape, and `else_` and `cond` are each laid
///     on it from `axis`.
/// axis : int, optional
///     ``"pdpd"`` only; -1 (default) right-aligns.
/// out : ndarray, optional
///     Where to write the result: writeable, of `then`'s dtype and the output shape.
///
/// Returns
/// -------
/// ndarray
///     The picks, of `then`'s dtype; `out` itself when given.
///
/// Raises
/// ------
/// BroadcastError
///     The shapes break the rule, `then` and `else_` differ in dtype, or `out` has the
///     wrong shape.
/// TypeError
///     `cond` is not bool, or `out` has another dtype.
///
/// Examples
/// --------
/// >>> import numpy as np, bcast
/// >>> bcast.select(np.array([[True], [False]]), np.array([1.0, 2.0]), np.array(-1.0))
/// array([[ 1.,  2.],
///        [-1., -1.]])
#[pyfunction]
#[pyo3(
    signature = (cond, then, else_, auto_broadcast = "numpy", axis = Axis(-1), out = None),
    text_signature = "(cond, then, else_, auto_broadcast='numpy', axis=-1, out=None)"
)]
fn select<'py>(
    py: Python<'py>,
    cond: &Bound<'py, PyAny>,
    then: &Bound<'py, PyAny>,
    else_: &Bound<'py, PyAny>,
    auto_broadcast: &str,
    axis: Axis,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let spec = spec(auto_broadcast, axis)?;
    let cond_in = convert::input(cond)?;
    let (t_in, e_in) = (convert::input(then)?, convert::input(else_)?);
    let InArray::Bool(c) = &cond_in else {
        return Err(to_py_err(bcast::BroadcastError::UnsupportedType {
            op: "select condition",
            dtype: cond_in.dtype_name(),
        }));
    };
    let c = c.as_array();
    match (view(&t_in), view(&e_in)) {
        (Some(t), Some(e)) => {
            if t.dtype() != e.dtype() {
                return Err(mismatch("select", &t_in, &e_in));
            }
            match out {
                None => {
                    let r = py
                        .detach(|| bcast::select_view(c, t, e, &spec, Parallelism::Auto))
                        .map_err(to_py_err)?;
                    convert::tensor_to_numpy(py, r)
                }
                Some(out) => {
                    let dtype = t.dtype();
                    with_out(py, dtype, out, |o| {
                        bcast::select_view_into(c, t, e, &spec, o, Parallelism::Auto)
                    })?;
                    Ok(out.clone())
                }
            }
        }
        _ => match (&t_in, &e_in) {
            (InArray::String(t), InArray::String(e)) => match out {
                None => {
                    let r = py
                        .detach(|| bcast::select(c, t.view(), e.view(), &spec))
                        .map_err(to_py_err)?;
                    String::into_numpy(py, r)
                }
                Some(out) => {
                    String::with_out(py, out, |o| {
                        bcast::select_into(c, t.view(), e.view(), &spec, o)
                    })?;
                    Ok(out.clone())
                }
            },
            _ => Err(mismatch("select", &t_in, &e_in)),
        },
    }
}

/// Adds the element-wise functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(add, m)?)?;
    m.add_function(wrap_pyfunction!(subtract, m)?)?;
    m.add_function(wrap_pyfunction!(multiply, m)?)?;
    m.add_function(wrap_pyfunction!(divide, m)?)?;
    m.add_function(wrap_pyfunction!(maximum, m)?)?;
    m.add_function(wrap_pyfunction!(minimum, m)?)?;
    m.add_function(wrap_pyfunction!(squared_difference, m)?)?;
    m.add_function(wrap_pyfunction!(power, m)?)?;
    m.add_function(wrap_pyfunction!(floor_mod, m)?)?;
    m.add_function(wrap_pyfunction!(r#mod, m)?)?;
    m.add_function(wrap_pyfunction!(equal, m)?)?;
    m.add_function(wrap_pyfunction!(not_equal, m)?)?;
    m.add_function(wrap_pyfunction!(less, m)?)?;
    m.add_function(wrap_pyfunction!(less_equal, m)?)?;
    m.add_function(wrap_pyfunction!(greater, m)?)?;
    m.add_function(wrap_pyfunction!(greater_equal, m)?)?;
    m.add_function(wrap_pyfunction!(logical_and, m)?)?;
    m.add_function(wrap_pyfunction!(logical_or, m)?)?;
    m.add_function(wrap_pyfunction!(logical_xor, m)?)?;
    m.add_function(wrap_pyfunction!(select, m)?)?;
    Ok(())
}
