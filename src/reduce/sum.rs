//! The element types a gradient can be summed in, and how each one accumulates.
//!
//! Every type sums in an accumulator type: integers in themselves with wrapping adds (numpy's
//! `sum` with `dtype=` the input type), `f16` and `bf16` in `f32`, `f32` and `f64` in `f64`,
//! each rounded once at the end. Float sums are pairwise (see the callers), so the rounding
//! error grows with the logarithm of the number of terms, not linearly.

use half::slice::HalfFloatSliceExt;
use half::{bf16, f16};

use crate::element::Element;

/// Terms summed by [`Sum::sum_block`] and converted per call by the half-float paths: small
/// enough for a stack buffer, large enough that the pairwise recursion above it is cheap.
pub(crate) const BLOCK: usize = 128;

/// An accumulator: a number with a zero and an addition.
pub trait Acc: Copy + Send + Sync + 'static {
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

    /// The sum of at most [`BLOCK`] terms in eight independent lanes (so the compiler can
    /// vectorise; lanes are combined pairwise).
    #[inline]
    fn sum_block(src: &[Self]) -> Self::Acc {
        debug_assert!(src.len() <= BLOCK);
        lanes_sum(src, Self::widen)
    }

    /// `acc[i] = src[i]` (widened); the lengths are equal.
    #[inline]
    fn set_row(acc: &mut [Self::Acc], src: &[Self]) {
        debug_assert_eq!(acc.len(), src.len());
        for (a, &s) in acc.iter_mut().zip(src) {
            *a = s.widen();
        }
    }

    /// `acc[i] += src[i]` (widened); the lengths are equal.
    #[inline]
    fn add_row(acc: &mut [Self::Acc], src: &[Self]) {
        debug_assert_eq!(acc.len(), src.len());
        for (a, &s) in acc.iter_mut().zip(src) {
            *a = a.add(s.widen());
        }
    }
}

#[inline(always)]
fn lanes_sum<T: Copy, A: Acc>(src: &[T], widen: impl Fn(T) -> A) -> A {
    let mut lanes = [A::ZERO; 8];
    let mut chunks = src.chunks_exact(8);
    for chunk in &mut chunks {
        for (lane, &v) in lanes.iter_mut().zip(chunk) {
            *lane = lane.add(widen(v));
        }
    }
    let [a, b, c, d, e, f, g, h] = lanes;
    let mut sum = a.add(b).add(c.add(d)).add(e.add(f).add(g.add(h)));
    for &v in chunks.remainder() {
        sum = sum.add(widen(v));
    }
    sum
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
        }
    )*};
}
int_sum!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Sum for f32 {
    // f64 costs nothing here: the sum is bound by reading memory, and it leaves one rounding.
    type Acc = f64;
    #[inline(always)]
    fn widen(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn narrow(acc: f64) -> f32 {
        acc as f32
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
}

// The half types convert a block at a time: `half` vectorises slice conversions (F16C when
// the CPU has it), not single ones.
macro_rules! half_sum {
    ($($t:ty),*) => {$(
        impl Sum for $t {
            type Acc = f32;
            #[inline(always)]
            fn widen(self) -> f32 {
                self.to_f32()
            }
            #[inline(always)]
            fn narrow(acc: f32) -> $t {
                <$t>::from_f32(acc)
            }
            #[inline]
            fn sum_block(src: &[Self]) -> f32 {
                let mut buf = [0f32; BLOCK];
                let buf = &mut buf[..src.len()];
                src.convert_to_f32_slice(buf);
                lanes_sum(buf, |v| v)
            }
            #[inline]
            fn set_row(acc: &mut [f32], src: &[Self]) {
                src.convert_to_f32_slice(acc);
            }
            #[inline]
            fn add_row(acc: &mut [f32], src: &[Self]) {
                let mut buf = [0f32; BLOCK];
                for (a, s) in acc.chunks_mut(BLOCK).zip(src.chunks(BLOCK)) {
                    let b = &mut buf[..s.len()];
                    s.convert_to_f32_slice(b);
                    for (x, &y) in a.iter_mut().zip(b.iter()) {
                        *x += y;
                    }
                }
            }
        }
    )*};
}
half_sum!(f16, bf16);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_in_their_own_type() {
        assert_eq!(<i8 as Sum>::sum_block(&[100, 100, 100]), 44);
        assert_eq!(<u8 as Sum>::sum_block(&[255; 9]), 247);
        assert_eq!(<i64 as Sum>::sum_block(&[i64::MAX, 1]), i64::MIN);
    }

    #[test]
    fn halves_accumulate_in_f32() {
        // 2048 + 1 is not an f16 (spacing 2 there): summed in f16 the ones would all round
        // away; in f32 they count.
        let mut v = vec![f16::from_f32(2048.0)];
        v.extend(std::iter::repeat(f16::ONE).take(100));
        assert_eq!(<f16 as Sum>::sum_block(&v), 2148.0);
        let mut acc = [0f32; 3];
        <bf16 as Sum>::set_row(&mut acc, &[bf16::from_f32(256.0); 3]);
        <bf16 as Sum>::add_row(&mut acc, &[bf16::ONE; 3]);
        assert_eq!(acc, [257.0; 3]);
    }

    #[test]
    fn f32_accumulates_in_f64() {
        // 2^24 + 1 is not an f32; the f64 accumulator keeps it until the final rounding.
        let v = [16_777_216f32, 1.0, 1.0];
        assert_eq!(<f32 as Sum>::sum_block(&v), 16_777_218.0);
    }
}
