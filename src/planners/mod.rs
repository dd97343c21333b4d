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
pub(crate) use multi::common_shape;
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
    let mut plan = StridePlan::empty();
    plan_into(data_shape, target_shape, mode, &mut plan)?;
    Ok(plan)
}

/// [`plan`] into `plan`, in place: no copy of the plan on the way out, which matters for
/// broadcasts of a few dozen elements (see [`StridePlan::empty`]).
pub(crate) fn plan_into(
    data_shape: &[usize],
    target_shape: &[usize],
    mode: &Mode,
    plan: &mut StridePlan,
) -> Result<(), BroadcastError> {
    match mode {
        Mode::Numpy => numpy::plan_numpy_into(data_shape, target_shape, plan),
        Mode::Bidirectional => {
            bidirectional::plan_bidirectional_into(data_shape, target_shape, plan)
        }
        Mode::Explicit { axes_mapping } => {
            explicit::plan_explicit_into(data_shape, target_shape, axes_mapping, plan)
        }
        Mode::Pdpd { axis } => pdpd::plan_pdpd_into(data_shape, target_shape, *axis, plan),
        Mode::Axes { broadcast_axes } => {
            axes::plan_axes_into(data_shape, target_shape, broadcast_axes, plan)
        }
    }
}

pub(crate) fn dims(shape: &[usize]) -> Dims {
    Dims(shape.to_vec())
}
