use crate::error::BroadcastError;
use crate::mode::Rule;
use crate::plan::StridePlan;
use crate::planners::{by_value, dims, place_axes};

by_value! {
    /// PDPD (PaddlePaddle) broadcast: OpenVINO's broadcast-rules "PDPD".
    ///
    /// **Rule.**
    /// 1. `axis == -1` means `rank(target) - rank(data)`, with the data's own rank (rule 4);
    ///    any other negative axis is an error.
    /// 2. `data'` is the data shape with its trailing 1s dropped (rule 5: `(3,1) => (3)`), so data
    ///    `(5,1)` fits target `(2,3,4,5)` at axis 3.
    /// 3. `data'` must lie on a contiguous run of the target starting at `axis`: the run must not
    ///    pass the target's end, and each `data'` dim equals its target dim or is 1.
    /// 4. Only data -> target: a target dim of 1 does not take a larger data dim (the spec's own
    ///    example `A(8,1,6,1)`, `B(7,1,5)`, axis 1 is an error).
    /// 5. The output shape is the target shape.
    ///
    /// # Errors
    /// [`BroadcastError::PdpdAxis`], [`BroadcastError::DimMismatch`] (axis = data axis),
    /// [`BroadcastError::ShapeOverflow`].
    ///
    /// ```
    /// let plan = bcast::planners::plan_pdpd(&[5, 1], &[2, 3, 4, 5], 3).unwrap();
    /// assert_eq!(plan.output_shape(), &[2, 3, 4, 5]);
    /// ```
    pub fn plan_pdpd(data_shape: &[usize], target_shape: &[usize], axis: i64) => plan_pdpd_into;
}

/// [`plan_pdpd`] into `plan`, in place (see [`StridePlan::empty`]).
pub(crate) fn plan_pdpd_into(
    data_shape: &[usize],
    target_shape: &[usize],
    axis: i64,
    plan: &mut StridePlan,
) -> Result<(), BroadcastError> {
    let fail = |reason: String| BroadcastError::PdpdAxis {
        axis,
        reason,
        data_shape: dims(data_shape),
        target_shape: dims(target_shape),
    };
    let start = match axis {
        -1 => target_shape
            .len()
            .checked_sub(data_shape.len())
            .ok_or_else(|| {
                fail(format!(
                    "axis -1 means rank(target) - rank(data) = {} - {}, which is negative",
                    target_shape.len(),
                    data_shape.len()
                ))
            })?,
        a if a < -1 => return Err(fail("only -1 or a non-negative axis is allowed".into())),
        // Cannot fail: a is non-negative here; an axis beyond usize is past any target's end.
        a => usize::try_from(a).unwrap_or(usize::MAX),
    };
    let kept = data_shape.len() - data_shape.iter().rev().take_while(|&&d| d == 1).count();
    let fitted = &data_shape[..kept];
    if start > target_shape.len() || fitted.len() > target_shape.len() - start {
        return Err(fail(format!(
            "the data's dims {} (trailing 1s dropped) starting at axis {start} run past the target's rank {}",
            dims(fitted),
            target_shape.len()
        )));
    }
    place_axes(
        plan,
        Rule::Pdpd,
        data_shape,
        target_shape,
        fitted.len(),
        |i| start + i,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: [usize; 4] = [2, 3, 4, 5];

    #[test]
    fn openvino_rules_examples_that_fit() {
        assert!(plan_pdpd(&[3, 4], &A, 1).is_ok());
        assert!(plan_pdpd(&[3, 1], &A, 1).is_ok());
        assert!(plan_pdpd(&[4, 5], &A, -1).is_ok());
        assert!(plan_pdpd(&[4, 5], &A, 2).is_ok());
        assert!(plan_pdpd(&[1, 3], &A, 0).is_ok());
        assert!(plan_pdpd(&[], &A, -1).is_ok());
        assert!(plan_pdpd(&[5], &A, -1).is_ok());
        assert!(plan_pdpd(&[5], &A, 3).is_ok());
    }

    #[test]
    fn openvino_rules_example_only_b_to_a() {
        assert!(matches!(
            plan_pdpd(&[7, 1, 5], &[8, 1, 6, 1], 1),
            Err(BroadcastError::DimMismatch {
                data_dim: 7,
                target_dim: 1,
                ..
            })
        ));
    }

    #[test]
    fn trailing_ones_are_dropped_for_the_fit() {
        let p = plan_pdpd(&[5, 1], &A, 3).unwrap();
        assert_eq!(p.axis_strides(), &[0, 0, 0, 1]);
    }

    #[test]
    fn minus_one_uses_the_data_rank_with_its_trailing_ones() {
        // (3,1) with axis -1 starts at 4 - 2 = 2: 3 meets 4, an error.
        assert!(plan_pdpd(&[3, 1], &A, -1).is_err());
        // rank(data) > rank(target) with -1 is an error even if trailing 1s would fit.
        assert!(plan_pdpd(&[5, 1, 1, 1, 1], &A, -1).is_err());
    }

    #[test]
    fn axis_below_minus_one_or_past_the_end_is_an_error() {
        assert!(matches!(
            plan_pdpd(&[5], &A, -2),
            Err(BroadcastError::PdpdAxis { .. })
        ));
        assert!(matches!(
            plan_pdpd(&[5], &A, 4),
            Err(BroadcastError::PdpdAxis { .. })
        ));
        assert!(matches!(
            plan_pdpd(&[4, 5], &A, 3),
            Err(BroadcastError::PdpdAxis { .. })
        ));
        assert!(plan_pdpd(&[5], &A, i64::MAX).is_err());
        assert!(plan_pdpd(&[5], &A, i64::MIN).is_err());
    }

    #[test]
    fn all_ones_data_fits_at_the_end() {
        assert!(plan_pdpd(&[1, 1], &A, 4).is_ok());
    }

    #[test]
    fn openvino_eval_example() {
        let p = plan_pdpd(&[3, 1], &[2, 3, 6], 1).unwrap();
        assert_eq!(p.axis_strides(), &[0, 1, 0]);
    }
}
