//! The one byte codec of fixed-width elements: little- or big-endian bytes to typed values
//! and back, for every row of the element-type table (`src/dtype.rs`) but strings, which
//! each format lays out in its own way. The npy reader and the IR weights decode through it;
//! the npy writer encodes through it.
//!
//! Each fixed-width type is moved as its table *lane* (the unsigned integer of its size):
//! bytes become a lane in the stated byte order, and the lane becomes the value bit for bit
//! (`bool` checks that its byte is 0 or 1). Decoding trusts nothing: the bytes must be a
//! whole number of elements, the values must fit the shape, and the output is reserved with
//! `try_reserve_exact`, so odd, short or huge input is an error, never a panic or an abort.

use std::io::Write;

use ndarray::{ArrayD, IxDyn, Shape};

use crate::dtype::{dtype_table, DType};
use crate::tensor::Tensor;

/// The order of the bytes of one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ByteOrder {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

/// Why bytes could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DecodeError {
    /// The bytes are not a whole number of elements.
    #[error("{bytes} bytes are not a whole number of {size}-byte elements")]
    Length { bytes: usize, size: usize },
    /// The number of values is not the shape's.
    #[error("{count} values do not fill the shape")]
    Shape { count: usize },
    /// The output could not be allocated.
    #[error("cannot allocate {count} elements")]
    Alloc { count: usize },
    /// Element `index` holds bits that are no value of its type (a bool byte other than 0
    /// or 1).
    #[error("element {index} is {bits}, no value of its type")]
    Invalid { index: usize, bits: u64 },
    /// The type has no fixed width (strings: each format decodes its own).
    #[error("{0} has no fixed-width encoding")]
    NotFixedWidth(DType),
}

/// An unsigned integer that a fixed-width element is moved as: its table lane.
pub(crate) trait Lane: Copy + Into<u64> {
    /// Bytes per lane.
    const SIZE: usize;
    /// The lane in `bytes` (exactly [`Self::SIZE`] of them) read in `order`.
    fn read(bytes: &[u8], order: ByteOrder) -> Self;
    /// Appends the lane's little-endian bytes to `out`.
    fn push_le(self, out: &mut Vec<u8>);
}

