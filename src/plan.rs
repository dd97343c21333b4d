//! The stride plan: the one representation every planner produces and the executor runs.

mod axis_list;

pub(crate) use axis_list::AxisList;

use crate::error::BroadcastError;
use crate::shape::checked_len;
#[cfg(test)]
use crate::shape::contiguous_strides;

/// Where every output element comes from.
///
/// The plan holds the output shape and, per output axis, the stride in elements of the
/// (row-major, contiguous) source: 0 on an axis the data is broadcast along. Output element
/// at multi-index `i` reads source element `sum(i[k] * axis_strides[k])`.
///
/// A simplified copy ([`dims`](Self::dims), [`strides`](Self::strides)) drops size-1 axes and
/// merges adjacent axes whose strides chain (`outer == inner * inner_dim`, which covers two
/// broadcast axes as well as two contiguous ones). That is what the executor walks.
///
/// The plan also records which source axis each output axis reads
/// ([`source_axes`](Self::source_axes)), so that a caller with a source of another layout
/// (a transposed or sliced view) can build its own strides, and a gradient can be summed back
/// over exactly the axes the data was repeated along.
///
/// Invariants (established when the plan is built, relied on by the executor):
/// - `len == product(output_shape)` fits in `usize`;
/// - every source index reached is `< source_len`;
/// - an empty output has `dims == [0]`; a one-element output has `dims == []`.
///
/// Every list is stored inline up to rank 8, so planning a broadcast of that rank does not
/// allocate; higher ranks work the same, on the heap.
///
/// Plan once, run many times (the shapes are checked once):
///
/// ```
/// use bcast::{plan, run_plan_into, Mode, Parallelism};
/// use ndarray::{arr1, ArrayD, IxDyn};
///
/// let p = plan(&[3], &[2, 3], &Mode::Numpy)?;
/// assert_eq!(p.output_shape(), &[2, 3]);
/// assert_eq!(p.axis_strides(), &[0, 1]); // axis 0 repeats, axis 1 reads
/// let mut out = ArrayD::<f32>::zeros(IxDyn(&[2, 3]));
/// for bias in [[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]] {
///     run_plan_into(&p, arr1(&bias).into_dyn().view(), out.view_mut(), Parallelism::Serial)?;
///     assert_eq!(out[[1, 2]], bias[2]);
/// }
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StridePlan {
    source_shape: AxisList<usize>,
    output_shape: AxisList<usize>,
    axis_strides: AxisList<usize>,
    source_axes: AxisList<Option<usize>>,
    dims: AxisList<usize>,
    strides: AxisList<usize>,
    len: usize,
    source_len: usize,
}

impl StridePlan {
    /// Builds and simplifies a plan.
    ///
    /// # Errors
    /// [`BroadcastError::ShapeOverflow`] if either shape's element count overflows `usize`.
    ///
    /// # Panics
    /// If `axis_strides.len() != output_shape.len()` or a stride would index past the source
    /// (both are planner bugs, never input errors; checked with `assert!` because the
    /// executor's memory safety depends on them).
    // Planners build in place (`start_source_axes`, `finish_from_source_axes`); tests build
    // plans by hand through this and `from_source_axes`.
    #[cfg(test)]
    pub(crate) fn new(
        source_shape: &[usize],
        output_shape: &[usize],
        axis_strides: Vec<usize>,
    ) -> Result<Self, BroadcastError> {
        assert_eq!(
            axis_strides.len(),
            output_shape.len(),
            "planner bug: stride count"
        );
        let source_axes = infer_source_axes(source_shape, output_shape, &axis_strides)?;
        let mut plan = Self::empty();
        plan.start_source_axes(source_axes.len())
            .copy_from_slice(&source_axes);
        plan.set_shapes(source_shape, output_shape)?;
        plan.axis_strides.copy_from_slice(&axis_strides);
        plan.simplify();
        Ok(plan)
    }

