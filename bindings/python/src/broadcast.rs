//! The broadcast functions: `broadcast`, `broadcast_arrays`, `output_shape`,
//! `broadcast_shapes`, `reduce_to_input`.
//!
//! The doc comments are the Python docstrings (numpy's format), not rustdoc.

use bcast::{Mode, Parallelism, Summable};
use ndarray::ArrayViewD;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::args;
use crate::convert::{self, with_summable_view, with_view, NpElement};
use crate::errors::to_py_err;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(broadcast, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast_arrays, m)?)?;
    m.add_function(wrap_pyfunction!(output_shape, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast_shapes, m)?)?;
    m.add_function(wrap_pyfunction!(reduce_to_input, m)?)?;
    Ok(())
}

/// `str_width`: the input's `<U` width, which a string result keeps (numpy's rule:
/// `broadcast_to` keeps the dtype).
fn broadcast_typed<'py, T: NpElement>(
    py: Python<'py>,
    x: ArrayViewD<'_, T>,
    str_width: usize,
    shape: &[usize],
    mode: &Mode,
    out: Option<&Bound<'py, PyAny>>,
    ctx: &bcast::exec::Context,
) -> PyResult<Bound<'py, PyAny>> {
    match out {
        None => {
            let y = py
                .detach(|| ctx.run(|par| bcast::broadcast_with(x, shape, mode, par)))
                .map_err(to_py_err)?;
            T::into_numpy(py, y, str_width)
        }
        Some(out) => {
            T::with_out(py, out, |o| {
                ctx.run(|par| bcast::broadcast_into_with(x, shape, mode, o, par))
            })?;
            Ok(out.clone())
        }
    }
}

