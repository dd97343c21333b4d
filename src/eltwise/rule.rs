//! Where an op's operands lie on its output: the op table's broadcasting column applied to
//! shapes alone. The kernels plan each op with the rule [`resolve`] gives; an expression places
//! every node's operands with [`place`], so a fused node broadcasts exactly as the op alone
//! does; [`eltwise_output_shape`] is the public face.

use super::plan::{operand_starts, output_shape};
use super::table::{Broadcasting, EltwiseOp, Shape};
use crate::auto_broadcast::AutoBroadcast;
use crate::error::{BroadcastError, Dims};
use crate::mode::{Mode, Rule};

/// The rule an op's plan applies, once the op's own checks passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// What the multi-operand plan is built with.
    pub(crate) spec: AutoBroadcast,
    /// OpenVINO PRelu: the 1-D slope goes on x's channel axis (axis 1) before the plan.
    pub(crate) channel: bool,
}

/// The rule `op` plans its operands of `shapes` with under the caller's `spec`:
/// - `Auto` ops take `spec` as it is (FakeQuantize under numpy: each limit must stretch onto
///   X, as the output is X's shape);
/// - ops broadcasting by their own rule take `none` as "equal shapes", numpy as numpy, and
///   refuse pdpd; PRelu's slope must stretch onto x (OpenVINO's: a 1-D slope as long as x's
///   axis 1 goes on that axis first).
///
/// # Errors
/// [`BroadcastError::RuleNotTaken`], [`BroadcastError::ShapesDiffer`] (a variadic op under
/// `none`), the one-directional numpy rule's error for a limit or slope that would grow x.
// Inlined: most ops take the caller's rule as it is, and a call returning the rule through
// memory was a visible share of a tiny op's cost; the other rules are checked out of line.
#[inline]
pub(crate) fn resolve(
    op: EltwiseOp,
    spec: &AutoBroadcast,
    shapes: &[&[usize]],
) -> Result<Resolved, BroadcastError> {
    match op.broadcasting() {
        Broadcasting::Auto if op.shape() != Shape::Quantize => Ok(Resolved {
            spec: *spec,
            channel: false,
        }),
        _ => resolve_own(op, spec, shapes),
    }
}

/// [`resolve`] for FakeQuantize and the ops that broadcast by their own rule.
fn resolve_own(
    op: EltwiseOp,
    spec: &AutoBroadcast,
    shapes: &[&[usize]],
) -> Result<Resolved, BroadcastError> {
    let plain = |spec: AutoBroadcast| Resolved {
        spec,
        channel: false,
    };
    let own = |takes: &'static str| match spec {
        AutoBroadcast::None => Ok(AutoBroadcast::None),
        AutoBroadcast::Numpy => Ok(AutoBroadcast::Numpy),
        other => Err(BroadcastError::RuleNotTaken {
            op: op.name(),
            takes,
            given: other.name(),
        }),
    };
    match op.broadcasting() {
        Broadcasting::Auto => {
            // The output is X's shape (OpenVINO's FakeQuantize spec): under numpy the limits
            // stretch onto X, never X onto a limit; the one-directional rule names the axis.
            if op.shape() == Shape::Quantize && *spec == AutoBroadcast::Numpy {
                for limit in &shapes[1..] {
                    crate::planners::plan(limit, shapes[0], &Mode::Numpy)?;
                }
            }
            Ok(plain(*spec))
        }
        Broadcasting::Numpy => {
            let rule = own("the numpy rule")?;
            if op.shape() == Shape::Fold && rule == AutoBroadcast::None {
                if let Some(other) = shapes.iter().find(|s| **s != shapes[0]) {
                    return Err(BroadcastError::ShapesDiffer {
                        mode: Rule::EltwiseNone,
                        left_shape: Dims(shapes[0].to_vec()),
                        right_shape: Dims(other.to_vec()),
                    });
                }
                // Equal shapes: the fold's numpy plan is the identity.
                return Ok(plain(AutoBroadcast::Numpy));
            }
            Ok(plain(rule))
        }
        Broadcasting::Channel | Broadcasting::Onto => {
            let channel = op.broadcasting() == Broadcasting::Channel;
            let takes = if channel {
                "OpenVINO's PRelu rule"
            } else {
                "the numpy rule, the slope onto X"
            };
            if own(takes)? == AutoBroadcast::None {
                return Ok(plain(AutoBroadcast::None));
            }
            let (x, slope) = (shapes[0], shapes[1]);
            let placed = if channel {
                prelu_slope_shape(x, slope)
            } else {
                slope.to_vec()
            };
            // The slope stretches onto x, never x onto the slope: the one-directional numpy
            // rule names the broken axis.
            crate::planners::plan(&placed, x, &Mode::Numpy)?;
            Ok(Resolved {
                spec: AutoBroadcast::Numpy,
                channel,
            })
        }
    }
}

