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
//! - Views: [`InArray::view`] and [`with_out_view`] hand inputs and `out=` to the library's
//!   runtime-typed entry points (the element-wise ops, `eltwise.rs`); [`tensor_to_numpy`]
//!   takes their results.
//!
//! Every per-type item here is generated from the library's element-type table
//! (`bcast::dtype_table!`); numpy's spelling of a type is derived from its row
//! ([`numpy_name`]). Dispatch on the element type is [`with_view!`] (every type) or
//! [`with_summable_view!`] (the types a gradient can be summed in): the body is compiled once
//! per type, with the input bound to an `ArrayViewD<'_, T>`.

use bcast::half;
use bcast::{BroadcastError, DType, DTypeKind, Tensor, TensorView, TensorViewMut};
use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, IxDyn};
use numpy::{
    PyArray, PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::errors::to_py_err;

/// The element types as numpy names them (`bool`, `int8`, ..., `bfloat16`, `str`), derived
/// from the row's kind, size and OpenVINO name: OpenVINO's `bf16` is ml_dtypes' `bfloat16`.
pub fn numpy_name(dtype: DType) -> String {
    let bits = 8 * dtype.size();
    match dtype.kind() {
        DTypeKind::Bool => "bool".into(),
        DTypeKind::Int => format!("int{bits}"),
        DTypeKind::Uint => format!("uint{bits}"),
        DTypeKind::Float if is_brain_float(dtype) => format!("bfloat{bits}"),
        DTypeKind::Float => format!("float{bits}"),
        DTypeKind::Text => "str".into(),
    }
}

/// Whether `dtype` is a brain float (OpenVINO's `bf16`), which numpy does not have: arrays
/// of it are ml_dtypes' (numpy kind `V`).
fn is_brain_float(dtype: DType) -> bool {
    dtype.kind() == DTypeKind::Float && dtype.name().starts_with("bf")
}

/// How numpy's dtype descriptor spells `dtype`: its kind character and item size (0 for
/// strings, whose item size is their width).
fn numpy_key(dtype: DType) -> (u8, usize) {
    let kind = match dtype.kind() {
        DTypeKind::Text => return (b'U', 0),
        DTypeKind::Bool => b'b',
        DTypeKind::Int => b'i',
        DTypeKind::Uint => b'u',
        DTypeKind::Float if is_brain_float(dtype) => b'V',
        DTypeKind::Float => b'f',
    };
    (kind, dtype.size())
}

/// The dtypes bcast takes, for error messages.
fn supported() -> String {
    let names: Vec<String> = DType::ALL
        .iter()
        .map(|&d| match d.kind() {
            DTypeKind::Text => "str (<U)".to_string(),
            _ if is_brain_float(d) => format!("{} (ml_dtypes)", numpy_name(d)),
            _ => numpy_name(d),
        })
        .collect();
    names.join(", ")
}

/// A `<U` input, decoded: `width` is its width in characters, which string results keep.
pub struct Strings {
    pub values: ArrayD<String>,
    pub width: usize,
}

/// What an [`InArray`] variant holds: numpy's memory borrowed, or decoded strings.
pub trait Held {
    type Elem: NpElement;
    fn view(&self) -> ArrayViewD<'_, Self::Elem>;
    fn shape(&self) -> &[usize];
}

impl<T: NpElement + numpy::Element> Held for PyReadonlyArrayDyn<'_, T> {
    type Elem = T;
    fn view(&self) -> ArrayViewD<'_, T> {
        self.as_array()
    }
    fn shape(&self) -> &[usize] {
        PyUntypedArrayMethods::shape(&**self)
    }
}

impl Held for Strings {
    type Elem = String;
    fn view(&self) -> ArrayViewD<'_, String> {
        self.values.view()
    }
    fn shape(&self) -> &[usize] {
        self.values.shape()
    }
}

/// The storage of one element-type row in an [`InArray`].
macro_rules! held {
    ($life:lifetime, Text, $t:ty) => { Strings };
    ($life:lifetime, $kind:ident, $t:ty) => { PyReadonlyArrayDyn<$life, $t> };
}

/// Borrows (numbers, bool) or decodes (strings) a numpy array of element type `$t`.
macro_rules! hold {
    (Text, $t:ty, $arr:expr) => {
        Strings {
            values: decode_strings($arr)?,
            width: $arr.dtype().itemsize() / 4,
        }
    };
    ($kind:ident, $t:ty, $arr:expr) => {
        $arr.cast::<PyArrayDyn<$t>>()?
            .try_readonly()
            .map_err(|e| PyValueError::new_err(e.to_string()))?
    };
}

