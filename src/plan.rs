//! The stride plan: the one representation every planner produces and the executor runs.

use std::fmt;

use crate::error::BroadcastError;
use crate::shape::checked_len;

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
/// Invariants (established by [`StridePlan::new`], relied on by the executor):
/// - `len == product(output_shape)` fits in `usize`;
/// - every source index reached is `< source_len`;
/// - an empty output has `dims == [0]`; a one-element output has `dims == []`.
#[derive(Clone, PartialEq, Eq)]
pub struct StridePlan {
    /// `axis_strides`, `source_shape`, `output_shape`, `dims`, `strides`, back to back in one
    /// allocation: planning a small broadcast is dominated by allocator calls.
    parts: Vec<usize>,
    rank: usize,
    source_rank: usize,
    simplified_rank: usize,
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
        let len = checked_len(output_shape)?;
        let source_len = checked_len(source_shape)?;
        let rank = output_shape.len();
        let mut parts = axis_strides;
        parts.reserve_exact(source_shape.len() + 3 * rank + 2);
        parts.extend_from_slice(source_shape);
        parts.extend_from_slice(output_shape);
        let simplified_rank = simplify_into(&mut parts, rank, source_shape.len(), len);
        let plan = StridePlan {
            parts,
            rank,
            source_rank: source_shape.len(),
            simplified_rank,
            len,
            source_len,
        };
        let (dims, strides) = (plan.dims(), plan.strides());
        if len > 0 {
            // The largest source index reached: every axis at its last position.
            let max_index = dims
                .iter()
                .zip(strides)
                .map(|(&d, &s)| (d - 1).checked_mul(s))
                .try_fold(0usize, |acc, v| acc.checked_add(v?));
            assert!(
                matches!(max_index, Some(m) if m < source_len),
                "planner bug: plan reads past the source"
            );
        }
        Ok(plan)
    }

    /// The shape of the data the plan reads (row-major, contiguous).
    pub fn source_shape(&self) -> &[usize] {
        &self.parts[self.rank..self.rank + self.source_rank]
    }

    /// The shape of the output.
    pub fn output_shape(&self) -> &[usize] {
        let at = self.rank + self.source_rank;
        &self.parts[at..at + self.rank]
    }

    /// Source stride (in elements) of each output axis; 0 where the axis is broadcast.
    pub fn axis_strides(&self) -> &[usize] {
        &self.parts[..self.rank]
    }

    /// The simplified output dimensions (size-1 axes dropped, chained axes merged).
    pub fn dims(&self) -> &[usize] {
        let at = 2 * self.rank + self.source_rank;
        &self.parts[at..at + self.simplified_rank]
    }

    /// Source strides of the simplified dimensions.
    pub fn strides(&self) -> &[usize] {
        let at = 2 * self.rank + self.source_rank + self.simplified_rank;
        &self.parts[at..at + self.simplified_rank]
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
        let (shape, strides) = (self.output_shape(), self.axis_strides());
        (0..shape.len())
            .filter(|&k| strides[k] == 0 && shape[k] != 1)
            .collect()
    }
}

impl fmt::Debug for StridePlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StridePlan")
            .field("source_shape", &self.source_shape())
            .field("output_shape", &self.output_shape())
            .field("axis_strides", &self.axis_strides())
            .field("dims", &self.dims())
            .field("strides", &self.strides())
            .field("len", &self.len)
            .field("source_len", &self.source_len)
            .finish()
    }
}

/// Drops size-1 axes and merges chained neighbours, outermost first: reads the output shape
/// and axis strides from `parts` (laid out as in [`StridePlan`]), appends the simplified dims
/// then their strides, and returns how many there are.
fn simplify_into(parts: &mut Vec<usize>, rank: usize, source_rank: usize, len: usize) -> usize {
    if len == 0 {
        parts.extend_from_slice(&[0, 0]);
        return 1;
    }
    let shape_at = rank + source_rank;
    let dims_at = parts.len();
    // Two passes over the same merges, the first keeping dims, the second strides, so both
    // land in `parts` without a scratch buffer.
    for keep_dims in [true, false] {
        let mut last: Option<(usize, usize)> = None;
        for k in 0..rank {
            let (d, s) = (parts[shape_at + k], parts[k]);
            if d == 1 {
                continue;
            }
            match last {
                // `s * d` cannot overflow when s > 0: it is at most the source length.
                Some((last_d, last_s)) if last_s == s.saturating_mul(d) => {
                    last = Some((last_d * d, s));
                }
                _ => {
                    if let Some((last_d, last_s)) = last {
                        parts.push(if keep_dims { last_d } else { last_s });
                    }
                    last = Some((d, s));
                }
            }
        }
        if let Some((last_d, last_s)) = last {
            parts.push(if keep_dims { last_d } else { last_s });
        }
    }
    (parts.len() - dims_at) / 2
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
}
