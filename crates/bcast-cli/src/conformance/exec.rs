//! Running the suite against any runtime: `bcast conformance --exec 'CMD ARGS'`.
//!
//! For each case folder the command line is split into words like a POSIX shell does (quotes
//! and backslashes; no variables, globs or pipes: nothing is ever passed to a shell), `{case}`
//! in every word becomes the case folder's absolute path and `{out}` a fresh empty folder, and
//! the program runs with no standard input. It either writes the case's outputs as `.npy`
//! files into `{out}` and exits 0, or exits non-zero: 3 means "this case is not supported"
//! (a skip), any other code a refusal of the inputs (which is what an `"error": true` case
//! expects). A program killed by a signal has crashed; one still running after the time limit
//! is killed, with its whole process group, and has timed out. Both fail that case only.
//!
//! The outputs a case expects: the `outputs` of its `case.json` (file names), or, for an IR
//! model case (a folder holding `model.xml`), `<Result name>.npy` for each file of
//! `expected/`; an IR case with `error.txt` expects a refusal (the message is not compared:
//! its wording is bcast's). Outputs are compared as bcast's own are: bit for bit, reduce
//! cases within their `rtol`/`atol`, cases with `"ulp": N` within N ulps for floats.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::{compare, fields, Case, ConformanceError, Expectation, CASE_FILE};
use bcast::Tensor;

/// The exit code by which a command says it does not support a case (counted as skipped).
pub const EXIT_UNSUPPORTED: i32 = 3;

/// How to run the cases.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecOptions {
    /// The command line's words, after splitting, before `{case}`/`{out}` are replaced.
    pub words: Vec<String>,
    /// Per-case time limit.
    pub timeout: Duration,
    /// How many cases run at once (at least 1).
    pub jobs: usize,
}

impl ExecOptions {
    /// Splits `line` (see [`split_words`]) into options with a 60 s limit and one job.
    ///
    /// # Errors
    /// The splitter's reason, or "empty command".
    pub fn new(line: &str) -> Result<ExecOptions, String> {
        let words = split_words(line)?;
        if words.is_empty() {
            return Err("--exec: empty command".into());
        }
        Ok(ExecOptions {
            words,
            timeout: Duration::from_secs(60),
            jobs: 1,
        })
    }
}

/// Splits a command line into words as a POSIX shell does, without expanding anything:
/// blanks (space, tab, newline) separate words; `'...'` keeps everything literally; inside
/// `"..."` a backslash escapes only `"`, `\`, `$`, `` ` `` and a newline; outside quotes a
/// backslash keeps the next character (a backslash-newline is removed); `''` or `""` make an
/// empty word.
///
/// ```
/// use bcast_cli::conformance::exec::split_words;
/// assert_eq!(
///     split_words(r#"python3 'my adapter.py' --case "{case}" a\ b"#).unwrap(),
///     ["python3", "my adapter.py", "--case", "{case}", "a b"]
/// );
/// ```
///
/// # Errors
/// An unterminated quote, or a backslash at the very end.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    // Whether a word has started (so that `''` gives an empty word).
    let mut started = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            '\'' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("--exec: unterminated single quote".into()),
                    }
                }
            }
            '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("--exec: unterminated double quote".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("--exec: unterminated double quote".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(c) => {
                    started = true;
                    word.push(c);
                }
                None => return Err("--exec: a backslash ends the command".into()),
            },
            c => {
                started = true;
                word.push(c);
            }
        }
    }
    if started {
        words.push(word);
    }
    Ok(words)
}

/// What became of one case run by the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ExecVerdict {
    /// Every output matched, or the expected refusal happened.
    Pass,
    /// Wrong outputs, a refusal where outputs were expected, outputs where a refusal was, or
    /// a malformed case.
    Fail,
    /// The command was killed by a signal.
    Crash,
    /// The command ran past the time limit and was killed.
    Timeout,
    /// The command exited with [`EXIT_UNSUPPORTED`].
    Skip,
}

