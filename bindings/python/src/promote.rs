//! Python scalars in the element-wise ops, typed as numpy 2 types them (NEP 50).
//!
//! A Python `int` or `float` (exactly those types: numpy scalars and subclasses of
//! `int`/`float` are numpy's strong types, as are 0-d arrays) is *weak*: it takes the type of
//! the array it meets instead of promoting it. The rules, numpy 2's:
//!
//! - a Python `bool` is numpy's bool, the lowest type: any array's type takes it (1 or 0);
//! - a float array: the scalar becomes the array's type (overflowing to inf, as numpy casts;
//!   an int through a Python float as the ufuncs convert it, or, in Select, through int64 or
//!   uint64 as `np.where` does);
//! - an integer array and a Python int: the array's type; an int the type cannot hold is an
//!   `OverflowError` (numpy's message), except in a comparison, whose answer is then the same
//!   for every element and is given (numpy 2 does the same);
//! - an integer array and a Python float: both float64 (the array is cast, as numpy does);
//! - a bool array: a Python int makes both int64 (an int beyond int64 is an `OverflowError`,
//!   comparisons included), a Python float both float64;
//! - two Python scalars: int64 (with the same `OverflowError`) or, if one is a float,
//!   float64; two bools stay bool; two Python ints compare exactly, whatever their size.
//!
//! Everything else is an array operand (`np.asarray`) and keeps its dtype: bcast, as
//! OpenVINO, computes in one element type and does not promote between arrays.

use bcast::{BinaryOp, EltwiseOp};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt};

