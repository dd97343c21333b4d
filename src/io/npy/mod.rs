//! A reader and writer for NumPy's `.npy` format (versions 1.0, 2.0 and 3.0).
//!
//! Reads every dtype bcast has a type for: `b1`, `i1`..`i8`, `u1`..`u8`, `f2`, `f4`, `f8` and
//! unicode strings `U<n>`, little- or big-endian, C- or Fortran-order. Writes C-order,
//! little-endian, the narrowest `U<n>` that holds the strings: the bytes `numpy.save` writes
//! for the same array. The header's claims are checked against the file before anything
//! data-sized is allocated. Writes are atomic ([`write_atomic`], [`stage`]) and streamed.
//!
//! We wrote our own because the maintained npy crates do not read unicode (`<U`) arrays and
//! big-endian input together; the format is small and its rules are tested below and, against
//! files numpy wrote, in `tests/npy.rs`.

use std::fs;
use std::io::Write;

use crate::io::files;
pub use crate::io::files::sync_dir;
use std::path::{Path, PathBuf};

use ndarray::{ArrayD, IxDyn, ShapeBuilder};

use crate::dtype::DType;
use crate::io::codec::{self, ByteOrder, DecodeError};
use crate::tensor::Tensor;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// The most elements a zero-width unicode array (`U0`) may declare: its file holds no data to
/// check the shape against, and each element still becomes a `String` (24 bytes).
pub const MAX_ZERO_WIDTH_STRINGS: usize = 1 << 20;

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
    /// The file ends before the preamble, the header or the data does (a header claiming
    /// more data than the file holds looks the same, and is reported so).
    #[error("truncated npy: {0}")]
    Truncated(String),
    /// The header dictionary is malformed or incomplete.
    #[error("bad npy header: {0}")]
    Header(String),
    /// The dtype has no bcast element type (complex, object, structured, datetime, ...).
    #[error("unsupported npy dtype '{0}'")]
    UnsupportedDtype(String),
    /// The data is longer than the header's shape and dtype declare: the header lies about
    /// the shape (shorter data is [`NpyError::Truncated`]).
    #[error("npy data is {actual} bytes, more than the {expected} that the header's shape {shape:?} and dtype '{descr}' need")]
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

/// numpy's own limit on the header's length (`numpy.lib.format._MAX_HEADER_SIZE`): headers
/// longer than this many characters are refused unless the caller says otherwise
/// ([`ReadOptions::max_header_size`], numpy's `max_header_size`).
pub const MAX_HEADER_SIZE: usize = 10_000;

/// The widest unicode dtype numpy can make: `<U536870911`, whose items are 2^31 - 4 bytes
/// (numpy keeps an item size in a C `int`; `numpy.dtype('<U536870912')` is refused).
pub const MAX_UNICODE_CHARS: usize = (i32::MAX as usize) / 4;

/// How much a reader accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// The longest header, in characters, that is read (numpy's `max_header_size`; default
    /// [`MAX_HEADER_SIZE`]). Files written by bcast or numpy for arrays of rank above about
    /// 3,000 need more.
    pub max_header_size: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_header_size: MAX_HEADER_SIZE,
        }
    }
}

/// Reads a `.npy` file.
///
/// Only a regular file (or a symlink to one) is read: a FIFO, device, socket or folder is
/// refused before a byte is read (a FIFO is opened without waiting for a writer). No more is
/// read than the preamble, a header of at most [`MAX_HEADER_SIZE`] characters, and the data
/// the header declares; the file's length is checked against that first.
///
/// # Errors
/// [`NpyError::Io`] naming the path, or any format error of [`from_bytes`].
pub fn read(path: impl AsRef<Path>) -> Result<Tensor, NpyError> {
    read_with(path, &ReadOptions::default())
}

/// [`read`] with other limits.
///
/// # Errors
/// As [`read`].
pub fn read_with(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Tensor, NpyError> {
    let path = path.as_ref();
    let io = |source| NpyError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (mut file, len) = files::open_regular(path).map_err(io)?;
    read_stream(&mut file, Some(len), options).map_err(|e| e.at(path))
}

/// Reads one npy array from a stream (standard input, a socket): the preamble, the header and
/// exactly the data the header declares, never more; the stream must then end. Memory grows
/// with the bytes that arrive, never with what the header claims.
///
/// # Errors
/// [`NpyError::Io`] (with `name` as its path) when reading fails, or any format error of
/// [`from_bytes`].
pub fn read_from(
    mut reader: impl std::io::Read,
    name: impl AsRef<Path>,
    options: &ReadOptions,
) -> Result<Tensor, NpyError> {
    read_stream(&mut reader, None, options).map_err(|e| e.at(name.as_ref()))
}

/// Writes a `.npy` file atomically: to a temporary file in the same folder, flushed to disk,
/// then renamed over `path`, and the folder flushed so that the rename survives a power loss.
/// On any error the temporary file is removed and an existing file at `path` is left as it
/// was.
///
/// A `path` that is a symlink (or a chain of them, or one whose target does not exist yet) is
/// written through: the temporary file goes beside the file the chain ends at, and the link
/// stays. An existing file keeps its mode; a new one gets the umask's. Only a regular file is
/// ever replaced: a device, FIFO or socket at `path` (or at the end of its chain) is refused.
///
/// The data is streamed to the file, not built in memory first, so writing a large output
/// needs no second output-sized buffer. The bytes are those of [`to_bytes`].
///
/// # Errors
/// [`NpyError::Unwritable`] for bf16 (before anything touches the file system);
/// [`NpyError::Io`] naming the path, including when `path` is a folder, a device, FIFO or
/// socket, its folder does not exist, or its file name is longer than 255 bytes.
///
/// ```
/// use bcast::{npy, Tensor};
/// use ndarray::array;
///
/// let dir = std::env::temp_dir().join(format!("bcast-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let t: Tensor = array![[1i16, 2], [3, 4]].into_dyn().into();
/// npy::write_atomic(dir.join("a.npy"), &t)?;
/// assert!(npy::read(dir.join("a.npy"))?.bit_equal(&t));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_atomic(path: impl AsRef<Path>, tensor: &Tensor) -> Result<(), NpyError> {
    stage(path, tensor)?.commit()
}

