//! Shape inference over partially known shapes: what a runtime can say about a Broadcast's
//! (or an element-wise op's) output when it compiles a model, before any data exists. The
//! rules are the planners' (see [`crate::planners`]), lifted to intervals; they are stated
//! once, on [`infer_shape`].

use crate::auto_broadcast::AutoBroadcast;
use crate::error::{BroadcastError, Dims};
use crate::mode::{Mode, Rule};
use crate::partial_shape::{Dim, PartialShape, TargetShape};
use crate::shape::checked_len;

/// The tightest output shape of `data` broadcast to `target` under `mode`, when either is
/// known only in part.
///
/// **What the answer means.** The planners' rules (see [`crate::planners`]), lifted to
/// intervals: the answer is the tightest [`PartialShape`] holding the output of every
/// concrete broadcast that the partial inputs allow and the planners accept, and an error
/// means every such concrete broadcast is refused. On fully known inputs the answer, or the
/// error, is exactly [`crate::output_shape`]'s.
///
/// **Per aligned pair of dimensions** (data `d`, target `t`):
/// - one-directional (numpy, explicit, PDPD): the output is `t` if `d` may be 1, otherwise
///   `d ∩ t` (`t` must then equal `d`); empty is an error;
/// - two-directional (bidirectional): if both may be 1, the hull of both; if only one may
///   be 1, the other; if neither, `d ∩ t`; empty is an error. This is OpenVINO's
///   `Dimension::broadcast_merge`, and it is exactly the hull of every outcome.
///
/// **Per mode** (what happens to unknown ranks and lengths):
/// - **Numpy**: the output is the target, each aligned dimension narrowed as above. Unknown
///   data rank: the target as it is. Target of unknown length: unknown rank.
/// - **Bidirectional**: ranks padded with 1s. Either rank unknown: unknown rank (the output
///   rank is the larger of the two).
/// - **Explicit**: the output is the target, each mapped dimension narrowed as above.
///   `axes_mapping` is checked as far as the ranks are known (its length against the data
///   rank, its range against the target rank; strictly increasing always).
/// - **Pdpd**: as numpy, with the data laid from `axis`. A trailing data dimension that may
///   be 1 may be dropped, so it constrains nothing; one that cannot be 1 must fit.
/// - **Axes**: the kept target dimensions must equal the data's, so they are narrowed to
///   them; an unknown target rank is the data rank plus the number of broadcast axes.
///
/// **1 against 0** gives 0 in bcast's rule, and the lifted rule needs no special case: a 1
/// in one operand yields the other's dimension, 0 included, so `1` with `0` infers `0`, and
/// an interval holding both 0 and 1 (`..1`) against `..1` infers `..1` (the outcomes are 0
/// and 1). OpenVINO's shape inference agrees; only its reference evaluation computes
/// `max(1, 0) = 1`.
///
/// **Against OpenVINO** (`broadcast_shape_inference.hpp`), which is looser in places: it
/// does not narrow numpy, explicit or PDPD outputs by the data, takes a data dimension that
/// is an interval as always compatible in numpy mode, validates `axes_mapping` only when
/// both ranks are known, and lets duplicates through. Where it answers a shape and bcast an
/// error, bcast's planners refuse every concrete input.
///
/// # Errors
/// The planners' [`BroadcastError`]s, for contradictions that are certain whatever the
/// unknowns turn out to be. They hold plain numbers: a dimension that is not known shows as
/// its lower bound (`?` as 0) and a shape of unknown rank as `[]`; the error's kind, axis
/// and known dimensions are exact.
///
/// ```
/// use bcast::{infer_shape, Mode, PartialShape, TargetShape};
///
/// // A bias [?,1] (batch unknown) broadcast to a Constant [8,3,5], numpy rule.
/// let data: PartialShape = "[?,1]".parse()?;
/// let out = infer_shape(&data, &TargetShape::Known(vec![8, 3, 5]), &Mode::Numpy)?;
/// assert_eq!(out.to_string(), "[8,3,5]");
///
/// // ONNX Expand of [1..4,1] to a shape of 3 unknown values: the data's 1..4 fixes nothing,
/// // but the rank is known.
/// let data: PartialShape = "[1..4,1]".parse()?;
/// let out = infer_shape(&data, &TargetShape::Rank(3), &Mode::Bidirectional)?;
/// assert_eq!(out.to_string(), "[?,?,?]");
///
/// // Data [2..3,7]: neither dimension can be 1, so the target's must equal them.
/// let data: PartialShape = "[2..3,7]".parse()?;
/// let out = infer_shape(&data, &TargetShape::Rank(3), &Mode::Bidirectional)?;
/// assert_eq!(out.to_string(), "[?,2..3,7]");
///
/// // A certain contradiction is the planners' error.
/// let data: PartialShape = "[?,999,3]".parse()?;
/// let e = infer_shape(&data, &TargetShape::Known(vec![1, 2, 3]), &Mode::Numpy).unwrap_err();
/// assert!(matches!(e, bcast::BroadcastError::DimMismatch { data_dim: 999, target_dim: 2, .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn infer_shape(
    data: &PartialShape,
    target: &TargetShape,
    mode: &Mode,
) -> Result<PartialShape, BroadcastError> {
    let target = target.to_partial_shape();
    match mode {
        Mode::Numpy => infer_numpy(data, &target),
        Mode::Bidirectional => infer_bidirectional(data, &target),
        Mode::Explicit { axes_mapping } => infer_explicit(data, &target, axes_mapping),
        Mode::Pdpd { axis } => infer_pdpd(data, &target, *axis),
        Mode::Axes { broadcast_axes } => infer_axes(data, &target, broadcast_axes),
    }
}

