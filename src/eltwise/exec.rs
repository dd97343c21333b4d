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
//! A two-operand op whose operands need no tile hands its kernel whole runs of rows at once
//! ([`BlockRows`], from [`walk_rows`]): a kernel reached through a function pointer (the op
//! table's) then pays its call once per run, not once per row, which is most of a small
//! op's time and a visible share of one with short rows.
//!
//! Kernels are monomorphised for the (contiguous | splat) combinations, which the compiler
//! vectorises; strided operands take a per-element loop. Every output element is written
//! exactly once, by the chunk that owns it, with the same arithmetic whatever the chunking,
//! so results are bit-identical for any thread count.

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, IxDyn};

use super::kinds::{InstructionRounding, PortableRounding, QuantizeBody};
use super::plan::{EltwisePlan, RowKind};
use super::select_lanes::{pick_fn, pick_of, PickFn};
use crate::auto_broadcast::AutoBroadcast;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{BroadcastError, Dims};
use crate::exec::isa::Avx2;
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
use crate::exec::isa::Avx512;
use crate::exec::{
    as_init, copy_streaming_unfenced, for_each_chunk, guarded, per_line, prefetch_ahead, reserve,
    row_settings, runs_inline, store_fence, stream_eltwise_stores, with_row_settings, Ahead,
    ArithmeticWidth, Odometer, Parallelism, RowSettings, Slot, Strategy, STRING_COST_BYTES,
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
pub(super) struct Operand<'a, T> {
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
    pub(super) fn of(view: &ArrayViewD<'a, T>) -> Self {
        Operand {
            ptr: view.as_ptr(),
            _life: PhantomData,
        }
    }

    /// An operand at `ptr`, the first element of memory laid out as the plan it is walked
    /// with was built for (a prepared op's row-major buffer).
    ///
    /// # Safety
    /// Every offset the plan walks to from `ptr` is an element of type `T`, initialised and
    /// not written for `'a`.
    pub(super) unsafe fn from_ptr(ptr: *const T) -> Self {
        Operand {
            ptr,
            _life: PhantomData,
        }
    }

    /// An operand of no view, for the unused places of a fixed-size array (never read: the
    /// executors read operand `j` only where a plan has an operand `j`).
    pub(super) fn unused() -> Self {
        Operand {
            ptr: std::ptr::NonNull::dangling().as_ptr(),
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

    /// Where the element at `offset` from the view's first element lies (computed without
    /// reading; the pointer keeps the whole view's provenance, so a kernel may step from it
    /// to other elements of the view).
    #[inline(always)]
    pub(super) fn element_ptr(self, offset: isize) -> *const T {
        self.ptr.wrapping_offset(offset)
    }

    /// The operand seen from the element at `offset` on (computed without reading, keeping
    /// the whole view's provenance, as [`Operand::element_ptr`]).
    #[inline(always)]
    fn from(self, offset: isize) -> Self {
        Operand {
            ptr: self.element_ptr(offset),
            _life: PhantomData,
        }
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

/// A run of whole rows of a two-operand op, handed to a kernel in one call: `count` rows of
/// `n` output positions each, one after another in the output; row `r` of operand `j` is the
/// `n` elements from `r * step` elements after its first row's start, `stride` apart.
///
/// Only the walk builds one ([`BlockRows::new`]): the rows are its promise, so reading them
/// ([`BlockRows::sources`]) is safe.
pub(crate) struct BlockRows<'a, A, B> {
    count: usize,
    n: usize,
    a: RowRun<'a, A>,
    b: RowRun<'a, B>,
}

/// One operand's rows in a [`BlockRows`]: the first row's start (with the whole view's
/// provenance, so later rows may be reached from it), the stride along a row and the step
/// from one row's start to the next.
struct RowRun<'a, T> {
    start: Operand<'a, T>,
    stride: isize,
    step: isize,
}

impl<'a, T> RowRun<'a, T> {
    /// These rows as [`PlainRows`], where each is contiguous or one value.
    #[inline(always)]
    fn plain(self) -> Option<PlainRows<'a, T>> {
        match self.stride {
            0 | 1 => Some(PlainRows {
                first: self.start.element_ptr(0),
                step: self.step,
                moves: self.stride == 1,
                _life: PhantomData,
            }),
            _ => None,
        }
    }
}

impl<T> Clone for RowRun<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for RowRun<'_, T> {}

impl<'a, A, B> BlockRows<'a, A, B> {
    /// `count` rows of `n` positions: operand `a`'s row `r` is `n` elements from
    /// `a_at + r * a_step`, `a_stride` apart (likewise `b`).
    ///
    /// # Safety
    /// For every `r < count` and `i < n`, `a_at + r * a_step + i * a_stride` must be the
    /// offset of an element of `a`'s view (likewise `b`), and `count`, `n` at least 1.
    #[inline(always)]
    unsafe fn new(
        count: usize,
        n: usize,
        (a, a_at, a_stride, a_step): (Operand<'a, A>, isize, isize, isize),
        (b, b_at, b_stride, b_step): (Operand<'a, B>, isize, isize, isize),
    ) -> Self {
        BlockRows {
            count,
            n,
            a: RowRun {
                start: a.from(a_at),
                stride: a_stride,
                step: a_step,
            },
            b: RowRun {
                start: b.from(b_at),
                stride: b_stride,
                step: b_step,
            },
        }
    }

    /// How many rows.
    #[inline(always)]
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Positions per row.
    #[inline(always)]
    pub(crate) fn row_len(&self) -> usize {
        self.n
    }

    /// Each operand's rows as its first row's start and the step to the next, where every
    /// row of both operands is contiguous (stride 1) or one value (stride 0): what a kernel
    /// walks with pointer steps alone, without building each row's [`Src`]. `None` where an
    /// operand is strided.
    #[inline(always)]
    pub(crate) fn plain(&self) -> Option<(PlainRows<'a, A>, PlainRows<'a, B>)> {
        Some((self.a.plain()?, self.b.plain()?))
    }

    /// Both operands' sources for row `r`.
    ///
    /// # Panics
    /// If `r >= count`.
    #[inline(always)]
    pub(crate) fn sources(&self, r: usize) -> (Src<'a, A>, Src<'a, B>) {
        assert!(r < self.count, "block rows: row out of range");
        let (a, b) = (self.a, self.b);
        // SAFETY: `new`'s contract: row `r < count` of each operand is `n` elements of its
        // view from `r * step` on, `stride` apart (offsets from the first row's start, which
        // keeps the view's provenance).
        unsafe {
            (
                a.start.run(r as isize * a.step, a.stride, self.n),
                b.start.run(r as isize * b.step, b.stride, self.n),
            )
        }
    }
}

/// One operand's rows in a [`BlockRows`] whose rows are contiguous or one value
/// ([`BlockRows::plain`]). Row `r` starts at `first + r * step`; it is the `n` elements from
/// there where `moves`, else the one value there.
#[derive(Clone, Copy)]
pub(crate) struct PlainRows<'a, T> {
    first: *const T,
    step: isize,
    moves: bool,
    _life: PhantomData<&'a T>,
}

impl<T> PlainRows<'_, T> {
    /// Whether a row is `n` elements (true) or one value (false).
    #[inline(always)]
    pub(crate) fn moves(&self) -> bool {
        self.moves
    }

    /// Where row `r` starts (its first element, or its one value).
    ///
    /// # Safety
    /// `r` is below the [`BlockRows`]' count. The pointer reads, for `'a`, the row's `n`
    /// elements where the rows move, its one value where they do not (the walk's promise).
    #[inline(always)]
    pub(crate) unsafe fn row(&self, r: usize) -> *const T {
        // `wrapping_offset` keeps the view's provenance; the result is in the view for every
        // row below the count (the caller's contract).
        self.first.wrapping_offset(r as isize * self.step)
    }
}

/// Writes one stretch of a binary op's output.
pub(crate) trait BinaryKernel<A, B, C>: Sync {
    /// `out[i] = f(a[i], b[i])` for every `i < out.len()`.
    ///
    /// The sources come by reference: a block kernel behind a function pointer reads them
    /// from memory its caller has just written field by field, and a whole copy of them
    /// (for a call that takes them by value) reads them back with wider loads, which stalls.
    fn block<S: Slot<C>>(&self, a: &Src<'_, A>, b: &Src<'_, B>, out: &mut [S]);

    /// [`BinaryKernel::block`] on each of a run of whole rows, row `r` into
    /// `out[r * n .. (r + 1) * n]`. A kernel behind a function pointer takes the rows in one
    /// call, so its per-call cost is paid once per run rather than once per row.
    #[inline(always)]
    fn rows<S: Slot<C>>(&self, rows: &BlockRows<'_, A, B>, out: &mut [S]) {
        for (r, row) in out.chunks_exact_mut(rows.row_len()).enumerate() {
            let (a, b) = rows.sources(r);
            self.block(&a, &b, row);
        }
    }

    /// Refuses operands the op is not defined on (run once, when the output is not empty).
    fn check(&self, _a: &ArrayViewD<'_, A>, _b: &ArrayViewD<'_, B>) -> Result<(), BroadcastError> {
        Ok(())
    }

    /// [`BinaryKernel::check`] on the first `n` values of one block's second operand (an
    /// expression's intermediate divisor exists only block by block).
    fn check_block(&self, _b: Src<'_, B>, _n: usize) -> Result<(), BroadcastError> {
        Ok(())
    }

    /// What an output element costs next to a memory-bound op's
    /// ([`crate::EltwiseOp::relative_cost`]); a caller's closure counts as 1.
    fn relative_cost(&self) -> usize {
        1
    }
}

/// A kernel that refuses a zero divisor (integer division and remainders): OpenVINO's
/// reference divides by it, which is undefined in C++.
pub(crate) struct RefuseZeroDivisor<K> {
    pub(crate) kernel: K,
    pub(crate) op: &'static str,
    pub(crate) dtype: &'static str,
}

impl<A, B, C, K> BinaryKernel<A, B, C> for RefuseZeroDivisor<K>
where
    B: PartialEq + Default,
    K: BinaryKernel<A, B, C>,
{
    #[inline(always)]
    fn block<S: Slot<C>>(&self, a: &Src<'_, A>, b: &Src<'_, B>, out: &mut [S]) {
        self.kernel.block(a, b, out);
    }

    #[inline(always)]
    fn rows<S: Slot<C>>(&self, rows: &BlockRows<'_, A, B>, out: &mut [S]) {
        self.kernel.rows(rows, out);
    }

    fn check(&self, _a: &ArrayViewD<'_, A>, b: &ArrayViewD<'_, B>) -> Result<(), BroadcastError> {
        let zero = B::default();
        if b.iter().any(|x| *x == zero) {
            return Err(self.division_by_zero());
        }
        Ok(())
    }

    fn check_block(&self, b: Src<'_, B>, n: usize) -> Result<(), BroadcastError> {
        let zero = B::default();
        let any_zero = match b {
            Src::Contig(s) => s[..n].contains(&zero),
            Src::Splat(v) => n > 0 && *v == zero,
            Src::Strided(_) => (0..n).any(|i| *b.get(i) == zero),
        };
        if any_zero {
            return Err(self.division_by_zero());
        }
        Ok(())
    }
}

impl<K> RefuseZeroDivisor<K> {
    fn division_by_zero(&self) -> BroadcastError {
        BroadcastError::DivisionByZero {
            op: self.op,
            dtype: self.dtype,
        }
    }
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
    fn block<S: Slot<C>>(&self, a: &Src<'_, A>, b: &Src<'_, B>, out: &mut [S]) {
        // Contiguous operands go a cache line at a time (of the narrower type), each line's
        // hint issued ahead. The line's length is a constant of the types, matched as a
        // `const` so that only its arm is compiled for each kernel (rustc skips a constant
        // match's other arms before code generation; a plain call would have every arm
        // instantiated and left for LLVM to drop).
        let f = &self.0;
        match const {
            let (a, b) = (per_line::<A>(), per_line::<B>());
            if a < b {
                a
            } else {
                b
            }
        } {
            64 => element_lines::<64, _, _, _, _>(f, a, b, out),
            32 => element_lines::<32, _, _, _, _>(f, a, b, out),
            16 => element_lines::<16, _, _, _, _>(f, a, b, out),
            8 => element_lines::<8, _, _, _, _>(f, a, b, out),
            4 => element_lines::<4, _, _, _, _>(f, a, b, out),
            2 => element_lines::<2, _, _, _, _>(f, a, b, out),
            _ => element_lines::<1, _, _, _, _>(f, a, b, out),
        }
    }
}

/// [`PerElement`]'s block in lines of `L` elements.
///
/// Each line's operand values are copied into arrays before its results are stored. The
/// operands and the output reach the kernel through the walk's pointers, so the compiler
/// cannot tell that they never overlap; with a load and a store per element it must keep
/// them in that order, and either checks for overlap at run time on every line or, the line
/// being of constant length, unrolls it into one scalar operation per element. A line read
/// first is in the order the vectoriser wants: the line's loads, its arithmetic, its stores.
#[inline(always)]
fn element_lines<const L: usize, A: Copy, B: Copy, C, S: Slot<C>>(
    f: &impl Fn(A, B) -> C,
    a: &Src<'_, A>,
    b: &Src<'_, B>,
    out: &mut [S],
) {
    let n = out.len();
    let full = n - n % L;
    let ahead = Ahead::get();
    match (a, b) {
        (Src::Contig(x), Src::Contig(y)) => {
            let (x, y) = (&x[..n], &y[..n]);
            let (body, tail) = out.split_at_mut(full);
            let lines = body
                .chunks_exact_mut(L)
                .zip(x.chunks_exact(L))
                .zip(y.chunks_exact(L));
            for ((o, x), y) in lines {
                ahead.hint(x.as_ptr());
                ahead.hint(y.as_ptr());
                ahead.hint_write(o.as_mut_ptr());
                let (x, y) = (read_line::<L, A>(x), read_line::<L, B>(y));
                for ((o, &x), &y) in o.iter_mut().zip(&x).zip(&y) {
                    o.put(f(x, y));
                }
            }
            for ((o, &x), &y) in tail.iter_mut().zip(&x[full..]).zip(&y[full..]) {
                o.put(f(x, y));
            }
        }
        (Src::Contig(x), Src::Splat(y)) => {
            let (x, y) = (&x[..n], **y);
            let (body, tail) = out.split_at_mut(full);
            for (o, x) in body.chunks_exact_mut(L).zip(x.chunks_exact(L)) {
                ahead.hint(x.as_ptr());
                ahead.hint_write(o.as_mut_ptr());
                let x = read_line::<L, A>(x);
                for (o, &x) in o.iter_mut().zip(&x) {
                    o.put(f(x, y));
                }
            }
            for (o, &x) in tail.iter_mut().zip(&x[full..]) {
                o.put(f(x, y));
            }
        }
        (Src::Splat(x), Src::Contig(y)) => {
            let (x, y) = (**x, &y[..n]);
            let (body, tail) = out.split_at_mut(full);
            for (o, y) in body.chunks_exact_mut(L).zip(y.chunks_exact(L)) {
                ahead.hint(y.as_ptr());
                ahead.hint_write(o.as_mut_ptr());
                let y = read_line::<L, B>(y);
                for (o, &y) in o.iter_mut().zip(&y) {
                    o.put(f(x, y));
                }
            }
            for (o, &y) in tail.iter_mut().zip(&y[full..]) {
                o.put(f(x, y));
            }
        }
        (Src::Splat(x), Src::Splat(y)) => {
            let (x, y) = (**x, **y);
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

/// A line's values, copied out of `s` (a chunk of `chunks_exact(L)`, so `L` long).
#[inline(always)]
fn read_line<const L: usize, T: Copy>(s: &[T]) -> [T; L] {
    *s.first_chunk::<L>().expect("a whole line")
}

/// Where one operand's values for one stretch come from, in offsets (the plan walk's view).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Piece {
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

/// Each operand's piece of a row from position `col` on, its row starting at `offsets`.
#[inline(always)]
fn pieces_at<const N: usize>(
    kinds: &[RowKind; N],
    offsets: [isize; N],
    col: usize,
    row_len: usize,
) -> [Piece; N] {
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
    pieces
}

/// Walks output positions `start .. start + len` of `plan` row by row, calling
/// `f(pieces, from, n)` for each stretch of `n` positions starting at chunk position `from`.
/// Every position is covered once, in order.
#[inline(always)]
pub(super) fn walk<const N: usize>(
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
        let pieces = pieces_at(&kinds, outer.offsets(), col, row_len);
        f(&pieces, done, n);
        done += n;
        if done == len {
            return;
        }
        col = 0;
        outer.step();
    }
}

/// Walks output positions `start .. start + len` of `plan` as [`walk`] does, but hands whole
/// rows over together: `f(pieces, from, n, rows, steps)` covers `rows` rows of `n` positions,
/// consecutive in the output from chunk position `from`, the first at `pieces` and each next
/// one `steps[j]` elements further along operand `j` (the innermost outer axis's strides).
/// A stretch that begins or ends inside a row is handed alone (`rows == 1`), so a kernel
/// called per stretch pays its per-call cost once per run of whole rows, not once per row.
#[inline(always)]
pub(super) fn walk_rows<const N: usize>(
    plan: &EltwisePlan<N>,
    start: usize,
    len: usize,
    mut f: impl FnMut(&[Piece; N], usize, usize, usize, &[isize; N]),
) {
    if len == 0 {
        return;
    }
    let row_len = plan.row_len();
    let kinds = plan.kinds();
    let (dims, strides) = (plan.outer_dims(), plan.outer_strides());
    let (row, mut col) = (start / row_len, start % row_len);
    let mut outer = Odometer::at(dims, strides, plan.bases(), row);
    let no_step = [0isize; N];
    let steps = strides.last().unwrap_or(&no_step);
    let mut done = 0;
    loop {
        let n = (row_len - col).min(len - done);
        // Whole rows left in the chunk and along the innermost outer axis (whose next row
        // lies one step further); at least the row at hand.
        let rows = match (col, dims.last(), outer.index().last()) {
            (0, Some(&dim), Some(&at)) => ((len - done) / row_len).min(dim - at).max(1),
            _ => 1,
        };
        let pieces = pieces_at(&kinds, outer.offsets(), col, row_len);
        f(&pieces, done, n, rows, steps);
        done += n + (rows - 1) * row_len;
        if done == len {
            return;
        }
        col = 0;
        for _ in 0..rows {
            outer.step();
        }
    }
}

/// A per-chunk tile of one periodic operand: its block repeated, rebuilt when the block's
/// origin changes.
pub(super) struct Tile<T> {
    key: Option<(isize, isize, usize)>,
    values: Vec<T>,
    usable: usize,
}

impl<T: Copy> Tile<T> {
    pub(super) fn new() -> Self {
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
            // One allocation for the whole tile: grown value by value it reallocated about
            // a dozen times per chunk, and the allocator's lock, taken by every thread of a
            // split call at once, made a second thread slower than one.
            let total = self.usable + period;
            self.values.reserve(total);
            for i in 0..period {
                // SAFETY: caller's contract.
                self.values
                    .push(*unsafe { op.at(offset + i as isize * stride) });
            }
            while self.values.len() < total {
                let n = self.values.len().min(total - self.values.len());
                self.values.extend_from_within(..n);
            }
            self.key = Some(key);
        }
        (&self.values, self.usable)
    }
}

/// Writes every slot of an output (the whole output of a plan, row-major), on whatever slot
/// type the destination has.
pub(crate) trait Writer<C>: Sync {
    /// Writes all of `out`; Ok means every slot was written.
    fn write<S: Slot<C>>(&self, out: &mut [S]) -> Result<(), BroadcastError>;
}

/// The part of a [`Writer`] that is the op's own: output positions `start .. start +
/// chunk.len()` of its plan, every slot written. [`write_chunks`] cuts the output and
/// decides how the slots reach memory.
///
/// The two-operand writer's `chunk` is `#[inline(always)]`, and so is the stretch closure it
/// hands to [`walk`]: inlined into [`for_each_chunk`]'s call for a serial run, `start` is the
/// constant 0 and the walk's first position costs no divisions. Left to the inliner, a tiny
/// add ran about 350 more instructions a call. The other writers are left to the inliner:
/// forced, Select's rows ran slower (benches/RESULTS.md).
pub(crate) trait ChunkWriter<C>: Sync {
    fn chunk<S: Slot<C>>(&self, start: usize, chunk: &mut [S]);
}

/// Output bytes a streamed chunk computes at a time into a buffer that stays in L1 (as the
/// broadcast copies' window).
const STREAM_WINDOW_BYTES: usize = 16 << 10;

/// Writes all of `out` with `writer`, chunk by chunk ([`for_each_chunk`], `cost_bytes` per
/// element).
///
/// From the machine's streaming threshold on, where the strategy says so
/// ([`stream_eltwise_stores`], decided on the whole output), an output of plain data (no drop
/// glue: the numbers and bool) is written a window at a time into a buffer in L1 and
/// streamed out from there (the broadcast copies' way): an ordinary store first reads its
/// line from memory, so an output beyond the last-level cache would cross the memory bus
/// twice. Strings are written in place.
fn write_chunks<C: Send, S: Slot<C>>(
    writer: &impl ChunkWriter<C>,
    out: &mut [S],
    cost_bytes: usize,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    let strategy = par.strategy();
    if runs_inline(out.len().saturating_mul(cost_bytes)) {
        let bytes = out.len().saturating_mul(std::mem::size_of::<C>());
        with_row_settings(RowSettings::of(&strategy, bytes), || writer.chunk(0, out));
        return Ok(());
    }
    let size = std::mem::size_of::<C>();
    let plain = !std::mem::needs_drop::<C>() && size > 0;
    if !(plain && stream_eltwise_stores(out.len().saturating_mul(size), &strategy)) {
        return for_each_chunk(out, cost_bytes, par, |start, chunk| {
            writer.chunk(start, chunk);
        });
    }
    let window = (STREAM_WINDOW_BYTES / size).max(1);
    for_each_chunk(out, cost_bytes, par, |start, chunk| {
        let mut buf: Vec<MaybeUninit<C>> = Vec::new();
        buf.resize_with(window.min(chunk.len()), MaybeUninit::uninit);
        let mut at = start;
        for out in chunk.chunks_mut(window) {
            let values = &mut buf[..out.len()];
            writer.chunk(at, values);
            // SAFETY: `writer` wrote every slot of `values` (the trait's contract); `C` has
            // no drop glue, so the values it replaces in `out` need no drop.
            unsafe { stream_out(out, values) };
            at += out.len();
        }
        store_fence();
    })
}

/// Moves `values` over `out` (of equal length) with streaming stores (no fence).
///
/// # Safety
/// Every slot of `values` holds a `C`; `C` has no drop glue. `C` is one of this crate's
/// element types without drop glue (numbers and bool), so a value's every byte is
/// initialised.
unsafe fn stream_out<C, S: Slot<C>>(out: &mut [S], values: &[MaybeUninit<C>]) {
    assert_eq!(out.len(), values.len(), "stream_out: lengths");
    let bytes = std::mem::size_of_val(values);
    // SAFETY: `S` has the layout of `C` (the `Slot` contract), so `out` is `bytes` long;
    // the two do not overlap (one is borrowed mutably); the bytes of `values` are initialised
    // (the caller's contract), and any bytes are valid `MaybeUninit<u8>`s. The caller's `C`
    // needs no drop, so overwriting `out`'s values byte for byte drops nothing.
    let (dst, src) = unsafe {
        (
            std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<MaybeUninit<u8>>(), bytes),
            std::slice::from_raw_parts(values.as_ptr().cast::<MaybeUninit<u8>>(), bytes),
        )
    };
    copy_streaming_unfenced(dst, src);
}

/// Where an op's output goes: [`Fresh`] (a new array) or [`Into`] (a caller's array). Each
/// entry point names its destination's type, so a fresh run returns the array itself.
pub(crate) trait Sink<C: Send> {
    /// What the run returns: the array for a fresh output, nothing for a caller's.
    type Out;
    /// Lets `writer` fill the output of `plan` (a panic inside is an error).
    fn finish<const N: usize, W: Writer<C>>(
        self,
        plan: &EltwisePlan<N>,
        writer: &W,
    ) -> Result<Self::Out, BroadcastError>;
}

/// A new row-major array.
pub(crate) struct Fresh;

/// The caller's array, which must have the output's shape (any layout; a row-major one is
/// written in place).
pub(crate) struct Into<'o, C>(pub(crate) ArrayViewMutD<'o, C>);

