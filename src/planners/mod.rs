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
use crate::mode::{Mode, Rule};
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

/// The per-axis rule every one-directional mode shares (numpy, explicit, PDPD), applied to
/// data axes `0..count`, data axis `i` placed on output axis `output_axis(i)`: read along
/// that axis when its dim equals the target's, stretched (stride 0, the plan's default) when
/// it is 1, and breaking `rule` otherwise. Data axes from `count` on (PDPD's dropped trailing
/// 1s) are read nowhere. Fills `plan` in place.
pub(crate) fn place_axes(
    plan: &mut StridePlan,
    rule: Rule,
    data_shape: &[usize],
    target_shape: &[usize],
    count: usize,
    output_axis: impl Fn(usize) -> usize,
) -> Result<(), BroadcastError> {
    let source_axes = plan.start_source_axes(target_shape.len());
    for data_axis in 0..count {
        let axis = output_axis(data_axis);
        let (d, t) = (data_shape[data_axis], target_shape[axis]);
        if d == t {
            source_axes[axis] = Some(data_axis);
        } else if d != 1 {
            return Err(BroadcastError::DimMismatch {
                mode: rule,
                axis: data_axis,
                data_dim: d,
                target_dim: t,
                data_shape: dims(data_shape),
                target_shape: dims(target_shape),
            });
        }
    }
    plan.finish_from_source_axes(data_shape, target_shape)
}

/// A planner's public by-value form, generated from its in-place form (`*_into`, which
/// fills a [`StridePlan`] without copying it out): the doc comment, which states the mode's
/// rule, goes on the public function.
macro_rules! by_value {
    ($(#[$doc:meta])* pub fn $name:ident($($arg:ident: $ty:ty),*) => $into:ident;) => {
        $(#[$doc])*
        pub fn $name($($arg: $ty),*) -> Result<StridePlan, BroadcastError> {
            let mut plan = StridePlan::empty();
            $into($($arg,)* &mut plan)?;
            Ok(plan)
        }
    };
}
pub(crate) use by_value;
