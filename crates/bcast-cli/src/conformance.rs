//! Conformance cases: folders holding a `case.json` and `.npy` files, run against the library.
//!
//! # The case format
//!
//! A folder holding `model.xml` is an OpenVINO IR model case instead (see
//! `conformance/ir/`): its `inputs/*.npy` go in, its `expected/*.npy` must come out bit-exactly,
//! or its `error.txt` must be contained in the refusal.
//!
//! A case is a folder with a `case.json` such as
//!
//! ```json
//! {"name": "explicit_c_to_nchw", "mode": "explicit", "target_shape": [1,16,50,50],
//!  "axes_mapping": [1], "inputs": ["in0.npy"], "outputs": ["out0.npy"]}
//! ```
//!
//! - `name` (string), `inputs` (file names inside the folder) and either `outputs` (file names)
//!   or `"error": true` (the case must be rejected) are common to every op.
//! - `op` names what is run: absent or `"broadcast"`, `"reduce"`, `"eltwise"` or `"select"`
//!   (element-wise ops under auto-broadcast; fields in `conformance/eltwise/README.md`:
//!   `eltwise`, `auto_broadcast`, `axis`, `pythondiv`, `ulp`). Any other op fails the case
//!   with the reason `unknown op`.
//! - The broadcast op takes `mode`: `numpy`, `bidirectional`, `explicit` (alias `none`), `pdpd`,
//!   `axes` or `multi`, with `target_shape` (every mode but `multi`), `axes_mapping`
//!   (explicit), `axis` (pdpd, default -1) and `broadcast_axes` (axes). `multi` takes N inputs,
//!   lists N outputs and has no `target_shape`.
//! - Shape and axis values are integers of any sign: a value no valid op accepts (a negative
//!   axis, a negative dim) is an input to reject, not a malformed case. A missing field, a
//!   value of the wrong JSON type, or a mode argument given to a mode that does not take it
//!   makes the case fail as malformed; keys nobody reads (`note`, `source`) are ignored.
//! - A case passes when every output matches in dtype, shape and value: bit-exact for numbers
//!   (a NaN equals a NaN with the same bits, `-0.0` differs from `0.0`), by value for strings
//!   (the npy width does not matter).
//!
//! # Running
//!
//! [`run_case`] runs one folder; [`find_cases`] walks folders recursively for case folders (a
//! folder with a `case.json` is a case and is not searched further); [`run_dirs`] does both
//! and returns a [`Report`]. A folder under which no case is found is an error, not a pass.
//!
//! ```no_run
//! use std::path::PathBuf;
//!
//! let report = bcast_cli::conformance::run_dirs(&[PathBuf::from("conformance")])?;
//! for failure in report.failures() {
//!     println!("FAIL {}", failure);
//! }
//! println!("{}", report.summary());
//! # Ok::<(), bcast_cli::conformance::ConformanceError>(())
//! ```
//!
//! # Adding an op
//!
//! An op is one file under `src/conformance/` that parses its fields from a [`Case`] into a
//! spec and runs the spec on the loaded inputs, plus one variant of `Prepared` and one arm in
//! `prepare` and in `Prepared::run`. The runner does everything else (loading, rejection
//! cases, comparison).

mod broadcast;
mod compare;
mod eltwise;
pub mod exec;
mod fields;
mod ir_model;
mod reduce;

use std::collections::HashSet;
use std::fmt;
use std::fs;
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use bcast::Tensor;

/// The file that makes a folder a case.
pub const CASE_FILE: &str = "case.json";

/// The parts of a `case.json` common to every op; op-specific fields stay in [`Case::fields`].
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The case folder.
    pub dir: PathBuf,
    /// The case's `name`.
    pub name: String,
    /// The op to run (`broadcast` when the file has no `op`).
    pub op: String,
    /// Input files, relative to [`Case::dir`].
    pub inputs: Vec<String>,
    /// What the case expects.
    pub expect: Expectation,
    /// The whole JSON object, for the op to read its own fields from.
    pub fields: Map<String, Value>,
}

/// What a case expects of the op.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expectation {
    /// These output files, relative to the case folder, in order.
    Outputs(Vec<String>),
    /// A rejection (`"error": true`).
    Error,
}

