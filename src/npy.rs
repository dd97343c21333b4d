//! A reader and writer for NumPy's `.npy` format (versions 1.0, 2.0 and 3.0).
//!
//! Reads every dtype bcast has a type for: `b1`, `i1`..`i8`, `u1`..`u8`, `f2`, `f4`, `f8` and
//! unicode strings `U<n>`, little- or big-endian, C- or Fortran-order. Writes C-order,
//! little-endian, the narrowest `U<n>` that holds the strings. The header's claims are checked
//! against the file before anything data-sized is allocated.
//!
//! We wrote our own because the maintained npy crates do not read unicode (`<U`) arrays and
//! big-endian input together; the format is small and its rules are tested below.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use half::f16;
use ndarray::{ArrayD, IxDyn, ShapeBuilder};

use crate::element::DType;
use crate::tensor::Tensor;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Why a `.npy` file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NpyError {
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file does not start with `\x93NUMPY`.
    #[error("not an npy file (bad magic bytes)")]
    Magic,
    /// The format version is not 1.0, 2.0 or 3.0.
    #[error("unsupported npy format version {0}.{1}")]
    Version(u8, u8),
    /// The file ends before the header or the data does.
    #[error("truncated npy: {0}")]
    Truncated(String),
    /// The header dictionary is malformed or incomplete.
    #[error("bad npy header: {0}")]
    Header(String),
    /// The dtype has no bcast element type (complex, object, structured, datetime, ...).
    #[error("unsupported npy dtype '{0}'")]
    UnsupportedDtype(String),
    /// The data does not have the size the header declares.
    #[error("npy data is {actual} bytes but the header's shape {shape:?} and dtype '{descr}' need {expected}")]
    SizeMismatch {
        /// The dtype.
        descr: String,
        /// The declared shape.
        shape: Vec<usize>,
        /// Bytes the header implies.
        expected: usize,
        /// Bytes present.
        actual: usize,
    },
    /// A value is not valid for its dtype (a bool byte other than 0 or 1, a bad code point).
    #[error("invalid npy data: {0}")]
    InvalidData(String),
    /// The element type cannot be written as npy.
    #[error("element type {0} has no npy dtype")]
    Unwritable(DType),
}

/// Reads a `.npy` file.
///
/// # Errors
/// [`NpyError::Io`] naming the path, or any format error of [`from_bytes`].
pub fn read(path: impl AsRef<Path>) -> Result<Tensor, NpyError> {
    let path = path.as_ref();
    let bytes = fs::read(path).map_err(|source| NpyError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    from_bytes(&bytes)
}

/// Writes a `.npy` file atomically: to a temporary file in the same folder, flushed to disk,
/// then renamed over `path`. On any error the temporary file is removed and an existing file
/// at `path` is left as it was.
///
/// # Errors
/// [`NpyError::Unwritable`] for bf16; [`NpyError::Io`] naming the path.
pub fn write_atomic(path: impl AsRef<Path>, tensor: &Tensor) -> Result<(), NpyError> {
    let bytes = to_bytes(tensor)?;
    write_bytes_atomic(path.as_ref(), &bytes)
}

/// Writes `bytes` to `path` atomically (see [`write_atomic`]).
///
/// # Errors
/// [`NpyError::Io`] naming the path.
pub fn write_bytes_atomic(path: &Path, bytes: &[u8]) -> Result<(), NpyError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let io = |source| NpyError::Io {
        path: path.to_path_buf(),
        source,
    };
    if path.is_dir() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "the output path is a folder",
        )));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(())
}

/// The parsed header of an npy file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

/// Byte order of a dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endian {
    Little,
    Big,
}

