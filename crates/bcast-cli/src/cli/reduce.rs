//! `bcast reduce`: the gradient of a broadcast, summed back to the data's shape.

use std::path::PathBuf;
use std::process::ExitCode;

use super::run::ModeArgs;
use super::{parse_shape, CliError, CliResult};

/// Arguments of `bcast reduce`.
#[derive(clap::Args)]
pub struct ReduceArgs {
    /// The broadcast whose gradient this is: its mode, target shape and mode flags.
    #[command(flatten)]
    mode: ModeArgs,
    /// Shape of the broadcast's data, which the result takes.
    #[arg(long, allow_hyphen_values = true)]
    data_shape: String,
    /// The gradient (.npy), shaped as the broadcast's output.
    grad: PathBuf,
    /// Where to write the reduced gradient (.npy, written atomically).
    out: PathBuf,
}

pub fn main(args: ReduceArgs) -> CliResult {
    let mode = args.mode.mode()?;
    let target = args.mode.target_shape()?;
    let data = parse_shape("--data-shape", &args.data_shape)?;
    let grad = bcast::npy::read(&args.grad)
        .map_err(|e| CliError(format!("{}: {e}", args.grad.display())))?;
    let reduced = bcast::reduce_to_input_tensor(&grad, &data, &target, &mode)?;
    bcast::npy::write_atomic(&args.out, &reduced)
        .map_err(|e| CliError(format!("{}: {e}", args.out.display())))?;
    Ok(ExitCode::SUCCESS)
}