    /// Builds a plan from the source axis each output axis reads (`None`: the axis is new or
    /// a size-1 source axis stretched, so the source does not move along it). The strides
    /// follow from the row-major layout of the source; this is how the planners build plans.
    ///
    /// # Errors
    /// [`BroadcastError::ShapeOverflow`] if either shape's element count overflows `usize`.
    ///
    /// # Panics
    /// As [`fill_from_source_axes`](Self::fill_from_source_axes).
    #[cfg(test)]
    pub(crate) fn from_source_axes(
        source_shape: &[usize],
        output_shape: &[usize],
        source_axes: &[Option<usize>],
    ) -> Result<Self, BroadcastError> {
        let mut plan = Self::empty();
        plan.fill_from_source_axes(source_shape, output_shape, source_axes)?;
        Ok(plan)
    }

    /// A plan of nothing (no axes, no elements), for a planner to fill in place with
    /// [`start_source_axes`](Self::start_source_axes) and
    /// [`finish_from_source_axes`](Self::finish_from_source_axes). Never handed out as it is.
    ///
    /// Planning in place matters for small broadcasts: a plan is a few hundred bytes (its
    /// lists are inline), Rust moves a returned value by copying it, and copying freshly
    /// written entries stalls on store forwarding; a handful of such moves cost more than
    /// the planning itself.
    pub(crate) fn empty() -> Self {
        StridePlan {
            source_shape: AxisList::new(),
            output_shape: AxisList::new(),
            axis_strides: AxisList::new(),
            source_axes: AxisList::new(),
            dims: AxisList::new(),
            strides: AxisList::new(),
            len: 0,
            source_len: 0,
        }
    }

    /// Makes `self` the plan [`from_source_axes`](Self::from_source_axes) builds, in place
    /// (whatever `self` held before is replaced). On error `self` is left half-built: the
    /// callers drop it.
    ///
    /// # Errors
    /// As [`finish_from_source_axes`](Self::finish_from_source_axes).
    ///
    /// # Panics
    /// As [`finish_from_source_axes`](Self::finish_from_source_axes).
    #[cfg(test)]
    pub(crate) fn fill_from_source_axes(
        &mut self,
        source_shape: &[usize],
        output_shape: &[usize],
        source_axes: &[Option<usize>],
    ) -> Result<(), BroadcastError> {
        self.start_source_axes(source_axes.len())
            .copy_from_slice(source_axes);
        self.finish_from_source_axes(source_shape, output_shape)
    }

    /// Starts filling `self` in place: returns its source axes, `rank` entries of `None`, for
    /// a planner to set where the source moves, before
    /// [`finish_from_source_axes`](Self::finish_from_source_axes). (A planner that wrote
    /// them to a list of its own would copy them here again.)
    pub(crate) fn start_source_axes(&mut self, rank: usize) -> &mut [Option<usize>] {
        self.source_axes.clear();
        self.source_axes.extend_repeated(None, rank);
        &mut self.source_axes
    }