/// Everything per element type, from the rows of `bcast::dtype_table!`.
macro_rules! define_in_array {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        /// An input array of any bcast element type: one variant per row of the element-type
        /// table. Numbers and bools borrow numpy's memory (a read-only borrow, checked by
        /// rust-numpy against any `out=` that overlaps it); strings are decoded into Rust
        /// `String`s (a copy).
        pub enum InArray<'py> {
            $(
                #[doc = concat!("`", stringify!($t), "` elements.")]
                $v(held!('py, $kind, $t)),
            )*
        }

        impl InArray<'_> {
            /// The element type.
            pub fn dtype(&self) -> DType {
                match self { $(InArray::$v(_) => DType::$v,)* }
            }

            /// The shape.
            pub fn shape(&self) -> &[usize] {
                match self { $(InArray::$v(a) => a.shape(),)* }
            }

            /// The input as a library view (no copy).
            pub fn view(&self) -> TensorView<'_> {
                match self { $(InArray::$v(a) => a.view().into(),)* }
            }
        }

        /// A result [`Tensor`] as a numpy array (numbers: the buffer moves to numpy;
        /// strings: encoded as `<U{str_width}` or wider, as [`NpElement::into_numpy`]).
        pub fn tensor_to_numpy(
            py: Python<'_>,
            t: Tensor,
            str_width: usize,
        ) -> PyResult<Bound<'_, PyAny>> {
            match t { $(Tensor::$v(a) => NpElement::into_numpy(py, a, str_width),)* }
        }

        /// Runs `f` on the caller's `out` as a view of element type `dtype` (GIL released),
        /// after [`NpElement::with_out`]'s checks (an ndarray of that dtype, writeable, not
        /// overlapping an input).
        pub fn with_out_view<'py, F>(
            py: Python<'py>,
            dtype: DType,
            out: &Bound<'py, PyAny>,
            f: F,
        ) -> PyResult<()>
        where
            F: for<'a> FnOnce(TensorViewMut<'a>) -> Result<(), BroadcastError> + Send,
        {
            match dtype {
                $(DType::$v => {
                    <$t as NpElement>::with_out(py, out, move |o| f(TensorViewMut::from(o)))
                })*
            }
        }

        /// `arr`, whose numpy dtype is bcast's `dtype`, as an [`InArray`].
        fn typed_input<'py>(
            arr: &Bound<'py, PyUntypedArray>,
            dtype: DType,
        ) -> PyResult<InArray<'py>> {
            Ok(match dtype {
                $(DType::$v => InArray::$v(hold!($kind, $t, arr)),)*
            })
        }

        $(np_element!($kind, $t);)*
    };
}

/// Runs `$body` with `$v` bound to the input's `ArrayViewD<'_, T>`, whatever `T` is.
macro_rules! with_view {
    ($arr:expr, $v:ident => $body:expr) => {
        bcast::dtype_table!(crate::convert::view_arms!([any] $arr, $v => $body))
    };
}
pub(crate) use with_view;

/// [`with_view!`] for the types a gradient can be summed in (`bcast::Summable`: the
/// integer and float kinds); bool and string inputs raise `TypeError` with the library's
/// message.
macro_rules! with_summable_view {
    ($arr:expr, $v:ident => $body:expr) => {
        bcast::dtype_table!(crate::convert::view_arms!([summable] $arr, $v => $body))
    };
}
pub(crate) use with_summable_view;