/// Runs `writer` over `out`, a panic inside (the caller's closure included) becoming
/// [`BroadcastError::WorkerPanicked`].
fn write_guarded<C, S: Slot<C>, W: Writer<C>>(
    writer: &W,
    out: &mut [S],
) -> Result<(), BroadcastError> {
    guarded(|| writer.write(out)).and_then(|r| r)
}

impl<C: Send> Sink<C> for Fresh {
    type Out = ArrayD<C>;

    fn finish<const N: usize, W: Writer<C>>(
        self,
        plan: &EltwisePlan<N>,
        writer: &W,
    ) -> Result<ArrayD<C>, BroadcastError> {
        fresh(plan, |out| write_guarded(writer, out))
    }
}

impl<C: Send> Sink<C> for Into<'_, C> {
    type Out = ();

    fn finish<const N: usize, W: Writer<C>>(
        self,
        plan: &EltwisePlan<N>,
        writer: &W,
    ) -> Result<(), BroadcastError> {
        let mut out = self.0;
        check_out_shape(plan, &out)?;
        if let Some(slice) = out.as_slice_mut() {
            // Plain data is written through the same slots as a fresh output, so each writer
            // is compiled once for both (the branch is decided per type at compile time).
            if std::mem::needs_drop::<C>() {
                return write_guarded(writer, as_init(slice));
            }
            // SAFETY: `MaybeUninit<C>` has the layout of `C`; the writers only ever store
            // whole valid `C`s into their slots (never an uninitialised value), so the
            // caller's array stays initialised whatever happens, and `C` has no drop glue
            // that overwriting could skip.
            let slots = unsafe {
                std::slice::from_raw_parts_mut(
                    slice.as_mut_ptr().cast::<MaybeUninit<C>>(),
                    slice.len(),
                )
            };
            return write_guarded(writer, slots);
        }
        // A caller's output that is not row-major: compute, then move in.
        let tmp = fresh(plan, |o| write_guarded(writer, o))?;
        for (o, v) in out.iter_mut().zip(tmp) {
            *o = v;
        }
        Ok(())
    }
}