    /// Makes `self` a plan of `source_shape` broadcast to `output_shape` through the source
    /// axes set since [`start_source_axes`](Self::start_source_axes).
    ///
    /// # Errors
    /// [`BroadcastError::ShapeOverflow`] if either shape's element count overflows `usize`.
    ///
    /// # Panics
    /// If the mapping is not one a broadcast can make (planner bugs, never input errors):
    /// wrong length, a source axis out of range or not strictly increasing, a mapped axis
    /// whose size differs from its output axis, or a source axis of size other than 1 that
    /// no output axis reads.
    pub(crate) fn finish_from_source_axes(
        &mut self,
        source_shape: &[usize],
        output_shape: &[usize],
    ) -> Result<(), BroadcastError> {
        assert_eq!(
            self.source_axes.len(),
            output_shape.len(),
            "planner bug: source axis count"
        );
        self.set_shapes(source_shape, output_shape)?;
        let source_axes = &self.source_axes;
        // One walk from the innermost axis out, with no list of source strides: `stride` is
        // the row-major stride of the source axes not yet passed (the product of the dims of
        // those passed, each at least 1, as `contiguous_strides` has it), and every source
        // axis from `pending` on has been passed. Read axes must come in decreasing order
        // on this walk (increasing in the mapping), so the unread ones are the gaps passed
        // between two read ones, and the rest below the outermost.
        let mut pending = source_shape.len();
        let mut stride = 1usize;
        let mut unread_are_ones = true;
        for (k, (&axis, &out_dim)) in source_axes.iter().zip(output_shape).enumerate().rev() {
            let Some(i) = axis else {
                continue;
            };
            assert!(
                i < pending,
                "planner bug: source axes {source_axes:?} out of range or not increasing"
            );
            assert_eq!(
                source_shape[i], out_dim,
                "planner bug: source axis {i} mapped to an output axis of another size"
            );
            for &d in &source_shape[i + 1..pending] {
                unread_are_ones &= d == 1;
                // Cannot saturate: the source length was checked, and a zero dim counts
                // as 1 here, which keeps the product at or below checked partial products.
                stride = stride.saturating_mul(d.max(1));
            }
            self.axis_strides[k] = stride;
            stride = stride.saturating_mul(source_shape[i].max(1));
            pending = i;
        }
        unread_are_ones &= source_shape[..pending].iter().all(|&d| d == 1);
        assert!(
            unread_are_ones,
            "planner bug: a source axis of size other than 1 is not read"
        );
        self.simplify();
        Ok(())
    }

    /// Sets the shapes and lengths, every axis stride to 0, and clears the simplified axes.
    ///
    /// # Errors
    /// [`BroadcastError::ShapeOverflow`], for the source shape first.
    fn set_shapes(
        &mut self,
        source_shape: &[usize],
        output_shape: &[usize],
    ) -> Result<(), BroadcastError> {
        self.source_len = checked_len(source_shape)?;
        self.len = checked_len(output_shape)?;
        self.source_shape.clear();
        self.source_shape.extend_from_slice(source_shape);
        self.output_shape.clear();
        self.output_shape.extend_from_slice(output_shape);
        self.axis_strides.clear();
        self.axis_strides.extend_repeated(0, output_shape.len());
        self.dims.clear();
        self.strides.clear();
        Ok(())
    }

    /// Fills the simplified axes from the per-axis ones (size-1 axes dropped, chained
    /// neighbours merged, outermost first) and checks that they stay inside the source.
    ///
    /// # Panics
    /// If a stride would index past the source (a planner bug).
    fn simplify(&mut self) {
        if self.len == 0 {
            self.dims.push(0);
            self.strides.push(0);
            return;
        }
        let (dims, strides) = (&mut self.dims, &mut self.strides);
        for (&d, &s) in self.output_shape.iter().zip(&self.axis_strides) {
            if d == 1 {
                continue;
            }
            if let (Some(last_d), Some(last_s)) = (dims.last_mut(), strides.last_mut()) {
                // `s * d` cannot overflow when s > 0: it is at most the source length.
                if *last_s == s.saturating_mul(d) {
                    *last_d *= d;
                    *last_s = s;
                    continue;
                }
            }
            dims.push(d);
            strides.push(s);
        }
        // The largest source index reached: every axis at its last position.
        let max_index = dims
            .iter()
            .zip(strides.iter())
            .map(|(&d, &s)| (d - 1).checked_mul(s))
            .try_fold(0usize, |acc, v| acc.checked_add(v?));
        assert!(
            matches!(max_index, Some(m) if m < self.source_len),
            "planner bug: plan reads past the source"
        );
    }

    /// The shape of the data the plan reads (row-major, contiguous).
    pub fn source_shape(&self) -> &[usize] {
        &self.source_shape
    }

    /// The shape of the output.
    pub fn output_shape(&self) -> &[usize] {
        &self.output_shape
    }

