//! The serial walk: any range of the output, row by row.

use super::program::{Program, MAX_AXES};
use super::rows::write_row;
use super::slot::Slot;

/// A multi-index over some axes and the source offset it points at, advanced one position at
/// a time with additions only.
pub(crate) struct Odometer<'p> {
    dims: &'p [usize],
    strides: &'p [usize],
    index: [usize; MAX_AXES],
    /// Source offset of the current position.
    pub(crate) offset: usize,
}

impl<'p> Odometer<'p> {
    /// The odometer at flat `position` (row-major over `dims`), starting from source offset
    /// `base`. Costs one division per axis, so it is done once per chunk, never per row.
    #[inline]
    pub(crate) fn at(
        dims: &'p [usize],
        strides: &'p [usize],
        base: usize,
        position: usize,
    ) -> Self {
        let mut index = [0usize; MAX_AXES];
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
            index,
            offset,
        }
    }

    /// Moves to the next position (wrapping to the origin after the last one).
    #[inline]
    pub(crate) fn step(&mut self) {
        for k in (0..self.dims.len()).rev() {
            self.index[k] += 1;
            self.offset += self.strides[k];
            if self.index[k] < self.dims[k] {
                return;
            }
            self.offset -= self.dims[k] * self.strides[k];
            self.index[k] = 0;
        }
    }
}

/// Writes output elements `start .. start + dst.len()` of `program`.
pub(crate) fn write_range<S: Slot>(
    program: &Program<'_>,
    src: &[S::Value],
    dst: &mut [S],
    start: usize,
    elem_bytes: usize,
) {
    if dst.is_empty() {
        return;
    }
    let row_len = program.row_len;
    let (row, mut col) = if start == 0 {
        (0, 0)
    } else {
        (start / row_len, start % row_len)
    };
    let mut outer = Odometer::at(program.outer_dims, program.outer_strides, 0, row);
    let mut rest = dst;
    loop {
        let n = (row_len - col).min(rest.len());
        let (this, next) = rest.split_at_mut(n);
        write_row(&program.row, src, outer.offset, col, this, elem_bytes);
        if next.is_empty() {
            return;
        }
        rest = next;
        col = 0;
        outer.step();
    }
}