/// What one element of output costs to write, in bytes of plain writes (for chunking).
pub(super) fn cost_bytes<C>() -> usize {
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

/// Runs a binary op: plans `a` and `b` under `spec` (PDPD: `b` onto `a`), lets `kernel`
/// refuse the operands once the output is known not to be empty ([`BinaryKernel::check`]),
/// and writes its output to `sink`. `wide`: [`wide_isa`], read by the caller (once per
/// call: a kernel that also chooses by it is handed the same reading).
pub(crate) fn run_binary<A, B, C, K, D>(
    a: &ArrayViewD<'_, A>,
    b: &ArrayViewD<'_, B>,
    spec: &AutoBroadcast,
    kernel: &K,
    sink: D,
    par: Parallelism<'_>,
    wide: Option<(Avx2, usize)>,
) -> Result<D::Out, BroadcastError>
where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Send,
    K: BinaryKernel<A, B, C>,
    D: Sink<C>,
{
    // Built where it lives (see `EltwisePlan::build`).
    let mut plan = EltwisePlan::<2>::empty();
    plan.build(
        [a.shape(), b.shape()],
        [a.strides(), b.strides()],
        0,
        spec,
        true,
    )?;
    run_binary_planned(&plan, a, b, kernel, sink, par, wide)
}

/// [`run_binary`] with its plan already built: `plan` must have been built from exactly the
/// shapes and strides of `a` and `b` (a prepared op checks that on every run).
pub(crate) fn run_binary_planned<A, B, C, K, D>(
    plan: &EltwisePlan<2>,
    a: &ArrayViewD<'_, A>,
    b: &ArrayViewD<'_, B>,
    kernel: &K,
    sink: D,
    par: Parallelism<'_>,
    wide: Option<(Avx2, usize)>,
) -> Result<D::Out, BroadcastError>
where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Send,
    K: BinaryKernel<A, B, C>,
    D: Sink<C>,
{
    if plan.len() > 0 {
        kernel.check(a, b)?;
    }
    let writer = BinaryWriter {
        plan,
        ops: (Operand::of(a), Operand::of(b)),
        kernel,
        par,
        wide: wide_at(wide, plan.len().saturating_mul(std::mem::size_of::<C>())),
    };
    sink.finish(plan, &writer)
}

/// A prepared two-operand op's kernel record (see [`super::prepared`]): its kernel with every
/// choice a call would make before the walk already made (the op's block functions for each
/// ISA, the strategy's AVX2 reading), run on the prepared buffers' pointers through the plan
/// built for them. Only for ops that refuse no operand (no zero-divisor check).
pub(crate) trait DirectRun: Send + Sync {
    /// The operands' element type and the output's.
    fn dtypes(&self) -> (DType, DType);

    /// Whether a run on `par` may use the record: its strategy reads the AVX2 build
    /// ([`wide_isa`]) and the register kernels ([`RegisterReading`]) as the one it was
    /// prepared with did. Otherwise the op takes the
    /// general path, which reads the run's strategy afresh.
    fn serves(&self, par: Parallelism<'_>) -> bool;

    /// Writes the op's output for `plan` into `out`.
    ///
    /// # Safety
    /// `a` and `b` point to the first elements of operands of the record's operand type laid
    /// out as `plan` was built for, initialised and not written during the call; `out` points
    /// to `plan.len()` writable elements of the record's output type (any contents), which
    /// overlap neither operand.
    unsafe fn run(
        &self,
        plan: &EltwisePlan<2>,
        a: *const u8,
        b: *const u8,
        out: *mut u8,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError>;
}

/// What a strategy says of the block kernels in 64-byte registers (`registers.rs`): f16
/// computed natively, f32 at AVX-512 width. A kernel record serves a run only where its
/// strategy reads these as the record's did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RegisterReading {
    native_f16: bool,
    f16_avx512: bool,
    arithmetic: ArithmeticWidth,
}

impl RegisterReading {
    /// `strategy`'s reading.
    #[inline]
    pub(crate) fn of(strategy: &Strategy) -> RegisterReading {
        RegisterReading {
            native_f16: strategy.native_f16,
            f16_avx512: strategy.f16_avx512,
            arithmetic: strategy.arithmetic,
        }
    }
}

/// [`DirectRun`] for a kernel of operand type `T` and output type `C`.
pub(crate) struct DirectBinary<T, C, K> {
    kernel: K,
    wide: Option<(Avx2, usize)>,
    registers: RegisterReading,
    _types: PhantomData<fn(T) -> C>,
}

impl<T, C, K> DirectBinary<T, C, K> {
    /// The record of `kernel` with the strategy's [`wide_isa`] reading `wide` and its
    /// reading of the register kernels `registers`.
    pub(crate) fn new(kernel: K, wide: Option<(Avx2, usize)>, registers: RegisterReading) -> Self {
        DirectBinary {
            kernel,
            wide,
            registers,
            _types: PhantomData,
        }
    }
}

impl<T, C, K> DirectRun for DirectBinary<T, C, K>
where
    T: Element + Copy + Sync,
    C: Element + Copy + Send,
    K: BinaryKernel<T, T, C> + Send,
{
    fn dtypes(&self) -> (DType, DType) {
        (T::DTYPE, C::DTYPE)
    }

    #[inline]
    fn serves(&self, par: Parallelism<'_>) -> bool {
        let from = |w: Option<(Avx2, usize)>| w.map(|(_, from)| from);
        let strategy = par.strategy();
        from(wide_isa_of(&strategy)) == from(self.wide)
            && RegisterReading::of(&strategy) == self.registers
    }

    unsafe fn run(
        &self,
        plan: &EltwisePlan<2>,
        a: *const u8,
        b: *const u8,
        out: *mut u8,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        let len = plan.len();
        if len == 0 {
            return Ok(());
        }
        // SAFETY: the caller's contract: `out` holds `len` writable elements of `C`, which
        // `MaybeUninit<C>` has the layout of, and nothing else reads or writes them during
        // the call; the writers store only whole valid `C`s.
        let out = unsafe { std::slice::from_raw_parts_mut(out.cast::<MaybeUninit<C>>(), len) };
        // SAFETY: the caller's contract: `a` and `b` are laid out as `plan` was built for.
        let (a, b) = unsafe {
            (
                Operand::from_ptr(a.cast::<T>()),
                Operand::from_ptr(b.cast::<T>()),
            )
        };
        let bytes = len.saturating_mul(std::mem::size_of::<C>());
        let wide = wide_at(self.wide, bytes);
        // One row the calling thread writes whole (a tiny node, a same-shape or scalar
        // operand): the row goes to the kernel as the chunked runner's inline path would hand
        // it, without that runner's walk, whose set-up is most of such a call.
        let cost = cost_bytes::<C>().saturating_mul(self.kernel.relative_cost());
        if let ([], [RowKind::Run { stride: sa }, RowKind::Run { stride: sb }]) =
            (plan.outer_dims(), plan.kinds())
        {
            if runs_inline(len.saturating_mul(cost)) {
                let [oa, ob] = plan.bases();
                // SAFETY: a plan without outer axes is one row of its `len` positions (at
                // least 1), operand `j`'s element `i` at `bases[j] + i * stride_j`, an element
                // of the buffer the plan was built for (the caller's contract).
                let row = unsafe { BlockRows::new(1, len, (a, oa, sa, 0), (b, ob, sb, 0)) };
                let settings = RowSettings::of(&par.strategy(), bytes);
                return guarded(|| {
                    with_row_settings(settings, || match wide {
                        // SAFETY: the token proves the CPU runs AVX2.
                        #[cfg(target_arch = "x86_64")]
                        Some(token) => unsafe { binary_rows_avx2(token, &self.kernel, &row, out) },
                        _ => self.kernel.rows(&row, out),
                    })
                });
            }
        }
        let writer = BinaryWriter {
            plan,
            ops: (a, b),
            kernel: &self.kernel,
            par,
            wide,
        };
        write_guarded(&writer, out)
    }
}

/// [`BinaryKernel::rows`] compiled with AVX2, as [`write_binary_chunk_avx2`] runs it.
///
/// # Safety
/// The CPU must support AVX2 (the token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn binary_rows_avx2<A, B, C, K, S>(
    _: Avx2,
    kernel: &K,
    rows: &BlockRows<'_, A, B>,
    out: &mut [S],
) where
    S: Slot<C>,
    K: BinaryKernel<A, B, C>,
{
    kernel.rows(rows, out);
}

struct BinaryWriter<'p, 'v, A, B, K> {
    plan: &'p EltwisePlan<2>,
    ops: (Operand<'v, A>, Operand<'v, B>),
    kernel: &'p K,
    par: Parallelism<'p>,
    /// [`wide_isa`], found once per run on the calling thread.
    wide: Option<Avx2>,
}

impl<A, B, C, K> Writer<C> for BinaryWriter<'_, '_, A, B, K>
where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Send,
    K: BinaryKernel<A, B, C>,
{
    fn write<S: Slot<C>>(&self, out: &mut [S]) -> Result<(), BroadcastError> {
        assert_eq!(out.len(), self.plan.len(), "eltwise: output length");
        if out.is_empty() {
            return Ok(());
        }
        let cost = cost_bytes::<C>().saturating_mul(self.kernel.relative_cost());
        write_chunks(self, out, cost, self.par)
    }
}

impl<A, B, C, K> ChunkWriter<C> for BinaryWriter<'_, '_, A, B, K>
where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Send,
    K: BinaryKernel<A, B, C>,
{
    #[inline(always)]
    fn chunk<S: Slot<C>>(&self, start: usize, chunk: &mut [S]) {
        let (plan, (a, b), kernel) = (self.plan, self.ops, self.kernel);
        match self.wide {
            // SAFETY: the token proves the CPU runs AVX2.
            #[cfg(target_arch = "x86_64")]
            Some(token) => unsafe {
                write_binary_chunk_avx2(token, plan, (a, b), kernel, start, chunk)
            },
            _ => write_binary_chunk(plan, (a, b), kernel, start, chunk),
        }
    }
}

/// The AVX2 token when the strategy for this CPU runs the element-wise loops compiled for
/// AVX2 (read once per run, on the calling thread), with the output size in bytes from which
/// it does ([`crate::exec::Strategy::wide_eltwise_from`]). Wider loads and stores keep more cache lines
/// in flight per loop iteration, which is what one thread's memory bandwidth needs on some
/// CPUs; every op's arithmetic is the same IEEE operation at any vector width.
pub(super) fn wide_isa(par: Parallelism<'_>) -> Option<(Avx2, usize)> {
    wide_isa_of(&par.strategy())
}

/// [`wide_isa`] of a strategy already read.
#[inline]
fn wide_isa_of(strategy: &Strategy) -> Option<(Avx2, usize)> {
    if strategy.wide_eltwise {
        Avx2::detect().map(|isa| (isa, strategy.wide_eltwise_from))
    } else {
        None
    }
}

/// [`wide_isa`]'s token for a run writing `bytes` of output: none below the strategy's size.
pub(super) fn wide_isa_for(par: Parallelism<'_>, bytes: usize) -> Option<Avx2> {
    wide_at(wide_isa(par), bytes)
}

/// The token of a [`wide_isa`] reading for a run writing `bytes` of output.
fn wide_at(wide: Option<(Avx2, usize)>, bytes: usize) -> Option<Avx2> {
    wide.and_then(|(isa, from)| (bytes >= from).then_some(isa))
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
    let len = chunk.len();
    if let [RowKind::Run { stride: sa }, RowKind::Run { stride: sb }] = plan.kinds() {
        // No tiles: runs of whole rows go to the kernel in one call each.
        walk_rows(
            plan,
            start,
            len,
            #[inline(always)]
            |pieces, from, n, rows, steps| {
                let [Piece::Run { offset: oa, .. }, Piece::Run { offset: ob, .. }] = *pieces else {
                    unreachable!("every operand's row is a run")
                };
                // SAFETY: the pieces come from walking `plan`, built from the very views `a`
                // and `b` point into, over output positions of this chunk; row `r` of the
                // `rows` lies `r` steps along the innermost outer axis (whose strides are
                // `steps`), and along a row operand `j` is a run of its row stride, so each
                // row's `n` elements are elements of the view. `n` and `rows` are at least 1.
                let block = unsafe {
                    BlockRows::new(rows, n, (a, oa, sa, steps[0]), (b, ob, sb, steps[1]))
                };
                kernel.rows(&block, &mut chunk[from..from + n * rows]);
            },
        );
        return;
    }
    let (mut ta, mut tb) = (Tile::new(), Tile::new());
    walk(
        plan,
        start,
        len,
        #[inline(always)]
        |pieces, from, n| {
            // SAFETY: the pieces come from walking `plan`, built from the very views `a` and
            // `b` point into, over output positions of this chunk: every offset they describe
            // is an element of the matching view.
            unsafe {
                binary_stretch(
                    kernel,
                    (a, b),
                    (&mut ta, &mut tb),
                    pieces,
                    &mut chunk[from..from + n],
                )
            };
        },
    );
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
        kernel.block(&sa, &sb, now);
        advance(&mut pa, n);
        advance(&mut pb, n);
        out = rest;
    }
}