/// An operand as numpy 2's promotion sees it.
enum Operand<'py> {
    /// A Python `int`: weak.
    Int(Bound<'py, PyAny>),
    /// A Python `float`: weak.
    Float(Bound<'py, PyAny>),
    /// A Python `bool`: numpy's bool, which every other type holds.
    Bool(Bound<'py, PyAny>),
    /// Anything else, as a numpy array: strong (its dtype is kept).
    Array(Bound<'py, PyUntypedArray>),
}

impl<'py> Operand<'py> {
    fn of(x: &Bound<'py, PyAny>) -> PyResult<Self> {
        Ok(if x.is_exact_instance_of::<PyInt>() {
            Operand::Int(x.clone())
        } else if x.is_exact_instance_of::<PyFloat>() {
            Operand::Float(x.clone())
        } else if x.is_exact_instance_of::<PyBool>() {
            Operand::Bool(x.clone())
        } else {
            Operand::Array(as_array(x)?)
        })
    }
}

/// What promotion needs to know of an array's element type.
enum Category {
    Bool,
    /// An integer type holding `min..=max`.
    Int {
        min: i128,
        max: i128,
    },
    /// float16, float32, float64 and ml_dtypes' bfloat16.
    Float,
    /// Strings and the rest: no op computes on them; the library refuses with its message.
    Other,
}

fn category(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Category> {
    let dtype = arr.dtype();
    let bits = 8 * dtype.itemsize() as u32;
    Ok(match dtype.kind() {
        b'b' => Category::Bool,
        b'i' if bits <= 64 => Category::Int {
            min: -(1i128 << (bits - 1)),
            max: (1i128 << (bits - 1)) - 1,
        },
        b'u' if bits <= 64 => Category::Int {
            min: 0,
            max: (1i128 << bits) - 1,
        },
        b'f' => Category::Float,
        b'V' if dtype.getattr("name")?.extract::<String>()? == "bfloat16" => Category::Float,
        _ => Category::Other,
    })
}

/// A Python int's value where it fits `i128`, else which way it lies beyond.
enum IntValue {
    Fits(i128),
    Above,
    Below,
}

fn int_value(v: &Bound<'_, PyAny>) -> PyResult<IntValue> {
    Ok(match v.extract::<i128>() {
        Ok(n) => IntValue::Fits(n),
        Err(_) if v.lt(0)? => IntValue::Below,
        Err(_) => IntValue::Above,
    })
}

/// The operands of a binary op, or Select's two values (`op` is `None`), after promotion.
pub struct Promoted<'py> {
    pub a: Bound<'py, PyAny>,
    pub b: Bound<'py, PyAny>,
    /// The op to run: `op` itself, or, for a comparison whose answer numpy 2 gives exactly
    /// where the operands cannot be typed (a Python int beyond the array's integer type, see
    /// [`constant_comparison`]; two Python ints beyond int64), one that gives that answer.
    pub op: Option<BinaryOp>,
}

/// `a` and `b` typed as numpy 2 types them for `op` (`None`: Select's values).
pub fn promote<'py>(
    op: Option<BinaryOp>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
) -> PyResult<Promoted<'py>> {
    let py = a.py();
    match (Operand::of(a)?, Operand::of(b)?) {
        (Operand::Array(x), Operand::Array(y)) => Ok(Promoted {
            a: x.into_any(),
            b: y.into_any(),
            op,
        }),
        (Operand::Array(x), weak) => {
            let (x, w, op) = with_array(op, x, weak, true)?;
            Ok(Promoted { a: x, b: w, op })
        }
        (weak, Operand::Array(y)) => {
            let (y, w, op) = with_array(op, y, weak, false)?;
            Ok(Promoted { a: w, b: y, op })
        }
        (Operand::Int(x), Operand::Int(y)) if op.as_ref().is_some_and(is_comparison) => {
            // numpy 2 compares two Python ints exactly, beyond int64 too: Python's answer,
            // computed by the kernel on 0-d operands so that `out` and the rule are checked.
            let op = op.expect("a comparison");
            let answer = x.rich_compare(&y, compare_op(op))?.is_truthy()?;
            let zero = int64(py, &0i64.into_pyobject(py)?.into_any())?;
            Ok(Promoted {
                a: zero.clone(),
                b: zero,
                op: Some(if answer {
                    BinaryOp::Equal
                } else {
                    BinaryOp::NotEqual
                }),
            })
        }
        (x @ (Operand::Int(_) | Operand::Bool(_)), y @ (Operand::Int(_) | Operand::Bool(_))) => {
            let both_bool = matches!((&x, &y), (Operand::Bool(_), Operand::Bool(_)));
            let (x, y) = (weak_value(x), weak_value(y));
            Ok(if both_bool {
                Promoted {
                    a: numpy(py)?.call_method1("asarray", (x,))?,
                    b: numpy(py)?.call_method1("asarray", (y,))?,
                    op,
                }
            } else {
                Promoted {
                    a: int64(py, &x)?,
                    b: int64(py, &y)?,
                    op,
                }
            })
        }
        (x, y) => Ok(Promoted {
            a: float64(py, &weak_value(x))?,
            b: float64(py, &weak_value(y))?,
            op,
        }),
    }
}

/// The operands of an op with any number of them (the variadic folds, FakeQuantize's five),
/// typed as numpy 2 types them together: the arrays keep their dtypes; each Python scalar
/// takes the type of the first array as it would in a binary op, floats first, so that an
/// integer array met by a Python float makes the arrays of its type and the scalars float64
/// (numpy's result type). Without an array, the scalars are typed together as for two.
pub fn promote_all<'py>(
    op: EltwiseOp,
    xs: &[Bound<'py, PyAny>],
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mut operands = xs
        .iter()
        .map(Operand::of)
        .collect::<PyResult<Vec<Operand<'py>>>>()?;
    // The first array, or the first scalar typed as a lone operand.
    let first = operands
        .iter()
        .position(|o| matches!(o, Operand::Array(_)))
        .unwrap_or(0);
    let Some(x) = xs.get(first) else {
        return Ok(Vec::new());
    };
    let mut reference = as_array(&promote(Some(op), x, x)?.a)?;
    operands[first] = Operand::Array(reference.clone());
    let mut typed: Vec<Option<Bound<'py, PyAny>>> = operands
        .iter()
        .map(|o| match o {
            Operand::Array(a) => Some(a.clone().into_any()),
            _ => None,
        })
        .collect();
    for pass in [Weak::Float, Weak::Int, Weak::Bool] {
        for (i, o) in operands.iter().enumerate() {
            let value = match (pass, o) {
                (Weak::Float, Operand::Float(v))
                | (Weak::Int, Operand::Int(v))
                | (Weak::Bool, Operand::Bool(v)) => v,
                _ => continue,
            };
            let p = promote(Some(op), reference.as_any(), value)?;
            let widened = as_array(&p.a)?;
            if !widened.dtype().is_equiv_to(&reference.dtype()) {
                // numpy casts every operand of the reference's type (arrays and the scalars
                // typed so far) to the wider type; arrays of other types keep theirs, and
                // the library refuses the mix.
                for t in typed.iter_mut() {
                    if let Some(arr) = t.as_ref() {
                        let arr = as_array(arr)?;
                        if arr.dtype().is_equiv_to(&reference.dtype()) {
                            *t = Some(arr.call_method1("astype", (widened.dtype(),))?);
                        }
                    }
                }
                reference = widened;
            }
            typed[i] = Some(p.b);
        }
    }
    // Every operand is typed: arrays from the start, each kind of scalar by its pass.
    Ok(typed.into_iter().flatten().collect())
}

/// The kinds of Python scalar, in the order [`promote_all`] types them.
#[derive(Clone, Copy)]
enum Weak {
    Float,
    Int,
    Bool,
}

fn weak_value(w: Operand<'_>) -> Bound<'_, PyAny> {
    match w {
        Operand::Int(v) | Operand::Float(v) | Operand::Bool(v) => v,
        Operand::Array(a) => a.into_any(),
    }
}

/// A weak scalar against an array: the array (cast where numpy casts it), the scalar as a
/// 0-d array, and the op to run. `scalar_right`: the scalar is the second operand.
fn with_array<'py>(
    op: Option<BinaryOp>,
    arr: Bound<'py, PyUntypedArray>,
    weak: Operand<'py>,
    scalar_right: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Option<BinaryOp>)> {
    let py = arr.py();
    let dtype = arr.dtype().into_any();
    match (category(&arr)?, weak) {
        (Category::Float, Operand::Float(v)) => {
            let w = typed(&v, &dtype)?;
            Ok((arr.into_any(), w, op))
        }
        (Category::Float, Operand::Int(v)) => {
            // numpy's ufuncs convert through a Python float (2**60 + 2**36 + 1 to float32
            // rounds twice), with Python's OverflowError past float64's range; np.where
            // (Select) casts from int64 or uint64 where the int fits one (rounds once).
            let exact = match (op, int_value(&v)?) {
                (None, IntValue::Fits(n)) if i64::try_from(n).is_ok() => Some("int64"),
                (None, IntValue::Fits(n)) if u64::try_from(n).is_ok() => Some("uint64"),
                _ => None,
            };
            let v = match exact {
                Some(int) => typed(&v, &numpy(py)?.call_method1("dtype", (int,))?)?,
                None => as_float(&v)?,
            };
            let w = typed(&v, &dtype)?;
            Ok((arr.into_any(), w, op))
        }
        (Category::Int { min, max }, Operand::Int(v)) => {
            let above = match int_value(&v)? {
                IntValue::Fits(n) if (min..=max).contains(&n) => {
                    let w = typed(&v, &dtype)?;
                    return Ok((arr.into_any(), w, op));
                }
                IntValue::Fits(n) => n > max,
                IntValue::Above => true,
                IntValue::Below => false,
            };
            match op.filter(is_comparison) {
                Some(op) => {
                    let op = constant_comparison(op, scalar_right, above);
                    let bound = if above { max } else { min };
                    let w = typed(&bound.into_pyobject(py)?.into_any(), &dtype)?;
                    Ok((arr.into_any(), w, Some(op)))
                }
                None => Err(out_of_bounds(&v, &dtype)),
            }
        }
        (Category::Bool, Operand::Bool(v)) => {
            let w = typed(&v, &dtype)?;
            Ok((arr.into_any(), w, op))
        }
        (Category::Int { .. } | Category::Float, Operand::Bool(v)) => {
            let one_or_zero = v.extract::<bool>()? as i64;
            let w = typed(&one_or_zero.into_pyobject(py)?.into_any(), &dtype)?;
            Ok((arr.into_any(), w, op))
        }
        (Category::Int { .. } | Category::Bool, Operand::Float(v)) => {
            Ok((astype(&arr, "float64")?, float64(py, &v)?, op))
        }
        (Category::Bool, Operand::Int(v)) => Ok((astype(&arr, "int64")?, int64(py, &v)?, op)),
        (Category::Other, w) => {
            let w = numpy(py)?.call_method1("asarray", (weak_value(w),))?;
            Ok((arr.into_any(), w, op))
        }
        (_, Operand::Array(_)) => unreachable!("a strong operand is not weak"),
    }
}

fn is_comparison(op: &BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Equal
            | BinaryOp::NotEqual
            | BinaryOp::Less
            | BinaryOp::LessEqual
            | BinaryOp::Greater
            | BinaryOp::GreaterEqual
    )
}