/// Broadcast an array to a shape, under one of bcast's modes, into a new array (or `out`).
///
/// Unlike ``numpy.broadcast_to``, which returns a read-only view, the result is a new,
/// C-contiguous, writeable array (or the caller's ``out``), written by bcast's kernel on
/// several threads with the GIL released. The input is passed to the kernel as a view of
/// its own memory whatever its strides (transposed, reversed, sliced); a C-contiguous input
/// is read in place, any other is gathered once into an input-sized buffer.
///
/// Parameters
/// ----------
/// x : array_like
///     The data. Any dtype bcast has: bool, int8..int64, uint8..uint64, float16, float32,
///     float64, ``ml_dtypes.bfloat16``, and str (``<U``; converted to and from Rust strings,
///     which copies). Non-arrays go through ``numpy.asarray``; big-endian arrays are
///     converted to native byte order first (a copy).
/// shape : int or sequence of ints
///     The target shape.
/// mode : str, optional
///     The broadcast rule (case-insensitive):
///
///     - ``"numpy"`` (default): right-aligned; each data dim equals the target's or is 1;
///       the output shape is `shape`.
///     - ``"bidirectional"``: both padded to the larger rank; per axis equal or one is 1
///       (ONNX Expand); the output may be larger than `shape`.
///     - ``"explicit"`` (or ``"none"``): data axis ``i`` goes to output axis
///       ``axes_mapping[i]``; the mapping is strictly increasing.
///     - ``"pdpd"``: data (trailing 1s dropped) lies on the target axes from `axis`
///       (-1: right-aligned).
///     - ``"axes"``: `broadcast_axes` are the new output axes; the other target dims must
///       equal the data's exactly (nGraph v0).
/// axes_mapping : sequence of ints, optional
///     ``"explicit"`` only: the output axis of each data axis. Default: empty.
/// axis : int, optional
///     ``"pdpd"`` only: the first target axis the data is laid on. Default -1.
/// broadcast_axes : sequence of ints, optional
///     ``"axes"`` only: the output axes that do not come from the data. Default: empty.
/// out : ndarray, optional
///     Where to write the result: writeable, of `x`'s dtype and of the output shape, any
///     layout (a C-contiguous one is written in place with no allocation). Must not
///     overlap `x`.
///
/// Returns
/// -------
/// ndarray
///     The broadcast array, of `x`'s dtype; `out` itself when given.
///
/// Raises
/// ------
/// BroadcastError
///     The shapes break the mode's rule (the message names the mode, the shapes and the
///     axis at fault), a shape or axis is negative, `out` has the wrong shape, or the
///     output cannot be allocated. A subclass of ``ValueError``.
/// TypeError
///     An unsupported dtype, a shape that is not integers, `out` of another dtype or not
///     an ndarray, or an argument of another mode (``axes_mapping`` given to ``"numpy"``).
/// ValueError
///     An unknown mode, or an `out` that is read-only or overlaps `x`.
///
/// See Also
/// --------
/// numpy.broadcast_to : the read-only view, numpy mode only.
/// reduce_to_input : the gradient (adjoint) of a broadcast.
///
/// Examples
/// --------
/// >>> import numpy as np, bcast
/// >>> bcast.broadcast(np.array([1, 2, 3]), (2, 3))
/// array([[1, 2, 3],
///        [1, 2, 3]])
///
/// A [C] bias on the channel axis of NCHW (OpenVINO explicit mode):
///
/// >>> bias = np.array([0.5, -1.0, 2.0], dtype=np.float32)
/// >>> bcast.broadcast(bias, (1, 3, 2, 2), "explicit", axes_mapping=[1])[0, :, 0, 0]
/// array([ 0.5, -1. ,  2. ], dtype=float32)
///
/// ONNX Expand: the output is larger than the shape asked for:
///
/// >>> bcast.broadcast(np.zeros((3, 1)), (2, 1, 6), "bidirectional").shape
/// (2, 3, 6)
///
/// Into an existing array:
///
/// >>> out = np.empty((2, 3), dtype=np.int64)
/// >>> bcast.broadcast(np.array([[7], [8]]), (2, 3), out=out) is out
/// True
/// >>> bcast.broadcast(np.ones(4), (2, 3))
/// Traceback (most recent call last):
///     ...
/// bcast.BroadcastError: numpy broadcast: data dim 4 at axis 0 cannot become 3 (must be 1 or 3); data shape [4], target shape [2,3]
#[pyfunction]
#[pyo3(
    signature = (x, shape, mode = "numpy", *, axes_mapping = None, axis = args::Axis(-1), broadcast_axes = None, out = None, context = None),
    text_signature = "(x, shape, mode='numpy', *, axes_mapping=None, axis=-1, broadcast_axes=None, out=None, context=None)"
)]
#[allow(clippy::too_many_arguments)]
fn broadcast<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    shape: &Bound<'py, PyAny>,
    mode: &str,
    axes_mapping: Option<&Bound<'py, PyAny>>,
    axis: args::Axis,
    broadcast_axes: Option<&Bound<'py, PyAny>>,
    out: Option<&Bound<'py, PyAny>>,
    context: Option<&Bound<'py, crate::context::PyContext>>,
) -> PyResult<Bound<'py, PyAny>> {
    let mode = args::mode(mode, axes_mapping, axis, broadcast_axes)?;
    let shape = args::shape(shape, "shape")?;
    let x = convert::input(x)?;
    let width = x.str_width();
    let ctx = crate::context::context_of(context);
    with_view!(&x, v => broadcast_typed(py, v, width, &shape, &mode, out, &ctx))
}

