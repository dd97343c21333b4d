//! The arithmetic each kind of element type brings to the op table's bodies: [`Int`] for the
//! integers, [`Real`] for `f32`/`f64` (16-bit floats compute through `f32`, see
//! [`super::half`]). The impls come from the element-type table (`dtype_table!`): a row of
//! kind `Int` or `Uint` is an [`Int`], a `Float` row with a 32- or 64-bit lane a [`Real`], a
//! `Float` row with a 16-bit lane a [`Half`](super::half::Half).
//!
//! Where a reference defines a result through C++ behaviour (a shift by more than the width,
//! a float cast out of range), the helper here says which behaviour is taken and why.

use std::ops::{BitAnd, BitOr, BitXor};

use crate::dtype::dtype_table;
use crate::exec::{per_line, Ahead, Slot};

/// An integer element type, with every integer body of the op table.
pub(crate) trait Int:
    Copy
    + Send
    + Sync
    + PartialOrd
    + Eq
    + Default
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + 'static
{
    /// Width in bits.
    const BITS: u32;
    fn wrapping_add(self, y: Self) -> Self;
    fn wrapping_sub(self, y: Self) -> Self;
    fn wrapping_mul(self, y: Self) -> Self;
    /// Truncated quotient; `MIN / -1` wraps to `MIN` (the divisor is never 0: refused first).
    fn wrapping_div(self, y: Self) -> Self;
    /// Truncated remainder (sign of the dividend); `MIN % -1 = 0`.
    fn wrapping_rem(self, y: Self) -> Self;
    /// Whether the value is below zero (always false for unsigned types).
    fn is_negative(self) -> bool;
    /// The value as `i128` (every integer type fits).
    fn to_i128(self) -> i128;
    /// The low bits of `v` (two's complement wrap).
    fn wrap_i128(v: i128) -> Self;
    /// The value as `f64` (rounded for 64-bit values past 2^53).
    fn to_f64(self) -> f64;
    /// `v` truncated toward zero, saturating at the type's range, NaN giving 0 (Rust's `as`;
    /// C++ leaves an out-of-range cast undefined).
    fn from_f64(v: f64) -> Self;
}

/// Floor division: the quotient rounded toward minus infinity (Python's `//`).
#[inline(always)]
pub(crate) fn floor_div<T: Int>(x: T, y: T) -> T {
    let q = x.wrapping_div(y);
    if x.wrapping_rem(y) != T::default() && x.is_negative() != y.is_negative() {
        q.wrapping_sub(T::wrap_i128(1))
    } else {
        q
    }
}

/// The floored remainder (sign of the divisor).
#[inline(always)]
pub(crate) fn floor_rem<T: Int>(x: T, y: T) -> T {
    let r = x.wrapping_rem(y);
    if r != T::default() && r.is_negative() != y.is_negative() {
        r.wrapping_add(y)
    } else {
        r
    }
}

/// OpenVINO's integer Power: `pow` in f64, cast back (2**-1 = 0, (-1)**-1 = -1; an
/// out-of-range result saturates).
#[inline(always)]
pub(crate) fn pow_via_f64<T: Int>(x: T, y: f64) -> T {
    T::from_f64(x.to_f64().powf(y))
}

/// numpy's integer power for a non-negative exponent (exact, wrapping: square and multiply
/// over all 64 bits of the exponent); a negative exponent, which numpy refuses, takes
/// OpenVINO's f64 route (the truncated real value, saturating).
#[inline(always)]
pub(crate) fn int_pow<T: Int>(x: T, y: i128) -> T {
    if y < 0 {
        return pow_via_f64(x, y as f64);
    }
    let (mut base, mut e, mut acc) = (x, y as u128, T::wrap_i128(1));
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    acc
}

/// OpenVINO's BitwiseLeftShift as its reference computes it: C++ `a << b`, with `a` and `b`
/// promoted to a 32-bit `int` (64-bit types stay 64-bit) and the count taken modulo that
/// width, as the x86 shift instruction does (C++ leaves counts past the width undefined;
/// this is what the reference's constant folding returns).
#[inline(always)]
pub(crate) fn ov_shift_left<T: Int>(x: T, b: T) -> T {
    // Shifted in i128 (no bit of a 64-bit value is lost for a count below 64), then wrapped
    // to the type: the promoted shift's low bits.
    T::wrap_i128(x.to_i128() << shift_count::<T>(b))
}