impl Case {
    /// Reads and checks `dir/case.json`.
    ///
    /// # Errors
    /// A one-line reason, starting with `malformed case:` when the file is readable JSON that
    /// breaks the format.
    pub fn load(dir: &Path) -> Result<Case, String> {
        let path = dir.join(CASE_FILE);
        let text =
            fs::read_to_string(&path).map_err(|e| format!("cannot read {CASE_FILE}: {e}"))?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| format!("malformed case: {CASE_FILE} is not valid JSON: {e}"))?;
        Case::from_json(dir, value).map_err(|e| format!("malformed case: {e}"))
    }

    /// Builds a case from an already parsed `case.json`.
    ///
    /// # Errors
    /// Why the object breaks the format (no `malformed case:` prefix).
    pub fn from_json(dir: &Path, value: Value) -> Result<Case, String> {
        let Value::Object(fields) = value else {
            return Err(format!("{CASE_FILE} must hold a JSON object"));
        };
        let name = fields::required_str(&fields, "name")?.to_string();
        let op = fields::optional_str(&fields, "op")?
            .unwrap_or("broadcast")
            .to_string();
        let inputs = file_list(&fields, "inputs")?;
        let error = fields::optional_bool(&fields, "error")?.unwrap_or(false);
        let outputs = match fields.get("outputs") {
            None => None,
            Some(_) => Some(file_list(&fields, "outputs")?),
        };
        let expect = match (error, outputs) {
            (true, None) => Expectation::Error,
            (true, Some(_)) => {
                return Err("a case has either \"outputs\" or \"error\": true, not both".into())
            }
            (false, Some(outputs)) => Expectation::Outputs(outputs),
            (false, None) => return Err("missing \"outputs\" (or \"error\": true)".into()),
        };
        Ok(Case {
            dir: dir.to_path_buf(),
            name,
            op,
            inputs,
            expect,
            fields,
        })
    }
}

/// A list of file names that must stay inside the case folder.
fn file_list(fields: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    let names = fields::str_list(fields, key)?;
    for name in &names {
        let path = Path::new(name);
        let inside = !name.is_empty()
            && path
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(format!(
                "\"{key}\" entry '{name}' must be a file name inside the case folder"
            ));
        }
    }
    Ok(names)
}

/// An op's spec, parsed from a case before any file is read.
enum Prepared {
    Broadcast(broadcast::Spec),
    Reduce(reduce::Spec),
    Eltwise(eltwise::Spec),
}

/// How expected and actual outputs are compared.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Comparison {
    /// Same dtype, shape, and bits (strings by value).
    Exact,
    /// Same dtype and shape; floats within `atol` or `rtol` (approx's `relative_eq`),
    /// everything else exactly.
    Close {
        /// Relative tolerance.
        rtol: f64,
        /// Absolute tolerance.
        atol: f64,
    },
    /// Same dtype and shape; floats within this many units in the last place (a NaN matches
    /// any NaN), everything else exactly.
    Ulp(u32),
}

/// What an op made of its inputs.
enum Ran {
    /// The op produced these outputs.
    Outputs(Vec<Tensor>),
    /// The op refused the inputs, for this reason.
    Rejected(String),
}

/// Parses the op-specific fields: the one place that knows every op.
fn prepare(case: &Case) -> Result<Prepared, String> {
    match case.op.as_str() {
        "broadcast" => broadcast::Spec::parse(case).map(Prepared::Broadcast),
        "reduce" => reduce::Spec::parse(case).map(Prepared::Reduce),
        "eltwise" => eltwise::Spec::parse(case, false).map(Prepared::Eltwise),
        "select" => eltwise::Spec::parse(case, true).map(Prepared::Eltwise),
        other => Err(format!("unknown op '{other}'")),
    }
}

impl Prepared {
    fn run(&self, inputs: &[Tensor]) -> Ran {
        match self {
            Prepared::Broadcast(spec) => spec.run(inputs),
            Prepared::Reduce(spec) => spec.run(inputs),
            Prepared::Eltwise(spec) => spec.run(inputs),
        }
    }

