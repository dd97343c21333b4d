//! The multi-operand plan: where each of `N` operands is read for every output element.
//!
//! An [`EltwisePlan`] holds the output shape and, per output axis, one `isize` stride per
//! operand (in elements, the operand view's own stride; 0 where the operand is broadcast),
//! plus each operand's base offset. It is simplified jointly: size-1 axes are dropped, and two
//! adjacent axes are merged only where *every* operand's strides chain across them. It then
//! picks the row the executor writes with one inner loop: the innermost axis, widened over the
//! axes above while it is short and every operand either chains across (a longer run) or is
//! broadcast along them (a short block that repeats: [`RowKind::Periodic`], tiled by the
//! executor).

use crate::auto_broadcast::{eltwise_shape, AutoBroadcast};
use crate::error::{BroadcastError, Dims};
use crate::mode::Rule;
use crate::plan::AxisList;
use crate::planners::{common_shape, plan_pdpd};
use crate::shape::checked_len;

/// Rows shorter than this many elements are widened over the axes above when they can be.
pub(crate) const MIN_ROW_ELEMS: usize = 256;

/// How one operand is read along a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowKind {
    /// Row element `i` is at `row_offset + i * stride` (0: one value for the whole row; 1: a
    /// contiguous run).
    Run {
        /// Stride along the row.
        stride: isize,
    },
    /// Row element `i` is at `row_offset + (i % period) * stride`: a short block repeated
    /// along the row (the operand is broadcast along the row's outer axes).
    Periodic {
        /// Block length; divides the row length.
        period: usize,
        /// Stride within the block.
        stride: isize,
    },
}

/// The plan of an `N`-operand element-wise op. See the module documentation.
#[derive(Clone)]
pub(crate) struct EltwisePlan<const N: usize> {
    /// The output shape, unsimplified.
    out_shape: AxisList<usize>,
    /// Simplified dims (never empty once built: a scalar output is one axis of 1).
    dims: AxisList<usize>,
    /// Per simplified axis, one stride per operand.
    strides: AxisList<[isize; N]>,
    /// Each operand's offset at the output's origin.
    bases: [isize; N],
    /// Number of output elements.
    len: usize,
    /// Axes `..outer` are walked by the odometer; the rest form one row.
    outer: usize,
    /// Elements per row.
    row_len: usize,
    /// How each operand is read along a row.
    kinds: [RowKind; N],
}

impl<const N: usize> EltwisePlan<N> {
    /// Plans `N` operands of shapes `shapes` and strides `strides` (elements, as the views
    /// report them) under `spec`. Under PDPD operand `target` gives the output shape and every
    /// other operand is PDPD-broadcast onto it; under numpy all broadcast together; under none
    /// all shapes must be equal. `periodic` allows [`RowKind::Periodic`] rows (the executor
    /// must then tile those operands).
    ///
    /// # Errors
    /// The rule's error (named by the spec's [`Rule`]), or [`BroadcastError::ShapeOverflow`].
    #[inline(always)]
    pub(crate) fn new(
        shapes: [&[usize]; N],
        strides: [&[isize]; N],
        target: usize,
        spec: &AutoBroadcast,
        periodic: bool,
    ) -> Result<Self, BroadcastError> {
        let mut plan = EltwisePlan::empty();
        plan.build(shapes, strides, target, spec, periodic)?;
        Ok(plan)
    }

    /// A plan of no axes, to be built in place ([`EltwisePlan::build`]).
    #[inline(always)]
    pub(crate) fn empty() -> Self {
        EltwisePlan {
            out_shape: AxisList::new(),
            dims: AxisList::new(),
            strides: AxisList::filled([0; N]),
            bases: [0; N],
            len: 0,
            outer: 0,
            row_len: 1,
            kinds: [RowKind::Run { stride: 0 }; N],
        }
    }

