use crate::error::BroadcastError;
use crate::mode::Rule;
use crate::plan::StridePlan;
use crate::planners::{by_value, dims, place_axes};

by_value! {
    /// Numpy (one-directional) broadcast: OpenVINO `numpy` mode.
    ///
    /// **Rule.** Shapes are right-aligned; `rank(data) <= rank(target)`; every aligned data
    /// dimension equals its target dimension or is 1 (then it is repeated, including to 0); the
    /// output shape is the target shape. Only the data stretches: a target dimension of 1 never
    /// takes a larger data dimension.
    ///
    /// # Errors
    /// [`BroadcastError::TargetRankTooSmall`], [`BroadcastError::DimMismatch`],
    /// [`BroadcastError::ShapeOverflow`].
    ///
    /// ```
    /// let plan = bcast::planners::plan_numpy(&[16, 1, 1], &[1, 16, 50, 50]).unwrap();
    /// assert_eq!(plan.output_shape(), &[1, 16, 50, 50]);
    /// assert_eq!(plan.axis_strides(), &[0, 1, 0, 0]);
    /// ```
    pub fn plan_numpy(data_shape: &[usize], target_shape: &[usize]) => plan_numpy_into;
}

/// [`plan_numpy`] into `plan`, in place (see [`StridePlan::empty`]).
pub(crate) fn plan_numpy_into(
    data_shape: &[usize],
    target_shape: &[usize],
    plan: &mut StridePlan,
) -> Result<(), BroadcastError> {
    if data_shape.len() > target_shape.len() {
        return Err(BroadcastError::TargetRankTooSmall {
            mode: Rule::Numpy,
            data_rank: data_shape.len(),
            target_rank: target_shape.len(),
            data_shape: dims(data_shape),
            target_shape: dims(target_shape),
        });
    }
    let offset = target_shape.len() - data_shape.len();
    place_axes(
        plan,
        Rule::Numpy,
        data_shape,
        target_shape,
        data_shape.len(),
        |i| offset + i,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast3_ir_example_1_channel_to_nchw() {
        let p = plan_numpy(&[16, 1, 1], &[1, 16, 50, 50]).unwrap();
        assert_eq!(p.output_shape(), &[1, 16, 50, 50]);
    }

    #[test]
    fn leading_axes_are_new() {
        let p = plan_numpy(&[3], &[2, 3]).unwrap();
        assert_eq!(p.axis_strides(), &[0, 1]);
    }

    #[test]
    fn target_one_does_not_take_a_larger_data_dim() {
        let e = plan_numpy(&[3], &[1]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "numpy broadcast: data dim 3 at axis 0 cannot become 1 (only a data dim of 1 can); data shape [3], target shape [1]"
        );
    }

    #[test]
    fn message_names_axis_and_both_shapes() {
        let e = plan_numpy(&[2, 3], &[2, 4]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "numpy broadcast: data dim 3 at axis 1 cannot become 4 (must be 1 or 4); data shape [2,3], target shape [2,4]"
        );
    }

    #[test]
    fn higher_data_rank_is_refused() {
        assert!(matches!(
            plan_numpy(&[5, 2, 3, 1], &[4, 3, 6]),
            Err(BroadcastError::TargetRankTooSmall {
                data_rank: 4,
                target_rank: 3,
                ..
            })
        ));
    }

    #[test]
    fn one_goes_to_zero_and_zero_to_zero() {
        assert_eq!(plan_numpy(&[1, 3], &[0, 3]).unwrap().len(), 0);
        assert_eq!(plan_numpy(&[0, 3], &[0, 3]).unwrap().len(), 0);
    }

    #[test]
    fn zero_cannot_become_a_larger_dim_or_one() {
        assert!(plan_numpy(&[0], &[3]).is_err());
        assert!(plan_numpy(&[0], &[1]).is_err());
    }

    #[test]
    fn scalar_goes_anywhere_including_rank_zero() {
        assert_eq!(plan_numpy(&[], &[]).unwrap().len(), 1);
        assert_eq!(plan_numpy(&[], &[4, 4]).unwrap().len(), 16);
    }
}