    fn comparison(&self) -> Comparison {
        match self {
            Prepared::Broadcast(_) => Comparison::Exact,
            Prepared::Reduce(spec) => Comparison::Close {
                rtol: spec.rtol,
                atol: spec.atol,
            },
            Prepared::Eltwise(spec) if spec.ulp == 0 => Comparison::Exact,
            Prepared::Eltwise(spec) => Comparison::Ulp(spec.ulp),
        }
    }
}

/// Whether a case passed, and why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every output matched, or the expected rejection happened.
    Pass,
    /// The reason, on one line.
    Fail(String),
}

/// The result of running one case folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseOutcome {
    /// The case folder.
    pub dir: PathBuf,
    /// The case's name, when its `case.json` could be read.
    pub name: Option<String>,
    /// Pass, or fail with a reason.
    pub verdict: Verdict,
}

impl CaseOutcome {
    /// Whether the case passed.
    pub fn passed(&self) -> bool {
        self.verdict == Verdict::Pass
    }
}

impl fmt::Display for CaseOutcome {
    /// `DIR: reason` for a failure, `DIR: pass` otherwise; always one line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.dir.display())?;
        if let Some(name) = &self.name {
            let folder = self.dir.file_name().map(|n| n.to_string_lossy());
            if folder.as_deref() != Some(name.as_str()) {
                write!(f, " ({name})")?;
            }
        }
        match &self.verdict {
            Verdict::Pass => f.write_str(": pass"),
            Verdict::Fail(reason) => write!(f, ": {}", one_line(reason)),
        }
    }
}

fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// Runs the case in `dir`. Never panics on a bad case: every problem becomes a failure reason.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use bcast_cli::conformance::{run_case, Verdict};
/// use ndarray::array;
///
/// let dir = std::env::temp_dir().join(format!("bcast-doc-case-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(
///     dir.join("case.json"),
///     r#"{"name": "row", "mode": "numpy", "target_shape": [2, 3],
///         "inputs": ["in0.npy"], "outputs": ["out0.npy"]}"#,
/// )?;
/// let input: bcast::Tensor = array![1i32, 2, 3].into_dyn().into();
/// let output: bcast::Tensor = array![[1i32, 2, 3], [1, 2, 3]].into_dyn().into();
/// std::fs::write(dir.join("in0.npy"), bcast::npy::to_bytes(&input)?)?;
/// std::fs::write(dir.join("out0.npy"), bcast::npy::to_bytes(&output)?)?;
/// assert_eq!(run_case(&dir).verdict, Verdict::Pass);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(())
/// # }
/// ```
pub fn run_case(dir: &Path) -> CaseOutcome {
    let mut name = None;
    let verdict = if ir_model::is_ir_case(dir) {
        name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        match ir_model::judge(dir) {
            Ok(()) => Verdict::Pass,
            Err(reason) => Verdict::Fail(one_line(&reason)),
        }
    } else {
        match Case::load(dir) {
            Ok(case) => {
                name = Some(case.name.clone());
                match judge(&case) {
                    Ok(()) => Verdict::Pass,
                    Err(reason) => Verdict::Fail(one_line(&reason)),
                }
            }
            Err(reason) => Verdict::Fail(one_line(&reason)),
        }
    };
    CaseOutcome {
        dir: dir.to_path_buf(),
        name,
        verdict,
    }
}