/// Writes `bytes` to `path` atomically (see [`write_atomic`]).
///
/// # Errors
/// [`NpyError::Io`] naming the path.
pub fn write_bytes_atomic(path: &Path, bytes: &[u8]) -> Result<(), NpyError> {
    stage_with(path, |f| f.write_all(bytes))?.commit()
}

/// Writes `tensor` as npy to a temporary file beside `path`, flushed to disk but not yet
/// visible at `path`: the first half of [`write_atomic`], for callers that write several
/// files and want none of them to appear unless all of them could be written.
///
/// [`StagedWrite::commit`] renames the file into place; dropping the [`StagedWrite`] instead
/// removes the temporary file and leaves `path` as it was.
///
/// # Errors
/// As [`write_atomic`].
///
/// ```
/// use bcast::{npy, Tensor};
/// use ndarray::array;
///
/// let dir = std::env::temp_dir().join(format!("bcast-doc-stage-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let t: Tensor = array![true, false].into_dyn().into();
/// let staged = npy::stage(dir.join("b.npy"), &t)?;
/// assert!(!dir.join("b.npy").exists());
/// staged.commit()?;
/// assert!(dir.join("b.npy").exists());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn stage(path: impl AsRef<Path>, tensor: &Tensor) -> Result<StagedWrite, NpyError> {
    let header = encode_header(tensor)?;
    stage_with(path.as_ref(), |f| {
        f.write_all(&header)?;
        write_data(f, tensor)
    })
}

/// An npy file written to a temporary file beside its destination and not yet renamed into
/// place (see [`stage`]). Dropping it without [`commit`](Self::commit) removes the temporary
/// file.
#[derive(Debug)]
#[must_use = "a staged write is discarded unless committed"]
pub struct StagedWrite {
    /// The temporary file; `None` once renamed.
    tmp: Option<PathBuf>,
    /// The path the caller named.
    path: PathBuf,
    /// The file that is replaced: `path`, or the end of its symlink chain.
    target: PathBuf,
}

impl StagedWrite {
    /// The destination the file will have once committed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the temporary file over the destination, replacing a regular file there (or
    /// the regular file a symlink there points to), then flushes the folder so that the
    /// rename survives a power loss.
    ///
    /// # Errors
    /// [`NpyError::Io`] naming the destination, also when something other than a regular
    /// file has appeared there since [`stage`]; the temporary file is then removed.
    pub fn commit(mut self) -> Result<(), NpyError> {
        let Some(tmp) = self.tmp.take() else {
            return Ok(());
        };
        let io = |source| NpyError::Io {
            path: self.path.clone(),
            source,
        };
        let renamed =
            files::check_replaceable(&self.target).and_then(|()| fs::rename(&tmp, &self.target));
        if let Err(e) = renamed {
            let _ = fs::remove_file(&tmp);
            return Err(io(e));
        }
        files::sync_dir(parent_of(&self.target)).map_err(io)
    }
}

/// The folder a path's file is in (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

