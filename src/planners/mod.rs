//! One planner per mode. Each file states its mode's rule once, checks it, and returns the
//! common [`StridePlan`]; nothing else in the crate knows a mode's rule.

mod axes;
mod bidirectional;
mod explicit;
mod multi;
mod numpy;
mod pdpd;

pub use axes::plan_axes;
pub use bidirectional::plan_bidirectional;
pub use explicit::plan_explicit;
pub use multi::{broadcast_shapes, plan_multi};
pub use numpy::plan_numpy;
pub use pdpd::plan_pdpd;

use crate::error::{BroadcastError, Dims};
use crate::mode::Mode;
use crate::plan::StridePlan;

/// Plans `data_shape` broadcast to `target_shape` under `mode`.
///
/// # Errors
/// Whatever rule of `mode` the shapes break, as a [`BroadcastError`] naming it.
pub fn plan(
    data_shape: &[usize],
    target_shape: &[usize],
    mode: &Mode,
) -> Result<StridePlan, BroadcastError> {
    match mode {
        Mode::Numpy => plan_numpy(data_shape, target_shape),
        Mode::Bidirectional => plan_bidirectional(data_shape, target_shape),
        Mode::Explicit { axes_mapping } => plan_explicit(data_shape, target_shape, axes_mapping),
        Mode::Pdpd { axis } => plan_pdpd(data_shape, target_shape, *axis),
        Mode::Axes { broadcast_axes } => plan_axes(data_shape, target_shape, broadcast_axes),
    }
}

pub(crate) fn dims(shape: &[usize]) -> Dims {
    Dims(shape.to_vec())
}
