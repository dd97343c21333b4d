//! The element-wise ops: `bcast.add`, ..., `bcast.logical_xor` and `bcast.select`, under
//! OpenVINO's auto-broadcast rules (`none`, `numpy`, `pdpd`).
//!
//! Inputs are borrowed as views of numpy's own memory ([`convert::input`]) and handed to the
//! library as [`bcast::TensorView`]s, read in place whatever their strides (no copy; `<U`
//! strings, which only `select` takes, are decoded). The kernel runs with the GIL released;
//! the result moves to numpy without a copy, or is written into `out=`.

use bcast::{AutoBroadcast, BinaryOp, DType, Parallelism, TensorView, TensorViewMut};
use half::{bf16, f16};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use crate::args::Axis;
use crate::convert::{self, InArray, NpElement};
use crate::errors::to_py_err;
use crate::promote;

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
        InArray::String { .. } => return None,
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

/// `out` as the caller gave it: `None`, or an array checked later by `with_out`. A string
/// is the old third positional argument, `auto_broadcast`, which is now keyword-only.
fn out_arg<'a, 'py>(out: Option<&'a Bound<'py, PyAny>>) -> PyResult<Option<&'a Bound<'py, PyAny>>> {
    match out {
        Some(o) if o.is_instance_of::<PyString>() => Err(PyTypeError::new_err(format!(
            "out must be a numpy.ndarray, not str; the rule is keyword-only: \
             auto_broadcast={}",
            o.repr()?
        ))),
        _ => Ok(out),
    }
}

/// A 0-d result as numpy's scalar of its type, as numpy's ufuncs return one.
fn scalar_if_0d(r: Bound<'_, PyAny>) -> PyResult<Bound<'_, PyAny>> {
    if r.cast::<PyUntypedArray>()?.ndim() == 0 {
        r.get_item(PyTuple::empty(r.py()))
    } else {
        Ok(r)
    }
}

/// One binary op, from Python's arguments.
fn binary<'py>(
    py: Python<'py>,
    op: BinaryOp,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    auto_broadcast: &str,
    axis: Axis,
) -> PyResult<Bound<'py, PyAny>> {
    let spec = spec(auto_broadcast, axis)?;
    let out = out_arg(out)?;
    let promoted = promote::promote(Some(op), a, b)?;
    let op = promoted.op.unwrap_or(op);
    let (a, b) = (convert::input(&promoted.a)?, convert::input(&promoted.b)?);
    let (x, y) = match (view(&a), view(&b)) {
        (Some(x), Some(y)) => (x, y),
        // Strings: no op takes them; the library's own refusal.
        _ => {
            return bcast::binary(op, &a.to_tensor(), &b.to_tensor(), &spec)
                .map_err(to_py_err)
                .and_then(|t| convert::tensor_to_numpy(py, t, 0))
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
            scalar_if_0d(convert::tensor_to_numpy(py, t, 0)?)
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

/// The Notes of the comparisons' docstrings.
macro_rules! compare_notes {
    () => {
        "As numpy's comparison ufuncs, bit for bit (NaN compares unequal; bools compare as
0 < 1). A Python int beyond the other operand's integer dtype compares exactly, as in
numpy 2 (``bcast.less(np.uint8(1), 300)`` is True)."
    };
}

/// The Notes of the logical ops' docstrings.
macro_rules! logical_notes {
    () => {
        "Bool operands only (OpenVINO's rule): numpy's logical ufuncs take any dtype by
truthiness; bcast's spelling of that is ``bcast.not_equal(a, 0)`` first. On bools, equal to
numpy's bit for bit."
    };
}

macro_rules! binary_fn {
    ($name:ident, $op:expr, $what:literal, $dtypes:literal, $notes:expr, $example:literal) => {
        #[doc = concat!($what, ", element-wise, under OpenVINO's auto-broadcast rules.

Parameters
----------
a, b : array_like or Python scalar
    The operands, of one dtype: ", $dtypes, ". Read in place (any strides, no copy).
    A Python int or float takes the other operand's dtype as in numpy 2 (NEP 50): see
    Notes.
out : ndarray, optional
    Where to write the result: writeable, of the result's dtype and shape, not overlapping
    an input. Positional (third) or keyword, as in numpy.
auto_broadcast : {\"numpy\", \"none\", \"pdpd\"}, optional, keyword-only
    The rule: ``\"numpy\"`` (default) right-aligns the shapes, and per axis the dims are
    equal or one is 1 (both operands stretch); ``\"none\"`` needs equal shapes; ``\"pdpd\"``
    lays `b` (trailing 1s dropped) on `a`'s axes from `axis`, and the output is `a`'s shape.
axis : int, optional, keyword-only
    ``\"pdpd\"`` only: the first axis of `a` that `b` lies on; -1 (default) right-aligns.

Returns
-------
ndarray or numpy scalar
    The result (bool for comparisons and logical ops, else the operands' dtype); `out`
    itself when given; a numpy scalar when both operands are scalars or 0-d, as numpy's
    ufuncs return.

Raises
------
BroadcastError
    The shapes break the rule, the dtypes of `a` and `b` differ, an integer division or
    modulo by zero, or `out` has the wrong shape. A subclass of ``ValueError``.
TypeError
    The op is not defined for the dtype, or `out` has another dtype.
OverflowError
    A Python int that the integer dtype of the other operand cannot hold (as numpy 2).

Notes
-----
", $notes, "

Python scalars, as numpy 2: with a float array a Python int or float takes the array's
dtype; with an integer array a Python int takes the array's dtype and a Python float makes
both float64; with a bool array a Python int makes both int64. Two Python scalars compute
in int64 or float64. Arrays (numpy scalars and 0-d arrays included) are not promoted:
operands of different dtypes raise ``BroadcastError`` where numpy would promote; cast
first (``a.astype(np.result_type(a, b))``). `out` must have the result's dtype exactly
(numpy casts into it).

Examples
--------
>>> import numpy as np, bcast
", $example)]
        #[pyfunction]
        #[pyo3(
                    signature = (a, b, out = None, *, auto_broadcast = "numpy", axis = Axis(-1)),
                    text_signature = "(a, b, out=None, *, auto_broadcast='numpy', axis=-1)"
                )]
        fn $name<'py>(
            py: Python<'py>,
            a: &Bound<'py, PyAny>,
            b: &Bound<'py, PyAny>,
            out: Option<&Bound<'py, PyAny>>,
            auto_broadcast: &str,
            axis: Axis,
        ) -> PyResult<Bound<'py, PyAny>> {
            binary(py, $op, a, b, out, auto_broadcast, axis)
        }
    };
}

