//! Whole two-operand ops in 64-byte registers: f16 computed natively in AVX512-FP16 (the
//! table's `f16x32` bodies, where the strategy's `native_f16` and the CPU allow), else f16
//! widened into f32 lanes (the `f32x16` bodies, where the strategy's `f16_avx512` and the
//! CPU allow), and f32 in AVX-512 (the `f32x16` bodies, at the strategy's arithmetic width
//! `Avx512`).
//!
//! The table's block kernels compute an f16 op by widening eight lanes at a time through F16C,
//! computing in f32 and rounding back: three conversions per eight elements, which bound the
//! op on data in the core's caches and beyond them. The `f16x32` bodies compute on the f16 values themselves,
//! 32 a register, and give the same bits (`fp16.rs` says why and tests it on every class of
//! value); likewise the `f32x16` bodies are the `float` bodies' IEEE operations on 16 lanes.
//! Here they run a whole op's rows (the plan walk's runs of rows, or a block where an operand
//! comes from a tile), each row in whole registers and a masked last one; a row with a
//! strided operand goes to the op's AVX2 block kernel. The f16 kernels run at every output
//! size; the f32 ones where the output stays in the core's cache (beyond it the AVX2 build's
//! loop keeps the same memory rate; [`RegisterBlock::every_size`]). Beyond the core's cache
//! each register's store asks for the output's line the write distance ahead, as the AVX2
//! build's loops do.
//!
//! Which ops: a row of the table with an `f16x32` (for f16) or `f32x16` (for f32) body, whose
//! shape is `Binary`, output `Same` and lanes `Lanes`, as the register chains take them.

use std::arch::x86_64::{
    __m256i, _mm256_loadu_si256, _mm256_mask_storeu_epi16, _mm256_maskz_loadu_epi16,
    _mm256_storeu_si256, _mm512_cvtph_ps, _mm512_loadu_ps, _mm512_loadu_si512,
    _mm512_mask_storeu_epi16, _mm512_mask_storeu_ps, _mm512_maskz_loadu_epi16,
    _mm512_maskz_loadu_ps, _mm512_set1_epi16, _mm512_set1_ps, _mm512_storeu_ps,
    _mm512_storeu_si512,
};
use std::mem::MaybeUninit;

use half::f16;

use super::exec::{BlockRows, PlainRows, Src};
use super::fp16::{self, F16x32};
use super::fp32::{self, F32x16};
use super::kernels::{BlockFn, BlockJob, BlockKernels, RegisterBlock};
use super::table::{op_bodies, EltwiseOp};
use crate::error::BroadcastError;
use crate::exec::{Ahead, LINE};

/// One 64-byte register of an element type: whole and masked loads and stores, a splat.
/// Its methods are inlined into the kernels below, which are compiled with the features the
/// intrinsics need and run only where the CPU has them.
trait Register<T: Copy>: Copy {
    /// Elements a register holds.
    const LANES: usize;
    /// # Safety
    /// `p` points at `LANES` readable elements; the CPU has the register's features.
    unsafe fn load(p: *const T) -> Self;
    /// The first `n < LANES` elements from `p`, the other lanes zero.
    ///
    /// # Safety
    /// `p` points at `n` readable elements; the CPU has the register's features.
    unsafe fn load_first(p: *const T, n: usize) -> Self;
    /// # Safety
    /// The CPU has the register's features.
    unsafe fn splat(v: T) -> Self;
    /// # Safety
    /// `p` points at `LANES` writable elements; the CPU has the register's features.
    unsafe fn store(p: *mut T, v: Self);
    /// The first `n < LANES` lanes to `p`.
    ///
    /// # Safety
    /// `p` points at `n` writable elements; the CPU has the register's features.
    unsafe fn store_first(p: *mut T, v: Self, n: usize);
}

