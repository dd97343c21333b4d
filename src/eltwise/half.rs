//! f16 and bf16 arithmetic, computed in f32 and rounded once (as numpy and OpenVINO's
//! reference do; exact for + - * / since f32 holds every product and quotient of two 16-bit
//! values closely enough to round them correctly).
//!
//! Two paths, the same results:
//! - **lanes**: eight elements at a time, widened, computed and rounded in registers: f16 with
//!   the CPU's F16C conversions (when [`Avx2::detect`] finds them), bf16 with its plain bit
//!   arithmetic (a shift to widen; round-to-nearest-even to narrow), which vectorises
//!   anywhere. Used where every operand is contiguous or one value (the common case).
//! - **blocks**: anything else (strided operands, f16 without F16C): a block of each operand
//!   widened into f32 buffers, the f32 loop run, the block rounded back.

use half::{bf16, f16, slice::HalfFloatSliceExt};

use super::exec::{BinaryKernel, PerElement, Src};
use crate::exec::isa::Avx2;
use crate::exec::{per_line, Ahead, Slot};

/// A 16-bit float computed through f32.
pub(crate) trait Half: Copy + Send + Sync + PartialOrd + bytemuck::Pod + 'static {
    /// Zero.
    const ZERO: Self;
    /// Whether this is IEEE binary16, what F16C converts.
    const BINARY16: bool;
    /// Widens one value.
    fn widen(self) -> f32;
    /// Rounds one value (round to nearest, ties to even).
    fn narrow(v: f32) -> Self;
    /// Widens a slice (vectorised where the CPU can).
    fn widen_all(src: &[Self], dst: &mut [f32]);
    /// Rounds a slice once.
    fn narrow_all(src: &[f32], dst: &mut [Self]);
    /// The value in f64 (exact).
    fn to_f64(self) -> f64 {
        f64::from(self.widen())
    }
    /// Rounds an f64 once (not through f32: that could round twice).
    fn from_f64(v: f64) -> Self;
}

impl Half for f16 {
    const ZERO: Self = f16::ZERO;
    const BINARY16: bool = true;
    #[inline(always)]
    fn widen(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn narrow(v: f32) -> Self {
        f16::from_f32(v)
    }
    #[inline(always)]
    fn widen_all(src: &[Self], dst: &mut [f32]) {
        src.convert_to_f32_slice(dst);
    }
    #[inline(always)]
    fn narrow_all(src: &[f32], dst: &mut [Self]) {
        dst.convert_from_f32_slice(src);
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
}

impl Half for bf16 {
    const ZERO: Self = bf16::ZERO;
    const BINARY16: bool = false;
    #[inline(always)]
    fn widen(self) -> f32 {
        bf16_widen(self.to_bits())
    }
    #[inline(always)]
    fn narrow(v: f32) -> Self {
        bf16::from_bits(bf16_narrow(v))
    }
    #[inline(always)]
    fn widen_all(src: &[Self], dst: &mut [f32]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = bf16_widen(s.to_bits());
        }
    }
    #[inline(always)]
    fn narrow_all(src: &[f32], dst: &mut [Self]) {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = bf16::from_bits(bf16_narrow(s));
        }
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        bf16::from_f64(v)
    }
}

/// bf16 is the top half of an f32; a signalling NaN comes out quiet (as `half` widens it,
/// and as the f32 arithmetic after it would make it anyway).
#[inline(always)]
fn bf16_widen(bits: u16) -> f32 {
    let quiet = if bits & 0x7FFF > 0x7F80 { 0x0040 } else { 0 };
    f32::from_bits(u32::from(bits | quiet) << 16)
}

/// f32 to bf16, round to nearest, ties to even; a NaN stays a NaN (quieted, sign and top
/// payload kept). Written without branches on the value so that eight lanes vectorise.
#[inline(always)]
fn bf16_narrow(v: f32) -> u16 {
    let x = v.to_bits();
    let rounded = x.wrapping_add(0x7FFF + ((x >> 16) & 1)) >> 16;
    let nan = ((x >> 16) | 0x0040) & 0xFFFF;
    (if x & 0x7FFF_FFFF > 0x7F80_0000 {
        nan
    } else {
        rounded
    }) as u16
}