    /// [`EltwisePlan::new`] into an [`EltwisePlan::empty`] plan. The lists are filled where
    /// they live: a list written entry by entry and then moved is read back with wide loads
    /// before its narrow stores have landed, a stall that cost a tiny op more than planning.
    ///
    /// # Errors
    /// As [`EltwisePlan::new`].
    pub(crate) fn build(
        &mut self,
        shapes: [&[usize]; N],
        strides: [&[isize]; N],
        target: usize,
        spec: &AutoBroadcast,
        periodic: bool,
    ) -> Result<(), BroadcastError> {
        let mut starts = [0usize; N];
        layout_into(
            &mut self.out_shape,
            &shapes,
            target,
            spec,
            N == 2,
            &mut starts,
        )?;
        let out = &self.out_shape[..];
        self.len = checked_len(out)?;
        for (k, &d) in out.iter().enumerate() {
            if d == 1 {
                continue;
            }
            let mut s = [0isize; N];
            for j in 0..N {
                if k >= starts[j] && k - starts[j] < shapes[j].len() {
                    let a = k - starts[j];
                    if shapes[j][a] != 1 {
                        s[j] = strides[j][a];
                    }
                }
            }
            // Merge into the axis above when every operand chains across the two.
            let merge = match (self.dims.last_mut(), self.strides.last_mut()) {
                (Some(_), Some(prev)) => (0..N).all(|j| prev[j] == s[j].wrapping_mul(d as isize)),
                _ => false,
            };
            if merge {
                if let Some(pd) = self.dims.last_mut() {
                    *pd *= d;
                }
                if let Some(ps) = self.strides.last_mut() {
                    *ps = s;
                }
            } else {
                self.dims.push(d);
                self.strides.push(s);
            }
        }
        if self.dims.is_empty() {
            self.dims.push(1);
            self.strides.push([0; N]);
        }
        self.choose_row(periodic);
        Ok(())
    }

    /// Picks the row: the innermost axis, widened while short (see the module docs).
    fn choose_row(&mut self, periodic: bool) {
        let dims = &self.dims[..];
        let strides = &self.strides[..];
        let mut top = dims.len() - 1;
        let mut row_len = dims[top];
        let mut kinds = [RowKind::Run { stride: 0 }; N];
        for (j, kind) in kinds.iter_mut().enumerate() {
            *kind = RowKind::Run {
                stride: strides[top][j],
            };
        }
        while row_len < MIN_ROW_ELEMS && top > 0 {
            let k = top - 1;
            let mut next = kinds;
            let mut ok = true;
            for (j, kind) in next.iter_mut().enumerate() {
                let s = strides[k][j];
                *kind = match *kind {
                    RowKind::Run { stride } if s == stride.wrapping_mul(row_len as isize) => {
                        RowKind::Run { stride }
                    }
                    RowKind::Run { stride } if s == 0 && periodic => RowKind::Periodic {
                        period: row_len,
                        stride,
                    },
                    p @ RowKind::Periodic { .. } if s == 0 => p,
                    _ => {
                        ok = false;
                        break;
                    }
                };
            }
            if !ok {
                break;
            }
            kinds = next;
            row_len *= dims[k];
            top = k;
        }
        self.outer = top;
        self.row_len = row_len;
        self.kinds = kinds;
    }

    /// The output shape.
    pub(crate) fn out_shape(&self) -> &[usize] {
        &self.out_shape[..]
    }

    /// Number of output elements.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Simplified dims.
    #[cfg(test)]
    pub(crate) fn dims(&self) -> &[usize] {
        &self.dims[..]
    }

    /// Dims of the outer axes (walked by the odometer).
    pub(crate) fn outer_dims(&self) -> &[usize] {
        &self.dims[..self.outer]
    }

    /// Strides of the outer axes.
    pub(crate) fn outer_strides(&self) -> &[[isize; N]] {
        &self.strides[..self.outer]
    }

    /// Operand offsets at the origin.
    pub(crate) fn bases(&self) -> [isize; N] {
        self.bases
    }

    /// Elements per row.
    pub(crate) fn row_len(&self) -> usize {
        self.row_len
    }

    /// How each operand is read along a row.
    pub(crate) fn kinds(&self) -> [RowKind; N] {
        self.kinds
    }
}

/// The output shape of operands of `shapes` under `spec` (pdpd: onto operand `target`) and,
/// for any number of operands, the output axis each operand's axis 0 lies on (an expression
/// node's operands, placed as the op alone would place them).
///
/// # Errors
/// As [`EltwisePlan::new`]; `pairwise` names a numpy failure by the two-operand rule (as a
/// binary op reports it) rather than the N-ary one.
pub(crate) fn operand_starts(
    shapes: &[&[usize]],
    target: usize,
    spec: &AutoBroadcast,
    pairwise: bool,
) -> Result<(Vec<usize>, Vec<usize>), BroadcastError> {
    let mut starts = vec![0usize; shapes.len()];
    let out = shape_and_starts(shapes, target, spec, pairwise, &mut starts)?;
    Ok((out, starts))
}

