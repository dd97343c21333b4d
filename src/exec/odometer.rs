//! A multi-index over some axes that carries one source offset per operand, advanced with
//! additions only.
//!
//! Every executor walks its outer axes the same way: find the position a chunk starts at once
//! (one division per axis), then step. `N` is the number of operands whose offsets move with
//! the index (1 for a copy, 2 for a binary op, 3 for Select, ...): all `N` offsets advance in
//! the same step, so an N-operand walk costs one carry chain, not N.
//!
//! Strides are `isize` in elements, so transposed, reversed (negative strides) and broadcast
//! (stride 0) operands share one walk; offsets are relative to whatever base each operand
//! was given (an array view's first element, say).
//!
//! ```
//! use bcast::exec::Odometer;
//! // Axes [2, 3]; operand 0 row-major, operand 1 a column broadcast along the last axis.
//! let dims = [2, 3];
//! let strides = [[3, 1], [1, 0]];
//! let mut walk = Odometer::at(&dims, &strides, [0, 10], 2);
//! assert_eq!(walk.offsets(), [2, 10]);
//! walk.step();
//! assert_eq!(walk.offsets(), [3, 11]);
//! ```

/// Axes whose digits are kept inline; more (rare after simplification) go on the heap.
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

    #[inline(always)]
    fn as_ref(&self) -> &[usize] {
        match self {
            Digits::Inline(a) => a,
            Digits::Heap(v) => v,
        }
    }
}

/// A row-major multi-index over `dims` with `N` operand offsets.
///
/// `strides[k][j]` is operand `j`'s stride along axis `k` (axis-major, so one step touches
/// one small contiguous array per carried axis). Wraps to the origin after the last position.
pub struct Odometer<'p, const N: usize> {
    dims: &'p [usize],
    strides: &'p [[isize; N]],
    index: Digits,
    offsets: [isize; N],
}

impl<'p, const N: usize> Odometer<'p, N> {
    /// The odometer at flat `position` (row-major over `dims`; taken modulo the product of
    /// `dims`), with operand `j` at `bases[j] + sum(index[k] * strides[k][j])`.
    ///
    /// Costs one division per axis: position it once per chunk, then [`step`](Self::step).
    ///
    /// # Panics
    /// If `strides.len() != dims.len()`, or a dim is 0 while `position != 0`.
    #[inline]
    pub fn at(
        dims: &'p [usize],
        strides: &'p [[isize; N]],
        bases: [isize; N],
        position: usize,
    ) -> Self {
        assert_eq!(
            dims.len(),
            strides.len(),
            "odometer: one stride row per axis"
        );
        let mut digits = Digits::zeros(dims.len());
        let index = digits.as_mut();
        let mut offsets = bases;
        if position != 0 {
            let mut rest = position;
            for k in (0..dims.len()).rev() {
                let i = rest % dims[k];
                rest /= dims[k];
                index[k] = i;
                for (o, s) in offsets.iter_mut().zip(strides[k]) {
                    *o += i as isize * s;
                }
            }
        }
        Odometer {
            dims,
            strides,
            index: digits,
            offsets,
        }
    }

    /// The operands' offsets at the current position.
    #[inline(always)]
    pub fn offsets(&self) -> [isize; N] {
        self.offsets
    }

    /// The current multi-index.
    pub fn index(&self) -> &[usize] {
        &self.index.as_ref()[..self.dims.len()]
    }

    /// Moves to the next position (the origin after the last one), with additions only.
    #[inline(always)]
    pub fn step(&mut self) {
        let index = self.index.as_mut();
        for k in (0..self.dims.len()).rev() {
            index[k] += 1;
            let s = &self.strides[k];
            for (o, s) in self.offsets.iter_mut().zip(s) {
                *o += s;
            }
            if index[k] < self.dims[k] {
                return;
            }
            let d = self.dims[k] as isize;
            for (o, s) in self.offsets.iter_mut().zip(s) {
                *o -= d * s;
            }
            index[k] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offsets by the definition: one division per axis per position.
    fn direct<const N: usize>(
        dims: &[usize],
        strides: &[[isize; N]],
        bases: [isize; N],
        p: usize,
    ) -> [isize; N] {
        let mut o = bases;
        let mut rest = p;
        for k in (0..dims.len()).rev() {
            let i = (rest % dims[k]) as isize;
            rest /= dims[k];
            for j in 0..N {
                o[j] += i * strides[k][j];
            }
        }
        o
    }

    #[test]
    fn steps_match_positions_for_three_operands() {
        let dims = [2, 3, 4];
        let strides = [[12, 0, -1], [4, 1, 5], [1, 0, 7]];
        let bases = [0, 3, 100];
        let total: usize = dims.iter().product();
        for start in 0..total {
            let mut w = Odometer::at(&dims, &strides, bases, start);
            for p in start..total + 3 {
                assert_eq!(w.offsets(), direct(&dims, &strides, bases, p % total));
                w.step();
            }
        }
    }

    #[test]
    fn many_axes_use_the_heap() {
        let dims = vec![2; 20];
        let strides: Vec<[isize; 1]> = (0..20).map(|k| [1isize << (19 - k)]).collect();
        let mut w = Odometer::at(&dims, &strides, [0], 12345);
        assert_eq!(w.offsets(), [12345]);
        w.step();
        assert_eq!(w.offsets(), [12346]);
        assert_eq!(w.index().len(), 20);
    }

    #[test]
    fn no_axes_is_one_position() {
        let mut w = Odometer::<2>::at(&[], &[], [4, 5], 0);
        w.step();
        assert_eq!(w.offsets(), [4, 5]);
    }
}
