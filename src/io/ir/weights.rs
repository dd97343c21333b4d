//! Turns a Const's bytes in the `.bin` into a tensor, trusting nothing the files say.

use ndarray::{ArrayD, IxDyn};

use crate::dtype::DType;
use crate::io::codec::{self, ByteOrder, DecodeError};
use crate::ir::error::{IrError, LayerRef};
use crate::shape::checked_len;
use crate::tensor::Tensor;

/// The bytes `offset..offset + size` of the weights.
///
/// # Errors
/// [`IrError::WeightsOutOfRange`] if the range does not lie inside `bin`.
pub(crate) fn slice<'b>(
    bin: &'b [u8],
    offset: u64,
    size: u64,
    layer: &LayerRef,
) -> Result<&'b [u8], IrError> {
    let out_of_range = || IrError::WeightsOutOfRange {
        layer: layer.clone(),
        offset,
        size,
        len: bin.len(),
    };
    let start = usize::try_from(offset).map_err(|_| out_of_range())?;
    let len = usize::try_from(size).map_err(|_| out_of_range())?;
    let end = start.checked_add(len).ok_or_else(out_of_range)?;
    bin.get(start..end).ok_or_else(out_of_range)
}

/// Decodes `bytes` (exactly the Const's `size` bytes) as a tensor of `dtype` and `shape`.
///
/// Numbers are little-endian, as OpenVINO writes them on every platform it supports.
/// Strings use OpenVINO's packed layout: an `i32` count, `count + 1` `i32` end offsets
/// starting at 0, then the concatenated UTF-8 bytes.
///
/// # Errors
/// [`IrError::ConstData`] when the size does not match the shape, a boolean byte is not 0 or
/// 1, or a string block is inconsistent or not UTF-8.
pub(crate) fn decode(
    bytes: &[u8],
    dtype: DType,
    shape: &[usize],
    layer: &LayerRef,
) -> Result<Tensor, IrError> {
    let fail = |problem: String| IrError::ConstData {
        layer: layer.clone(),
        problem,
    };
    let count = checked_len(shape).map_err(|e| fail(e.to_string()))?;
    // OpenVINO 2026.4 saves an empty constant with `size="1"` (and reads it back): the
    // declared bytes, inside the .bin, are more than needed and hold nothing.
    let bytes = if count == 0 { &[][..] } else { bytes };
    if dtype == DType::String {
        let values = decode_strings(bytes, count).map_err(fail)?;
        return ArrayD::from_shape_vec(IxDyn(shape), values)
            .map(Tensor::String)
            .map_err(|e| fail(format!("the strings do not fill the shape: {e}")));
    }
    let expected = count.checked_mul(dtype.size());
    if expected != Some(bytes.len()) {
        return Err(fail(format!(
            "size {} does not match {count} elements of {dtype} (shape {}), which take {} bytes",
            bytes.len(),
            crate::error::Dims(shape.to_vec()),
            expected.map_or_else(|| "too many".to_string(), |n| n.to_string())
        )));
    }
    codec::decode(dtype, bytes, ByteOrder::Little, IxDyn(shape).into()).map_err(|e| {
        fail(match e {
            DecodeError::Invalid { index, bits } => {
                format!("boolean element {index} is byte {bits}, not 0 or 1")
            }
            e => format!("{e} of {dtype}"),
        })
    })
}

