//! f32 arithmetic in AVX-512 registers, 16 lanes a register, for the f32 register chains
//! (`chain.rs`) where the strategy's arithmetic width is AVX-512 (the [`Avx512`] token).
//!
//! The chain's generic step (`lanes` over `[f32; W]`) is left to the vectoriser, which
//! compiled it to 16-byte registers even with AVX2 enabled: eight instructions per op per
//! 32 lanes, and an indirect jump per op per 32 lanes, which a memory-bound chain cannot
//! hide at one thread. These bodies name the 64-byte instructions, so a group of 64 lanes
//! (four registers) takes one instruction per register per op and one jump per op.
//!
//! Each body is the table's `float` body on 16 lanes, the same IEEE operation in the same
//! operand order, so the bits are the op alone's:
//!
//! - `+ - * /`: one correctly rounded IEEE operation, as the scalar one; with two NaN
//!   operands x86 keeps the first operand's payload in both.
//! - Maximum `if x < y { y } else { x }`: `vmaxps y, x` returns its first operand where it is
//!   greater, else its second, which is `x` for NaNs and equal zeros alike.
//!   Minimum `if y < x { y } else { x }` is `vminps y, x` the same way.
//! - SquaredDifference `(x - y) * (x - y)`: the difference computed once and squared, the
//!   same two roundings.
//! - PRelu `if x < 0 { x * s } else { x }`: an ordered compare (false for NaN) and the
//!   product taken only in those lanes; the other lanes keep `x`'s bits.
//!
//! `tests` below checks every body against the scalar formula on every class of value, and
//! `tests/expression.rs` every chain against the ops one by one.

use std::arch::x86_64::{
    __m512, _mm512_cmp_ps_mask, _mm512_div_ps, _mm512_loadu_ps, _mm512_mask_mul_ps, _mm512_max_ps,
    _mm512_min_ps, _mm512_mul_ps, _mm512_setzero_ps, _mm512_storeu_ps, _mm512_sub_ps, _CMP_LT_OQ,
};

#[allow(unused_imports)]
pub(crate) use crate::exec::isa::Avx512;

/// 16 f32 values in one register.
pub(crate) type F32x16 = __m512;

/// Lanes of f32 in one [`F32x16`].
pub(crate) const LANES: usize = 16;

/// `x + y`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn add(x: F32x16, y: F32x16) -> F32x16 {
    std::arch::x86_64::_mm512_add_ps(x, y)
}

/// `x - y`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn sub(x: F32x16, y: F32x16) -> F32x16 {
    _mm512_sub_ps(x, y)
}

/// `x * y`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn mul(x: F32x16, y: F32x16) -> F32x16 {
    _mm512_mul_ps(x, y)
}

/// `x / y`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn div(x: F32x16, y: F32x16) -> F32x16 {
    _mm512_div_ps(x, y)
}

/// `if x < y { y } else { x }`: the table's `max_of`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn max_of(x: F32x16, y: F32x16) -> F32x16 {
    _mm512_max_ps(y, x)
}

/// `if y < x { y } else { x }`: the table's `min_of`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn min_of(x: F32x16, y: F32x16) -> F32x16 {
    _mm512_min_ps(y, x)
}

/// `(x - y) * (x - y)`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn squared_difference(x: F32x16, y: F32x16) -> F32x16 {
    let d = _mm512_sub_ps(x, y);
    _mm512_mul_ps(d, d)
}

/// `if x < 0 { x * s } else { x }`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn prelu(x: F32x16, s: F32x16) -> F32x16 {
    let negative = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, _mm512_setzero_ps());
    _mm512_mask_mul_ps(x, negative, x, s)
}

