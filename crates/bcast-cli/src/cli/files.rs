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
    let result = if is_stdio(path) {
        npy::read_from(std::io::stdin().lock(), path, &npy::ReadOptions::default())
    } else {
        npy::read(path)
    };
    result.map_err(|e| match e {
        NpyError::Io { source, .. } => CliError(format!("{}: cannot read: {source}", shown(path))),
        other => CliError(format!("{}: {other}", shown(path))),
    })
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
