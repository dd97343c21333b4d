//! `bcast run`, `bcast shape`, `bcast multi`: broadcasts on .npy files.
//!
//! Every check that needs no file (mode, flags, shapes, output folder) runs before any input
//! is read, and every output is written atomically (temporary file + rename in the same
//! folder), so a failed call leaves the output paths as they were.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bcast::npy::{self, NpyError};
use bcast::{Dims, Mode, Parallelism, Tensor};

use super::{parse_axes, parse_shape, CliError, CliResult};

/// The broadcast mode and its flags, shared by `run`, `shape` and `reduce`.
#[derive(clap::Args, Debug)]
pub struct ModeArgs {
    /// Broadcast mode: numpy, bidirectional, explicit (IR name: none), pdpd or axes.
    #[arg(long, value_name = "MODE")]
    mode: Mode,
    /// Target shape as a comma list: 1,16,50,50 or [2,3]; [] or "" is rank 0.
    #[arg(long, value_name = "SHAPE", allow_hyphen_values = true)]
    target_shape: String,
    /// Mode explicit/none only: the output axis of each data axis, e.g. 1 or 0,2
    /// (default: none, which only a rank-0 input satisfies).
    #[arg(long, value_name = "AXES", allow_hyphen_values = true)]
    axes_mapping: Option<String>,
    /// Mode pdpd only: the first target axis the data is laid on (default -1: right-aligned).
    #[arg(long, value_name = "AXIS", allow_negative_numbers = true)]
    axis: Option<i64>,
    /// Mode axes only: the output axes that are new, e.g. 0 or 0,2 (default: none).
    #[arg(long, value_name = "AXES", allow_hyphen_values = true)]
    broadcast_axes: Option<String>,
}

impl ModeArgs {
    /// The mode with its arguments filled in from the flags.
    ///
    /// # Errors
    /// A flag given to a mode that does not take it (naming both), or a malformed axis list.
    pub fn mode(&self) -> Result<Mode, CliError> {
        let given = self.mode.name();
        let flags: [(&str, bool, &str); 3] = [
            (
                "--axes-mapping",
                self.axes_mapping.is_some(),
                "explicit (or none)",
            ),
            ("--axis", self.axis.is_some(), "pdpd"),
            ("--broadcast-axes", self.broadcast_axes.is_some(), "axes"),
        ];
        let owner = match self.mode {
            Mode::Explicit { .. } => "--axes-mapping",
            Mode::Pdpd { .. } => "--axis",
            Mode::Axes { .. } => "--broadcast-axes",
            Mode::Numpy | Mode::Bidirectional => "",
        };
        // Silently ignoring a flag would hide a mistake (a pdpd axis under numpy, say).
        if let Some((flag, _, for_mode)) = flags
            .iter()
            .find(|(flag, present, _)| *present && *flag != owner)
        {
            return Err(CliError(format!(
                "{flag} is a flag of --mode {for_mode}; --mode {given} does not take it"
            )));
        }
        Ok(match self.mode {
            Mode::Numpy => Mode::Numpy,
            Mode::Bidirectional => Mode::Bidirectional,
            Mode::Explicit { .. } => Mode::Explicit {
                axes_mapping: optional_axes("--axes-mapping", self.axes_mapping.as_deref())?,
            },
            Mode::Pdpd { .. } => Mode::Pdpd {
                axis: self.axis.unwrap_or(-1),
            },
            Mode::Axes { .. } => Mode::Axes {
                broadcast_axes: optional_axes("--broadcast-axes", self.broadcast_axes.as_deref())?,
            },
        })
    }

    /// The target shape.
    ///
    /// # Errors
    /// A malformed list or a negative dim, naming `--target-shape`.
    pub fn target_shape(&self) -> Result<Vec<usize>, CliError> {
        parse_shape("--target-shape", &self.target_shape)
    }
}

fn optional_axes(flag: &str, text: Option<&str>) -> Result<Vec<usize>, CliError> {
    text.map_or_else(|| Ok(Vec::new()), |t| parse_axes(flag, t))
}

/// Arguments of `bcast run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    mode: ModeArgs,
    /// The data: a .npy file of any npy element type, any byte order, C or Fortran order.
    #[arg(value_name = "IN.npy")]
    input: PathBuf,
    /// Where to write the result (same element type, C order, little-endian). Its folder must
    /// exist; the file is replaced atomically.
    #[arg(value_name = "OUT.npy")]
    output: PathBuf,
}

/// Arguments of `bcast shape`.
#[derive(clap::Args, Debug)]
pub struct ShapeArgs {
    #[command(flatten)]
    mode: ModeArgs,
    /// The data's shape as a comma list: 3 or [2,3]; [] or "" is rank 0.
    #[arg(long, value_name = "SHAPE", allow_hyphen_values = true)]
    data_shape: String,
}

/// Arguments of `bcast multi`.
#[derive(clap::Args, Debug)]
pub struct MultiArgs {
    /// The inputs, all of one element type; each is broadcast to the common shape of all.
    #[arg(value_name = "IN.npy", required = true, num_args = 1..)]
    inputs: Vec<PathBuf>,
    /// An existing folder: input i is written to DIR/out<i>.npy.
    #[arg(long, value_name = "DIR")]
    out_dir: PathBuf,
}

/// `bcast run`: broadcasts one .npy file to a target shape under a mode.
///
/// # Errors
/// Bad flags or shapes, an unreadable or malformed input, a broken broadcast rule, an output
/// path that cannot be written.
pub fn run(args: RunArgs) -> CliResult {
    let mode = args.mode.mode()?;
    let target = args.mode.target_shape()?;
    check_output_file(&args.output)?;
    let data = read_input(&args.input)?;
    let plan = bcast::plan(data.shape(), &target, &mode)?;
    let out = data.run_plan(&plan, Parallelism::Auto)?;
    npy::write_atomic(&args.output, &out).map_err(|e| write_error(&args.output, e))?;
    Ok(ExitCode::SUCCESS)
}