/// The arms of [`with_view!`] and [`with_summable_view!`], one per row of the table.
macro_rules! view_arms {
    ([$which:ident] $arr:expr, $v:ident => $body:expr ;
        $(($var:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {{
        #[allow(unused_imports)]
        use $crate::convert::{Held as _, InArray as A};
        let arr = $arr;
        match arr {
            $(A::$var(a) => $crate::convert::view_arm!([$which $kind] arr, a, $v => $body),)*
        }
    }};
}
pub(crate) use view_arms;

/// One arm of [`view_arms!`]: the body on the typed view, or the refusal of a type a
/// gradient cannot be summed in.
macro_rules! view_arm {
    ([summable Bool] $arr:ident, $a:ident, $v:ident => $body:expr) => {{
        let _ = $a;
        $crate::convert::not_summable($arr.dtype())
    }};
    ([summable Text] $arr:ident, $a:ident, $v:ident => $body:expr) => {{
        let _ = $a;
        $crate::convert::not_summable($arr.dtype())
    }};
    ([$which:ident $kind:ident] $arr:ident, $a:ident, $v:ident => $body:expr) => {{
        let $v = $a.view();
        $body
    }};
}
pub(crate) use view_arm;

/// The library's refusal of a gradient of a type it cannot sum.
pub fn not_summable<T>(dtype: DType) -> PyResult<T> {
    Err(to_py_err(BroadcastError::UnsupportedType {
        op: "reduce",
        dtype: dtype.name(),
    }))
}

impl InArray<'_> {
    /// The `<U` width in characters a string result keeps (0 for other types).
    pub fn str_width(&self) -> usize {
        match self {
            InArray::String(s) => s.width,
            _ => 0,
        }
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
    let dtype = dtype_of_descr(&arr.dtype())?;
    typed_input(&arr, dtype)
}

/// bcast's element type of a numpy dtype (either byte order), or `TypeError` for a dtype
/// bcast does not have.
fn dtype_of_descr(descr: &Bound<'_, numpy::PyArrayDescr>) -> PyResult<DType> {
    let key = match descr.kind() {
        b'U' => (b'U', 0),
        kind => (kind, descr.itemsize()),
    };
    let found = DType::ALL.iter().copied().find(|&d| numpy_key(d) == key);
    match found {
        // ml_dtypes' bfloat16: the name is only looked at when the dtype is an opaque type
        // of that size, so that numpy need not know it otherwise (rust-numpy resolves
        // `bfloat16` through numpy's registry).
        Some(d) if is_brain_float(d) && !is_bfloat16(descr)? => Err(unsupported(descr)),
        Some(d) => Ok(d),
        None => Err(unsupported(descr)),
    }
}

/// bcast's element type of anything `numpy.dtype` takes (`np.float32`, `"int8"`, a dtype,
/// `ml_dtypes.bfloat16`); `TypeError` for what numpy or bcast does not take.
pub fn dtype_arg(x: &Bound<'_, PyAny>) -> PyResult<DType> {
    let descr = numpy_module(x.py())?
        .call_method1("dtype", (x,))
        .map_err(|e| PyTypeError::new_err(format!("not a dtype: {e}")))?
        .cast_into::<numpy::PyArrayDescr>()
        .map_err(|e| PyTypeError::new_err(e.to_string()))?;
    dtype_of_descr(&descr)
}

/// numpy's dtype of one element type row: the type's own, or `<U` (of no width) for strings.
macro_rules! descr_of {
    (Text, $t:ty, $py:expr) => {
        numpy_module($py)?
            .getattr("dtype")?
            .call1(("U",))?
            .cast_into::<numpy::PyArrayDescr>()?
    };
    ($kind:ident, $t:ty, $py:expr) => {
        numpy::dtype::<$t>($py)
    };
}

macro_rules! define_numpy_dtype {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        /// numpy's dtype of `dtype` (`<U`, of no width, for strings; ml_dtypes' for bfloat16).
        pub fn numpy_dtype(py: Python<'_>, dtype: DType) -> PyResult<Bound<'_, numpy::PyArrayDescr>> {
            Ok(match dtype {
                $(DType::$v => descr_of!($kind, $t, py),)*
            })
        }
    };
}
bcast::dtype_table!(define_numpy_dtype!);

/// A new numpy array of `dtype` and `shape`, zeroed (`numpy.zeros`, whose large buffers are
/// the system's zero pages: no pass over the memory before the kernel writes it); strings
/// are `<U{str_width}` (at least 1).
pub fn new_array<'py>(
    py: Python<'py>,
    dtype: DType,
    shape: &[usize],
    str_width: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let np = numpy_module(py)?;
    let descr = if dtype.kind() == DTypeKind::Text {
        np.getattr("dtype")?
            .call1((format!("U{}", str_width.max(1)),))?
            .cast_into::<numpy::PyArrayDescr>()?
    } else {
        numpy_dtype(py, dtype)?
    };
    let shape = pyo3::types::PyTuple::new(py, shape)?;
    np.call_method1("zeros", (shape, descr))
}

fn unsupported(descr: &Bound<'_, numpy::PyArrayDescr>) -> PyErr {
    let name = descr
        .str()
        .map_or_else(|_| "?".to_string(), |s| s.to_string());
    PyTypeError::new_err(format!(
        "unsupported dtype {name}: bcast takes {}",
        supported()
    ))
}

fn is_bfloat16(descr: &Bound<'_, numpy::PyArrayDescr>) -> PyResult<bool> {
    Ok(descr.getattr("name")?.extract::<String>()? == "bfloat16")
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

/// [`NpElement`] for the numeric and bool rows of the table (strings: below).
macro_rules! np_element {
    (Text, $t:ty) => {};
    ($kind:ident, $t:ty) => {
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
    };
}
bcast::dtype_table!(define_in_array!);

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
