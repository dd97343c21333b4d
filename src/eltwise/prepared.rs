//! Prepared ops: a node's op, element types, shapes and rule checked and planned once (when
//! a runtime loads its model), then run many times on new buffers of those shapes (as
//! XNNPACK's create, reshape, setup and run).
//!
//! What preparing saves a run: the rule's checks, the output's type and shape, and for a
//! two-operand op of one element type the plan itself (its axes merged, its strides laid
//! out), which the run hands to the kernel as it is. A run checks only what can change
//! between calls: that each buffer has the prepared type, shape and strides (a view of
//! another layout still runs, planned again for that call).

use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, IxDyn};

use super::dispatch::{direct_binary, run_prepared_into, run_prepared_new};
use super::exec::DirectRun;
use super::plan::EltwisePlan;
use super::rule::{eltwise_output_shape, resolve};
use super::table::{EltwiseOp, Shape};
use super::view::{TensorView, TensorViewMut};
use crate::auto_broadcast::AutoBroadcast;
use crate::dtype::{dtype_dispatch, DType};
use crate::element::Element;
use crate::error::{BroadcastError, Dims};
use crate::exec::Parallelism;
use crate::tensor::Tensor;

/// An element-wise op of the table, checked and planned for its operands' element types and
/// shapes, run many times on new buffers.
///
/// ```
/// use bcast::{AutoBroadcast, DType, EltwiseOp, PreparedOp, Parallelism, TensorView, TensorViewMut};
/// use bcast::ndarray::{ArrayD, IxDyn};
///
/// // At model load: a [1,12,128,128] + [1,1,1,128] f32 add (BERT's attention mask).
/// let x_shape = [1, 12, 128, 128];
/// let add = PreparedOp::new(
///     EltwiseOp::Add,
///     &[(DType::F32, &x_shape[..]), (DType::F32, &[1, 1, 1, 128][..])],
///     &AutoBroadcast::Numpy,
/// )?;
/// assert_eq!(add.output_shape(), &x_shape);
/// // At every inference, on that inference's buffers:
/// let x = ArrayD::from_elem(IxDyn(&x_shape), 1.0f32);
/// let mask = ArrayD::from_elem(IxDyn(&[1, 1, 1, 128]), -2.0f32);
/// let mut y = ArrayD::zeros(IxDyn(&x_shape));
/// add.run(
///     &[TensorView::F32(x.view()), TensorView::F32(mask.view())],
///     TensorViewMut::F32(y.view_mut()),
///     Parallelism::Serial,
/// )?;
/// assert!(y.iter().all(|&v| v == -1.0));
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PreparedOp {
    op: EltwiseOp,
    spec: AutoBroadcast,
    dtypes: Vec<DType>,
    shapes: Vec<Vec<usize>>,
    out_dtype: DType,
    out_shape: Vec<usize>,
    /// A two-operand op of one element type: its plan for row-major operands, and those
    /// operands' strides (the plan holds for exactly these).
    planned: Option<Box<Planned>>,
}

#[derive(Clone)]
struct Planned {
    plan: EltwisePlan<2>,
    strides: [Vec<isize>; 2],
    /// The op's kernel record for this type, where the op refuses no operand: a run on
    /// buffers of the planned layout goes straight to the plan walk with it.
    direct: Option<Arc<dyn DirectRun>>,
}

impl std::fmt::Debug for Planned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Planned")
            .field("strides", &self.strides)
            .finish_non_exhaustive()
    }
}

/// Whether two shapes (or strides) are equal, compared in line: a run's checks compare a few
/// short ones, where a call to `memcmp` costs more than the comparison.
#[inline(always)]
fn same<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Row-major strides, in elements, of `shape`.
fn row_major_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    fill_row_major_strides(shape, &mut strides);
    strides
}

/// Writes the row-major strides of `shape` into `strides` (as long as `shape`).
fn fill_row_major_strides(shape: &[usize], strides: &mut [isize]) {
    let mut step = 1isize;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = if d == 0 { 0 } else { step };
        // An overflow here means a shape whose element count overflowed, refused before.
        step = step.saturating_mul(isize::try_from(d).unwrap_or(isize::MAX));
    }
}

