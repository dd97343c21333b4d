//! The one executor of every element-wise op: any [`EltwisePlan`], any operand layout, read
//! in place.
//!
//! The flat output is cut into contiguous chunks ([`crate::exec::for_each_chunk`]); each chunk
//! positions an [`Odometer`] over the plan's outer axes once and then walks row by row. For
//! every stretch of a row it hands the op's block kernel one [`Src`] per operand:
//! - a contiguous run of the operand (`Src::Contig`, a slice of the view's own memory),
//! - one value for the whole stretch (`Src::Splat`, stride 0),
//! - a strided run (`Src::Strided`: transposed, stepped or reversed views),
//! - for an operand broadcast along the row's outer axes (a short block repeated, such as a
//!   `[3]` pixel bias under `[..., 3]`), a slice of a small per-chunk *tile*: the block
//!   repeated to a few hundred elements, so the kernel runs its contiguous loop against it
//!   instead of a 3-element loop per row.
//!
//! Kernels are monomorphised for the (contiguous | splat) combinations, which the compiler
//! vectorises; strided operands take a per-element loop. Every output element is written
//! exactly once, by the chunk that owns it, with the same arithmetic whatever the chunking,
//! so results are bit-identical for any thread count.

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, IxDyn};

use super::plan::{EltwisePlan, RowKind};
use crate::auto_broadcast::AutoBroadcast;
use crate::error::{BroadcastError, Dims};
use crate::exec::isa::Avx2;
use crate::exec::{
    as_init, for_each_chunk, per_line, prefetch_ahead, reserve, Odometer, Parallelism, Slot,
    Strategy, STRING_COST_BYTES,
};

/// A periodic operand's tile holds at least this many bytes' worth of usable elements (plus
/// one period), or the whole row when that is shorter: long enough that the per-stretch cost
/// (one kernel call) is small against the stretch, short enough to stay in L1.
const TILE_MIN_BYTES: usize = 4096;

/// Usable tile length for a block of `period` elements of `T` in rows of `row_len`.
#[inline(always)]
fn tile_usable<T>(period: usize, row_len: usize) -> usize {
    let min = (TILE_MIN_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    (period * min.div_ceil(period)).min(row_len)
}

/// One operand, read in place: the view's pointer to its first element and its lifetime.
pub(crate) struct Operand<'a, T> {
    ptr: *const T,
    _life: PhantomData<&'a T>,
}

impl<T> Clone for Operand<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Operand<'_, T> {}

// SAFETY: an `Operand` only ever hands out `&'a T` (shared reads of the view it came from),
// exactly what `&'a [T]` allows across threads when `T: Sync`.
unsafe impl<T: Sync> Send for Operand<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Operand<'_, T> {}

impl<'a, T> Operand<'a, T> {
    fn of(view: &ArrayViewD<'a, T>) -> Self {
        Operand {
            ptr: view.as_ptr(),
            _life: PhantomData,
        }
    }

    /// The element at `offset` from the view's first element.
    ///
    /// # Safety
    /// `offset` must be the offset (`sum(index[k] * stride[k])`) of an element of the view.
    #[inline(always)]
    unsafe fn at(self, offset: isize) -> &'a T {
        // SAFETY: the caller guarantees an element of the view lives there; the view's
        // borrow (`'a`) keeps it alive and unmutated.
        unsafe { &*self.ptr.offset(offset) }
    }

    /// `len` elements from `offset` on, with stride `stride`, as a source.
    ///
    /// # Safety
    /// For every `i < len`, `offset + i * stride` must be the offset of an element of the view.
    #[inline(always)]
    unsafe fn run(self, offset: isize, stride: isize, len: usize) -> Src<'a, T> {
        match stride {
            // SAFETY: caller's contract (`len >= 1` whenever the kernel reads the value).
            0 => Src::Splat(unsafe { self.at(offset) }),
            // SAFETY: stride 1: `len` consecutive elements of the view, all borrowed for 'a.
            1 => Src::Contig(unsafe { std::slice::from_raw_parts(self.ptr.offset(offset), len) }),
            _ => Src::Strided(Strided {
                // SAFETY: the first element is an element of the view (or `len == 0` and it
                // is never read, but then the pointer must still stay in bounds: `offset`
                // comes from the plan walk, which only yields offsets of output positions).
                ptr: unsafe { self.ptr.offset(offset) },
                stride,
                len,
                _life: PhantomData,
            }),
        }
    }
}