impl Drop for StagedWrite {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// The longest file name, in bytes, that Linux file systems take.
const MAX_FILE_NAME: usize = 255;

/// Creates a fresh temporary file beside `path`, fills it with `fill`, flushes it to disk.
fn stage_with(
    path: &Path,
    fill: impl FnOnce(&mut fs::File) -> std::io::Result<()>,
) -> Result<StagedWrite, NpyError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let io = |source| NpyError::Io {
        path: path.to_path_buf(),
        source,
    };
    // Found now, not at the rename, so that a group of staged files fails before any is
    // renamed into place.
    let too_long = |p: &Path| {
        let len = p.file_name().map_or(0, |n| n.len());
        (len > MAX_FILE_NAME).then(|| {
            io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("the file name is {len} bytes, longer than the {MAX_FILE_NAME} a file system allows"),
            ))
        })
    };
    if let Some(e) = too_long(path) {
        return Err(e);
    }
    // A symlink is written through; a folder, device, FIFO or socket is refused.
    let target = files::resolve_output(path).map_err(io)?;
    if let Some(e) = too_long(&target.file) {
        return Err(e);
    }
    let dir = parent_of(&target.file).to_path_buf();
    let name = target
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    // Keep the temporary name within the usual 255-byte limit even for a long file name.
    let name: String = name
        .char_indices()
        .take_while(|&(i, c)| i + c.len_utf8() <= 200)
        .map(|(_, c)| c)
        .collect();
    let mut attempts = 0u32;
    let (tmp, mut file) = loop {
        attempts += 1;
        let tmp = dir.join(format!(
            ".{name}.tmp-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            // A stale file from an earlier process that had our id: try the next name.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempts < 1000 => continue,
            Err(e) => return Err(io(e)),
        }
    };
    // From here on the guard removes the temporary file on any error.
    let staged = StagedWrite {
        tmp: Some(tmp),
        path: path.to_path_buf(),
        target: target.file.clone(),
    };
    // An existing file keeps its mode; a new one gets the umask's.
    if let Some(mode) = target.mode {
        files::set_mode(&file, mode).map_err(io)?;
    }
    fill(&mut file).and_then(|()| file.sync_all()).map_err(io)?;
    Ok(staged)
}

/// The parsed header of an npy file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

/// Parses npy bytes into a tensor.
///
/// The header may be at most [`MAX_HEADER_SIZE`] characters long, as in numpy
/// ([`from_bytes_with`] takes another limit).
///
/// # Errors
/// [`NpyError::Magic`], [`NpyError::Version`], [`NpyError::Truncated`], [`NpyError::Header`],
/// [`NpyError::UnsupportedDtype`], [`NpyError::SizeMismatch`], [`NpyError::InvalidData`].
pub fn from_bytes(bytes: &[u8]) -> Result<Tensor, NpyError> {
    from_bytes_with(bytes, &ReadOptions::default())
}

/// [`from_bytes`] with other limits.
///
/// # Errors
/// As [`from_bytes`].
pub fn from_bytes_with(bytes: &[u8], options: &ReadOptions) -> Result<Tensor, NpyError> {
    let mut reader = bytes;
    read_stream(&mut reader, Some(bytes.len() as u64), options)
}

impl NpyError {
    /// The same error, an I/O one naming `path`.
    fn at(self, path: &Path) -> NpyError {
        match self {
            NpyError::Io { source, .. } => NpyError::Io {
                path: path.to_path_buf(),
                source,
            },
            other => other,
        }
    }
}