impl ExecVerdict {
    /// `pass`, `fail`, `crash`, `timeout`, `skip`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExecVerdict::Pass => "pass",
            ExecVerdict::Fail => "fail",
            ExecVerdict::Crash => "crash",
            ExecVerdict::Timeout => "timeout",
            ExecVerdict::Skip => "skip",
        }
    }
}

/// The result of running one case folder through the command.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecOutcome {
    /// The case folder, as found.
    pub dir: PathBuf,
    /// The case's name, when its `case.json` could be read (the folder's name for IR cases).
    pub name: Option<String>,
    /// The case's group: its parent folder's name, preceded by the grandparent's when that is
    /// `cases` or `eltwise` (`cases/openvino`, `reduce`, `eltwise/arith`, `ir`, `ir_bad`).
    pub group: String,
    /// `"outputs"` or `"error"`: what the case expects.
    pub expects: &'static str,
    /// Pass, fail, crash, timeout or skip.
    pub verdict: ExecVerdict,
    /// Why it did not pass, on one line (empty on a pass).
    pub reason: String,
    /// How long the command ran.
    pub seconds: f64,
}

impl ExecOutcome {
    /// Whether the case passed.
    pub fn passed(&self) -> bool {
        self.verdict == ExecVerdict::Pass
    }

    /// One JSON object on one line:
    /// `{"case", "name", "group", "expects", "verdict", "reason", "seconds"}`.
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "case": self.dir.display().to_string(),
            "name": self.name,
            "group": self.group,
            "expects": self.expects,
            "verdict": self.verdict.as_str(),
            "reason": self.reason,
            "seconds": (self.seconds * 1000.0).round() / 1000.0,
        })
        .to_string()
    }
}

impl std::fmt::Display for ExecOutcome {
    /// `DIR (name): reason`, or `DIR: pass`, as for bcast's own runs; one line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.dir.display())?;
        if let Some(name) = &self.name {
            let folder = self.dir.file_name().map(|n| n.to_string_lossy());
            if folder.as_deref() != Some(name.as_str()) {
                write!(f, " ({name})")?;
            }
        }
        if self.passed() {
            f.write_str(": pass")
        } else {
            write!(f, ": {}", self.reason)
        }
    }
}

/// The outcomes of an exec run, in the order the cases were found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExecReport {
    /// One outcome per case folder.
    pub outcomes: Vec<ExecOutcome>,
}

impl ExecReport {
    /// Number of cases with this verdict.
    pub fn count(&self, verdict: ExecVerdict) -> usize {
        self.outcomes
            .iter()
            .filter(|o| o.verdict == verdict)
            .count()
    }

    /// Number of cases that passed.
    pub fn passed(&self) -> usize {
        self.count(ExecVerdict::Pass)
    }

    /// Number of cases that did not pass (crashed, timed out and skipped included).
    pub fn failed(&self) -> usize {
        self.outcomes.len() - self.passed()
    }

    /// `N passed, M failed`.
    pub fn summary(&self) -> String {
        format!("{} passed, {} failed", self.passed(), self.failed())
    }

    /// `of the failed: C crashed, T timed out, S skipped (not supported)`, naming only the
    /// non-zero counts; `None` when every failure is a plain one.
    pub fn breakdown(&self) -> Option<String> {
        let parts: Vec<String> = [
            (ExecVerdict::Crash, "crashed"),
            (ExecVerdict::Timeout, "timed out"),
            (ExecVerdict::Skip, "skipped (not supported)"),
        ]
        .iter()
        .filter_map(|&(v, what)| match self.count(v) {
            0 => None,
            n => Some(format!("{n} {what}")),
        })
        .collect();
        (!parts.is_empty()).then(|| format!("of the failed: {}", parts.join(", ")))
    }
}