/// A strided run of an operand.
pub(crate) struct Strided<'a, T> {
    ptr: *const T,
    stride: isize,
    len: usize,
    _life: PhantomData<&'a T>,
}

impl<T> Clone for Strided<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Strided<'_, T> {}

impl<'a, T> Strided<'a, T> {
    /// Element `i` of the run.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline(always)]
    fn get(self, i: usize) -> &'a T {
        assert!(i < self.len, "strided run: index out of range");
        // SAFETY: `Strided` is only built by `Operand::run`, whose contract makes every
        // `ptr + i * stride` with `i < len` an element of the view, borrowed for 'a.
        unsafe { &*self.ptr.offset(i as isize * self.stride) }
    }
}

/// One operand's values for one stretch of output, as a block kernel sees them.
pub(crate) enum Src<'a, T> {
    /// Element `i` is `slice[i]`; the slice is exactly as long as the stretch.
    Contig(&'a [T]),
    /// Every element is this value.
    Splat(&'a T),
    /// Element `i` is `strided.get(i)`.
    Strided(Strided<'a, T>),
}

impl<T> Clone for Src<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Src<'_, T> {}

impl<'a, T> Src<'a, T> {
    /// Element `i` (slow: a match per element; the kernels' fast loops avoid it).
    #[inline(always)]
    pub(crate) fn get(self, i: usize) -> &'a T {
        match self {
            Src::Contig(s) => &s[i],
            Src::Splat(v) => v,
            Src::Strided(s) => s.get(i),
        }
    }
}

/// Writes one stretch of a binary op's output.
pub(crate) trait BinaryKernel<A, B, C>: Sync {
    /// `out[i] = f(a[i], b[i])` for every `i < out.len()`.
    fn block<S: Slot<C>>(&self, a: Src<'_, A>, b: Src<'_, B>, out: &mut [S]);
}

/// A binary kernel from an element function.
pub(crate) struct PerElement<F>(pub(crate) F);

impl<A, B, C, F> BinaryKernel<A, B, C> for PerElement<F>
where
    A: Copy,
    B: Copy,
    F: Fn(A, B) -> C + Sync,
{
    #[inline(always)]
    fn block<S: Slot<C>>(&self, a: Src<'_, A>, b: Src<'_, B>, out: &mut [S]) {
        let f = &self.0;
        let n = out.len();
        // Contiguous operands are read a line at a time, each line's hint issued ahead.
        let line = per_line::<A>().min(per_line::<B>());
        match (a, b) {
            (Src::Contig(x), Src::Contig(y)) => {
                let (x, y) = (&x[..n], &y[..n]);
                let mut i = 0;
                for o in out.chunks_mut(line) {
                    prefetch_ahead(x, i);
                    prefetch_ahead(y, i);
                    for ((o, &x), &y) in o.iter_mut().zip(&x[i..]).zip(&y[i..]) {
                        o.put(f(x, y));
                    }
                    i += line;
                }
            }
            (Src::Contig(x), Src::Splat(&y)) => {
                let x = &x[..n];
                let mut i = 0;
                for o in out.chunks_mut(line) {
                    prefetch_ahead(x, i);
                    for (o, &x) in o.iter_mut().zip(&x[i..]) {
                        o.put(f(x, y));
                    }
                    i += line;
                }
            }
            (Src::Splat(&x), Src::Contig(y)) => {
                let y = &y[..n];
                let mut i = 0;
                for o in out.chunks_mut(line) {
                    prefetch_ahead(y, i);
                    for (o, &y) in o.iter_mut().zip(&y[i..]) {
                        o.put(f(x, y));
                    }
                    i += line;
                }
            }
            (Src::Splat(&x), Src::Splat(&y)) => {
                for o in out.iter_mut() {
                    o.put(f(x, y));
                }
            }
            _ => {
                for (i, o) in out.iter_mut().enumerate() {
                    o.put(f(*a.get(i), *b.get(i)));
                }
            }
        }
    }
}

/// Where one operand's values for one stretch come from, in offsets (the plan walk's view).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// Element `i` at `offset + i * stride`.
    Run { offset: isize, stride: isize },
    /// Element `i` at `offset + ((phase + i) % period) * stride`.
    Periodic {
        offset: isize,
        stride: isize,
        period: usize,
        phase: usize,
        /// The row length (a multiple of `period`).
        row_len: usize,
    },
}

