//! The file-system side of npy and IR input and output: inputs are opened without ever
//! waiting on a FIFO and refused unless they are regular files; outputs are written beside
//! the file a symlink finally names, keep the mode of the file they replace, and never
//! replace anything that is not a regular file.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// What a non-regular file is, in words.
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
    if ft.is_dir() {
        "a folder"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading and returns it with its length, refusing anything that is not a
/// regular file (symlinks to regular files are followed).
///
/// The file is opened with `O_NONBLOCK`, so a FIFO without a writer does not block the open;
/// its type is then checked on the open file, before a byte is read.
///
/// # Errors
/// The system's error, or [`io::ErrorKind::InvalidInput`] naming what the path is.
pub(crate) fn open_regular(path: &Path) -> io::Result<(File, u64)> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    #[cfg(all(unix, not(target_os = "linux")))]
    {
        // No O_NONBLOCK constant without libc: look before opening (a race only with a
        // file swapped for a FIFO in between).
        let meta = fs::metadata(path)?;
        if !meta.is_file() {
            return Err(not_regular(
                &meta.file_type(),
                "bcast reads only regular files",
            ));
        }
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(
            &meta.file_type(),
            "bcast reads only regular files (or `-` for standard input)",
        ));
    }
    Ok((file, meta.len()))
}

fn not_regular(ft: &fs::FileType, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}, not a regular file: {why}", kind(ft)),
    )
}

/// Reads at most `limit` bytes of `r`, growing the buffer as data arrives (a claimed size is
/// never allocated up front unless `reserve` says the data is known to be there).
pub(crate) fn read_up_to(r: &mut dyn Read, limit: u64, reserve: bool) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    if reserve {
        let n = usize::try_from(limit).map_err(|_| io::ErrorKind::OutOfMemory)?;
        out.try_reserve_exact(n).map_err(|_| {
            io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("cannot allocate {n} bytes"),
            )
        })?;
    }
    r.take(limit).read_to_end(&mut out)?;
    Ok(out)
}

/// Where an output path's bytes really go.
#[derive(Debug, Clone)]
pub(crate) struct OutputTarget {
    /// The file to rename the new one over: the path itself, or the last name of its symlink
    /// chain.
    pub file: PathBuf,
    /// The mode of the regular file being replaced, if there is one.
    pub mode: Option<u32>,
}

/// Most symlinks followed in one chain (Linux's own limit).
const MAX_LINKS: usize = 40;

/// Resolves an output path: a symlink is written through (to the file its chain ends at, which
/// need not exist yet); an existing path that is not a regular file is refused.
///
/// # Errors
/// [`io::ErrorKind::IsADirectory`] for a folder, [`io::ErrorKind::InvalidInput`] for a
/// device, FIFO or socket, and the system's errors.
pub(crate) fn resolve_output(path: &Path) -> io::Result<OutputTarget> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            let is_link = fs::symlink_metadata(path)?.file_type().is_symlink();
            let file = if is_link {
                fs::canonicalize(path)?
            } else {
                path.to_path_buf()
            };
            Ok(OutputTarget {
                file,
                mode: Some(mode_of(&meta)),
            })
        }
        Ok(meta) if meta.is_dir() => Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "the output path is a folder",
        )),
        Ok(meta) => Err(refuse_output(&meta.file_type())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // Nothing there, or a symlink chain that ends at a name not yet created.
            let mut file = path.to_path_buf();
            for _ in 0..MAX_LINKS {
                match fs::symlink_metadata(&file) {
                    Ok(m) if m.file_type().is_symlink() => {
                        let next = fs::read_link(&file)?;
                        file = match file.parent() {
                            Some(dir) if next.is_relative() => dir.join(next),
                            _ => next,
                        };
                    }
                    Ok(m) if m.is_file() => {
                        return Ok(OutputTarget {
                            file,
                            mode: Some(mode_of(&m)),
                        })
                    }
                    Ok(m) if m.is_dir() => {
                        return Err(io::Error::new(
                            io::ErrorKind::IsADirectory,
                            "the output path is a folder",
                        ))
                    }
                    Ok(m) => return Err(refuse_output(&m.file_type())),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {
                        return Ok(OutputTarget { file, mode: None })
                    }
                    Err(e) => return Err(e),
                }
            }
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("more than {MAX_LINKS} symbolic links in a chain"),
            ))
        }
        Err(e) => Err(e),
    }
}

fn refuse_output(ft: &fs::FileType) -> io::Error {
    not_regular(
        ft,
        "bcast never replaces one (write to a regular file, or `-`)",
    )
}

#[cfg(unix)]
fn mode_of(meta: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o777
}

#[cfg(not(unix))]
fn mode_of(_: &fs::Metadata) -> u32 {
    0o644
}

/// Gives a new file the mode of the one it will replace.
pub(crate) fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (file, mode);
        Ok(())
    }
}

/// Checks, just before a rename, that what sits at `file` may be replaced: nothing, or a
/// regular file.
pub(crate) fn check_replaceable(file: &Path) -> io::Result<()> {
    match fs::symlink_metadata(file) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(m) if m.is_dir() => Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "the output path is a folder",
        )),
        Ok(m) => Err(refuse_output(&m.file_type())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Flushes a folder's entries to disk, so that a rename into it survives a power loss.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}
