//! Summing a row-major gradient into the data shape, pairwise, serially or with rayon.
//!
//! Every sum is a fixed binary tree over the terms: contiguous runs split at multiples of
//! [`RUN_LEAF`], lists of rows or runs split in halves down to small leaves. Threads only ever
//! take whole subtrees (`rayon::join` at the same split points the serial code uses, or
//! whole output elements), so the result is bit-identical whatever the number of threads.

use rayon::prelude::*;

use super::layout::{offset, walk, Axes, Inner, Layout};
use super::sum::{add_acc_wide, sum_leaf, sum_rows, sum_runs, Acc, Sum, BLOCK, RUN_LEAF};
use crate::exec::isa::Avx2;
use crate::exec::{with_zeroed, CHUNKS_PER_THREAD};
/// Gradient elements per parallel task at least (output elements are batched up to it).
const TASK_MIN: usize = 1 << 15;
/// A list of rows or a run is split across threads only if each half has this many elements.
const SPLIT_MIN: usize = 1 << 16;
/// Columns summed at a time when rows are added (the accumulator row stays in L1/L2).
const TILE: usize = 2048;
/// Rows (or runs) summed in order at a leaf of the pairwise tree.
const LEAF: usize = 8;
// The full leaf is summed by `Sum::set_rows8`.
const _: () = assert!(LEAF == 8);
/// Summed runs up to this many bytes are read slab by slab (see `Task::runs_by_slab`) ...
const SLAB_RUN_BYTES: usize = 64 << 10;
/// ... keeping at most this many run sums at a time.
const SLAB_SUMS: usize = 1 << 14;
/// Kept rows narrower than this many bytes are widened (several rows side by side) ...
const NARROW_ROW_BYTES: usize = 512;
/// ... to about this many bytes, and folded back at the end.
const WIDE_ROW_BYTES: usize = 4096;

/// Writes into `out` (`layout.units.count() * layout.unit_len()` elements) the reduction of
/// `grad` (row-major, `Layout`'s shape). `threads`: rayon may be used, for about this many
/// threads (the caller picked the pool and the count from the machine's policy); `isa`: the
/// leaves run in AVX2.
pub(crate) fn reduce_into<T: Sum>(
    grad: &[T],
    layout: &Layout,
    out: &mut [T],
    isa: Option<Avx2>,
    threads: Option<usize>,
) {
    let unit_len = layout.unit_len();
    debug_assert_eq!(out.len(), layout.units.count() * unit_len);
    let task = Task {
        grad,
        layout,
        threads,
        isa,
    };
    let Some(threads) = threads else {
        task.units(0, out);
        return;
    };
    // Enough work per task to pay for it, and tasks of several units when there are many
    // (the slab walk reads several units together).
    let many = layout.units.count() / (8 * threads.max(1));
    let units_per_task = (TASK_MIN / layout.unit_work().max(1)).max(many).max(1);
    out.par_chunks_mut(units_per_task * unit_len)
        .enumerate()
        .for_each(|(t, chunk)| task.units(t * units_per_task, chunk));
}

/// One reduction, shared by every thread working on it.
struct Task<'a, T> {
    grad: &'a [T],
    layout: &'a Layout,
    /// `Some`: subtrees may be summed by `rayon::join` for about this many threads; `None`:
    /// on the calling thread alone.
    threads: Option<usize>,
    isa: Option<Avx2>,
}

