//! `bcast run`, `bcast shape`, `bcast multi`: broadcasts on .npy files.
//!
//! Every check that needs no file (mode, flags, shapes, output folder) runs before any input
//! is read, and every output is written atomically (temporary file + rename in the same
//! folder), so a failed call leaves the output paths as they were.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bcast::npy;
use bcast::{Dims, Mode, Parallelism, PartialShape, TargetShape, Tensor};

use super::files::{
    check_output_file, commit_all, prepare_out_dir, read_npy, write_error, write_npy,
};
use super::{parse_axes, parse_shape, CliError, CliResult};

/// The broadcast mode and its flags, shared by `run`, `shape` and `reduce`.
#[derive(clap::Args, Debug)]
pub struct ModeArgs {
    /// Broadcast mode: numpy, bidirectional, explicit (IR name: none), pdpd or axes.
    #[arg(long, value_name = "MODE")]
    mode: Mode,
    /// Target shape as a comma list: 1,16,50,50 or [2,3]; [] or "" is rank 0.
    #[arg(
        long,
        value_name = "SHAPE",
        allow_hyphen_values = true,
        required = true
    )]
    target_shape: Option<String>,
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

    /// The target shape (required).
    ///
    /// # Errors
    /// No `--target-shape`, a malformed list or a negative dim, naming `--target-shape`.
    pub fn target_shape(&self) -> Result<Vec<usize>, CliError> {
        self.target_shape_if_given()?
            .ok_or_else(|| CliError("missing required arguments: --target-shape <SHAPE>".into()))
    }

    /// The target shape, if `--target-shape` was given.
    ///
    /// # Errors
    /// A malformed list or a negative dim, naming `--target-shape`.
    pub fn target_shape_if_given(&self) -> Result<Option<Vec<usize>>, CliError> {
        self.target_shape
            .as_deref()
            .map(|t| parse_shape("--target-shape", t))
            .transpose()
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
    /// The data: a .npy file of any npy element type, any byte order, C or Fortran order;
    /// `-` reads standard input.
    #[arg(value_name = "IN.npy")]
    input: PathBuf,
    /// Where to write the result (same element type, C order, little-endian); `-` writes
    /// standard output. Its folder must exist; a file is replaced atomically and keeps its
    /// mode, a symlink is written through, a device or FIFO is refused.
    #[arg(value_name = "OUT.npy")]
    output: PathBuf,
}

/// Arguments of `bcast shape`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  bcast shape --mode numpy --target-shape 2,3 --data-shape 3      prints [2,3]
  bcast shape --multi 2,1 3 4,1,1                                 prints [4,2,3]
  bcast shape --eltwise 2,3,4 3 --auto-broadcast pdpd --eltwise-axis 1   prints [2,3,4]
  bcast shape --eltwise 2,1 3                                      prints [2,3] (numpy)
  bcast shape --mode numpy --target-shape 2,3 --data-shape '?,1'   prints [2,3]
  bcast shape --mode bidirectional --target-shape 1,1 --data-shape '?,1..8'   prints [?,1..8]
Shapes may be partial (OpenVINO's forms): ? or -1 for an unknown dim, 1..8 for a range,
... for an unknown rank; the output is then the tightest partial shape.")]
pub struct ShapeArgs {
    #[command(flatten)]
    mode: Option<ModeArgs>,
    /// The data's shape as a comma list: 3 or [2,3]; [] or "" is rank 0; partial: ?,3 or
    /// 1..8,3 or ... (unknown rank).
    #[arg(long, value_name = "SHAPE", allow_hyphen_values = true)]
    data_shape: Option<String>,
    /// N-ary instead: the common shape of these shapes (numpy's rule, as `multi` uses it),
    /// e.g. --multi 2,1 3.
    #[arg(
        long,
        value_name = "SHAPE",
        num_args = 1..,
        conflicts_with_all = ["data_shape", "ModeArgs"]
    )]
    multi: Vec<String>,
    /// Element-wise instead: the output shape of an element-wise op on A and B (in that
    /// order: pdpd lays B onto A) under --auto-broadcast, e.g. --eltwise 2,3 3.
    #[arg(
        long,
        value_names = ["A", "B"],
        num_args = 2,
        allow_hyphen_values = true,
        conflicts_with_all = ["data_shape", "ModeArgs", "multi"]
    )]
    eltwise: Vec<String>,
    /// With --eltwise: the rule, none, numpy (default) or pdpd.
    #[arg(long, value_name = "RULE", requires = "eltwise")]
    auto_broadcast: Option<String>,
    /// With --eltwise --auto-broadcast pdpd: the axis of A that B starts at (default -1).
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        requires = "eltwise"
    )]
    eltwise_axis: Option<i64>,
    /// Print {"shape": [2,3]} instead of [2,3].
    #[arg(long)]
    json: bool,
}

/// Arguments of `bcast multi`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
--out-dir is created if missing (with its parents) and removed again if the call fails.
multi refuses a folder holding outK.npy for K >= the number of inputs (left by an earlier
call with more inputs): remove those files or choose another folder.")]
pub struct MultiArgs {
    /// The inputs, all of one element type; each is broadcast to the common shape of all.
    #[arg(value_name = "IN.npy", required = true, num_args = 1..)]
    inputs: Vec<PathBuf>,
    /// The folder: input i is written to DIR/out<i>.npy (created if missing).
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
    let data = read_npy(&args.input)?;
    let plan = bcast::plan(data.shape(), &target, &mode)?;
    let out = data.run_plan(&plan, Parallelism::Auto)?;
    write_npy(&args.output, &out)?;
    Ok(ExitCode::SUCCESS)
}

