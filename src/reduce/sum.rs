//! The element types a gradient can be summed in, and how each one accumulates.
//!
//! Every type sums in an accumulator type: integers in themselves with wrapping adds (numpy's
//! `sum` with `dtype=` the input type), `f16` and `bf16` in `f32`, `f32` and `f64` in `f64`,
//! each rounded once at the end. Float sums are blocked pairwise: at most [`RUN_LEAF`]
//! contiguous terms go into [`LANES`] lanes (each adding at most 32 terms in order), the lanes
//! and everything above them are added in binary trees (see the callers), so the rounding
//! error grows with the logarithm of the number of terms, not linearly.
//!
//! The leaves are compiled twice, for the baseline target and for AVX2 (picked at run time);
//! `f16` converts through F16C when the CPU has it.

use half::{bf16, f16};

use crate::element::Element;
use crate::exec::isa::Avx2;

/// Terms summed in eight lanes before the lanes are combined (numpy's pairwise block).
pub(crate) const BLOCK: usize = 128;
/// Terms of one contiguous run summed without recursion by [`sum_leaf`]: eight blocks.
pub(crate) const RUN_LEAF: usize = 8 * BLOCK;

/// An accumulator: a number with a zero and an addition.
pub trait Acc: bytemuck::Pod + Send + Sync + 'static {
    /// The additive identity.
    const ZERO: Self;
    /// `self + other`, wrapping for integers.
    fn add(self, other: Self) -> Self;
}

macro_rules! int_acc {
    ($($t:ty),*) => {$(
        impl Acc for $t {
            const ZERO: Self = 0;
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
        }
    )*};
}
int_acc!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_acc {
    ($($t:ty),*) => {$(
        impl Acc for $t {
            const ZERO: Self = 0.0;
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self + other
            }
        }
    )*};
}
float_acc!(f32, f64);

/// The summing machinery of a [`super::Summable`] type (sealed: only this crate implements it).
pub trait Sum: Element + Copy {
    /// What the sums are carried in.
    type Acc: Acc;

    /// One term in accumulator form.
    fn widen(self) -> Self::Acc;

    /// The accumulated sum rounded (or wrapped) back to this type, once.
    fn narrow(acc: Self::Acc) -> Self;

    /// The sum of at most [`RUN_LEAF`] contiguous terms; `buf` is scratch. Floats: each
    /// block of [`BLOCK`] is widened into `buf` (a plain loop the compiler vectorises;
    /// widening inside the lanes keeps them scalar) and added into [`LANES`] lanes, which
    /// are then added pairwise.
    #[inline(always)]
    fn leaf_sum(src: &[Self], buf: &mut [Self::Acc; BLOCK]) -> Self::Acc {
        leaf_sum_by_blocks(src, buf)
    }

    /// `acc[i] = src[i]` (widened); the lengths are equal.
    #[inline(always)]
    fn set_row(acc: &mut [Self::Acc], src: &[Self]) {
        debug_assert_eq!(acc.len(), src.len());
        for (a, &s) in acc.iter_mut().zip(src) {
            *a = s.widen();
        }
    }

    /// `acc[i] = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))` at `i`, in one pass
    /// (a tree: shorter dependency chains than adding in order, and smaller error); every
    /// row is at least `acc.len()` long.
    #[inline(always)]
    fn set_rows8(acc: &mut [Self::Acc], rows: [&[Self]; 8]) {
        let w = acc.len();
        let [r0, r1, r2, r3, r4, r5, r6, r7] = rows.map(|r| &r[..w]);
        for x in 0..w {
            let a = r0[x].widen().add(r1[x].widen());
            let b = r2[x].widen().add(r3[x].widen());
            let c = r4[x].widen().add(r5[x].widen());
            let d = r6[x].widen().add(r7[x].widen());
            acc[x] = a.add(b).add(c.add(d));
        }
    }

    /// `acc[i] += src[i]` (widened); the lengths are equal.
    #[inline(always)]
    fn add_row(acc: &mut [Self::Acc], src: &[Self]) {
        debug_assert_eq!(acc.len(), src.len());
        for (a, &s) in acc.iter_mut().zip(src) {
            *a = a.add(s.widen());
        }
    }
}