/// Why an exec run could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// The folders could not be searched.
    #[error(transparent)]
    Search(#[from] ConformanceError),
    /// The command cannot be started at all (no such program, not executable).
    #[error("cannot run '{program}': {source}")]
    Start {
        /// The program named by the first word.
        program: String,
        /// What the system said.
        source: io::Error,
    },
    /// The scratch folder for a case could not be made.
    #[error("cannot make a scratch folder under {dir}: {source}")]
    Scratch {
        /// The system's temporary folder.
        dir: PathBuf,
        /// What the system said.
        source: io::Error,
    },
}

/// Runs every case in `cases` through the command, `options.jobs` at a time, and hands each
/// outcome to `on_outcome` in the order of `cases` as soon as it and every earlier one are
/// known. When `on_outcome` returns `false` (stdout closed, say), no further case is started;
/// the report then holds the cases handed over so far.
///
/// # Errors
/// [`ExecError::Start`] when the program cannot be started, [`ExecError::Scratch`] when no
/// scratch folder can be made; cases already handed over stay handed over.
pub fn run_cases(
    cases: &[PathBuf],
    options: &ExecOptions,
    mut on_outcome: impl FnMut(&ExecOutcome) -> bool,
) -> Result<ExecReport, ExecError> {
    let jobs = options.jobs.clamp(1, cases.len().max(1));
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (send, receive) = mpsc::channel::<(usize, Result<ExecOutcome, ExecError>)>();
    let mut report = ExecReport::default();
    let mut fatal = None;
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let send = send.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || loop {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(dir) = cases.get(i) else { break };
                let outcome = run_case(dir, options);
                if outcome.is_err() {
                    stop.store(true, Ordering::SeqCst);
                }
                if send.send((i, outcome)).is_err() {
                    break;
                }
            });
        }
        drop(send);
        // Outcomes arrive in any order; hand them over in case order.
        let mut pending = std::collections::BTreeMap::new();
        let mut due = 0;
        for (i, outcome) in receive {
            pending.insert(i, outcome);
            while let Some(outcome) = pending.remove(&due) {
                due += 1;
                if fatal.is_some() {
                    continue;
                }
                match outcome {
                    Ok(outcome) => {
                        if !on_outcome(&outcome) {
                            stop.store(true, Ordering::SeqCst);
                            fatal = Some(None);
                        }
                        report.outcomes.push(outcome);
                    }
                    Err(e) => {
                        stop.store(true, Ordering::SeqCst);
                        fatal = Some(Some(e));
                    }
                }
            }
        }
    });
    match fatal {
        Some(Some(e)) => Err(e),
        _ => Ok(report),
    }
}

/// What a case expects of the command, and how outputs are compared.
struct Plan {
    name: Option<String>,
    expect: Expectation,
    comparison: Comparison,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Comparison {
    Exact,
    Close { rtol: f64, atol: f64 },
    Ulps(u64),
}

impl Comparison {
    fn check(self, expected: &Tensor, actual: &Tensor) -> Result<(), String> {
        match self {
            Comparison::Exact => compare::exact(expected, actual),
            Comparison::Close { rtol, atol } => compare::close(expected, actual, rtol, atol),
            Comparison::Ulps(n) => compare::within_ulps(expected, actual, n),
        }
    }

