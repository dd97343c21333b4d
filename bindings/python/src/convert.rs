//! numpy <-> Rust for every bcast element type: the one place that knows dtypes.
//!
//! - In: [`input`] turns any array-like into an [`InArray`], a borrowed view of numpy's own
//!   memory with its real strides (transposed, reversed, sliced: no copy) for every number
//!   type and bool. Copies are made only where the memory cannot be viewed as Rust values:
//!   non-native byte order, unaligned data, non-array inputs (`np.asarray`), and `<U` strings,
//!   which become Rust `String`s.
//! - Out: [`NpElement::into_numpy`] hands a result's buffer to numpy without a copy (strings:
//!   encoded as `<U{width}`, the input's width, as `np.broadcast_to` keeps the dtype);
//!   [`NpElement::with_out`] writes into a caller's `out=` array.
//! - Tensors: [`InArray::to_tensor`] and [`tensor_to_numpy`] for functions of the library that
//!   take and return [`bcast::Tensor`] (the element-wise ops, `eltwise.rs`).
//!
//! Dispatch on the element type is [`with_view!`] (every type) or [`with_summable_view!`]
//! (the types a gradient can be summed in): the body is compiled once per type, with the
//! input bound to an `ArrayViewD<'_, T>`.

use bcast::{BroadcastError, Tensor};
use half::{bf16, f16};
use ndarray::{ArrayD, ArrayViewMutD, IxDyn};
use numpy::{
    PyArray, PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::errors::to_py_err;

/// The dtypes bcast takes, for error messages.
pub const SUPPORTED: &str = "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, \
                             float16, float32, float64, bfloat16 (ml_dtypes) and str (<U)";

/// An input array of any bcast element type. Numbers and bools borrow numpy's memory
/// (a read-only borrow, checked by rust-numpy against any `out=` that overlaps it);
/// strings are decoded into Rust `String`s (a copy).
pub enum InArray<'py> {
    Bool(PyReadonlyArrayDyn<'py, bool>),
    I8(PyReadonlyArrayDyn<'py, i8>),
    I16(PyReadonlyArrayDyn<'py, i16>),
    I32(PyReadonlyArrayDyn<'py, i32>),
    I64(PyReadonlyArrayDyn<'py, i64>),
    U8(PyReadonlyArrayDyn<'py, u8>),
    U16(PyReadonlyArrayDyn<'py, u16>),
    U32(PyReadonlyArrayDyn<'py, u32>),
    U64(PyReadonlyArrayDyn<'py, u64>),
    F16(PyReadonlyArrayDyn<'py, f16>),
    BF16(PyReadonlyArrayDyn<'py, bf16>),
    F32(PyReadonlyArrayDyn<'py, f32>),
    F64(PyReadonlyArrayDyn<'py, f64>),
    /// `width`: the input's `<U` width in characters, which string results keep.
    String {
        values: ArrayD<String>,
        width: usize,
    },
}

/// Runs `$body` with `$v` bound to the input's `ArrayViewD<'_, T>`, whatever `T` is.
macro_rules! with_view {
    ($arr:expr, $v:ident => $body:expr) => {
        $crate::convert::with_view!(@match $arr, $v => $body;
            [Bool I8 I16 I32 I64 U8 U16 U32 U64 F16 BF16 F32 F64];
            A::String { values: a, .. } => {
                let $v = a.view();
                $body
            }
        )
    };
    // One arm per numeric (or bool) variant named in the list, then the arms in `$extra`.
    (@match $arr:expr, $v:ident => $body:expr; [$($var:ident)*]; $($extra:tt)*) => {{
        use $crate::convert::InArray as A;
        match $arr {
            $(
                A::$var(a) => {
                    let $v = a.as_array();
                    $body
                }
            )*
            $($extra)*
        }
    }};
}
pub(crate) use with_view;

/// [`with_view!`] for the types a gradient can be summed in (`bcast::Summable`); bool and
/// string inputs raise `TypeError` with the library's message.
macro_rules! with_summable_view {
    ($arr:expr, $v:ident => $body:expr) => {
        $crate::convert::with_view!(@match $arr, $v => $body;
            [I8 I16 I32 I64 U8 U16 U32 U64 F16 BF16 F32 F64];
            A::Bool(_) | A::String { .. } => Err($crate::errors::to_py_err(
                bcast::BroadcastError::UnsupportedType {
                    op: "reduce",
                    dtype: $arr.dtype_name(),
                },
            )),
        )
    };
}
pub(crate) use with_summable_view;

impl InArray<'_> {
    /// The shape.
    pub fn shape(&self) -> &[usize] {
        use numpy::PyUntypedArrayMethods as _;
        match self {
            InArray::Bool(a) => a.shape(),
            InArray::I8(a) => a.shape(),
            InArray::I16(a) => a.shape(),
            InArray::I32(a) => a.shape(),
            InArray::I64(a) => a.shape(),
            InArray::U8(a) => a.shape(),
            InArray::U16(a) => a.shape(),
            InArray::U32(a) => a.shape(),
            InArray::U64(a) => a.shape(),
            InArray::F16(a) => a.shape(),
            InArray::BF16(a) => a.shape(),
            InArray::F32(a) => a.shape(),
            InArray::F64(a) => a.shape(),
            InArray::String { values, .. } => values.shape(),
        }
    }

    /// The `<U` width in characters a string result keeps (0 for other types).
    pub fn str_width(&self) -> usize {
        match self {
            InArray::String { width, .. } => *width,
            _ => 0,
        }
    }

    /// bcast's name of the element type (`f32`, `string`, ...), as its messages print it.
    pub fn dtype_name(&self) -> &'static str {
        let dtype = match self {
            InArray::Bool(_) => bcast::DType::Bool,
            InArray::I8(_) => bcast::DType::I8,
            InArray::I16(_) => bcast::DType::I16,
            InArray::I32(_) => bcast::DType::I32,
            InArray::I64(_) => bcast::DType::I64,
            InArray::U8(_) => bcast::DType::U8,
            InArray::U16(_) => bcast::DType::U16,
            InArray::U32(_) => bcast::DType::U32,
            InArray::U64(_) => bcast::DType::U64,
            InArray::F16(_) => bcast::DType::F16,
            InArray::BF16(_) => bcast::DType::BF16,
            InArray::F32(_) => bcast::DType::F32,
            InArray::F64(_) => bcast::DType::F64,
            InArray::String { .. } => bcast::DType::String,
        };
        dtype.name()
    }

    /// An owned [`Tensor`] of the same values (a copy), for the library's tensor functions.
    pub fn to_tensor(&self) -> Tensor {
        with_view!(self, v => Tensor::from(v.to_owned()))
    }
}

/// Converts any array-like into an [`InArray`].
///
/// # Errors
/// `TypeError` for a dtype bcast does not have (object, complex, bytes, datetime, ...);
/// `ValueError` for a string that is not valid Unicode or an array that cannot be borrowed.
pub fn input<'py>(x: &Bound<'py, PyAny>) -> PyResult<InArray<'py>> {
    let py = x.py();
    let mut arr: Bound<'py, PyUntypedArray> = match x.cast::<PyUntypedArray>() {
        Ok(a) => a.clone(),
        Err(_) => numpy_module(py)?
            .call_method1("asarray", (x,))?
            .cast_into::<PyUntypedArray>()
            .map_err(|e| PyTypeError::new_err(e.to_string()))?,
    };
    let descr = arr.dtype();
    if descr.is_native_byteorder() == Some(false) {
        // Big-endian on a little-endian machine (or the reverse): one copy, in native order.
        let native = descr.call_method1("newbyteorder", ("=",))?;
        arr = arr
            .call_method1("astype", (native,))?
            .cast_into::<PyUntypedArray>()?;
    } else if !arr.is_aligned() {
        // A view of packed memory: Rust references must be aligned.
        arr = arr.call_method0("copy")?.cast_into::<PyUntypedArray>()?;
    }
    let descr = arr.dtype();
    let (kind, size) = (descr.kind(), descr.itemsize());
    macro_rules! typed {
        ($variant:ident, $t:ty) => {
            InArray::$variant(
                arr.cast::<PyArrayDyn<$t>>()?
                    .try_readonly()
                    .map_err(|e| PyValueError::new_err(e.to_string()))?,
            )
        };
    }
    Ok(match (kind, size) {
        (b'b', 1) => typed!(Bool, bool),
        (b'i', 1) => typed!(I8, i8),
        (b'i', 2) => typed!(I16, i16),
        (b'i', 4) => typed!(I32, i32),
        (b'i', 8) => typed!(I64, i64),
        (b'u', 1) => typed!(U8, u8),
        (b'u', 2) => typed!(U16, u16),
        (b'u', 4) => typed!(U32, u32),
        (b'u', 8) => typed!(U64, u64),
        (b'f', 2) => typed!(F16, f16),
        (b'f', 4) => typed!(F32, f32),
        (b'f', 8) => typed!(F64, f64),
        (b'U', size) => InArray::String {
            values: decode_strings(&arr)?,
            width: size / 4,
        },
        // ml_dtypes' bfloat16: only looked at when the array has it, so that numpy need not
        // know the name otherwise (rust-numpy resolves `bfloat16` through numpy's registry).
        (b'V', 2) if is_bfloat16(&arr)? => typed!(BF16, bf16),
        _ => {
            return Err(PyTypeError::new_err(format!(
                "unsupported dtype {}: bcast takes {SUPPORTED}",
                descr.str()?
            )))
        }
    })
}

fn is_bfloat16(arr: &Bound<'_, PyUntypedArray>) -> PyResult<bool> {
    Ok(arr.dtype().getattr("name")?.extract::<String>()? == "bfloat16")
}

fn numpy_module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("numpy")
}

/// `<U{n}` array (native order) into Rust strings; numpy drops trailing NULs, so do we.
fn decode_strings(arr: &Bound<'_, PyUntypedArray>) -> PyResult<ArrayD<String>> {
    let shape = arr.shape().to_vec();
    let width = arr.dtype().itemsize() / 4;
    if width == 0 || arr.len() == 0 {
        return Ok(ArrayD::from_elem(IxDyn(&shape), String::new()));
    }
    // One row of `width` code points per element, in row-major order.
    let np = numpy_module(arr.py())?;
    let flat = np
        .call_method1("ascontiguousarray", (arr,))?
        .call_method1("reshape", (-1,))?
        .call_method1("view", (np.getattr("uint32")?,))?;
    let flat = flat
        .cast::<PyArray1<u32>>()?
        .try_readonly()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let codes = flat
        .as_slice()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let strings = codes
        .chunks_exact(width)
        .map(|row| {
            let end = row.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
            row[..end]
                .iter()
                .map(|&c| {
                    char::from_u32(c).ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "string element holds {c:#x}, which is not a Unicode scalar value"
                        ))
                    })
                })
                .collect::<PyResult<String>>()
        })
        .collect::<PyResult<Vec<String>>>()?;
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), strings).expect("one string per element"))
}

