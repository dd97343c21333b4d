//! The serial walk: any range of the output, row by row.

use super::program::{Program, Row, Run};
use super::rows::write_row;
use super::slot::Slot;

/// Axes an odometer keeps inline; plans with more (rare: it takes 17 alternations of
/// broadcast and copied axes) keep their index on the heap.
const INLINE_AXES: usize = 16;

/// The digits of an odometer.
enum Digits {
    Inline([usize; INLINE_AXES]),
    Heap(Vec<usize>),
}

impl Digits {
    fn zeros(n: usize) -> Self {
        if n <= INLINE_AXES {
            Digits::Inline([0; INLINE_AXES])
        } else {
            Digits::Heap(vec![0; n])
        }
    }

    #[inline(always)]
    fn as_mut(&mut self) -> &mut [usize] {
        match self {
            Digits::Inline(a) => a,
            Digits::Heap(v) => v,
        }
    }
}

/// A multi-index over some axes and the source offset it points at, advanced one position at
/// a time with additions only.
pub(crate) struct Odometer<'p> {
    dims: &'p [usize],
    strides: &'p [usize],
    index: Digits,
    /// Source offset of the current position.
    pub(crate) offset: usize,
}

impl<'p> Odometer<'p> {
    /// The odometer at flat `position` (row-major over `dims`), starting from source offset
    /// `base`. Costs one division per axis, so it is done once per chunk, never per row.
    #[inline(always)]
    pub(crate) fn at(
        dims: &'p [usize],
        strides: &'p [usize],
        base: usize,
        position: usize,
    ) -> Self {
        let mut digits = Digits::zeros(dims.len());
        let index = digits.as_mut();
        let mut offset = base;
        if position != 0 {
            let mut rest = position;
            for k in (0..dims.len()).rev() {
                index[k] = rest % dims[k];
                rest /= dims[k];
                offset += index[k] * strides[k];
            }
        }
        Odometer {
            dims,
            strides,
            index: digits,
            offset,
        }
    }

    /// Moves to the next position (wrapping to the origin after the last one).
    #[inline(always)]
    pub(crate) fn step(&mut self) {
        let index = self.index.as_mut();
        for k in (0..self.dims.len()).rev() {
            index[k] += 1;
            self.offset += self.strides[k];
            if index[k] < self.dims[k] {
                return;
            }
            self.offset -= self.dims[k] * self.strides[k];
            index[k] = 0;
        }
    }

    /// Positions left on the innermost axis, the current one included.
    #[inline(always)]
    fn left_on_last_axis(&mut self) -> usize {
        let last = self.dims.len() - 1;
        self.dims[last] - self.index.as_mut()[last]
    }
}

/// Writes output elements `start .. start + dst.len()` of `program`.
#[inline(always)]
pub(crate) fn write_range<S: Slot>(
    program: &Program<'_>,
    src: &[S::Value],
    dst: &mut [S],
    start: usize,
) {
    if dst.is_empty() {
        return;
    }
    if program.outer_dims.is_empty() {
        // The whole output is one row (a scalar fill, a tiled pattern, a small block).
        write_row(&program.row, src, 0, start, dst);
        return;
    }
    let row_len = program.row_len;
    let (row, mut col) = if start == 0 {
        (0, 0)
    } else {
        (start / row_len, start % row_len)
    };
    let mut outer = Odometer::at(program.outer_dims, program.outer_strides, 0, row);
    // Whole copied rows that repeat along the innermost outer axis can be written a column
    // block at a time (see `Slot::COLUMN_BLOCK`).
    let blocked = S::COLUMN_BLOCK > 0
        && program.row == Row::Run(Run::Copy)
        && program.outer_strides.last() == Some(&0);
    let mut rest = dst;
    loop {
        if blocked && col == 0 {
            let rows = outer.left_on_last_axis().min(rest.len() / row_len);
            if rows >= 2 {
                let (these, next) = rest.split_at_mut(rows * row_len);
                let row_src = &src[outer.offset..outer.offset + row_len];
                copy_rows_by_column_blocks(these, row_src);
                if next.is_empty() {
                    return;
                }
                rest = next;
                for _ in 0..rows {
                    outer.step();
                }
                continue;
            }
        }
        let n = (row_len - col).min(rest.len());
        let (this, next) = rest.split_at_mut(n);
        write_row(&program.row, src, outer.offset, col, this);
        if next.is_empty() {
            return;
        }
        rest = next;
        col = 0;
        outer.step();
    }
}

/// Writes `src` into every row of `dst` (whole rows of `src.len()`), one column block at a
/// time, so the block of source elements stays in L1 while it is copied into every row.
fn copy_rows_by_column_blocks<S: Slot>(dst: &mut [S], src: &[S::Value]) {
    let row_len = src.len();
    let mut c0 = 0;
    while c0 < row_len {
        let c1 = (c0 + S::COLUMN_BLOCK).min(row_len);
        for row in dst.chunks_exact_mut(row_len) {
            S::copy(&mut row[c0..c1], &src[c0..c1]);
        }
        c0 = c1;
    }
}