    /// `reduce` cases compare within `rtol`/`atol`, cases with `ulp` within that many ulps,
    /// everything else exactly.
    fn of(op: Option<&str>, f: &Map<String, Value>) -> Result<Comparison, String> {
        if let Some(n) = fields::optional_int(f, "ulp")? {
            return u64::try_from(n)
                .map(Comparison::Ulps)
                .map_err(|_| "\"ulp\" must be a non-negative integer".to_string());
        }
        if op == Some("reduce") {
            let tolerance = |key: &str| -> Result<f64, String> {
                match f.get(key) {
                    None => Ok(0.0),
                    Some(v) => v
                        .as_f64()
                        .filter(|t| *t >= 0.0 && t.is_finite())
                        .ok_or_else(|| format!("\"{key}\" must be a non-negative number")),
                }
            };
            return Ok(Comparison::Close {
                rtol: tolerance("rtol")?,
                atol: tolerance("atol")?,
            });
        }
        Ok(Comparison::Exact)
    }
}

fn plan(dir: &Path) -> Result<Plan, (Option<String>, String)> {
    if super::ir_model::is_ir_case(dir) {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let fail = |e: String| (name.clone(), e);
        // The case.json of an IR case holds notes, and maybe "ulp".
        let notes = match fs::read_to_string(dir.join(CASE_FILE)) {
            Ok(text) => match serde_json::from_str(&text) {
                Ok(Value::Object(m)) => m,
                _ => {
                    return Err(fail(format!(
                        "malformed case: {CASE_FILE} is not a JSON object"
                    )))
                }
            },
            Err(_) => Map::new(),
        };
        let comparison =
            Comparison::of(None, &notes).map_err(|e| fail(format!("malformed case: {e}")))?;
        let expect = if dir.join("error.txt").is_file() {
            Expectation::Error
        } else {
            let files = super::ir_model::npy_files(&dir.join("expected")).map_err(fail)?;
            if files.is_empty() {
                return Err(fail(
                    "malformed case: no expected/*.npy and no error.txt".into(),
                ));
            }
            Expectation::Outputs(
                files
                    .into_iter()
                    .map(|(stem, _)| format!("{stem}.npy"))
                    .collect(),
            )
        };
        return Ok(Plan {
            name,
            expect,
            comparison,
        });
    }
    let case = Case::load(dir).map_err(|e| (None, e))?;
    let comparison = Comparison::of(Some(&case.op), &case.fields)
        .map_err(|e| (Some(case.name.clone()), format!("malformed case: {e}")))?;
    Ok(Plan {
        name: Some(case.name),
        expect: case.expect,
        comparison,
    })
}

/// Where the expected outputs of a case lie: the case folder, or `expected/` for IR.
fn expected_dir(dir: &Path) -> PathBuf {
    if super::ir_model::is_ir_case(dir) {
        dir.join("expected")
    } else {
        dir.to_path_buf()
    }
}

/// The group of a case folder (see [`ExecOutcome::group`]).
pub fn group_of(dir: &Path) -> String {
    let name = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
    };
    let parent = dir.parent();
    match (name(parent.and_then(Path::parent)), name(parent)) {
        (Some(g), Some(p)) if g == "cases" || g == "eltwise" => format!("{g}/{p}"),
        (_, Some(p)) => p,
        _ => String::new(),
    }
}

