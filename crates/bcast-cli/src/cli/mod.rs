//! Shared pieces of the command line: the error type every subcommand returns, exit codes,
//! and the parsing of shape and axis lists.

use std::fmt;
use std::process::ExitCode;

pub mod bench;
pub mod conformance;
pub mod ir;
pub mod reduce;
pub mod run;

/// A one-line message for `error: ...`; every subcommand failure becomes exit code 2.
#[derive(Debug)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the source said.
        f.write_str(&self.0.replace('\n', " "))
    }
}

impl From<bcast::BroadcastError> for CliError {
    fn from(e: bcast::BroadcastError) -> Self {
        CliError(e.to_string())
    }
}

impl From<String> for CliError {
    fn from(s: String) -> Self {
        CliError(s)
    }
}

/// Result of a subcommand: the exit code on success (0, or 1 for conformance failures).
pub type CliResult = Result<ExitCode, CliError>;

/// Prints clap's help or version as clap does; any parse error becomes one `error:` line and
/// exit code 2.
pub fn report_clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        ErrorKind::MissingRequiredArgument => {
            // clap names the missing arguments on the lines after its first, which alone
            // would not say what is missing.
            let text = e.to_string();
            let missing: Vec<&str> = text
                .lines()
                .skip(1)
                .map(str::trim)
                .take_while(|l| !l.is_empty())
                .collect();
            eprintln!("error: missing required arguments: {}", missing.join(", "));
            ExitCode::from(2)
        }
        _ => {
            let text = e.to_string();
            let first = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid arguments")
                .trim_start_matches("error: ")
                .to_string();
            eprintln!("error: {first}");
            ExitCode::from(2)
        }
    }
}

/// A panic is a bug, but the user still gets one `error:` line and exit code 2, never a
/// backtrace. The hook only keeps the message: a panic that the library catches (a worker's,
/// turned into `BroadcastError::WorkerPanicked`) must not end the process, and one that
/// reaches `main` is reported by [`run_guarded`].
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(msg.replace('\n', " "));
        }
    }));
}

static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Runs a subcommand; a panic that escapes it becomes an `internal error` failure.
pub fn run_guarded(f: impl FnOnce() -> CliResult) -> CliResult {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        let msg = LAST_PANIC
            .lock()
            .ok()
            .and_then(|mut m| m.take())
            .unwrap_or_else(|| "unknown panic".into());
        Err(CliError(format!("internal error (please report): {msg}")))
    })
}

/// Parses a shape or axis list: `2,3`, `[2,3]`, `[]` or an empty string (rank 0). Values may
/// be negative (`--axis`-like lists are checked by the library, which names the rule).
pub fn parse_int_list(text: &str) -> Result<Vec<i64>, String> {
    let t = text.trim();
    let t = t
        .strip_prefix('[')
        .map_or(t, |r| r.strip_suffix(']').unwrap_or(r))
        .trim();
    if t.is_empty() {
        return Ok(Vec::new());
    }
    t.split(',')
        .map(|v| {
            let v = v.trim();
            v.parse::<i64>()
                .map_err(|_| format!("'{v}' in '{text}' is not an integer"))
        })
        .collect()
}

/// Parses a shape list into dims (negative dims are refused with the offending value).
pub fn parse_shape(what: &str, text: &str) -> Result<Vec<usize>, CliError> {
    let ints = parse_int_list(text).map_err(|e| CliError(format!("{what}: {e}")))?;
    bcast::shape_from_ints(&ints).map_err(|e| CliError(format!("{what}: {e}")))
}

/// Parses an axis list into axes (negative axes are refused, never normalised).
pub fn parse_axes(what: &str, text: &str) -> Result<Vec<usize>, CliError> {
    let ints = parse_int_list(text).map_err(|e| CliError(format!("{what}: {e}")))?;
    bcast::axes_from_ints(&ints).map_err(|e| CliError(format!("{what}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_accept_plain_bracketed_and_empty_forms() {
        assert_eq!(parse_int_list("2,3").unwrap(), vec![2, 3]);
        assert_eq!(parse_int_list("[2, 3]").unwrap(), vec![2, 3]);
        assert_eq!(parse_int_list("[]").unwrap(), Vec::<i64>::new());
        assert_eq!(parse_int_list("").unwrap(), Vec::<i64>::new());
        assert_eq!(parse_int_list("-1").unwrap(), vec![-1]);
        assert!(parse_int_list("2,x").is_err());
        assert!(parse_int_list("2,,3").is_err());
    }

    #[test]
    fn a_panic_that_escapes_a_subcommand_is_an_internal_error_not_an_exit() {
        install_panic_hook();
        let got = run_guarded(|| panic!("boom\nsecond line"));
        let _ = std::panic::take_hook();
        let msg = got.unwrap_err().to_string();
        assert_eq!(msg, "internal error (please report): boom second line");
    }

    #[test]
    fn negative_dims_are_refused() {
        assert!(parse_shape("--target-shape", "2,-3").is_err());
    }
}