/// Walks output positions `start .. start + len` of `plan` row by row, calling
/// `f(pieces, from, n)` for each stretch of `n` positions starting at chunk position `from`.
/// Every position is covered once, in order.
#[inline(always)]
fn walk<const N: usize>(
    plan: &EltwisePlan<N>,
    start: usize,
    len: usize,
    mut f: impl FnMut(&[Piece; N], usize, usize),
) {
    if len == 0 {
        return;
    }
    let row_len = plan.row_len();
    let kinds = plan.kinds();
    let (row, mut col) = if start == 0 {
        (0, 0)
    } else {
        (start / row_len, start % row_len)
    };
    let mut outer = Odometer::at(plan.outer_dims(), plan.outer_strides(), plan.bases(), row);
    let mut done = 0;
    loop {
        let n = (row_len - col).min(len - done);
        let offsets = outer.offsets();
        let mut pieces = [Piece::Run {
            offset: 0,
            stride: 0,
        }; N];
        for j in 0..N {
            pieces[j] = match kinds[j] {
                RowKind::Run { stride } => Piece::Run {
                    offset: offsets[j] + col as isize * stride,
                    stride,
                },
                RowKind::Periodic { period, stride } => Piece::Periodic {
                    offset: offsets[j],
                    stride,
                    period,
                    phase: col % period,
                    row_len,
                },
            };
        }
        f(&pieces, done, n);
        done += n;
        if done == len {
            return;
        }
        col = 0;
        outer.step();
    }
}

/// A per-chunk tile of one periodic operand: its block repeated, rebuilt when the block's
/// origin changes.
struct Tile<T> {
    key: Option<(isize, isize, usize)>,
    values: Vec<T>,
    usable: usize,
}

impl<T: Copy> Tile<T> {
    fn new() -> Self {
        Tile {
            key: None,
            values: Vec::new(),
            usable: 0,
        }
    }

    /// The tile for the block at `offset` (stride `stride`, `period` elements) of `op`.
    ///
    /// # Safety
    /// `offset + i * stride` must be an element of `op`'s view for every `i < period`.
    unsafe fn get<'s>(
        &'s mut self,
        op: Operand<'_, T>,
        offset: isize,
        stride: isize,
        period: usize,
        row_len: usize,
    ) -> (&'s [T], usize) {
        let key = (offset, stride, period);
        if self.key != Some(key) {
            self.usable = tile_usable::<T>(period, row_len);
            self.values.clear();
            for i in 0..period {
                // SAFETY: caller's contract.
                self.values
                    .push(*unsafe { op.at(offset + i as isize * stride) });
            }
            let total = self.usable + period;
            while self.values.len() < total {
                let n = self.values.len().min(total - self.values.len());
                self.values.extend_from_within(..n);
            }
            self.key = Some(key);
        }
        (&self.values, self.usable)
    }
}

