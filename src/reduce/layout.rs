//! Which gradient elements sum into which data element, folded into a few axes.

use crate::exec::Odometer;
use crate::plan::StridePlan;

/// Some axes of the (row-major) gradient: sizes and element strides, outermost first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Axes {
    pub dims: Vec<usize>,
    pub strides: Vec<usize>,
}

impl Axes {
    /// Number of positions (1 for no axes).
    pub fn count(&self) -> usize {
        // Cannot overflow: a sub-product of the gradient's checked element count.
        self.dims.iter().product()
    }
}

/// Walks the positions of some [`Axes`] in order from position `pos`: the shared odometer
/// with one operand, the gradient. Strides are `usize` and at most `isize::MAX` (offsets into
/// a checked array), so they are read as one-operand stride rows without a copy.
pub(crate) fn walk(axes: &Axes, pos: usize) -> Odometer<'_, 1> {
    Odometer::at(&axes.dims, bytemuck::cast_slice(&axes.strides), [0], pos)
}

/// The gradient offset a [`walk`] points at.
#[inline(always)]
pub(crate) fn offset(at: &Odometer<'_, 1>) -> usize {
    at.offsets()[0] as usize
}

/// The innermost run of the gradient, which every other axis repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inner {
    /// `n` contiguous elements that land in `n` contiguous data elements: rows are added.
    Kept(usize),
    /// `n` contiguous elements that sum into one data element.
    Reduced(usize),
}

/// A reduction of a non-empty row-major gradient to the data shape.
///
/// Data element `u * unit_len + x` (with `unit_len` the `Kept` width, or 1) is the sum over
/// every position `j` of `reduced` of the gradient at `units.offset_of(u) + reduced
/// .offset_of(j)` plus `x` (`Kept`) or summed over the `Reduced` run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Kept axes outside the inner run; their positions are the data's, in order.
    pub units: Axes,
    /// Summed axes outside the inner run.
    pub reduced: Axes,
    /// The inner run.
    pub inner: Inner,
}

impl Layout {
    /// The layout of a plan's gradient. Size-1 axes are dropped (nothing to sum or to move
    /// along) and neighbours of the same kind merged: in a row-major gradient they chain,
    /// and kept neighbours are neighbours in the data too, because a plan reads the data's
    /// axes in order.
    ///
    /// Precondition: `!plan.is_empty()` (an empty gradient sums to zeros without a layout).
    pub fn new(plan: &StridePlan) -> Self {
        debug_assert!(!plan.is_empty());
        let shape = plan.output_shape();
        // (kept, size, stride), outermost first.
        let mut segments: Vec<(bool, usize, usize)> = Vec::with_capacity(shape.len());
        let mut stride = 1usize;
        for (&d, axis) in shape.iter().zip(plan.source_axes()).rev() {
            if d != 1 {
                let kept = axis.is_some();
                match segments.last_mut() {
                    Some(last) if last.0 == kept => last.1 *= d,
                    _ => segments.push((kept, d, stride)),
                }
            }
            // Cannot overflow: the plan checked the product of the output shape.
            stride *= d;
        }
        segments.reverse();
        let inner = match segments.pop() {
            None => Inner::Kept(1),
            Some((true, d, _)) => Inner::Kept(d),
            Some((false, d, _)) => Inner::Reduced(d),
        };
        let mut units = Axes::default();
        let mut reduced = Axes::default();
        for (kept, d, s) in segments {
            let axes = if kept { &mut units } else { &mut reduced };
            axes.dims.push(d);
            axes.strides.push(s);
        }
        Layout {
            units,
            reduced,
            inner,
        }
    }

    /// Data elements written per unit.
    pub fn unit_len(&self) -> usize {
        match self.inner {
            Inner::Kept(c) => c,
            Inner::Reduced(_) => 1,
        }
    }

    /// Gradient elements read per unit.
    pub fn unit_work(&self) -> usize {
        let run = match self.inner {
            Inner::Kept(c) | Inner::Reduced(c) => c,
        };
        self.reduced.count() * run
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planners::*;

    fn axes(dims: &[usize], strides: &[usize]) -> Axes {
        Axes {
            dims: dims.to_vec(),
            strides: strides.to_vec(),
        }
    }

    #[test]
    fn channel_gradient_sums_each_plane() {
        // [1,16,50,50] -> [16,1,1]: 16 units, each a run of 2500.
        let l = Layout::new(&plan_numpy(&[16, 1, 1], &[1, 16, 50, 50]).unwrap());
        assert_eq!(l.units, axes(&[16], &[2500]));
        assert_eq!(l.reduced, Axes::default());
        assert_eq!(l.inner, Inner::Reduced(2500));
    }

    #[test]
    fn row_gradient_adds_rows() {
        let l = Layout::new(&plan_numpy(&[1000], &[8, 1000]).unwrap());
        assert_eq!(l.units, Axes::default());
        assert_eq!(l.reduced, axes(&[8], &[1000]));
        assert_eq!(l.inner, Inner::Kept(1000));
    }

    #[test]
    fn alternating_axes_stay_apart_and_ones_vanish() {
        // [2,1,3] -> [5,2,4,1,3]: R5 K2 R4 K3.
        let p = plan_numpy(&[2, 1, 3], &[5, 2, 4, 3]).unwrap();
        let l = Layout::new(&p);
        assert_eq!(l.units, axes(&[2], &[12]));
        assert_eq!(l.reduced, axes(&[5, 4], &[24, 3]));
        assert_eq!(l.inner, Inner::Kept(3));
        assert_eq!(l.unit_len(), 3);
        assert_eq!(l.unit_work(), 60);
    }

    #[test]
    fn identity_is_one_kept_run_and_scalar_is_one_element() {
        let l = Layout::new(&plan_numpy(&[2, 3], &[2, 3]).unwrap());
        assert_eq!(l.inner, Inner::Kept(6));
        let l = Layout::new(&plan_numpy(&[], &[1, 1]).unwrap());
        assert_eq!(l.inner, Inner::Kept(1));
        assert_eq!(l.unit_work(), 1);
    }

    #[test]
    fn odometer_walks_row_major_positions() {
        let a = axes(&[2, 3], &[100, 7]);
        let mut o = walk(&a, 1);
        let mut seen = vec![offset(&o)];
        for _ in 0..5 {
            o.step();
            seen.push(offset(&o));
        }
        assert_eq!(seen, vec![7, 14, 100, 107, 114, 0]);
        assert_eq!(a.count(), 6);
    }
}