/// OpenVINO's BitwiseRightShift, as [`ov_shift_left`]: an arithmetic shift of the promoted
/// value for signed types, a logical one for unsigned types.
#[inline(always)]
pub(crate) fn ov_shift_right<T: Int>(x: T, b: T) -> T {
    // The value is sign- or zero-extended into i128, so an arithmetic shift there is the
    // promoted shift of either signedness.
    T::wrap_i128(x.to_i128() >> shift_count::<T>(b))
}

/// The count the x86 shift instruction uses: the low 5 bits (a promoted 32-bit operand) or 6
/// bits (64-bit).
#[inline(always)]
fn shift_count<T: Int>(b: T) -> u32 {
    let mask = if T::BITS == 64 { 63 } else { 31 };
    (b.to_i128() & mask) as u32
}

/// ONNX BitShift (opset 28): a right shift of a signed value is arithmetic, a left shift
/// drops the bits moved past the sign bit; a count of the width or more, or a negative one,
/// leaves only the sign fill: -1 for a right shift of a negative value, else 0.
#[inline(always)]
pub(crate) fn onnx_shift<T: Int>(x: T, b: T, left: bool) -> T {
    let s = b.to_i128();
    let v = x.to_i128();
    if s < 0 || s >= i128::from(T::BITS) {
        return T::wrap_i128(if !left && v < 0 { -1 } else { 0 });
    }
    if left {
        T::wrap_i128(v << s)
    } else {
        T::wrap_i128(v >> s)
    }
}

/// An exponent of ONNX Pow whose type differs from the base's, as a value the base's body
/// takes: integers exactly, floats as f64 (exact for every float type).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ExponentValue {
    Int(i128),
    Float(f64),
}

/// The element types that can be an exponent (every number type).
pub(crate) trait AsExponent {
    fn exponent(&self) -> Option<ExponentValue>;
}

/// The mean of a sum of `n` operands, as onnx.reference's `Mean` divides: floats in their
/// type, 16-bit floats in f32 and rounded once. (ONNX's Mean lists float types only.)
pub(crate) trait Mean {
    fn mean(self, n: usize) -> Self;
}

/// A 32- or 64-bit float.
pub(crate) trait Real:
    Copy
    + Send
    + Sync
    + PartialOrd
    + Default
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Rem<Output = Self>
    + 'static
{
    fn powf(self, y: Self) -> Self;
    fn is_nan(self) -> bool;
    fn copysign(self, sign: Self) -> Self;
    /// Round to nearest, ties to even (C's `nearbyint` in the default rounding mode).
    fn round_even(self) -> Self;
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
    fn abs(self) -> Self;
    /// `std`'s `round_ties_even` (the same values as [`Real::round_even`]).
    fn round_ties_even(self) -> Self;
    fn is_finite(self) -> bool;
    /// The gap between 1 and the next value (twice the unit roundoff).
    const EPSILON: Self;
    /// The smallest positive normal value.
    const MIN_POSITIVE: Self;
}

/// numpy's `mod` on floats (`npy_divmod`): `fmod`, moved onto the divisor's side when the
/// signs differ, and a zero result taking the divisor's sign. Not `x - y*floor(x/y)`: that
/// differs in the sign of zero and in the last bit.
#[inline(always)]
pub(crate) fn numpy_mod<T: Real>(x: T, y: T) -> T {
    let r = x % y;
    if y == T::default() {
        return r;
    }
    if r != T::default() {
        if (y < T::default()) != (r < T::default()) {
            r + y
        } else {
            r
        }
    } else {
        T::default().copysign(y)
    }
}

/// `x - y*floor(x/y)` in f64 (OpenVINO's reference FloorMod on floats).
#[inline(always)]
pub(crate) fn floor_mod_f64(x: f64, y: f64) -> f64 {
    x - y * (x / y).floor()
}

