//! `bcast.PreparedOp`: an element-wise op of the table checked and planned once for its
//! operands' dtypes and shapes (a model's load), then run many times on new arrays of those
//! dtypes and shapes (every inference), over the library's [`bcast::PreparedOp`].
//!
//! The op and its attributes are read as the functions read theirs ([`op_named`]: the
//! function's name and keywords), the rule as theirs ([`spec`]); operands are read in place
//! ([`convert::input`]); the op runs with the GIL released into a new array or `out=`.
//!
//! The doc comments are the Python docstrings (numpy's format), not rustdoc.

use bcast::{DType, EltwiseOp, PreparedOp, TensorView};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::args::{self, Axis};
use crate::context::{context_of, PyContext};
use crate::convert::{self, InArray};
use crate::eltwise::{op_named, out_arg, scalar_if_0d, spec};
use crate::errors::to_py_err;

/// An element-wise op prepared for its operands' dtypes and shapes: the op, its attributes,
/// the types, the shapes and the rule are checked once, and the output's dtype, shape and
/// (for two operands of one dtype) the plan worked out once; each call then runs on new
/// arrays of exactly those dtypes and shapes.
///
/// ``PreparedOp(op, dtypes, shapes, *, auto_broadcast=None, axis=-1, **attributes)``
///
/// Parameters
/// ----------
/// op : str
///     The name of the op's function in this package: ``"add"``, ``"onnx_div"``, ``"max"``,
///     ``"select"``, ``"bit_shift"``, ... (every name of ``bcast.__all__`` that is an
///     element-wise op).
/// dtypes : sequence of dtype-like
///     One per operand, anything ``numpy.dtype`` takes (``np.float32``, ``"int8"``,
///     ``ml_dtypes.bfloat16``).
/// shapes : sequence of shapes
///     One per operand (a shape: a sequence of ints, or one int).
/// auto_broadcast : {"numpy", "none", "pdpd"}, optional
///     The rule, for the ops whose function takes one (default ``"numpy"``); the other ops
///     broadcast by their own rule and take none.
/// axis : int, default -1
///     The pdpd rule's axis.
/// **attributes
///     The op's attributes, as its function takes them: ``pythondiv=``, ``fmod=``,
///     ``levels=``, ``direction=``. ``levels`` and ``direction`` are required.
///
/// Attributes
/// ----------
/// op : str
///     The op's name.
/// dtypes, shapes : tuple
///     The operands' dtypes and shapes, as prepared.
/// output_dtype : numpy.dtype
///     The result's dtype (``<U`` for strings, whose width is the operands').
/// output_shape : tuple of int
///     The result's shape.
///
/// Calling it: ``prepared(*operands, out=None, context=None)`` runs the op on ``operands``
/// (numpy arrays, or anything ``numpy.asarray`` takes, of exactly the prepared dtypes and
/// shapes, read in place whatever their strides; a Python scalar is ``numpy.asarray``'d,
/// so ``1.0`` is a float64 operand), on the threads of ``context`` (a
/// :class:`bcast.Context`; default: the process's). Returns a new array (a numpy scalar for
/// a 0-d result, as the functions; ``select`` a 0-d array, as ``numpy.where``), or ``out``,
/// written in place: it must be a writeable ``numpy.ndarray`` of the output's dtype and
/// shape (any strides) that overlaps no operand. The results are bit for bit those of the
/// op's function on the same operands.
///
/// Raises
/// ------
/// ValueError
///     ``op`` is not an op of the table; ``dtypes`` and ``shapes`` differ in length; ``out``
///     is read-only or overlaps an operand.
/// TypeError
///     An attribute the op does not have, a required one missing, a rule given to an op that
///     takes none; a dtype bcast does not have or the op does not take; a count of operands
///     the op does not take (when preparing) or other than prepared (when called); ``out``
///     not an array of the output's dtype.
/// bcast.BroadcastError
///     Shapes that break the rule, operands of different dtypes (when preparing); an operand
///     of another dtype or shape than prepared, an ``out`` of another shape than the output,
///     an integer division by zero (when called).
///
/// Examples
/// --------
/// >>> import numpy as np, bcast
/// >>> add = bcast.PreparedOp("add", [np.float32, np.float32], [(2, 3), (3,)])
/// >>> add.output_dtype, add.output_shape
/// (dtype('float32'), (2, 3))
/// >>> add(np.ones((2, 3), np.float32), np.arange(3, dtype=np.float32))
/// array([[1., 2., 3.],
///        [1., 2., 3.]], dtype=float32)
/// >>> out = np.empty((2, 3), np.float32)
/// >>> add(np.zeros((2, 3), np.float32), np.ones(3, np.float32), out=out) is out
/// True
/// >>> shl = bcast.PreparedOp("bit_shift", ["uint8", "uint8"], [4, ()], direction="LEFT")
/// >>> shl(np.arange(4, dtype=np.uint8), np.uint8(2))
/// array([ 0,  4,  8, 12], dtype=uint8)
/// >>> add(np.ones((3, 2), np.float32), np.ones(3, np.float32))
/// Traceback (most recent call last):
/// ...
/// bcast.BroadcastError: ...
#[pyclass(name = "PreparedOp", module = "bcast", frozen)]
pub struct PyPreparedOp {
    prepared: PreparedOp,
}