/// Broadcast any number of arrays against each other (numpy's rule, N-ary).
///
/// Each input becomes a new, C-contiguous array of the common shape, keeping its own
/// dtype (inputs may have different dtypes). The SONNX ``Broadcast`` operator and ONNX
/// multidirectional broadcasting.
///
/// Parameters
/// ----------
/// *xs : array_like
///     The arrays, of any dtypes bcast has (see ``broadcast``).
///
/// Returns
/// -------
/// tuple of ndarray
///     One new array per input, in order, each of the common shape.
///
/// Raises
/// ------
/// BroadcastError
///     Two shapes clash on an axis (neither equal nor 1), or no array is given (numpy
///     returns an empty tuple there; bcast, like SONNX, refuses it).
/// TypeError
///     An unsupported dtype.
///
/// See Also
/// --------
/// numpy.broadcast_arrays : the read-only views.
/// broadcast_shapes : the common shape alone.
///
/// Examples
/// --------
/// >>> import numpy as np, bcast
/// >>> a, b = bcast.broadcast_arrays(np.array([[1], [2]]), np.array([10.0, 20.0, 30.0]))
/// >>> a
/// array([[1, 1, 1],
///        [2, 2, 2]])
/// >>> b.shape, b.dtype
/// ((2, 3), dtype('float64'))
#[pyfunction]
#[pyo3(signature = (*xs))]
fn broadcast_arrays<'py>(
    py: Python<'py>,
    xs: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyTuple>> {
    let inputs = xs
        .iter()
        .map(|x| convert::input(&x))
        .collect::<PyResult<Vec<_>>>()?;
    let shapes: Vec<&[usize]> = inputs.iter().map(|a| a.shape()).collect();
    let common = bcast::broadcast_shapes(&shapes).map_err(to_py_err)?;
    let outputs = inputs
        .iter()
        .map(|x| {
            let width = x.str_width();
            with_view!(x, v => broadcast_typed(py, v, width, &common, &Mode::Numpy, None, &Default::default()))
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, outputs)
}

/// The shape an array of `data_shape` takes when broadcast to `target_shape` under `mode`.
///
/// Checks the mode's rule without touching any data.
///
/// Parameters
/// ----------
/// data_shape : int or sequence of ints
///     The data's shape.
/// target_shape : int or sequence of ints
///     The target shape.
/// mode : str, optional
///     ``"numpy"`` (default), ``"bidirectional"``, ``"explicit"`` (``"none"``), ``"pdpd"``
///     or ``"axes"``; see ``broadcast``.
/// axes_mapping, axis, broadcast_axes
///     The mode's arguments, as for ``broadcast``.
///
/// Returns
/// -------
/// tuple of int
///     The output shape.
///
/// Raises
/// ------
/// BroadcastError
///     The shapes break the mode's rule, or a value is negative.
/// TypeError
///     A shape that is not integers, or an argument of another mode.
/// ValueError
///     An unknown mode.
///
/// Examples
/// --------
/// >>> import bcast
/// >>> bcast.output_shape((3, 1), (2, 1, 6), "bidirectional")
/// (2, 3, 6)
/// >>> bcast.output_shape((3, 4), (2, 3, 4, 5), "pdpd", axis=1)
/// (2, 3, 4, 5)
#[pyfunction]
#[pyo3(
    signature = (data_shape, target_shape, mode = "numpy", *, axes_mapping = None, axis = args::Axis(-1), broadcast_axes = None),
    text_signature = "(data_shape, target_shape, mode='numpy', *, axes_mapping=None, axis=-1, broadcast_axes=None)"
)]
fn output_shape<'py>(
    py: Python<'py>,
    data_shape: &Bound<'py, PyAny>,
    target_shape: &Bound<'py, PyAny>,
    mode: &str,
    axes_mapping: Option<&Bound<'py, PyAny>>,
    axis: args::Axis,
    broadcast_axes: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let mode = args::mode(mode, axes_mapping, axis, broadcast_axes)?;
    let data = args::shape(data_shape, "data_shape")?;
    let target = args::shape(target_shape, "target_shape")?;
    let shape = bcast::output_shape(&data, &target, &mode).map_err(to_py_err)?;
    PyTuple::new(py, shape)
}

/// The common shape of several shapes under numpy's (N-ary) rule.
///
/// Parameters
/// ----------
/// *shapes : int or sequence of ints
///     The shapes.
///
/// Returns
/// -------
/// tuple of int
///     The shape every one of them broadcasts to.
///
/// Raises
/// ------
/// BroadcastError
///     Two shapes clash on an axis, a value is negative, or no shape is given.
/// TypeError
///     A shape that is not integers.
///
/// See Also
/// --------
/// numpy.broadcast_shapes
///
/// Examples
/// --------
/// >>> import bcast
/// >>> bcast.broadcast_shapes((2, 1), (3,), 1)
/// (2, 3)
#[pyfunction]
#[pyo3(signature = (*shapes))]
fn broadcast_shapes<'py>(
    py: Python<'py>,
    shapes: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyTuple>> {
    let shapes = shapes
        .iter()
        .map(|s| args::shape(&s, "a shape"))
        .collect::<PyResult<Vec<_>>>()?;
    let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let common = bcast::broadcast_shapes(&refs).map_err(to_py_err)?;
    PyTuple::new(py, common)
}