/// OpenVINO's reference FakeQuantize on one element (`levels_1` is `levels - 1` in `T`):
/// below or at the lower bound the low output, above the upper bound the high output,
/// else the input's level scaled onto the output range, in the reference's operation order.
#[inline(always)]
pub(crate) fn fake_quantize<T: Real>(x: T, il: T, ih: T, ol: T, oh: T, levels_1: T) -> T {
    let (lo, hi) = if ih < il { (ih, il) } else { (il, ih) };
    // Computed for every element and then chosen, so that the loop has no branch and
    // vectorises; the arithmetic is the reference's whichever value is chosen.
    let scaled = ((x - il) / (ih - il) * levels_1).round_even() / levels_1 * (oh - ol) + ol;
    if x <= lo {
        ol
    } else if x > hi {
        oh
    } else {
        scaled
    }
}

/// FakeQuantize's body on a 32/64-bit float: OpenVINO's reference per element
/// ([`fake_quantize`]), and a row under one set of bounds that gives the same bits with one
/// division per element instead of two.
pub(crate) struct FakeQuantize<T> {
    /// `levels - 1` in `T`.
    levels_1: T,
}

impl<T: Real> FakeQuantize<T> {
    pub(crate) fn new(levels_1: T) -> Self {
        FakeQuantize { levels_1 }
    }

    /// `1 / (ih - il)`, where the row may multiply by it: the range and its reciprocal are
    /// finite, non-zero and normal, so that the product carries the relative error
    /// [`QuantizeBody::row`] bounds. Else the row computes every element by the reference.
    fn reciprocal_span(il: T, ih: T) -> Option<T> {
        let span = ih - il;
        let recip = T::from_f64(1.0) / span;
        let normal = |v: T| v.is_finite() && v.abs() >= T::MIN_POSITIVE;
        (normal(span) && normal(recip)).then_some(recip)
    }
}

/// The element body of a five-operand op, and its row under splat bounds.
pub(crate) trait QuantizeBody<T>: Sync {
    fn element(&self, x: T, il: T, ih: T, ol: T, oh: T) -> T;

    /// `out[i] = element(x[i], bounds..)` for one set of bounds, rounding (where the body
    /// rounds) by `R`.
    #[inline(always)]
    fn row<S: Slot<T>, R: Rounding>(&self, out: &mut [S], x: &[T], [il, ih, ol, oh]: [T; 4])
    where
        T: Copy,
    {
        let ahead = Ahead::get();
        let line = per_line::<T>();
        for (out, x) in out.chunks_mut(line).zip(x.chunks(line)) {
            ahead.hint(x.as_ptr());
            for (o, &x) in out.iter_mut().zip(x) {
                o.put(self.element(x, il, ih, ol, oh));
            }
        }
    }
}

impl<T, F: Fn(T, T, T, T, T) -> T + Sync> QuantizeBody<T> for F {
    #[inline(always)]
    fn element(&self, x: T, il: T, ih: T, ol: T, oh: T) -> T {
        self(x, il, ih, ol, oh)
    }
}

/// How a row rounds to the nearest integer, ties to even: both give the same bits.
pub(crate) trait Rounding {
    fn round_even<T: Real>(t: T) -> T;
}

/// [`Real::round_even`]'s adds, for code compiled for the baseline ISA (no SSE4.1).
pub(crate) struct PortableRounding;

impl Rounding for PortableRounding {
    #[inline(always)]
    fn round_even<T: Real>(t: T) -> T {
        t.round_even()
    }
}

/// `round_ties_even`, one instruction (`vroundps`, `vrndscaleps`) in code compiled for AVX
/// or wider; a library call elsewhere.
pub(crate) struct InstructionRounding;

impl Rounding for InstructionRounding {
    #[inline(always)]
    fn round_even<T: Real>(t: T) -> T {
        t.round_ties_even()
    }
}

/// Elements a row decides at once whether to recompute by the reference.
const QUANTIZE_CHECK: usize = 16;

impl<T: Real> QuantizeBody<T> for FakeQuantize<T> {
    #[inline(always)]
    fn element(&self, x: T, il: T, ih: T, ol: T, oh: T) -> T {
        fake_quantize(x, il, ih, ol, oh, self.levels_1)
    }

