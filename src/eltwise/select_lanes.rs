//! Select on plain values as mask blends in vector registers: a register's worth of the
//! condition's bytes becomes a lane mask, and the mask picks each lane from `then` or `else`
//! (AVX-512: a test of the bytes into a mask register and one masked blend; AVX2: the bytes
//! widened to the lane width, compared with zero, and `vpblendvb`).
//!
//! Why written out: the per-element `if` of `select_block` on a `bool` lane is what the
//! compiler vectorises at the baseline width (a shuffle sequence per 16 bytes) and, compiled
//! for AVX2, into a slower form still (benches/RESULTS.md, 2026-12-07 (b)); the causal mask of
//! a decoder's attention ran at half of OpenVINO's rate there. A pick moves bits and computes
//! nothing, so one kernel per element width serves every element type of that width (f32,
//! i32 and u32 alike), and the bits written are the picked operand's.
//!
//! Only for element types whose values are plain bits (not strings), which the caller vouches
//! for ([`pick_fn`]'s callers pass only the crate's numeric and bool types), and only where
//! the condition is a run of bytes and each pick is a run or one value; other pieces take the
//! per-element loop.

use super::exec::Src;
use crate::exec::isa::Avx2;
use crate::exec::{Ahead, ArithmeticWidth};

/// Where a picked operand's elements come from, its element type erased to its width.
#[derive(Clone, Copy)]
pub(crate) enum Pick {
    /// Element `i` is at `ptr + i * width`.
    Run(*const u8),
    /// Every element is this value (its bits in the low `width` bytes).
    Splat(u64),
}

/// A kernel of one element width: `out[i] = if cond[i] { then[i] } else { else_[i] }` for
/// `i < n`, `out` holding `n` elements of that width.
///
/// # Safety
/// `cond` points at `n` readable bools; each [`Pick::Run`] at `n` readable elements of the
/// kernel's width, and `out` at `n` writable ones; the CPU has the kernel's features (the
/// token [`pick_fn`] checked).
pub(crate) type PickFn =
    unsafe fn(cond: *const bool, then: Pick, else_: Pick, out: *mut u8, n: usize);

/// The kernel for elements of `T` (plain bits, as the module says) at `width` or the widest
/// below it this CPU has; `None` for the per-element loop (width `Baseline`, no AVX2, or a
/// width other than 1, 2, 4 or 8 bytes).
pub(crate) fn pick_fn<T>(width: ArithmeticWidth) -> Option<PickFn> {
    let bytes = std::mem::size_of::<T>();
    let _ = (bytes, width);
    #[cfg(all(target_arch = "x86_64", bcast_avx512))]
    if width >= ArithmeticWidth::Avx512 && crate::exec::isa::Avx512::detect().is_some() {
        return match bytes {
            1 => Some(avx512::pick8),
            2 => Some(avx512::pick16),
            4 => Some(avx512::pick32),
            8 => Some(avx512::pick64),
            _ => None,
        };
    }
    #[cfg(target_arch = "x86_64")]
    if width >= ArithmeticWidth::Avx2 && Avx2::detect().is_some() {
        return match bytes {
            1 => Some(avx2::pick8),
            2 => Some(avx2::pick16),
            4 => Some(avx2::pick32),
            8 => Some(avx2::pick64),
            _ => None,
        };
    }
    None
}

/// The pick of a piece's operand, where the piece reads it as a run or one value.
#[inline(always)]
pub(crate) fn pick_of<T>(src: Src<'_, T>) -> Option<Pick> {
    match src {
        Src::Contig(s) => Some(Pick::Run(s.as_ptr().cast())),
        Src::Splat(v) => {
            let mut bits = [0u8; 8];
            let size = std::mem::size_of::<T>().min(8);
            // SAFETY: `v` is a reference to a `T` of at least `size` bytes; its bytes are
            // copied, not interpreted (plain bits, as the module says).
            let bytes =
                unsafe { std::slice::from_raw_parts(std::ptr::from_ref(v).cast::<u8>(), size) };
            bits[..size].copy_from_slice(bytes);
            Some(Pick::Splat(u64::from_ne_bytes(bits)))
        }
        Src::Strided(_) => None,
    }
}