/// The tightest output shape of an element-wise op on operands `a` and `b` under `spec`,
/// when either is known only in part: the tightest in [`infer_shape`]'s sense, and on fully
/// known operands exactly [`crate::eltwise_shape`]'s answer or error.
///
/// - **None**: the shapes must be equal: each dimension is the intersection of the two; an
///   unknown rank takes the other operand's shape (OpenVINO's `PartialShape::merge_into`).
/// - **Numpy**: the two-directional rule of [`infer_shape`] per axis (OpenVINO's
///   `PartialShape::broadcast_merge_into`); either rank unknown gives an unknown rank.
/// - **Pdpd**: `b` broadcast onto `a` by [`infer_shape`]'s PDPD rule; the output is `a`,
///   narrowed where `b`'s dimension cannot be 1. Unlike OpenVINO, an unknown rank of `b`
///   still gives `a`'s shape (`a` is never broadcast), and `a`'s dimensions are narrowed.
///
/// # Errors
/// [`BroadcastError::ShapesDiffer`] (none), [`BroadcastError::Incompatible`] (numpy),
/// [`BroadcastError::PdpdAxis`] or [`BroadcastError::DimMismatch`] (pdpd),
/// [`BroadcastError::ShapeOverflow`], for certain contradictions only; unknown dimensions
/// show as their lower bound, as in [`infer_shape`].
///
/// ```
/// use bcast::{infer_eltwise_shape, AutoBroadcast, PartialShape};
///
/// let a: PartialShape = "[?,3,1,2..128]".parse()?;
/// let b: PartialShape = "[?,3,2..224,1]".parse()?;
/// let out = infer_eltwise_shape(&a, &b, &AutoBroadcast::Numpy)?;
/// assert_eq!(out.to_string(), "[?,3,2..224,2..128]");
///
/// let a: PartialShape = "[2..4,8..16]".parse()?;
/// let b: PartialShape = "[2..4,4..12]".parse()?;
/// assert_eq!(infer_eltwise_shape(&a, &b, &AutoBroadcast::None)?.to_string(), "[2..4,8..12]");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn infer_eltwise_shape(
    a: &PartialShape,
    b: &PartialShape,
    spec: &AutoBroadcast,
) -> Result<PartialShape, BroadcastError> {
    match *spec {
        AutoBroadcast::None => eltwise_none(a, b),
        AutoBroadcast::Numpy => eltwise_numpy(a, b),
        AutoBroadcast::Pdpd { axis } => {
            infer_pdpd(b, a, axis).map_err(|e| e.with_rule(Rule::EltwisePdpd))
        }
    }
}

