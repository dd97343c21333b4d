//! Shared pieces of the command line: the error type every subcommand returns, exit codes,
//! and the parsing of shape and axis lists.

use std::fmt;
use std::process::ExitCode;

pub mod bench;
pub mod conformance;
pub mod eltwise;
pub mod eval;
pub mod files;
pub mod ir;
pub mod reduce;
pub mod run;

/// A one-line message for `error: ...`; every subcommand failure becomes exit code 2.
#[derive(Debug)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the source said, and nothing that drives a terminal.
        f.write_str(&escape_controls(&self.0.replace('\n', " ")))
    }
}

/// Escapes every control character, so that text taken from a file (an npy `descr`, a
/// layer name) prints as one inert line: `\x1b`, `\r`, `\n`, `\t`, `\0`, `\x7f`, and
/// `\u{9b}` for the C1 controls, which some terminals also obey.
pub fn escape_controls(text: &str) -> String {
    use fmt::Write as _;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if (c as u32) < 0x80 && c.is_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
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
            eprintln!(
                "error: missing required arguments: {}",
                escape_controls(&missing.join(", "))
            );
            ExitCode::from(2)
        }
        _ => {
            let text = e.to_string();
            let mut lines = text.lines().filter(|l| !l.trim().is_empty());
            let mut first = lines
                .next()
                .unwrap_or("invalid arguments")
                .trim_start_matches("error: ")
                .to_string();
            // "cannot be used with:" names the other arguments on the lines after it.
            if first.ends_with(':') {
                let rest: Vec<&str> = lines
                    .take_while(|l| l.starts_with(' '))
                    .map(str::trim)
                    .collect();
                first = format!("{} {}", first, rest.join(", "));
            }
            eprintln!("error: {}", escape_controls(&first));
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

/// Parses a shape or axis list. The grammar (the README's):
///
/// ```text
/// list  = [ "[" ] [ value { "," value } ] [ "]" ]     brackets: both or neither
/// value = [ "-" ] digit { digit }                      a decimal i64
/// ```
///
/// with spaces allowed around values and brackets; an empty list (`""`, `[]`) is rank 0.
/// Nothing else is accepted: no `+`, no empty entries, no trailing comma, no unmatched
/// bracket. A negative value parses (the library refuses it and names its index); a value
/// beyond i64 is refused here as too large.
pub fn parse_int_list(text: &str) -> Result<Vec<i64>, String> {
    let t = text.trim();
    let inner = match (t.strip_prefix('['), t.ends_with(']')) {
        (Some(rest), true) => rest.strip_suffix(']').unwrap_or(rest).trim(),
        (Some(_), false) => return Err(format!("'{text}' opens '[' but does not close it")),
        (None, true) => return Err(format!("'{text}' closes ']' but does not open it")),
        (None, false) => t,
    };
    if inner.is_empty() {
        return Ok(Vec::new());
    }
    inner
        .split(',')
        .map(|v| {
            let v = v.trim();
            let digits = v.strip_prefix('-').unwrap_or(v);
            if v.is_empty() {
                return Err(format!("'{text}' has an empty entry"));
            }
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!(
                    "'{v}' in '{text}' is not an integer (decimal digits, with an optional leading '-')"
                ));
            }
            v.parse::<i64>().map_err(|_| {
                format!(
                    "'{v}' in '{text}' is too large: values must fit in a 64-bit integer (at most {})",
                    i64::MAX
                )
            })
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
    fn lists_follow_one_strict_grammar() {
        assert_eq!(parse_int_list(" [ 3 , 4 ] ").unwrap(), vec![3, 4]);
        assert_eq!(parse_int_list("[ ]").unwrap(), Vec::<i64>::new());
        for bad in [
            "+3,4", "[3,4", "3,4]", "3,4,", ",3", "3 4", "0x3", "3.0", "[[3]]", "--3", "-",
        ] {
            assert!(parse_int_list(bad).is_err(), "{bad} was accepted");
        }
        let e = parse_int_list("99999999999999999999").unwrap_err();
        assert!(e.contains("too large") && e.contains("64-bit"), "{e}");
        assert_eq!(
            parse_int_list("9223372036854775807").unwrap(),
            vec![i64::MAX]
        );
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(
            escape_controls("a\u{1b}[2J\rb\0c\u{9b}d\té"),
            "a\\x1b[2J\\rb\\0c\\u{9b}d\\té"
        );
        let e = CliError("x\ny\u{1b}".into());
        assert_eq!(e.to_string(), "x y\\x1b");
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
