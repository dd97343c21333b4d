use crate::error::{BroadcastError, Dims};
use crate::mode::Rule;
use crate::plan::StridePlan;
use crate::planners::plan_numpy;
use crate::shape::checked_len;

/// The common shape of several shapes: ONNX multidirectional broadcasting, numpy's
/// `broadcast_shapes`, SONNX `Broadcast(X0..XL)`.
///
/// **Rule.** Shapes are right-aligned and left-padded with 1s to the largest rank; per axis
/// all dimensions that are not 1 must be equal, and the output takes that dimension (1 if
/// all are 1). A 1 against a 0 gives 0.
///
/// # Errors
/// [`BroadcastError::NoInputs`] for an empty list; [`BroadcastError::Incompatible`] naming the
/// first two shapes found to clash (left: the common shape so far) and the output axis.
///
/// ```
/// let s = bcast::broadcast_shapes(&[&[8, 1, 6, 1], &[7, 1, 5]]).unwrap();
/// assert_eq!(s, vec![8, 7, 6, 5]);
/// ```
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>, BroadcastError> {
    common_shape(shapes, Rule::Multi)
}

/// [`broadcast_shapes`] with the rule its errors name: N-ary broadcast, or the element-wise
/// numpy rule (which is the same rule for two or three operands).
pub(crate) fn common_shape(shapes: &[&[usize]], rule: Rule) -> Result<Vec<usize>, BroadcastError> {
    if shapes.is_empty() {
        return Err(BroadcastError::NoInputs);
    }
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut common = vec![1usize; rank];
    for shape in shapes {
        let pad = rank - shape.len();
        for (i, &d) in shape.iter().enumerate() {
            let c = &mut common[pad + i];
            if *c == 1 {
                *c = d;
            } else if d != 1 && d != *c {
                return Err(BroadcastError::Incompatible {
                    mode: rule,
                    axis: pad + i,
                    left: *c,
                    right: d,
                    left_shape: Dims(common.clone()),
                    right_shape: Dims(shape.to_vec()),
                });
            }
        }
    }
    // The same size rule as every other shape function: a shape whose element count
    // overflows is refused here, not when something tries to allocate it.
    checked_len(&common)?;
    Ok(common)
}

/// One plan per input, each broadcasting that input to the common shape of all of them.
///
/// # Errors
/// As [`broadcast_shapes`], plus [`BroadcastError::ShapeOverflow`].
pub fn plan_multi(shapes: &[&[usize]]) -> Result<Vec<StridePlan>, BroadcastError> {
    let common = broadcast_shapes(shapes)?;
    // Every input fits the common shape one-directionally by construction.
    shapes.iter().map(|s| plan_numpy(s, &common)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onnx_multidirectional_examples() {
        let cases: [(&[usize], &[usize]); 5] = [
            (&[2, 3, 4, 5], &[]),
            (&[2, 3, 4, 5], &[5]),
            (&[4, 5], &[2, 3, 4, 5]),
            (&[1, 4, 5], &[2, 3, 1, 1]),
            (&[3, 4, 5], &[2, 1, 1, 1]),
        ];
        for (a, b) in cases {
            assert_eq!(
                broadcast_shapes(&[a, b]).unwrap(),
                vec![2, 3, 4, 5],
                "{a:?} {b:?}"
            );
        }
    }

    #[test]
    fn openvino_numpy_rules_examples() {
        let ok: [(&[usize], &[usize], &[usize]); 9] = [
            (&[], &[], &[]),
            (&[2, 3], &[1], &[2, 3]),
            (&[3], &[2, 3], &[2, 3]),
            (&[2, 3, 5], &[], &[2, 3, 5]),
            (&[2, 1, 5], &[1, 4, 5], &[2, 4, 5]),
            (&[6, 5], &[2, 1, 5], &[2, 6, 5]),
            (&[2, 1, 5], &[4, 1], &[2, 4, 5]),
            (&[3, 2, 1, 4], &[5, 4], &[3, 2, 5, 4]),
            (&[1, 5, 3], &[5, 2, 1, 3], &[5, 2, 5, 3]),
        ];
        for (a, b, r) in ok {
            assert_eq!(
                broadcast_shapes(&[a, b]).unwrap(),
                r.to_vec(),
                "{a:?} {b:?}"
            );
        }
        assert!(broadcast_shapes(&[&[3], &[2]]).is_err());
        assert!(matches!(
            broadcast_shapes(&[&[3, 1, 5], &[4, 4, 5]]),
            Err(BroadcastError::Incompatible {
                axis: 0,
                left: 3,
                right: 4,
                ..
            })
        ));
    }

    #[test]
    fn one_against_zero_is_zero() {
        assert_eq!(
            broadcast_shapes(&[&[0, 1], &[1, 3], &[1]]).unwrap(),
            vec![0, 3]
        );
    }

    #[test]
    fn no_shapes_is_an_error() {
        assert_eq!(broadcast_shapes(&[]), Err(BroadcastError::NoInputs));
    }

    #[test]
    fn plans_read_each_input_with_its_own_strides() {
        let plans = plan_multi(&[&[3, 1], &[4]]).unwrap();
        assert_eq!(plans[0].axis_strides(), &[1, 0]);
        assert_eq!(plans[1].axis_strides(), &[0, 1]);
    }
}