/// Parses npy bytes into a tensor.
///
/// # Errors
/// [`NpyError::Magic`], [`NpyError::Version`], [`NpyError::Truncated`], [`NpyError::Header`],
/// [`NpyError::UnsupportedDtype`], [`NpyError::SizeMismatch`], [`NpyError::InvalidData`].
pub fn from_bytes(bytes: &[u8]) -> Result<Tensor, NpyError> {
    if bytes.len() < 8 {
        let magic_wrong = if bytes.len() >= 6 {
            &bytes[..6] != MAGIC
        } else {
            !MAGIC.starts_with(bytes)
        };
        return Err(if magic_wrong {
            NpyError::Magic
        } else {
            NpyError::Truncated(format!("{} bytes, shorter than the preamble", bytes.len()))
        });
    }
    if &bytes[..6] != MAGIC {
        return Err(NpyError::Magic);
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let (len_size, utf8) = match (major, minor) {
        (1, 0) => (2, false),
        (2, 0) => (4, false),
        (3, 0) => (4, true),
        _ => return Err(NpyError::Version(major, minor)),
    };
    let start = 8 + len_size;
    if bytes.len() < start {
        return Err(NpyError::Truncated("header length field".into()));
    }
    let header_len = if len_size == 2 {
        u16::from_le_bytes([bytes[8], bytes[9]]) as usize
    } else {
        u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize
    };
    let data_start = start
        .checked_add(header_len)
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| {
            NpyError::Truncated(format!(
                "header declares {header_len} bytes, file has {}",
                bytes.len() - start
            ))
        })?;
    let raw = &bytes[start..data_start];
    let text = if utf8 {
        std::str::from_utf8(raw).map_err(|_| NpyError::Header("not UTF-8".into()))?
    } else {
        if !raw.is_ascii() {
            return Err(NpyError::Header(
                "not ASCII (version 1/2 headers are latin-1 text)".into(),
            ));
        }
        std::str::from_utf8(raw).map_err(|_| NpyError::Header("not ASCII".into()))?
    };
    let header = parse_header(text)?;
    decode(&header, &bytes[data_start..])
}

fn decode(h: &Header, data: &[u8]) -> Result<Tensor, NpyError> {
    let (endian, kind, size) = parse_descr(&h.descr)?;
    let count = h
        .shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&n| crate::checked_len(&h.shape).is_ok() && n <= isize::MAX as usize)
        .ok_or_else(|| NpyError::Header(format!("shape {:?} is too large", h.shape)))?;
    let expected = count.checked_mul(size).ok_or_else(|| {
        NpyError::Header(format!("shape {:?} of '{}' is too large", h.shape, h.descr))
    })?;
    if data.len() != expected {
        return Err(NpyError::SizeMismatch {
            descr: h.descr.clone(),
            shape: h.shape.clone(),
            expected,
            actual: data.len(),
        });
    }
    let dims = IxDyn(&h.shape);
    let shape = dims.set_f(h.fortran_order);
    macro_rules! numeric {
        ($t:ty, $n:expr, $v:ident) => {{
            let values: Vec<$t> = data
                .chunks_exact($n)
                .map(|c| {
                    let mut b = [0u8; $n];
                    b.copy_from_slice(c);
                    match endian {
                        Endian::Little => <$t>::from_le_bytes(b),
                        Endian::Big => <$t>::from_be_bytes(b),
                    }
                })
                .collect();
            Tensor::$v(ArrayD::from_shape_vec(shape, values).expect("length checked above"))
        }};
    }
    Ok(match (kind, size) {
        ('b', 1) => {
            let values = data
                .iter()
                .enumerate()
                .map(|(i, &b)| match b {
                    0 => Ok(false),
                    1 => Ok(true),
                    _ => Err(NpyError::InvalidData(format!(
                        "bool element {i} is byte {b}"
                    ))),
                })
                .collect::<Result<Vec<bool>, _>>()?;
            Tensor::Bool(ArrayD::from_shape_vec(shape, values).expect("length checked above"))
        }
        ('i', 1) => numeric!(i8, 1, I8),
        ('i', 2) => numeric!(i16, 2, I16),
        ('i', 4) => numeric!(i32, 4, I32),
        ('i', 8) => numeric!(i64, 8, I64),
        ('u', 1) => numeric!(u8, 1, U8),
        ('u', 2) => numeric!(u16, 2, U16),
        ('u', 4) => numeric!(u32, 4, U32),
        ('u', 8) => numeric!(u64, 8, U64),
        ('f', 2) => {
            let bits: Vec<f16> = data
                .chunks_exact(2)
                .map(|c| {
                    let b = [c[0], c[1]];
                    f16::from_bits(match endian {
                        Endian::Little => u16::from_le_bytes(b),
                        Endian::Big => u16::from_be_bytes(b),
                    })
                })
                .collect();
            Tensor::F16(ArrayD::from_shape_vec(shape, bits).expect("length checked above"))
        }
        ('f', 4) => numeric!(f32, 4, F32),
        ('f', 8) => numeric!(f64, 8, F64),
        ('U', _) => {
            let chars = size / 4;
            let mut values = Vec::with_capacity(count);
            for (i, item) in data.chunks_exact(size.max(1)).enumerate().take(count) {
                let mut s = String::with_capacity(chars);
                let mut points: Vec<u32> = item
                    .chunks_exact(4)
                    .map(|c| {
                        let b = [c[0], c[1], c[2], c[3]];
                        match endian {
                            Endian::Little => u32::from_le_bytes(b),
                            Endian::Big => u32::from_be_bytes(b),
                        }
                    })
                    .collect();
                // numpy strips trailing NULs from unicode items.
                while points.last() == Some(&0) {
                    points.pop();
                }
                for p in points {
                    s.push(char::from_u32(p).ok_or_else(|| {
                        NpyError::InvalidData(format!(
                            "string element {i} has invalid code point {p:#x}"
                        ))
                    })?);
                }
                values.push(s);
            }
            // A zero-width unicode dtype holds only empty strings.
            values.resize(count, String::new());
            Tensor::String(ArrayD::from_shape_vec(shape, values).expect("length checked above"))
        }
        _ => return Err(NpyError::UnsupportedDtype(h.descr.clone())),
    })
}