    /// The reference divides twice per element: `q = (x - il) / (ih - il)`, then the level
    /// `k = round_even(q * L)` (`L = levels - 1`), then `k / L`. The row takes `q` as
    /// `(x - il) * (1 / (ih - il))` instead. Each of the reciprocal, that product and the
    /// reference's quotient lies within one unit roundoff `u` of its exact value, so the
    /// row's `t = q * L` lies within about `5u|t|` of the reference's. An element that
    /// does not clamp has `|t|` at most `L` (and a hair), so where `t` is farther than `8uL`
    /// from every half-integer, both round to the same level `k`, and from `k` on the row
    /// does what the reference does. Where it is not (or `t` is NaN), the group of
    /// [`QUANTIZE_CHECK`] elements is computed again by the reference. Elements that clamp
    /// to `ol` or `oh` take no level and need no check.
    #[inline(always)]
    fn row<S: Slot<T>, R: Rounding>(&self, out: &mut [S], x: &[T], [il, ih, ol, oh]: [T; 4]) {
        let exact = |out: &mut [S], x: &[T]| {
            for (o, &x) in out.iter_mut().zip(x) {
                o.put(self.element(x, il, ih, ol, oh));
            }
        };
        let Some(recip) = Self::reciprocal_span(il, ih) else {
            return exact(out, x);
        };
        let levels_1 = self.levels_1;
        let (lo, hi) = if ih < il { (ih, il) } else { (il, ih) };
        // Half a level less the slack: `|t - k|` below it decides the level.
        let decided = T::from_f64(0.5) - levels_1 * T::EPSILON * T::from_f64(4.0);
        let mut outs = out.chunks_exact_mut(QUANTIZE_CHECK);
        let mut xs = x.chunks_exact(QUANTIZE_CHECK);
        let ahead = Ahead::get();
        for (out, x) in (&mut outs).zip(&mut xs) {
            // The loop's arithmetic leaves the hardware prefetchers behind on some machines;
            // a hint per line keeps the stream's reads in flight (`exec::prefetch`).
            for line in x.chunks(per_line::<T>()) {
                ahead.hint(line.as_ptr());
            }
            let mut unsure = false;
            for (o, &x) in out.iter_mut().zip(x) {
                let t = (x - il) * recip * levels_1;
                let k = R::round_even(t);
                let scaled = k / levels_1 * (oh - ol) + ol;
                let (below, above) = (x <= lo, x > hi);
                let level_decided = (t - k).abs() < decided;
                unsure |= !below & !above & !level_decided;
                o.put(if below {
                    ol
                } else if above {
                    oh
                } else {
                    scaled
                });
            }
            if unsure {
                exact(out, x);
            }
        }
        exact(outs.into_remainder(), xs.remainder());
    }
}

/// numpy's `maximum` on 32/64-bit floats: the first NaN wins, and on a tie (`-0.0`, `0.0`)
/// the second operand.
#[inline(always)]
pub(crate) fn numpy_max<T: Real>(a: T, b: T) -> T {
    if a.is_nan() || a > b {
        a
    } else {
        b
    }
}

/// numpy's `minimum` on 32/64-bit floats (as [`numpy_max`]).
#[inline(always)]
pub(crate) fn numpy_min<T: Real>(a: T, b: T) -> T {
    if a.is_nan() || a < b {
        a
    } else {
        b
    }
}

/// numpy's `maximum` on f16 (its half loop compares with `>=`: on a tie the first operand);
/// bf16 takes the same rule.
#[inline(always)]
pub(crate) fn numpy_max_half<T: super::half::Half>(a: T, b: T) -> T {
    if a.widen().is_nan() || a >= b {
        a
    } else {
        b
    }
}

/// numpy's `minimum` on f16 (as [`numpy_max_half`]).
#[inline(always)]
pub(crate) fn numpy_min_half<T: super::half::Half>(a: T, b: T) -> T {
    if a.widen().is_nan() || a <= b {
        a
    } else {
        b
    }
}

/// `a < b ? b : a` (std::max: with a NaN the first operand wins; max(-0.0, 0.0) = -0.0).
#[inline(always)]
pub(crate) fn max_of<T: PartialOrd>(a: T, b: T) -> T {
    if a < b {
        b
    } else {
        a
    }
}

/// `b < a ? b : a` (std::min).
#[inline(always)]
pub(crate) fn min_of<T: PartialOrd>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}