impl Register<f16> for F16x32 {
    const LANES: usize = fp16::LANES;
    #[inline(always)]
    unsafe fn load(p: *const f16) -> Self {
        // SAFETY: the caller's contract; an unaligned load.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }
    #[inline(always)]
    unsafe fn load_first(p: *const f16, n: usize) -> Self {
        // SAFETY: the caller's contract; the masked-off lanes are not read (no fault).
        unsafe { _mm512_maskz_loadu_epi16(first_lanes32(n), p.cast()) }
    }
    #[inline(always)]
    unsafe fn splat(v: f16) -> Self {
        // SAFETY: the caller's contract (AVX-512F).
        unsafe { _mm512_set1_epi16(i16::from_ne_bytes(v.to_bits().to_ne_bytes())) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut f16, v: Self) {
        // SAFETY: the caller's contract; an unaligned store.
        unsafe { _mm512_storeu_si512(p.cast(), v) }
    }
    #[inline(always)]
    unsafe fn store_first(p: *mut f16, v: Self, n: usize) {
        // SAFETY: the caller's contract; the masked-off lanes are not written.
        unsafe { _mm512_mask_storeu_epi16(p.cast(), first_lanes32(n), v) }
    }
}

impl Register<f32> for F32x16 {
    const LANES: usize = fp32::LANES;
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        // SAFETY: the caller's contract; an unaligned load.
        unsafe { _mm512_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn load_first(p: *const f32, n: usize) -> Self {
        // SAFETY: the caller's contract; the masked-off lanes are not read (no fault).
        unsafe { _mm512_maskz_loadu_ps(first_lanes16(n), p) }
    }
    #[inline(always)]
    unsafe fn splat(v: f32) -> Self {
        // SAFETY: the caller's contract (AVX-512F).
        unsafe { _mm512_set1_ps(v) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut f32, v: Self) {
        // SAFETY: the caller's contract; an unaligned store.
        unsafe { _mm512_storeu_ps(p, v) }
    }
    #[inline(always)]
    unsafe fn store_first(p: *mut f32, v: Self, n: usize) {
        // SAFETY: the caller's contract; the masked-off lanes are not written.
        unsafe { _mm512_mask_storeu_ps(p, first_lanes16(n), v) }
    }
}

/// f16 values in f32 lanes: 16 of them loaded and widened (exactly) into one AVX-512
/// register, computed by the `f32x16` bodies, and rounded back to f16 (to nearest even) as
/// they are stored: the same bits as the F16C block kernels, which widen eight at a time,
/// compute the same f32 operation and round the same way.
impl Register<f16> for F32x16 {
    const LANES: usize = fp32::LANES;
    #[inline(always)]
    unsafe fn load(p: *const f16) -> Self {
        // SAFETY: the caller's contract; an unaligned load of 16 f16 values.
        unsafe { _mm512_cvtph_ps(_mm256_loadu_si256(p.cast())) }
    }
    #[inline(always)]
    unsafe fn load_first(p: *const f16, n: usize) -> Self {
        // SAFETY: the caller's contract; the masked-off lanes are not read (no fault).
        unsafe { _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(first_lanes16(n), p.cast())) }
    }
    #[inline(always)]
    unsafe fn splat(v: f16) -> Self {
        // SAFETY: the caller's contract (AVX-512F); widening an f16 to f32 is exact.
        unsafe { _mm512_set1_ps(v.to_f32()) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut f16, v: Self) {
        // SAFETY: the caller's contract; an unaligned store of 16 f16 values.
        unsafe { _mm256_storeu_si256(p.cast(), narrow16(v)) }
    }
    #[inline(always)]
    unsafe fn store_first(p: *mut f16, v: Self, n: usize) {
        // SAFETY: the caller's contract; the masked-off lanes are not written.
        unsafe { _mm256_mask_storeu_epi16(p.cast(), first_lanes16(n), narrow16(v)) }
    }
}

/// 16 f32 lanes rounded to f16 (to nearest even), in a register.
///
/// An `asm!` block rather than the intrinsic, so that the compiler cannot fold the store
/// that follows into the conversion (`vcvtps2ph` to memory holds a store-bound loop back on
/// AMD; `half.rs`'s `narrow8_f16c` says more).
///
/// # Safety
/// The CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn narrow16(v: F32x16) -> __m256i {
    let h;
    // SAFETY: the caller's contract (AVX-512F); the instruction reads and writes registers
    // only. Immediate 0: round to nearest even.
    unsafe {
        std::arch::asm!(
            "vcvtps2ph {h}, {v}, 0",
            v = in(zmm_reg) v,
            h = out(ymm_reg) h,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    h
}

/// The mask of the first `n < 32` lanes.
#[inline(always)]
fn first_lanes32(n: usize) -> u32 {
    (1u32 << n) - 1
}

/// The mask of the first `n < 16` lanes.
#[inline(always)]
fn first_lanes16(n: usize) -> u16 {
    (1u16 << n) - 1
}

/// Where one operand's values for a row come from.
#[derive(Clone, Copy)]
enum Lane<T> {
    /// Element `i` at `p + i`.
    Moves(*const T),
    /// One value for the whole row.
    Holds(T),
}

impl<T: Copy> Lane<T> {
    /// The row's source, `None` for a strided one (the AVX2 block kernel takes that row).
    #[inline(always)]
    fn of(src: Src<'_, T>, n: usize) -> Option<Lane<T>> {
        match src {
            // The slice is the row: exactly `n` long (checked once per row).
            Src::Contig(s) => Some(Lane::Moves(s[..n].as_ptr())),
            Src::Splat(v) => Some(Lane::Holds(*v)),
            Src::Strided(_) => None,
        }
    }

    /// Row `r` of a run of plain rows.
    ///
    /// # Safety
    /// As [`PlainRows::row`].
    #[inline(always)]
    unsafe fn plain(rows: &PlainRows<'_, T>, r: usize) -> Lane<T> {
        // SAFETY: the caller's contract: the row's elements, or its one value, are readable.
        let p = unsafe { rows.row(r) };
        if rows.moves() {
            Lane::Moves(p)
        } else {
            // SAFETY: as above: a row that does not move reads its one value there.
            Lane::Holds(unsafe { *p })
        }
    }

    /// The `count < LANES` elements from `at` of the row, in the first lanes of a register
    /// (a held value in every lane).
    ///
    /// # Safety
    /// `at + count` is within the row where it moves; the CPU has `R`'s features.
    #[inline(always)]
    unsafe fn first<R: Register<T>>(self, at: usize, count: usize) -> R {
        match self {
            // SAFETY: the caller's contract; the other lanes are not read.
            Lane::Moves(p) => unsafe { R::load_first(p.add(at), count) },
            // SAFETY: the caller's contract for the CPU.
            Lane::Holds(v) => unsafe { R::splat(v) },
        }
    }
}

/// How a row's loop hints the lines ahead of it: at the run's distances, the operands' and
/// the output's ([`WriteHints`]), the operands' only ([`Ahead`]), or not at all
/// ([`NoHints`]). Chosen once per kernel call, so that a loop carries no test for a hint it
/// does not give (left to the compiler, the test stayed in the loop: an 8 KiB f16 add ran
/// 11 instructions a register instead of 4).
trait Hints: Copy {
    fn hint<T>(self, p: *const T);
    fn hint_write<T>(self, p: *mut T);
}

/// The operands' hints only (the run has no write distance).
impl Hints for Ahead {
    #[inline(always)]
    fn hint<T>(self, p: *const T) {
        Ahead::hint(self, p);
    }
    #[inline(always)]
    fn hint_write<T>(self, _: *mut T) {}
}

/// The operands' hints and the output's (a run beyond the core's cache).
#[derive(Clone, Copy)]
struct WriteHints(Ahead);

impl Hints for WriteHints {
    #[inline(always)]
    fn hint<T>(self, p: *const T) {
        self.0.hint(p);
    }
    #[inline(always)]
    fn hint_write<T>(self, p: *mut T) {
        self.0.hint_write(p);
    }
}

/// No hints.
#[derive(Clone, Copy)]
struct NoHints;

impl Hints for NoHints {
    #[inline(always)]
    fn hint<T>(self, _: *const T) {}
    #[inline(always)]
    fn hint_write<T>(self, _: *mut T) {}
}

/// From how many bytes of a kernel call's output its stores are aligned to lines ([`row`]):
/// beyond the core's first-level cache, where a store across two lines moves both, and not
/// below it, where a split store costs less than the masked register that avoids it (an
/// 8 KiB output of 32 rows lost to it).
const ALIGNED_STORES_FROM_BYTES: usize = 32 << 10;

/// `out[i] = f(a[i], b[i])` for `i < n`: whole registers, and the elements after the last
/// of them in one masked register. Where `aligned`, the whole registers are stored to whole
/// 64-byte lines of `out` (32-byte stores to aligned halves of lines), the elements before
/// the first such boundary in a masked register of their own.
///
/// A register stored across two lines costs the store of both: on an output whose rows do
/// not start on a line (a buffer from `malloc` starts 16 bytes past one), every store of a
/// short row kept in the core's cache would.
///
/// # Safety
/// `a` and `b` are `Lane`s of at least `n` readable elements where they move, `o` points at
/// `n` writable elements; the CPU has `R`'s features; `T` is plain data.
#[inline(always)]
unsafe fn row<T: Copy, R: Register<T>>(
    f: &impl Fn(R, R) -> R,
    a: Lane<T>,
    b: Lane<T>,
    o: *mut T,
    n: usize,
    aligned: bool,
    ahead: impl Hints,
) {
    let size = std::mem::size_of::<T>();
    // A register's store is a line (f32, native f16) or half of one (f16 in f32 lanes):
    // aligned to its own width, it never spans two lines, and the head stays under a
    // register's lanes.
    let store = (R::LANES * size).min(LINE);
    let head = if aligned {
        ((o as usize).wrapping_neg() % store / size).min(n)
    } else {
        0
    };
    if head > 0 {
        // SAFETY: the first `head <= n` elements of each moving row and of `o`; the caller's
        // contract for the CPU.
        unsafe {
            let r = f(a.first(0, head), b.first(0, head));
            R::store_first(o, r, head);
        }
    }
    let whole = head + (n - head) / R::LANES * R::LANES;
    // One loop per operand kind, so the loop body has no branch on it. In every loop
    // `i + LANES <= whole <= n`: the register lies inside both moving operands' rows and
    // `out` (the caller's contract).
    let mut i = head;
    match (a, b) {
        (Lane::Moves(x), Lane::Moves(y)) => {
            while i < whole {
                ahead.hint(x.wrapping_add(i));
                ahead.hint(y.wrapping_add(i));
                ahead.hint_write(o.wrapping_add(i));
                // SAFETY: see above; the caller's contract for the CPU.
                unsafe { R::store(o.add(i), f(R::load(x.add(i)), R::load(y.add(i)))) };
                i += R::LANES;
            }
        }
        (Lane::Moves(x), Lane::Holds(y)) => {
            // SAFETY: the caller's contract for the CPU.
            let y = unsafe { R::splat(y) };
            while i < whole {
                ahead.hint(x.wrapping_add(i));
                ahead.hint_write(o.wrapping_add(i));
                // SAFETY: see above; the caller's contract for the CPU.
                unsafe { R::store(o.add(i), f(R::load(x.add(i)), y)) };
                i += R::LANES;
            }
        }
        (Lane::Holds(x), Lane::Moves(y)) => {
            // SAFETY: the caller's contract for the CPU.
            let x = unsafe { R::splat(x) };
            while i < whole {
                ahead.hint(y.wrapping_add(i));
                ahead.hint_write(o.wrapping_add(i));
                // SAFETY: see above; the caller's contract for the CPU.
                unsafe { R::store(o.add(i), f(x, R::load(y.add(i)))) };
                i += R::LANES;
            }
        }
        (Lane::Holds(x), Lane::Holds(y)) => {
            // SAFETY: the caller's contract for the CPU.
            let r = unsafe { f(R::splat(x), R::splat(y)) };
            while i < whole {
                ahead.hint_write(o.wrapping_add(i));
                // SAFETY: see above; the caller's contract for the CPU.
                unsafe { R::store(o.add(i), r) };
                i += R::LANES;
            }
        }
    }
    let left = n - whole;
    if left > 0 {
        // SAFETY: the last `left < LANES` elements of each moving row and of `o`; the
        // caller's contract for the CPU.
        unsafe {
            let r = f(a.first(whole, left), b.first(whole, left));
            R::store_first(o.add(whole), r, left);
        }
    }
}

/// A block kernel ([`BlockFn`]) on registers `R`: each row of the job (its runs of rows, or its
/// one block) through [`row`], a row with a strided operand through the op's AVX2 block
/// kernel.
///
/// # Safety
/// The CPU has `R`'s features; `T` is plain data.
#[inline(always)]
unsafe fn rows<T, R>(
    job: &BlockJob<'_, '_, T>,
    out: &mut [MaybeUninit<T>],
    f: impl Fn(R, R) -> R,
) -> Result<(), BroadcastError>
where
    T: BlockKernels,
    R: Register<T>,
{
    // A run with a write distance goes to `with_writes` (`register_kernel!`) before this.
    let ahead = Ahead::get();
    if ahead.is_off() {
        // SAFETY: the caller's contract.
        unsafe { rows_hinted::<T, R>(job, out, f, NoHints) }
    } else {
        // SAFETY: the caller's contract.
        unsafe { rows_hinted::<T, R>(job, out, f, ahead) }
    }
}

/// [`rows`] with the hints `ahead`.
///
/// # Safety
/// As [`rows`].
#[inline(always)]
unsafe fn rows_hinted<T, R>(
    job: &BlockJob<'_, '_, T>,
    out: &mut [MaybeUninit<T>],
    f: impl Fn(R, R) -> R,
    ahead: impl Hints,
) -> Result<(), BroadcastError>
where
    T: BlockKernels,
    R: Register<T>,
{
    let (count, n) = match job.rows {
        Some(rows) => (rows.count(), rows.row_len()),
        None => (1, out.len()),
    };
    assert_eq!(
        out.len(),
        count * n,
        "register rows: the output is the rows"
    );
    let aligned = std::mem::size_of_val(out) >= ALIGNED_STORES_FROM_BYTES;
    let o = out.as_mut_ptr().cast::<T>();
    // Rows that are each contiguous or one value, walked by pointer steps: a short row's
    // own work is a few registers, and building its sources as the other rows do cost
    // about as much.
    if let Some((pa, pb)) = job.rows.and_then(BlockRows::plain) {
        for r in 0..count {
            // SAFETY: `r < count` (`PlainRows::row`); `out` is the `count` rows of `n`
            // (checked above), so row `r`'s `n` slots are from `o + r * n`; the caller's
            // contract for the CPU and `T`.
            unsafe {
                let (x, y) = (Lane::plain(&pa, r), Lane::plain(&pb, r));
                row::<T, R>(&f, x, y, o.add(r * n), n, aligned, ahead);
            }
        }
        return Ok(());
    }
    for r in 0..count {
        let (a, b) = match (job.rows, job.args) {
            (Some(rows), _) => rows.sources(r),
            (None, [a, b]) => (*a, *b),
            (None, _) => return Err(super::kernels::wrong_arity(job.op, job.args.len())),
        };
        let out = &mut out[r * n..(r + 1) * n];
        match (Lane::of(a, n), Lane::of(b, n)) {
            // SAFETY: each moving lane is its row's `n` elements (`Lane::of`), `out` the
            // row's `n` slots; the caller's contract for the CPU and `T`.
            (Some(x), Some(y)) => unsafe {
                row::<T, R>(&f, x, y, out.as_mut_ptr().cast(), n, aligned, ahead);
            },
            _ => {
                let args = [a, b];
                let one = BlockJob {
                    op: job.op,
                    args: &args,
                    rows: None,
                    dtype: job.dtype,
                    f16c: job.f16c,
                };
                // SAFETY: the AVX2 build only with the token (`job.f16c`, found by
                // `Avx2::detect`), else the baseline build.
                unsafe { T::same_fn(job.op, job.f16c)(&one, out)? };
            }
        }
    }
    Ok(())
}

/// One row's register kernel of kind `$k` (`f16x32`, `f32x16`): where the row is a
/// two-operand op of the operands' type with `Lanes` bodies, its body of that kind, else
/// none.
macro_rules! register_arm {
    ($k:ident, [Binary], Same Lanes, [$($key:ident : $body:expr),*]) => {
        register_pick!($k, [$($key : $body),*])
    };
    ($k:ident, $shape:tt, $($out:ident)+, $bodies:tt) => {
        None
    };
}

/// Finds kind `$k`'s body among a row's keys.
macro_rules! register_pick {
    ($k:ident, []) => {
        None
    };
    (f16x32, [f16x32 : $b:expr $(, $key:ident : $body:expr)*]) => {
        register_kernel!(f16, F16x32, "avx2,f16c,avx512f,avx512bw,avx512vl,avx512fp16", true, $b)
    };
    (f32x16, [f32x16 : $b:expr $(, $key:ident : $body:expr)*]) => {
        register_kernel!(f32, F32x16, "avx2,avx512f", false, $b)
    };
    (f16_f32x16, [f32x16 : $b:expr $(, $key:ident : $body:expr)*]) => {
        register_kernel!(f16, F32x16, "avx2,f16c,avx512f,avx512bw,avx512vl", true, $b)
    };
    ($k:ident, [$other:ident : $b:expr $(, $key:ident : $body:expr)*]) => {
        register_pick!($k, [$($key : $body),*])
    };
}

/// The block kernel of body `$b` on elements `$t` in registers `$r`, compiled with
/// `$features` (those of the token `f16x32_block`'s or `f32x16_block`'s caller holds), for
/// outputs of every size or not (`$every_size`, [`RegisterBlock::every_size`]).
macro_rules! register_kernel {
    ($t:ty, $r:ty, $features:literal, $every_size:literal, $b:expr) => {{
        /// The op's rows in 64-byte registers.
        ///
        /// # Safety
        /// The CPU has the features it is compiled with.
        #[target_feature(enable = $features)]
        unsafe fn block(
            job: &BlockJob<'_, '_, $t>,
            out: &mut [MaybeUninit<$t>],
        ) -> Result<(), BroadcastError> {
            let ahead = Ahead::get();
            if ahead.writes() {
                // SAFETY: this function's features, which `with_writes` is compiled with.
                return unsafe { with_writes(job, out, ahead) };
            }
            // SAFETY: this function's features; the element type is plain data.
            unsafe { rows::<$t, $r>(job, out, |x, y| $b(x, y)) }
        }

        /// [`block`] with the output's lines asked for ahead: a function of its own, so
        /// that the loops without write hints are compiled as they were without it (inlined
        /// beside them, it made the compiler reload the read distance from the stack in
        /// every iteration of theirs).
        ///
        /// # Safety
        /// As [`block`].
        #[target_feature(enable = $features)]
        #[inline(never)]
        unsafe fn with_writes(
            job: &BlockJob<'_, '_, $t>,
            out: &mut [MaybeUninit<$t>],
            ahead: Ahead,
        ) -> Result<(), BroadcastError> {
            // SAFETY: this function's features; the element type is plain data.
            unsafe { rows_hinted::<$t, $r>(job, out, |x, y| $b(x, y), WriteHints(ahead)) }
        }
        Some(RegisterBlock {
            block: block as BlockFn<$t, $t>,
            every_size: $every_size,
        })
    }};
}

/// Generates, from the table, each register type's block kernel of an op.
macro_rules! define_register_blocks {
    (;
     $(
        $v:ident [$($f:ident),*] $shape:tt $out:ident [$($lanes:ident)?]
        { $($key:ident : $body:expr),* }
     )*) => {
        /// `op`'s f16 block kernel in AVX512-FP16 registers, where the table gives it an
        /// `f16x32` body. It may run only where the CPU has AVX512-FP16 (the
        /// [`super::fp16::Avx512Fp16`] token).
        pub(crate) fn f16x32_block(op: EltwiseOp) -> Option<RegisterBlock<f16, f16>> {
            match op {
                $(EltwiseOp::$v { .. } => register_arm!(
                    f16x32, $shape, $out $($lanes)?, [$($key : $body),*]
                ),)*
            }
        }

        /// `op`'s f16 block kernel in f32 lanes of AVX-512 registers (widened, the `f32x16`
        /// body, rounded back), where the table gives it an `f32x16` body. It may run only
        /// where the CPU has AVX-512F, BW and VL (the [`super::fp32::Avx512`] token).
        pub(crate) fn f16_in_f32x16_block(op: EltwiseOp) -> Option<RegisterBlock<f16, f16>> {
            match op {
                $(EltwiseOp::$v { .. } => register_arm!(
                    f16_f32x16, $shape, $out $($lanes)?, [$($key : $body),*]
                ),)*
            }
        }

        /// `op`'s f32 block kernel in AVX-512 registers, where the table gives it an
        /// `f32x16` body. It may run only where the CPU has AVX-512F (the
        /// [`super::fp32::Avx512`] token).
        pub(crate) fn f32x16_block(op: EltwiseOp) -> Option<RegisterBlock<f32, f32>> {
            match op {
                $(EltwiseOp::$v { .. } => register_arm!(
                    f32x16, $shape, $out $($lanes)?, [$($key : $body),*]
                ),)*
            }
        }
    };
}

op_bodies!(define_register_blocks!());