/// Reads into `buf` until it is full or the reader ends; returns the bytes read.
fn read_full(r: &mut dyn std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads one npy array from `r`. `known_len` is the whole input's length when it is known (a
/// regular file, a slice): the header's claims are then checked against it before anything
/// data-sized is allocated. Otherwise the buffers grow only with the bytes that arrive.
fn read_stream(
    r: &mut dyn std::io::Read,
    known_len: Option<u64>,
    options: &ReadOptions,
) -> Result<Tensor, NpyError> {
    let io = |source| NpyError::Io {
        path: PathBuf::new(),
        source,
    };
    let mut pre = [0u8; 12];
    let n = read_full(r, &mut pre[..8]).map_err(io)?;
    if n == 0 {
        return Err(NpyError::Truncated("the file is empty".into()));
    }
    if n < 8 {
        let seen = n.min(MAGIC.len());
        return Err(if pre[..seen] != MAGIC[..seen] {
            NpyError::Magic
        } else {
            NpyError::Truncated(format!("{n} bytes, shorter than the 8-byte preamble"))
        });
    }
    if &pre[..6] != MAGIC {
        return Err(NpyError::Magic);
    }
    let (major, minor) = (pre[6], pre[7]);
    let (len_size, utf8) = match (major, minor) {
        (1, 0) => (2, false),
        (2, 0) => (4, false),
        (3, 0) => (4, true),
        _ => return Err(NpyError::Version(major, minor)),
    };
    let start = 8 + len_size;
    if read_full(r, &mut pre[8..start]).map_err(io)? < len_size {
        return Err(NpyError::Truncated("header length field".into()));
    }
    let header_len = if len_size == 2 {
        usize::from(u16::from_le_bytes([pre[8], pre[9]]))
    } else {
        u32::from_le_bytes([pre[8], pre[9], pre[10], pre[11]]) as usize
    };
    let too_long = |chars: usize| {
        NpyError::Header(format!(
            "the header is {chars} {} long, more than the {} characters numpy reads (its max_header_size)",
            if utf8 { "bytes" } else { "characters" },
            options.max_header_size
        ))
    };
    // numpy counts characters; a UTF-8 (version 3.0) character takes up to 4 bytes.
    let max_bytes = if utf8 {
        options.max_header_size.saturating_mul(4)
    } else {
        options.max_header_size
    };
    if header_len > max_bytes {
        return Err(too_long(header_len));
    }
    let available = |len: u64, from: usize| len.saturating_sub(from as u64);
    if let Some(len) = known_len {
        if (header_len as u64) > available(len, start) {
            return Err(NpyError::Truncated(format!(
                "header declares {header_len} bytes, file has {}",
                available(len, start)
            )));
        }
    }
    let raw = files::read_up_to(r, header_len as u64, known_len.is_some()).map_err(io)?;
    if raw.len() < header_len {
        return Err(NpyError::Truncated(format!(
            "header declares {header_len} bytes, file has {}",
            raw.len()
        )));
    }
    let text = if utf8 {
        std::str::from_utf8(&raw).map_err(|_| NpyError::Header("not UTF-8".into()))?
    } else {
        if !raw.is_ascii() {
            return Err(NpyError::Header(
                "not ASCII (version 1/2 headers are latin-1 text)".into(),
            ));
        }
        std::str::from_utf8(&raw).map_err(|_| NpyError::Header("not ASCII".into()))?
    };
    if utf8 && text.chars().count() > options.max_header_size {
        return Err(NpyError::Header(format!(
            "the header is {} characters long, more than the {} characters numpy reads (its max_header_size)",
            text.chars().count(),
            options.max_header_size
        )));
    }
    let header = parse_header(text)?;
    let layout = layout(&header)?;
    let expected = layout.bytes;
    let data_start = start + header_len;
    let truncated = |got: u64| {
        NpyError::Truncated(format!(
            "the data is {got} bytes but the header's shape {:?} of '{}' needs {expected}",
            header.shape, header.descr
        ))
    };
    let mismatch = |actual: u64| NpyError::SizeMismatch {
        descr: header.descr.clone(),
        shape: header.shape.clone(),
        expected,
        actual: usize::try_from(actual).unwrap_or(usize::MAX),
    };
    if let Some(len) = known_len {
        let avail = available(len, data_start);
        if avail < expected as u64 {
            // A file cut short and a header claiming too much look the same; the first is
            // the common case.
            return Err(truncated(avail));
        }
        if avail > expected as u64 {
            return Err(mismatch(avail));
        }
    }
    let data = files::read_up_to(r, expected as u64, known_len.is_some()).map_err(io)?;
    if data.len() < expected {
        return Err(truncated(data.len() as u64));
    }
    // Nothing may follow the data (a file that grew since its length was taken, a stream).
    let mut extra = [0u8; 1 << 12];
    let mut more = read_full(r, &mut extra[..1]).map_err(io)? as u64;
    if more > 0 {
        if known_len.is_none() {
            loop {
                match r.read(&mut extra) {
                    Ok(0) => break,
                    Ok(k) => more += k as u64,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(io(e)),
                }
            }
        }
        return Err(mismatch(expected as u64 + more));
    }
    decode(&header, &layout, &data)
}

/// What a header's dtype and shape mean for the data.
struct Layout {
    endian: ByteOrder,
    kind: char,
    /// Bytes per item.
    size: usize,
    /// Items.
    count: usize,
    /// Bytes of data.
    bytes: usize,
}

/// Checks a header's dtype and shape and works out how much data they declare.
fn layout(h: &Header) -> Result<Layout, NpyError> {
    let (endian, kind, size) = parse_descr(&h.descr)?;
    let count = h
        .shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&n| crate::checked_len(&h.shape).is_ok() && n <= isize::MAX as usize)
        .ok_or_else(|| NpyError::Header(format!("shape {:?} is too large", h.shape)))?;
    let bytes = count.checked_mul(size).ok_or_else(|| {
        NpyError::Header(format!("shape {:?} of '{}' is too large", h.shape, h.descr))
    })?;
    // A zero-width dtype (`U0`) costs no data bytes whatever the shape, so the size check
    // does not bound it; each element still costs a `String`.
    if kind == 'U' && size == 0 && count > MAX_ZERO_WIDTH_STRINGS {
        return Err(NpyError::Header(format!(
            "zero-width '{}' array of shape {:?} has {count} elements; bcast holds at most {MAX_ZERO_WIDTH_STRINGS} empty strings",
            h.descr, h.shape
        )));
    }
    Ok(Layout {
        endian,
        kind,
        size,
        count,
        bytes,
    })
}