impl PreparedOp {
    /// Checks `op` on operands of these element types and shapes under `spec` (every check
    /// a call of the op makes before it reads a buffer), and plans it.
    ///
    /// # Errors
    /// What [`crate::eltwise_view`] returns for operands of these types and shapes:
    /// [`BroadcastError::Arity`], [`BroadcastError::DTypeMismatch`],
    /// [`BroadcastError::UnsupportedType`], the broken rule's error,
    /// [`BroadcastError::ShapeOverflow`].
    pub fn new(
        op: EltwiseOp,
        operands: &[(DType, &[usize])],
        spec: &AutoBroadcast,
    ) -> Result<PreparedOp, BroadcastError> {
        op.check_arity(operands.len())?;
        op.check_attributes()?;
        let dtypes: Vec<DType> = operands.iter().map(|&(d, _)| d).collect();
        let shapes: Vec<&[usize]> = operands.iter().map(|&(_, s)| s).collect();
        let out_dtype = output_dtype(op, &dtypes)?;
        let out_shape = eltwise_output_shape(op, &shapes, spec)?;
        let planned = match (op.shape(), &dtypes[..], &shapes[..]) {
            (Shape::Binary | Shape::Mixed, [da, db], [sa, sb]) if da == db => {
                let rule = resolve(op, spec, &shapes)?;
                if rule.channel {
                    None
                } else {
                    let strides = [row_major_strides(sa), row_major_strides(sb)];
                    let mut plan = EltwisePlan::<2>::empty();
                    plan.build([sa, sb], [&strides[0], &strides[1]], 0, &rule.spec, true)?;
                    let direct = direct_binary(op, *da).map(Arc::from);
                    Some(Box::new(Planned {
                        plan,
                        strides,
                        direct,
                    }))
                }
            }
            _ => None,
        };
        Ok(PreparedOp {
            op,
            spec: *spec,
            dtypes,
            shapes: shapes.iter().map(|s| s.to_vec()).collect(),
            out_dtype,
            out_shape,
            planned,
        })
    }

    /// The op.
    #[must_use]
    pub fn op(&self) -> EltwiseOp {
        self.op
    }

    /// The output's shape.
    #[must_use]
    pub fn output_shape(&self) -> &[usize] {
        &self.out_shape
    }

    /// The output's element type.
    #[must_use]
    pub fn output_dtype(&self) -> DType {
        self.out_dtype
    }

    /// The operands' element types and shapes, as prepared.
    pub fn operands(&self) -> impl Iterator<Item = (DType, &[usize])> {
        self.dtypes
            .iter()
            .zip(&self.shapes)
            .map(|(&d, s)| (d, s.as_slice()))
    }