/// One ISA's registers of one element width `W`.
trait Lanes {
    /// The element, as bits.
    type W: Copy;
    /// A register of elements.
    type Reg: Copy;
    /// Which lanes take `then`.
    type Mask: Copy;
    /// Elements a register holds.
    const N: usize;
    /// The mask of the `N` bools from `c`.
    ///
    /// # Safety
    /// `c` points at `N` readable bools; the CPU has the features.
    unsafe fn cond(c: *const bool) -> Self::Mask;
    /// # Safety
    /// `p` points at `N` readable elements; the CPU has the features.
    unsafe fn load(p: *const Self::W) -> Self::Reg;
    /// # Safety
    /// The CPU has the features.
    unsafe fn splat(w: Self::W) -> Self::Reg;
    /// `then` in the mask's lanes, `else_` in the others.
    ///
    /// # Safety
    /// The CPU has the features.
    unsafe fn blend(m: Self::Mask, then: Self::Reg, else_: Self::Reg) -> Self::Reg;
    /// # Safety
    /// `p` points at `N` writable elements; the CPU has the features.
    unsafe fn store(p: *mut Self::W, r: Self::Reg);
}

/// A picked operand inside a kernel: a run, or one value and its register.
trait Side<L: Lanes>: Copy {
    /// The register of elements `i..i + N`.
    ///
    /// # Safety
    /// A run holds them; the CPU has the features.
    unsafe fn reg(self, i: usize) -> L::Reg;
    /// Element `i`.
    ///
    /// # Safety
    /// A run holds it.
    unsafe fn word(self, i: usize) -> L::W;
    /// Hints the line the read distance past element `i` (runs only).
    fn hint(self, ahead: Ahead, i: usize);
}

#[derive(Clone, Copy)]
struct RunSide<W>(*const W);

#[derive(Clone, Copy)]
struct SplatSide<W, R>(W, R);

impl<L: Lanes> Side<L> for RunSide<L::W> {
    #[inline(always)]
    unsafe fn reg(self, i: usize) -> L::Reg {
        // SAFETY: the caller's contract.
        unsafe { L::load(self.0.add(i)) }
    }
    #[inline(always)]
    unsafe fn word(self, i: usize) -> L::W {
        // SAFETY: the caller's contract; unaligned, as the element type's alignment may be
        // below the width's.
        unsafe { self.0.add(i).read_unaligned() }
    }
    #[inline(always)]
    fn hint(self, ahead: Ahead, i: usize) {
        ahead.hint(self.0.wrapping_add(i));
    }
}

impl<L: Lanes> Side<L> for SplatSide<L::W, L::Reg> {
    #[inline(always)]
    unsafe fn reg(self, _: usize) -> L::Reg {
        self.1
    }
    #[inline(always)]
    unsafe fn word(self, _: usize) -> L::W {
        self.0
    }
    #[inline(always)]
    fn hint(self, _: Ahead, _: usize) {}
}

/// The loop: whole registers, then the last elements one at a time.
///
/// # Safety
/// As [`PickFn`], with `out` typed.
#[inline(always)]
unsafe fn pick_rows<L: Lanes, T: Side<L>, E: Side<L>>(
    cond: *const bool,
    then: T,
    else_: E,
    out: *mut L::W,
    n: usize,
) {
    let ahead = Ahead::get();
    let mut i = 0;
    while i + L::N <= n {
        ahead.hint(cond.wrapping_add(i));
        then.hint(ahead, i);
        else_.hint(ahead, i);
        ahead.hint_write(out.wrapping_add(i));
        // SAFETY: `i + N <= n`: every operand holds elements `i..i + N` (the caller's
        // contract), and the CPU has the features.
        unsafe {
            let m = L::cond(cond.add(i));
            L::store(out.add(i), L::blend(m, then.reg(i), else_.reg(i)));
        }
        i += L::N;
    }
    while i < n {
        // SAFETY: `i < n`, as above.
        unsafe {
            let w = if *cond.add(i) {
                then.word(i)
            } else {
                else_.word(i)
            };
            out.add(i).write_unaligned(w);
        }
        i += 1;
    }
}