    /// Source stride (in elements) of each output axis; 0 where the axis is broadcast.
    pub fn axis_strides(&self) -> &[usize] {
        &self.axis_strides
    }

    /// The source axis each output axis reads, `None` where the source does not move along
    /// it (a new axis, or a size-1 source axis stretched).
    ///
    /// Every source axis of size other than 1 appears exactly once, in increasing order, on
    /// an output axis of the same size; a size-1 source axis may appear (on a size-1 output
    /// axis) or not. So a source element's output positions are: its own index on the mapped
    /// axes, anything on the others.
    ///
    /// ```
    /// // A [3] bias on the channel axis of NCHW.
    /// let plan = bcast::planners::plan_explicit(&[3], &[2, 3, 4, 4], &[1]).unwrap();
    /// assert_eq!(plan.source_axes(), &[None, Some(0), None, None]);
    /// // [3,1] against [2,1,6]: the size-1 axis is stretched, so it is not read.
    /// let plan = bcast::planners::plan_bidirectional(&[3, 1], &[2, 1, 6]).unwrap();
    /// assert_eq!(plan.source_axes(), &[None, Some(0), None]);
    /// ```
    pub fn source_axes(&self) -> &[Option<usize>] {
        &self.source_axes
    }

    /// The simplified output dimensions (size-1 axes dropped, chained axes merged).
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// Source strides of the simplified dimensions.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// Number of output elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the output has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of source elements.
    pub fn source_len(&self) -> usize {
        self.source_len
    }

    /// Output axes the data is broadcast along (stride 0 and size other than 1, or a size-1
    /// output axis with no data axis behind it is not listed: nothing is repeated there).
    pub fn broadcast_axes(&self) -> Vec<usize> {
        (0..self.output_shape.len())
            .filter(|&k| self.axis_strides[k] == 0 && self.output_shape[k] != 1)
            .collect()
    }
}

