//! Getting an input into the row-major form an executor reads, without copying where the
//! layout allows and without aborting where it does not.
//!
//! - A row-major view is borrowed.
//! - Axes of stride 0 (a view made by `ndarray`'s `broadcast`, or any repeated view) hold one
//!   value along their length: for a broadcast, such an axis is planned as a size-1 source
//!   axis the plan stretches, and only the rest of the view is read (a `[2^20, 2^20]` view of
//!   one value is a one-element source, not four TiB of copy).
//! - Anything else is copied into a new row-major buffer, allocated with `try_reserve_exact`:
//!   a copy that does not fit is [`BroadcastError::Allocation`], never an abort.

use std::borrow::Cow;

use ndarray::{ArrayViewD, Axis, Slice};

use crate::error::{BroadcastError, Dims};
use crate::plan::StridePlan;

/// `Ok` when `actual` is `expected`, else the error `mismatch(expected, actual)` builds (a
/// source shape or an output/gradient shape, by the caller's choice).
#[inline]
pub(crate) fn check_shape(
    expected: &[usize],
    actual: &[usize],
    mismatch: fn(Dims, Dims) -> BroadcastError,
) -> Result<(), BroadcastError> {
    // Compared element by element: a `memcmp` call for two or three dims costs more.
    if actual.iter().eq(expected) {
        Ok(())
    } else {
        Err(mismatch(Dims(expected.to_vec()), Dims(actual.to_vec())))
    }
}

/// `view`'s elements in row-major order: borrowed when the view already is row-major,
/// otherwise copied into a buffer allocated fallibly.
///
/// # Errors
/// [`BroadcastError::Allocation`] if the copy cannot be allocated.
pub(crate) fn row_major<'a, T: Clone>(
    view: &ArrayViewD<'a, T>,
) -> Result<Cow<'a, [T]>, BroadcastError> {
    if let Some(s) = view.to_slice() {
        return Ok(Cow::Borrowed(s));
    }
    let mut out = super::reserve(view.len(), view.shape(), false)?;
    out.extend(view.iter().cloned());
    Ok(Cow::Owned(out))
}

/// The plan and the source to run it on for `data`, whose shape is `plan`'s source shape.
///
/// A row-major `data` is borrowed with `plan` as it is (the fast path: no allocation). A view
/// with axes of stride 0 gets a plan in which those axes are size-1 source axes that are
/// stretched, and only its first position along each is read, so it is never expanded.
///
/// # Errors
/// [`BroadcastError::Allocation`] if a copy of a strided view cannot be allocated.
pub(crate) fn broadcast_source<'p, 'a, T: Clone>(
    plan: &'p StridePlan,
    data: &ArrayViewD<'a, T>,
) -> Result<(Cow<'p, StridePlan>, Cow<'a, [T]>), BroadcastError> {
    if let Some(s) = data.to_slice() {
        return Ok((Cow::Borrowed(plan), Cow::Borrowed(s)));
    }
    let repeated = |k: usize| data.strides()[k] == 0 && data.shape()[k] > 1;
    if !(0..data.ndim()).any(repeated) {
        return Ok((Cow::Borrowed(plan), row_major(data)?));
    }
    let mut view = data.clone();
    for k in (0..data.ndim()).filter(|&k| repeated(k)) {
        view.slice_axis_inplace(Axis(k), Slice::from(0..1));
    }
    let mut collapsed = StridePlan::empty();
    let axes = collapsed.start_source_axes(plan.output_shape().len());
    for (to, &from) in axes.iter_mut().zip(plan.source_axes()) {
        *to = from.filter(|&i| !repeated(i));
    }
    collapsed.finish_from_source_axes(view.shape(), plan.output_shape())?;
    let src = row_major(&view)?;
    Ok((Cow::Owned(collapsed), src))
}