macro_rules! int_impl {
    ($t:ty, $negative:expr) => {
        impl Int for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline(always)]
            fn wrapping_add(self, y: Self) -> Self {
                <$t>::wrapping_add(self, y)
            }
            #[inline(always)]
            fn wrapping_sub(self, y: Self) -> Self {
                <$t>::wrapping_sub(self, y)
            }
            #[inline(always)]
            fn wrapping_mul(self, y: Self) -> Self {
                <$t>::wrapping_mul(self, y)
            }
            #[inline(always)]
            fn wrapping_div(self, y: Self) -> Self {
                <$t>::wrapping_div(self, y)
            }
            #[inline(always)]
            fn wrapping_rem(self, y: Self) -> Self {
                <$t>::wrapping_rem(self, y)
            }
            #[inline(always)]
            fn is_negative(self) -> bool {
                let negative: fn($t) -> bool = $negative;
                negative(self)
            }
            #[inline(always)]
            fn to_i128(self) -> i128 {
                i128::from(self)
            }
            #[inline(always)]
            fn wrap_i128(v: i128) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
        }

        impl AsExponent for $t {
            fn exponent(&self) -> Option<ExponentValue> {
                Some(ExponentValue::Int(i128::from(*self)))
            }
        }
    };
}

macro_rules! real_impl {
    ($t:ty) => {
        impl Real for $t {
            #[inline(always)]
            fn powf(self, y: Self) -> Self {
                <$t>::powf(self, y)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn copysign(self, sign: Self) -> Self {
                <$t>::copysign(self, sign)
            }
            #[inline(always)]
            fn round_even(self) -> Self {
                // Below 2^(mantissa bits) in magnitude, adding and subtracting that power of
                // two leaves the magnitude rounded to an integer, ties to even (the default
                // rounding mode; the power is even). At or above it, and for NaN and the
                // infinities, the value is already its own rounding. This is exactly
                // `round_ties_even`, without the libm call the baseline ISA (no SSE4.1)
                // makes for it, so a loop over it vectorises.
                const INTEGRAL: $t = (1u64 << (<$t>::MANTISSA_DIGITS - 1)) as $t;
                let magnitude = self.abs();
                if magnitude < INTEGRAL {
                    ((magnitude + INTEGRAL) - INTEGRAL).copysign(self)
                } else {
                    self
                }
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn round_ties_even(self) -> Self {
                <$t>::round_ties_even(self)
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            const EPSILON: Self = <$t>::EPSILON;
            const MIN_POSITIVE: Self = <$t>::MIN_POSITIVE;
        }

        impl Mean for $t {
            #[inline(always)]
            fn mean(self, n: usize) -> Self {
                self / n as $t
            }
        }

        impl AsExponent for $t {
            fn exponent(&self) -> Option<ExponentValue> {
                Some(ExponentValue::Float(*self as f64))
            }
        }
    };
}

/// One element-type row's kind trait: integers [`Int`], 32/64-bit floats [`Real`]; 16-bit
/// floats are [`Half`](super::half::Half) (implemented beside their conversions), bool and
/// strings have no arithmetic.
macro_rules! kind_impl {
    (Int, $t:ty, $lane:tt) => {
        int_impl!($t, |x| x < 0);
    };
    (Uint, $t:ty, $lane:tt) => {
        int_impl!($t, |_| false);
    };
    (Float, $t:ty, u16) => {
        impl AsExponent for $t {
            fn exponent(&self) -> Option<ExponentValue> {
                Some(ExponentValue::Float(self.to_f64()))
            }
        }

        impl Mean for $t {
            #[inline(always)]
            fn mean(self, n: usize) -> Self {
                use super::half::Half;
                Self::narrow(self.widen() / n as f32)
            }
        }
    };
    (Float, $t:ty, $lane:tt) => {
        real_impl!($t);
    };
    ($kind:ident, $t:ty, $lane:tt) => {
        impl AsExponent for $t {
            fn exponent(&self) -> Option<ExponentValue> {
                None
            }
        }
    };
}

macro_rules! define_kinds {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        $(kind_impl!($kind, $t, $lane);)*
    };
}
dtype_table!(define_kinds!);

/// Checks a FakeQuantize row (`run(body, out, x, bounds)`) against the reference, element
/// by element, bit for bit: inputs on and beside every level's rounding boundary (where a
/// quotient by the reciprocal and the reference's may round apart), random inputs in and
/// around the range, NaNs, infinities, zeros and subnormals, under bounds in order and
/// reversed, tiny, huge, infinite and NaN, at levels from 2 to 2^32 + 1.
#[cfg(test)]
macro_rules! check_fake_quantize_rows {
    ($name:ident, $t:ty, $bits:ty) => {
        #[allow(clippy::type_complexity)]
        pub(crate) fn $name(run: &dyn Fn(&FakeQuantize<$t>, &mut [$t], &[$t], [$t; 4])) {
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            let mut random = move || {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^ (z >> 31)
            };
            let step = |v: $t, by: i64| <$t>::from_bits((v.to_bits() as i64 + by) as $bits);
            let bounds: [[$t; 4]; 10] = [
                [-1.0, 1.0, -1.5, 1.5],
                [0.0, 6.0, 0.0, 6.0],
                [2.5, -0.75, 10.0, -3.0],
                [-0.1, 0.3, -0.1, 0.3],
                [1e-30, 3e-30, -2.0, 2.0],
                [-1e30, 1e30, 0.0, 1.0],
                [1.0, 1.0, 0.0, 1.0],
                [0.0, <$t>::MIN_POSITIVE / 4.0, 0.0, 1.0],
                [<$t>::NEG_INFINITY, 1.0, 0.0, 1.0],
                [<$t>::NAN, 1.0, 0.0, 1.0],
            ];
            let mut checked = 0usize;
            for levels in [2u64, 3, 16, 255, 256, 1000, 65536, (1 << 32) + 1] {
                let levels_1 = <$t>::from_f64((levels - 1) as f64);
                let body = FakeQuantize::new(levels_1);
                for [il, ih, ol, oh] in bounds {
                    let span = ih - il;
                    let mut x: Vec<$t> = vec![
                        <$t>::NAN,
                        <$t>::from_bits(<$t>::NAN.to_bits() | 1),
                        -<$t>::NAN,
                        <$t>::INFINITY,
                        <$t>::NEG_INFINITY,
                        0.0,
                        -0.0,
                        <$t>::MIN_POSITIVE / 8.0,
                        il,
                        ih,
                    ];
                    // The boundaries between levels, from both sides.
                    for k in 0..levels.min(300) {
                        let tie =
                            il.to_f64() + span.to_f64() * (k as f64 + 0.5) / (levels - 1) as f64;
                        for by in -3..=3 {
                            x.push(step(<$t>::from_f64(tie), by));
                        }
                    }
                    for _ in 0..2000 {
                        let u = (random() >> 11) as f64 / (1u64 << 53) as f64;
                        x.push(<$t>::from_f64(
                            il.to_f64() + span.to_f64() * (1.5 * u - 0.25),
                        ));
                    }
                    // Not a whole number of groups: the tail takes the reference.
                    x.push(il);
                    let want: Vec<$t> =
                        x.iter().map(|&x| body.element(x, il, ih, ol, oh)).collect();
                    let mut got = vec![<$t>::default(); x.len()];
                    run(&body, &mut got, &x, [il, ih, ol, oh]);
                    for ((x, got), want) in x.iter().zip(&got).zip(&want) {
                        assert_eq!(
                            got.to_bits(),
                            want.to_bits(),
                            "{} levels {levels} bounds {:?} x {x:e}: {got:e} against {want:e}",
                            stringify!($t),
                            [il, ih, ol, oh],
                        );
                    }
                    checked += x.len();
                }
            }
            assert!(checked > 100_000);
        }
    };
}
#[cfg(test)]
check_fake_quantize_rows!(check_fake_quantize_rows_f32, f32, u32);
#[cfg(test)]
check_fake_quantize_rows!(check_fake_quantize_rows_f64, f64, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_follow_each_reference() {
        // OpenVINO's reference on i32 (measured): 1 << 64 = 1, 1 << 70 = 64, 1 << -1 = MIN,
        // -8 >> 33 = -4.
        assert_eq!(ov_shift_left(1i32, 64), 1);
        assert_eq!(ov_shift_left(1i32, 70), 64);
        assert_eq!(ov_shift_left(1i32, -1), i32::MIN);
        assert_eq!(ov_shift_right(-8i32, 33), -4);
        // Promotion: an i8 shifted by 8 loses its bits, a u8 right shift is logical.
        assert_eq!(ov_shift_left(1i8, 8), 0);
        assert_eq!(ov_shift_right(-128i8, 9), -1);
        assert_eq!(ov_shift_right(200u8, 1), 100);
        assert_eq!(ov_shift_left(1u64, 65), 2);
        assert_eq!(onnx_shift(1u64, 64, true), 0);
        assert_eq!(onnx_shift(u64::MAX, 64, false), 0);
        assert_eq!(onnx_shift(0x80u8, 7, false), 1);
    }

    /// The row without the first division against the reference, both roundings.
    #[test]
    fn fake_quantize_row_is_the_reference_bit_for_bit() {
        fn rows<R: Rounding>() {
            check_fake_quantize_rows_f32(&|body, out, x, bounds| {
                body.row::<_, R>(crate::exec::as_init(out), x, bounds)
            });
            check_fake_quantize_rows_f64(&|body, out, x, bounds| {
                body.row::<_, R>(crate::exec::as_init(out), x, bounds)
            });
        }
        rows::<PortableRounding>();
        rows::<InstructionRounding>();
    }

    #[test]
    fn numpy_mod_keeps_the_divisors_sign() {
        assert_eq!(numpy_mod(-0.0f32, 3.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(numpy_mod(0.0f32, -3.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(numpy_mod(3.0f32, -3.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(numpy_mod(-1e-8f32, 3.0), 3.0);
        assert_eq!(numpy_mod(-5.0f64, f64::INFINITY), f64::INFINITY);
        assert!(numpy_mod(5.0f64, 0.0).is_nan());
    }

    #[test]
    fn int_pow_is_exact_and_wraps() {
        assert_eq!(int_pow(3i32, 4), 81);
        assert_eq!(int_pow(2u8, 9), 0);
        assert_eq!(int_pow(3u8, 5), 243);
        assert_eq!(int_pow(-1i64, 1 << 40 | 1), -1);
        assert_eq!(int_pow(2i32, -1), 0);
        assert_eq!(int_pow(-1i32, -3), -1);
    }

    /// `round_even` against std's `round_ties_even` (libm's roundeven), bit for bit: every
    /// half-integer and its neighbours around zero and around the magnitude where values
    /// become integral, signed zeros, NaN, the infinities, and a spread of random bit patterns.
    #[test]
    fn round_even_is_round_ties_even_bit_for_bit() {
        macro_rules! check {
            ($name:ident, $t:ty) => {
                fn $name(x: $t) {
                    let (got, want) = (x.round_even(), x.round_ties_even());
                    assert!(
                        got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                        "{} {x:e} ({:#x}): {got:e} against {want:e}",
                        stringify!($t),
                        x.to_bits()
                    );
                }
            };
        }
        check!(check32, f32);
        check!(check64, f64);
        let mut near = vec![0.0f64, 0.5, 1.5, 2.5, 0.49999999999999994, 3.0];
        for k in 0..4096 {
            near.push(k as f64 * 0.5);
        }
        for e in [23, 24, 52, 53] {
            let p = (1u64 << e) as f64;
            for d in -8..=8 {
                near.push(p + d as f64 * 0.5);
                near.push(p + d as f64 * 0.25);
            }
        }
        for &v in &near {
            for s in [v, -v] {
                check64(s);
                check64(next_up(s));
                check64(next_down(s));
                let f = s as f32;
                check32(f);
                check32(f32::from_bits(f.to_bits().wrapping_add(1)));
                check32(f32::from_bits(f.to_bits().wrapping_sub(1)));
            }
        }
        for x in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
        ] {
            check64(x);
            check64(-x);
            check32(x as f32);
            check32(-(x as f32));
        }
        let mut bits = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            bits ^= bits << 13;
            bits ^= bits >> 7;
            bits ^= bits << 17;
            check64(f64::from_bits(bits));
            check32(f32::from_bits(bits as u32));
            // Magnitudes where rounding matters, in both types.
            let small = (bits >> 11) as f64 / (1u64 << 53) as f64 * 2f64.powi((bits % 60) as i32);
            check64(small);
            check64(-small);
            check32(small as f32);
        }
    }

    fn next_up(x: f64) -> f64 {
        if x.is_nan() || x == f64::INFINITY {
            x
        } else if x == 0.0 {
            f64::from_bits(1)
        } else if x > 0.0 {
            f64::from_bits(x.to_bits() + 1)
        } else {
            f64::from_bits(x.to_bits() - 1)
        }
    }

    fn next_down(x: f64) -> f64 {
        -next_up(-x)
    }
}
