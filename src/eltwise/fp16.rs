//! f16 arithmetic in AVX512-FP16 registers, 32 lanes a register, for the f16 register
//! chains (`chain.rs`) on CPUs that compute f16 natively (the [`Avx512Fp16`] token).
//!
//! The op alone computes an f16 node by widening its operands to f32, computing there and
//! rounding the result to f16 once (the table's `half` bodies). These bodies compute on
//! the f16 values directly, and give the same bits:
//!
//! - `+ - * /`: the f32 result is the exact result rounded to 24 bits, then rounded to f16's
//!   11. Rounding twice gives the once-rounded result whenever the first precision is at
//!   least twice the second plus two (24 >= 2 * 11 + 2; Figueroa, "When is double rounding
//!   innocuous?", SIGNUM 1995), and f32's exponent range holds every f16 operation's result
//!   without overflow or loss below f16's subnormals. The f16 instruction rounds the exact
//!   result once. A NaN operand gives the same quiet NaN both ways (x86 keeps the first
//!   operand's payload, and a payload survives widening and rounding).
//! - Maximum, Minimum: the table's bodies compare the 16-bit values themselves
//!   (`half_native`); a compare and a blend of the lanes is that comparison.
//! - PRelu: the op alone returns `x` widened and rounded back where `x` is not negative,
//!   which quiets a signalling NaN; `x + -0.0` is the same (it is `x` for every other value,
//!   -0.0 included).
//!
//! `tests` below checks every body against the widen-compute-round formula on every class of
//! value, and `tests/expression.rs` every chain against the ops one by one.
//!
//! The instructions are written as inline assembly: Rust's f16 vector intrinsics are not
//! stable. Each function is compiled with the CPU features it uses and is safe to call from
//! code compiled with them (the chain kernel, which runs only with the token).

use std::arch::asm;
use std::arch::x86_64::{
    __m512i, _mm512_loadu_si512, _mm512_mask_blend_epi16, _mm512_set1_epi16, _mm512_setzero_si512,
    _mm512_storeu_si512,
};

#[allow(unused_imports)]
pub(crate) use crate::exec::isa::Avx512Fp16;

/// 32 f16 values (their bits) in one register.
pub(crate) type F16x32 = __m512i;

/// Lanes of f16 in one [`F16x32`].
pub(crate) const LANES: usize = 32;