/// Splits a dtype string such as `<f4`, `|b1`, `>U5` into byte order, kind and item size.
fn parse_descr(descr: &str) -> Result<(Endian, char, usize), NpyError> {
    let unsupported = || NpyError::UnsupportedDtype(descr.to_string());
    let mut chars = descr.chars();
    let order = chars.next().ok_or_else(unsupported)?;
    let endian = match order {
        '<' | '|' => Endian::Little,
        '>' => Endian::Big,
        '=' => {
            if cfg!(target_endian = "little") {
                Endian::Little
            } else {
                Endian::Big
            }
        }
        _ => return Err(unsupported()),
    };
    let kind = chars.next().ok_or_else(unsupported)?;
    let digits = chars.as_str();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 9 {
        return Err(unsupported());
    }
    let n: usize = digits.parse().map_err(|_| unsupported())?;
    let size = match kind {
        'b' | 'i' | 'u' | 'f' => n,
        'U' => n.checked_mul(4).ok_or_else(unsupported)?,
        _ => return Err(unsupported()),
    };
    let known = matches!(
        (kind, size),
        ('b', 1) | ('i' | 'u', 1 | 2 | 4 | 8) | ('f', 2 | 4 | 8) | ('U', _)
    );
    if !known {
        return Err(unsupported());
    }
    Ok((endian, kind, size))
}