/// [`Sum::leaf_sum`]'s default: each block of [`BLOCK`] terms widened into `buf` and added
/// into the lanes, which are then added pairwise.
#[inline(always)]
fn leaf_sum_by_blocks<T: Sum>(src: &[T], buf: &mut [T::Acc; BLOCK]) -> T::Acc {
    debug_assert!(src.len() <= RUN_LEAF);
    let mut lanes = [T::Acc::ZERO; LANES];
    for block in src.chunks(BLOCK) {
        let b = &mut buf[..block.len()];
        T::set_row(b, block);
        add_lanes(&mut lanes, b);
    }
    fold_lanes(lanes)
}

/// The sum of at most [`RUN_LEAF`] contiguous terms ([`Sum::leaf_sum`]), in AVX2 when `isa`
/// holds the token.
#[inline]
pub(crate) fn sum_leaf<T: Sum>(isa: Option<Avx2>, src: &[T], buf: &mut [T::Acc; BLOCK]) -> T::Acc {
    #[cfg(target_arch = "x86_64")]
    if let Some(token) = isa {
        // SAFETY: the token proves the CPU has AVX2 and F16C, all `sum_leaf_avx2` requires.
        return unsafe { sum_leaf_avx2(token, src, buf) };
    }
    let _ = isa;
    T::leaf_sum(src, buf)
}

/// [`sum_leaf`] compiled for AVX2: the same operations in the same order, twice as wide.
///
/// # Safety
/// The CPU must support AVX2 and F16C (the token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn sum_leaf_avx2<T: Sum>(_: Avx2, src: &[T], buf: &mut [T::Acc; BLOCK]) -> T::Acc {
    T::leaf_sum(src, buf)
}

/// `sums[u]` = the sum ([`Sum::leaf_sum`]) of the `run` terms at `bases[u] + shift`, for
/// every `u`; `run` is at most [`RUN_LEAF`]. The short-run widening of the reduction: one
/// call (in AVX2 when `isa` holds the token) sums a whole slab of short runs, so each run
/// costs its loads and one fold, not a call and a feature check. Each sum is exactly
/// [`sum_leaf`] of its run.
#[inline]
pub(crate) fn sum_runs<T: Sum>(
    isa: Option<Avx2>,
    grad: &[T],
    bases: &[usize],
    shift: usize,
    run: usize,
    sums: &mut [T::Acc],
    buf: &mut [T::Acc; BLOCK],
) {
    #[cfg(target_arch = "x86_64")]
    if let Some(token) = isa {
        // SAFETY: the token proves the CPU has AVX2 and F16C, all `sum_runs_avx2` requires.
        return unsafe { sum_runs_avx2(token, grad, bases, shift, run, sums, buf) };
    }
    let _ = isa;
    sum_runs_body(grad, bases, shift, run, sums, buf);
}

/// [`sum_runs`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2 and F16C (the token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn sum_runs_avx2<T: Sum>(
    _: Avx2,
    grad: &[T],
    bases: &[usize],
    shift: usize,
    run: usize,
    sums: &mut [T::Acc],
    buf: &mut [T::Acc; BLOCK],
) {
    sum_runs_body(grad, bases, shift, run, sums, buf);
}

#[inline(always)]
fn sum_runs_body<T: Sum>(
    grad: &[T],
    bases: &[usize],
    shift: usize,
    run: usize,
    sums: &mut [T::Acc],
    buf: &mut [T::Acc; BLOCK],
) {
    debug_assert!(run <= RUN_LEAF);
    for (sum, &base) in sums.iter_mut().zip(bases) {
        let start = base + shift;
        *sum = T::leaf_sum(&grad[start..start + run], buf);
    }
}

/// `acc[x] += other[x]` (in AVX2 when `isa` holds the token); the lengths are equal.
#[inline]
pub(crate) fn add_acc_wide<A: Acc>(isa: Option<Avx2>, acc: &mut [A], other: &[A]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(token) = isa {
        // SAFETY: the token proves the CPU has AVX2, all `add_acc_avx2` requires.
        return unsafe { add_acc_avx2(token, acc, other) };
    }
    let _ = isa;
    add_acc(acc, other);
}