/// A 16-bit float op computed in f32 (the CPU's F16C found once, when the op starts).
pub(crate) struct ViaF32<F> {
    f: F,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    f16c: Option<Avx2>,
}

impl<F> ViaF32<F> {
    #[cfg(test)]
    pub(crate) fn new(f: F) -> Self {
        Self::with_f16c(f, Avx2::detect())
    }

    /// With the F16C token already looked up (once per run, by the caller).
    pub(crate) fn with_f16c(f: F, f16c: Option<Avx2>) -> Self {
        ViaF32 { f, f16c }
    }
}

/// Elements per converted block (three f32 buffers and one 16-bit one on the stack: 3.5 KiB).
const HALF_BLOCK: usize = 256;

/// Widens positions `from .. from + m` of `src` into `buf` (a splat stays a splat).
#[inline(always)]
fn widen<'s, H: Half>(src: Src<'_, H>, from: usize, m: usize, buf: &'s mut [f32]) -> Src<'s, f32> {
    match src {
        Src::Contig(s) => {
            H::widen_all(&s[from..from + m], &mut buf[..m]);
            Src::Contig(&buf[..m])
        }
        Src::Splat(v) => {
            buf[0] = v.widen();
            Src::Splat(&buf[0])
        }
        Src::Strided(_) => {
            for (i, d) in buf[..m].iter_mut().enumerate() {
                *d = src.get(from + i).widen();
            }
            Src::Contig(&buf[..m])
        }
    }
}

impl<H: Half, F: Fn(f32, f32) -> f32 + Sync> BinaryKernel<H, H, H> for ViaF32<F> {
    #[inline(always)]
    fn block<S: Slot<H>>(&self, a: &Src<'_, H>, b: &Src<'_, H>, out: &mut [S]) {
        let lanes_fit = !matches!(a, Src::Strided(_)) && !matches!(b, Src::Strided(_));
        if lanes_fit {
            if !H::BINARY16 {
                lanes(&self.f, *a, *b, out, load_bf16, store_bf16);
                return;
            }
            // (`Avx2::detect` finds a token only on x86_64.)
            #[cfg(target_arch = "x86_64")]
            if let Some(token) = self.f16c {
                // SAFETY: the token proves the CPU has AVX2 and F16C.
                unsafe { lanes_f16c(token, &self.f, a, b, out) };
                return;
            }
        }
        blocks(&self.f, *a, *b, out);
    }
}

/// The block path: widen a block of each operand into buffers, run the f32 loop, round back.
#[inline(always)]
fn blocks<H: Half, F: Fn(f32, f32) -> f32 + Sync, S: Slot<H>>(
    f: &F,
    a: Src<'_, H>,
    b: Src<'_, H>,
    out: &mut [S],
) {
    let f = PerElement(f);
    let (mut fa, mut fb, mut fo) = ([0f32; HALF_BLOCK], [0f32; HALF_BLOCK], [0f32; HALF_BLOCK]);
    let mut ho = [H::ZERO; HALF_BLOCK];
    let mut from = 0;
    for chunk in out.chunks_mut(HALF_BLOCK) {
        let m = chunk.len();
        let xa = widen(a, from, m, &mut fa);
        let xb = widen(b, from, m, &mut fb);
        f.block(&xa, &xb, &mut fo[..m]);
        H::narrow_all(&fo[..m], &mut ho[..m]);
        for (o, &h) in chunk.iter_mut().zip(&ho[..m]) {
            o.put(h);
        }
        from += m;
    }
}

/// Eight 16-bit values, widened.
type Lanes = [f32; 8];

#[inline(always)]
fn load_bf16<H: Half>(src: &[H; 8]) -> Lanes {
    std::array::from_fn(|k| bf16_widen(bytemuck::cast::<H, u16>(src[k])))
}

#[inline(always)]
fn store_bf16<H: Half>(v: Lanes) -> [H; 8] {
    std::array::from_fn(|k| bytemuck::cast::<u16, H>(bf16_narrow(v[k])))
}