/// How many positions a piece can serve in one go (a tile's usable length for a periodic one).
#[inline(always)]
pub(super) fn room<T>(p: &Piece) -> usize {
    match *p {
        Piece::Run { .. } => usize::MAX,
        Piece::Periodic {
            period, row_len, ..
        } => tile_usable::<T>(period, row_len),
    }
}

#[inline(always)]
pub(super) fn advance(p: &mut Piece, n: usize) {
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
pub(super) unsafe fn source<'t, T: Copy>(
    op: Operand<'t, T>,
    tile: &'t mut Tile<T>,
    piece: &Piece,
    n: usize,
) -> Src<'t, T> {
    // SAFETY: caller's contract.
    if let Some(src) = unsafe { run_source(op, piece, n) } {
        return src;
    }
    match *piece {
        Piece::Run { .. } => unreachable!("a run is read in place above"),
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

/// [`source`] for a piece that is a run (no tile needed); `None` for a periodic piece.
///
/// # Safety
/// As [`source`].
#[inline(always)]
pub(super) unsafe fn run_source<'t, T>(
    op: Operand<'t, T>,
    piece: &Piece,
    n: usize,
) -> Option<Src<'t, T>> {
    match *piece {
        // SAFETY: caller's contract.
        Piece::Run { offset, stride } => Some(unsafe { op.run(offset, stride, n) }),
        Piece::Periodic { .. } => None,
    }
}