/// The three forms a piece takes (both runs; a run and one value either way round; both one
/// value, which the caller never hands here, runs as two).
///
/// # Safety
/// As [`PickFn`].
#[inline(always)]
unsafe fn pick_any<L: Lanes>(cond: *const bool, then: Pick, else_: Pick, out: *mut u8, n: usize)
where
    L::W: Copy,
{
    let out = out.cast::<L::W>();
    let word = |bits: u64| -> L::W {
        let bytes = bits.to_ne_bytes();
        // SAFETY: `W` is an integer of at most 8 bytes; its bits are the low bytes of
        // `bits` (as `pick_of` stored them).
        unsafe { bytes.as_ptr().cast::<L::W>().read_unaligned() }
    };
    // SAFETY: the caller's contract, passed on (each arm).
    unsafe {
        match (then, else_) {
            (Pick::Run(t), Pick::Run(e)) => {
                pick_rows::<L, _, _>(
                    cond,
                    RunSide(t.cast::<L::W>()),
                    RunSide(e.cast::<L::W>()),
                    out,
                    n,
                );
            }
            (Pick::Run(t), Pick::Splat(e)) => {
                let e = word(e);
                pick_rows::<L, _, _>(
                    cond,
                    RunSide(t.cast::<L::W>()),
                    SplatSide(e, L::splat(e)),
                    out,
                    n,
                );
            }
            (Pick::Splat(t), Pick::Run(e)) => {
                let t = word(t);
                pick_rows::<L, _, _>(
                    cond,
                    SplatSide(t, L::splat(t)),
                    RunSide(e.cast::<L::W>()),
                    out,
                    n,
                );
            }
            (Pick::Splat(t), Pick::Splat(e)) => {
                let (t, e) = (word(t), word(e));
                pick_rows::<L, _, _>(
                    cond,
                    SplatSide(t, L::splat(t)),
                    SplatSide(e, L::splat(e)),
                    out,
                    n,
                );
            }
        }
    }
}

/// The four kernels of an ISA's module, one per width (its `Lanes` `L8` to `L64`), compiled
/// with `$features`, which the CPU must have (`$needs` says which token proves it).
macro_rules! pick_kernels {
    ($features:literal, $needs:literal) => {
        pick_kernels!(@one $features, $needs, pick8, L8);
        pick_kernels!(@one $features, $needs, pick16, L16);
        pick_kernels!(@one $features, $needs, pick32, L32);
        pick_kernels!(@one $features, $needs, pick64, L64);
    };
    (@one $features:literal, $needs:literal, $f:ident, $l:ident) => {
        /// [`super::PickFn`] of this width.
        ///
        /// # Safety
        #[doc = concat!("As [`super::PickFn`]; the CPU has ", $needs, ".")]
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $f(cond: *const bool, then: Pick, else_: Pick, out: *mut u8, n: usize) {
            // SAFETY: the caller's contract.
            unsafe { pick_any::<$l>(cond, then, else_, out, n) }
        }
    };
}

/// The AVX2 kernels (32-byte registers).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_blendv_epi8, _mm256_cmpgt_epi16, _mm256_cmpgt_epi32, _mm256_cmpgt_epi64,
        _mm256_cmpgt_epi8, _mm256_cvtepu8_epi16, _mm256_cvtepu8_epi32, _mm256_cvtepu8_epi64,
        _mm256_loadu_si256, _mm256_set1_epi16, _mm256_set1_epi32, _mm256_set1_epi64x,
        _mm256_set1_epi8, _mm256_setzero_si256, _mm256_storeu_si256, _mm_cvtsi32_si128,
        _mm_loadl_epi64, _mm_loadu_si128,
    };

    use super::{pick_any, Lanes, Pick};

    /// One width: the word, lanes per register, how the condition's bytes widen, the splat
    /// and the compare of that width.
    macro_rules! lanes {
        ($name:ident, $w:ty, $n:expr, |$c:ident| $widen:expr, $splat:ident, $gt:ident) => {
            #[derive(Clone, Copy)]
            struct $name;
            impl Lanes for $name {
                type W = $w;
                type Reg = __m256i;
                type Mask = __m256i;
                const N: usize = $n;
                #[inline(always)]
                unsafe fn cond($c: *const bool) -> __m256i {
                    // SAFETY: the caller's contract: `N` readable bytes, each 0 or 1 (a
                    // bool), so a lane is 0 or 1 after widening and `> 0` is the bool.
                    unsafe { $gt($widen, _mm256_setzero_si256()) }
                }
                #[inline(always)]
                unsafe fn load(p: *const $w) -> __m256i {
                    // SAFETY: the caller's contract; an unaligned load.
                    unsafe { _mm256_loadu_si256(p.cast()) }
                }
                #[inline(always)]
                unsafe fn splat(w: $w) -> __m256i {
                    // SAFETY: the caller's contract (AVX); the bits as the signed integer of
                    // the width.
                    unsafe { $splat(w as _) }
                }
                #[inline(always)]
                unsafe fn blend(m: __m256i, then: __m256i, else_: __m256i) -> __m256i {
                    // SAFETY: the caller's contract (AVX2); every byte of a lane of `m` is
                    // all ones or all zeros, so the byte blend picks whole lanes.
                    unsafe { _mm256_blendv_epi8(else_, then, m) }
                }
                #[inline(always)]
                unsafe fn store(p: *mut $w, r: __m256i) {
                    // SAFETY: the caller's contract; an unaligned store.
                    unsafe { _mm256_storeu_si256(p.cast(), r) }
                }
            }
        };
    }

    lanes!(
        L8,
        u8,
        32,
        |c| _mm256_loadu_si256(c.cast()),
        _mm256_set1_epi8,
        _mm256_cmpgt_epi8
    );
    lanes!(
        L16,
        u16,
        16,
        |c| _mm256_cvtepu8_epi16(_mm_loadu_si128(c.cast())),
        _mm256_set1_epi16,
        _mm256_cmpgt_epi16
    );
    lanes!(
        L32,
        u32,
        8,
        |c| _mm256_cvtepu8_epi32(_mm_loadl_epi64(c.cast())),
        _mm256_set1_epi32,
        _mm256_cmpgt_epi32
    );
    lanes!(
        L64,
        u64,
        4,
        |c| _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(c.cast::<i32>().read_unaligned())),
        _mm256_set1_epi64x,
        _mm256_cmpgt_epi64
    );

    pick_kernels!("avx2", "AVX2 (the `Avx2` token)");
}