/// One-directional: data dimension `d` onto target dimension `t`. The output is `t`'s value;
/// `d` must be 1 or equal to it. `None`: certainly not.
fn onto(d: Dim, t: Dim) -> Option<Dim> {
    if d.contains(1) {
        Some(t)
    } else {
        d.intersect(t)
    }
}

/// The one-directional modes' per-axis rule on partial shapes (the planners'
/// `place_axes` on known ones): each of the first `count` data dimensions `i` goes onto
/// target axis `output_axis(i)` by [`onto`], writing the output's dimension there, and the
/// first that certainly cannot is the error, naming `rule`, the data axis and both shapes.
fn place_dims(
    rule: Rule,
    d: &[Dim],
    t: &[Dim],
    count: usize,
    out: &mut [Dim],
    output_axis: impl Fn(usize) -> usize,
) -> Result<(), BroadcastError> {
    for (i, &dd) in d[..count].iter().enumerate() {
        let axis = output_axis(i);
        let tt = t[axis];
        out[axis] = onto(dd, tt).ok_or_else(|| BroadcastError::DimMismatch {
            mode: rule,
            axis: i,
            data_dim: dd.min(),
            target_dim: tt.min(),
            data_shape: lows(d),
            target_shape: lows(t),
        })?;
    }
    Ok(())
}

/// Two-directional: equal, or one of them 1 and the output the other. `None`: certainly
/// not.
fn broadcast_merge(a: Dim, b: Dim) -> Option<Dim> {
    match (a.contains(1), b.contains(1)) {
        (true, true) => Some(a.hull(b)),
        (true, false) => Some(b),
        (false, true) => Some(a),
        (false, false) => a.intersect(b),
    }
}

/// The dimensions as the errors show them: each its lower bound.
fn lows(dims: &[Dim]) -> Dims {
    Dims(dims.iter().map(|d| d.min()).collect())
}

/// A shape as the errors show it: [`lows`], or `[]` for an unknown rank.
fn shape_lows(shape: &PartialShape) -> Dims {
    shape.dims().map(lows).unwrap_or_default()
}

/// [`checked_len`] of the smallest shape `dims` allow: if that overflows, every one does.
fn check_len(dims: &[Dim]) -> Result<(), BroadcastError> {
    checked_len(&lows(dims).0).map(|_| ())
}

fn infer_numpy(data: &PartialShape, target: &PartialShape) -> Result<PartialShape, BroadcastError> {
    let Some(t) = target.dims() else {
        return Ok(PartialShape::Dynamic);
    };
    let mut out = t.to_vec();
    if let Some(d) = data.dims() {
        if d.len() > t.len() {
            return Err(BroadcastError::TargetRankTooSmall {
                mode: Rule::Numpy,
                data_rank: d.len(),
                target_rank: t.len(),
                data_shape: lows(d),
                target_shape: lows(t),
            });
        }
        let offset = t.len() - d.len();
        place_dims(Rule::Numpy, d, t, d.len(), &mut out, |i| offset + i)?;
        check_len(d)?;
    }
    check_len(&out)?;
    Ok(PartialShape::Ranked(out))
}

fn infer_bidirectional(
    data: &PartialShape,
    target: &PartialShape,
) -> Result<PartialShape, BroadcastError> {
    let (Some(d), Some(t)) = (data.dims(), target.dims()) else {
        return Ok(PartialShape::Dynamic);
    };
    let rank = d.len().max(t.len());
    let (d_pad, t_pad) = (rank - d.len(), rank - t.len());
    let one = Dim::known(1);
    let mut out = Vec::with_capacity(rank);
    for axis in 0..rank {
        let dd = axis.checked_sub(d_pad).map_or(one, |i| d[i]);
        let tt = axis.checked_sub(t_pad).map_or(one, |i| t[i]);
        out.push(
            broadcast_merge(dd, tt).ok_or_else(|| BroadcastError::Incompatible {
                mode: Rule::Bidirectional,
                axis,
                left: dd.min(),
                right: tt.min(),
                left_shape: lows(d),
                right_shape: lows(t),
            })?,
        );
    }
    check_len(d)?;
    check_len(&out)?;
    Ok(PartialShape::Ranked(out))
}