fn compare_op(op: BinaryOp) -> CompareOp {
    match op {
        BinaryOp::Equal => CompareOp::Eq,
        BinaryOp::NotEqual => CompareOp::Ne,
        BinaryOp::Less => CompareOp::Lt,
        BinaryOp::LessEqual => CompareOp::Le,
        BinaryOp::Greater => CompareOp::Gt,
        _ => CompareOp::Ge,
    }
}

/// A comparison of an integer array with a Python int `above` (or below) every value of its
/// type has one answer for every element. Returns the comparison that gives that answer
/// when the int is replaced by the type's bound (its max when above, min when below), the
/// operands in the same places, so that the shapes, `out` and the rule are checked as for
/// any other call.
fn constant_comparison(op: BinaryOp, scalar_right: bool, above: bool) -> BinaryOp {
    // Whether the first operand is below the second, for every element.
    let first_below = scalar_right == above;
    let answer = match op {
        BinaryOp::Less | BinaryOp::LessEqual => first_below,
        BinaryOp::Greater | BinaryOp::GreaterEqual => !first_below,
        BinaryOp::NotEqual => true,
        _ => false,
    };
    // Against the bound the order is the same but no longer strict.
    match (first_below, answer) {
        (true, true) => BinaryOp::LessEqual,
        (true, false) => BinaryOp::Greater,
        (false, true) => BinaryOp::GreaterEqual,
        (false, false) => BinaryOp::Less,
    }
}