fn decode(h: &Header, layout: &Layout, data: &[u8]) -> Result<Tensor, NpyError> {
    let &Layout {
        endian,
        kind,
        size,
        count,
        bytes: expected,
    } = layout;
    debug_assert_eq!(
        data.len(),
        expected,
        "the reader reads exactly the declared data"
    );
    let shape = IxDyn(&h.shape).set_f(h.fortran_order);
    if kind != 'U' {
        let dtype =
            npy_dtype(kind, size).ok_or_else(|| NpyError::UnsupportedDtype(h.descr.clone()))?;
        return codec::decode(dtype, data, endian, shape).map_err(|e| match e {
            DecodeError::Invalid { index, bits } => {
                NpyError::InvalidData(format!("bool element {index} is byte {bits}"))
            }
            DecodeError::Alloc { count } => NpyError::Header(format!(
                "cannot allocate {count} elements for shape {:?}",
                h.shape
            )),
            e => NpyError::InvalidData(e.to_string()),
        });
    }
    // Unicode: `size / 4` UTF-32 code points an item, NUL-padded.
    let chars = size / 4;
    let mut values = Vec::new();
    values.try_reserve_exact(count).map_err(|_| {
        NpyError::Header(format!(
            "cannot allocate {count} strings for shape {:?}",
            h.shape
        ))
    })?;
    for (i, item) in data.chunks_exact(size.max(1)).enumerate().take(count) {
        let mut s = String::with_capacity(chars);
        let mut points: Vec<u32> = codec::decode_vec(item, endian)
            .map_err(|e| NpyError::InvalidData(format!("string element {i}: {e}")))?;
        // numpy strips trailing NULs from unicode items.
        while points.last() == Some(&0) {
            points.pop();
        }
        for p in points {
            s.push(char::from_u32(p).ok_or_else(|| {
                NpyError::InvalidData(format!("string element {i} has invalid code point {p:#x}"))
            })?);
        }
        values.push(s);
    }
    // A zero-width unicode dtype holds only empty strings.
    values.resize(count, String::new());
    ArrayD::from_shape_vec(shape, values)
        .map(Tensor::String)
        .map_err(|_| {
            NpyError::InvalidData(format!(
                "{count} strings do not fill the shape {:?}",
                h.shape
            ))
        })
}

