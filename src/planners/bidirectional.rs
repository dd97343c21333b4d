use crate::error::BroadcastError;
use crate::mode::Rule;
use crate::plan::{AxisList, StridePlan};
use crate::planners::{by_value, dims};

by_value! {
    /// Bidirectional broadcast: OpenVINO v3 `bidirectional` mode, ONNX `Expand`.
    ///
    /// **Rule.** Both shapes are left-padded with 1s to the larger rank. Per axis the two
    /// dimensions are equal, or one of them is 1 and the output takes the other one. A 1 against
    /// a 0 gives 0, never `max(1, 0)`: numpy's rule. So the output rank may exceed
    /// `len(target)`, and a 1 in the target keeps the data's dimension.
    ///
    /// # Errors
    /// [`BroadcastError::Incompatible`] (left is the data, right the target),
    /// [`BroadcastError::ShapeOverflow`].
    ///
    /// ```
    /// // Broadcast-3 IR example 4: data [16,1,1] with target [1,1,50,50].
    /// let plan = bcast::planners::plan_bidirectional(&[16, 1, 1], &[1, 1, 50, 50]).unwrap();
    /// assert_eq!(plan.output_shape(), &[1, 16, 50, 50]);
    /// ```
    pub fn plan_bidirectional(data_shape: &[usize], target_shape: &[usize]) => plan_bidirectional_into;
}

/// [`plan_bidirectional`] into `plan`, in place (see [`StridePlan::empty`]).
pub(crate) fn plan_bidirectional_into(
    data_shape: &[usize],
    target_shape: &[usize],
    plan: &mut StridePlan,
) -> Result<(), BroadcastError> {
    let rank = data_shape.len().max(target_shape.len());
    let data_pad = rank - data_shape.len();
    let target_pad = rank - target_shape.len();
    let mut output = AxisList::new();
    let source_axes = plan.start_source_axes(rank);
    for axis in 0..rank {
        let d = if axis < data_pad {
            1
        } else {
            data_shape[axis - data_pad]
        };
        let t = if axis < target_pad {
            1
        } else {
            target_shape[axis - target_pad]
        };
        if d == t || t == 1 {
            output.push(d);
            source_axes[axis] = axis.checked_sub(data_pad);
        } else if d == 1 {
            output.push(t);
        } else {
            return Err(BroadcastError::Incompatible {
                mode: Rule::Bidirectional,
                axis,
                left: d,
                right: t,
                left_shape: dims(data_shape),
                right_shape: dims(target_shape),
            });
        }
    }
    plan.finish_from_source_axes(data_shape, &output)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(data: &[usize], target: &[usize]) -> Vec<usize> {
        plan_bidirectional(data, target)
            .unwrap()
            .output_shape()
            .to_vec()
    }

    #[test]
    fn openvino_rules_examples() {
        assert_eq!(out(&[5], &[1]), vec![5]);
        assert_eq!(out(&[2, 3], &[3]), vec![2, 3]);
        assert_eq!(out(&[3, 1], &[3, 4]), vec![3, 4]);
        assert_eq!(out(&[3, 4], &[]), vec![3, 4]);
        assert_eq!(out(&[3, 1], &[2, 1, 6]), vec![2, 3, 6]);
    }

    #[test]
    fn output_rank_may_exceed_the_target() {
        assert_eq!(
            out(&[1, 1, 1, 1, 1, 1, 1, 1], &[1, 3, 1, 1]),
            vec![1, 1, 1, 1, 1, 3, 1, 1]
        );
        assert_eq!(out(&[1, 3, 1], &[3, 1]), vec![1, 3, 1]);
    }

    #[test]
    fn one_against_zero_is_zero_both_ways() {
        assert_eq!(out(&[1], &[0]), vec![0]);
        assert_eq!(out(&[0], &[1]), vec![0]);
        assert_eq!(out(&[0, 1], &[1, 3]), vec![0, 3]);
    }

    #[test]
    fn zero_against_more_than_one_is_an_error() {
        assert!(plan_bidirectional(&[0], &[2]).is_err());
    }

    #[test]
    fn openvino_type_prop_errors() {
        let e = plan_bidirectional(&[4, 3, 2], &[8, 6, 4]).unwrap_err();
        assert!(matches!(
            e,
            BroadcastError::Incompatible {
                axis: 0,
                left: 4,
                right: 8,
                ..
            }
        ));
        assert!(plan_bidirectional(&[1, 1, 2], &[2, 3]).is_err());
    }
}
