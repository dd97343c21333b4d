//! Shape arithmetic that never overflows and never divides.

use crate::error::{BroadcastError, Dims};

/// Number of elements of `shape`, or [`BroadcastError::ShapeOverflow`] if the shape is too
/// large to be an array.
///
/// A rank-0 shape has one element. As in ndarray, the product of the non-zero dimensions
/// must not exceed `isize::MAX` even when a zero dimension makes the element count 0, so
/// every shape that passes can back an `ndarray::ArrayD`.
pub fn checked_len(shape: &[usize]) -> Result<usize, BroadcastError> {
    // One pass: this runs twice in every plan, and a plan of a small broadcast is most of
    // its cost.
    let mut nonzero = Some(1usize);
    let mut has_zero = false;
    for &d in shape {
        if d == 0 {
            has_zero = true;
        } else {
            nonzero = nonzero.and_then(|n| n.checked_mul(d));
        }
    }
    match nonzero {
        Some(n) if n <= isize::MAX as usize => Ok(if has_zero { 0 } else { n }),
        _ => Err(BroadcastError::ShapeOverflow {
            shape: Dims(shape.to_vec()),
        }),
    }
}

/// Row-major (C-order) element strides of a contiguous tensor of `shape`.
///
/// # Errors
/// [`BroadcastError::ShapeOverflow`] if the shape's element count does not fit in `usize`.
// Planners compute strides on the fly (`StridePlan::finish_from_source_axes`); this is the
// reference form, for the tests and the test-only plan builders.
#[cfg(test)]
pub(crate) fn contiguous_strides(shape: &[usize]) -> Result<Vec<usize>, BroadcastError> {
    checked_len(shape)?;
    let mut strides = vec![0usize; shape.len()];
    let mut acc = 1usize;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        // Cannot overflow: the full product was checked above, and a zero dim keeps acc at
        // or below the checked partial products.
        acc = acc.saturating_mul(d.max(1));
    }
    Ok(strides)
}

/// Converts OpenVINO `T_SHAPE` values (any integer type) into a shape.
///
/// # Errors
/// [`BroadcastError::NegativeValue`] for a value below zero, [`BroadcastError::ValueTooLarge`]
/// for one that does not fit in `usize`.
///
/// ```
/// assert_eq!(bcast::shape_from_ints(&[1i64, 16, 50, 50]).unwrap(), vec![1, 16, 50, 50]);
/// assert!(bcast::shape_from_ints(&[2i32, -1]).is_err());
/// ```
pub fn shape_from_ints<I>(values: &[I]) -> Result<Vec<usize>, BroadcastError>
where
    I: Copy + TryInto<usize> + PartialOrd + Default + std::fmt::Display,
{
    ints_to_usize("shape", values)
}

/// Converts axis values (OpenVINO `axes_mapping`, any integer type) into axes; negative values
/// are an error, never normalised.
///
/// # Errors
/// As [`shape_from_ints`].
pub fn axes_from_ints<I>(values: &[I]) -> Result<Vec<usize>, BroadcastError>
where
    I: Copy + TryInto<usize> + PartialOrd + Default + std::fmt::Display,
{
    ints_to_usize("axes", values)
}

fn ints_to_usize<I>(what: &'static str, values: &[I]) -> Result<Vec<usize>, BroadcastError>
where
    I: Copy + TryInto<usize> + PartialOrd + Default + std::fmt::Display,
{
    values
        .iter()
        .enumerate()
        .map(|(index, &v)| {
            if v < I::default() {
                return Err(BroadcastError::NegativeValue {
                    what,
                    index,
                    value: v.to_string(),
                });
            }
            v.try_into().map_err(|_| BroadcastError::ValueTooLarge {
                what,
                index,
                value: v.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_dim_gives_zero_elements() {
        assert_eq!(checked_len(&[1 << 40, 0, 1 << 20]).unwrap(), 0);
    }

    #[test]
    fn zero_dim_does_not_hide_an_overflow_of_the_rest() {
        assert!(checked_len(&[usize::MAX, 0, 2]).is_err());
    }

    #[test]
    fn overflowing_product_is_an_error() {
        assert!(matches!(
            checked_len(&[1 << 40, 1 << 40]),
            Err(BroadcastError::ShapeOverflow { .. })
        ));
    }

    #[test]
    fn scalar_has_one_element_and_no_strides() {
        assert_eq!(checked_len(&[]).unwrap(), 1);
        assert!(contiguous_strides(&[]).unwrap().is_empty());
    }

    #[test]
    fn strides_are_row_major() {
        assert_eq!(contiguous_strides(&[2, 3, 4]).unwrap(), vec![12, 4, 1]);
        assert_eq!(contiguous_strides(&[2, 0, 4]).unwrap(), vec![4, 4, 1]);
    }

    #[test]
    fn unsigned_and_signed_ints_convert() {
        assert_eq!(shape_from_ints(&[3u8, 4]).unwrap(), vec![3, 4]);
        assert_eq!(shape_from_ints::<i64>(&[]).unwrap(), Vec::<usize>::new());
        assert!(matches!(
            shape_from_ints(&[i64::MIN]),
            Err(BroadcastError::NegativeValue { index: 0, .. })
        ));
        assert!(matches!(
            axes_from_ints(&[0i32, -2]),
            Err(BroadcastError::NegativeValue {
                what: "axes",
                index: 1,
                ..
            })
        ));
    }

    #[cfg(target_pointer_width = "32")]
    #[test]
    fn too_large_values_are_an_error() {
        assert!(shape_from_ints(&[u64::MAX]).is_err());
    }
}
