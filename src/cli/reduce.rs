//! `bcast reduce`: the gradient of a broadcast, summed back to the data's shape.

use std::path::PathBuf;
use std::process::ExitCode;

use bcast::Mode;

use super::{parse_axes, parse_shape, CliError, CliResult};

/// Arguments of `bcast reduce`.
#[derive(clap::Args)]
pub struct ReduceArgs {
    /// Broadcast mode: numpy, bidirectional, explicit (or none), pdpd, axes.
    #[arg(long)]
    mode: String,
    /// Target shape of the broadcast, e.g. `1,16,50,50` (`[]` or empty for rank 0).
    #[arg(long, allow_hyphen_values = true)]
    target_shape: String,
    /// Shape of the broadcast's data, which the result takes.
    #[arg(long, allow_hyphen_values = true)]
    data_shape: String,
    /// explicit: output axis of each data axis.
    #[arg(long, allow_hyphen_values = true)]
    axes_mapping: Option<String>,
    /// pdpd: first target axis of the data (-1: right-aligned; the default).
    #[arg(long, allow_negative_numbers = true)]
    axis: Option<i64>,
    /// axes: the output axes that are new.
    #[arg(long, allow_hyphen_values = true)]
    broadcast_axes: Option<String>,
    /// The gradient (.npy), shaped as the broadcast's output.
    grad: PathBuf,
    /// Where to write the reduced gradient (.npy, written atomically).
    out: PathBuf,
}

pub fn main(args: ReduceArgs) -> CliResult {
    let mode = mode_of(&args)?;
    let target = parse_shape("--target-shape", &args.target_shape)?;
    let data = parse_shape("--data-shape", &args.data_shape)?;
    let grad = bcast::npy::read(&args.grad)
        .map_err(|e| CliError(format!("{}: {e}", args.grad.display())))?;
    let reduced = bcast::reduce_to_input_tensor(&grad, &data, &target, &mode)?;
    bcast::npy::write_atomic(&args.out, &reduced)
        .map_err(|e| CliError(format!("{}: {e}", args.out.display())))?;
    Ok(ExitCode::SUCCESS)
}

/// The mode with its arguments; a mode flag given to a mode that does not take it is an
/// error rather than silently ignored.
fn mode_of(args: &ReduceArgs) -> Result<Mode, CliError> {
    let mode: Mode = args
        .mode
        .parse()
        .map_err(|e: bcast::ParseModeError| CliError(e.to_string()))?;
    let given = [
        ("--axes-mapping", args.axes_mapping.is_some()),
        ("--axis", args.axis.is_some()),
        ("--broadcast-axes", args.broadcast_axes.is_some()),
    ];
    let takes = match mode {
        Mode::Explicit { .. } => "--axes-mapping",
        Mode::Pdpd { .. } => "--axis",
        Mode::Axes { .. } => "--broadcast-axes",
        Mode::Numpy | Mode::Bidirectional => "",
    };
    if let Some((flag, _)) = given.iter().find(|(flag, set)| *set && *flag != takes) {
        return Err(CliError(format!(
            "{flag} does not apply to --mode {}",
            mode.name()
        )));
    }
    Ok(match mode {
        Mode::Explicit { .. } => Mode::Explicit {
            axes_mapping: parse_axes("--axes-mapping", args.axes_mapping.as_deref().unwrap_or(""))?,
        },
        Mode::Pdpd { .. } => Mode::Pdpd {
            axis: args.axis.unwrap_or(-1),
        },
        Mode::Axes { .. } => Mode::Axes {
            broadcast_axes: parse_axes(
                "--broadcast-axes",
                args.broadcast_axes.as_deref().unwrap_or(""),
            )?,
        },
        m => m,
    })
}