/// The items of a per-operand argument (`dtypes`, `shapes`): a sequence, not a string.
fn items<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a sequence with one item per operand, not str"
        )));
    }
    obj.try_iter()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "{what} must be a sequence with one item per operand"
            ))
        })?
        .collect()
}

#[pymethods]
impl PyPreparedOp {
    #[new]
    #[pyo3(
        signature = (op, dtypes, shapes, *, auto_broadcast = None, axis = Axis(-1), **attributes),
        text_signature = "(op, dtypes, shapes, *, auto_broadcast=None, axis=-1, **attributes)"
    )]
    fn new(
        op: &str,
        dtypes: &Bound<'_, PyAny>,
        shapes: &Bound<'_, PyAny>,
        auto_broadcast: Option<&str>,
        axis: Axis,
        attributes: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let eltwise: EltwiseOp = op_named(op, attributes)?;
        if !eltwise.takes_auto_broadcast() && (auto_broadcast.is_some() || axis != Axis(-1)) {
            return Err(PyTypeError::new_err(format!(
                "{op} broadcasts by its own rule: it takes no auto_broadcast or axis"
            )));
        }
        let rule = spec(auto_broadcast, axis)?;
        let dtypes = items(dtypes, "dtypes")?
            .iter()
            .map(convert::dtype_arg)
            .collect::<PyResult<Vec<DType>>>()?;
        let shapes = items(shapes, "shapes")?
            .iter()
            .map(|s| args::shape(s, "shape"))
            .collect::<PyResult<Vec<Vec<usize>>>>()?;
        if dtypes.len() != shapes.len() {
            return Err(PyValueError::new_err(format!(
                "{op}: {} dtypes but {} shapes; one of each per operand",
                dtypes.len(),
                shapes.len()
            )));
        }
        let operands: Vec<(DType, &[usize])> = dtypes
            .iter()
            .zip(&shapes)
            .map(|(&d, s)| (d, s.as_slice()))
            .collect();
        let prepared = PreparedOp::new(eltwise, &operands, &rule).map_err(to_py_err)?;
        Ok(PyPreparedOp { prepared })
    }

    /// ``prepared(*operands, out=None, context=None)``: the op on ``operands`` (the
    /// prepared dtypes and shapes), into a new array or ``out``.
    #[pyo3(signature = (*operands, out = None, context = None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        operands: &Bound<'py, PyTuple>,
        out: Option<&Bound<'py, PyAny>>,
        context: Option<&Bound<'py, PyContext>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ctx = context_of(context);
        let out = out_arg(out)?;
        let inputs = operands
            .iter()
            .map(|x| convert::input(&x))
            .collect::<PyResult<Vec<InArray<'_>>>>()?;
        let views: Vec<TensorView<'_>> = inputs.iter().map(InArray::view).collect();
        let op = &self.prepared;
        let dtype = op.output_dtype();
        match out {
            None => {
                // Strings (select's values): `<U` of the wider operand, as the function.
                let width = inputs.iter().map(InArray::str_width).max().unwrap_or(0);
                let result = convert::new_array(py, dtype, op.output_shape(), width)?;
                convert::with_out_view(py, dtype, &result, |o| {
                    ctx.run(|par| op.run(&views, o, par))
                })?;
                if op.op() == EltwiseOp::Select {
                    Ok(result)
                } else {
                    scalar_if_0d(result)
                }
            }
            Some(out) => {
                convert::with_out_view(py, dtype, out, |o| ctx.run(|par| op.run(&views, o, par)))?;
                Ok(out.clone())
            }
        }
    }

    /// The op's name (its function's in this package).
    #[getter]
    fn op(&self) -> &'static str {
        self.prepared.op().name()
    }

    /// The operands' dtypes, as prepared.
    #[getter]
    fn dtypes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let dtypes = self
            .prepared
            .operands()
            .map(|(d, _)| convert::numpy_dtype(py, d))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, dtypes)
    }

    /// The operands' shapes, as prepared.
    #[getter]
    fn shapes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let shapes = self
            .prepared
            .operands()
            .map(|(_, s)| PyTuple::new(py, s))
            .collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, shapes)
    }

    /// The result's dtype.
    #[getter]
    fn output_dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArrayDescr>> {
        convert::numpy_dtype(py, self.prepared.output_dtype())
    }

    /// The result's shape.
    #[getter]
    fn output_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.prepared.output_shape())
    }

    fn __repr__(&self) -> String {
        let operands: Vec<String> = self
            .prepared
            .operands()
            .map(|(d, s)| format!("{} {s:?}", convert::numpy_name(d)))
            .collect();
        format!(
            "bcast.PreparedOp({:?}: {} -> {} {:?})",
            self.prepared.op().name(),
            operands.join(", "),
            convert::numpy_name(self.prepared.output_dtype()),
            self.prepared.output_shape()
        )
    }
}

/// Adds `PreparedOp` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPreparedOp>()
}