/// Parses the header dictionary: `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
fn parse_header(text: &str) -> Result<Header, NpyError> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    p.ws();
    p.expect(b'{')?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        p.ws();
        if p.eat(b'}') {
            break;
        }
        let key = p.string()?;
        p.ws();
        p.expect(b':')?;
        p.ws();
        match key.as_str() {
            "descr" => {
                if p.peek() == Some(b'[') {
                    return Err(NpyError::UnsupportedDtype("structured dtype".into()));
                }
                descr = Some(p.string()?)
            }
            "fortran_order" => fortran = Some(p.boolean()?),
            "shape" => shape = Some(p.tuple()?),
            other => return Err(NpyError::Header(format!("unknown key '{other}'"))),
        }
        p.ws();
        if !p.eat(b',') {
            p.ws();
            p.expect(b'}')?;
            break;
        }
    }
    p.ws();
    if p.i != p.s.len() {
        return Err(NpyError::Header("text after the dictionary".into()));
    }
    Ok(Header {
        descr: descr.ok_or_else(|| NpyError::Header("missing 'descr'".into()))?,
        fortran_order: fortran.ok_or_else(|| NpyError::Header("missing 'fortran_order'".into()))?,
        shape: shape.ok_or_else(|| NpyError::Header("missing 'shape'".into()))?,
    })
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8) -> Result<(), NpyError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(NpyError::Header(format!(
                "expected '{}' at byte {}",
                c as char, self.i
            )))
        }
    }
    fn string(&mut self) -> Result<String, NpyError> {
        let q = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => {
                return Err(NpyError::Header(format!(
                    "expected a string at byte {}",
                    self.i
                )))
            }
        };
        self.i += 1;
        let start = self.i;
        while let Some(c) = self.peek() {
            if c == q {
                let s = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                self.i += 1;
                return Ok(s);
            }
            self.i += 1;
        }
        Err(NpyError::Header("unterminated string".into()))
    }
    fn boolean(&mut self) -> Result<bool, NpyError> {
        if self.s[self.i..].starts_with(b"True") {
            self.i += 4;
            Ok(true)
        } else if self.s[self.i..].starts_with(b"False") {
            self.i += 5;
            Ok(false)
        } else {
            Err(NpyError::Header(format!(
                "expected True or False at byte {}",
                self.i
            )))
        }
    }
    fn tuple(&mut self) -> Result<Vec<usize>, NpyError> {
        self.expect(b'(')?;
        let mut dims = Vec::new();
        loop {
            self.ws();
            if self.eat(b')') {
                return Ok(dims);
            }
            let start = self.i;
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.i += 1;
            }
            if start == self.i {
                return Err(NpyError::Header(format!(
                    "expected a non-negative integer dim at byte {}",
                    self.i
                )));
            }
            let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("?");
            // Python writes long ints with an `L` suffix in old files.
            self.eat(b'L');
            let d: usize = text
                .parse()
                .map_err(|_| NpyError::Header(format!("dim {text} does not fit in usize")))?;
            dims.push(d);
            self.ws();
            if !self.eat(b',') {
                self.ws();
                self.expect(b')')?;
                return Ok(dims);
            }
        }
    }
}

