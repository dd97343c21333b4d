use crate::error::BroadcastError;
use crate::mode::Rule;
use crate::plan::StridePlan;
use crate::planners::{by_value, dims, place_axes};

by_value! {
    /// Explicit broadcast: OpenVINO `explicit` mode (IR alias `none`).
    ///
    /// **Rule.** `axes_mapping[i]` is the output axis of data axis `i`:
    /// - `len(axes_mapping) == rank(data)` (a scalar takes none);
    /// - the axes are strictly increasing: duplicates and transposes are refused (OpenVINO only
    ///   checks for a non-decreasing list and lets duplicates through);
    /// - each axis is `< rank(target)`; negative axes cannot be expressed (see
    ///   [`crate::axes_from_ints`]);
    /// - `data[i] == target[axes_mapping[i]]` or `data[i] == 1`;
    /// - the output shape is the target shape; every unmapped axis is broadcast.
    ///
    /// # Errors
    /// [`BroadcastError::AxesMappingLength`], [`BroadcastError::AxesNotIncreasing`],
    /// [`BroadcastError::AxisOutOfRange`], [`BroadcastError::DimMismatch`],
    /// [`BroadcastError::ShapeOverflow`].
    ///
    /// ```
    /// // Broadcast-3 IR example 2: a [16] bias placed on the channel axis.
    /// let plan = bcast::planners::plan_explicit(&[16], &[1, 16, 50, 50], &[1]).unwrap();
    /// assert_eq!(plan.axis_strides(), &[0, 1, 0, 0]);
    /// ```
    pub fn plan_explicit(data_shape: &[usize], target_shape: &[usize], axes_mapping: &[usize]) => plan_explicit_into;
}

/// [`plan_explicit`] into `plan`, in place (see [`StridePlan::empty`]).
pub(crate) fn plan_explicit_into(
    data_shape: &[usize],
    target_shape: &[usize],
    axes_mapping: &[usize],
    plan: &mut StridePlan,
) -> Result<(), BroadcastError> {
    if axes_mapping.len() != data_shape.len() {
        return Err(BroadcastError::AxesMappingLength {
            axes: axes_mapping.to_vec(),
            got: axes_mapping.len(),
            expected: data_shape.len(),
            data_shape: dims(data_shape),
        });
    }
    for (position, &axis) in axes_mapping.iter().enumerate() {
        if axis >= target_shape.len() {
            return Err(BroadcastError::AxisOutOfRange {
                mode: Rule::Explicit,
                axes: axes_mapping.to_vec(),
                position,
                axis,
                rank: target_shape.len(),
                target_shape: dims(target_shape),
            });
        }
        if position > 0 && axis <= axes_mapping[position - 1] {
            return Err(BroadcastError::AxesNotIncreasing {
                mode: Rule::Explicit,
                axes: axes_mapping.to_vec(),
                position,
                axis,
            });
        }
    }
    place_axes(
        plan,
        Rule::Explicit,
        data_shape,
        target_shape,
        axes_mapping.len(),
        |i| axes_mapping[i],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast3_ir_example_3_matrix_into_nhwc() {
        let p = plan_explicit(&[50, 50], &[1, 50, 50, 16], &[1, 2]).unwrap();
        assert_eq!(p.output_shape(), &[1, 50, 50, 16]);
        assert_eq!(p.dims(), &[2500, 16]);
        assert_eq!(p.strides(), &[1, 0]);
    }

    #[test]
    fn openvino_type_prop_rules() {
        assert!(plan_explicit(&[3, 1], &[2, 3, 1], &[1, 2]).is_ok());
        assert!(matches!(
            plan_explicit(&[3, 1], &[2, 3, 1], &[1, 2, 3]),
            Err(BroadcastError::AxesMappingLength {
                got: 3,
                expected: 2,
                ..
            })
        ));
        assert!(matches!(
            plan_explicit(&[3, 1], &[2, 1, 3], &[2, 1]),
            Err(BroadcastError::AxesNotIncreasing { position: 1, .. })
        ));
        assert!(matches!(
            plan_explicit(&[3, 1], &[2, 3, 1], &[1, 3]),
            Err(BroadcastError::AxisOutOfRange {
                axis: 3,
                rank: 3,
                ..
            })
        ));
        assert!(matches!(
            plan_explicit(&[3, 2], &[2, 3, 3], &[1, 2]),
            Err(BroadcastError::DimMismatch {
                axis: 1,
                data_dim: 2,
                target_dim: 3,
                ..
            })
        ));
    }

    #[test]
    fn duplicate_axes_are_refused_unlike_openvino() {
        assert!(matches!(
            plan_explicit(&[3, 3], &[2, 3, 3], &[1, 1]),
            Err(BroadcastError::AxesNotIncreasing {
                position: 1,
                axis: 1,
                ..
            })
        ));
    }

    #[test]
    fn scalar_takes_no_axes() {
        assert_eq!(plan_explicit(&[], &[1, 2], &[]).unwrap().len(), 2);
        assert!(plan_explicit(&[], &[1, 2], &[0]).is_err());
    }

    #[test]
    fn size_one_data_dim_stretches_on_its_mapped_axis() {
        let p = plan_explicit(&[1], &[3, 4], &[1]).unwrap();
        assert_eq!(p.axis_strides(), &[0, 0]);
    }
}