impl<T: Sum> Task<'_, T> {
    /// Units `first ..` whose outputs are `out` (whole units).
    fn units(&self, first: usize, out: &mut [T]) {
        let mut buf = [T::Acc::ZERO; BLOCK];
        if let Inner::Reduced(run) = self.layout.inner {
            let m = self.layout.reduced.count();
            if m > 1
                && out.len() > 1
                && run * std::mem::size_of::<T>() <= SLAB_RUN_BYTES
                && m <= SLAB_SUMS / 2
            {
                let batch = (SLAB_SUMS / m).min(out.len());
                with_zeroed(m * batch, |sums| {
                    with_zeroed(batch, |offsets| {
                        for (b, chunk) in out.chunks_mut(batch).enumerate() {
                            let units = chunk.len();
                            self.runs_by_slab(
                                first + b * batch,
                                run,
                                chunk,
                                &mut sums[..m * units],
                                &mut offsets[..units],
                                &mut buf,
                            );
                        }
                    });
                });
                return;
            }
        }
        let mut at = walk(&self.layout.units, first);
        for (i, unit_out) in out.chunks_mut(self.layout.unit_len()).enumerate() {
            if i > 0 {
                at.step();
            }
            match self.layout.inner {
                Inner::Reduced(run) => {
                    let n = self.layout.reduced.count();
                    let acc = self.runs(offset(&at), run, 0, n, &mut buf);
                    unit_out[0] = T::narrow(acc);
                }
                Inner::Kept(width) => self.kept_unit(offset(&at), width, unit_out),
            }
        }
    }

    /// Sum of runs `lo..hi` of `reduced`, each `run` long, from gradient offset `base`.
    /// `buf` is scratch for [`sum_leaf`].
    fn runs(
        &self,
        base: usize,
        run: usize,
        lo: usize,
        hi: usize,
        buf: &mut [T::Acc; BLOCK],
    ) -> T::Acc {
        let n = hi - lo;
        if n <= LEAF {
            let mut at = walk(&self.layout.reduced, lo);
            let mut sum = T::Acc::ZERO;
            for i in 0..n {
                if i > 0 {
                    at.step();
                }
                let start = base + offset(&at);
                sum = sum.add(self.run(&self.grad[start..start + run], buf));
            }
            return sum;
        }
        let mid = lo + n / 2;
        let (a, b) = if self.threads.is_some() && (n / 2) * run >= SPLIT_MIN {
            rayon::join(
                || self.runs(base, run, lo, mid, buf),
                || self.runs(base, run, mid, hi, &mut [T::Acc::ZERO; BLOCK]),
            )
        } else {
            (
                self.runs(base, run, lo, mid, buf),
                self.runs(base, run, mid, hi, buf),
            )
        };
        a.add(b)
    }

    /// Units `first .. first + out.len()` whose inner run is summed, read slab by slab: the
    /// run of every unit at the first position of `reduced`, then at the next, ..., so a
    /// summed axis outside short runs does not make the reads jump; each unit's run sums
    /// are then added in the tree [`Task::runs`] uses (same result, same bits).
    fn runs_by_slab(
        &self,
        first: usize,
        run: usize,
        out: &mut [T],
        sums: &mut [T::Acc],
        offsets: &mut [usize],
        buf: &mut [T::Acc; BLOCK],
    ) {
        let units = out.len();
        let m = self.layout.reduced.count();
        debug_assert_eq!((sums.len(), offsets.len()), (m * units, units));
        let mut at = walk(&self.layout.units, first);
        for (i, o) in offsets.iter_mut().enumerate() {
            if i > 0 {
                at.step();
            }
            *o = offset(&at);
        }
        let mut pos = walk(&self.layout.reduced, 0);
        for (j, slab) in sums.chunks_mut(units).enumerate() {
            if j > 0 {
                pos.step();
            }
            if run <= RUN_LEAF {
                // Short runs: the whole slab in one call (`run` is then one leaf).
                sum_runs(self.isa, self.grad, offsets, offset(&pos), run, slab, buf);
                continue;
            }
            for (sum, &base) in slab.iter_mut().zip(offsets.iter()) {
                let start = base + offset(&pos);
                *sum = self.run(&self.grad[start..start + run], buf);
            }
        }
        for (u, o) in out.iter_mut().enumerate() {
            *o = T::narrow(tree_sum(0, m, &|j| sums[j * units + u]));
        }
    }

    /// Pairwise sum of one contiguous run, split at multiples of `RUN_LEAF`.
    fn run(&self, x: &[T], buf: &mut [T::Acc; BLOCK]) -> T::Acc {
        if x.len() <= RUN_LEAF {
            return sum_leaf(self.isa, x, buf);
        }
        let mid = (x.len() / 2 / RUN_LEAF).max(1) * RUN_LEAF;
        let (l, r) = x.split_at(mid);
        let (a, b) = if self.threads.is_some() && l.len() >= SPLIT_MIN {
            rayon::join(
                || self.run(l, buf),
                || self.run(r, &mut [T::Acc::ZERO; BLOCK]),
            )
        } else {
            (self.run(l, buf), self.run(r, buf))
        };
        a.add(b)
    }

    /// One unit whose inner run is kept: `out[x]` sums the gradient at `base + x` over every
    /// position of `reduced`.
    fn kept_unit(&self, base: usize, width: usize, out: &mut [T]) {
        let reduced = &self.layout.reduced;
        if let Some(wide) = self.widened(width, reduced) {
            self.kept_wide(base, width, &wide, out);
            return;
        }
        let rows = reduced.count();
        if self.threads.is_some() && out.len() > TILE && rows * width >= 2 * TASK_MIN {
            out.par_chunks_mut(TILE).enumerate().for_each(|(t, tile)| {
                self.kept_tile(base + t * TILE, reduced, rows, tile);
            });
        } else {
            for (t, tile) in out.chunks_mut(TILE).enumerate() {
                self.kept_tile(base + t * TILE, reduced, rows, tile);
            }
        }
    }

    /// `out[x] = narrow(sum over rows of grad[base + row + x])`.
    fn kept_tile(&self, base: usize, rows: &Axes, n: usize, out: &mut [T]) {
        let w = out.len();
        with_zeroed((1 + depth(n)) * w, |ws: &mut [T::Acc]| {
            let (acc, scratch) = ws.split_at_mut(w);
            self.rows(base, rows, w, (0, n), self.split_min(n * w), acc, scratch);
            for (o, &a) in out.iter_mut().zip(acc.iter()) {
                *o = T::narrow(a);
            }
        });
    }

    /// The fewest terms a half of a `terms`-term sum of rows needs to go to another thread:
    /// a few large subtrees per thread, since each `rayon::join` of rows costs a scratch row
    /// stack of its own; never below [`SPLIT_MIN`]. Where the tree is cut changes nothing
    /// in the result.
    fn split_min(&self, terms: usize) -> usize {
        (terms / (CHUNKS_PER_THREAD * self.threads.unwrap_or(1)).max(1)).max(SPLIT_MIN)
    }

    /// `acc[x] = sum over positions lo..hi of rows of grad[base + row + x]`, `x < w`.
    /// `scratch` holds at least `depth(hi - lo) * w` elements.
    #[allow(clippy::too_many_arguments)]
    fn rows(
        &self,
        base: usize,
        rows: &Axes,
        w: usize,
        (lo, hi): (usize, usize),
        split_min: usize,
        acc: &mut [T::Acc],
        scratch: &mut [T::Acc],
    ) {
        let n = hi - lo;
        if n <= LEAF {
            let mut at = walk(rows, lo);
            let mut leaf: [&[T]; LEAF] = [&[]; LEAF];
            for (i, row) in leaf.iter_mut().take(n).enumerate() {
                if i > 0 {
                    at.step();
                }
                let start = base + offset(&at);
                *row = &self.grad[start..start + w];
            }
            sum_rows(self.isa, acc, &leaf[..n]);
            return;
        }
        let mid = lo + n / 2;
        let (tmp, rest) = scratch.split_at_mut(w);
        if self.threads.is_some() && (n / 2) * w >= split_min {
            // The right half may run on another thread: its scratch is that thread's.
            let right = depth(hi - mid) * w;
            rayon::join(
                || self.rows(base, rows, w, (lo, mid), split_min, acc, rest),
                || {
                    with_zeroed(right, |own| {
                        self.rows(base, rows, w, (mid, hi), split_min, tmp, own);
                    });
                },
            );
        } else {
            self.rows(base, rows, w, (lo, mid), split_min, acc, rest);
            self.rows(base, rows, w, (mid, hi), split_min, tmp, rest);
        }
        add_acc_wide(self.isa, acc, tmp);
    }

    /// For narrow kept rows under a summed axis: that axis read `l` rows at a time, as one
    /// row `l` times wider (so each step reads a few KiB, not a few bytes).
    fn widened(&self, width: usize, reduced: &Axes) -> Option<Wide> {
        let row_bytes = width * std::mem::size_of::<T>();
        let (&n1, &s1) = reduced.dims.last().zip(reduced.strides.last())?;
        // The summed axis just outside a kept run is the next one out in a row-major
        // gradient: stride `width`. Checked, not assumed.
        if row_bytes >= NARROW_ROW_BYTES || s1 != width {
            return None;
        }
        let l = (WIDE_ROW_BYTES / row_bytes.max(1)).min(n1);
        if l < 2 {
            return None;
        }
        let outer_dims = &reduced.dims[..reduced.dims.len() - 1];
        let outer_strides = &reduced.strides[..reduced.strides.len() - 1];
        let mut whole = Axes {
            dims: outer_dims.to_vec(),
            strides: outer_strides.to_vec(),
        };
        whole.dims.push(n1 / l);
        whole.strides.push(l * width);
        Some(Wide {
            l,
            whole,
            rest_rows: n1 % l,
            rest: Axes {
                dims: outer_dims.to_vec(),
                strides: outer_strides.to_vec(),
            },
        })
    }

    fn kept_wide(&self, base: usize, width: usize, wide: &Wide, out: &mut [T]) {
        let w = wide.l * width;
        let n = wide.whole.count();
        let n_rest = wide.rest.count();
        let rest_w = wide.rest_rows * width;
        let len = (1 + depth(n)) * w + (1 + depth(n_rest)) * rest_w;
        with_zeroed(len, |ws: &mut [T::Acc]| {
            let (acc, tail) = ws.split_at_mut(w);
            let (scratch, tail) = tail.split_at_mut(depth(n) * w);
            let split_min = self.split_min(n * w);
            self.rows(base, &wide.whole, w, (0, n), split_min, acc, scratch);
            if rest_w > 0 {
                // The last `rest_rows` rows of each group are one partial wide row.
                let (rest_acc, rest_scratch) = tail.split_at_mut(rest_w);
                let start = base + (wide.whole.dims.last().copied().unwrap_or(0)) * w;
                let (rest, n) = (&wide.rest, (0, n_rest));
                self.rows(start, rest, rest_w, n, SPLIT_MIN, rest_acc, rest_scratch);
                add_acc_wide(self.isa, acc, rest_acc);
            }
            self.fold_wide(width, wide.l, acc, out);
        });
    }

    /// The `l` side-by-side rows of a widened sum (`acc`, `l * width` accumulators) folded
    /// pairwise into one and narrowed into `out`.
    fn fold_wide(&self, width: usize, l: usize, acc: &mut [T::Acc], out: &mut [T]) {
        // Row i += row i + upper, halving the rows each pass.
        let mut k = l;
        while k > 1 {
            let upper = k.div_ceil(2);
            let (low, high) = acc.split_at_mut(upper * width);
            add_acc_wide(
                self.isa,
                &mut low[..(k - upper) * width],
                &high[..(k - upper) * width],
            );
            k = upper;
        }
        for (o, &a) in out.iter_mut().zip(acc.iter()) {
            *o = T::narrow(a);
        }
    }
}

