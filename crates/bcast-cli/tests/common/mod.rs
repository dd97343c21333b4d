//! What the command-line tests share: the binary, scratch folders and paths into the
//! repository.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::{Command, Output};

/// The `bcast` binary under test, as a command to add arguments to.
pub fn bcast_command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bcast"))
}

/// Runs `bcast` with `args` and returns what it did.
pub fn bcast<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    bcast_command()
        .args(args)
        .output()
        .expect("the bcast binary runs")
}

/// A fresh, empty folder for one test: `<target tmp>/<group>/<test>`.
pub fn scratch(group: &str, test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// A path relative to the repository root (the CLI crate lives two folders below it).
pub fn repo(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative)
}
