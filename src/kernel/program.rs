//! How a simplified plan is cut into rows: the outer axes an odometer walks, and the one
//! kind of row that writes the innermost axes.
//!
//! The innermost simplified axis is a fill (source stride 0) or a copy (stride 1; any other
//! stride takes a correct but slow path). A short innermost run would make every row a tiny
//! `memcpy` or store loop whose call cost dwarfs its work, so short rows are widened until a
//! row writes at least [`MIN_ROW_BYTES`]:
//! - a fill under a copied axis becomes one [`Run::RepeatEach`] row (`[C, R]`: each of `C`
//!   source elements written `R` times), however long the fill;
//! - a short block under a broadcast axis becomes a [`Row::Tiled`] row: the block is written
//!   once, then stamped out from the output itself (see [`super::rows`]).

use super::slot::Stores;

/// Rows shorter than this are widened (when the axes above allow it). Below about 512 bytes
/// the fixed cost of a `memcpy` call or a fill loop's head and tail is a large share of the
/// row's cost.
pub(crate) const MIN_ROW_BYTES: usize = 512;

/// Rows up to this long that repeat along a broadcast axis are tiled even when they are not
/// short: stamping a row from L1 beat one `memcpy` per row (glibc's `rep movsb`) on
/// `row_f32`'s 4000-byte rows on a quiet machine (benches/RESULTS.md, "Measurements behind the code").
pub(crate) const MAX_TILED_PERIOD_BYTES: usize = 4096;

/// When rows are widened or tiled, in bytes (all zero: never).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Widening {
    /// Rows shorter than this are widened.
    pub(crate) min_row_bytes: usize,
    /// Rows up to this long under a broadcast axis are tiled.
    pub(crate) max_tiled_period_bytes: usize,
}

impl Widening {
    /// The widening plain-data lanes get.
    pub(crate) const LANES: Widening = Widening {
        min_row_bytes: MIN_ROW_BYTES,
        max_tiled_period_bytes: MAX_TILED_PERIOD_BYTES,
    };
    /// No widening (strings: cloning from the output is no cheaper than from the source).
    pub(crate) const NONE: Widening = Widening {
        min_row_bytes: 0,
        max_tiled_period_bytes: 0,
    };
}

/// A run of output elements generated from one source origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Run<'p> {
    /// One source element, repeated.
    Fill,
    /// A contiguous run of the source.
    Copy,
    /// Source elements `stride` apart (never produced by the planners; kept correct).
    Strided {
        /// Source stride in elements.
        stride: usize,
    },
    /// Axes `[C, R]` with source strides `[stride, 0]`: each of `C` source elements, `stride`
    /// apart, written `repeat` times in a row.
    RepeatEach {
        /// How many times each source element is written (the short fill).
        repeat: usize,
        /// Source stride of the copied axis.
        stride: usize,
    },
    /// Any other short block, walked element by element.
    General {
        /// Dimensions of the block.
        dims: &'p [usize],
        /// Source strides of the block.
        strides: &'p [usize],
    },
}

/// How one row (the innermost axes the odometer does not walk) is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Row<'p> {
    /// The output has one element and no axes.
    Single,
    /// One run.
    Run(Run<'p>),
    /// A broadcast axis over a short block: the block (`period` elements, written by `block`)
    /// repeats along the row.
    Tiled {
        /// Elements in one block.
        period: usize,
        /// How one block is written.
        block: Run<'p>,
    },
}

/// The outer axes and the row kind of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Program<'p> {
    /// Outer dimensions, walked by the odometer (outermost first).
    pub(crate) outer_dims: &'p [usize],
    /// Source strides of the outer dimensions.
    pub(crate) outer_strides: &'p [usize],
    /// How one row is written.
    pub(crate) row: Row<'p>,
    /// Elements per row.
    pub(crate) row_len: usize,
    /// How long fills and copies are written.
    pub(crate) stores: Stores,
}

