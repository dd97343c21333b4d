//! Reading inputs and writing outputs for every subcommand: `-` for standard input and
//! output, atomic writes, all-or-nothing groups of outputs, and output folders.

use std::fs;
use std::path::{Path, PathBuf};

use bcast::npy::{self, NpyError, StagedWrite};
use bcast::Tensor;

use super::CliError;

/// The path that means standard input (as an input) or standard output (as an output).
pub const STDIO: &str = "-";

/// Whether `path` is `-`.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == STDIO
}

/// How a path is named in messages.
fn shown(path: &Path) -> String {
    if is_stdio(path) {
        "standard input".into()
    } else {
        path.display().to_string()
    }
}

/// Reads an npy input: a regular file, or standard input for `-`, in both cases no more than
/// its header declares.
///
/// # Errors
/// One line naming the file: it cannot be read, is not a regular file, or is not valid npy.
pub fn read_npy(path: &Path) -> Result<Tensor, CliError> {
    // The first bytes standard input gave, kept to tell an .npz from other bad magic: a
    // stream cannot be read a second time.
    let mut stdin_start = Vec::new();
    let result = if is_stdio(path) {
        let reader = FirstBytes {
            inner: std::io::stdin().lock(),
            seen: &mut stdin_start,
        };
        npy::read_from(reader, path, &npy::ReadOptions::default())
    } else {
        npy::read(path)
    };
    result.map_err(|e| match e {
        NpyError::Io { source, .. } => CliError(format!("{}: cannot read: {source}", shown(path))),
        NpyError::Magic if is_npz(path, &stdin_start) => CliError(format!(
            "{}: an .npz archive (numpy.savez: a zip of .npy files), not an .npy file; \
             give one array as .npy (numpy.save)",
            shown(path)
        )),
        other => CliError(format!("{}: {other}", shown(path))),
    })
}

/// How a zip archive (an `.npz`) starts: a local file header, or the end record of an empty
/// archive (`numpy.savez` with no arrays).
const ZIP_MAGICS: [&[u8; 4]; 2] = [b"PK\x03\x04", b"PK\x05\x06"];

/// Whether the input that failed the npy magic is a zip archive: from the bytes standard
/// input gave, or from the file's first four bytes (opened without blocking and read only if
/// it is still a regular file, as every input is).
fn is_npz(path: &Path, stdin_start: &[u8]) -> bool {
    let start = if is_stdio(path) {
        stdin_start.to_vec()
    } else {
        first_bytes_of_file(path).unwrap_or_default()
    };
    start.len() >= 4 && ZIP_MAGICS.iter().any(|m| start[..4] == m[..])
}

/// The first four bytes of the regular file at `path`.
fn first_bytes_of_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Ok(Vec::new());
    }
    let mut start = Vec::with_capacity(4);
    file.take(4).read_to_end(&mut start)?;
    Ok(start)
}

/// A reader that keeps a copy of the first few bytes it hands out.
struct FirstBytes<'a, R> {
    inner: R,
    seen: &'a mut Vec<u8>,
}

impl<R: std::io::Read> std::io::Read for FirstBytes<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let wanted = 4usize.saturating_sub(self.seen.len()).min(n);
        self.seen.extend_from_slice(&buf[..wanted]);
        Ok(n)
    }
}

/// Writes one npy output: streamed to standard output for `-`, otherwise atomically (see
/// [`npy::write_atomic`]: a symlink is written through, a non-regular file is refused, an
/// existing file keeps its mode).
///
/// # Errors
/// One line naming the file.
pub fn write_npy(path: &Path, tensor: &Tensor) -> Result<(), CliError> {
    if is_stdio(path) {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
        return npy::write_to(&mut out, tensor)
            .map_err(|e| write_error(Path::new("standard output"), e));
    }
    npy::write_atomic(path, tensor).map_err(|e| write_error(path, e))
}

/// The one-line message of a failed write.
pub fn write_error(path: &Path, e: NpyError) -> CliError {
    match e {
        NpyError::Io { source, .. } => {
            CliError(format!("{}: cannot write: {source}", path.display()))
        }
        other => CliError(format!("{}: {other}", path.display())),
    }
}

/// Fails fast, before reading or computing anything, on an output path that cannot be
/// written: a folder, a device, FIFO or socket (also through a symlink), or a file in a folder
/// that does not exist. `-` is standard output. The atomic write checks again.
///
/// # Errors
/// One line naming the path.
pub fn check_output_file(path: &Path) -> Result<(), CliError> {
    if is_stdio(path) {
        return Ok(());
    }
    let fail = |why: &str| Err(CliError(format!("{}: cannot write: {why}", path.display())));
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => return fail("the output path is a folder"),
        Ok(m) if !m.is_file() => {
            return fail(&format!(
            "{}, not a regular file: bcast never replaces one (write to a regular file, or `-`)",
            kind(&m.file_type())
        ))
        }
        _ => {}
    }
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => {
            fail(&format!("the folder {} does not exist", dir.display()))
        }
        _ => Ok(()),
    }
}

fn kind(ft: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    let _ = ft;
    "not a regular file"
}

/// An output folder made ready by [`prepare_out_dir`]: the folders it had to create are
/// removed again when it is dropped, unless [`OutDir::keep`] was called (so a failed call
/// leaves no new folder behind).
#[must_use]
pub struct OutDir {
    created: Vec<PathBuf>,
}

impl OutDir {
    /// The call succeeded: keep the folders.
    pub fn keep(mut self) {
        self.created.clear();
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        // Innermost first; `remove_dir` leaves a folder that is not empty.
        for dir in self.created.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }
}

/// The rule of `--out-dir` for `multi` and `ir`: the folder is created if missing (with its
/// missing parents, like `mkdir -p`), and removed again if the call fails. A path that exists
/// and is not a folder is refused.
///
/// # Errors
/// One line naming `--out-dir`.
pub fn prepare_out_dir(dir: &Path) -> Result<OutDir, CliError> {
    let fail = |why: String| CliError(format!("--out-dir {}: {why}", dir.display()));
    if dir.is_dir() {
        return Ok(OutDir {
            created: Vec::new(),
        });
    }
    if dir.exists() {
        return Err(fail("not a folder".into()));
    }
    let mut missing = Vec::new();
    let mut at = Some(dir);
    while let Some(d) = at {
        if d.as_os_str().is_empty() || d.is_dir() {
            break;
        }
        missing.push(d.to_path_buf());
        at = d.parent();
    }
    let mut out = OutDir {
        created: Vec::new(),
    };
    for d in missing.into_iter().rev() {
        fs::create_dir(&d).map_err(|e| fail(format!("cannot create {}: {e}", d.display())))?;
        out.created.push(d);
    }
    Ok(out)
}

/// Renames staged outputs into place, in order, then flushes their folders. A rename fails
/// only in odd cases (the file system changed meanwhile); the ones already renamed cannot be
/// undone, and the message says which they were.
///
/// # Errors
/// One line naming the output that could not be renamed and those already written.
pub fn commit_all(staged: Vec<StagedWrite>) -> Result<(), CliError> {
    let total = staged.len();
    let mut done: Vec<String> = Vec::new();
    for file in staged {
        let path = file.path().to_path_buf();
        if let Err(e) = file.commit() {
            let already = match done.len() {
                0 => "no output was written".to_string(),
                _ => format!("already written: {}", done.join(", ")),
            };
            return Err(CliError(format!(
                "{} (of {total} outputs; {already})",
                write_error(&path, e).0
            )));
        }
        done.push(path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ));
    }
    Ok(())
}
