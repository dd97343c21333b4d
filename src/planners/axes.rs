use crate::error::{BroadcastError, Dims};
use crate::mode::Rule;
use crate::plan::{AxisList, StridePlan};
use crate::planners::{by_value, dims};

by_value! {
    /// nGraph v0 broadcast with `broadcast_axes`.
    ///
    /// **Rule.** `broadcast_axes` lists the output axes that are new (the complement of explicit
    /// mode's `axes_mapping`). The axes are unique (in any order: nGraph's `AxisSet` is a set) and
    /// `< rank(target)`. The target with those axes removed must equal the data shape exactly: no
    /// 1 -> N stretching. The output shape is the target shape.
    ///
    /// # Errors
    /// [`BroadcastError::DuplicateAxis`], [`BroadcastError::AxisOutOfRange`],
    /// [`BroadcastError::AxesShapeMismatch`], [`BroadcastError::ShapeOverflow`].
    ///
    /// ```
    /// // nGraph's examples: [a,b,c] to Shape{2,3} with AxisSet{0}, to Shape{3,2} with AxisSet{1}.
    /// assert_eq!(bcast::planners::plan_axes(&[3], &[2, 3], &[0]).unwrap().axis_strides(), &[0, 1]);
    /// assert_eq!(bcast::planners::plan_axes(&[3], &[3, 2], &[1]).unwrap().axis_strides(), &[1, 0]);
    /// ```
    pub fn plan_axes(data_shape: &[usize], target_shape: &[usize], broadcast_axes: &[usize]) => plan_axes_into;
}

/// [`plan_axes`] into `plan`, in place (see [`StridePlan::empty`]).
pub(crate) fn plan_axes_into(
    data_shape: &[usize],
    target_shape: &[usize],
    broadcast_axes: &[usize],
    plan: &mut StridePlan,
) -> Result<(), BroadcastError> {
    let mut is_new = AxisList::new();
    is_new.extend_repeated(false, target_shape.len());
    for (position, &axis) in broadcast_axes.iter().enumerate() {
        if axis >= target_shape.len() {
            return Err(BroadcastError::AxisOutOfRange {
                mode: Rule::Axes,
                axes: broadcast_axes.to_vec(),
                position,
                axis,
                rank: target_shape.len(),
                target_shape: dims(target_shape),
            });
        }
        if std::mem::replace(&mut is_new[axis], true) {
            return Err(BroadcastError::DuplicateAxis {
                mode: Rule::Axes,
                axes: broadcast_axes.to_vec(),
                axis,
            });
        }
    }
    let remaining = || {
        target_shape
            .iter()
            .zip(is_new.iter())
            .filter(|(_, &new)| !new)
            .map(|(&t, _)| t)
    };
    if !remaining().eq(data_shape.iter().copied()) {
        return Err(BroadcastError::AxesShapeMismatch {
            axes: broadcast_axes.to_vec(),
            remaining: Dims(remaining().collect()),
            data_shape: dims(data_shape),
            target_shape: dims(target_shape),
        });
    }
    // One data axis per kept target axis, in order: `remaining == data_shape` above.
    let mut next_data_axis = 0..data_shape.len();
    let source_axes = plan.start_source_axes(target_shape.len());
    for (axis, &new) in source_axes.iter_mut().zip(is_new.iter()) {
        if !new {
            *axis = next_data_axis.next();
        }
    }
    plan.finish_from_source_axes(data_shape, target_shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ngraph_examples() {
        assert_eq!(
            plan_axes(&[3], &[2, 3], &[0]).unwrap().output_shape(),
            &[2, 3]
        );
        assert_eq!(
            plan_axes(&[3], &[3, 2], &[1]).unwrap().output_shape(),
            &[3, 2]
        );
    }

    #[test]
    fn axes_may_come_in_any_order() {
        assert!(plan_axes(&[4], &[2, 3, 4], &[1, 0]).is_ok());
    }

    #[test]
    fn no_stretching_of_ones() {
        assert!(matches!(
            plan_axes(&[1], &[2, 3], &[0]),
            Err(BroadcastError::AxesShapeMismatch { .. })
        ));
    }

    #[test]
    fn duplicates_and_out_of_range_are_refused() {
        assert!(matches!(
            plan_axes(&[3], &[2, 2, 3], &[0, 0]),
            Err(BroadcastError::DuplicateAxis { axis: 0, .. })
        ));
        assert!(matches!(
            plan_axes(&[3], &[2, 3], &[2]),
            Err(BroadcastError::AxisOutOfRange { axis: 2, .. })
        ));
    }

    #[test]
    fn message_names_what_is_left_of_the_target() {
        let e = plan_axes(&[3], &[2, 4], &[0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "axes broadcast: target shape [2,4] without broadcast_axes [0] is [4], which is not the data shape [3]"
        );
    }

    #[test]
    fn zero_size_new_axis_is_fine() {
        assert!(plan_axes(&[3], &[0, 3], &[0]).unwrap().is_empty());
    }
}