/// Runs Select: plans `cond`, `then`, `else_` under `spec` (numpy: all three together;
/// pdpd: `cond` and `else_` onto `then`) and writes the picks to `sink`. `plain`: the
/// caller vouches that `T`'s values are plain bits (one of the crate's numeric or bool
/// types), so picks may move them as bits (`select_lanes.rs`); otherwise each is cloned.
pub(crate) fn run_select<T: Clone + Send + Sync, D: Sink<T>>(
    cond: &ArrayViewD<'_, bool>,
    then: &ArrayViewD<'_, T>,
    else_: &ArrayViewD<'_, T>,
    spec: &AutoBroadcast,
    sink: D,
    par: Parallelism<'_>,
    plain: bool,
) -> Result<D::Out, BroadcastError> {
    // Built where it lives (see `EltwisePlan::build`).
    let mut plan = EltwisePlan::<3>::empty();
    plan.build(
        [then.shape(), cond.shape(), else_.shape()],
        [then.strides(), cond.strides(), else_.strides()],
        0,
        spec,
        false,
    )?;
    let pick = if plain && !std::mem::needs_drop::<T>() {
        pick_fn::<T>(par.strategy().select_width)
    } else {
        None
    };
    let writer = SelectWriter {
        plan: &plan,
        ops: (Operand::of(then), Operand::of(cond), Operand::of(else_)),
        par,
        pick,
    };
    sink.finish(&plan, &writer)
}

