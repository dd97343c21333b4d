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
    #[command(flatten)]
    exec: ExecArgs,
}

/// The flags of `bcast conformance --exec` (running another runtime's adapter per case).
#[derive(clap::Args)]
struct ExecArgs {
    /// Run each case with this command instead of bcast: its words split as a shell would
    /// (never run by one), `{case}` replaced by the case folder, `{out}` by an empty folder
    /// for the output .npy files. Exit 0: outputs written; 3: case not supported; other:
    /// refused. See conformance/README.md.
    #[arg(long, value_name = "CMD ARGS")]
    exec: Option<String>,
    /// Per-case time limit for --exec, in seconds; the command is killed past it.
    #[arg(long, value_name = "S", default_value_t = 60.0, requires = "exec")]
    timeout_s: f64,
    /// With --exec: print one JSON object per case instead of the FAIL lines.
    #[arg(long, requires = "exec")]
    json: bool,
    /// With --exec: run N cases at once.
    #[arg(
        short = 'j',
        long = "jobs",
        value_name = "N",
        default_value_t = 1,
        requires = "exec"
    )]
    jobs: usize,
}

pub fn main(mut args: ConformanceArgs) -> CliResult {
    let dirs = if args.dirs.is_empty() {
        vec![default_suite()?]
    } else {
        args.dirs
    };
    if let Some(line) = args.exec.exec.take() {
        return exec_main(&line, &args.exec, args.verbose, &dirs);
    }
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

/// `--exec`: every case through the command; FAIL (and with -v PASS) lines or JSON lines,
/// then the summary. A closed stdout stops the run quietly.
fn exec_main(line: &str, flags: &ExecArgs, verbose: bool, dirs: &[PathBuf]) -> CliResult {
    use std::io::Write;
    let mut options = conformance::exec::ExecOptions::new(line)?;
    if !(flags.timeout_s > 0.0 && flags.timeout_s.is_finite() && flags.timeout_s < 1e9) {
        return Err(CliError(
            "--timeout-s must be a positive number of seconds".into(),
        ));
    }
    if flags.jobs == 0 {
        return Err(CliError("--jobs must be at least 1".into()));
    }
    options.timeout = std::time::Duration::from_secs_f64(flags.timeout_s);
    options.jobs = flags.jobs;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let report = conformance::run_dirs_exec(dirs, &options, |o| {
        let written = if flags.json {
            writeln!(out, "{}", o.to_json())
        } else if !o.passed() {
            writeln!(out, "FAIL {o}")
        } else if verbose {
            writeln!(out, "PASS {o}")
        } else {
            Ok(())
        };
        written.and_then(|()| out.flush()).is_ok()
    })
    .map_err(|e| CliError(e.to_string()))?;
    let mut tail = String::new();
    if let Some(breakdown) = report.breakdown() {
        tail.push_str(&breakdown);
        tail.push('\n');
    }
    tail.push_str(&report.summary());
    // Nothing more to say to a reader that has gone.
    let _ = writeln!(out, "{tail}");
    Ok(if report.failed() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