/// [`operand_starts`]'s output shape alone: the start axes of up to eight operands stay on the
/// stack, so a one-shot call that asks for the shape allocates only the shape.
pub(crate) fn output_shape(
    shapes: &[&[usize]],
    target: usize,
    spec: &AutoBroadcast,
    pairwise: bool,
) -> Result<Vec<usize>, BroadcastError> {
    if shapes.len() > 8 {
        return Ok(operand_starts(shapes, target, spec, pairwise)?.0);
    }
    let mut starts = [0usize; 8];
    shape_and_starts(shapes, target, spec, pairwise, &mut starts[..shapes.len()])
}

/// The output shape (checked to have a length), each operand's start axis set in `starts`.
fn shape_and_starts(
    shapes: &[&[usize]],
    target: usize,
    spec: &AutoBroadcast,
    pairwise: bool,
    starts: &mut [usize],
) -> Result<Vec<usize>, BroadcastError> {
    let mut out = AxisList::new();
    layout_into(&mut out, shapes, target, spec, pairwise, starts)?;
    checked_len(&out)?;
    Ok(out.to_vec())
}

/// Pushes the output shape onto `out` (empty) and sets each operand's start axis.
// Inlined into `build`, where the operand count is a constant.
#[inline(always)]
fn layout_into(
    out: &mut AxisList<usize>,
    shapes: &[&[usize]],
    target: usize,
    spec: &AutoBroadcast,
    pairwise: bool,
    starts: &mut [usize],
) -> Result<(), BroadcastError> {
    match *spec {
        AutoBroadcast::None => {
            if let Some(j) = (0..shapes.len()).find(|&j| shapes[j] != shapes[0]) {
                return Err(BroadcastError::ShapesDiffer {
                    mode: Rule::EltwiseNone,
                    left_shape: Dims(shapes[0].to_vec()),
                    right_shape: Dims(shapes[j].to_vec()),
                });
            }
            for &d in shapes[0] {
                out.push(d);
            }
        }
        AutoBroadcast::Numpy => {
            let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
            for _ in 0..rank {
                out.push(1);
            }
            let o = &mut out[..];
            for (j, shape) in shapes.iter().enumerate() {
                let pad = rank - shape.len();
                starts[j] = pad;
                for (i, &d) in shape.iter().enumerate() {
                    let c = &mut o[pad + i];
                    if *c == 1 {
                        *c = d;
                    } else if d != 1 && d != *c {
                        let err = if pairwise {
                            eltwise_shape(shapes[0], shapes[1], spec).err()
                        } else {
                            common_shape(shapes, Rule::EltwiseNumpy).err()
                        };
                        return Err(err.unwrap_or_else(|| incompatible(pad + i, *c, d, shape)));
                    }
                }
            }
        }
        AutoBroadcast::Pdpd { axis } => {
            let t = shapes[target];
            for &d in t {
                out.push(d);
            }
            for (j, shape) in shapes.iter().enumerate() {
                if j == target {
                    continue;
                }
                if shape.len() > t.len() {
                    // Element-wise rule 1: rank(B) <= rank(A), trailing 1s or not (the
                    // Broadcast planner has no such rule; OpenVINO's reference refuses it).
                    return Err(BroadcastError::PdpdAxis {
                        axis,
                        reason: format!(
                            "element-wise PDPD needs rank(B) {} <= rank(A) {}",
                            shape.len(),
                            t.len()
                        ),
                        data_shape: Dims(shape.to_vec()),
                        target_shape: Dims(t.to_vec()),
                    });
                }
                starts[j] = pdpd_start(shape, t, axis).ok_or_else(|| {
                    match plan_pdpd(shape, t, axis) {
                        Err(e) => e.with_rule(Rule::EltwisePdpd),
                        // Unreachable: the check above is plan_pdpd's rule.
                        Ok(_) => incompatible(0, 0, 0, shape),
                    }
                })?;
            }
        }
    }
    Ok(())
}