/// Select's writer: a piece whose condition is a run and whose picks are runs or single
/// values goes to the strategy's blend kernel (`pick`, [`Strategy::select_width`]); the
/// others, and every piece where there is no such kernel, to the per-element loop, which
/// runs at the baseline ISA whatever `wide_eltwise` says: compiled for AVX2 it ran slower
/// on the AMD Zen 3 it was measured on (benches/RESULTS.md, 2026-12-07 (b)).
///
/// [`Strategy::select_width`]: crate::exec::Strategy::select_width
struct SelectWriter<'p, 'v, T> {
    plan: &'p EltwisePlan<3>,
    ops: (Operand<'v, T>, Operand<'v, bool>, Operand<'v, T>),
    par: Parallelism<'p>,
    pick: Option<PickFn>,
}

impl<T: Clone + Send + Sync> Writer<T> for SelectWriter<'_, '_, T> {
    fn write<S: Slot<T>>(&self, out: &mut [S]) -> Result<(), BroadcastError> {
        assert_eq!(out.len(), self.plan.len(), "eltwise: output length");
        if out.is_empty() {
            return Ok(());
        }
        write_chunks(self, out, cost_bytes::<T>(), self.par)
    }
}

impl<T: Clone + Send + Sync> ChunkWriter<T> for SelectWriter<'_, '_, T> {
    fn chunk<S: Slot<T>>(&self, start: usize, chunk: &mut [S]) {
        let (plan, (t, c, e)) = (self.plan, self.ops);
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
            let out = &mut chunk[from..from + n];
            if let (Some(pick), Src::Contig(cond)) = (self.pick, sc) {
                if let (Some(then), Some(else_)) = (pick_of(st), pick_of(se)) {
                    // SAFETY: `cond` holds the piece's `n` bools and each run its `n`
                    // elements (`Src::Contig`); `out` is `n` slots with `T`'s layout
                    // (`Slot`), `T`'s values plain bits (`run_select`'s `plain`), and
                    // `pick` came from `pick_fn`, which checked the CPU's features.
                    unsafe { pick(cond[..n].as_ptr(), then, else_, out.as_mut_ptr().cast(), n) };
                    return;
                }
            }
            select_block(sc, st, se, out);
        });
    }
}

/// Operands a variadic op reads in one pass; more are folded in groups of this many, each
/// group's partial result (in the element type, as the references accumulate) feeding the
/// next.
pub(crate) const FOLD_MAX: usize = 16;

/// Elements folded at a time (one accumulator block on the stack).
const FOLD_BLOCK: usize = 256;

/// A variadic op as a left fold: `start(x0)`, then `acc = step(acc, xj)` for each further
/// operand in order, then `finish(acc, count)`.
pub(crate) struct Fold<F0, F, G> {
    pub(crate) start: F0,
    pub(crate) step: F,
    pub(crate) finish: G,
}

/// Which part of a fold a pass computes (all of it, unless there are more than
/// [`FOLD_MAX`] operands).
#[derive(Clone, Copy)]
pub(super) struct FoldPass {
    /// Operand 0 is an earlier group's partial result: `start` is not applied again.
    pub(super) partial: bool,
    /// The total operand count, when this pass finishes the fold.
    pub(super) finish: Option<usize>,
}