/// [`add_acc`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2 (the token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_acc_avx2<A: Acc>(_: Avx2, acc: &mut [A], other: &[A]) {
    add_acc(acc, other);
}

/// `acc[x]` = the sum of `rows[..][x]` (a tree for eight rows, else in row order); every row is at least
/// `acc.len()` long and there are 1 to 8 rows.
#[inline]
pub(crate) fn sum_rows<T: Sum>(isa: Option<Avx2>, acc: &mut [T::Acc], rows: &[&[T]]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(token) = isa {
        // SAFETY: the token proves the CPU has AVX2 and F16C, all `sum_rows_avx2` requires.
        return unsafe { sum_rows_avx2(token, acc, rows) };
    }
    let _ = isa;
    sum_rows_body(acc, rows)
}

/// [`sum_rows`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2 and F16C (the token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn sum_rows_avx2<T: Sum>(_: Avx2, acc: &mut [T::Acc], rows: &[&[T]]) {
    sum_rows_body(acc, rows)
}

#[inline(always)]
fn sum_rows_body<T: Sum>(acc: &mut [T::Acc], rows: &[&[T]]) {
    let w = acc.len();
    if let Ok(eight) = <[&[T]; 8]>::try_from(rows) {
        T::set_rows8(acc, eight);
        return;
    }
    T::set_row(acc, &rows[0][..w]);
    for row in &rows[1..] {
        T::add_row(acc, &row[..w]);
    }
}

/// `acc[x] += other[x]`; the lengths are equal.
#[inline(always)]
pub(crate) fn add_acc<A: Acc>(acc: &mut [A], other: &[A]) {
    for (a, &b) in acc.iter_mut().zip(other) {
        *a = a.add(b);
    }
}

/// Independent accumulators of a contiguous sum: enough to keep the vector adders busy
/// despite their latency, each adding `RUN_LEAF / LANES` terms in order at most.
const LANES: usize = 32;

/// Adds `block` into the lanes: term `i` into lane `i % LANES`. Whole rows of `LANES` terms
/// are element-wise adds, which the compiler vectorises at full width.
#[inline(always)]
fn add_lanes<A: Acc>(lanes: &mut [A; LANES], block: &[A]) {
    let mut rows = block.chunks_exact(LANES);
    for row in &mut rows {
        for (lane, &v) in lanes.iter_mut().zip(row) {
            *lane = lane.add(v);
        }
    }
    for (lane, &v) in lanes.iter_mut().zip(rows.remainder()) {
        *lane = lane.add(v);
    }
}

/// The lanes added pairwise: halves folded onto each other.
#[inline(always)]
fn fold_lanes<A: Acc>(mut lanes: [A; LANES]) -> A {
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        let (low, high) = lanes.split_at_mut(width);
        for (a, &b) in low.iter_mut().zip(high.iter()) {
            *a = a.add(b);
        }
    }
    lanes[0]
}