binary_fn!(
    add,
    BinaryOp::Add,
    "``a + b`` (integers wrap)",
    "any number type",
    "``numpy.add``, bit for bit (integers wrap as numpy's do), except: bool operands are
refused (numpy computes logical or; bcast's spelling is ``logical_or``).",
    ">>> bcast.add(np.array([[1], [2]], np.int32), np.array([10, 20, 30], np.int32))
array([[11, 21, 31],
       [12, 22, 32]], dtype=int32)
>>> bcast.add(np.ones(3, np.float32), 1.0)
array([2., 2., 2.], dtype=float32)"
);
binary_fn!(
    subtract,
    BinaryOp::Subtract,
    "``a - b`` (integers wrap)",
    "any number type",
    "``numpy.subtract``, bit for bit (integers wrap as numpy's do).",
    ">>> bcast.subtract(np.array([5, 6], np.int64), 1)\narray([4, 5])"
);
binary_fn!(
    multiply,
    BinaryOp::Multiply,
    "``a * b`` (integers wrap)",
    "any number type",
    "``numpy.multiply``, bit for bit (integers wrap as numpy's do), except: bool operands
are refused (numpy computes logical and; bcast's spelling is ``logical_and``).",
    ">>> bcast.multiply(np.array([2.0, 3.0]), np.array([4.0]))\narray([ 8., 12.])"
);
binary_fn!(
    maximum,
    BinaryOp::Maximum,
    "``a < b ? b : a`` (std::max, OpenVINO's Maximum)",
    "any number type",
    "Differs from ``numpy.maximum`` on purpose (OpenVINO's rule, ``a < b ? b : a``):

- NaN: where `b` is NaN and `a` is not, the result is `a` (numpy: NaN);
- signed zeros: max(-0.0, 0.0) is `a`, -0.0 (numpy's float32/float64: `b`);
- bool operands are refused (numpy computes logical or; use ``logical_or``).

numpy's spelling of bcast's result: ``np.where(a < b, b, a)``. Everywhere else it equals
``numpy.maximum`` bit for bit.",
    ">>> bcast.maximum(np.array([1, 5]), np.array([3, 2]))\narray([3, 5])
>>> bcast.maximum(np.array([1.0, np.nan]), np.array([np.nan, 1.0]))
array([ 1., nan])"
);
binary_fn!(
    minimum,
    BinaryOp::Minimum,
    "``b < a ? b : a`` (std::min, OpenVINO's Minimum)",
    "any number type",
    "Differs from ``numpy.minimum`` on purpose (OpenVINO's rule, ``b < a ? b : a``):

- NaN: where `b` is NaN and `a` is not, the result is `a` (numpy: NaN);
- signed zeros: min(0.0, -0.0) is `a`, 0.0 (numpy's float32/float64: `b`);
- bool operands are refused (numpy computes logical and; use ``logical_and``).

numpy's spelling of bcast's result: ``np.where(b < a, b, a)``. Everywhere else it equals
``numpy.minimum`` bit for bit.",
    ">>> bcast.minimum(np.array([1, 5]), np.array([3, 2]))\narray([1, 2])"
);
binary_fn!(
    squared_difference,
    BinaryOp::SquaredDifference,
    "``(a - b) * (a - b)``",
    "any number type",
    "numpy has no such ufunc; its spelling is ``np.square(np.subtract(a, b))``, equal bit for
bit except in float16 and bfloat16, which bcast computes in float32 and rounds once (numpy
rounds the difference first).",
    ">>> bcast.squared_difference(np.array([1.0, 4.0]), 2.0)\narray([1., 4.])"
);
binary_fn!(
    power,
    BinaryOp::Power,
    "``a ** b`` (integers: computed in float64, truncated back)",
    "any number type",
    "Differs from ``numpy.power`` on purpose (OpenVINO's reference):

- integers are computed in float64 and truncated: a negative exponent gives
  ``trunc(a ** b)`` (2 ** -1 is 0; numpy raises ``ValueError``), results beyond 2**53 are
  rounded, and results beyond the type saturate at its bounds (numpy is exact and wraps);
- floats use the C library's ``pow`` in their type (float16/bfloat16 in float32): within
  1 ulp of numpy's, which is vectorised on some CPUs;
- bool operands are refused.",
    ">>> bcast.power(np.array([2, 3]), np.array([3, -1]))\narray([8, 0])"
);
binary_fn!(
    floor_mod,
    BinaryOp::FloorMod,
    "The remainder with the divisor's sign (Python's ``%``, OpenVINO's FloorMod)",
    "any number type",
    "numpy's name is ``numpy.remainder`` (also ``numpy.mod``). Integers: equal bit for bit,
except that a zero divisor raises ``BroadcastError`` (numpy: 0 and a warning). Floats:
OpenVINO's ``a - b * floor(a / b)``, computed in float64, differs from numpy's exact
remainder where that formula rounds: a zero result is +0.0 (numpy: the divisor's sign),
an infinite divisor gives NaN (numpy: `a` or ±inf, as Python), and a large ``|a / b|``
loses the remainder (``1e30 % 7`` is 0; numpy: 1). Bool operands are refused.",
    ">>> bcast.floor_mod(np.array([-7, 7]), 2)\narray([1, 1])"
);
binary_fn!(
    r#mod,
    BinaryOp::Mod,
    "The remainder with the dividend's sign (C's ``%``, ``fmod``; OpenVINO's Mod)",
    "any number type",
    "This is ``numpy.fmod``, bit for bit, not ``numpy.mod`` (which is ``floor_mod``), except
that an integer zero divisor raises ``BroadcastError`` (numpy: 0 and a warning) and bool
operands are refused.",
    ">>> bcast.mod(np.array([-7, 7]), 2)\narray([-1,  1])"
);
binary_fn!(
    equal,
    BinaryOp::Equal,
    "``a == b`` (bool out)",
    "any number type or bool",
    compare_notes!(),
    ">>> bcast.equal(np.array([1, 2]), 2)\narray([False,  True])"
);
binary_fn!(
    not_equal,
    BinaryOp::NotEqual,
    "``a != b`` (bool out)",
    "any number type or bool",
    compare_notes!(),
    ">>> bcast.not_equal(np.array([1, 2]), 2)\narray([ True, False])"
);
binary_fn!(
    less,
    BinaryOp::Less,
    "``a < b`` (bool out)",
    "any number type or bool",
    compare_notes!(),
    ">>> bcast.less(np.array([1, 2], np.uint8), 300)\narray([ True,  True])"
);
binary_fn!(
    less_equal,
    BinaryOp::LessEqual,
    "``a <= b`` (bool out)",
    "any number type or bool",
    compare_notes!(),
    ">>> bcast.less_equal(np.array([1, 2]), 2)\narray([ True,  True])"
);
binary_fn!(
    greater,
    BinaryOp::Greater,
    "``a > b`` (bool out)",
    "any number type or bool",
    compare_notes!(),
    ">>> bcast.greater(np.array([1, 2]), 1)\narray([False,  True])"
);
binary_fn!(
    greater_equal,
    BinaryOp::GreaterEqual,
    "``a >= b`` (bool out)",
    "any number type or bool",
    compare_notes!(),
    ">>> bcast.greater_equal(np.array([1, 2]), 2)\narray([False,  True])"
);
binary_fn!(
    logical_and,
    BinaryOp::LogicalAnd,
    "``a and b``",
    "bool only",
    logical_notes!(),
    ">>> bcast.logical_and(np.array([True, False]), True)\narray([ True, False])"
);
binary_fn!(
    logical_or,
    BinaryOp::LogicalOr,
    "``a or b``",
    "bool only",
    logical_notes!(),
    ">>> bcast.logical_or(np.array([True, False]), False)\narray([ True, False])"
);
binary_fn!(
    logical_xor,
    BinaryOp::LogicalXor,
    "``a != b`` on bools",
    "bool only",
    logical_notes!(),
    ">>> bcast.logical_xor(np.array([True, False]), True)\narray([False,  True])"
);

/// ``a / b``, element-wise, under OpenVINO's auto-broadcast rules.
///
/// Floats divide as IEEE (a zero divisor gives inf or nan); integers floor the quotient when
/// `pythondiv` (OpenVINO's default, Python's ``//``: -7 / 2 = -4), else truncate it toward
/// zero (C's ``/``: -3). ``MIN / -1`` wraps to ``MIN``.
///
/// Parameters
/// ----------
/// a, b : array_like or Python scalar
///     The operands, of one number dtype. Read in place (any strides, no copy). A Python
///     int or float takes the other operand's dtype as in numpy 2, as for ``add``.
/// out : ndarray, optional
///     Where to write the result: writeable, of the operands' dtype and the output shape.
///     Positional (third) or keyword, as in numpy.
/// pythondiv : bool, optional, keyword-only
///     Floor (True, default) or truncate (False) integer quotients.
/// auto_broadcast : {"numpy", "none", "pdpd"}, optional, keyword-only
///     The rule, as for ``add``.
/// axis : int, optional, keyword-only
///     ``"pdpd"`` only: the first axis of `a` that `b` lies on; -1 (default) right-aligns.
///
/// Returns
/// -------
/// ndarray or numpy scalar
///     The quotients; `out` itself when given; a numpy scalar when both operands are
///     scalars or 0-d.
///
/// Raises
/// ------
/// BroadcastError
///     The shapes break the rule, the dtypes differ, an integer divisor is 0, or `out` has
///     the wrong shape.
/// TypeError
///     A bool operand, or `out` of another dtype.
/// OverflowError
///     A Python int that the integer dtype of the other operand cannot hold.
///
/// Notes
/// -----
/// Floats: ``numpy.divide``, bit for bit. Integers: not ``numpy.divide`` (which returns
/// float64 quotients) but ``numpy.floor_divide`` (``//``) with `pythondiv` (bit for bit,
/// ``MIN // -1`` included), except that a zero divisor raises ``BroadcastError`` (numpy: 0
/// and a warning). numpy's true quotient of integers:
/// ``bcast.divide(a.astype(np.float64), b.astype(np.float64))``. Bool operands are refused
/// (numpy's ``floor_divide`` takes them). Python scalars, dtypes and `out`: as for ``add``.
///
/// Examples
/// --------
/// >>> import numpy as np, bcast
/// >>> bcast.divide(np.array([-7, 7]), 2)
/// array([-4,  3])
/// >>> bcast.divide(np.array([-7, 7]), 2, pythondiv=False)
/// array([-3,  3])
#[pyfunction]
#[pyo3(
    signature = (a, b, out = None, *, pythondiv = true, auto_broadcast = "numpy", axis = Axis(-1)),
    text_signature = "(a, b, out=None, *, pythondiv=True, auto_broadcast='numpy', axis=-1)"
)]
fn divide<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    pythondiv: bool,
    auto_broadcast: &str,
    axis: Axis,
) -> PyResult<Bound<'py, PyAny>> {
    binary(
        py,
        BinaryOp::Divide { pythondiv },
        a,
        b,
        out,
        auto_broadcast,
        axis,
    )
}

/// ``cond ? then : else_``, element-wise, under OpenVINO's auto-broadcast rules (Select-1).
///
/// Parameters
/// ----------
/// cond : array_like of bool
///     The condition (a Python bool is a 0-d one).
/// then, else_ : array_like or Python scalar
///     The values, of one dtype (any bcast dtype, str included). Numbers and bools are read
///     in place (any strides, no copy). A Python int or float takes the other's dtype as
///     in numpy 2, as for ``add``.
/// out : ndarray, optional
///     Where to write the result: writeable, of the values' dtype and the output shape.
///     Positional (fourth) or keyword.
/// auto_broadcast : {"numpy", "none", "pdpd"}, optional, keyword-only
///     ``"numpy"`` (default): the three shapes broadcast together; ``"none"``: all three
///     equal; ``"pdpd"``: the output is `then`'s shape, and `else_` and `cond` are each laid
///     on it from `axis`.
/// axis : int, optional, keyword-only
///     ``"pdpd"`` only; -1 (default) right-aligns.
///
/// Returns
/// -------
/// ndarray
///     The picks, of the values' dtype (strings: the wider of the two ``<U`` widths, as
///     numpy); `out` itself when given; 0-d for 0-d inputs, as ``numpy.where``.
///
/// Raises
/// ------
/// BroadcastError
///     The shapes break the rule, `then` and `else_` differ in dtype, or `out` has the
///     wrong shape.
/// TypeError
///     `cond` is not bool, or `out` has another dtype.
/// OverflowError
///     A Python int that the integer dtype of the other value cannot hold.
///
/// Notes
/// -----
/// ``numpy.where(cond, then, else_)``, except: `cond` must be bool (numpy takes any dtype
/// by truthiness: write ``bcast.not_equal(cond, 0)``); `then` and `else_` arrays of
/// different dtypes raise ``BroadcastError`` (numpy promotes); a Python int that the other
/// value's integer dtype cannot hold raises ``OverflowError`` as numpy's ufuncs do, where
/// ``numpy.where`` wraps it silently (300 in uint8 becomes 44).
///
/// Examples
/// --------
/// >>> import numpy as np, bcast
/// >>> bcast.select(np.array([[True], [False]]), np.array([1.0, 2.0]), -1.0)
/// array([[ 1.,  2.],
///        [-1., -1.]])
#[pyfunction]
#[pyo3(
    signature = (cond, then, else_, out = None, *, auto_broadcast = "numpy", axis = Axis(-1)),
    text_signature = "(cond, then, else_, out=None, *, auto_broadcast='numpy', axis=-1)"
)]
fn select<'py>(
    py: Python<'py>,
    cond: &Bound<'py, PyAny>,
    then: &Bound<'py, PyAny>,
    else_: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    auto_broadcast: &str,
    axis: Axis,
) -> PyResult<Bound<'py, PyAny>> {
    let spec = spec(auto_broadcast, axis)?;
    let out = out_arg(out)?;
    let cond_in = convert::input(cond)?;
    let values = promote::promote(None, then, else_)?;
    let (t_in, e_in) = (convert::input(&values.a)?, convert::input(&values.b)?);
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
                    convert::tensor_to_numpy(py, r, 0)
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
            (InArray::String { values: t, .. }, InArray::String { values: e, .. }) => match out {
                None => {
                    let r = py
                        .detach(|| bcast::select(c, t.view(), e.view(), &spec))
                        .map_err(to_py_err)?;
                    // numpy's result type of two `<U` arrays: the wider.
                    let width = t_in.str_width().max(e_in.str_width());
                    String::into_numpy(py, r, width)
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