/// Strings into a new `<U{width}` array (a copy, as numpy stores UCS-4): `width` is the
/// input's, so that a broadcast keeps the dtype as numpy's does; widened to the longest value
/// if one is longer (not reached from inputs of that width), and at least 1 as numpy's.
fn encode_strings<'py>(
    py: Python<'py>,
    a: &ArrayD<String>,
    width: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let width = a
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(0)
        .max(width)
        .max(1);
    let mut codes = vec![0u32; a.len() * width];
    for (row, s) in codes.chunks_exact_mut(width).zip(a.iter()) {
        for (slot, c) in row.iter_mut().zip(s.chars()) {
            *slot = c as u32;
        }
    }
    let shape: Vec<usize> = a.shape().to_vec();
    PyArray1::from_vec(py, codes)
        .call_method1("view", (format!("U{width}"),))?
        .call_method1("reshape", (shape,))
}

/// What the binding needs of an element type beyond `bcast::Element`: getting a result to
/// numpy and writing into a caller's array.
pub trait NpElement: bcast::Element + Sized {
    /// A result as a numpy array, without copying its buffer. Strings are encoded as
    /// `<U{str_width}` ([`InArray::str_width`] of the input); other types ignore it.
    fn into_numpy<'py>(
        py: Python<'py>,
        a: ArrayD<Self>,
        str_width: usize,
    ) -> PyResult<Bound<'py, PyAny>>;

    /// Runs `f` on a mutable view of the caller's `out` (GIL released), after checking that
    /// `out` is a writeable numpy array of this element type.
    fn with_out<'py, F>(py: Python<'py>, out: &Bound<'py, PyAny>, f: F) -> PyResult<()>
    where
        F: for<'a> FnOnce(ArrayViewMutD<'a, Self>) -> Result<(), BroadcastError> + Send;
}