macro_rules! lanes {
    ($($t:ty)*) => {$(
        impl Lane for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read(bytes: &[u8], order: ByteOrder) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(bytes);
                match order {
                    ByteOrder::Little => <$t>::from_le_bytes(b),
                    ByteOrder::Big => <$t>::from_be_bytes(b),
                }
            }
            fn push_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
lanes!(u8 u16 u32 u64);

/// An element type with a fixed-width byte encoding: every row of the table whose lane is
/// an integer (all but strings).
pub(crate) trait FixedWidth: Copy + bytemuck::NoUninit {
    /// The unsigned integer of the same size.
    type Lane: Lane;
    /// The value whose bits `lane` holds, if any.
    fn from_lane(lane: Self::Lane) -> Option<Self>;
    /// The value's bits.
    fn to_lane(self) -> Self::Lane;
}

macro_rules! fixed_width_impls {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        $(fixed_width_impl!($t, $lane, $kind);)*
    };
}

macro_rules! fixed_width_impl {
    ($t:ty, clone, $kind:ident) => {};
    ($t:ty, $lane:ty, Bool) => {
        impl FixedWidth for $t {
            type Lane = $lane;
            fn from_lane(lane: $lane) -> Option<Self> {
                match lane {
                    0 => Some(false),
                    1 => Some(true),
                    _ => None,
                }
            }
            fn to_lane(self) -> $lane {
                <$lane>::from(self)
            }
        }
    };
    ($t:ty, $lane:ty, $kind:ident) => {
        impl FixedWidth for $t {
            type Lane = $lane;
            fn from_lane(lane: $lane) -> Option<Self> {
                Some(bytemuck::cast(lane))
            }
            fn to_lane(self) -> $lane {
                bytemuck::cast(self)
            }
        }
    };
}
dtype_table!(fixed_width_impls!);

/// Decodes `bytes`, a whole number of elements in `order`, as values of `T`.
///
/// # Errors
/// [`DecodeError::Length`], [`DecodeError::Alloc`], [`DecodeError::Invalid`].
pub(crate) fn decode_vec<T: FixedWidth>(
    bytes: &[u8],
    order: ByteOrder,
) -> Result<Vec<T>, DecodeError> {
    let size = <T::Lane as Lane>::SIZE;
    if !bytes.len().is_multiple_of(size) {
        return Err(DecodeError::Length {
            bytes: bytes.len(),
            size,
        });
    }
    let count = bytes.len() / size;
    let mut values = Vec::new();
    values
        .try_reserve_exact(count)
        .map_err(|_| DecodeError::Alloc { count })?;
    for (index, chunk) in bytes.chunks_exact(size).enumerate() {
        let lane = T::Lane::read(chunk, order);
        let value = T::from_lane(lane).ok_or_else(|| DecodeError::Invalid {
            index,
            bits: lane.into(),
        })?;
        values.push(value);
    }
    Ok(values)
}

/// Decodes `bytes` in `order` as a tensor of `dtype` and `shape` (whose memory order, C or
/// Fortran, the bytes are in).
///
/// # Errors
/// [`DecodeError::NotFixedWidth`] for strings, [`DecodeError::Shape`] when the bytes hold
/// another number of elements than the shape, or any error of [`decode_vec`].
pub(crate) fn decode(
    dtype: DType,
    bytes: &[u8],
    order: ByteOrder,
    shape: Shape<IxDyn>,
) -> Result<Tensor, DecodeError> {
    fn array<T>(shape: Shape<IxDyn>, values: Vec<T>) -> Result<ArrayD<T>, DecodeError> {
        let count = values.len();
        ArrayD::from_shape_vec(shape, values).map_err(|_| DecodeError::Shape { count })
    }
    macro_rules! decode_rows {
        (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
            match dtype {
                $(DType::$v => decode_row!($v, $lane),)*
            }
        };
    }
    macro_rules! decode_row {
        ($v:ident, clone) => {
            Err(DecodeError::NotFixedWidth(DType::$v))
        };
        ($v:ident, $lane:tt) => {
            Ok(Tensor::$v(array(shape, decode_vec(bytes, order)?)?))
        };
    }
    dtype_table!(decode_rows!)
}

/// Bytes gathered before each write on the element-by-element path.
const WRITE_CHUNK: usize = 1 << 16;

/// Writes `a`'s elements in logical (row-major) order, little-endian: a row-major array's
/// memory as it is when the machine is little-endian (one write, no copy), otherwise
/// element by element through a buffer.
pub(crate) fn write_le<T: FixedWidth>(w: &mut impl Write, a: &ArrayD<T>) -> std::io::Result<()> {
    if cfg!(target_endian = "little") {
        if let Some(values) = a.as_slice() {
            // A lane's memory is its little-endian bytes here; bool is 0 or 1.
            return w.write_all(bytemuck::cast_slice(values));
        }
    }
    let mut buf = Vec::with_capacity(WRITE_CHUNK + <T::Lane as Lane>::SIZE);
    for v in a.iter() {
        v.to_lane().push_le(&mut buf);
        if buf.len() >= WRITE_CHUNK {
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    w.write_all(&buf)
}

/// [`write_le`] of any fixed-width tensor.
///
/// # Errors
/// `InvalidInput` for a string tensor (before anything is written), or what `w` says.
pub(crate) fn write_tensor_le(w: &mut impl Write, tensor: &Tensor) -> std::io::Result<()> {
    macro_rules! write_rows {
        (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
            match tensor {
                $(Tensor::$v(a) => write_row!(a, $lane),)*
            }
        };
    }
    macro_rules! write_row {
        ($a:ident, clone) => {{
            let _ = $a;
            Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "strings have no fixed-width encoding",
            ))
        }};
        ($a:ident, $lane:tt) => {
            write_le(w, $a)
        };
    }
    dtype_table!(write_rows!)
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};
    use ndarray::{array, ShapeBuilder};

    fn c_order(shape: &[usize]) -> Shape<IxDyn> {
        IxDyn(shape).into_shape_with_order()
    }

    #[test]
    fn every_fixed_width_type_round_trips_bit_exactly_in_both_orders() {
        let tensors: Vec<Tensor> = vec![
            array![true, false].into_dyn().into(),
            array![-1i8, i8::MIN].into_dyn().into(),
            array![-300i16, 7].into_dyn().into(),
            array![i32::MIN, 1].into_dyn().into(),
            array![i64::MAX, -1].into_dyn().into(),
            array![255u8, 0].into_dyn().into(),
            array![65535u16, 1].into_dyn().into(),
            array![u32::MAX, 2].into_dyn().into(),
            array![u64::MAX, 3].into_dyn().into(),
            array![f16::from_bits(0x7e01), f16::NEG_ZERO]
                .into_dyn()
                .into(),
            array![bf16::from_bits(0x7f81), bf16::NEG_ZERO]
                .into_dyn()
                .into(),
            array![f32::from_bits(0x7fc0_0001), -0.0].into_dyn().into(),
            array![f64::from_bits(0xfff0_0000_0000_0001), 0.5]
                .into_dyn()
                .into(),
        ];
        for t in tensors {
            let mut le = Vec::new();
            write_tensor_le(&mut le, &t).unwrap();
            let back = decode(t.dtype(), &le, ByteOrder::Little, c_order(&[2])).unwrap();
            assert!(back.bit_equal(&t), "{t:?} came back as {back:?}");
            let size = le.len() / 2;
            let be: Vec<u8> = le
                .chunks(size)
                .flat_map(|c| c.iter().rev())
                .copied()
                .collect();
            let back = decode(t.dtype(), &be, ByteOrder::Big, c_order(&[2])).unwrap();
            assert!(
                back.bit_equal(&t),
                "{t:?} came back from big-endian as {back:?}"
            );
        }
    }

    #[test]
    fn big_and_little_endian_read_the_same_bytes_differently() {
        assert_eq!(
            decode_vec::<u32>(&[1, 2, 3, 4], ByteOrder::Little),
            Ok(vec![0x0403_0201])
        );
        assert_eq!(
            decode_vec::<u32>(&[1, 2, 3, 4], ByteOrder::Big),
            Ok(vec![0x0102_0304])
        );
    }

    #[test]
    fn fortran_order_bytes_fill_the_shape_column_by_column() {
        let shape = IxDyn(&[2, 3]).f();
        let t = decode(DType::U8, &[1, 4, 2, 5, 3, 6], ByteOrder::Little, shape).unwrap();
        assert!(t.bit_equal(&array![[1u8, 2, 3], [4, 5, 6]].into_dyn().into()));
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert_eq!(
            decode_vec::<f32>(&[0; 7], ByteOrder::Little),
            Err(DecodeError::Length { bytes: 7, size: 4 })
        );
        assert_eq!(
            decode_vec::<bool>(&[0, 1, 2], ByteOrder::Little),
            Err(DecodeError::Invalid { index: 2, bits: 2 })
        );
        let e = decode(DType::I16, &[0; 6], ByteOrder::Little, c_order(&[2])).unwrap_err();
        assert_eq!(e, DecodeError::Shape { count: 3 });
        let e = decode(DType::String, &[], ByteOrder::Little, c_order(&[0])).unwrap_err();
        assert_eq!(e, DecodeError::NotFixedWidth(DType::String));
        let strings: Tensor = array![String::new()].into_dyn().into();
        assert!(write_tensor_le(&mut Vec::new(), &strings).is_err());
    }

    #[test]
    fn no_bytes_make_an_empty_tensor_of_any_fixed_width_type() {
        for dtype in DType::ALL.into_iter().filter(|&d| d != DType::String) {
            let t = decode(dtype, &[], ByteOrder::Little, c_order(&[2, 0])).unwrap();
            assert_eq!((t.dtype(), t.shape()), (dtype, &[2usize, 0][..]));
        }
    }
}