/// The shape OpenVINO's PRelu gives the slope before the numpy rule: a 1-D slope as long as
/// x's channel axis (axis 1) becomes `[C, 1, ..]` so it lies on that axis; any other slope is
/// left as it is.
pub(crate) fn prelu_slope_shape(x: &[usize], slope: &[usize]) -> Vec<usize> {
    match *slope {
        [c] if x.len() >= 2 && c == x[1] => {
            let mut s = vec![1; x.len() - 1];
            s[0] = c;
            s
        }
        _ => slope.to_vec(),
    }
}

/// Where `op`'s operands lie on its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placement {
    /// The output shape.
    pub(crate) out_shape: Vec<usize>,
    /// Per operand (in the op's order), its shape as the plan sees it (PRelu's slope moved
    /// onto the channel axis) and the output axis its axis 0 lies on; each of its axes is
    /// the output's size or 1 (broadcast), and axes past the output's rank are 1s.
    pub(crate) operands: Vec<(Vec<usize>, usize)>,
}

/// Places operands of `shapes` on the output of `op` under `spec`, as the op run alone
/// places them (operand count and attributes are the caller's to check).
///
/// # Errors
/// As [`resolve`], and the broadcast rule's error.
pub(crate) fn place(
    op: EltwiseOp,
    spec: &AutoBroadcast,
    shapes: &[&[usize]],
) -> Result<Placement, BroadcastError> {
    let resolved = resolve(op, spec, shapes)?;
    let mut seen: Vec<Vec<usize>> = shapes.iter().map(|s| s.to_vec()).collect();
    if resolved.channel {
        seen[1] = prelu_slope_shape(shapes[0], shapes[1]);
    }
    // Select plans `then` first: under pdpd, `cond` and `else` go onto `then`.
    let order: Vec<usize> = if op.shape() == Shape::Select {
        vec![1, 0, 2]
    } else {
        (0..shapes.len()).collect()
    };
    let planned: Vec<&[usize]> = order.iter().map(|&j| seen[j].as_slice()).collect();
    // A two-operand op names a numpy failure by the binary rule; the variadic fold plans
    // every operand together (as its N-operand plan does, whatever the count).
    let pairwise = shapes.len() == 2 && op.shape() != Shape::Fold;
    let (out_shape, starts) = operand_starts(&planned, 0, &resolved.spec, pairwise)?;
    let mut operands: Vec<(Vec<usize>, usize)> = seen.into_iter().map(|s| (s, 0)).collect();
    for (k, &j) in order.iter().enumerate() {
        operands[j].1 = starts[k];
    }
    Ok(Placement {
        out_shape,
        operands,
    })
}

/// The output shape of `op` on operands of `shapes` under `spec`, as
/// [`crate::eltwise::eltwise_view`] computes it.
///
/// ```
/// use bcast::{eltwise_output_shape, AutoBroadcast, EltwiseOp};
/// // OpenVINO PRelu: a 1-D slope of x's channel count lies on axis 1.
/// let shape = eltwise_output_shape(EltwiseOp::Prelu, &[&[2, 3, 4], &[3]], &AutoBroadcast::Numpy)?;
/// assert_eq!(shape, vec![2, 3, 4]);
/// // Sum broadcasts every operand together.
/// let shape = eltwise_output_shape(EltwiseOp::Sum, &[&[2, 1], &[3], &[1, 1]], &AutoBroadcast::Numpy)?;
/// assert_eq!(shape, vec![2, 3]);
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
///
/// # Errors
/// [`BroadcastError::Arity`], [`BroadcastError::InvalidAttribute`], and the rule's errors as
/// [`crate::eltwise::eltwise_view`] reports them.
pub fn eltwise_output_shape(
    op: EltwiseOp,
    shapes: &[&[usize]],
    spec: &AutoBroadcast,
) -> Result<Vec<usize>, BroadcastError> {
    op.check_arity(shapes.len())?;
    op.check_attributes()?;
    // What `place` computes of the output, without placing each operand (a C or Python call
    // asks for the shape on every call): Select's order and PRelu's channel slope need the
    // placement.
    if op.shape() != Shape::Select {
        let resolved = resolve(op, spec, shapes)?;
        if !resolved.channel {
            let pairwise = shapes.len() == 2 && op.shape() != Shape::Fold;
            return output_shape(shapes, 0, &resolved.spec, pairwise);
        }
    }
    Ok(place(op, spec, shapes)?.out_shape)
}