/// The sum of `value(j)` for `j` in `lo..hi`, in the tree [`Task::runs`] uses: halves down
/// to `LEAF` terms, added in order from zero.
fn tree_sum<A: Acc>(lo: usize, hi: usize, value: &impl Fn(usize) -> A) -> A {
    let n = hi - lo;
    if n <= LEAF {
        return (lo..hi).fold(A::ZERO, |sum, j| sum.add(value(j)));
    }
    let mid = lo + n / 2;
    tree_sum(lo, mid, value).add(tree_sum(mid, hi, value))
}

/// A summed axis read `l` rows at a time: `whole` covers the complete groups (as rows `l`
/// times wider), `rest` the `rest_rows` rows left over at the end of that axis.
struct Wide {
    l: usize,
    whole: Axes,
    rest_rows: usize,
    rest: Axes,
}

/// Levels of temporary rows the pairwise sum of `n` rows needs below its top.
fn depth(mut n: usize) -> usize {
    let mut d = 0;
    while n > LEAF {
        n = n.div_ceil(2);
        d += 1;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_halvings_down_to_a_leaf() {
        assert_eq!(depth(0), 0);
        assert_eq!(depth(LEAF), 0);
        assert_eq!(depth(LEAF + 1), 1);
        assert_eq!(depth(4 * LEAF), 2);
        assert_eq!(depth(4 * LEAF + 1), 3);
    }
}