macro_rules! int_sum {
    ($($t:ty),*) => {$(
        impl Sum for $t {
            type Acc = $t;
            #[inline(always)]
            fn widen(self) -> $t {
                self
            }
            #[inline(always)]
            fn narrow(acc: $t) -> $t {
                acc
            }
            // Wrapping adds are associative: any order gives the same bits, so a plain fold
            // (which the compiler vectorises as it likes) is exact.
            #[inline(always)]
            fn leaf_sum(src: &[$t], _: &mut [$t; BLOCK]) -> $t {
                src.iter().fold(0, |a, &v| a.wrapping_add(v))
            }
        }
    )*};
}
int_sum!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Sum for f32 {
    // f64 costs little here (the sum is close to bound by reading memory), and leaves one
    // rounding.
    type Acc = f64;
    #[inline(always)]
    fn widen(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn narrow(acc: f64) -> f32 {
        acc as f32
    }
    // The conversion vectorises inside the lanes: no buffer, same terms in the same lanes.
    #[inline(always)]
    fn leaf_sum(src: &[f32], _: &mut [f64; BLOCK]) -> f64 {
        let mut lanes = [0f64; LANES];
        let mut rows = src.chunks_exact(LANES);
        for row in &mut rows {
            for (lane, &v) in lanes.iter_mut().zip(row) {
                *lane += f64::from(v);
            }
        }
        for (lane, &v) in lanes.iter_mut().zip(rows.remainder()) {
            *lane += f64::from(v);
        }
        fold_lanes(lanes)
    }
}

impl Sum for f64 {
    type Acc = f64;
    #[inline(always)]
    fn widen(self) -> f64 {
        self
    }
    #[inline(always)]
    fn narrow(acc: f64) -> f64 {
        acc
    }
    // Already the accumulator type: the lanes read the terms where they are, in the same
    // order as the widening path.
    #[inline(always)]
    fn leaf_sum(src: &[f64], _: &mut [f64; BLOCK]) -> f64 {
        let mut lanes = [0f64; LANES];
        add_lanes(&mut lanes, src);
        fold_lanes(lanes)
    }
}

impl Sum for f16 {
    type Acc = f32;
    #[inline(always)]
    fn widen(self) -> f32 {
        f16_bits_to_f32(self.to_bits())
    }
    #[inline(always)]
    fn narrow(acc: f32) -> f16 {
        f16::from_f32(acc)
    }
    #[inline(always)]
    fn set_row(acc: &mut [f32], src: &[f16]) {
        widen_f16_row(acc, src);
    }
    #[inline(always)]
    fn add_row(acc: &mut [f32], src: &[f16]) {
        let mut buf = [0f32; BLOCK];
        for (a, s) in acc.chunks_mut(BLOCK).zip(src.chunks(BLOCK)) {
            let b = &mut buf[..s.len()];
            widen_f16_row(b, s);
            for (x, &y) in a.iter_mut().zip(b.iter()) {
                *x += y;
            }
        }
    }
    // F16C straight into the lanes (no widened buffer to store and load again): the same
    // terms into the same lanes in the same order as the default, so the same bits. Measured
    // (perf, `reduce_mid_f16`): the buffered widening was half of the reduction's time.
    #[inline(always)]
    fn leaf_sum(src: &[f16], buf: &mut [f32; BLOCK]) -> f32 {
        #[cfg(target_arch = "x86_64")]
        if let Some(token) = Avx2::detect() {
            // SAFETY: the token proves the CPU has AVX and F16C, all `leaf_sum_f16c` needs.
            return unsafe { leaf_sum_f16c(token, src) };
        }
        leaf_sum_by_blocks(src, buf)
    }
    #[inline(always)]
    fn set_rows8(acc: &mut [f32], rows: [&[f16]; 8]) {
        let w = acc.len();
        Self::set_row(acc, &rows[0][..w]);
        for row in &rows[1..] {
            Self::add_row(acc, &row[..w]);
        }
    }
}

/// `dst[i] = src[i]` as f32, with the CPU's F16C conversion when it has one (eight values
/// per instruction; `half` calls a function per eight values), else [`f16_bits_to_f32`].
#[inline(always)]
fn widen_f16_row(dst: &mut [f32], src: &[f16]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(token) = Avx2::detect() {
        // SAFETY: the token proves the CPU has F16C and AVX, all `widen_f16c` requires.
        unsafe { widen_f16c(token, dst, src) };
        return;
    }
    for (d, s) in dst.iter_mut().zip(src) {
        *d = f16_bits_to_f32(s.to_bits());
    }
}

/// [`Sum::leaf_sum`] of `f16` terms with F16C: lane `l` of the 32 (four vectors) adds terms
/// `l, l + 32, ...` in order, the remainder goes to lanes `0..`, then [`fold_lanes`].
///
/// # Safety
/// The CPU must support F16C and AVX (the token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn leaf_sum_f16c(_: Avx2, src: &[f16]) -> f32 {
    use std::arch::x86_64::{
        __m128i, _mm256_add_ps, _mm256_cvtph_ps, _mm256_setzero_ps, _mm256_storeu_ps,
        _mm_loadu_si128,
    };
    let mut acc = [_mm256_setzero_ps(); LANES / 8];
    let mut rows = src.chunks_exact(LANES);
    for row in &mut rows {
        for (k, a) in acc.iter_mut().enumerate() {
            // SAFETY: `row` holds 32 f16 (64 bytes): 8 of them (16 bytes) are readable at
            // `8k`; the load accepts any alignment; `f16` is a transparent `u16`.
            let halves = unsafe { _mm_loadu_si128(row.as_ptr().add(8 * k).cast::<__m128i>()) };
            *a = _mm256_add_ps(*a, _mm256_cvtph_ps(halves));
        }
    }
    let mut lanes = [0f32; LANES];
    for (k, a) in acc.iter().enumerate() {
        // SAFETY: `lanes[8k..8k + 8]` is writable; the store accepts any alignment.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr().add(8 * k), *a) };
    }
    for (lane, v) in lanes.iter_mut().zip(rows.remainder()) {
        *lane += f16_bits_to_f32(v.to_bits());
    }
    fold_lanes(lanes)
}