impl<'p> Program<'p> {
    /// Cuts a non-empty simplified plan (`dims`, `strides`) into rows for elements of
    /// `elem_bytes` bytes, widening as `widening` says.
    ///
    /// # Panics
    /// If the plan breaks the invariants of [`crate::StridePlan`] (a zero dimension, unequal
    /// lengths): a bug in this crate.
    pub(crate) fn new(
        dims: &'p [usize],
        strides: &'p [usize],
        elem_bytes: usize,
        widening: Widening,
    ) -> Self {
        assert!(
            dims.len() == strides.len() && !dims.contains(&0),
            "executor: plan invariants"
        );
        let Some(mut k) = dims.len().checked_sub(1) else {
            return Program {
                outer_dims: &[],
                outer_strides: &[],
                row: Row::Single,
                row_len: 1,
                stores: Stores::PLAIN,
            };
        };
        let bytes = |len: usize| len.saturating_mul(elem_bytes);
        let short = |len: usize| bytes(len) < widening.min_row_bytes;
        // Products of suffixes of `dims` are at most the plan's length, so `len` never
        // overflows.
        let mut len = dims[k];
        let mut run = match strides[k] {
            0 => Run::Fill,
            1 => Run::Copy,
            stride => Run::Strided { stride },
        };
        // A fill under a copied axis is always one repeat-each row: a tight loop over the
        // copied axis beats walking it as rows, whatever the fill's length.
        if k > 0 && strides[k] == 0 && strides[k - 1] != 0 {
            run = Run::RepeatEach {
                repeat: len,
                stride: strides[k - 1],
            };
            k -= 1;
            len *= dims[k];
        }
        // Two copied axes in a row only stay apart when their strides do not chain, which the
        // planners never produce; fold them into a general block rather than tiny rows.
        while short(len) && k > 0 && strides[k - 1] != 0 {
            k -= 1;
            len *= dims[k];
            run = Run::General {
                dims: &dims[k..],
                strides: &strides[k..],
            };
        }
        let tile = short(len) || bytes(len) <= widening.max_tiled_period_bytes;
        let row = if tile && k > 0 && strides[k - 1] == 0 {
            k -= 1;
            let period = len;
            len *= dims[k];
            Row::Tiled { period, block: run }
        } else {
            Row::Run(run)
        };
        Program {
            outer_dims: &dims[..k],
            outer_strides: &strides[..k],
            row,
            row_len: len,
            stores: Stores::PLAIN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program<'p>(dims: &'p [usize], strides: &'p [usize], es: usize) -> Program<'p> {
        Program::new(dims, strides, es, Widening::LANES)
    }

    #[test]
    fn a_whole_output_scalar_is_one_fill_row() {
        let p = program(&[16_777_216], &[0], 4);
        assert_eq!(p.row, Row::Run(Run::Fill));
        assert!(p.outer_dims.is_empty());
    }

    #[test]
    fn a_short_fill_under_a_copy_repeats_each_element() {
        // [3,1] -> [3,4] f32.
        let p = program(&[3, 4], &[1, 0], 4);
        assert_eq!(
            p.row,
            Row::Run(Run::RepeatEach {
                repeat: 4,
                stride: 1
            })
        );
        assert_eq!(p.row_len, 12);
        assert!(p.outer_dims.is_empty());
    }

    #[test]
    fn a_short_copy_under_a_broadcast_is_tiled() {
        // [1,1,3] -> [1,2048,2048,3] u8.
        let p = program(&[4_194_304, 3], &[0, 1], 1);
        assert_eq!(
            p.row,
            Row::Tiled {
                period: 3,
                block: Run::Copy
            }
        );
        assert_eq!(p.row_len, 3 * 4_194_304);
    }

    #[test]
    fn a_repeat_each_block_under_a_broadcast_is_tiled() {
        // [3,1] -> [1000,3,4] f32: the [3,4] block repeats 1000 times.
        let p = program(&[1000, 3, 4], &[0, 1, 0], 4);
        assert_eq!(
            p.row,
            Row::Tiled {
                period: 12,
                block: Run::RepeatEach {
                    repeat: 4,
                    stride: 1
                }
            }
        );
        assert_eq!(p.row_len, 12_000);
    }

    #[test]
    fn a_row_of_a_few_kib_under_a_broadcast_is_tiled() {
        // [1000] -> [8192,1000] f32: 4000-byte rows.
        let p = program(&[8192, 1000], &[0, 1], 4);
        assert_eq!(
            p.row,
            Row::Tiled {
                period: 1000,
                block: Run::Copy
            }
        );
        assert!(p.outer_dims.is_empty());
    }

    #[test]
    fn a_longer_copy_under_a_broadcast_stays_a_row() {
        let p = program(&[64, 5000], &[0, 1], 4);
        assert_eq!(p.row, Row::Run(Run::Copy));
        assert_eq!(p.outer_dims, &[64]);
    }

    #[test]
    fn a_long_fill_under_a_copy_is_one_repeat_each_row() {
        // [1,512,1] -> [64,512,512] f16.
        let p = program(&[64, 512, 512], &[0, 1, 0], 2);
        assert_eq!(
            p.row,
            Row::Run(Run::RepeatEach {
                repeat: 512,
                stride: 1
            })
        );
        assert_eq!(p.outer_dims, &[64]);
    }

    #[test]
    fn nothing_is_tiled_when_widening_is_off() {
        // Strings: a short copy under a broadcast stays rows of clones.
        let p = Program::new(&[1000, 3], &[0, 1], 24, Widening::NONE);
        assert_eq!(p.row, Row::Run(Run::Copy));
        assert_eq!(p.outer_dims, &[1000]);
    }

    #[test]
    fn unchained_copied_axes_become_a_general_block() {
        // Never produced by the planners (adjacent copied axes always chain), kept correct.
        let p = program(&[1000, 2, 3], &[0, 5, 2], 4);
        assert_eq!(
            p.row,
            Row::Tiled {
                period: 6,
                block: Run::General {
                    dims: &[2, 3],
                    strides: &[5, 2]
                }
            }
        );
    }

    #[test]
    fn a_one_element_plan_is_a_single() {
        let p = program(&[], &[], 8);
        assert_eq!(p.row, Row::Single);
        assert_eq!(p.row_len, 1);
    }
}