fn infer_explicit(
    data: &PartialShape,
    target: &PartialShape,
    axes: &[usize],
) -> Result<PartialShape, BroadcastError> {
    if let Some(d) = data.dims() {
        if axes.len() != d.len() {
            return Err(BroadcastError::AxesMappingLength {
                axes: axes.to_vec(),
                got: axes.len(),
                expected: d.len(),
                data_shape: lows(d),
            });
        }
    }
    for (position, &axis) in axes.iter().enumerate() {
        if let Some(rank) = target.rank() {
            if axis >= rank {
                return Err(BroadcastError::AxisOutOfRange {
                    mode: Rule::Explicit,
                    axes: axes.to_vec(),
                    position,
                    axis,
                    rank,
                    target_shape: shape_lows(target),
                });
            }
        }
        if position > 0 && axis <= axes[position - 1] {
            return Err(BroadcastError::AxesNotIncreasing {
                mode: Rule::Explicit,
                axes: axes.to_vec(),
                position,
                axis,
            });
        }
    }
    let Some(t) = target.dims() else {
        return Ok(PartialShape::Dynamic);
    };
    let mut out = t.to_vec();
    if let Some(d) = data.dims() {
        // `axes` has one entry per data axis (checked above).
        place_dims(Rule::Explicit, d, t, d.len(), &mut out, |i| axes[i])?;
        check_len(d)?;
    }
    check_len(&out)?;
    Ok(PartialShape::Ranked(out))
}

fn infer_pdpd(
    data: &PartialShape,
    target: &PartialShape,
    axis: i64,
) -> Result<PartialShape, BroadcastError> {
    let fail = |reason: String| BroadcastError::PdpdAxis {
        axis,
        reason,
        data_shape: shape_lows(data),
        target_shape: shape_lows(target),
    };
    if axis < -1 {
        return Err(fail("only -1 or a non-negative axis is allowed".into()));
    }
    let Some(t) = target.dims() else {
        return Ok(PartialShape::Dynamic);
    };
    // An axis beyond usize is past any target's end.
    let given_start = usize::try_from(axis).unwrap_or(usize::MAX);
    let Some(d) = data.dims() else {
        // However many dims the data has, none may start past the target's end.
        if axis >= 0 && given_start > t.len() {
            return Err(fail(format!(
                "the data starting at axis {given_start} runs past the target's rank {}",
                t.len()
            )));
        }
        check_len(t)?;
        return Ok(PartialShape::Ranked(t.to_vec()));
    };
    let start = if axis == -1 {
        t.len().checked_sub(d.len()).ok_or_else(|| {
            fail(format!(
                "axis -1 means rank(target) - rank(data) = {} - {}, which is negative",
                t.len(),
                d.len()
            ))
        })?
    } else {
        given_start
    };
    // The dims up to the last one that cannot be 1 are certainly laid on the target; those
    // after it may be 1s that are dropped, and if they are not 1 they are free anyway.
    let kept = d.len() - d.iter().rev().take_while(|dd| dd.contains(1)).count();
    let fitted = &d[..kept];
    if start > t.len() || fitted.len() > t.len() - start {
        return Err(fail(format!(
            "the data's dims {} (trailing 1s dropped) starting at axis {start} run past the target's rank {}",
            lows(fitted),
            t.len()
        )));
    }
    let mut out = t.to_vec();
    place_dims(Rule::Pdpd, d, t, fitted.len(), &mut out, |i| start + i)?;
    check_len(d)?;
    check_len(&out)?;
    Ok(PartialShape::Ranked(out))
}