/// `acc = f(acc, x)` (`f(x, acc)` when the running value is the second operand), 16 lanes at
/// a time: the chain's step on `W` f32 lanes (`W` a multiple of 16).
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn registers<X: Copy, const W: usize>(
    f: impl Fn(F32x16, F32x16) -> F32x16,
    running_first: bool,
    acc: &mut [X; W],
    x: &[X; W],
) {
    // The chain's element type is generic where the table's arms are generated; only f32
    // reaches here (`F32x16Lanes`).
    debug_assert!(W.is_multiple_of(LANES) && std::mem::size_of::<X>() == 4);
    for c in 0..W / LANES {
        // SAFETY: lanes `c * 16..c * 16 + 16` lie inside both arrays of 4-byte values (`W` is
        // a multiple of 16); unaligned loads and stores.
        unsafe {
            let a = _mm512_loadu_ps(acc.as_ptr().add(c * LANES).cast());
            let b = _mm512_loadu_ps(x.as_ptr().add(c * LANES).cast());
            let r = if running_first { f(a, b) } else { f(b, a) };
            _mm512_storeu_ps(acc.as_mut_ptr().add(c * LANES).cast(), r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every class of f32 value: zeros, subnormals, normals near 1 and near the largest,
    /// infinities, quiet and signalling NaNs with payloads, both signs; then spread bits.
    fn values() -> Vec<u32> {
        let mut v = vec![
            0x0000_0000,
            0x8000_0000,
            0x0000_0001,
            0x8000_0001,
            0x007f_ffff,
            0x807f_ffff,
            0x0080_0000,
            0x8080_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x3f80_0001,
            0x3f7f_ffff,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0000,
            0x7fc0_1234,
            0x7fa0_0001,
            0xff80_0001,
            0x4000_0000,
            0x4040_0000,
            0x5f00_0000,
            0x1f00_0000,
            0xc000_0000,
        ];
        let mut s = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..230 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push((s >> 16) as u32);
        }
        v
    }

    /// A body as a chain step on 16 lanes (running value first), callable where the CPU
    /// has the features.
    macro_rules! step {
        ($body:path) => {{
            #[target_feature(enable = "avx512f")]
            fn run(x: &mut [f32; LANES], y: &[f32; LANES]) {
                registers(|a, b| $body(a, b), true, x, y)
            }
            // SAFETY: `check` calls it only after finding the token.
            |x: &mut [f32; LANES], y: &[f32; LANES]| unsafe { run(x, y) }
        }};
    }

    /// `step` on every pair of [`values`], against the scalar `expect` per lane, bit for bit.
    fn check(
        name: &str,
        step: impl Fn(&mut [f32; LANES], &[f32; LANES]),
        expect: impl Fn(f32, f32) -> f32,
    ) {
        if Avx512::detect().is_none() {
            eprintln!("{name}: this CPU has no AVX-512; not checked");
            return;
        }
        let vals = values();
        for &a in &vals {
            for chunk in vals.chunks(LANES) {
                let mut x = [f32::from_bits(a); LANES];
                let mut y = [0.0_f32; LANES];
                for (y, &b) in y.iter_mut().zip(chunk) {
                    *y = f32::from_bits(b);
                }
                step(&mut x, &y);
                for (k, &b) in chunk.iter().enumerate() {
                    let want = expect(f32::from_bits(a), f32::from_bits(b)).to_bits();
                    let got = x[k].to_bits();
                    // Where two NaNs meet, which payload comes out is left open by IEEE 754
                    // and by the operand order the compiler gives the scalar instruction (it
                    // may swap a commutative one): either operand's, quieted, is the op's.
                    let both_nan = f32::from_bits(a).is_nan() && f32::from_bits(b).is_nan();
                    let quiet = |v: u32| v | 0x0040_0000;
                    assert!(
                        got == want || (both_nan && (got == quiet(a) || got == quiet(b))),
                        "{name}({a:#010x}, {b:#010x}) = {got:#010x}, want {want:#010x}"
                    );
                }
            }
        }
    }

    #[test]
    fn arithmetic_equals_the_scalar_operation() {
        check("add", step!(add), |a, b| a + b);
        check("sub", step!(sub), |a, b| a - b);
        check("mul", step!(mul), |a, b| a * b);
        check("div", step!(div), |a, b| a / b);
        check("squared_difference", step!(squared_difference), |a, b| {
            (a - b) * (a - b)
        });
        check(
            "prelu",
            step!(prelu),
            |x, s| if x < 0.0 { x * s } else { x },
        );
    }

    #[test]
    fn max_and_min_compare_as_the_table_does() {
        check("max_of", step!(max_of), |a, b| if a < b { b } else { a });
        check("min_of", step!(min_of), |a, b| if b < a { b } else { a });
    }
}
