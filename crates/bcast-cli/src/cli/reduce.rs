//! `bcast reduce`: the gradient of a broadcast, summed back to the data's shape.

use std::path::PathBuf;
use std::process::ExitCode;

use super::files::{check_output_file, read_npy, write_npy};
use super::run::ModeArgs;
use super::{parse_shape, CliError, CliResult};

/// Arguments of `bcast reduce`.
#[derive(clap::Args)]
#[command(mut_arg("target_shape", |a| a.required(false)))]
pub struct ReduceArgs {
    /// The broadcast whose gradient this is: its mode, target shape and mode flags. Without
    /// --target-shape, the gradient's own shape is taken as the broadcast's output shape.
    #[command(flatten)]
    mode: ModeArgs,
    /// Shape of the broadcast's data, which the result takes.
    #[arg(long, allow_hyphen_values = true)]
    data_shape: String,
    /// The gradient (.npy), shaped as the broadcast's output; `-` reads standard input.
    grad: PathBuf,
    /// Where to write the reduced gradient (.npy, written atomically); `-` writes standard
    /// output.
    out: PathBuf,
}

pub fn main(args: ReduceArgs) -> CliResult {
    let mode = args.mode.mode()?;
    let given_target = args.mode.target_shape_if_given()?;
    let data = parse_shape("--data-shape", &args.data_shape)?;
    check_output_file(&args.out)?;
    let grad = read_npy(&args.grad)?;
    let target = given_target.unwrap_or_else(|| grad.shape().to_vec());
    let output = bcast::output_shape(&data, &target, &mode)?;
    if grad.shape() != output.as_slice() {
        return Err(CliError(format!(
            "{}: the gradient has shape {}, but the broadcast of data shape {} to target shape {} has output shape {}, which its gradient must have",
            args.grad.display(),
            bcast::Dims(grad.shape().to_vec()),
            bcast::Dims(data),
            bcast::Dims(target),
            bcast::Dims(output)
        )));
    }
    let reduced = bcast::reduce_to_input_tensor(&grad, &data, &target, &mode)?;
    write_npy(&args.out, &reduced)?;
    Ok(ExitCode::SUCCESS)
}