/// A scratch folder for one case, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, ExecError> {
        static N: AtomicUsize = AtomicUsize::new(0);
        let base = std::env::temp_dir();
        loop {
            let dir = base.join(format!(
                "bcast-exec-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::SeqCst)
            ));
            match fs::create_dir(&dir) {
                Ok(()) => {
                    fs::create_dir(dir.join("out")).map_err(|source| ExecError::Scratch {
                        dir: base.clone(),
                        source,
                    })?;
                    return Ok(Scratch(dir));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(source) => return Err(ExecError::Scratch { dir: base, source }),
            }
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// How the command ended.
enum Ended {
    Exited(i32),
    Signal(i32),
    TimedOut,
}

/// Runs one case through the command.
///
/// # Errors
/// Only what stops the whole run: the program cannot be started, no scratch folder.
pub fn run_case(dir: &Path, options: &ExecOptions) -> Result<ExecOutcome, ExecError> {
    let group = group_of(dir);
    let outcome = |name, expects, verdict, reason: String, seconds| ExecOutcome {
        dir: dir.to_path_buf(),
        name,
        group: group.clone(),
        expects,
        verdict,
        reason: reason.replace(['\n', '\r'], " "),
        seconds,
    };
    let plan = match plan(dir) {
        Ok(plan) => plan,
        Err((name, reason)) => return Ok(outcome(name, "outputs", ExecVerdict::Fail, reason, 0.0)),
    };
    let expects = match plan.expect {
        Expectation::Error => "error",
        Expectation::Outputs(_) => "outputs",
    };
    let scratch = Scratch::new()?;
    let out = scratch.0.join("out");
    let log_path = scratch.0.join("log.txt");
    let case_dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let (case_s, out_s) = (case_dir.to_string_lossy(), out.to_string_lossy());
    let words: Vec<String> = options
        .words
        .iter()
        .map(|w| w.replace("{case}", &case_s).replace("{out}", &out_s))
        .collect();
    let started = Instant::now();
    let ended = run_command(&words, &log_path, options.timeout)?;
    let seconds = started.elapsed().as_secs_f64();
    let said = || last_line(&log_path);
    let program = &options.words[0];
    let (verdict, reason) = match (ended, &plan.expect) {
        (Ended::TimedOut, _) => (
            ExecVerdict::Timeout,
            format!("timed out after {} s", options.timeout.as_secs_f64()),
        ),
        (Ended::Signal(n), _) => (
            ExecVerdict::Crash,
            format!("crashed: signal {n}{}", signal_name(n)),
        ),
        (Ended::Exited(EXIT_UNSUPPORTED), _) => (
            ExecVerdict::Skip,
            format!("not supported (exit {EXIT_UNSUPPORTED}){}", said()),
        ),
        (Ended::Exited(0), Expectation::Error) => (
            ExecVerdict::Fail,
            format!(
                "expected a rejection, but {program} exited 0{}",
                written(&out)
            ),
        ),
        (Ended::Exited(_), Expectation::Error) => (ExecVerdict::Pass, String::new()),
        (Ended::Exited(code), Expectation::Outputs(_)) if code != 0 => (
            ExecVerdict::Fail,
            format!(
                "expected outputs, but {program} refused (exit {code}){}",
                said()
            ),
        ),
        (Ended::Exited(_), Expectation::Outputs(files)) => {
            match compare_outputs(files, &expected_dir(dir), &out, plan.comparison) {
                Ok(()) => (ExecVerdict::Pass, String::new()),
                Err(e) => (ExecVerdict::Fail, e),
            }
        }
    };
    Ok(outcome(plan.name, expects, verdict, reason, seconds))
}

fn compare_outputs(
    files: &[String],
    expected_dir: &Path,
    out: &Path,
    comparison: Comparison,
) -> Result<(), String> {
    for file in files {
        let expected = bcast::npy::read(expected_dir.join(file))
            .map_err(|e| format!("expected output {file}: {e}"))?;
        let path = out.join(file);
        if !path.is_file() {
            return Err(format!("missing output {file}{}", written(out)));
        }
        let actual = bcast::npy::read(&path).map_err(|e| format!("output {file}: {e}"))?;
        comparison
            .check(&expected, &actual)
            .map_err(|e| format!("{file}: {e}"))?;
    }
    Ok(())
}

/// ` (it wrote a.npy, b.npy)` or ` (it wrote nothing)`.
fn written(out: &Path) -> String {
    let mut names: Vec<String> = fs::read_dir(out)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    if names.is_empty() {
        " (it wrote nothing)".into()
    } else {
        format!(" (it wrote {})", names.join(", "))
    }
}

/// `: <the last non-empty line the command printed>`, at most 300 characters, or nothing.
fn last_line(log: &Path) -> String {
    let text = fs::read(log).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    match text.lines().rev().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) => {
            let cut: String = line.chars().take(300).collect();
            format!(": {cut}")
        }
        None => String::new(),
    }
}

/// Starts `words` (never through a shell) with stdin closed and stdout and stderr into `log`,
/// in a process group of its own, and waits at most `timeout` for it.
fn run_command(words: &[String], log: &Path, timeout: Duration) -> Result<Ended, ExecError> {
    let scratch_error = |source| ExecError::Scratch {
        dir: std::env::temp_dir(),
        source,
    };
    let log = File::create(log).map_err(scratch_error)?;
    let log2 = log.try_clone().map_err(scratch_error)?;
    let mut command = Command::new(&words[0]);
    command
        .args(&words[1..])
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command.spawn().map_err(|source| ExecError::Start {
        program: words[0].clone(),
        source,
    })?;
    let deadline = Instant::now() + timeout;
    let mut nap = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(ended(status)),
            Ok(None) => {}
            Err(_) => {
                kill(&mut child);
                return Ok(Ended::Signal(9));
            }
        }
        let now = Instant::now();
        if now >= deadline {
            kill(&mut child);
            return Ok(Ended::TimedOut);
        }
        std::thread::sleep(nap.min(deadline - now));
        nap = (nap * 2).min(Duration::from_millis(20));
    }
}