fn reduce_typed<'py, T: NpElement + Summable>(
    py: Python<'py>,
    grad: ArrayViewD<'_, T>,
    data_shape: &[usize],
    target_shape: &[usize],
    mode: &Mode,
) -> PyResult<Bound<'py, PyAny>> {
    let r = py
        .detach(|| {
            bcast::reduce_to_input_with(grad, data_shape, target_shape, mode, Parallelism::Auto)
        })
        .map_err(to_py_err)?;
    T::into_numpy(py, r, 0)
}

/// The gradient of a broadcast: `grad` summed back to `data_shape`.
///
/// `grad` has the broadcast's output shape; the result sums it over every axis the data
/// was repeated along (new axes and stretched 1s), in the data's shape. This is the
/// adjoint of ``broadcast`` for every mode. Floats are summed pairwise in a wider type
/// (float16/bfloat16 in float32, float32/float64 in float64) and rounded once; integers
/// wrap in their own type, as ``numpy.sum(dtype=...)`` does. The result does not depend
/// on the number of threads. The GIL is released while it runs.
///
/// Parameters
/// ----------
/// grad : array_like
///     The output gradient: an integer or float array (bool and str are refused).
/// data_shape : int or sequence of ints
///     The shape of the broadcast's input.
/// mode : str, optional
///     The broadcast's mode; see ``broadcast``. Default ``"numpy"``.
/// target_shape : int or sequence of ints, optional
///     The broadcast's target shape. Default: ``grad.shape``, which names the same
///     broadcast in every mode (for ``"bidirectional"`` the output shape is itself a
///     valid target).
/// axes_mapping, axis, broadcast_axes
///     The mode's arguments, as for ``broadcast``.
///
/// Returns
/// -------
/// ndarray
///     The summed gradient, of `data_shape` and `grad`'s dtype.
///
/// Raises
/// ------
/// BroadcastError
///     The shapes break the mode's rule, or `grad` does not have the broadcast's output
///     shape.
/// TypeError
///     A bool or str `grad`, an unsupported dtype, or an argument of another mode.
///
/// Examples
/// --------
/// >>> import numpy as np, bcast
/// >>> grad = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]], dtype=np.float32)
/// >>> bcast.reduce_to_input(grad, (3,))
/// array([11., 22., 33.], dtype=float32)
/// >>> bcast.reduce_to_input(np.array([[200, 100]], dtype=np.uint8), (1, 1))
/// array([[44]], dtype=uint8)
#[pyfunction]
#[pyo3(
    signature = (grad, data_shape, mode = "numpy", *, target_shape = None, axes_mapping = None, axis = args::Axis(-1), broadcast_axes = None),
    text_signature = "(grad, data_shape, mode='numpy', *, target_shape=None, axes_mapping=None, axis=-1, broadcast_axes=None)"
)]
#[allow(clippy::too_many_arguments)]
fn reduce_to_input<'py>(
    py: Python<'py>,
    grad: &Bound<'py, PyAny>,
    data_shape: &Bound<'py, PyAny>,
    mode: &str,
    target_shape: Option<&Bound<'py, PyAny>>,
    axes_mapping: Option<&Bound<'py, PyAny>>,
    axis: args::Axis,
    broadcast_axes: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let mode = args::mode(mode, axes_mapping, axis, broadcast_axes)?;
    let data = args::shape(data_shape, "data_shape")?;
    let grad = convert::input(grad)?;
    let target = match target_shape {
        Some(t) => args::shape(t, "target_shape")?,
        None => grad.shape().to_vec(),
    };
    with_summable_view!(&grad, v => reduce_typed(py, v, &data, &target, &mode))
}
