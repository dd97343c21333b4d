//! Zero-copy broadcasts: the data's own memory seen through the plan's strides.
//!
//! A view costs no allocation and no copy: every output axis the data is repeated along gets
//! stride 0, every other axis the stride the data already has on the axis it reads. So an
//! element-wise consumer (`ndarray::Zip`, an iterator) can read a broadcast operand as if it
//! were materialised. Views are read-only: a mutable view with zero strides would alias.

use ndarray::{ArrayViewD, Axis, IxDyn, ShapeBuilder};

use crate::error::{BroadcastError, Dims};
use crate::mode::Mode;
use crate::plan::StridePlan;
use crate::planners::{self, plan_multi};

/// `data` seen as if broadcast to `target_shape` under `mode`, without copying.
///
/// Element for element equal to [`crate::broadcast`] of the same arguments, for any layout of
/// `data` (row-major, transposed, sliced with steps, reversed). Works for any element type.
///
/// # Errors
/// The [`BroadcastError`] naming the rule the shapes break.
///
/// # Examples
/// ```
/// use bcast::{broadcast_view, Mode};
/// use ndarray::{array, IxDyn};
///
/// // A [3] bias on the channel axis of NCHW, explicitly placed: no copy.
/// let bias = array![1.0f32, 2.0, 3.0].into_dyn();
/// let seen = broadcast_view(bias.view(), &[2, 3, 4, 4], &Mode::Explicit { axes_mapping: vec![1] })?;
/// assert_eq!(seen.shape(), &[2, 3, 4, 4]);
/// assert_eq!(seen.strides(), &[0, 1, 0, 0]);
/// assert_eq!(seen[IxDyn(&[1, 2, 3, 0])], 3.0);
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn broadcast_view<'a, T>(
    data: ArrayViewD<'a, T>,
    target_shape: &[usize],
    mode: &Mode,
) -> Result<ArrayViewD<'a, T>, BroadcastError> {
    let plan = planners::plan(data.shape(), target_shape, mode)?;
    view_plan(&plan, data)
}

/// Every input seen as if broadcast to the common shape of all of them (N-ary, numpy rule),
/// without copying: hand the views to `ndarray::Zip` to run an element-wise op over inputs
/// of different shapes.
///
/// For inputs of different element types, plan with [`crate::planners::plan_multi`] on their
/// shapes and view each with [`view_plan`].
///
/// # Errors
/// As [`crate::broadcast_shapes`].
///
/// # Examples
/// ```
/// use bcast::broadcast_views;
/// use ndarray::{array, ArrayD, IxDyn, Zip};
///
/// let col = array![[1i32], [2]].into_dyn();
/// let row = array![10i32, 20, 30].into_dyn();
/// let views = broadcast_views(&[col.view(), row.view()])?;
/// let mut sum = ArrayD::<i32>::zeros(IxDyn(views[0].shape()));
/// Zip::from(&mut sum).and(&views[0]).and(&views[1]).for_each(|s, &a, &b| *s = a + b);
/// assert_eq!(sum, array![[11, 21, 31], [12, 22, 32]].into_dyn());
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn broadcast_views<'a, T>(
    inputs: &[ArrayViewD<'a, T>],
) -> Result<Vec<ArrayViewD<'a, T>>, BroadcastError> {
    let shapes: Vec<&[usize]> = inputs.iter().map(|a| a.shape()).collect();
    let plans = plan_multi(&shapes)?;
    plans
        .iter()
        .zip(inputs)
        .map(|(plan, input)| view_plan(plan, input.clone()))
        .collect()
}

/// `data` seen through an existing plan, without copying.
///
/// # Errors
/// [`BroadcastError::SourceShape`] if `data`'s shape is not the plan's source shape.
///
/// ```
/// use ndarray::array;
/// let plan = bcast::planners::plan_numpy(&[2, 1], &[2, 3])?;
/// let col = array![[1u8], [2]].into_dyn();
/// let seen = bcast::view_plan(&plan, col.view())?;
/// assert_eq!(seen, array![[1u8, 1, 1], [2, 2, 2]].into_dyn());
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn view_plan<'a, T>(
    plan: &StridePlan,
    data: ArrayViewD<'a, T>,
) -> Result<ArrayViewD<'a, T>, BroadcastError> {
    if data.shape() != plan.source_shape() {
        return Err(BroadcastError::SourceShape {
            expected: Dims(plan.source_shape().to_vec()),
            actual: Dims(data.shape().to_vec()),
        });
    }
    // ndarray builds views from non-negative strides only: read reversed data axes forwards
    // here and reverse the output axes they land on at the end.
    let mut data = data;
    let mut reversed = vec![false; data.ndim()];
    for (i, r) in reversed.iter_mut().enumerate() {
        if data.strides()[i] < 0 {
            data.invert_axis(Axis(i));
            *r = true;
        }
    }
    let data_strides = data.strides();
    let strides: Vec<usize> = plan
        .source_axes()
        .iter()
        .map(|axis| match *axis {
            // Non-negative after the inversions above.
            Some(i) => data_strides[i].unsigned_abs(),
            None => 0,
        })
        .collect();
    let shape = IxDyn(plan.output_shape()).strides(IxDyn(&strides));
    // SAFETY: every pointer the new view can form is one `data` can form. An output index
    // moves the pointer by `index * stride` on each output axis; on an axis reading source
    // axis `i` that is `data`'s own move along `i` (same length: the plan maps only axes of
    // equal size, same stride), on any other axis it is no move at all (stride 0). The
    // source axes the plan reads are distinct, and a source axis it does not read has size
    // 1, where `data` only ever uses index 0. So offsets stay in `data`'s allocation (or
    // move a dangling pointer of an empty `data` exactly as `data` may), the elements live
    // for `'a` and are only read (`data` is a shared view and zero strides are allowed in
    // read-only views), strides are non-negative, and the element count is the plan's,
    // which `StridePlan` checked against `isize::MAX`.
    let mut view = unsafe { ArrayViewD::from_shape_ptr(shape, data.as_ptr()) };
    for (k, axis) in plan.source_axes().iter().enumerate() {
        if matches!(axis, Some(i) if reversed[*i]) {
            view.invert_axis(Axis(k));
        }
    }
    Ok(view)
}