fn infer_axes(
    data: &PartialShape,
    target: &PartialShape,
    axes: &[usize],
) -> Result<PartialShape, BroadcastError> {
    // Unique in-range axes leave rank(target) - len(axes) dims for the data, so an unknown
    // target rank is the data rank plus the number of axes (any other rank is refused).
    let t: Option<Vec<Dim>> = match target.dims() {
        Some(t) => Some(t.to_vec()),
        None => data
            .rank()
            .map(|n| vec![Dim::ANY; n.saturating_add(axes.len())]),
    };
    let mut is_new = t.as_ref().map(|t| vec![false; t.len()]);
    for (position, &axis) in axes.iter().enumerate() {
        let duplicate = match (&mut is_new, &t) {
            (Some(is_new), Some(t)) => {
                if axis >= t.len() {
                    return Err(BroadcastError::AxisOutOfRange {
                        mode: Rule::Axes,
                        axes: axes.to_vec(),
                        position,
                        axis,
                        rank: t.len(),
                        target_shape: lows(t),
                    });
                }
                std::mem::replace(&mut is_new[axis], true)
            }
            _ => axes[..position].contains(&axis),
        };
        if duplicate {
            return Err(BroadcastError::DuplicateAxis {
                mode: Rule::Axes,
                axes: axes.to_vec(),
                axis,
            });
        }
    }
    let (Some(t), Some(is_new)) = (t, is_new) else {
        return Ok(PartialShape::Dynamic);
    };
    let mut out = t.clone();
    if let Some(d) = data.dims() {
        let kept: Vec<usize> = (0..t.len()).filter(|&k| !is_new[k]).collect();
        let mismatch = || BroadcastError::AxesShapeMismatch {
            axes: axes.to_vec(),
            remaining: Dims(kept.iter().map(|&k| t[k].min()).collect()),
            data_shape: lows(d),
            target_shape: lows(&t),
        };
        if kept.len() != d.len() {
            return Err(mismatch());
        }
        for (&k, &dd) in kept.iter().zip(d) {
            out[k] = t[k].intersect(dd).ok_or_else(mismatch)?;
        }
        check_len(d)?;
    }
    check_len(&out)?;
    Ok(PartialShape::Ranked(out))
}

fn eltwise_none(a: &PartialShape, b: &PartialShape) -> Result<PartialShape, BroadcastError> {
    let out = match (a.dims(), b.dims()) {
        (None, _) => return checked_shape(b.clone()),
        (_, None) => return checked_shape(a.clone()),
        (Some(x), Some(y)) => {
            let differ = || BroadcastError::ShapesDiffer {
                mode: Rule::EltwiseNone,
                left_shape: lows(x),
                right_shape: lows(y),
            };
            if x.len() != y.len() {
                return Err(differ());
            }
            x.iter()
                .zip(y)
                .map(|(p, q)| p.intersect(*q).ok_or_else(differ))
                .collect::<Result<Vec<_>, _>>()?
        }
    };
    checked_shape(PartialShape::Ranked(out))
}

fn checked_shape(shape: PartialShape) -> Result<PartialShape, BroadcastError> {
    if let Some(dims) = shape.dims() {
        check_len(dims)?;
    }
    Ok(shape)
}

