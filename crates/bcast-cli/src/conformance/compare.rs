//! Exact comparison of an expected and an actual tensor, with a reason that locates the first
//! difference.

use std::fmt::Debug;

use half::{bf16, f16};
use ndarray::{ArrayD, Dimension};

use bcast::Dims;
use bcast::Tensor;

/// `Ok` when `actual` has the dtype, shape and elements of `expected`: numbers by their bits
/// (a NaN equals a NaN with the same payload, `-0.0 != 0.0`), strings by value.
///
/// # Errors
/// The first of: a dtype difference, a shape difference, and the count of differing elements
/// with the first one's index and both values.
pub(crate) fn exact(expected: &Tensor, actual: &Tensor) -> Result<(), String> {
    if expected.dtype() != actual.dtype() {
        return Err(format!(
            "dtype differs: expected {}, got {}",
            expected.dtype(),
            actual.dtype()
        ));
    }
    if expected.shape() != actual.shape() {
        return Err(format!(
            "shape differs: expected {}, got {}",
            Dims(expected.shape().to_vec()),
            Dims(actual.shape().to_vec())
        ));
    }
    let diff = match (expected, actual) {
        (Tensor::Bool(e), Tensor::Bool(a)) => differences(e, a, |x, y| x == y, plain),
        (Tensor::I8(e), Tensor::I8(a)) => differences(e, a, |x, y| x == y, plain),
        (Tensor::I16(e), Tensor::I16(a)) => differences(e, a, |x, y| x == y, plain),
        (Tensor::I32(e), Tensor::I32(a)) => differences(e, a, |x, y| x == y, plain),
        (Tensor::I64(e), Tensor::I64(a)) => differences(e, a, |x, y| x == y, plain),
        (Tensor::U8(e), Tensor::U8(a)) => differences(e, a, |x, y| x == y, plain),
        (Tensor::U16(e), Tensor::U16(a)) => differences(e, a, |x, y| x == y, plain),
        (Tensor::U32(e), Tensor::U32(a)) => differences(e, a, |x, y| x == y, plain),
        (Tensor::U64(e), Tensor::U64(a)) => differences(e, a, |x, y| x == y, plain),
        (Tensor::F16(e), Tensor::F16(a)) => differences(
            e,
            a,
            |x, y| x.to_bits() == y.to_bits(),
            |v: &f16| format!("{v:?} (bits {:#06x})", v.to_bits()),
        ),
        (Tensor::BF16(e), Tensor::BF16(a)) => differences(
            e,
            a,
            |x, y| x.to_bits() == y.to_bits(),
            |v: &bf16| format!("{v:?} (bits {:#06x})", v.to_bits()),
        ),
        (Tensor::F32(e), Tensor::F32(a)) => differences(
            e,
            a,
            |x, y| x.to_bits() == y.to_bits(),
            |v: &f32| format!("{v:?} (bits {:#010x})", v.to_bits()),
        ),
        (Tensor::F64(e), Tensor::F64(a)) => differences(
            e,
            a,
            |x, y| x.to_bits() == y.to_bits(),
            |v: &f64| format!("{v:?} (bits {:#018x})", v.to_bits()),
        ),
        (Tensor::String(e), Tensor::String(a)) => differences(e, a, |x, y| x == y, plain),
        // Equal dtypes were checked above, so the variants match.
        _ => None,
    };
    match diff {
        None => Ok(()),
        Some(d) => Err(format!(
            "{} of {} elements differ; first at index {}: expected {}, got {}",
            d.count,
            expected.len(),
            Dims(d.index),
            d.expected,
            d.actual
        )),
    }
}