/// numpy's message for a Python int its integer type cannot hold.
fn out_of_bounds(v: &Bound<'_, PyAny>, dtype: &Bound<'_, PyAny>) -> PyErr {
    let v = v.str().map_or_else(|_| "?".to_string(), |s| s.to_string());
    let t = dtype
        .str()
        .map_or_else(|_| "?".to_string(), |s| s.to_string());
    PyOverflowError::new_err(format!("Python integer {v} out of bounds for {t}"))
}

/// A Python int as an int64 0-d array (numpy's default integer), or an `OverflowError`.
fn int64<'py>(py: Python<'py>, v: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let dtype = numpy(py)?.call_method1("dtype", ("int64",))?;
    match int_value(v)? {
        IntValue::Fits(n) if i64::try_from(n).is_ok() => typed(v, &dtype),
        _ => Err(out_of_bounds(v, &dtype)),
    }
}

/// A Python int or float as a float64 0-d array (numpy's default float).
fn float64<'py>(py: Python<'py>, v: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let dtype = numpy(py)?.call_method1("dtype", ("float64",))?;
    typed(&as_float(v)?, &dtype)
}

/// `float(v)`: Python's own conversion (`OverflowError` beyond float64).
fn as_float<'py>(v: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let f: f64 = v.extract()?;
    Ok(PyFloat::new(v.py(), f).into_any())
}

/// `np.asarray(v, dtype=dtype)`: numpy's conversion of a scalar (rounding to the nearest
/// float of the type, inf past its range, with numpy's warning).
fn typed<'py>(v: &Bound<'py, PyAny>, dtype: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = v.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", dtype)?;
    numpy(py)?.call_method("asarray", (v,), Some(&kwargs))
}

fn astype<'py>(arr: &Bound<'py, PyUntypedArray>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    arr.call_method1("astype", (dtype,))
}

fn as_array<'py>(x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    match x.cast::<PyUntypedArray>() {
        Ok(a) => Ok(a.clone()),
        Err(_) => Ok(numpy(x.py())?
            .call_method1("asarray", (x,))?
            .cast_into::<PyUntypedArray>()?),
    }
}

fn numpy(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("numpy")
}