fn eltwise_numpy(a: &PartialShape, b: &PartialShape) -> Result<PartialShape, BroadcastError> {
    let (Some(x), Some(y)) = (a.dims(), b.dims()) else {
        return Ok(PartialShape::Dynamic);
    };
    let rank = x.len().max(y.len());
    // As `common_shape` walks it: A left-padded with 1s, then B merged in axis by axis, so an
    // error names the common shape so far.
    let mut common = vec![Dim::known(1); rank - x.len()];
    common.extend_from_slice(x);
    let pad = rank - y.len();
    for (i, &q) in y.iter().enumerate() {
        let c = common[pad + i];
        common[pad + i] = broadcast_merge(c, q).ok_or_else(|| BroadcastError::Incompatible {
            mode: Rule::EltwiseNumpy,
            axis: pad + i,
            left: c.min(),
            right: q.min(),
            left_shape: lows(&common),
            right_shape: lows(y),
        })?;
    }
    checked_shape(PartialShape::Ranked(common))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PartialShape {
        s.parse().unwrap()
    }

    fn d(s: &str) -> Dim {
        s.parse().unwrap()
    }

    #[test]
    fn pair_rules() {
        assert_eq!(onto(d("1..4"), d("3")), Some(d("3")));
        assert_eq!(onto(d("?"), d("3")), Some(d("3")));
        assert_eq!(onto(d("2..4"), d("3")), Some(d("3")));
        assert_eq!(onto(d("4..8"), d("3")), None);
        assert_eq!(onto(d("4..8"), d("?")), Some(d("4..8")));
        assert_eq!(broadcast_merge(d("1..4"), d("3")), Some(d("3")));
        assert_eq!(broadcast_merge(d("?"), d("1")), Some(d("?")));
        assert_eq!(broadcast_merge(d("?"), d("5")), Some(d("5")));
        assert_eq!(broadcast_merge(d("1"), d("0")), Some(d("0")));
        assert_eq!(broadcast_merge(d("..1"), d("..1")), Some(d("..1")));
        assert_eq!(broadcast_merge(d("4..8"), d("2..3")), None);
    }

    #[test]
    fn bidirectional_interval_against_known() {
        let out = infer_shape(
            &p("[1..4]"),
            &TargetShape::Known(vec![3]),
            &Mode::Bidirectional,
        );
        assert_eq!(out.unwrap(), p("[3]"));
    }

    #[test]
    fn unknown_lengths_give_unknown_rank() {
        for mode in [Mode::Numpy, Mode::Bidirectional, Mode::Pdpd { axis: -1 }] {
            assert_eq!(
                infer_shape(&p("[2,3]"), &TargetShape::Unknown, &mode).unwrap(),
                PartialShape::Dynamic
            );
        }
    }

    #[test]
    fn axes_mode_infers_the_target_rank_from_the_data() {
        let out = infer_shape(
            &p("[3,?]"),
            &TargetShape::Unknown,
            &Mode::Axes {
                broadcast_axes: vec![0],
            },
        );
        assert_eq!(out.unwrap(), p("[?,3,?]"));
        assert!(matches!(
            infer_shape(
                &p("[3]"),
                &TargetShape::Unknown,
                &Mode::Axes {
                    broadcast_axes: vec![2]
                }
            ),
            Err(BroadcastError::AxisOutOfRange { rank: 2, .. })
        ));
    }

    #[test]
    fn explicit_duplicates_refused_whatever_is_unknown() {
        assert!(matches!(
            infer_shape(
                &PartialShape::Dynamic,
                &TargetShape::Unknown,
                &Mode::Explicit {
                    axes_mapping: vec![1, 1]
                }
            ),
            Err(BroadcastError::AxesNotIncreasing { position: 1, .. })
        ));
    }

    #[test]
    fn pdpd_trailing_dims_that_may_be_one_constrain_nothing() {
        // [5,?] at axis 3 of a rank-4 target fits if the ? is a 1 (dropped).
        let out = infer_shape(&p("[5,?]"), &TargetShape::Rank(4), &Mode::Pdpd { axis: 3 });
        assert_eq!(out.unwrap(), p("[?,?,?,5]"));
        // [5,7] cannot fit there.
        assert!(matches!(
            infer_shape(&p("[5,7]"), &TargetShape::Rank(4), &Mode::Pdpd { axis: 3 }),
            Err(BroadcastError::PdpdAxis { .. })
        ));
    }

    #[test]
    fn overflow_of_the_smallest_shape_is_certain() {
        let huge = usize::MAX / 2;
        let data = PartialShape::Ranked(vec![Dim::at_least(huge), Dim::at_least(huge)]);
        assert!(matches!(
            infer_shape(&data, &TargetShape::Rank(2), &Mode::Bidirectional),
            Err(BroadcastError::ShapeOverflow { .. })
        ));
    }
}
