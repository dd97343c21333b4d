//! `bcast conformance [DIR ...]`: runs every case folder under the given folders.
//!
//! Prints one line per failing case (`FAIL <folder>: <reason>`; with `-v` also
//! `PASS <folder>` per passing case), then `N passed, M failed` alone on the last line. A
//! folder entry that cannot be searched is a failed entry, not the end of the run. Exit code 1 when a case failed, 2 when the folders cannot be
//! searched or hold no case.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bcast_cli::conformance;

use super::{escape_controls, CliError, CliResult};

/// The suite's folder, relative to the current folder or, failing that, to the source tree
/// this binary was built from.
const SUITE: &str = "conformance";

/// Arguments of `bcast conformance`.
#[derive(clap::Args)]
pub struct ConformanceArgs {
    /// Folders searched recursively for case folders (a folder holding case.json). Default:
    /// ./conformance, or the conformance/ folder of the source tree bcast was built from.
    dirs: Vec<PathBuf>,
    /// Also print one line per passing case.
    #[arg(long, short)]
    verbose: bool,
}

pub fn main(args: ConformanceArgs) -> CliResult {
    let dirs = if args.dirs.is_empty() {
        vec![default_suite()?]
    } else {
        args.dirs
    };
    let report = conformance::run_dirs(&dirs).map_err(|e| CliError(e.to_string()))?;
    // Case folders and reasons come from files: escaped, so each line stays one inert line.
    for outcome in &report.outcomes {
        if !outcome.passed() {
            println!("FAIL {}", escape_controls(&outcome.to_string()));
        } else if args.verbose {
            println!("PASS {}", escape_controls(&case_label(outcome)));
        }
    }
    println!("{}", report.summary());
    Ok(if report.failed() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `DIR` or `DIR (name)` when the case's name is not its folder's.
fn case_label(outcome: &conformance::CaseOutcome) -> String {
    let dir = outcome.dir.display().to_string();
    let folder = outcome.dir.file_name().map(|n| n.to_string_lossy());
    match &outcome.name {
        Some(name) if folder.as_deref() != Some(name.as_str()) => format!("{dir} ({name})"),
        _ => dir,
    }
}

fn default_suite() -> Result<PathBuf, CliError> {
    let here = PathBuf::from(SUITE);
    if here.is_dir() {
        return Ok(here);
    }
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(SUITE);
    if built_from.is_dir() {
        return Ok(built_from);
    }
    Err(CliError(format!(
        "no folder given, and neither ./{SUITE} nor {} exists",
        built_from.display()
    )))
}