macro_rules! arithmetic {
    ($($(#[$doc:meta])* $name:ident $insn:literal;)*) => {$(
        $(#[$doc])*
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512fp16")]
        #[inline]
        pub(crate) fn $name(x: F16x32, y: F16x32) -> F16x32 {
            let r: F16x32;
            // SAFETY: the instruction reads and writes only the named registers; the function
            // is compiled with, and so runs only on, a CPU with AVX512-FP16.
            unsafe {
                asm!(
                    concat!($insn, " {r}, {x}, {y}"),
                    r = lateout(zmm_reg) r,
                    x = in(zmm_reg) x,
                    y = in(zmm_reg) y,
                    options(pure, nomem, nostack, preserves_flags),
                )
            };
            r
        }
    )*};
}

arithmetic! {
    /// `x + y`.
    add "vaddph";
    /// `x - y`.
    sub "vsubph";
    /// `x * y`.
    mul "vmulph";
    /// `x / y`.
    div "vdivph";
}

/// Lanes where `x < y` (ordered: false where either is NaN), as IEEE compares f16 values.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512fp16")]
#[inline]
fn less(x: F16x32, y: F16x32) -> u32 {
    let k: u32;
    // SAFETY: as `add`; predicate 0x11 is LT_OQ, `<` with no exception on quiet NaNs.
    unsafe {
        asm!(
            "vcmpph {k}, {x}, {y}, 0x11",
            k = lateout(kreg) k,
            x = in(zmm_reg) x,
            y = in(zmm_reg) y,
            options(pure, nomem, nostack, preserves_flags),
        )
    };
    k
}

/// `if x < y { y } else { x }`: the table's `max_of` on the f16 values.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512fp16")]
#[inline]
pub(crate) fn max_of(x: F16x32, y: F16x32) -> F16x32 {
    _mm512_mask_blend_epi16(less(x, y), x, y)
}

/// `if y < x { y } else { x }`: the table's `min_of` on the f16 values.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512fp16")]
#[inline]
pub(crate) fn min_of(x: F16x32, y: F16x32) -> F16x32 {
    _mm512_mask_blend_epi16(less(y, x), x, y)
}

/// `if x < 0 { x * s } else { x }`, the not-negative side quieted as widening does.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512fp16")]
#[inline]
pub(crate) fn prelu(x: F16x32, s: F16x32) -> F16x32 {
    let negative = less(x, _mm512_setzero_si512());
    let kept = add(
        x,
        _mm512_set1_epi16(i16::from_ne_bytes(0x8000_u16.to_ne_bytes())),
    );
    _mm512_mask_blend_epi16(negative, kept, mul(x, s))
}

/// `acc = f(acc, x)` (`f(x, acc)` when the running value is the second operand), 32 lanes at
/// a time: the chain's step on `W` f16 lanes (`W` a multiple of 32).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512fp16")]
#[inline]
pub(crate) fn registers<H: Copy, const W: usize>(
    f: impl Fn(F16x32, F16x32) -> F16x32,
    running_first: bool,
    acc: &mut [H; W],
    x: &[H; W],
) {
    debug_assert!(W.is_multiple_of(LANES) && std::mem::size_of::<H>() == 2);
    for c in 0..W / LANES {
        // SAFETY: lanes `c * 32..c * 32 + 32` lie inside both arrays of 16-bit values (`W` is
        // a multiple of 32); unaligned loads and stores.
        unsafe {
            let a = _mm512_loadu_si512(acc.as_ptr().add(c * LANES).cast());
            let b = _mm512_loadu_si512(x.as_ptr().add(c * LANES).cast());
            let r = if running_first { f(a, b) } else { f(b, a) };
            _mm512_storeu_si512(acc.as_mut_ptr().add(c * LANES).cast(), r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    /// Every class of f16 value: zeros, subnormals, normals near 1 and near the largest,
    /// infinities, quiet and signalling NaNs with payloads, both signs; then spread bits.
    fn values() -> Vec<u16> {
        let mut v = vec![
            0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3c01,
            0x3bff, 0x7bff, 0xfbff, 0x7bfe, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7e01, 0x7d55, 0xfd01,
            0x7c01, 0x4000, 0x4200, 0x5bff, 0x0200, 0x1400, 0x7800, 0xc000,
        ];
        let mut s = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..226 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push((s >> 24) as u16);
        }
        v
    }

    /// A body as a chain step on 32 lanes (running value first), callable where the CPU
    /// has the features.
    macro_rules! step {
        ($body:path) => {{
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512fp16")]
            fn run(x: &mut [u16; LANES], y: &[u16; LANES]) {
                registers(|a, b| $body(a, b), true, x, y)
            }
            // SAFETY: `check` calls it only after finding the token.
            |x: &mut [u16; LANES], y: &[u16; LANES]| unsafe { run(x, y) }
        }};
    }

    /// `step` on every pair of [`values`], against `expect` per lane.
    fn check(
        name: &str,
        step: impl Fn(&mut [u16; LANES], &[u16; LANES]),
        expect: impl Fn(f16, f16) -> f16,
    ) {
        if Avx512Fp16::detect().is_none() {
            eprintln!("{name}: this CPU has no AVX512-FP16; not checked");
            return;
        }
        let vals = values();
        for &a in &vals {
            for chunk in vals.chunks(LANES) {
                let mut x = [a; LANES];
                let mut y = [0_u16; LANES];
                y[..chunk.len()].copy_from_slice(chunk);
                step(&mut x, &y);
                for (k, &b) in chunk.iter().enumerate() {
                    let want = expect(f16::from_bits(a), f16::from_bits(b)).to_bits();
                    assert_eq!(
                        x[k], want,
                        "{name}({a:#06x}, {b:#06x}) = {:#06x}, want {want:#06x}",
                        x[k]
                    );
                }
            }
        }
    }

    /// The table's `half` bodies: widened, computed in f32, rounded once.
    fn via_f32(f: impl Fn(f32, f32) -> f32) -> impl Fn(f16, f16) -> f16 {
        move |a, b| f16::from_f32(f(a.to_f32(), b.to_f32()))
    }

    #[test]
    fn arithmetic_equals_widen_compute_round() {
        check("add", step!(add), via_f32(|a, b| a + b));
        check("sub", step!(sub), via_f32(|a, b| a - b));
        check("mul", step!(mul), via_f32(|a, b| a * b));
        check("div", step!(div), via_f32(|a, b| a / b));
        check(
            "prelu",
            step!(prelu),
            via_f32(|x, s| if x < 0.0 { x * s } else { x }),
        );
    }

    #[test]
    fn max_and_min_compare_the_f16_values() {
        check("max_of", step!(max_of), |a, b| if a < b { b } else { a });
        check("min_of", step!(min_of), |a, b| if b < a { b } else { a });
    }
}