/// The PDPD start axis of `b` on `a`, or `None` when the rule is broken (see
/// [`crate::planners::plan_pdpd`]: B's trailing 1s dropped for the fit, `-1` meaning
/// `rank(A) - rank(B)` with B's full rank, each kept B dim equal to A's or 1).
///
/// Where B's trailing 1s run past A's end we follow the spec (they are dropped and B fits);
/// OpenVINO 2026.4 refuses that case.
fn pdpd_start(b: &[usize], a: &[usize], axis: i64) -> Option<usize> {
    let start = match axis {
        -1 => a.len().checked_sub(b.len())?,
        x if x < 0 => return None,
        x => usize::try_from(x).ok()?,
    };
    let kept = b.len() - b.iter().rev().take_while(|&&d| d == 1).count();
    if start > a.len() || kept > a.len() - start {
        return None;
    }
    b[..kept]
        .iter()
        .zip(&a[start..])
        .all(|(&d, &t)| d == t || d == 1)
        .then_some(start)
}

fn incompatible(axis: usize, left: usize, right: usize, shape: &[usize]) -> BroadcastError {
    BroadcastError::Incompatible {
        mode: Rule::EltwiseNumpy,
        axis,
        left,
        right,
        left_shape: Dims(Vec::new()),
        right_shape: Dims(shape.to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_major(shape: &[usize]) -> Vec<isize> {
        let mut s = vec![0isize; shape.len()];
        let mut acc = 1isize;
        for k in (0..shape.len()).rev() {
            s[k] = acc;
            acc *= shape[k] as isize;
        }
        s
    }

    fn plan2(a: &[usize], b: &[usize], spec: AutoBroadcast) -> EltwisePlan<2> {
        let (sa, sb) = (row_major(a), row_major(b));
        EltwisePlan::new([a, b], [&sa, &sb], 0, &spec, true).unwrap()
    }

    #[test]
    fn axes_merge_only_where_every_operand_chains() {
        let p = plan2(&[1, 64, 512, 512], &[64, 1, 1], AutoBroadcast::Numpy);
        assert_eq!(p.dims(), &[64, 512 * 512]);
        assert_eq!(p.outer_strides(), &[[512 * 512, 1]]);
        assert_eq!(
            p.kinds(),
            [RowKind::Run { stride: 1 }, RowKind::Run { stride: 0 }]
        );
        let p = plan2(&[4096, 4096], &[4096, 4096], AutoBroadcast::None);
        assert_eq!(p.dims(), &[4096 * 4096]);
        assert_eq!(p.outer_dims(), &[] as &[usize]);
    }

    #[test]
    fn short_rows_widen_into_periodic_blocks() {
        let p = plan2(&[1, 2048, 2048, 3], &[3], AutoBroadcast::Numpy);
        assert_eq!(p.row_len(), 2048 * 2048 * 3);
        assert_eq!(
            p.kinds(),
            [
                RowKind::Run { stride: 1 },
                RowKind::Periodic {
                    period: 3,
                    stride: 1
                }
            ]
        );
        // A column operand under a short row cannot widen.
        let p = plan2(&[3, 1], &[4], AutoBroadcast::Numpy);
        assert_eq!(p.row_len(), 4);
        assert_eq!(p.outer_dims(), &[3]);
    }

    #[test]
    fn pdpd_places_b_from_the_axis() {
        let p = plan2(&[8, 512, 64, 64], &[512], AutoBroadcast::Pdpd { axis: 1 });
        assert_eq!(p.dims(), &[8, 512, 4096]);
        assert!(EltwisePlan::<2>::new(
            [&[2, 3, 4, 5], &[3, 1]],
            [&row_major(&[2, 3, 4, 5]), &row_major(&[3, 1])],
            0,
            &AutoBroadcast::Pdpd { axis: -1 },
            true
        )
        .is_err());
        assert_eq!(pdpd_start(&[5, 1], &[2, 3, 4, 5], 3), Some(3));
        assert_eq!(pdpd_start(&[], &[2, 3, 4, 5], -1), Some(4));
        assert_eq!(pdpd_start(&[7, 1, 5], &[8, 1, 6, 1], 1), None);
    }
}