/// Where a fresh or caller's output goes.
pub(crate) enum Dest<'o, C> {
    /// Allocate a new array.
    Fresh,
    /// Write into this array (its shape must be the output's).
    Into(ArrayViewMutD<'o, C>),
}

/// What one element of output costs to write, in bytes of plain writes (for chunking).
fn cost_bytes<C>() -> usize {
    if std::mem::needs_drop::<C>() {
        STRING_COST_BYTES
    } else {
        std::mem::size_of::<C>().max(1)
    }
}

/// Allocates a fresh output of `plan`'s shape and lets `write` fill every slot; wraps it.
fn fresh<C: Send, const N: usize>(
    plan: &EltwisePlan<N>,
    write: impl FnOnce(&mut [MaybeUninit<C>]) -> Result<(), BroadcastError>,
) -> Result<ArrayD<C>, BroadcastError> {
    let len = plan.len();
    let mut out: Vec<C> = reserve(len, plan.out_shape(), true)?;
    write(&mut out.spare_capacity_mut()[..len])?;
    // SAFETY: `write` returned Ok, which (the executor's postcondition) means every one of
    // the `len` slots was written; the capacity is at least `len`.
    unsafe { out.set_len(len) };
    Ok(ArrayD::from_shape_vec(IxDyn(plan.out_shape()), out)
        .expect("the output holds the product of its shape"))
}

fn check_out_shape<C, const N: usize>(
    plan: &EltwisePlan<N>,
    out: &ArrayViewMutD<'_, C>,
) -> Result<(), BroadcastError> {
    if out.shape() != plan.out_shape() {
        return Err(BroadcastError::OutputShape {
            expected: Dims(plan.out_shape().to_vec()),
            actual: Dims(out.shape().to_vec()),
        });
    }
    Ok(())
}

/// Runs a binary op: plans `a` and `b` under `spec` (PDPD: `b` onto `a`) and writes
/// `kernel`'s output to `dest`. Returns the array when `dest` is [`Dest::Fresh`].
pub(crate) fn run_binary<A, B, C, K>(
    a: ArrayViewD<'_, A>,
    b: ArrayViewD<'_, B>,
    spec: &AutoBroadcast,
    kernel: &K,
    dest: Dest<'_, C>,
    par: Parallelism<'_>,
) -> Result<Option<ArrayD<C>>, BroadcastError>
where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Send,
    K: BinaryKernel<A, B, C>,
{
    let plan = EltwisePlan::<2>::new(
        [a.shape(), b.shape()],
        [a.strides(), b.strides()],
        0,
        spec,
        true,
    )?;
    let ops = (Operand::of(&a), Operand::of(&b));
    match dest {
        Dest::Fresh => fresh(&plan, |out| write_binary(&plan, ops, kernel, out, par)).map(Some),
        Dest::Into(mut out) => {
            check_out_shape(&plan, &out)?;
            if let Some(slice) = out.as_slice_mut() {
                write_binary(&plan, ops, kernel, as_init(slice), par)?;
            } else {
                // A caller's output that is not row-major: compute, then move in.
                let tmp = fresh(&plan, |o| write_binary(&plan, ops, kernel, o, par))?;
                for (o, v) in out.iter_mut().zip(tmp) {
                    *o = v;
                }
            }
            Ok(None)
        }
    }
}

/// Writes every slot of `out` (the whole output of `plan`, row-major).
fn write_binary<A, B, C, K, S>(
    plan: &EltwisePlan<2>,
    (a, b): (Operand<'_, A>, Operand<'_, B>),
    kernel: &K,
    out: &mut [S],
    par: Parallelism<'_>,
) -> Result<(), BroadcastError>
where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Send,
    S: Slot<C>,
    K: BinaryKernel<A, B, C>,
{
    assert_eq!(out.len(), plan.len(), "eltwise: output length");
    if out.is_empty() {
        return Ok(());
    }
    // A caller's closure may panic on the calling thread too (small outputs run serially):
    // that is a worker failure like any other.
    let wide = wide_isa();
    caught(|| {
        for_each_chunk(out, cost_bytes::<C>(), par, |start, chunk| match wide {
            // SAFETY: the token proves the CPU runs AVX2.
            #[cfg(target_arch = "x86_64")]
            Some(token) => unsafe {
                write_binary_chunk_avx2(token, plan, (a, b), kernel, start, chunk)
            },
            _ => write_binary_chunk(plan, (a, b), kernel, start, chunk),
        })
    })
}