impl<F0, F, G> Fold<F0, F, G> {
    #[inline(always)]
    pub(super) fn block<T, S>(&self, srcs: &[Src<'_, T>], pass: FoldPass, out: &mut [S])
    where
        T: Copy + Default,
        S: Slot<T>,
        F0: Fn(T) -> T,
        F: Fn(T, T) -> T,
        G: Fn(T, usize) -> T,
    {
        // Every contiguous operand's lines of a block are hinted the prefetch distance
        // ahead, as the binary loops hint theirs.
        let hint = block_hints::<T>();
        // The common case, a whole fold of up to four contiguous operands: one loop over the
        // elements keeps the accumulator in a register instead of a pass per operand over a
        // block.
        if let (false, Some(count)) = (pass.partial, pass.finish) {
            let mut rows: [&[T]; 4] = [&[]; 4];
            let all_contiguous = srcs.len() <= 4
                && srcs.iter().zip(&mut rows).all(|(src, row)| match *src {
                    Src::Contig(x) => {
                        *row = x;
                        true
                    }
                    _ => false,
                });
            if all_contiguous {
                let first = &self.start;
                let last = |a: T| (self.finish)(a, count);
                let step = &self.step;
                let [a, b, c, d] = rows;
                match srcs.len() {
                    1 => fold_contiguous(out, [a], first, step, last, hint),
                    2 => fold_contiguous(out, [a, b], first, step, last, hint),
                    3 => fold_contiguous(out, [a, b, c], first, step, last, hint),
                    _ => fold_contiguous(out, [a, b, c, d], first, step, last, hint),
                }
                return;
            }
        }
        let mut block = [T::default(); FOLD_BLOCK];
        let mut from = 0;
        for chunk in out.chunks_mut(FOLD_BLOCK) {
            let m = chunk.len();
            let acc = &mut block[..m];
            for src in srcs {
                if let Src::Contig(x) = *src {
                    hint(x, from, m);
                }
            }
            match srcs[0] {
                Src::Contig(x) => acc.copy_from_slice(&x[from..from + m]),
                Src::Splat(&x) => acc.fill(x),
                src @ Src::Strided(_) => {
                    for (i, a) in acc.iter_mut().enumerate() {
                        *a = *src.get(from + i);
                    }
                }
            }
            if !pass.partial {
                for a in acc.iter_mut() {
                    *a = (self.start)(*a);
                }
            }
            // One operand at a time over the block: each loop is a plain binary loop the
            // compiler vectorises.
            for src in &srcs[1..] {
                match *src {
                    Src::Contig(x) => {
                        for (a, &x) in acc.iter_mut().zip(&x[from..from + m]) {
                            *a = (self.step)(*a, x);
                        }
                    }
                    Src::Splat(&x) => {
                        for a in acc.iter_mut() {
                            *a = (self.step)(*a, x);
                        }
                    }
                    Src::Strided(_) => {
                        for (i, a) in acc.iter_mut().enumerate() {
                            *a = (self.step)(*a, *src.get(from + i));
                        }
                    }
                }
            }
            if let Some(count) = pass.finish {
                for a in acc.iter_mut() {
                    *a = (self.finish)(*a, count);
                }
            }
            for (o, &a) in chunk.iter_mut().zip(acc.iter()) {
                o.put(a);
            }
            from += m;
        }
    }

    /// The whole fold of `K` operands over `out.len() / n` rows of `n`, operand `j`'s row `r`
    /// being the `n` elements from `at[j] + r * steps[j]` on.
    ///
    /// # Safety
    /// `at` holds at least `K` pointers, and every such element is an element of a view
    /// borrowed for the call.
    #[inline(always)]
    unsafe fn contiguous_rows<T, S, const K: usize>(
        &self,
        at: &[*const T],
        steps: &[isize; 4],
        n: usize,
        total: usize,
        out: &mut [S],
    ) where
        T: Copy,
        S: Slot<T>,
        F0: Fn(T) -> T,
        F: Fn(T, T) -> T,
        G: Fn(T, usize) -> T,
    {
        let hint = block_hints::<T>();
        let last = |a: T| (self.finish)(a, total);
        for (r, out) in out.chunks_exact_mut(n).enumerate() {
            let rows: [&[T]; K] = std::array::from_fn(|j| {
                // SAFETY: caller's contract, for row `r` of operand `j`.
                unsafe {
                    std::slice::from_raw_parts(at[j].wrapping_offset(r as isize * steps[j]), n)
                }
            });
            fold_contiguous(out, rows, &self.start, &self.step, last, hint);
        }
    }
}

/// `hint(x, from, m)` hints every line of `x[from..from + m]` the prefetch distance ahead,
/// the distance read once, here, for all the calls.
#[inline(always)]
fn block_hints<T>() -> impl Fn(&[T], usize, usize) + Copy {
    let ahead = Ahead::get();
    let line = per_line::<T>();
    move |x: &[T], from: usize, m: usize| {
        for i in (from..from + m).step_by(line) {
            ahead.hint(x.as_ptr().wrapping_add(i));
        }
    }
}

/// `out[i] = last(fold of step over first(rows[0][i]), rows[1][i], ...)`, block by block
/// (each block's lines hinted ahead by `hint`): every row as long as `out`, the operand count
/// a constant so the inner loop unrolls and the accumulator stays in a register.
#[inline(always)]
fn fold_contiguous<T: Copy, S: Slot<T>, const N: usize>(
    out: &mut [S],
    rows: [&[T]; N],
    first: impl Fn(T) -> T,
    step: impl Fn(T, T) -> T,
    last: impl Fn(T) -> T,
    hint: impl Fn(&[T], usize, usize),
) {
    let mut from = 0;
    for chunk in out.chunks_mut(FOLD_BLOCK) {
        let m = chunk.len();
        for row in rows {
            hint(row, from, m);
        }
        let block = rows.map(|row| &row[from..from + m]);
        for (i, o) in chunk.iter_mut().enumerate() {
            let mut acc = first(block[0][i]);
            for row in &block[1..] {
                acc = step(acc, row[i]);
            }
            o.put(last(acc));
        }
        from += m;
    }
}

/// Runs a variadic op over `operands` (numpy's rule over all of them), one pass for up to
/// [`FOLD_MAX`] operands, and writes the result to `sink`.
///
/// # Errors
/// [`BroadcastError::Arity`] for no operand; the numpy rule's errors; as every executor.
pub(crate) fn run_fold<T, F0, F, G, D>(
    op: &'static str,
    operands: &[&ArrayViewD<'_, T>],
    fold: &Fold<F0, F, G>,
    sink: D,
    par: Parallelism<'_>,
) -> Result<D::Out, BroadcastError>
where
    T: Copy + Default + Send + Sync,
    F0: Fn(T) -> T + Sync,
    F: Fn(T, T) -> T + Sync,
    G: Fn(T, usize) -> T + Sync,
    D: Sink<T>,
{
    if operands.is_empty() {
        return Err(BroadcastError::Arity {
            op,
            expected: "1 or more",
            got: 0,
        });
    }
    let count = operands.len();
    // Up to four operands (Sum or Mean of a few tensors: the common case) run on a plan four
    // wide: the walk then builds and copies four pieces per stretch instead of sixteen.
    if count <= 4 {
        let pass = FoldPass {
            partial: false,
            finish: Some(count),
        };
        return fold_group::<T, _, _, _, _, 4>(operands, fold, pass, sink, par);
    }
    let mut partial: Option<ArrayD<T>> = None;
    let mut rest = operands;
    loop {
        // Views of one lifetime (a view's lifetime is invariant): the partial sum's and
        // this pass's operands, viewed again.
        let mut views: Vec<ArrayViewD<'_, T>> = Vec::with_capacity(FOLD_MAX);
        if let Some(p) = &partial {
            views.push(p.view());
        }
        let take = (FOLD_MAX - views.len()).min(rest.len());
        views.extend(rest[..take].iter().map(|v| v.view()));
        let group: Vec<&ArrayViewD<'_, T>> = views.iter().collect();
        rest = &rest[take..];
        let pass = FoldPass {
            partial: partial.is_some(),
            finish: rest.is_empty().then_some(count),
        };
        if rest.is_empty() {
            return fold_group::<T, _, _, _, _, FOLD_MAX>(&group, fold, pass, sink, par);
        }
        partial = Some(fold_group::<T, _, _, _, _, FOLD_MAX>(
            &group, fold, pass, Fresh, par,
        )?);
    }
}

/// One pass of a fold over `group` (at most `N` operands) on a plan `N` wide.
fn fold_group<T, F0, F, G, D, const N: usize>(
    group: &[&ArrayViewD<'_, T>],
    fold: &Fold<F0, F, G>,
    pass: FoldPass,
    sink: D,
    par: Parallelism<'_>,
) -> Result<D::Out, BroadcastError>
where
    T: Copy + Default + Send + Sync,
    F0: Fn(T) -> T + Sync,
    F: Fn(T, T) -> T + Sync,
    G: Fn(T, usize) -> T + Sync,
    D: Sink<T>,
{
    let mut shapes: [&[usize]; N] = [&[]; N];
    let mut strides: [&[isize]; N] = [&[]; N];
    for (j, v) in group.iter().enumerate() {
        shapes[j] = v.shape();
        strides[j] = v.strides();
    }
    // Unused operand slots are scalars: they broadcast along everything and are never read.
    // Built where it lives (see `EltwisePlan::build`).
    let mut plan = EltwisePlan::<N>::empty();
    plan.build(shapes, strides, 0, &AutoBroadcast::Numpy, true)?;
    let mut ops = [Operand::unused(); N];
    for (o, v) in ops.iter_mut().zip(group) {
        *o = Operand::of(v);
    }
    let writer = FoldWriter {
        plan: &plan,
        ops,
        count: group.len(),
        fold,
        pass,
        par,
    };
    sink.finish(&plan, &writer)
}

struct FoldWriter<'p, 'v, T, K, const N: usize> {
    plan: &'p EltwisePlan<N>,
    ops: [Operand<'v, T>; N],
    /// Operands in use (the rest of `ops` are padding).
    count: usize,
    fold: &'p K,
    pass: FoldPass,
    par: Parallelism<'p>,
}

impl<T, F0, F, G, const N: usize> Writer<T> for FoldWriter<'_, '_, T, Fold<F0, F, G>, N>
where
    T: Copy + Default + Send + Sync,
    F0: Fn(T) -> T + Sync,
    F: Fn(T, T) -> T + Sync,
    G: Fn(T, usize) -> T + Sync,
{
    fn write<S: Slot<T>>(&self, out: &mut [S]) -> Result<(), BroadcastError> {
        assert_eq!(out.len(), self.plan.len(), "eltwise: output length");
        if out.is_empty() {
            return Ok(());
        }
        write_chunks(self, out, cost_bytes::<T>(), self.par)
    }
}

impl<T, F0, F, G, const N: usize> ChunkWriter<T> for FoldWriter<'_, '_, T, Fold<F0, F, G>, N>
where
    T: Copy + Default + Send + Sync,
    F0: Fn(T) -> T + Sync,
    F: Fn(T, T) -> T + Sync,
    G: Fn(T, usize) -> T + Sync,
{
    fn chunk<S: Slot<T>>(&self, start: usize, chunk: &mut [S]) {
        // A whole fold of up to four operands, each a contiguous run along the row: the
        // runs of whole rows are folded one call each, so the per-row cost is a few pointer
        // steps instead of a walk step, a source per operand and a block's set-up.
        let kinds = self.plan.kinds();
        if let (false, Some(total), 1..=4) = (self.pass.partial, self.pass.finish, self.count) {
            if kinds[..self.count]
                .iter()
                .all(|k| matches!(k, RowKind::Run { stride: 1 }))
            {
                walk_rows(
                    self.plan,
                    start,
                    chunk.len(),
                    |pieces, from, n, rows, steps| {
                        let mut at = [std::ptr::null::<T>(); 4];
                        let mut step = [0isize; 4];
                        for j in 0..self.count {
                            let Piece::Run { offset, .. } = pieces[j] else {
                                unreachable!("every operand's row is a run")
                            };
                            at[j] = self.ops[j].element_ptr(offset);
                            step[j] = steps[j];
                        }
                        let out = &mut chunk[from..from + n * rows];
                        // SAFETY: the pieces come from walking `plan`, built from the views
                        // these operands point into, over this chunk's positions; row `r` of
                        // the `rows` lies `r` steps along the innermost outer axis, whose
                        // strides are `steps`, and along a row every operand is a run of
                        // stride 1, so operand `j`'s row `r` is the `n` elements from
                        // `at[j] + r * steps[j]` on, all in its view.
                        unsafe {
                            match self.count {
                                1 => self
                                    .fold
                                    .contiguous_rows::<T, S, 1>(&at, &step, n, total, out),
                                2 => self
                                    .fold
                                    .contiguous_rows::<T, S, 2>(&at, &step, n, total, out),
                                3 => self
                                    .fold
                                    .contiguous_rows::<T, S, 3>(&at, &step, n, total, out),
                                _ => self
                                    .fold
                                    .contiguous_rows::<T, S, 4>(&at, &step, n, total, out),
                            }
                        };
                    },
                );
                return;
            }
        }
        let mut tiles: [Tile<T>; N] = std::array::from_fn(|_| Tile::new());
        walk(self.plan, start, chunk.len(), |pieces, from, n| {
            // SAFETY: the pieces come from walking `plan`, built from the views the first
            // `count` operands point into, over output positions of this chunk.
            unsafe {
                nary_stretch(
                    &self.ops,
                    self.count,
                    &mut tiles,
                    pieces,
                    n,
                    |srcs, at, m| {
                        let out = &mut chunk[from + at..from + at + m];
                        self.fold.block(&srcs[..self.count], self.pass, out);
                    },
                )
            };
        });
    }
}

/// Cuts one stretch of `n` positions of an `N`-operand op where a periodic operand's tile runs
/// out, and calls `f(sources, at, m)` for each piece of `m` positions starting `at` positions
/// into the stretch. Only the first `count` sources are real; the rest are empty.
///
/// # Safety
/// For the first `count` operands, every offset `pieces` describes for the `n` positions (and
/// a periodic piece's whole block) is an element of the operand's view.
#[inline(always)]
unsafe fn nary_stretch<T: Copy, const N: usize>(
    ops: &[Operand<'_, T>; N],
    count: usize,
    tiles: &mut [Tile<T>; N],
    pieces: &[Piece; N],
    n: usize,
    mut f: impl FnMut(&[Src<'_, T>; N], usize, usize),
) {
    let mut pieces = *pieces;
    let mut at = 0;
    while at < n {
        let m = pieces[..count]
            .iter()
            .map(room::<T>)
            .fold(n - at, usize::min);
        let mut tile = tiles.iter_mut();
        let srcs: [Src<'_, T>; N] = std::array::from_fn(|j| {
            let tile = tile.next().expect("one tile per operand");
            if j < count {
                // SAFETY: caller's contract, for the next `m` positions of piece `j`.
                unsafe { source(ops[j], tile, &pieces[j], m) }
            } else {
                Src::Contig(&[])
            }
        });
        f(&srcs, at, m);
        for p in &mut pieces[..count] {
            advance(p, m);
        }
        at += m;
    }
}

/// FakeQuantize's five operands in, one value out.
pub(crate) struct Quantize<F>(pub(crate) F);

impl<F> Quantize<F> {
    #[inline(always)]
    pub(super) fn block<T: Copy, S: Slot<T>>(&self, srcs: &[Src<'_, T>; 5], out: &mut [S])
    where
        F: QuantizeBody<T>,
    {
        let f = &self.0;
        match *srcs {
            // Per-tensor or per-channel bounds under a contiguous input: the common case.
            [Src::Contig(x), Src::Splat(&il), Src::Splat(&ih), Src::Splat(&ol), Src::Splat(&oh)] => {
                quantize_row(out, x, [il, ih, ol, oh], f);
            }
            [x, il, ih, ol, oh] => {
                for (i, o) in out.iter_mut().enumerate() {
                    o.put(f.element(*x.get(i), *il.get(i), *ih.get(i), *ol.get(i), *oh.get(i)));
                }
            }
        }
    }
}

/// FakeQuantize of a contiguous row under one set of bounds. A call of its own (never
/// inlined) so the row and the output arrive as arguments: the compiler then knows that
/// writing the output cannot change the row, the bounds or the caller's locals, and
/// vectorises the loop; inlined into the plan walk it stayed scalar. Its arithmetic, not
/// memory, bounds it, so it runs as wide as the strategy says (`arithmetic`) and the CPU
/// has, rounding with the ISA's instruction there.
#[inline(never)]
fn quantize_row<T: Copy, S: Slot<T>>(
    out: &mut [S],
    x: &[T],
    bounds: [T; 4],
    f: &impl QuantizeBody<T>,
) {
    #[cfg(target_arch = "x86_64")]
    {
        let width = row_settings().arithmetic;
        #[cfg(bcast_avx512)]
        if let Some(isa) = (width >= ArithmeticWidth::Avx512)
            .then(Avx512::detect)
            .flatten()
        {
            // SAFETY: the token proves the CPU runs AVX-512 F, VL, BW and DQ.
            return unsafe { quantize_row_avx512(isa, out, x, bounds, f) };
        }
        if let Some(isa) = (width >= ArithmeticWidth::Avx2)
            .then(Avx2::detect)
            .flatten()
        {
            // SAFETY: the token proves the CPU runs AVX2.
            return unsafe { quantize_row_avx2(isa, out, x, bounds, f) };
        }
    }
    f.row::<S, PortableRounding>(out, x, bounds);
}

/// [`quantize_row`] compiled for AVX2.
///
/// # Safety
/// The CPU must run AVX2 (the token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn quantize_row_avx2<T: Copy, S: Slot<T>>(
    _: Avx2,
    out: &mut [S],
    x: &[T],
    bounds: [T; 4],
    f: &impl QuantizeBody<T>,
) {
    f.row::<S, InstructionRounding>(out, x, bounds);
}

/// [`quantize_row`] compiled for AVX-512.
///
/// # Safety
/// The CPU must run AVX-512 F, VL, BW and DQ (the token proves it).
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
#[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw,avx512dq")]
unsafe fn quantize_row_avx512<T: Copy, S: Slot<T>>(
    _: Avx512,
    out: &mut [S],
    x: &[T],
    bounds: [T; 4],
    f: &impl QuantizeBody<T>,
) {
    f.row::<S, InstructionRounding>(out, x, bounds);
}

/// Runs FakeQuantize: plans the bounds onto `x` under `spec` (numpy: all five together, as
/// OpenVINO's reference does; pdpd: each bound onto `x`) and writes to `sink`.
pub(crate) fn run_quantize<T, F, D>(
    operands: [ArrayViewD<'_, T>; 5],
    spec: &AutoBroadcast,
    kernel: &Quantize<F>,
    sink: D,
    par: Parallelism<'_>,
) -> Result<D::Out, BroadcastError>
where
    T: Copy + Send + Sync,
    F: QuantizeBody<T>,
    D: Sink<T>,
{
    // Built where it lives (see `EltwisePlan::build`).
    let mut plan = EltwisePlan::<5>::empty();
    plan.build(
        std::array::from_fn(|j| operands[j].shape()),
        std::array::from_fn(|j| operands[j].strides()),
        0,
        spec,
        true,
    )?;
    let writer = QuantizeWriter {
        plan: &plan,
        ops: std::array::from_fn(|j| Operand::of(&operands[j])),
        kernel,
        par,
    };
    sink.finish(&plan, &writer)
}

struct QuantizeWriter<'p, 'v, T, F> {
    plan: &'p EltwisePlan<5>,
    ops: [Operand<'v, T>; 5],
    kernel: &'p Quantize<F>,
    par: Parallelism<'p>,
}

impl<T, F> Writer<T> for QuantizeWriter<'_, '_, T, F>
where
    T: Copy + Send + Sync,
    F: QuantizeBody<T>,
{
    fn write<S: Slot<T>>(&self, out: &mut [S]) -> Result<(), BroadcastError> {
        assert_eq!(out.len(), self.plan.len(), "eltwise: output length");
        if out.is_empty() {
            return Ok(());
        }
        // Stored the ordinary way at any size: through the streamed window, FakeQuantize's
        // row (a division and a rounding per element) ran no faster at 1 GiB on Intel, and
        // slower on one thread (benches/RESULTS.md).
        for_each_chunk(out, cost_bytes::<T>(), self.par, |start, chunk| {
            self.chunk(start, chunk);
        })
    }
}

impl<T, F> ChunkWriter<T> for QuantizeWriter<'_, '_, T, F>
where
    T: Copy + Send + Sync,
    F: QuantizeBody<T>,
{
    fn chunk<S: Slot<T>>(&self, start: usize, chunk: &mut [S]) {
        let mut tiles: [Tile<T>; 5] = std::array::from_fn(|_| Tile::new());
        walk(self.plan, start, chunk.len(), |pieces, from, n| {
            // SAFETY: the pieces come from walking `plan`, built from the five views `ops`
            // point into, over output positions of this chunk.
            unsafe {
                nary_stretch(&self.ops, 5, &mut tiles, pieces, n, |srcs, at, m| {
                    self.kernel
                        .block(srcs, &mut chunk[from + at..from + at + m]);
                })
            };
        });
    }
}

/// `out[i] = if cond[i] { then[i] } else { else_[i] }`.
#[inline(always)]
pub(super) fn select_block<T: Clone, S: Slot<T>>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eltwise::kinds::{check_fake_quantize_rows_f32, check_fake_quantize_rows_f64};
    use crate::exec::{with_row_settings, RowSettings, Strategy};

    /// FakeQuantize's row as the executor runs it, compiled for each width the strategy can
    /// ask for, against the reference.
    #[test]
    fn quantize_row_is_the_reference_at_every_width() {
        #[cfg(all(target_arch = "x86_64", bcast_avx512))]
        if Avx512::detect().is_none() {
            eprintln!("this CPU has no AVX-512: the AVX-512 row was not checked");
        }
        for arithmetic in [
            ArithmeticWidth::Baseline,
            ArithmeticWidth::Avx2,
            ArithmeticWidth::Avx512,
        ] {
            let strategy = Strategy {
                arithmetic,
                ..Strategy::PLAIN
            };
            with_row_settings(RowSettings::of(&strategy, 0), || {
                check_fake_quantize_rows_f32(&|body, out, x, bounds| {
                    quantize_row(as_init(out), x, bounds, body)
                });
                check_fake_quantize_rows_f64(&|body, out, x, bounds| {
                    quantize_row(as_init(out), x, bounds, body)
                });
            });
        }
    }
}