/// The lane path for f16 on a CPU with F16C.
///
/// # Safety
/// None beyond the token: it proves the CPU has AVX2 and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn lanes_f16c<H: Half, F: Fn(f32, f32) -> f32 + Sync, S: Slot<H>>(
    _: Avx2,
    f: &F,
    a: &Src<'_, H>,
    b: &Src<'_, H>,
    out: &mut [S],
) {
    use std::arch::x86_64::{__m128i, __m256, _mm256_cvtph_ps, _mm_loadu_si128};
    let load = |src: &[H; 8]| -> Lanes {
        // SAFETY: `src` is 16 readable bytes (eight 2-byte `H`s); the load takes any
        // alignment; this function runs only with F16C (the token).
        let v: __m256 = unsafe { _mm256_cvtph_ps(_mm_loadu_si128(src.as_ptr().cast::<__m128i>())) };
        bytemuck::cast(v)
    };
    let store = |v: Lanes| -> [H; 8] {
        // SAFETY: F16C (the token).
        let h: __m128i = unsafe { narrow8_f16c(bytemuck::cast::<Lanes, __m256>(v)) };
        bytemuck::cast(h)
    };
    lanes(f, *a, *b, out, load, store);
}

/// Eight f32 lanes rounded to f16, to nearest even (what `f16::from_f32` does), in a
/// register.
///
/// An `asm!` block rather than the intrinsic, so that the compiler cannot fold the store
/// that follows into the conversion: on AMD Zen 3 `vcvtps2ph` with a memory operand holds a
/// store-bound loop back where the register form and a plain store do not
/// (benches/RESULTS.md, 2026-12-07); on Intel the two forms decode to the same operations
/// (a conversion, a shuffle, a store).
///
/// # Safety
/// The CPU has F16C (and AVX).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
#[inline]
unsafe fn narrow8_f16c(v: std::arch::x86_64::__m256) -> std::arch::x86_64::__m128i {
    let h;
    // SAFETY: the caller's contract (F16C); the instruction reads and writes registers only.
    // Immediate 0: round to nearest even (as `_MM_FROUND_TO_NEAREST_INT`).
    unsafe {
        std::arch::asm!(
            "vcvtps2ph {h}, {v}, 0",
            v = in(ymm_reg) v,
            h = out(xmm_reg) h,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    h
}

/// `out[i] = narrow(f(widen(a[i]), widen(b[i])))`, eight at a time (`a`, `b` contiguous or
/// one value), the tail one at a time with the same rounding.
#[inline(always)]
fn lanes<'a, H: Half, F: Fn(f32, f32) -> f32 + Sync, S: Slot<H>>(
    f: &F,
    a: Src<'a, H>,
    b: Src<'a, H>,
    out: &mut [S],
    load: impl Fn(&[H; 8]) -> Lanes,
    store: impl Fn(Lanes) -> [H; 8],
) {
    let n = out.len();
    let full = n / 8 * 8;
    let (body, tail) = out.split_at_mut(full);
    let put = |slots: &mut [S], xa: Lanes, xb: Lanes| {
        let r = store(std::array::from_fn(|k| f(xa[k], xb[k])));
        for (o, h) in slots.iter_mut().zip(r) {
            o.put(h);
        }
    };
    let eights = |s: &'a [H]| {
        s.chunks_exact(8)
            .map(|c| <&[H; 8]>::try_from(c).expect("eight elements"))
    };
    // Contiguous operands go a line at a time (up to four groups of eight), each line's
    // read hints and the output's write hint issued ahead; the distances are read once per
    // block.
    let line = per_line::<H>();
    let ahead = Ahead::get();
    // One loop per operand kind, so the loop body has no branch on it.
    match (a, b) {
        (Src::Contig(x), Src::Contig(y)) => {
            let lines = body
                .chunks_mut(line)
                .zip(x[..full].chunks(line))
                .zip(y[..full].chunks(line));
            for ((slots, x), y) in lines {
                ahead.hint(x.as_ptr());
                ahead.hint(y.as_ptr());
                ahead.hint_write(slots.as_mut_ptr());
                for ((slots, x), y) in slots.chunks_exact_mut(8).zip(eights(x)).zip(eights(y)) {
                    put(slots, load(x), load(y));
                }
            }
        }
        (Src::Contig(x), Src::Splat(y)) => {
            let y = [y.widen(); 8];
            for (slots, x) in body.chunks_mut(line).zip(x[..full].chunks(line)) {
                ahead.hint(x.as_ptr());
                ahead.hint_write(slots.as_mut_ptr());
                for (slots, x) in slots.chunks_exact_mut(8).zip(eights(x)) {
                    put(slots, load(x), y);
                }
            }
        }
        (Src::Splat(x), Src::Contig(y)) => {
            let x = [x.widen(); 8];
            for (slots, y) in body.chunks_mut(line).zip(y[..full].chunks(line)) {
                ahead.hint(y.as_ptr());
                ahead.hint_write(slots.as_mut_ptr());
                for (slots, y) in slots.chunks_exact_mut(8).zip(eights(y)) {
                    put(slots, x, load(y));
                }
            }
        }
        _ => {
            for (i, o) in body.iter_mut().enumerate() {
                o.put(H::narrow(f(a.get(i).widen(), b.get(i).widen())));
            }
        }
    }
    for (i, o) in tail.iter_mut().enumerate() {
        let (x, y) = (a.get(full + i).widen(), b.get(full + i).widen());
        o.put(H::narrow(f(x, y)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// bf16 rounding against `half`'s own conversion, over every bf16 neighbourhood.
    #[test]
    fn bf16_rounding_matches_half() {
        let mut x: u32 = 0x9E37_79B9;
        for i in 0..2_000_000u32 {
            // Every exponent and sign, low bits around the rounding point and random.
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let bits = if i % 4 == 0 {
                (x & 0xFFFF_0000) | 0x8000 | (i & 1)
            } else {
                x
            };
            let v = f32::from_bits(bits);
            assert_eq!(
                bf16_narrow(v),
                bf16::from_f32(v).to_bits(),
                "f32 bits {bits:#010x}"
            );
            assert_eq!(
                bf16_widen(bits as u16).to_bits(),
                bf16::from_bits(bits as u16).to_f32().to_bits()
            );
        }
    }

    /// Both paths give `half`'s own per-element result, for every alignment of the tail.
    #[test]
    fn lanes_and_blocks_agree_with_scalar_rounding() {
        let vals: Vec<f32> = (0..77)
            .map(|i| (i as f32 - 30.5) * 1.37e-3 + if i % 5 == 0 { 6.1e4 } else { 0.0 })
            .collect();
        for n in [0usize, 1, 7, 8, 9, 16, 77] {
            let a16: Vec<f16> = vals[..n].iter().map(|&v| f16::from_f32(v)).collect();
            let b16: Vec<f16> = vals[..n]
                .iter()
                .rev()
                .map(|&v| f16::from_f32(v * 3.3))
                .collect();
            let f = |x: f32, y: f32| x * y + x;
            let expect: Vec<f16> = a16
                .iter()
                .zip(&b16)
                .map(|(x, y)| f16::from_f32(f(x.to_f32(), y.to_f32())))
                .collect();
            let mut got = vec![std::mem::MaybeUninit::<f16>::uninit(); n];
            ViaF32::new(f).block(&Src::Contig(&a16), &Src::Contig(&b16), &mut got);
            // SAFETY: `block` wrote every slot.
            let got: Vec<f16> = got.iter().map(|v| unsafe { v.assume_init() }).collect();
            assert_eq!(
                got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                expect.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
            let mut blk = vec![std::mem::MaybeUninit::<f16>::uninit(); n];
            blocks(&f, Src::Contig(&a16), Src::Contig(&b16), &mut blk);
            // SAFETY: `blocks` wrote every slot.
            let blk: Vec<f16> = blk.iter().map(|v| unsafe { v.assume_init() }).collect();
            assert_eq!(blk, got);
            let ab: Vec<bf16> = vals[..n].iter().map(|&v| bf16::from_f32(v)).collect();
            let bb = bf16::from_f32(-2.75);
            let mut gb = vec![std::mem::MaybeUninit::<bf16>::uninit(); n];
            ViaF32::new(f).block(&Src::Contig(&ab), &Src::Splat(&bb), &mut gb);
            for (i, g) in gb.iter().enumerate() {
                // SAFETY: `block` wrote every slot.
                let g = unsafe { g.assume_init() };
                let e = bf16::from_f32(f(ab[i].to_f32(), bb.to_f32()));
                assert_eq!(g.to_bits(), e.to_bits());
            }
        }
    }
}