/// `Ok` when `actual` has the dtype and shape of `expected` and every float element is
/// within `atol` absolutely or `rtol` relatively (approx's `relative_eq`; NaN equals NaN,
/// an infinity only itself); non-float elements must be exact.
///
/// # Errors
/// As [`exact`], with the tolerances in the reason.
pub(crate) fn close(
    expected: &Tensor,
    actual: &Tensor,
    rtol: f64,
    atol: f64,
) -> Result<(), String> {
    fn as_f64(t: &Tensor) -> Option<Vec<f64>> {
        Some(match t {
            Tensor::F16(a) => a.iter().map(|v| v.to_f64()).collect(),
            Tensor::BF16(a) => a.iter().map(|v| v.to_f64()).collect(),
            Tensor::F32(a) => a.iter().map(|&v| f64::from(v)).collect(),
            Tensor::F64(a) => a.iter().copied().collect(),
            _ => return None,
        })
    }
    if expected.dtype() != actual.dtype() || expected.shape() != actual.shape() {
        return exact(expected, actual);
    }
    let (Some(e), Some(a)) = (as_f64(expected), as_f64(actual)) else {
        return exact(expected, actual);
    };
    let near = |x: f64, y: f64| {
        (x.is_nan() && y.is_nan())
            || approx::relative_eq!(x, y, epsilon = atol, max_relative = rtol)
    };
    let bad: Vec<usize> = (0..e.len()).filter(|&i| !near(e[i], a[i])).collect();
    match bad.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{} of {} elements differ beyond rtol {rtol:e} / atol {atol:e}; first at flat index {i}: expected {}, got {}",
            bad.len(),
            e.len(),
            e[i],
            a[i]
        )),
    }
}

/// `Ok` when `actual` has the dtype and shape of `expected` and every float element is within
/// `ulp` units in the last place of the expected one (counted on the ordered bit patterns, so
/// `-0.0` and `0.0` are 1 ulp apart; a NaN matches any NaN, an infinity only itself or the
/// finite value next to it); non-float elements must be exact.
///
/// # Errors
/// As [`exact`], with the allowed distance in the reason.
pub(crate) fn within_ulp(expected: &Tensor, actual: &Tensor, ulp: u32) -> Result<(), String> {
    /// Each float as (is NaN, position on the ordered line of bit patterns, shown value).
    fn ordered(t: &Tensor) -> Option<Vec<(bool, i128, String)>> {
        fn key(bits: u64, sign: u64) -> i128 {
            let magnitude = i128::from(bits & !sign);
            if bits & sign != 0 {
                -magnitude
            } else {
                magnitude
            }
        }
        Some(match t {
            Tensor::F16(a) => a
                .iter()
                .map(|v| {
                    (
                        v.is_nan(),
                        key(u64::from(v.to_bits()), 0x8000),
                        format!("{v:?}"),
                    )
                })
                .collect(),
            Tensor::BF16(a) => a
                .iter()
                .map(|v| {
                    (
                        v.is_nan(),
                        key(u64::from(v.to_bits()), 0x8000),
                        format!("{v:?}"),
                    )
                })
                .collect(),
            Tensor::F32(a) => a
                .iter()
                .map(|v| {
                    (
                        v.is_nan(),
                        key(u64::from(v.to_bits()), 1 << 31),
                        format!("{v:?}"),
                    )
                })
                .collect(),
            Tensor::F64(a) => a
                .iter()
                .map(|v| (v.is_nan(), key(v.to_bits(), 1 << 63), format!("{v:?}")))
                .collect(),
            _ => return None,
        })
    }
    if expected.dtype() != actual.dtype() || expected.shape() != actual.shape() {
        return exact(expected, actual);
    }
    let (Some(e), Some(a)) = (ordered(expected), ordered(actual)) else {
        return exact(expected, actual);
    };
    let near = |x: &(bool, i128, String), y: &(bool, i128, String)| match (x.0, y.0) {
        (true, true) => true,
        (false, false) => (x.1 - y.1).abs() <= i128::from(ulp),
        _ => false,
    };
    let bad: Vec<usize> = (0..e.len()).filter(|&i| !near(&e[i], &a[i])).collect();
    match bad.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{} of {} elements differ by more than {ulp} ulp; first at flat index {i}: expected {}, got {}",
            bad.len(),
            e.len(),
            e[i].2,
            a[i].2
        )),
    }
}

fn plain<T: Debug>(v: &T) -> String {
    format!("{v:?}")
}

/// Where two same-shaped arrays first differ, and how often they do.
struct Difference {
    count: usize,
    index: Vec<usize>,
    expected: String,
    actual: String,
}