fn read_i32(bytes: &[u8], at: usize) -> Option<i32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Decodes OpenVINO's packed string block.
fn decode_strings(bytes: &[u8], count: usize) -> Result<Vec<String>, String> {
    if bytes.is_empty() && count == 0 {
        return Ok(Vec::new());
    }
    let declared = read_i32(bytes, 0).ok_or("string data is shorter than its 4-byte count")?;
    if usize::try_from(declared).ok() != Some(count) {
        return Err(format!(
            "string data declares {declared} strings but the shape has {count}"
        ));
    }
    // The header is 4 bytes of count and (count + 1) offsets of 4 bytes each.
    let header = count
        .checked_add(2)
        .and_then(|n| n.checked_mul(4))
        .filter(|&h| h <= bytes.len())
        .ok_or_else(|| {
            format!(
                "string data of {} bytes cannot hold the offsets of {count} strings",
                bytes.len()
            )
        })?;
    let chars = &bytes[header..];
    let offset = |i: usize| -> Result<usize, String> {
        let at = 4 + 4 * i;
        let v = read_i32(bytes, at).ok_or("string offsets are truncated")?;
        usize::try_from(v).map_err(|_| format!("string offset {i} is negative ({v})"))
    };
    if offset(0)? != 0 {
        return Err(format!("the first string offset is {}, not 0", offset(0)?));
    }
    let mut values = Vec::new();
    values
        .try_reserve_exact(count)
        .map_err(|_| format!("cannot allocate {count} strings"))?;
    let mut start = 0usize;
    for i in 0..count {
        let end = offset(i + 1)?;
        if end < start || end > chars.len() {
            return Err(format!(
                "string {i} ends at offset {end}, outside {start}..={}",
                chars.len()
            ));
        }
        let s = std::str::from_utf8(&chars[start..end])
            .map_err(|e| format!("string {i} is not UTF-8: {e}"))?;
        values.push(s.to_string());
        start = end;
    }
    if start != chars.len() {
        return Err(format!(
            "string data has {} bytes after its last string",
            chars.len() - start
        ));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer() -> LayerRef {
        LayerRef {
            id: 7,
            name: "c".into(),
            kind: "Const".into(),
        }
    }

    #[test]
    fn range_past_the_end_is_an_error_not_a_panic() {
        let bin = [0u8; 8];
        assert!(slice(&bin, 0, 8, &layer()).is_ok());
        for (offset, size) in [(9, 0), (4, 5), (u64::MAX, 1), (1, u64::MAX)] {
            let e = slice(&bin, offset, size, &layer()).unwrap_err();
            assert!(
                matches!(e, IrError::WeightsOutOfRange { len: 8, .. }),
                "{offset} {size}"
            );
        }
    }

    #[test]
    fn numbers_are_little_endian_and_bit_exact() {
        let t = decode(&[0x01, 0x00, 0xC0, 0x7F], DType::F32, &[1], &layer()).unwrap();
        let Tensor::F32(a) = t else { panic!() };
        assert_eq!(a[[0]].to_bits(), 0x7FC0_0001);
        let t = decode(&[0x80, 0x7F], DType::BF16, &[], &layer()).unwrap();
        assert_eq!(t.shape(), &[] as &[usize]);
        let Tensor::BF16(a) = t else { panic!() };
        assert_eq!(a.iter().next().unwrap().to_bits(), 0x7F80);
    }

    #[test]
    fn size_that_does_not_match_the_shape_is_an_error() {
        let e = decode(&[0; 12], DType::I64, &[2], &layer()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "layer 7 'c' (Const): size 12 does not match 2 elements of i64 (shape [2]), which take 16 bytes"
        );
    }

    #[test]
    fn booleans_must_be_zero_or_one() {
        assert!(decode(&[0, 1], DType::Bool, &[2], &layer()).is_ok());
        let e = decode(&[0, 2], DType::Bool, &[2], &layer()).unwrap_err();
        assert!(e.to_string().contains("boolean element 1 is byte 2"), "{e}");
    }

    /// The bytes OpenVINO 2026.4 wrote for the string constant `["ab", "", "héllo"]`.
    const OPENVINO_STRINGS: &[u8] =
        b"\x03\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x08\x00\x00\x00abh\xc3\xa9llo";

    #[test]
    fn strings_in_openvinos_packed_layout() {
        let t = decode(OPENVINO_STRINGS, DType::String, &[3], &layer()).unwrap();
        let Tensor::String(a) = t else { panic!() };
        assert_eq!(a.iter().collect::<Vec<_>>(), ["ab", "", "héllo"]);
    }

    #[test]
    fn inconsistent_string_blocks_are_errors() {
        let mut wrong_count = OPENVINO_STRINGS.to_vec();
        wrong_count[0] = 2;
        let mut offset_past_end = OPENVINO_STRINGS.to_vec();
        offset_past_end[16] = 9;
        let mut decreasing = OPENVINO_STRINGS.to_vec();
        decreasing[12] = 1;
        let mut not_utf8 = OPENVINO_STRINGS.to_vec();
        not_utf8[23] = 0xFF;
        let cases: [(&[u8], &str); 6] = [
            (&wrong_count, "declares 2 strings"),
            (&offset_past_end, "ends at offset 9"),
            (&decreasing, "string 1 ends at offset 1"),
            (&not_utf8, "not UTF-8"),
            (&OPENVINO_STRINGS[..10], "cannot hold the offsets"),
            (&OPENVINO_STRINGS[..2], "shorter than its 4-byte count"),
        ];
        for (bytes, want) in cases {
            let e = decode(bytes, DType::String, &[3], &layer()).unwrap_err();
            assert!(e.to_string().contains(want), "{e} / {want}");
        }
        let mut trailing = OPENVINO_STRINGS.to_vec();
        trailing.push(b'x');
        let e = decode(&trailing, DType::String, &[3], &layer()).unwrap_err();
        assert!(
            e.to_string().contains("1 bytes after its last string"),
            "{e}"
        );
    }

    #[test]
    fn empty_string_tensor_may_have_no_bytes() {
        let t = decode(&[], DType::String, &[0, 2], &layer()).unwrap();
        assert_eq!(t.shape(), &[0, 2]);
    }

    /// OpenVINO 2026.4 writes the empty axes_mapping of a scalar as `size="1"`.
    #[test]
    fn a_zero_element_const_may_declare_more_bytes_than_it_needs() {
        for dtype in [
            DType::I64,
            DType::U8,
            DType::F32,
            DType::Bool,
            DType::String,
        ] {
            let t = decode(&[0xAB], dtype, &[0], &layer()).unwrap();
            assert_eq!((t.dtype(), t.shape()), (dtype, &[0usize][..]));
        }
        let t = decode(&[0; 16], DType::I32, &[2, 0, 3], &layer()).unwrap();
        assert_eq!(t.shape(), &[2, 0, 3]);
        // One element still needs exactly its bytes.
        assert!(decode(&[0; 9], DType::I64, &[1], &layer()).is_err());
    }

    #[test]
    fn huge_shapes_are_errors() {
        let e = decode(&[], DType::U8, &[usize::MAX, 2], &layer()).unwrap_err();
        assert!(matches!(e, IrError::ConstData { .. }));
    }
}