/// `bcast shape`: prints the output shape as `[2,3]` (`[]` for rank 0), or as
/// `{"shape": [2,3]}` with `--json`; with `--multi`, the common shape of N shapes.
///
/// # Errors
/// Bad flags or shapes, a broken broadcast rule.
pub fn shape(args: ShapeArgs) -> CliResult {
    let out: PartialShape = if !args.eltwise.is_empty() {
        let spec = super::eltwise::parse_rule(
            args.auto_broadcast.as_deref().unwrap_or("numpy"),
            args.eltwise_axis,
            "--eltwise-axis",
        )?;
        let a = parse_partial("--eltwise shape A", &args.eltwise[0])?;
        let b = parse_partial("--eltwise shape B", &args.eltwise[1])?;
        match (a.to_static(), b.to_static()) {
            (Some(a), Some(b)) => PartialShape::from(bcast::eltwise_shape(&a, &b, &spec)?),
            _ => bcast::infer_eltwise_shape(&a, &b, &spec)?,
        }
    } else if args.multi.is_empty() {
        let Some(mode_args) = &args.mode else {
            return Err(CliError(
                "missing required arguments: --mode <MODE>, --target-shape <SHAPE>, --data-shape <SHAPE> (or --multi SHAPE...)".into(),
            ));
        };
        let mode = mode_args.mode()?;
        let target_text = mode_args
            .target_shape
            .as_deref()
            .ok_or_else(|| CliError("missing required arguments: --target-shape <SHAPE>".into()))?;
        let data_text = args
            .data_shape
            .as_deref()
            .ok_or_else(|| CliError("missing required arguments: --data-shape <SHAPE>".into()))?;
        let data = parse_partial("--data-shape", data_text)?;
        let target = parse_partial("--target-shape", target_text)?;
        match (data.to_static(), target.to_static()) {
            (Some(data), Some(target)) => {
                PartialShape::from(bcast::output_shape(&data, &target, &mode)?)
            }
            _ => bcast::infer_shape(&data, &TargetShape::from(target), &mode)?,
        }
    } else {
        let shapes = args
            .multi
            .iter()
            .enumerate()
            .map(|(i, t)| parse_shape(&format!("--multi shape {i}"), t))
            .collect::<Result<Vec<_>, _>>()?;
        let views: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        PartialShape::from(bcast::broadcast_shapes(&views)?)
    };
    match (args.json, out.to_static()) {
        (false, Some(shape)) => println!("{}", Dims(shape)),
        (false, None) => println!("{out}"),
        (true, Some(shape)) => println!("{}", serde_json::json!({ "shape": shape })),
        // A partial shape: known dims as numbers, the others as their text ("?", "1..8");
        // an unknown rank as the string "[...]".
        (true, None) => {
            let shape = match out.dims() {
                None => serde_json::Value::String(out.to_string()),
                Some(dims) => dims
                    .iter()
                    .map(|d| match d.get() {
                        Some(n) => serde_json::json!(n),
                        None => serde_json::json!(d.to_string()),
                    })
                    .collect(),
            };
            println!("{}", serde_json::json!({ "shape": shape }));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Parses a shape that may be partial (`?,3`, `1..8,4`, `...`): a static list goes through
/// [`parse_shape`] (same grammar and messages as everywhere else), anything else through
/// [`PartialShape`]'s parser (OpenVINO's text forms).
fn parse_partial(what: &str, text: &str) -> Result<PartialShape, CliError> {
    // -1 is an unknown dim (how OpenVINO IR writes one), as the help says; any other
    // negative value is refused by `parse_shape`, naming its index.
    if super::parse_int_list(text).is_ok_and(|ints| !ints.contains(&-1)) {
        return parse_shape(what, text).map(PartialShape::from);
    }
    text.parse::<PartialShape>()
        .map_err(|e| CliError(format!("{what}: {e}")))
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
    if args.out_dir.is_dir() {
        refuse_stale_outputs(&args.out_dir, args.inputs.len())?;
    }
    let out_dir = prepare_out_dir(&args.out_dir)?;
    let inputs = args
        .inputs
        .iter()
        .map(|p| read_npy(p))
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
    commit_all(staged)?;
    out_dir.keep();
    Ok(ExitCode::SUCCESS)
}

/// Refuses a folder holding `outK.npy` for `K >= n`: beside the new `out0..out{n-1}.npy`
/// they would look like outputs of this call. bcast does not delete them (they may not be
/// its own); the user does.
fn refuse_stale_outputs(dir: &Path, n: usize) -> Result<(), CliError> {
    let mut stale: Vec<(usize, String)> = std::fs::read_dir(dir)
        .map_err(|e| CliError(format!("--out-dir {}: {e}", dir.display())))?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let k = name.strip_prefix("out")?.strip_suffix(".npy")?;
            let canonical =
                k.bytes().all(|b| b.is_ascii_digit()) && (k == "0" || !k.starts_with('0'));
            let k: usize = k.parse().ok().filter(|_| canonical)?;
            (k >= n).then_some((k, name))
        })
        .collect();
    if stale.is_empty() {
        return Ok(());
    }
    stale.sort();
    let names: Vec<String> = stale.into_iter().map(|(_, name)| name).collect();
    Err(CliError(format!(
        "--out-dir {} holds {} from an earlier call with more inputs; this call writes only out0.npy..out{}.npy, and bcast does not delete files: remove {} or use another folder",
        dir.display(),
        names.join(", "),
        n.saturating_sub(1),
        if names.len() == 1 { "it" } else { "them" }
    )))
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