fn ended(status: ExitStatus) -> Ended {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(n) = status.signal() {
            return Ended::Signal(n);
        }
    }
    Ended::Exited(status.code().unwrap_or(-1))
}

/// Kills the child's whole process group (its helpers too), then reaps the child.
fn kill(child: &mut Child) {
    #[cfg(target_os = "linux")]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the child leads
        // (made by `process_group(0)`); it touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// ` (SIGSEGV)` for the usual signals, nothing for the others.
fn signal_name(n: i32) -> &'static str {
    match n {
        1 => " (SIGHUP)",
        2 => " (SIGINT)",
        3 => " (SIGQUIT)",
        4 => " (SIGILL)",
        5 => " (SIGTRAP)",
        6 => " (SIGABRT)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        13 => " (SIGPIPE)",
        14 => " (SIGALRM)",
        15 => " (SIGTERM)",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(line: &str) -> Vec<String> {
        split_words(line).unwrap()
    }

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(w("  a  b\tc\n"), ["a", "b", "c"]);
        assert_eq!(w("a'b c'd"), ["ab cd"]);
        assert_eq!(w(r#""a \"q\" \\ \$ \x""#), [r#"a "q" \ $ \x"#]);
        assert_eq!(w(r"a\ b \'c"), ["a b", "'c"]);
        assert_eq!(w("'' \"\" x"), ["", "", "x"]);
        assert_eq!(w("a\\\nb"), ["ab"]);
        assert_eq!(w("'$HOME' *.npy ; |"), ["$HOME", "*.npy", ";", "|"]);
        assert_eq!(w("  "), Vec::<String>::new());
        assert_eq!(
            w("--case={case} '{out}/x y'"),
            ["--case={case}", "{out}/x y"]
        );
    }

    #[test]
    fn refuses_unterminated_quotes() {
        assert!(split_words("a 'b").unwrap_err().contains("single quote"));
        assert!(split_words("a \"b").unwrap_err().contains("double quote"));
        assert!(split_words("a \"b\\").unwrap_err().contains("double quote"));
        assert!(split_words("a \\").unwrap_err().contains("backslash"));
        assert!(ExecOptions::new(" ").unwrap_err().contains("empty"));
    }

    #[test]
    fn groups_follow_the_suite_layout() {
        let g = |p: &str| group_of(Path::new(p));
        assert_eq!(g("conformance/cases/openvino/x"), "cases/openvino");
        assert_eq!(g("/a/conformance/eltwise/arith/x"), "eltwise/arith");
        assert_eq!(g("conformance/reduce/x"), "reduce");
        assert_eq!(g("conformance/ir_bad/x"), "ir_bad");
    }

    #[test]
    fn comparison_follows_the_case() {
        let m = |s: &str| match serde_json::from_str(s).unwrap() {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        assert_eq!(
            Comparison::of(Some("broadcast"), &m("{}")),
            Ok(Comparison::Exact)
        );
        assert_eq!(
            Comparison::of(Some("eltwise"), &m(r#"{"ulp": 1}"#)),
            Ok(Comparison::Ulps(1))
        );
        assert_eq!(
            Comparison::of(Some("reduce"), &m(r#"{"rtol": 0.5}"#)),
            Ok(Comparison::Close {
                rtol: 0.5,
                atol: 0.0
            })
        );
        assert!(Comparison::of(None, &m(r#"{"ulp": -1}"#)).is_err());
    }
}
