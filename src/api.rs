//! The ndarray face of the library: plan, then run the one executor.

use std::borrow::Cow;

use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, IxDyn};

use crate::element::Element;
use crate::error::BroadcastError;
use crate::exec::{self, Parallelism};
use crate::mode::Mode;
use crate::plan::StridePlan;
use crate::planners::{self, plan_multi};

/// The shape `data_shape` takes when broadcast to `target_shape` under `mode`.
///
/// # Errors
/// The [`BroadcastError`] naming the rule the shapes break.
///
/// ```
/// use bcast::{output_shape, Mode};
/// assert_eq!(output_shape(&[3, 1], &[2, 1, 6], &Mode::Bidirectional)?, vec![2, 3, 6]);
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn output_shape(
    data_shape: &[usize],
    target_shape: &[usize],
    mode: &Mode,
) -> Result<Vec<usize>, BroadcastError> {
    Ok(planners::plan(data_shape, target_shape, mode)?
        .output_shape()
        .to_vec())
}

/// Broadcasts `data` to `target_shape` under `mode` into a new array.
///
/// The input may have any layout (a transposed or sliced view is read in logical order);
/// the output is row-major. Uses rayon when the output is large (see [`broadcast_with`] to
/// choose).
///
/// # Errors
/// The [`BroadcastError`] naming the rule the shapes break, or
/// [`BroadcastError::Allocation`] if the output cannot be allocated.
///
/// # Examples
/// ```
/// use bcast::{broadcast, Mode};
/// use ndarray::{array, IxDyn};
///
/// let bias = array![1.0f32, 2.0, 3.0].into_dyn();
/// let out = broadcast(bias.view(), &[2, 3], &Mode::Numpy)?;
/// assert_eq!(out, array![[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]].into_dyn());
///
/// // The same bias on the channel axis of NCHW, explicitly placed.
/// let nchw = broadcast(bias.view(), &[1, 3, 2, 2], &Mode::Explicit { axes_mapping: vec![1] })?;
/// assert_eq!(nchw[IxDyn(&[0, 2, 1, 1])], 3.0);
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn broadcast<T: Element>(
    data: ArrayViewD<'_, T>,
    target_shape: &[usize],
    mode: &Mode,
) -> Result<ArrayD<T>, BroadcastError> {
    broadcast_with(data, target_shape, mode, Parallelism::Auto)
}

/// [`broadcast`] with a choice of threads.
///
/// # Errors
/// As [`broadcast`].
pub fn broadcast_with<T: Element>(
    data: ArrayViewD<'_, T>,
    target_shape: &[usize],
    mode: &Mode,
    par: Parallelism<'_>,
) -> Result<ArrayD<T>, BroadcastError> {
    let mut plan = StridePlan::empty();
    planners::plan_into(data.shape(), target_shape, mode, &mut plan)?;
    run_plan(&plan, data, par)
}

/// Broadcasts `data` under `mode` into the caller's array `out`, whose shape must be the
/// broadcast's output shape. A row-major `out` is written in place with no allocation;
/// any other layout is written through a temporary.
///
/// # Errors
/// The [`BroadcastError`] naming the rule the shapes break, or
/// [`BroadcastError::OutputShape`] if `out` has another shape.
///
/// ```
/// use bcast::{broadcast_into, Mode};
/// use ndarray::{array, ArrayD, IxDyn};
///
/// let col = array![[1u8], [2], [3]].into_dyn();
/// let mut out = ArrayD::<u8>::zeros(IxDyn(&[3, 4]));
/// broadcast_into(col.view(), &[3, 4], &Mode::Numpy, out.view_mut())?;
/// assert_eq!(out[IxDyn(&[1, 3])], 2);
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn broadcast_into<T: Element>(
    data: ArrayViewD<'_, T>,
    target_shape: &[usize],
    mode: &Mode,
    out: ArrayViewMutD<'_, T>,
) -> Result<(), BroadcastError> {
    broadcast_into_with(data, target_shape, mode, out, Parallelism::Auto)
}