/// # Safety
/// The CPU must support F16C and AVX (the token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn widen_f16c(_: Avx2, dst: &mut [f32], src: &[f16]) {
    use std::arch::x86_64::{__m128i, _mm256_cvtph_ps, _mm256_storeu_ps, _mm_loadu_si128};
    let n = dst.len().min(src.len());
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: `i + 8 <= n`, so 8 f16 (16 bytes) are readable from `src[i..]` and 8 f32
        // writable at `dst[i..]`; both intrinsics accept unaligned addresses; `f16` is a
        // transparent `u16`, the layout `_mm256_cvtph_ps` reads.
        unsafe {
            let halves = _mm_loadu_si128(src.as_ptr().add(i).cast::<__m128i>());
            _mm256_storeu_ps(dst.as_mut_ptr().add(i), _mm256_cvtph_ps(halves));
        }
        i += 8;
    }
    for (d, s) in dst[i..n].iter_mut().zip(&src[i..n]) {
        *d = f16_bits_to_f32(s.to_bits());
    }
}

impl Sum for bf16 {
    type Acc = f32;
    #[inline(always)]
    fn widen(self) -> f32 {
        // A bf16 is the top half of an f32.
        f32::from_bits(u32::from(self.to_bits()) << 16)
    }
    #[inline(always)]
    fn narrow(acc: f32) -> bf16 {
        bf16::from_f32(acc)
    }
}