/// Runs an already loaded case: `Ok` when it passes, the reason otherwise.
fn judge(case: &Case) -> Result<(), String> {
    let prepared = prepare(case).map_err(|e| {
        if e.starts_with("unknown op") {
            e
        } else {
            format!("malformed case: {e}")
        }
    })?;
    let inputs = case
        .inputs
        .iter()
        .map(|file| bcast::npy::read(case.dir.join(file)).map_err(|e| format!("input {file}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let ran = prepared.run(&inputs);
    match (&case.expect, ran) {
        (Expectation::Error, Ran::Rejected(_)) => Ok(()),
        (Expectation::Error, Ran::Outputs(outputs)) => Err(format!(
            "expected a rejection, but the {} was accepted and gave output shape{} {}",
            case.op,
            if outputs.len() == 1 { "" } else { "s" },
            outputs
                .iter()
                .map(|t| bcast::Dims(t.shape().to_vec()).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        (Expectation::Outputs(_), Ran::Rejected(why)) => Err(format!(
            "expected outputs, but the {} was rejected: {why}",
            case.op
        )),
        (Expectation::Outputs(files), Ran::Outputs(outputs)) => {
            if files.len() != outputs.len() {
                return Err(format!(
                    "the case lists {} output file(s) but the {} produced {} output(s)",
                    files.len(),
                    case.op,
                    outputs.len()
                ));
            }
            let comparison = prepared.comparison();
            for (file, actual) in files.iter().zip(&outputs) {
                let expected = bcast::npy::read(case.dir.join(file))
                    .map_err(|e| format!("expected output {file}: {e}"))?;
                let verdict = match comparison {
                    Comparison::Exact => compare::exact(&expected, actual),
                    Comparison::Close { rtol, atol } => {
                        compare::close(&expected, actual, rtol, atol)
                    }
                    Comparison::Ulp(ulp) => compare::within_ulps(&expected, actual, u64::from(ulp)),
                };
                verdict.map_err(|e| format!("{file}: {e}"))?;
            }
            Ok(())
        }
    }
}

/// Why folders could not be searched for cases.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConformanceError {
    /// No folder was given.
    #[error("no folder given to search for cases")]
    NoFolders,
    /// A given path does not exist or is not a folder.
    #[error("{0}: not a folder")]
    NotAFolder(PathBuf),
    /// A folder holds no case anywhere below it.
    #[error("{0}: no case folder (holding {CASE_FILE}) found under it")]
    NoCases(PathBuf),
    /// A folder could not be listed.
    #[error("{path}: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

/// What a search of case folders found: the case folders, and the entries that could not be
/// searched (each with the reason), which a run reports as failed entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// Case folders, in path order within each given folder, each once.
    pub cases: Vec<PathBuf>,
    /// Entries that could not be searched (unreadable folders, broken or looping links, a
    /// link to a folder above the searched one), with the reason.
    pub unreadable: Vec<(PathBuf, String)>,
}

/// Every case folder under each of `dirs`, recursively, in path order within each folder, each
/// once even when the folders overlap. A folder holding `case.json` is a case and is not
/// searched further.
///
/// # Errors
/// As [`search`]. Entries below the given folders that cannot be searched are left out; use
/// [`search`] to see them.
pub fn find_cases(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, ConformanceError> {
    search(dirs).map(|found| found.cases)
}

/// Searches `dirs` for case folders. Symlinks are followed, but every folder is searched at
/// most once (by its canonical path), so links that fan out (folders d0..d22 each linking
/// twice to the next) cost one visit per folder, not 2^23; a link to the searched folder
/// itself or to a folder above it (`root -> /`) is reported, not followed. An entry that
/// cannot be read is reported in [`Found::unreadable`] and the search goes on.
///
/// # Errors
/// [`ConformanceError::NoFolders`] for an empty list, [`ConformanceError::NotAFolder`],
/// [`ConformanceError::NoCases`] when nothing is found under one of the folders (and nothing
/// there was unreadable), [`ConformanceError::Io`] when a given folder itself cannot be listed.
pub fn search(dirs: &[PathBuf]) -> Result<Found, ConformanceError> {
    if dirs.is_empty() {
        return Err(ConformanceError::NoFolders);
    }
    let mut seen = HashSet::new();
    let mut all = Found::default();
    for dir in dirs {
        if !dir.is_dir() {
            return Err(ConformanceError::NotAFolder(dir.clone()));
        }
        let io = |source| ConformanceError::Io {
            path: dir.clone(),
            source,
        };
        let root = fs::canonicalize(dir).map_err(io)?;
        // The given folder must be listable; below it, problems are entries of the report.
        fs::read_dir(dir).map_err(io)?;
        let mut found = Found::default();
        let mut walker = Walker {
            root: &root,
            visited: HashSet::new(),
            found: &mut found,
        };
        walker.walk(dir);
        if found.cases.is_empty() && found.unreadable.is_empty() {
            return Err(ConformanceError::NoCases(dir.clone()));
        }
        for case in found.cases {
            let key = fs::canonicalize(&case).unwrap_or_else(|_| case.clone());
            if seen.insert(key) {
                all.cases.push(case);
            }
        }
        for (path, why) in found.unreadable {
            if seen.insert(path.clone()) {
                all.unreadable.push((path, why));
            }
        }
    }
    Ok(all)
}

/// One search below a given folder.
struct Walker<'a> {
    /// The given folder, canonical.
    root: &'a Path,
    /// Every canonical folder already searched.
    visited: HashSet<PathBuf>,
    found: &'a mut Found,
}

impl Walker<'_> {
    fn fail(&mut self, path: &Path, why: impl fmt::Display) {
        self.found
            .unreadable
            .push((path.to_path_buf(), format!("cannot search: {why}")));
    }

    fn walk(&mut self, dir: &Path) {
        let canonical = match fs::canonicalize(dir) {
            Ok(c) => c,
            Err(e) => return self.fail(dir, e),
        };
        if !self.visited.insert(canonical.clone()) {
            return;
        }
        match fs::metadata(dir.join(CASE_FILE)) {
            Ok(m) if m.is_file() => {
                self.found.cases.push(dir.to_path_buf());
                return;
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return self.fail(dir, e),
        }
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => return self.fail(dir, e),
        };
        let mut subdirs = Vec::new();
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    self.fail(dir, e);
                    continue;
                }
            };
            let path = entry.path();
            let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
            match fs::metadata(&path) {
                Ok(m) if m.is_dir() => subdirs.push((path, is_link)),
                Ok(_) => {}
                // A dangling link is not a folder: nothing to search.
                Err(e) if is_link && e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => self.fail(&path, e),
            }
        }
        subdirs.sort();
        for (sub, is_link) in subdirs {
            if is_link {
                if let Ok(target) = fs::canonicalize(&sub) {
                    if self.root.starts_with(&target) {
                        self.fail(
                            &sub,
                            format!(
                                "links to {}, the searched folder or one above it; not followed",
                                target.display()
                            ),
                        );
                        continue;
                    }
                }
            }
            self.walk(&sub);
        }
    }
}

/// Runs every case folder found under `dirs` (see [`search`]); entries that could not be
/// searched are failed outcomes too.
///
/// # Errors
/// As [`search`]; a failing case is not an error but an outcome in the report.
pub fn run_dirs(dirs: &[PathBuf]) -> Result<Report, ConformanceError> {
    let found = search(dirs)?;
    let mut outcomes: Vec<CaseOutcome> = found.cases.iter().map(|dir| run_case(dir)).collect();
    outcomes.extend(found.unreadable.into_iter().map(|(dir, why)| CaseOutcome {
        dir,
        name: None,
        verdict: Verdict::Fail(one_line(&why)),
    }));
    Ok(Report { outcomes })
}

/// The outcomes of a run, in the order the cases were found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// One outcome per case folder.
    pub outcomes: Vec<CaseOutcome>,
}