/// The source axis of each output axis, recovered from row-major strides: for a plan that
/// [`StridePlan::new`] receives already made (not from a planner), the first source axis
/// after the last one matched with the same row-major stride and the same size. Row-major
/// strides of axes of size above 1 are distinct, so only size-0 and size-1 axes can be
/// ambiguous, and there any choice indexes the same elements. An axis with no match is
/// `None`.
#[cfg(test)]
fn infer_source_axes(
    source_shape: &[usize],
    output_shape: &[usize],
    axis_strides: &[usize],
) -> Result<Vec<Option<usize>>, BroadcastError> {
    let src_strides = contiguous_strides(source_shape)?;
    let mut next = 0usize;
    Ok(output_shape
        .iter()
        .zip(axis_strides)
        .map(|(&d, &s)| {
            if s == 0 {
                return None;
            }
            let found = (next..source_shape.len())
                .find(|&i| src_strides[i] == s && source_shape[i] == d)?;
            next = found + 1;
            Some(found)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(src: &[usize], out: &[usize], strides: &[usize]) -> StridePlan {
        StridePlan::new(src, out, strides.to_vec()).unwrap()
    }

    #[test]
    fn size_one_axes_are_dropped() {
        let p = plan(&[3], &[1, 3, 1], &[0, 1, 0]);
        assert_eq!(p.dims(), &[3]);
        assert_eq!(p.strides(), &[1]);
    }

    #[test]
    fn broadcast_axes_merge_with_each_other() {
        // [16,1,1] -> [1,16,50,50]: the two 50s are one fill of 2500.
        let p = plan(&[16, 1, 1], &[1, 16, 50, 50], &[0, 1, 0, 0]);
        assert_eq!(p.dims(), &[16, 2500]);
        assert_eq!(p.strides(), &[1, 0]);
    }

    #[test]
    fn contiguous_axes_merge_into_one_run() {
        let p = plan(&[2, 3, 4], &[5, 2, 3, 4], &[0, 12, 4, 1]);
        assert_eq!(p.dims(), &[5, 24]);
        assert_eq!(p.strides(), &[0, 1]);
    }

    #[test]
    fn alternating_axes_stay_apart() {
        let p = plan(&[2, 1, 3], &[2, 4, 3], &[3, 0, 1]);
        assert_eq!(p.dims(), &[2, 4, 3]);
        assert_eq!(p.strides(), &[3, 0, 1]);
    }

    #[test]
    fn scalar_output_has_no_axes() {
        let p = plan(&[], &[1, 1], &[0, 0]);
        assert!(p.dims().is_empty());
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn empty_output_is_one_zero_axis() {
        let p = plan(&[1], &[3, 0], &[0, 0]);
        assert_eq!(p.dims(), &[0]);
        assert!(p.is_empty());
    }

    #[test]
    fn broadcast_axes_lists_stretched_and_new_axes() {
        let p = plan(&[3, 1], &[2, 3, 6], &[0, 1, 0]);
        assert_eq!(p.broadcast_axes(), vec![0, 2]);
    }

    #[test]
    #[should_panic(expected = "planner bug")]
    fn a_stride_past_the_source_is_caught() {
        let _ = StridePlan::new(&[2], &[3], vec![1]);
    }

    #[test]
    fn source_axes_give_row_major_strides() {
        let p = StridePlan::from_source_axes(
            &[2, 1, 3],
            &[5, 2, 4, 3],
            &[None, Some(0), None, Some(2)],
        )
        .unwrap();
        assert_eq!(p.axis_strides(), &[0, 3, 0, 1]);
        assert_eq!(p.source_axes(), &[None, Some(0), None, Some(2)]);
    }

    #[test]
    fn every_planner_records_the_axis_it_reads() {
        use crate::planners::*;
        let n = |p: StridePlan| p.source_axes().to_vec();
        assert_eq!(
            n(plan_numpy(&[16, 1, 1], &[1, 16, 50, 50]).unwrap()),
            vec![None, Some(0), None, None]
        );
        // A size-1 data dim meeting a target 1 is read (nothing is stretched there).
        assert_eq!(
            n(plan_numpy(&[1, 3], &[1, 3]).unwrap()),
            vec![Some(0), Some(1)]
        );
        assert_eq!(
            n(plan_bidirectional(&[3, 1], &[2, 1, 6]).unwrap()),
            vec![None, Some(0), None]
        );
        // Bidirectional: a target 1 keeps the data dim, read from the data.
        assert_eq!(
            n(plan_bidirectional(&[1, 3, 1], &[3, 1]).unwrap()),
            vec![Some(0), Some(1), Some(2)]
        );
        assert_eq!(
            n(plan_explicit(&[50, 50], &[1, 50, 50, 16], &[1, 2]).unwrap()),
            vec![None, Some(0), Some(1), None]
        );
        // PDPD: the trailing 1 of [5,1] is dropped, so data axis 1 is read nowhere.
        assert_eq!(
            n(plan_pdpd(&[5, 1], &[2, 3, 4, 5], 3).unwrap()),
            vec![None, None, None, Some(0)]
        );
        assert_eq!(
            n(plan_pdpd(&[3, 1], &[2, 3, 6], 1).unwrap()),
            vec![None, Some(0), None]
        );
        assert_eq!(
            n(plan_axes(&[4], &[2, 3, 4], &[1, 0]).unwrap()),
            vec![None, None, Some(0)]
        );
        assert_eq!(
            n(plan_axes(&[3], &[3, 2], &[1]).unwrap()),
            vec![Some(0), None]
        );
        // A 1 stretched to 0 is not read; a 0 meeting a 0 is.
        assert_eq!(
            n(plan_numpy(&[1, 0], &[0, 0]).unwrap()),
            vec![None, Some(1)]
        );
        let multi = plan_multi(&[&[3, 1], &[4]]).unwrap();
        assert_eq!(multi[0].source_axes(), &[Some(0), None]);
        assert_eq!(multi[1].source_axes(), &[None, Some(0)]);
    }

    #[test]
    fn new_recovers_the_axes_a_planner_records() {
        use crate::planners::*;
        let plans = [
            plan_numpy(&[16, 1, 1], &[1, 16, 50, 50]).unwrap(),
            plan_numpy(&[2, 0, 0, 4], &[3, 2, 0, 0, 4]).unwrap(),
            plan_numpy(&[1, 1, 1], &[1, 1, 1]).unwrap(),
            plan_bidirectional(&[3, 1], &[2, 1, 6]).unwrap(),
            plan_bidirectional(&[0, 1], &[1, 3]).unwrap(),
            plan_explicit(&[50, 50], &[1, 50, 50, 16], &[1, 2]).unwrap(),
            plan_pdpd(&[5, 1], &[2, 3, 4, 5], 3).unwrap(),
            plan_axes(&[4], &[2, 3, 4], &[1, 0]).unwrap(),
        ];
        for p in plans {
            let again = StridePlan::new(
                p.source_shape(),
                p.output_shape(),
                p.axis_strides().to_vec(),
            )
            .unwrap();
            assert_eq!(again.source_axes(), p.source_axes(), "{p:?}");
        }
    }

    #[test]
    fn a_plan_refilled_in_place_equals_a_fresh_one() {
        // Rank 10 moves every list to the heap; refilling keeps the heap storage, which must
        // not show in the result (nor in equality with a plan kept inline).
        let mut reused = StridePlan::empty();
        let mut axes = vec![None; 10];
        axes[9] = Some(0);
        reused
            .fill_from_source_axes(&[3], &[2, 2, 2, 2, 2, 2, 2, 2, 2, 3], &axes)
            .unwrap();
        assert_eq!(reused.dims(), &[512, 3]);
        reused
            .fill_from_source_axes(&[3, 1], &[3, 4], &[Some(0), None])
            .unwrap();
        let fresh = StridePlan::from_source_axes(&[3, 1], &[3, 4], &[Some(0), None]).unwrap();
        assert_eq!(reused, fresh);
        assert_eq!(reused.axis_strides(), &[1, 0]);
        assert_eq!(reused.dims(), &[3, 4]);
        assert_eq!(reused.strides(), &[1, 0]);
        assert_eq!((reused.len(), reused.source_len()), (12, 3));
    }

    #[test]
    fn strides_past_the_inline_rank_are_row_major() {
        // Nine source axes, every other one stretched: strides are the products of the dims
        // after each axis, written out here.
        let src = [2, 1, 3, 1, 2, 1, 2, 1, 3];
        let out = [2, 5, 3, 5, 2, 5, 2, 5, 3];
        let axes: Vec<Option<usize>> = (0..9).map(|k| (k % 2 == 0).then_some(k)).collect();
        let p = StridePlan::from_source_axes(&src, &out, &axes).unwrap();
        assert_eq!(p.axis_strides(), &[36, 0, 12, 0, 6, 0, 3, 0, 1]);
        assert_eq!(p.source_len(), 72);
        assert_eq!(p.len(), 2 * 5 * 3 * 5 * 2 * 5 * 2 * 5 * 3);
    }

    #[test]
    #[should_panic(expected = "planner bug")]
    fn a_mapping_to_an_axis_of_another_size_is_caught() {
        let _ = StridePlan::from_source_axes(&[3], &[4], &[Some(0)]);
    }

    #[test]
    #[should_panic(expected = "planner bug")]
    fn a_data_axis_left_unread_is_caught() {
        let _ = StridePlan::from_source_axes(&[3], &[3], &[None]);
    }

    #[test]
    #[should_panic(expected = "planner bug")]
    fn a_transposing_mapping_is_caught() {
        let _ = StridePlan::from_source_axes(&[3, 3], &[3, 3], &[Some(1), Some(0)]);
    }
}