/// Splits a dtype string such as `<f4`, `|b1`, `>U5` into byte order, kind and item size.
fn parse_descr(descr: &str) -> Result<(ByteOrder, char, usize), NpyError> {
    let unsupported = || NpyError::UnsupportedDtype(descr.to_string());
    let mut chars = descr.chars();
    let order = chars.next().ok_or_else(unsupported)?;
    let endian = match order {
        '<' | '|' => ByteOrder::Little,
        '>' => ByteOrder::Big,
        '=' => {
            if cfg!(target_endian = "little") {
                ByteOrder::Little
            } else {
                ByteOrder::Big
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
        'U' if n > MAX_UNICODE_CHARS => {
            return Err(NpyError::Header(format!(
                "dtype '{descr}' is wider than numpy's widest unicode dtype '<U{MAX_UNICODE_CHARS}' (items of at most 2^31 - 1 bytes)"
            )))
        }
        'U' => n * 4,
        _ => return Err(unsupported()),
    };
    if kind != 'U' && npy_dtype(kind, size).is_none() {
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

/// Encodes a tensor as npy bytes: C-order, little-endian, format version 1.0 (2.0 when the
/// header does not fit 1.0's 16-bit length), the narrowest `<U<n>` that holds the strings
/// (at least `<U1`).
///
/// The bytes are the ones `numpy.save` writes for the same array, header padding included
/// (numpy leaves room for the first dim to grow to 21 digits and aligns the data to 64 bytes).
///
/// # Errors
/// [`NpyError::Unwritable`] for bf16, which npy has no dtype for.
///
/// ```
/// use bcast::{npy, Tensor};
/// use ndarray::array;
///
/// let t: Tensor = array![1.5f32, -0.0].into_dyn().into();
/// let bytes = npy::to_bytes(&t)?;
/// assert!(bytes.starts_with(b"\x93NUMPY\x01\x00"));
/// assert_eq!((bytes.len() - 8) % 64, 0, "the 8 data bytes start on a 64-byte boundary");
/// assert!(npy::from_bytes(&bytes)?.bit_equal(&t));
/// # Ok::<(), bcast::npy::NpyError>(())
/// ```
pub fn to_bytes(tensor: &Tensor) -> Result<Vec<u8>, NpyError> {
    let mut out = encode_header(tensor)?;
    if let Some(n) = data_len(tensor) {
        // Only a hint: if it cannot be reserved up front, the vector grows as usual.
        let _ = out.try_reserve_exact(n);
    }
    write_data(&mut out, tensor).expect("writing to a Vec cannot fail");
    Ok(out)
}

/// Writes a tensor as npy to `w` (standard output, a socket), streamed: the bytes of
/// [`to_bytes`], without building them in memory first.
///
/// # Errors
/// [`NpyError::Unwritable`] for bf16 (before anything is written); [`NpyError::Io`] with an
/// empty path when `w` fails.
pub fn write_to(w: &mut impl Write, tensor: &Tensor) -> Result<(), NpyError> {
    let header = encode_header(tensor)?;
    w.write_all(&header)
        .and_then(|()| write_data(w, tensor))
        .and_then(|()| w.flush())
        .map_err(|source| NpyError::Io {
            path: PathBuf::new(),
            source,
        })
}

/// npy's kind letter of each element type it has a dtype for; a dtype is the kind and the
/// item size, `|` for one byte, otherwise `<` (the reader takes `>` and `=` too). bf16 has
/// none; strings are `U<chars>`.
const NPY_KINDS: [(DType, char); 12] = [
    (DType::Bool, 'b'),
    (DType::I8, 'i'),
    (DType::I16, 'i'),
    (DType::I32, 'i'),
    (DType::I64, 'i'),
    (DType::U8, 'u'),
    (DType::U16, 'u'),
    (DType::U32, 'u'),
    (DType::U64, 'u'),
    (DType::F16, 'f'),
    (DType::F32, 'f'),
    (DType::F64, 'f'),
];

/// The element type of npy's fixed-width dtype of `kind` and item `size`.
fn npy_dtype(kind: char, size: usize) -> Option<DType> {
    NPY_KINDS
        .iter()
        .find(|&&(d, k)| k == kind && d.size() == size)
        .map(|&(d, _)| d)
}

/// The npy dtype string of a tensor: `|b1`, `<i4`, `<U5`, ...
fn descr(tensor: &Tensor) -> Result<String, NpyError> {
    let dtype = tensor.dtype();
    if let Tensor::String(a) = tensor {
        return Ok(format!("<U{}", string_width(a)));
    }
    let &(_, kind) = NPY_KINDS
        .iter()
        .find(|&&(d, _)| d == dtype)
        .ok_or(NpyError::Unwritable(dtype))?;
    let size = dtype.size();
    Ok(format!("{}{kind}{size}", if size == 1 { '|' } else { '<' }))
}

/// Characters per item of the `<U` dtype that holds every string (numpy's minimum is 1).
fn string_width(a: &ArrayD<String>) -> usize {
    a.iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(0)
        .max(1)
}

/// Bytes of data [`write_data`] writes, if that fits in `usize`.
fn data_len(tensor: &Tensor) -> Option<usize> {
    let item = match tensor {
        Tensor::String(a) => string_width(a).checked_mul(4)?,
        t => t.dtype().size(),
    };
    tensor.len().checked_mul(item)
}

/// The magic, version, header length and header dictionary, laid out as `numpy.save` lays
/// them out (numpy's `_write_array_header` and `_wrap_header`).
fn encode_header(tensor: &Tensor) -> Result<Vec<u8>, NpyError> {
    /// numpy pads the header so that the growth axis can later take this many digits.
    const GROWTH_AXIS_MAX_DIGITS: usize = 21;
    const ARRAY_ALIGN: usize = 64;
    let descr = descr(tensor)?;
    let shape = tensor.shape();
    let shape_text = match shape {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut dict =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    if let Some(first) = shape.first() {
        let digits = first.to_string().len();
        dict.extend(std::iter::repeat_n(
            ' ',
            GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits),
        ));
    }
    // numpy's padding is 1..=64 spaces (a full 64 when already aligned), then a newline.
    let with_newline = dict.len() + 1;
    let padded = |len_size: usize| {
        let used = MAGIC.len() + 2 + len_size + with_newline;
        with_newline + ARRAY_ALIGN - used % ARRAY_ALIGN
    };
    let (major, header_len) = match padded(2) {
        n if n <= usize::from(u16::MAX) => (1u8, n),
        _ => (2u8, padded(4)),
    };
    let mut out = Vec::with_capacity(12 + header_len);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[major, 0]);
    if major == 1 {
        let n = u16::try_from(header_len).expect("checked to fit above");
        out.extend_from_slice(&n.to_le_bytes());
    } else {
        let n = u32::try_from(header_len).map_err(|_| {
            NpyError::Header(format!(
                "a header of {header_len} bytes is too long for npy"
            ))
        })?;
        out.extend_from_slice(&n.to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.extend(std::iter::repeat_n(b' ', header_len - with_newline));
    out.push(b'\n');
    Ok(out)
}

/// Writes the elements in logical (row-major) order, little-endian.
fn write_data(w: &mut impl Write, tensor: &Tensor) -> std::io::Result<()> {
    match tensor {
        Tensor::String(a) => {
            let width = string_width(a);
            let mut buf = Vec::with_capacity(WRITE_CHUNK);
            for s in a.iter() {
                let mut n = 0;
                for c in s.chars() {
                    buf.extend_from_slice(&u32::from(c).to_le_bytes());
                    n += 1;
                }
                buf.extend(std::iter::repeat_n(0u8, (width - n) * 4));
                if buf.len() >= WRITE_CHUNK {
                    w.write_all(&buf)?;
                    buf.clear();
                }
            }
            w.write_all(&buf)
        }
        // `encode_header` refuses bf16 before any data is written.
        Tensor::BF16(_) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "bf16 has no npy dtype",
        )),
        t => codec::write_tensor_le(w, t),
    }
}

/// Bytes of strings gathered before each write.
const WRITE_CHUNK: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;
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
    fn header_is_laid_out_as_numpy_save_lays_it_out() {
        // np.save(f, np.zeros((2, 3), '<f4')) writes this header: 21 - len("2") growth
        // spaces after the dictionary, then padding to 128 bytes.
        let b = to_bytes(&ArrayD::<f32>::zeros(IxDyn(&[2, 3])).into()).unwrap();
        let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
        assert_eq!(&b[..8], b"\x93NUMPY\x01\x00");
        assert_eq!(u16::from_le_bytes([b[8], b[9]]), 118);
        assert_eq!(&b[10..10 + dict.len()], dict.as_bytes());
        assert!(b[10 + dict.len()..127].iter().all(|&c| c == b' '));
        assert_eq!(b[127], b'\n');
        assert_eq!(b.len(), 128 + 24);
    }

    #[test]
    fn an_already_aligned_header_gets_a_full_64_bytes_of_padding() {
        // numpy pads with 64 - (used % 64) spaces, never 0: find a shape whose header is
        // aligned before padding and check the padding numpy would add.
        let mut found = false;
        for rank in 1..40 {
            let t: Tensor = ArrayD::<u8>::zeros(IxDyn(&vec![1; rank])).into();
            let b = to_bytes(&t).unwrap();
            let header_len = usize::from(u16::from_le_bytes([b[8], b[9]]));
            let text = std::str::from_utf8(&b[10..10 + header_len]).unwrap();
            let unpadded = text.trim_end_matches([' ', '\n']).len() + 20;
            // numpy's rule: unpadded = dict + growth spaces; pad = 64 - (10 + unpadded + 1) % 64.
            let pad = 64 - (10 + unpadded + 1) % 64;
            assert_eq!(header_len, unpadded + pad + 1, "rank {rank}");
            found |= pad == 64;
        }
        assert!(found, "no rank below 40 hit the aligned case");
    }

    #[test]
    fn a_header_too_long_for_version_1_switches_to_version_2() {
        // Each dim of 1 adds "1, " to the header: near rank 21_830 the padded header passes
        // the 65535 bytes a version 1.0 length can say, and the file must be version 2.0.
        let mut found_v2 = false;
        for rank in [21_000usize, 21_800, 21_830, 21_840, 21_850, 30_000] {
            let t: Tensor = ArrayD::<u8>::zeros(IxDyn(&vec![1; rank])).into();
            let b = to_bytes(&t).unwrap();
            let (header_len, start) = if b[6] == 1 {
                (usize::from(u16::from_le_bytes([b[8], b[9]])), 10)
            } else {
                assert_eq!(b[6], 2);
                found_v2 = true;
                (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12)
            };
            assert_eq!((start + header_len) % 64, 0);
            assert_eq!(b.len(), start + header_len + 1);
            let big = ReadOptions {
                max_header_size: 1 << 20,
            };
            assert!(
                from_bytes_with(&b, &big).unwrap().bit_equal(&t),
                "rank {rank}"
            );
            // numpy itself refuses these headers unless told otherwise, and so does bcast.
            let e = from_bytes(&b).unwrap_err();
            assert!(e.to_string().contains("max_header_size"), "{e}");
        }
        assert!(found_v2);
    }

    #[test]
    fn non_contiguous_arrays_are_written_in_logical_order() {
        let a = array![[1i32, 2, 3], [4, 5, 6]].into_dyn();
        let t: Tensor = a.t().to_owned().into_dyn().into();
        let back = from_bytes(&to_bytes(&t).unwrap()).unwrap();
        assert!(back.bit_equal(&array![[1i32, 4], [2, 5], [3, 6]].into_dyn().into()));
        let f: Tensor = a.reversed_axes().into();
        let back = from_bytes(&to_bytes(&f).unwrap()).unwrap();
        assert!(back.bit_equal(&array![[1i32, 4], [2, 5], [3, 6]].into_dyn().into()));
    }

    #[test]
    fn staged_write_is_invisible_until_committed_and_removed_if_dropped() {
        let dir = std::env::temp_dir().join(format!("bcast-npy-stage-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.npy");
        fs::write(&path, b"old").unwrap();
        let t: Tensor = array![7u64].into_dyn().into();
        drop(stage(&path, &t).unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"old");
        let staged = stage(&path, &t).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"old");
        staged.commit().unwrap();
        assert!(read(&path).unwrap().bit_equal(&t));
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("x.npy")]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_name_too_long_for_a_file_system_is_refused_when_staged() {
        let dir = std::env::temp_dir().join(format!("bcast-npy-long-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let t: Tensor = array![1u8].into_dyn().into();
        let e = stage(dir.join(format!("{}.npy", "n".repeat(252))), &t).unwrap_err();
        assert!(e.to_string().contains("256 bytes"), "{e}");
        stage(dir.join(format!("{}.npy", "n".repeat(251))), &t)
            .unwrap()
            .commit()
            .unwrap();
        fs::remove_dir_all(&dir).unwrap();
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
    fn data_shorter_than_the_header_says_is_truncated() {
        let e = from_bytes(&npy("<f4", false, "(3,)", &[0; 8])).unwrap_err();
        assert!(matches!(e, NpyError::Truncated(_)), "{e}");
        assert!(e.to_string().contains("needs 12"), "{e}");
    }

    #[test]
    fn data_longer_than_the_header_says_is_a_size_mismatch() {
        let e = from_bytes(&npy("<f4", false, "(1,)", &[0; 8])).unwrap_err();
        assert!(
            matches!(
                e,
                NpyError::SizeMismatch {
                    expected: 4,
                    actual: 8,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn huge_declared_shape_with_tiny_data_is_refused_before_allocating() {
        let e = from_bytes(&npy("<f8", false, "(1000000000000, 1000000)", &[0; 8])).unwrap_err();
        assert!(
            matches!(e, NpyError::Truncated(_) | NpyError::Header(_)),
            "{e}"
        );
        let e = from_bytes(&npy("<f8", false, "(99999999999999999999999,)", &[])).unwrap_err();
        assert!(matches!(e, NpyError::Header(_)), "{e}");
        // numpy's widest unicode dtype is <U536870911; wider is refused as numpy refuses it.
        let e = from_bytes(&npy("<U999999999", false, "(1,)", &[])).unwrap_err();
        assert!(matches!(e, NpyError::Header(_)), "{e}");
        let e = from_bytes(&npy("<U536870912", false, "(1,)", &[])).unwrap_err();
        assert!(e.to_string().contains("widest unicode"), "{e}");
        let e = from_bytes(&npy("<U536870911", false, "(1,)", &[])).unwrap_err();
        assert!(matches!(e, NpyError::Truncated(_)), "{e}");
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

    /// Found by the npy fuzzer: a `|U0` header declaring ~3.2e9 elements passed the size
    /// check (0 bytes each) and then aborted allocating 76 GB of `String`s.
    #[test]
    fn zero_width_strings_with_a_huge_shape_are_refused_not_allocated() {
        let shape = "(1,232,1,2,2,232,1,2,2, 1,2,2,232,1,2,2, 1)";
        let e = from_bytes(&npy("|U0", true, shape, &[])).unwrap_err();
        assert!(matches!(e, NpyError::Header(_)), "{e}");
        assert!(e.to_string().contains("zero-width"), "{e}");
        // The fuzzer's second find: 14.9M elements, under the first limit, cost ~360 MB.
        let shape = "(3,122,2,1,232,1,2,22,2, 1)";
        assert!(from_bytes(&npy("|U0", true, shape, &[])).is_err());
        let t = from_bytes(&npy("<U0", false, "(2, 3)", &[])).unwrap();
        assert!(t.bit_equal(&ArrayD::from_elem(IxDyn(&[2, 3]), String::new()).into()));
    }

    #[test]
    fn headers_over_numpys_limit_are_refused_before_they_are_read() {
        // A 100 MB header used to be read and parsed; numpy stops at 10,000 characters.
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&[2, 0]);
        v.extend_from_slice(&100_000_000u32.to_le_bytes());
        let e = from_bytes(&v).unwrap_err();
        assert!(matches!(e, NpyError::Header(_)), "{e}");
        assert!(e.to_string().contains("10000"), "{e}");
        // 10,000 characters exactly is within numpy's limit.
        let dict = "{'descr': '<u1', 'fortran_order': False, 'shape': (0,), }";
        let mut text = dict.to_string();
        text.extend(std::iter::repeat_n(' ', MAX_HEADER_SIZE - 1 - dict.len()));
        text.push('\n');
        let mut ok = MAGIC.to_vec();
        ok.extend_from_slice(&[1, 0]);
        ok.extend_from_slice(&(text.len() as u16).to_le_bytes());
        ok.extend_from_slice(text.as_bytes());
        assert!(from_bytes(&ok).is_ok());
        let mut over = MAGIC.to_vec();
        over.extend_from_slice(&[1, 0]);
        over.extend_from_slice(&(text.len() as u16 + 1).to_le_bytes());
        over.extend_from_slice(text.as_bytes());
        over.push(b' ');
        assert!(from_bytes(&over).is_err());
    }

    #[test]
    fn a_stream_is_read_to_the_declared_end_and_no_further() {
        let t: Tensor = array![1u16, 2, 3].into_dyn().into();
        let bytes = to_bytes(&t).unwrap();
        let back = read_from(&bytes[..], "-", &ReadOptions::default()).unwrap();
        assert!(back.bit_equal(&t));
        let mut longer = bytes.clone();
        longer.extend_from_slice(&[0; 5]);
        let e = read_from(&longer[..], "-", &ReadOptions::default()).unwrap_err();
        assert!(
            matches!(
                e,
                NpyError::SizeMismatch {
                    actual: 11,
                    expected: 6,
                    ..
                }
            ),
            "{e}"
        );
        let e = read_from(&bytes[..bytes.len() - 1], "-", &ReadOptions::default()).unwrap_err();
        assert!(matches!(e, NpyError::Truncated(_)), "{e}");
        // A header claiming a terabyte allocates nothing of the kind from a stream.
        let big = npy("<f8", false, "(137438953472,)", &[0; 8]);
        let e = read_from(&big[..], "-", &ReadOptions::default()).unwrap_err();
        assert!(matches!(e, NpyError::Truncated(_)), "{e}");
        let mut out = Vec::new();
        write_to(&mut out, &t).unwrap();
        assert_eq!(out, bytes);
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