impl Report {
    /// Number of cases that passed.
    pub fn passed(&self) -> usize {
        self.outcomes.iter().filter(|o| o.passed()).count()
    }

    /// Number of cases that failed.
    pub fn failed(&self) -> usize {
        self.outcomes.len() - self.passed()
    }

    /// The failed cases.
    pub fn failures(&self) -> impl Iterator<Item = &CaseOutcome> {
        self.outcomes.iter().filter(|o| !o.passed())
    }

    /// `N passed, M failed`.
    pub fn summary(&self) -> String {
        format!("{} passed, {} failed", self.passed(), self.failed())
    }
}

/// Runs every case folder found under `dirs` (see [`find_cases`]) through an outside command
/// instead of bcast (`bcast conformance --exec`; the protocol is in [`exec`]), handing each
/// outcome to `on_outcome` in case order; `false` from it stops the run.
///
/// # Errors
/// As [`find_cases`], and [`exec::ExecError::Start`] when the command cannot be started.
pub fn run_dirs_exec(
    dirs: &[PathBuf],
    options: &exec::ExecOptions,
    on_outcome: impl FnMut(&exec::ExecOutcome) -> bool,
) -> Result<exec::ExecReport, exec::ExecError> {
    let cases = find_cases(dirs)?;
    exec::run_cases(&cases, options, on_outcome)
}