/// The AVX2 token when the strategy for this CPU runs the element-wise loops compiled for
/// AVX2 (read once per run, on the calling thread). Wider loads and stores keep more cache
/// lines in flight per loop iteration, which is what one thread's memory bandwidth needs on
/// some CPUs; every op's arithmetic is the same IEEE operation at any vector width.
fn wide_isa() -> Option<Avx2> {
    if Strategy::get().wide_eltwise {
        Avx2::detect()
    } else {
        None
    }
}

/// [`write_binary_chunk`] compiled with AVX2 (everything it calls is `#[inline(always)]`).
///
/// # Safety
/// The CPU must support AVX2 (the token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn write_binary_chunk_avx2<A, B, C, K, S>(
    _: Avx2,
    plan: &EltwisePlan<2>,
    ops: (Operand<'_, A>, Operand<'_, B>),
    kernel: &K,
    start: usize,
    chunk: &mut [S],
) where
    A: Copy + Sync,
    B: Copy + Sync,
    S: Slot<C>,
    K: BinaryKernel<A, B, C>,
{
    write_binary_chunk(plan, ops, kernel, start, chunk);
}

/// Writes output positions `start .. start + chunk.len()` of a binary op.
#[inline(always)]
fn write_binary_chunk<A, B, C, K, S>(
    plan: &EltwisePlan<2>,
    (a, b): (Operand<'_, A>, Operand<'_, B>),
    kernel: &K,
    start: usize,
    chunk: &mut [S],
) where
    A: Copy + Sync,
    B: Copy + Sync,
    S: Slot<C>,
    K: BinaryKernel<A, B, C>,
{
    let (mut ta, mut tb) = (Tile::new(), Tile::new());
    let len = chunk.len();
    walk(plan, start, len, |pieces, from, n| {
        // SAFETY: the pieces come from walking `plan`, built from the very views `a` and `b`
        // point into, over output positions of this chunk: every offset they describe is an
        // element of the matching view.
        unsafe {
            binary_stretch(
                kernel,
                (a, b),
                (&mut ta, &mut tb),
                pieces,
                &mut chunk[from..from + n],
            )
        };
    });
}

/// Runs `f`, turning a panic into [`BroadcastError::WorkerPanicked`].
fn caught(f: impl FnOnce() -> Result<(), BroadcastError>) -> Result<(), BroadcastError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        Err(BroadcastError::WorkerPanicked {
            reason: payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-text panic payload".into()),
        })
    })
}

/// One stretch of a binary op, cut where a periodic operand's tile runs out.
///
/// # Safety
/// Every offset `pieces` describes for the `out.len()` positions is an element of its view.
#[inline(always)]
unsafe fn binary_stretch<A, B, C, K, S>(
    kernel: &K,
    (a, b): (Operand<'_, A>, Operand<'_, B>),
    (ta, tb): (&mut Tile<A>, &mut Tile<B>),
    pieces: &[Piece; 2],
    out: &mut [S],
) where
    A: Copy,
    B: Copy,
    S: Slot<C>,
    K: BinaryKernel<A, B, C>,
{
    let [mut pa, mut pb] = *pieces;
    let mut out = out;
    while !out.is_empty() {
        let n = out.len().min(room::<A>(&pa)).min(room::<B>(&pb));
        let (now, rest) = out.split_at_mut(n);
        // SAFETY: caller's contract, for the first `n` positions of each piece.
        let (sa, sb) = unsafe { (source(a, ta, &pa, n), source(b, tb, &pb, n)) };
        kernel.block(sa, sb, now);
        advance(&mut pa, n);
        advance(&mut pb, n);
        out = rest;
    }
}