fn out_array<'a, 'py>(out: &'a Bound<'py, PyAny>) -> PyResult<&'a Bound<'py, PyUntypedArray>> {
    out.cast::<PyUntypedArray>().map_err(|_| {
        PyTypeError::new_err(format!(
            "out must be a numpy.ndarray, not {}",
            out.get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string())
        ))
    })
}

fn out_dtype_error(out: &Bound<'_, PyUntypedArray>, want: &str) -> PyErr {
    let got = out
        .dtype()
        .str()
        .map_or_else(|_| "?".to_string(), |s| s.to_string());
    PyTypeError::new_err(format!("out has dtype {got}, but the result is {want}"))
}

fn check_writeable(out: &Bound<'_, PyUntypedArray>) -> PyResult<()> {
    if !out
        .getattr("flags")?
        .getattr("writeable")?
        .extract::<bool>()?
    {
        return Err(PyValueError::new_err("out is read-only"));
    }
    if !out.is_aligned() {
        return Err(PyValueError::new_err("out is not aligned"));
    }
    Ok(())
}

macro_rules! np_element {
    ($($t:ty),*) => {$(
        impl NpElement for $t {
            fn into_numpy<'py>(
                py: Python<'py>,
                a: ArrayD<Self>,
                _str_width: usize,
            ) -> PyResult<Bound<'py, PyAny>> {
                Ok(PyArray::from_owned_array(py, a).into_any())
            }

            fn with_out<'py, F>(py: Python<'py>, out: &Bound<'py, PyAny>, f: F) -> PyResult<()>
            where
                F: for<'a> FnOnce(ArrayViewMutD<'a, Self>) -> Result<(), BroadcastError> + Send,
            {
                let untyped = out_array(out)?;
                let typed = untyped
                    .cast::<PyArrayDyn<$t>>()
                    .map_err(|_| out_dtype_error(untyped, <$t as bcast::Element>::DTYPE.name()))?;
                check_writeable(untyped)?;
                let mut rw = typed.try_readwrite().map_err(|e| match e {
                    numpy::BorrowError::AlreadyBorrowed => {
                        PyValueError::new_err("out overlaps an input array")
                    }
                    other => PyValueError::new_err(other.to_string()),
                })?;
                let view = rw.as_array_mut();
                py.detach(|| f(view)).map_err(to_py_err)
            }
        }
    )*};
}
np_element!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64);