    /// Runs the op on `inputs` (the prepared element types and shapes, any layout) into
    /// `out` (the output's type and shape), on the threads `par` names.
    ///
    /// # Errors
    /// [`BroadcastError::Arity`] for another operand count, [`BroadcastError::DTypeMismatch`]
    /// for another element type and [`BroadcastError::PreparedShape`] for another shape than
    /// prepared; as [`crate::eltwise_view_into`] otherwise (an integer division by zero, the
    /// output's type or shape, a worker's panic).
    pub fn run(
        &self,
        inputs: &[TensorView<'_>],
        out: TensorViewMut<'_>,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        let planned = self.check_inputs(inputs)?;
        let mut out = out;
        if let Some((p, direct)) =
            planned.and_then(|p| Some((p, p.direct.as_deref().filter(|d| d.serves(par))?)))
        {
            self.check_out(&out)?;
            if let Some(to) = out.row_major_ptr() {
                // SAFETY: the inputs have the prepared types, shapes and strides, for which
                // the plan was built, and are borrowed for the call; `to` is the first of the
                // output's elements (its type and shape checked), a row-major view borrowed
                // mutably, so no input overlaps it.
                return unsafe {
                    direct.run(&p.plan, inputs[0].data_ptr(), inputs[1].data_ptr(), to, par)
                };
            }
        }
        run_prepared_into(
            self.op,
            inputs,
            &self.spec,
            out,
            par,
            planned.map(|p| &p.plan),
        )
    }

    /// [`PreparedOp::run`] into a new tensor.
    ///
    /// # Errors
    /// As [`PreparedOp::run`], and [`BroadcastError::Allocation`] when the output cannot be
    /// allocated.
    pub fn run_new(
        &self,
        inputs: &[TensorView<'_>],
        par: Parallelism<'_>,
    ) -> Result<Tensor, BroadcastError> {
        let planned = self.check_inputs(inputs)?;
        if let Some((p, direct)) =
            planned.and_then(|p| Some((p, p.direct.as_deref().filter(|d| d.serves(par))?)))
        {
            return dtype_dispatch!(self.out_dtype, C => {
                let len = p.plan.len();
                let mut values: Vec<C> = crate::exec::reserve(len, &self.out_shape, true)?;
                // SAFETY: the inputs have the prepared types, shapes and strides, for which
                // the plan was built; the record's output type is the op's (checked when it
                // was kept), which `C` is, and the new vector's spare room holds `len` of them.
                unsafe {
                    direct.run(
                        &p.plan,
                        inputs[0].data_ptr(),
                        inputs[1].data_ptr(),
                        values.spare_capacity_mut().as_mut_ptr().cast::<u8>(),
                        par,
                    )?;
                    // SAFETY: the run returned Ok: every one of the `len` slots was written.
                    values.set_len(len);
                }
                let array = ArrayD::from_shape_vec(IxDyn(&self.out_shape), values)
                    .expect("the output holds the product of its shape");
                Ok(C::into_tensor(array))
            });
        }
        run_prepared_new(self.op, inputs, &self.spec, par, planned.map(|p| &p.plan))
    }

    /// Refuses inputs of another count, element type or shape than prepared; the plan, when
    /// the inputs are laid out as it was built for (a view of another layout, a transposed
    /// one say, is planned again).
    fn check_inputs(&self, inputs: &[TensorView<'_>]) -> Result<Option<&Planned>, BroadcastError> {
        if inputs.len() != self.dtypes.len() {
            return Err(BroadcastError::Arity {
                op: self.op.name(),
                expected: "the prepared operand count",
                got: inputs.len(),
            });
        }
        for (i, (v, (&d, s))) in inputs
            .iter()
            .zip(self.dtypes.iter().zip(&self.shapes))
            .enumerate()
        {
            if v.dtype() != d {
                return Err(BroadcastError::DTypeMismatch {
                    op: self.op.name(),
                    left: d.name(),
                    right: v.dtype().name(),
                });
            }
            if !same(v.shape(), s) {
                return Err(BroadcastError::PreparedShape {
                    op: self.op.name(),
                    operand: i,
                    expected: Dims(s.clone()),
                    actual: Dims(v.shape().to_vec()),
                });
            }
        }
        Ok(self.planned.as_deref().filter(|p| {
            same(inputs[0].strides(), &p.strides[0]) && same(inputs[1].strides(), &p.strides[1])
        }))
    }

    /// Runs the op on row-major buffers given by their addresses, for bindings that hold
    /// their callers' memory as pointers (the C library): no views are built when the op has
    /// a kernel record.
    ///
    /// # Errors
    /// [`BroadcastError::Arity`] for another number of inputs than prepared; as
    /// [`PreparedOp::run`] otherwise.
    ///
    /// # Safety
    /// `inputs[i]` is the address of operand `i`: row-major, of the prepared element type and
    /// shape (its elements initialised; a `bool` byte 0 or 1), non-null and aligned even when
    /// it has no elements, and not written during the call. `out` is the address of a
    /// row-major output of the output's element type and shape, non-null and aligned,
    /// writable, overlapping no input, and not otherwise accessed during the call.
    pub unsafe fn run_row_major(
        &self,
        inputs: &[*const u8],
        out: *mut u8,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        if inputs.len() != self.dtypes.len() {
            return Err(BroadcastError::Arity {
                op: self.op.name(),
                expected: "the prepared operand count",
                got: inputs.len(),
            });
        }
        if let (Some(p), [a, b]) = (self.planned.as_deref(), inputs) {
            if let Some(direct) = p.direct.as_deref().filter(|d| d.serves(par)) {
                // SAFETY: the caller's contract: the buffers are row-major of the prepared
                // shapes, the layout the plan was built for.
                return unsafe { direct.run(&p.plan, *a, *b, out, par) };
            }
        }
        let mut views: Vec<TensorView<'_>> = crate::exec::reserve(inputs.len(), &[], false)?;
        for ((&ptr, &dtype), shape) in inputs.iter().zip(&self.dtypes).zip(&self.shapes) {
            // SAFETY: the caller's contract on each input.
            views.push(unsafe { view_at(dtype, ptr, shape) });
        }
        // SAFETY: the caller's contract on `out`.
        let out = unsafe { view_mut_at(self.out_dtype, out, &self.out_shape) };
        self.run(&views, out, par)
    }

    /// Refuses an output of another element type or shape than the op's.
    fn check_out(&self, out: &TensorViewMut<'_>) -> Result<(), BroadcastError> {
        if out.dtype() != self.out_dtype {
            return Err(BroadcastError::DTypeMismatch {
                op: self.op.name(),
                left: self.out_dtype.name(),
                right: out.dtype().name(),
            });
        }
        if !same(out.shape(), &self.out_shape) {
            return Err(BroadcastError::OutputShape {
                expected: Dims(self.out_shape.clone()),
                actual: Dims(out.shape().to_vec()),
            });
        }
        Ok(())
    }
}

/// Runs `op` on row-major buffers given by their addresses, unprepared: the path of a
/// binding's one-shot call (the C library's `bcast_binary`). A two-operand op of one
/// element type that refuses no operand goes from the rule's check and the plan straight to
/// the op's kernel record (kept once per op and type for the process, as a prepared op keeps
/// its own), with no views built; any other op, or a rank above 8, runs as
/// [`crate::eltwise_view_into`] on views of the buffers.
///
/// `out_shape` is the op's output shape for these operands ([`crate::eltwise_output_shape`]);
/// another is refused ([`BroadcastError::OutputShape`]).
///
/// # Errors
/// As [`crate::eltwise_view_into`].
///
/// # Safety
/// Each input's address is non-null and aligned even when it has no elements, and holds its
/// shape's elements of its element type, row-major and initialised (a `bool` byte 0 or 1),
/// not written during the call. `out` is the address of a row-major output of the op's
/// output type and `out_shape`, non-null and aligned, writable, overlapping no input, and
/// not otherwise accessed during the call.
pub unsafe fn eltwise_row_major(
    op: EltwiseOp,
    inputs: &[(DType, *const u8, &[usize])],
    spec: &AutoBroadcast,
    out: *mut u8,
    out_shape: &[usize],
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    if let [(da, a, sa), (db, b, sb)] = *inputs {
        if let Some(record) = (da == db && sa.len() <= 8 && sb.len() <= 8)
            .then(|| kept_record(op, da))
            .flatten()
            .filter(|r| r.serves(par))
        {
            let rule = resolve(op, spec, &[sa, sb])?;
            if !rule.channel {
                let (mut ra, mut rb) = ([0isize; 8], [0isize; 8]);
                let (ra, rb) = (
                    row_major_strides_into(sa, &mut ra),
                    row_major_strides_into(sb, &mut rb),
                );
                let mut plan = EltwisePlan::<2>::empty();
                plan.build([sa, sb], [ra, rb], 0, &rule.spec, true)?;
                if plan.out_shape() != out_shape {
                    return Err(BroadcastError::OutputShape {
                        expected: Dims(plan.out_shape().to_vec()),
                        actual: Dims(out_shape.to_vec()),
                    });
                }
                // SAFETY: the caller's contract: the buffers are row-major of their shapes,
                // the layout the plan was built for, of the record's types (one operand
                // type, the op's output type), and `out` holds the plan's output.
                return unsafe { record.run(&plan, a, b, out, par) };
            }
        }
    }
    let mut views: Vec<TensorView<'_>> = crate::exec::reserve(inputs.len(), &[], false)?;
    for &(dtype, ptr, shape) in inputs {
        // SAFETY: the caller's contract on each input.
        views.push(unsafe { view_at(dtype, ptr, shape) });
    }
    let dtypes: Vec<DType> = inputs.iter().map(|&(d, _, _)| d).collect();
    let out_dtype = output_dtype(op, &dtypes)?;
    // SAFETY: the caller's contract on `out`.
    let out = unsafe { view_mut_at(out_dtype, out, out_shape) };
    crate::eltwise_view_into(op, &views, spec, out, par)
}

/// The kernel record of `op` on operands of `dtype` ([`direct_binary`]), made at the first
/// call that asks for it and kept for the process: an op whose every attribute its C code
/// names (so the code is a key), of a type that has a record.
fn kept_record(op: EltwiseOp, dtype: DType) -> Option<&'static dyn DirectRun> {
    use std::sync::OnceLock;
    type Slot = OnceLock<Option<Box<dyn DirectRun>>>;
    const CODES: usize = 64;
    static RECORDS: OnceLock<Vec<Slot>> = OnceLock::new();
    let code = usize::try_from(op.c_code()).ok().filter(|&c| c < CODES)?;
    if EltwiseOp::from_c_code(op.c_code()) != Some(op) {
        return None;
    }
    let d = DType::ALL.iter().position(|&t| t == dtype)?;
    let records =
        RECORDS.get_or_init(|| (0..CODES * DType::ALL.len()).map(|_| Slot::new()).collect());
    records[code * DType::ALL.len() + d]
        .get_or_init(|| direct_binary(op, dtype))
        .as_deref()
}

/// Row-major strides of `shape` (at most 8 axes) in `room`, as [`row_major_strides`].
fn row_major_strides_into<'r>(shape: &[usize], room: &'r mut [isize; 8]) -> &'r [isize] {
    let strides = &mut room[..shape.len()];
    fill_row_major_strides(shape, strides);
    strides
}