/// The AVX-512 kernels (64-byte registers; F, BW and VL), compiled only by Rust 1.89 or
/// later (`build.rs`), where their intrinsics are stable.
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
#[clippy::msrv = "1.89"]
mod avx512 {
    use std::arch::x86_64::{
        __m512i, _mm256_loadu_si256, _mm256_test_epi8_mask, _mm512_loadu_si512,
        _mm512_mask_blend_epi16, _mm512_mask_blend_epi32, _mm512_mask_blend_epi64,
        _mm512_mask_blend_epi8, _mm512_set1_epi16, _mm512_set1_epi32, _mm512_set1_epi64,
        _mm512_set1_epi8, _mm512_storeu_si512, _mm512_test_epi8_mask, _mm_loadl_epi64,
        _mm_loadu_si128, _mm_test_epi8_mask,
    };

    use super::{pick_any, Lanes, Pick};

    /// One width: the word, lanes per register, the mask type, how the condition's bytes
    /// become the mask, the splat and the blend of that width.
    macro_rules! lanes {
        ($name:ident, $w:ty, $n:expr, $mask:ty, |$c:ident| $test:expr, $splat:ident, $blend:ident) => {
            #[derive(Clone, Copy)]
            struct $name;
            impl Lanes for $name {
                type W = $w;
                type Reg = __m512i;
                type Mask = $mask;
                const N: usize = $n;
                #[inline(always)]
                // The 8-lane mask is the low bits of a 16-lane test; the others are one type.
                #[allow(clippy::cast_possible_truncation, clippy::unnecessary_cast)]
                unsafe fn cond($c: *const bool) -> $mask {
                    // SAFETY: the caller's contract: `N` readable bytes; a lane's bit is
                    // set where its byte (a bool) is not zero.
                    unsafe { ($test) as $mask }
                }
                #[inline(always)]
                unsafe fn load(p: *const $w) -> __m512i {
                    // SAFETY: the caller's contract; an unaligned load.
                    unsafe { _mm512_loadu_si512(p.cast()) }
                }
                #[inline(always)]
                unsafe fn splat(w: $w) -> __m512i {
                    // SAFETY: the caller's contract (AVX-512F, BW); the bits as the signed
                    // integer of the width.
                    unsafe { $splat(w as _) }
                }
                #[inline(always)]
                unsafe fn blend(m: $mask, then: __m512i, else_: __m512i) -> __m512i {
                    // SAFETY: the caller's contract (AVX-512F, BW): `then` where `m` is set.
                    unsafe { $blend(m, else_, then) }
                }
                #[inline(always)]
                unsafe fn store(p: *mut $w, r: __m512i) {
                    // SAFETY: the caller's contract; an unaligned store.
                    unsafe { _mm512_storeu_si512(p.cast(), r) }
                }
            }
        };
    }

    lanes!(
        L8,
        u8,
        64,
        u64,
        |c| {
            let v = _mm512_loadu_si512(c.cast());
            _mm512_test_epi8_mask(v, v)
        },
        _mm512_set1_epi8,
        _mm512_mask_blend_epi8
    );
    lanes!(
        L16,
        u16,
        32,
        u32,
        |c| {
            let v = _mm256_loadu_si256(c.cast());
            _mm256_test_epi8_mask(v, v)
        },
        _mm512_set1_epi16,
        _mm512_mask_blend_epi16
    );
    lanes!(
        L32,
        u32,
        16,
        u16,
        |c| {
            let v = _mm_loadu_si128(c.cast());
            _mm_test_epi8_mask(v, v)
        },
        _mm512_set1_epi32,
        _mm512_mask_blend_epi32
    );
    lanes!(
        L64,
        u64,
        8,
        u8,
        |c| {
            let v = _mm_loadl_epi64(c.cast());
            _mm_test_epi8_mask(v, v)
        },
        _mm512_set1_epi64,
        _mm512_mask_blend_epi64
    );