/// How many positions a piece can serve in one go (a tile's usable length for a periodic one).
#[inline(always)]
fn room<T>(p: &Piece) -> usize {
    match *p {
        Piece::Run { .. } => usize::MAX,
        Piece::Periodic {
            period, row_len, ..
        } => tile_usable::<T>(period, row_len),
    }
}

#[inline(always)]
fn advance(p: &mut Piece, n: usize) {
    match p {
        Piece::Run { offset, stride } => *offset += n as isize * *stride,
        Piece::Periodic { phase, period, .. } => *phase = (*phase + n) % *period,
    }
}

/// The source for `n` positions of `piece` (`n <= room(piece)`).
///
/// # Safety
/// Every offset the piece describes for those `n` positions (and, for a periodic piece, its
/// whole block) is an element of `op`'s view.
#[inline(always)]
unsafe fn source<'t, T: Copy>(
    op: Operand<'t, T>,
    tile: &'t mut Tile<T>,
    piece: &Piece,
    n: usize,
) -> Src<'t, T> {
    match *piece {
        // SAFETY: caller's contract.
        Piece::Run { offset, stride } => unsafe { op.run(offset, stride, n) },
        Piece::Periodic {
            offset,
            stride,
            period,
            phase,
            row_len,
        } => {
            // SAFETY: caller's contract (the block's `period` elements).
            let (values, usable) = unsafe { tile.get(op, offset, stride, period, row_len) };
            debug_assert!(n <= usable);
            Src::Contig(&values[phase..phase + n])
        }
    }
}

/// Runs Select: plans `cond`, `then`, `else_` under `spec` (numpy: all three together;
/// pdpd: `cond` and `else_` onto `then`) and writes the picks to `dest`.
pub(crate) fn run_select<T: Clone + Send + Sync>(
    cond: ArrayViewD<'_, bool>,
    then: ArrayViewD<'_, T>,
    else_: ArrayViewD<'_, T>,
    spec: &AutoBroadcast,
    dest: Dest<'_, T>,
    par: Parallelism<'_>,
) -> Result<Option<ArrayD<T>>, BroadcastError> {
    let plan = EltwisePlan::<3>::new(
        [then.shape(), cond.shape(), else_.shape()],
        [then.strides(), cond.strides(), else_.strides()],
        0,
        spec,
        false,
    )?;
    let ops = (Operand::of(&then), Operand::of(&cond), Operand::of(&else_));
    match dest {
        Dest::Fresh => fresh(&plan, |out| write_select(&plan, ops, out, par)).map(Some),
        Dest::Into(mut out) => {
            check_out_shape(&plan, &out)?;
            if let Some(slice) = out.as_slice_mut() {
                write_select(&plan, ops, as_init(slice), par)?;
            } else {
                let tmp = fresh(&plan, |o| write_select(&plan, ops, o, par))?;
                for (o, v) in out.iter_mut().zip(tmp) {
                    *o = v;
                }
            }
            Ok(None)
        }
    }
}

type SelectOps<'a, T> = (Operand<'a, T>, Operand<'a, bool>, Operand<'a, T>);