/// A row-major view of `shape` of `dtype` at `ptr`.
///
/// # Safety
/// As [`PreparedOp::run_row_major`]'s inputs.
unsafe fn view_at<'a>(dtype: DType, ptr: *const u8, shape: &[usize]) -> TensorView<'a> {
    dtype_dispatch!(dtype, T => {
        // SAFETY: the caller's contract: `ptr` is non-null, aligned and holds the shape's
        // elements, row-major.
        TensorView::from(unsafe { ArrayViewD::<T>::from_shape_ptr(IxDyn(shape), ptr.cast::<T>()) })
    })
}

/// A row-major writable view of `shape` of `dtype` at `ptr`.
///
/// # Safety
/// As [`PreparedOp::run_row_major`]'s output.
unsafe fn view_mut_at<'a>(dtype: DType, ptr: *mut u8, shape: &[usize]) -> TensorViewMut<'a> {
    dtype_dispatch!(dtype, T => {
        // SAFETY: the caller's contract: `ptr` is non-null, aligned, holds the shape's
        // elements, row-major, and nothing else accesses them during the call.
        TensorViewMut::from(unsafe {
            ArrayViewMutD::<T>::from_shape_ptr(IxDyn(shape), ptr.cast::<T>())
        })
    })
}

/// The output's element type of `op` on operands of `dtypes` (Select: `then`'s).
fn output_dtype(op: EltwiseOp, dtypes: &[DType]) -> Result<DType, BroadcastError> {
    match op.shape() {
        Shape::Select => {
            if dtypes[0] != DType::Bool {
                return Err(BroadcastError::UnsupportedType {
                    op: op.name(),
                    dtype: dtypes[0].name(),
                });
            }
            if dtypes[1] != dtypes[2] {
                return Err(BroadcastError::DTypeMismatch {
                    op: op.name(),
                    left: dtypes[1].name(),
                    right: dtypes[2].name(),
                });
            }
            Ok(dtypes[1])
        }
        Shape::Mixed => op.output_dtype(dtypes[0]),
        _ => {
            if let Some(&other) = dtypes.iter().find(|&&d| d != dtypes[0]) {
                return Err(BroadcastError::DTypeMismatch {
                    op: op.name(),
                    left: dtypes[0].name(),
                    right: other.name(),
                });
            }
            op.output_dtype(dtypes[0])
        }
    }
}