/// An f16 (as bits) to f32, exactly, in integer and float operations the compiler can
/// vectorise: `half` converts one value at a time, or eight per call with F16C, both far
/// slower than reading memory. Subnormals go through an integer-to-float conversion, so no
/// operation ever sees a subnormal operand (which would take a slow microcode path).
#[inline(always)]
fn f16_bits_to_f32(h: u16) -> f32 {
    let h = u32::from(h);
    let magnitude = h & 0x7fff;
    let value = if magnitude < 0x0400 {
        // Zero or subnormal: m * 2^-24, exact.
        magnitude as f32 * f32::from_bits((127 - 24) << 23)
    } else if magnitude >= 0x7c00 {
        // Infinity or NaN: all-ones exponent, the payload moved up.
        f32::from_bits((magnitude << 13) | 0x7f80_0000)
    } else {
        // Normal: rebias the exponent from 15 to 127.
        f32::from_bits((magnitude << 13) + ((127 - 15) << 23))
    };
    f32::from_bits(value.to_bits() | ((h & 0x8000) << 16))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_in_their_own_type() {
        let mut buf = [0; BLOCK];
        assert_eq!(
            sum_leaf::<i8>(Avx2::detect(), &[100, 100, 100], &mut buf),
            44
        );
        assert_eq!(
            sum_leaf::<u8>(Avx2::detect(), &[255; 9], &mut [0; BLOCK]),
            247
        );
        assert_eq!(
            sum_leaf::<i64>(Avx2::detect(), &[i64::MAX, 1], &mut [0; BLOCK]),
            i64::MIN
        );
    }

    #[test]
    fn halves_accumulate_in_f32() {
        // 2048 + 1 is not an f16 (spacing 2 there): summed in f16 the ones would all round
        // away; in f32 they count.
        let mut v = vec![f16::from_f32(2048.0)];
        v.extend(std::iter::repeat_n(f16::ONE, 100));
        assert_eq!(sum_leaf(Avx2::detect(), &v, &mut [0.0; BLOCK]), 2148.0);
        let mut acc = [0f32; 3];
        <bf16 as Sum>::set_row(&mut acc, &[bf16::from_f32(256.0); 3]);
        <bf16 as Sum>::add_row(&mut acc, &[bf16::ONE; 3]);
        assert_eq!(acc, [257.0; 3]);
    }

    #[test]
    fn every_f16_widens_exactly_as_half_converts_it() {
        for bits in 0..=u16::MAX {
            let h = f16::from_bits(bits);
            let ours = h.widen();
            let theirs = h.to_f32();
            if theirs.is_nan() {
                assert!(ours.is_nan(), "{bits:#06x}");
            } else {
                assert_eq!(ours.to_bits(), theirs.to_bits(), "{bits:#06x}");
            }
            let b = bf16::from_bits(bits);
            assert!(b.widen().to_bits() == b.to_f32().to_bits() || b.to_f32().is_nan());
        }
    }

    #[test]
    fn f16_rows_widen_exactly_on_every_path() {
        // The row conversion (F16C where the CPU has it) against the scalar one, for every
        // bit pattern, at an odd length so the tail is covered too.
        let all: Vec<f16> = (0..=u16::MAX)
            .map(f16::from_bits)
            .chain([f16::ONE; 3])
            .collect();
        let mut row = vec![0f32; all.len()];
        widen_f16_row(&mut row, &all);
        for (h, r) in all.iter().zip(&row) {
            let one = h.widen();
            assert!(
                r.to_bits() == one.to_bits() || (r.is_nan() && one.is_nan()),
                "{:#06x}",
                h.to_bits()
            );
        }
    }

    #[test]
    fn the_f16c_leaf_adds_like_the_buffered_one() {
        for n in [0usize, 5, 32, 100, 128, 517, 1024] {
            let v: Vec<f16> = (0..n)
                .map(|i| f16::from_f32((i as f32 * 0.37).sin() * 1000.0))
                .collect();
            let mut lanes = [0f32; LANES];
            let mut buf = [0f32; BLOCK];
            for block in v.chunks(BLOCK) {
                let b = &mut buf[..block.len()];
                <f16 as Sum>::set_row(b, block);
                add_lanes(&mut lanes, b);
            }
            let want = fold_lanes(lanes);
            let got = <f16 as Sum>::leaf_sum(&v, &mut buf);
            assert_eq!(got.to_bits(), want.to_bits(), "{n}");
        }
    }

    #[test]
    fn eight_rows_at_once_add_as_a_tree() {
        // Row r holds 10^(8 * (r % 2)) * (r + 0.1): pairs of a huge and a small value, so
        // the order of the adds shows in the bits.
        let rows: Vec<Vec<f64>> = (0..8)
            .map(|r| vec![1e8f64.powi(r % 2) * (f64::from(r) + 0.1); 3])
            .collect();
        let v: Vec<f64> = rows.iter().map(|r| r[0]).collect();
        let tree = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
        let mut fused = [0f64; 3];
        f64::set_rows8(&mut fused, std::array::from_fn(|r| rows[r].as_slice()));
        assert_eq!(fused.map(f64::to_bits), [tree.to_bits(); 3]);
    }

    #[test]
    fn f32_accumulates_in_f64() {
        // 2^24 + 1 is not an f32; the f64 accumulator keeps it until the final rounding.
        let v = [16_777_216f32, 1.0, 1.0];
        assert_eq!(sum_leaf(None, &v, &mut [0.0; BLOCK]), 16_777_218.0);
    }
}