fn differences<T>(
    expected: &ArrayD<T>,
    actual: &ArrayD<T>,
    same: impl Fn(&T, &T) -> bool,
    show: impl Fn(&T) -> String,
) -> Option<Difference> {
    let mut first: Option<Difference> = None;
    let mut count = 0;
    // Both arrays are walked in logical (row-major) order whatever their memory layout.
    for ((index, e), a) in expected.indexed_iter().zip(actual.iter()) {
        if !same(e, a) {
            count += 1;
            if first.is_none() {
                first = Some(Difference {
                    count: 0,
                    index: index.slice().to_vec(),
                    expected: show(e),
                    actual: show(a),
                });
            }
        }
    }
    first.map(|d| Difference { count, ..d })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn t<T>(a: ArrayD<T>) -> Tensor
    where
        Tensor: From<ArrayD<T>>,
    {
        Tensor::from(a)
    }

    #[test]
    fn nan_equals_itself_by_bits_but_not_another_payload() {
        let nan = f32::from_bits(0x7fc0_0001);
        let e = t(array![nan, 1.0].into_dyn());
        assert!(exact(&e, &t(array![nan, 1.0].into_dyn())).is_ok());
        let err = exact(&e, &t(array![f32::NAN, 1.0].into_dyn())).unwrap_err();
        assert_eq!(
            err,
            "1 of 2 elements differ; first at index [0]: expected NaN (bits 0x7fc00001), got NaN (bits 0x7fc00000)"
        );
    }

    #[test]
    fn within_ulp_allows_one_step_and_nan_for_nan() {
        let one = 1.0f32;
        let next = f32::from_bits(one.to_bits() + 1);
        let after = f32::from_bits(one.to_bits() + 2);
        let e = t(array![one, f32::NAN].into_dyn());
        assert!(within_ulp(
            &e,
            &t(array![next, f32::from_bits(0x7fc0_0001)].into_dyn()),
            1
        )
        .is_ok());
        assert!(within_ulp(&e, &t(array![after, f32::NAN].into_dyn()), 1).is_err());
        assert!(within_ulp(&e, &t(array![one, 1.0].into_dyn()), 1).is_err());
        let ints = t(array![1i32].into_dyn());
        assert!(within_ulp(&ints, &t(array![2i32].into_dyn()), 1).is_err());
    }

    #[test]
    fn negative_zero_is_not_zero() {
        let e = t(array![[-0.0f64, 0.0]].into_dyn());
        assert!(exact(&e, &t(array![[0.0f64, 0.0]].into_dyn())).is_err());
    }

    #[test]
    fn dtype_and_shape_are_checked_first() {
        let e = t(array![1i32, 2].into_dyn());
        assert_eq!(
            exact(&e, &t(array![1i64, 2].into_dyn())).unwrap_err(),
            "dtype differs: expected i32, got i64"
        );
        assert_eq!(
            exact(&e, &t(array![[1i32, 2]].into_dyn())).unwrap_err(),
            "shape differs: expected [2], got [1,2]"
        );
    }

    #[test]
    fn counts_every_difference_and_names_the_first_index() {
        let e = t(array![[1u8, 2, 3], [4, 5, 6]].into_dyn());
        let a = t(array![[1u8, 2, 3], [4, 0, 0]].into_dyn());
        assert_eq!(
            exact(&e, &a).unwrap_err(),
            "2 of 6 elements differ; first at index [1,1]: expected 5, got 0"
        );
    }

    #[test]
    fn layouts_do_not_matter() {
        let c = array![[1i16, 2, 3], [4, 5, 6]].into_dyn();
        let f = c.t().as_standard_layout().t().to_owned();
        assert!(!f.is_standard_layout());
        assert!(exact(&t(c), &t(f)).is_ok());
    }

    #[test]
    fn strings_compare_by_value() {
        let e = t(array!["a".to_string(), "bé".into()].into_dyn());
        assert!(exact(&e, &t(array!["a".to_string(), "bé".into()].into_dyn())).is_ok());
        assert!(exact(&e, &t(array!["a".to_string(), "b".into()].into_dyn())).is_err());
    }
}