fn write_select<T: Clone + Send + Sync, S: Slot<T>>(
    plan: &EltwisePlan<3>,
    (t, c, e): SelectOps<'_, T>,
    out: &mut [S],
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    assert_eq!(out.len(), plan.len(), "eltwise: output length");
    if out.is_empty() {
        return Ok(());
    }
    for_each_chunk(out, cost_bytes::<T>(), par, |start, chunk| {
        walk(plan, start, chunk.len(), |pieces, from, n| {
            let run = |p: &Piece| match *p {
                Piece::Run { offset, stride } => (offset, stride),
                // The plan was built without periodic rows.
                Piece::Periodic { .. } => unreachable!("select plans have no periodic rows"),
            };
            let ((ot, st), (oc, sc), (oe, se)) =
                (run(&pieces[0]), run(&pieces[1]), run(&pieces[2]));
            // SAFETY: the pieces come from walking `plan`, built from the views `t`, `c`
            // and `e` point into, over output positions of this chunk, so each of the `n`
            // offsets of each run is an element of its view.
            let (st, sc, se) = unsafe { (t.run(ot, st, n), c.run(oc, sc, n), e.run(oe, se, n)) };
            select_block(sc, st, se, &mut chunk[from..from + n]);
        });
    })
}

/// `out[i] = if cond[i] { then[i] } else { else_[i] }`.
#[inline(always)]
fn select_block<T: Clone, S: Slot<T>>(
    cond: Src<'_, bool>,
    then: Src<'_, T>,
    else_: Src<'_, T>,
    out: &mut [S],
) {
    // For plain values, clone both and pick one: a branch-free select the compiler
    // vectorises. A value that owns memory (a string) is cloned only when picked.
    let plain = !std::mem::needs_drop::<T>();
    let pick = |c: bool, t: &T, e: &T| -> T {
        if plain {
            let (t, e) = (t.clone(), e.clone());
            if c {
                t
            } else {
                e
            }
        } else if c {
            t.clone()
        } else {
            e.clone()
        }
    };
    let n = out.len();
    let line = per_line::<T>();
    match (cond, then, else_) {
        (Src::Splat(&c), t, e) => {
            let src = if c { t } else { e };
            match src {
                Src::Contig(s) => {
                    for (o, v) in out.iter_mut().zip(&s[..n]) {
                        o.put(v.clone());
                    }
                }
                _ => {
                    for (i, o) in out.iter_mut().enumerate() {
                        o.put(src.get(i).clone());
                    }
                }
            }
        }
        // Contiguous operands are read a line of `T` at a time, each line's hint issued ahead.
        (Src::Contig(c), Src::Contig(t), Src::Contig(e)) => {
            let (c, t, e) = (&c[..n], &t[..n], &e[..n]);
            let mut i = 0;
            for o in out.chunks_mut(line) {
                prefetch_ahead(c, i);
                prefetch_ahead(t, i);
                prefetch_ahead(e, i);
                for (((o, &c), t), e) in o.iter_mut().zip(&c[i..]).zip(&t[i..]).zip(&e[i..]) {
                    o.put(pick(c, t, e));
                }
                i += line;
            }
        }
        (Src::Contig(c), Src::Contig(t), Src::Splat(e)) => {
            let (c, t) = (&c[..n], &t[..n]);
            let mut i = 0;
            for o in out.chunks_mut(line) {
                prefetch_ahead(c, i);
                prefetch_ahead(t, i);
                for ((o, &c), t) in o.iter_mut().zip(&c[i..]).zip(&t[i..]) {
                    o.put(pick(c, t, e));
                }
                i += line;
            }
        }
        (Src::Contig(c), Src::Splat(t), Src::Contig(e)) => {
            let (c, e) = (&c[..n], &e[..n]);
            let mut i = 0;
            for o in out.chunks_mut(line) {
                prefetch_ahead(c, i);
                prefetch_ahead(e, i);
                for ((o, &c), e) in o.iter_mut().zip(&c[i..]).zip(&e[i..]) {
                    o.put(pick(c, t, e));
                }
                i += line;
            }
        }
        (Src::Contig(c), Src::Splat(t), Src::Splat(e)) => {
            for (o, &c) in out.iter_mut().zip(&c[..n]) {
                o.put(pick(c, t, e));
            }
        }
        (c, t, e) => {
            for (i, o) in out.iter_mut().enumerate() {
                o.put(if *c.get(i) {
                    t.get(i).clone()
                } else {
                    e.get(i).clone()
                });
            }
        }
    }
}