/// [`broadcast_into`] with a choice of threads.
///
/// # Errors
/// As [`broadcast_into`].
pub fn broadcast_into_with<T: Element>(
    data: ArrayViewD<'_, T>,
    target_shape: &[usize],
    mode: &Mode,
    mut out: ArrayViewMutD<'_, T>,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    // Planned in place and run without `run_plan_into`'s source check (the plan was made
    // from `data`'s shape): for a broadcast of a few dozen elements, planning is most of
    // the call.
    let mut plan = StridePlan::empty();
    planners::plan_into(data.shape(), target_shape, mode, &mut plan)?;
    write_into(&plan, &data, &mut out, par)
}

/// Broadcasts every input to the common shape of all of them (SONNX
/// `Z0..ZL = Broadcast(X0..XL)`, ONNX multidirectional broadcasting).
///
/// # Errors
/// [`BroadcastError::NoInputs`] for an empty slice, [`BroadcastError::Incompatible`] when two
/// shapes clash, [`BroadcastError::Allocation`].
///
/// ```
/// use bcast::broadcast_all;
/// use ndarray::array;
///
/// let a = array![[1i64], [2]].into_dyn();
/// let b = array![10i64, 20, 30].into_dyn();
/// let out = broadcast_all(&[a.view(), b.view()])?;
/// assert_eq!(out[0].shape(), &[2, 3]);
/// assert_eq!(out[1], array![[10, 20, 30], [10, 20, 30]].into_dyn());
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn broadcast_all<T: Element>(
    inputs: &[ArrayViewD<'_, T>],
) -> Result<Vec<ArrayD<T>>, BroadcastError> {
    let shapes: Vec<&[usize]> = inputs.iter().map(|a| a.shape()).collect();
    let plans = plan_multi(&shapes)?;
    plans
        .iter()
        .zip(inputs)
        .map(|(plan, input)| run_plan(plan, input.view(), Parallelism::Auto))
        .collect()
}

/// Runs an existing plan over `data` into a new array.
///
/// # Errors
/// [`BroadcastError::SourceShape`] if `data`'s shape is not the plan's source shape; [`BroadcastError::Allocation`].
pub fn run_plan<T: Element>(
    plan: &StridePlan,
    data: ArrayViewD<'_, T>,
    par: Parallelism<'_>,
) -> Result<ArrayD<T>, BroadcastError> {
    check_source(plan, &data)?;
    let (plan, src) = &contiguous(plan, &data)?;
    let values = T::run_plan(plan, src, par)?;
    Ok(ArrayD::from_shape_vec(IxDyn(plan.output_shape()), values)
        .expect("the plan's length is the product of its output shape"))
}

/// Runs an existing plan over `data` into `out`.
///
/// # Errors
/// [`BroadcastError::SourceShape`] or [`BroadcastError::OutputShape`] if `data` or `out`
/// does not have the plan's shape.
pub fn run_plan_into<T: Element>(
    plan: &StridePlan,
    data: ArrayViewD<'_, T>,
    mut out: ArrayViewMutD<'_, T>,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    check_source(plan, &data)?;
    write_into(plan, &data, &mut out, par)
}

/// [`run_plan_into`] for a `data` whose shape is the plan's source shape.
// The views by reference: each is about a hundred bytes, freshly written by the caller, and
// moving it once more cost several nanoseconds of a tiny broadcast.
fn write_into<T: Element>(
    plan: &StridePlan,
    data: &ArrayViewD<'_, T>,
    out: &mut ArrayViewMutD<'_, T>,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    debug_assert_eq!(data.shape(), plan.source_shape());
    exec::check_shape(plan.output_shape(), out.shape(), |expected, actual| {
        BroadcastError::OutputShape { expected, actual }
    })?;
    let (plan, src) = &contiguous(plan, data)?;
    match out.as_slice_mut() {
        Some(dst) => T::run_plan_into(plan, src, dst, par),
        None => {
            let values = T::run_plan(plan, src, par)?;
            let tmp = ArrayViewD::from_shape(IxDyn(plan.output_shape()), &values)
                .expect("the plan's length is the product of its output shape");
            out.assign(&tmp);
            Ok(())
        }
    }
}

fn check_source<T>(plan: &StridePlan, data: &ArrayViewD<'_, T>) -> Result<(), BroadcastError> {
    exec::check_shape(plan.source_shape(), data.shape(), |expected, actual| {
        BroadcastError::SourceShape { expected, actual }
    })
}

/// The plan to run and the data in the row-major order it reads: both borrowed when `data`
/// is row-major; axes of stride 0 read as size-1 axes the plan stretches (never expanded);
/// any other layout copied, fallibly (see `exec::broadcast_source`).
fn contiguous<'p, 'a, T: Clone>(
    plan: &'p StridePlan,
    data: &ArrayViewD<'a, T>,
) -> Result<(Cow<'p, StridePlan>, Cow<'a, [T]>), BroadcastError> {
    exec::broadcast_source(plan, data)
}