/// Encodes a tensor as npy bytes (version 1.0, or 2.0 for a header over 64 KiB), C-order,
/// little-endian.
///
/// # Errors
/// [`NpyError::Unwritable`] for bf16, which npy has no dtype for.
pub fn to_bytes(tensor: &Tensor) -> Result<Vec<u8>, NpyError> {
    let descr = match tensor {
        Tensor::Bool(_) => "|b1".to_string(),
        Tensor::I8(_) => "|i1".into(),
        Tensor::I16(_) => "<i2".into(),
        Tensor::I32(_) => "<i4".into(),
        Tensor::I64(_) => "<i8".into(),
        Tensor::U8(_) => "|u1".into(),
        Tensor::U16(_) => "<u2".into(),
        Tensor::U32(_) => "<u4".into(),
        Tensor::U64(_) => "<u8".into(),
        Tensor::F16(_) => "<f2".into(),
        Tensor::F32(_) => "<f4".into(),
        Tensor::F64(_) => "<f8".into(),
        Tensor::String(a) => format!(
            "<U{}",
            a.iter()
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
                .max(1)
        ),
        Tensor::BF16(_) => return Err(NpyError::Unwritable(DType::BF16)),
    };
    let shape = tensor.shape();
    let shape_text = match shape.len() {
        0 => "()".to_string(),
        1 => format!("({},)", shape[0]),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    // Pad with spaces and end in a newline so that the data starts on a 64-byte boundary.
    let (major, len_size) = if dict.len() + 1 + 10 <= 65535 {
        (1u8, 2usize)
    } else {
        (2, 4)
    };
    let unpadded = 8 + len_size + dict.len() + 1;
    let pad = (64 - unpadded % 64) % 64;
    let header_len = dict.len() + pad + 1;
    let mut out = Vec::with_capacity(unpadded + pad + tensor.len() * tensor.dtype().size());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[major, 0]);
    if len_size == 2 {
        out.extend_from_slice(&(header_len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header_len as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.extend(std::iter::repeat_n(b' ', pad));
    out.push(b'\n');
    macro_rules! put {
        ($a:expr) => {
            for v in $a.iter() {
                out.extend_from_slice(&v.to_le_bytes());
            }
        };
    }
    // `iter()` walks in logical (row-major) order whatever the array's memory layout.
    match tensor {
        Tensor::Bool(a) => out.extend(a.iter().map(|&b| b as u8)),
        Tensor::I8(a) => put!(a),
        Tensor::I16(a) => put!(a),
        Tensor::I32(a) => put!(a),
        Tensor::I64(a) => put!(a),
        Tensor::U8(a) => put!(a),
        Tensor::U16(a) => put!(a),
        Tensor::U32(a) => put!(a),
        Tensor::U64(a) => put!(a),
        Tensor::F16(a) => put!(a.mapv(|v| v.to_bits())),
        Tensor::F32(a) => put!(a),
        Tensor::F64(a) => put!(a),
        Tensor::String(a) => {
            let width = a
                .iter()
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
                .max(1);
            for s in a.iter() {
                let n = s.chars().count();
                for c in s.chars() {
                    out.extend_from_slice(&(c as u32).to_le_bytes());
                }
                out.extend(std::iter::repeat_n(0u8, (width - n) * 4));
            }
        }
        Tensor::BF16(_) => unreachable!("refused above"),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn npy(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let dict = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
            if fortran { "True" } else { "False" }
        );
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&[1, 0]);
        v.extend_from_slice(&((dict.len() + 1) as u16).to_le_bytes());
        v.extend_from_slice(dict.as_bytes());
        v.push(b'\n');
        v.extend_from_slice(data);
        v
    }

    #[test]
    fn round_trips_every_writable_type() {
        let tensors: Vec<Tensor> = vec![
            array![true, false].into_dyn().into(),
            array![-1i8, 2].into_dyn().into(),
            array![[-300i16], [7]].into_dyn().into(),
            array![i32::MIN].into_dyn().into(),
            array![i64::MAX, -1].into_dyn().into(),
            array![255u8].into_dyn().into(),
            array![65535u16].into_dyn().into(),
            array![u32::MAX].into_dyn().into(),
            array![u64::MAX].into_dyn().into(),
            array![f16::from_bits(0x7e01), f16::NEG_ZERO]
                .into_dyn()
                .into(),
            array![f32::from_bits(0x7fc0_0001), -0.0].into_dyn().into(),
            array![f64::from_bits(0xfff0_0000_0000_0001)]
                .into_dyn()
                .into(),
            array!["a".to_string(), "héllo€".into(), "".into()]
                .into_dyn()
                .into(),
            ArrayD::<f32>::zeros(IxDyn(&[2, 0, 3])).into(),
            ArrayD::from_elem(IxDyn(&[]), 5u16).into(),
        ];
        for t in tensors {
            let back = from_bytes(&to_bytes(&t).unwrap()).unwrap();
            assert!(back.bit_equal(&t), "{t:?} came back as {back:?}");
        }
    }

    #[test]
    fn data_starts_on_a_64_byte_boundary() {
        let b = to_bytes(&array![1.0f32].into_dyn().into()).unwrap();
        assert_eq!((b.len() - 4) % 64, 0);
    }

    #[test]
    fn big_endian_input_is_read() {
        let t = from_bytes(&npy(
            ">i4",
            false,
            "(2,)",
            &[0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe],
        ))
        .unwrap();
        assert!(t.bit_equal(&array![258i32, -2].into_dyn().into()));
        let t = from_bytes(&npy(">U2", false, "(1,)", &[0, 0, 0, 0x41, 0, 0, 0, 0])).unwrap();
        assert!(t.bit_equal(&array!["A".to_string()].into_dyn().into()));
    }

    #[test]
    fn fortran_order_input_is_read_in_logical_order() {
        // [[1,2,3],[4,5,6]] stored column by column.
        let data: Vec<u8> = [1u8, 4, 2, 5, 3, 6].to_vec();
        let t = from_bytes(&npy("|u1", true, "(2, 3)", &data)).unwrap();
        assert!(t.bit_equal(&array![[1u8, 2, 3], [4, 5, 6]].into_dyn().into()));
    }

    #[test]
    fn header_that_lies_about_size_is_refused() {
        let e = from_bytes(&npy("<f4", false, "(3,)", &[0; 8])).unwrap_err();
        assert!(
            matches!(
                e,
                NpyError::SizeMismatch {
                    expected: 12,
                    actual: 8,
                    ..
                }
            ),
            "{e}"
        );
        let e = from_bytes(&npy("<f4", false, "(1,)", &[0; 8])).unwrap_err();
        assert!(matches!(e, NpyError::SizeMismatch { .. }));
    }

    #[test]
    fn huge_declared_shape_with_tiny_data_is_refused_before_allocating() {
        let e = from_bytes(&npy("<f8", false, "(1000000000000, 1000000)", &[0; 8])).unwrap_err();
        assert!(
            matches!(e, NpyError::SizeMismatch { .. } | NpyError::Header(_)),
            "{e}"
        );
        let e = from_bytes(&npy("<f8", false, "(99999999999999999999999,)", &[])).unwrap_err();
        assert!(matches!(e, NpyError::Header(_)), "{e}");
    }

    #[test]
    fn unsupported_dtypes_are_named() {
        for d in ["<c8", "|O", "<M8[ns]", "|S3", "<f16", "|V4", "<i3"] {
            let e = from_bytes(&npy(d, false, "(1,)", &[0; 8])).unwrap_err();
            assert!(matches!(e, NpyError::UnsupportedDtype(_)), "{d}: {e}");
        }
        let dict = "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }";
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&[1, 0]);
        v.extend_from_slice(&((dict.len() + 1) as u16).to_le_bytes());
        v.extend_from_slice(dict.as_bytes());
        v.push(b'\n');
        v.extend_from_slice(&[0; 4]);
        assert!(matches!(from_bytes(&v), Err(NpyError::UnsupportedDtype(_))));
    }

    #[test]
    fn truncations_and_bad_magic_are_errors() {
        let good = npy("<f4", false, "(2,)", &[0; 8]);
        for n in 0..good.len() {
            assert!(
                from_bytes(&good[..n]).is_err(),
                "prefix of {n} bytes was accepted"
            );
        }
        let mut bad = good.clone();
        bad[1] = b'X';
        assert!(matches!(from_bytes(&bad), Err(NpyError::Magic)));
        assert!(matches!(from_bytes(b"hello world!"), Err(NpyError::Magic)));
    }

    #[test]
    fn invalid_bool_bytes_are_refused() {
        assert!(matches!(
            from_bytes(&npy("|b1", false, "(2,)", &[1, 2])),
            Err(NpyError::InvalidData(_))
        ));
    }

    #[test]
    fn bf16_cannot_be_written() {
        let t: Tensor = array![half::bf16::ONE].into_dyn().into();
        assert!(matches!(
            to_bytes(&t),
            Err(NpyError::Unwritable(DType::BF16))
        ));
    }

    #[test]
    fn header_keys_in_any_order_with_double_quotes() {
        let h = parse_header("{\"shape\": (2, 3), \"fortran_order\": False, \"descr\": \"<u2\"}")
            .unwrap();
        assert_eq!(h.shape, vec![2, 3]);
        assert!(parse_header("{'descr': '<u2', 'shape': (2,)}").is_err());
        assert!(parse_header("{'descr': '<u2', 'fortran_order': False, 'shape': (-2,)}").is_err());
    }
}