impl NpElement for String {
    fn into_numpy<'py>(
        py: Python<'py>,
        a: ArrayD<Self>,
        str_width: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        encode_strings(py, &a, str_width)
    }

    /// Strings are computed into a Rust array of `out`'s shape, then copied into `out` with
    /// `np.copyto(casting="safe")`: a string longer than `out`'s width is a `TypeError`, never
    /// truncated.
    fn with_out<'py, F>(py: Python<'py>, out: &Bound<'py, PyAny>, f: F) -> PyResult<()>
    where
        F: for<'a> FnOnce(ArrayViewMutD<'a, Self>) -> Result<(), BroadcastError> + Send,
    {
        let untyped = out_array(out)?;
        if untyped.dtype().kind() != b'U' {
            return Err(out_dtype_error(untyped, "a str (<U) array"));
        }
        check_writeable(untyped)?;
        let mut tmp = ArrayD::<String>::default(IxDyn(untyped.shape()));
        py.detach(|| f(tmp.view_mut())).map_err(to_py_err)?;
        let values = encode_strings(py, &tmp, 1)?;
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("casting", "safe")?;
        numpy_module(py)?.call_method("copyto", (untyped, values), Some(&kwargs))?;
        Ok(())
    }
}

/// A [`Tensor`] as a numpy array (numbers: the buffer moves to numpy; strings: encoded as
/// `<U{str_width}` or wider, as [`NpElement::into_numpy`]).
pub fn tensor_to_numpy(py: Python<'_>, t: Tensor, str_width: usize) -> PyResult<Bound<'_, PyAny>> {
    match t {
        Tensor::Bool(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::I8(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::I16(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::I32(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::I64(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::U8(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::U16(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::U32(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::U64(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::F16(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::BF16(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::F32(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::F64(a) => NpElement::into_numpy(py, a, str_width),
        Tensor::String(a) => NpElement::into_numpy(py, a, str_width),
    }
}