    pick_kernels!(
        "avx512f,avx512bw,avx512vl,avx2",
        "AVX-512 F, BW and VL (the `Avx512` token)"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pair (`then`, `else`) a form gives element `i`.
    type Want<'a, W> = Box<dyn Fn(usize) -> (W, W) + 'a>;

    /// Every kernel this CPU runs, at every width, against the formula, on lengths around the
    /// register sizes and every form of the picks; the bits of `then` and `else` are distinct
    /// patterns, so a lane taken from the wrong side, a shifted lane or a missed tail shows.
    fn check<W: Copy + PartialEq + std::fmt::Debug>(
        f: PickFn,
        word: impl Fn(usize) -> W,
        name: &str,
    ) {
        for n in [
            0, 1, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300,
        ] {
            // Runs of trues and falses of several lengths, and single flips.
            let cond: Vec<bool> = (0..n).map(|i| (i * 7 / 5 + i / 13) % 3 != 0).collect();
            let t: Vec<W> = (0..n).map(|i| word(2 * i + 1)).collect();
            let e: Vec<W> = (0..n).map(|i| word(2 * i + 1000)).collect();
            let (ts, es) = (word(77_777), word(99_999));
            let forms: [(Pick, Pick, Want<'_, W>); 4] = [
                (
                    Pick::Run(t.as_ptr().cast()),
                    Pick::Run(e.as_ptr().cast()),
                    Box::new(|i| (t[i], e[i])),
                ),
                (
                    Pick::Run(t.as_ptr().cast()),
                    pick_of(Src::Splat(&es)).unwrap(),
                    Box::new(|i| (t[i], es)),
                ),
                (
                    pick_of(Src::Splat(&ts)).unwrap(),
                    Pick::Run(e.as_ptr().cast()),
                    Box::new(|i| (ts, e[i])),
                ),
                (
                    pick_of(Src::Splat(&ts)).unwrap(),
                    pick_of(Src::Splat(&es)).unwrap(),
                    Box::new(|_| (ts, es)),
                ),
            ];
            for (form, (tp, ep, want)) in forms.iter().enumerate() {
                let mut out: Vec<W> = (0..n).map(|_| word(5)).collect();
                // SAFETY: every run holds `n` elements of `W`'s width, and `f` came from
                // `pick_fn`, which checked the CPU.
                unsafe { f(cond.as_ptr(), *tp, *ep, out.as_mut_ptr().cast(), n) };
                for i in 0..n {
                    let (x, y) = want(i);
                    let expect = if cond[i] { x } else { y };
                    assert_eq!(out[i], expect, "{name}: n {n}, form {form}, element {i}");
                }
            }
        }
    }

    #[test]
    fn every_kernel_picks_the_formulas_bits() {
        let mut ran = 0;
        for width in [ArithmeticWidth::Avx2, ArithmeticWidth::Avx512] {
            let Some(_) = pick_fn::<u32>(width) else {
                continue;
            };
            let name = |w: &str| format!("{width:?} {w}");
            check::<u8>(
                pick_fn::<u8>(width).unwrap(),
                |i| (i * 37 % 251) as u8,
                &name("u8"),
            );
            check::<u16>(
                pick_fn::<u16>(width).unwrap(),
                |i| (i * 40_503 % 65_521) as u16,
                &name("u16"),
            );
            // f32's kernel, checked on its bits (NaN patterns among them).
            check::<u32>(
                pick_fn::<f32>(width).unwrap(),
                |i| (i as u32).wrapping_mul(2_654_435_761),
                &name("f32"),
            );
            check::<u64>(
                pick_fn::<f64>(width).unwrap(),
                |i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                &name("u64"),
            );
            ran += 1;
        }
        // Where the CPU has AVX2 at least one width ran; the baseline width never has one.
        assert_eq!(ran > 0, Avx2::detect().is_some());
        assert!(pick_fn::<u32>(ArithmeticWidth::Baseline).is_none());
        assert!(pick_fn::<[u8; 3]>(ArithmeticWidth::Avx2).is_none());
    }
}
