//! The serial walk: any range of the output, row by row.

use super::program::{Program, Row, Run};
use super::rows::write_row;
use super::slot::{Slot, Stores};
use crate::exec::Odometer;

/// The shared odometer over one operand (the source), positioned at flat `position` of
/// `dims` from source offset `base`. The plan's strides are `usize` in elements and never
/// exceed `isize::MAX` (a plan's source is a checked array), so they are read as the
/// odometer's one-operand `isize` stride rows without a copy.
#[inline(always)]
pub(crate) fn source_walk<'p>(
    dims: &'p [usize],
    strides: &'p [usize],
    base: usize,
    position: usize,
) -> Odometer<'p, 1> {
    let rows: &[[isize; 1]] = bytemuck::cast_slice(strides);
    Odometer::at(dims, rows, [base as isize], position)
}

/// The source offset an odometer of [`source_walk`] points at.
#[inline(always)]
pub(crate) fn offset(walk: &Odometer<'_, 1>) -> usize {
    walk.offsets()[0] as usize
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
        write_row(program.stores, &program.row, src, 0, start, dst);
        return;
    }
    let row_len = program.row_len;
    let (row, mut col) = if start == 0 {
        (0, 0)
    } else {
        (start / row_len, start % row_len)
    };
    let mut outer = source_walk(program.outer_dims, program.outer_strides, 0, row);
    let last = program.outer_dims.len() - 1;
    // Whole copied rows that repeat along the innermost outer axis can be written a column
    // block at a time (see `Slot::COLUMN_BLOCK`).
    let blocked = S::COLUMN_BLOCK > 0
        && program.row == Row::Run(Run::Copy)
        && program.outer_strides.last() == Some(&0);
    let mut rest = dst;
    loop {
        if blocked && col == 0 {
            let left_on_last_axis = program.outer_dims[last] - outer.index()[last];
            let rows = left_on_last_axis.min(rest.len() / row_len);
            if rows >= 2 {
                let (these, next) = rest.split_at_mut(rows * row_len);
                let at = offset(&outer);
                let row_src = &src[at..at + row_len];
                copy_rows_by_column_blocks(these, row_src, program.stores);
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
        write_row(program.stores, &program.row, src, offset(&outer), col, this);
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
fn copy_rows_by_column_blocks<S: Slot>(dst: &mut [S], src: &[S::Value], how: Stores) {
    let row_len = src.len();
    let mut c0 = 0;
    while c0 < row_len {
        let c1 = (c0 + S::COLUMN_BLOCK).min(row_len);
        for row in dst.chunks_exact_mut(row_len) {
            S::copy(&mut row[c0..c1], &src[c0..c1], how);
        }
        c0 = c1;
    }
}