/// `bcast shape`: prints the output shape as `[2,3]` (`[]` for rank 0).
///
/// # Errors
/// Bad flags or shapes, a broken broadcast rule.
pub fn shape(args: ShapeArgs) -> CliResult {
    let mode = args.mode.mode()?;
    let target = args.mode.target_shape()?;
    let data = parse_shape("--data-shape", &args.data_shape)?;
    let out = bcast::output_shape(&data, &target, &mode)?;
    println!("{}", Dims(out));
    Ok(ExitCode::SUCCESS)
}

/// `bcast multi`: broadcasts every input to the common shape of all of them and writes
/// DIR/out0.npy, DIR/out1.npy, ... in input order.
///
/// All or nothing: every input is read and every shape checked before any output is
/// computed; each output is written to a hidden temporary file in DIR, and only once all of
/// them are on disk are they renamed into place. An error before that point leaves DIR as
/// it was.
///
/// # Errors
/// A missing DIR, an unreadable or malformed input, inputs of different element types,
/// incompatible shapes (naming the first input that clashes), a write failure.
pub fn multi(args: MultiArgs) -> CliResult {
    check_out_dir(&args.out_dir)?;
    let inputs = args
        .inputs
        .iter()
        .map(|p| read_input(p))
        .collect::<Result<Vec<Tensor>, CliError>>()?;
    let (first, first_path) = match (inputs.first(), args.inputs.first()) {
        (Some(t), Some(p)) => (t, p),
        _ => return Err(CliError("multi needs at least one input file".into())),
    };
    if let Some((t, p)) = inputs
        .iter()
        .zip(&args.inputs)
        .find(|(t, _)| t.dtype() != first.dtype())
    {
        return Err(CliError(format!(
            "{}: element type {} differs from {}'s {}; multi needs inputs of one element type",
            p.display(),
            t.dtype(),
            first_path.display(),
            first.dtype()
        )));
    }
    let shapes: Vec<&[usize]> = inputs.iter().map(Tensor::shape).collect();
    let plans =
        bcast::planners::plan_multi(&shapes).map_err(|e| blame_input(&args.inputs, &shapes, e))?;
    let mut staged = Vec::with_capacity(inputs.len());
    for (i, (input, plan)) in inputs.iter().zip(&plans).enumerate() {
        let path = args.out_dir.join(format!("out{i}.npy"));
        // One output in memory at a time: it goes to its temporary file before the next is
        // computed. Dropping `staged` on an error removes every temporary file.
        let out = input.run_plan(plan, Parallelism::Auto)?;
        staged.push(npy::stage(&path, &out).map_err(|e| write_error(&path, e))?);
    }
    let total = staged.len();
    for (done, file) in staged.into_iter().enumerate() {
        let path = file.path().to_path_buf();
        // A rename in one folder fails only in odd cases (a folder appeared at the path,
        // permissions changed meanwhile); the ones already renamed cannot be undone.
        if let Err(e) = file.commit() {
            let already = match done {
                0 => "no output was written".to_string(),
                1 => "out0.npy was already written".to_string(),
                n => format!("out0.npy..out{}.npy were already written", n - 1),
            };
            return Err(CliError(format!(
                "{} (of {total} outputs; {already})",
                write_error(&path, e).0
            )));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Names the input whose shape first clashes with the common shape of the ones before it.
fn blame_input(paths: &[PathBuf], shapes: &[&[usize]], e: bcast::BroadcastError) -> CliError {
    let culprit = (1..shapes.len())
        .find(|&k| bcast::broadcast_shapes(&shapes[..=k]).is_err())
        .and_then(|k| paths.get(k));
    match culprit {
        Some(p) => CliError(format!("{}: {e}", p.display())),
        None => CliError::from(e),
    }
}

fn read_input(path: &Path) -> Result<Tensor, CliError> {
    npy::read(path).map_err(|e| match e {
        NpyError::Io { path, source } => {
            CliError(format!("{}: cannot read: {source}", path.display()))
        }
        other => CliError(format!("{}: {other}", path.display())),
    })
}

fn write_error(path: &Path, e: NpyError) -> CliError {
    match e {
        NpyError::Io { path, source } => {
            CliError(format!("{}: cannot write: {source}", path.display()))
        }
        other => CliError(format!("{}: {other}", path.display())),
    }
}

/// Fails fast, before reading or computing anything, on an output path that cannot be
/// written: a folder, or a file in a folder that does not exist. The atomic write checks
/// again (the file system may change meanwhile).
fn check_output_file(path: &Path) -> Result<(), CliError> {
    if path.is_dir() {
        return Err(CliError(format!(
            "{}: cannot write: the output path is a folder",
            path.display()
        )));
    }
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => Err(CliError(format!(
            "{}: cannot write: the folder {} does not exist",
            path.display(),
            dir.display()
        ))),
        _ => Ok(()),
    }
}

/// `multi` does not create its output folder: a typo in `--out-dir` should not leave a new
/// folder behind, and `run` does not create folders either.
fn check_out_dir(dir: &Path) -> Result<(), CliError> {
    if dir.is_dir() {
        Ok(())
    } else if dir.exists() {
        Err(CliError(format!(
            "--out-dir {}: not a folder",
            dir.display()
        )))
    } else {
        Err(CliError(format!(
            "--out-dir {}: the folder does not exist (multi does not create it)",
            dir.display()
        )))
    }
}
