//! `bcast ir`: load an OpenVINO IR model built from Broadcast layers, describe it or run it
//! on `.npy` inputs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bcast::ir::Model;
use bcast::{DType, Tensor};

use super::{CliError, CliResult};

/// Arguments of `bcast ir`.
#[derive(clap::Args)]
#[command(after_help = "\
Writes one OUT_DIR/<Result name>.npy per Result, atomically.
The .npy format has no bfloat16: a bf16 input is read from a uint16 .npy holding its bit \
patterns, and a bf16 output is written the same way.")]
pub struct IrArgs {
    /// The model's .xml (IR version 10 or 11).
    pub model: PathBuf,
    /// The weights file [default: the .xml's sibling .bin].
    #[arg(long, value_name = "MODEL.bin")]
    pub weights: Option<PathBuf>,
    /// An input as NAME=FILE.npy (NAME: the Parameter's name); FILE.npy alone when the model
    /// has one Parameter. Repeat for each Parameter.
    #[arg(long = "input", value_name = "NAME=FILE.npy")]
    pub inputs: Vec<String>,
    /// The folder for the outputs (created if missing).
    #[arg(long, value_name = "DIR", conflicts_with = "describe")]
    pub out_dir: Option<PathBuf>,
    /// Print the model's inputs, outputs and layers instead of running it.
    #[arg(long, conflicts_with = "inputs")]
    pub describe: bool,
}

/// Runs `bcast ir`.
pub fn main(args: IrArgs) -> CliResult {
    let model =
        Model::load(&args.model, args.weights.as_deref()).map_err(|e| CliError(e.to_string()))?;
    if args.describe {
        print!("{}", model.describe());
        return Ok(ExitCode::SUCCESS);
    }
    let out_dir = args.out_dir.as_deref().ok_or_else(|| {
        CliError("--out-dir is required to run the model (or give --describe)".into())
    })?;
    let files: Vec<PathBuf> = model
        .outputs()
        .iter()
        .map(|o| output_path(out_dir, &o.name))
        .collect::<Result<_, _>>()?;
    let inputs = read_inputs(&model, &args.inputs)?;
    let outputs = model.run(&inputs).map_err(|e| CliError(e.to_string()))?;
    std::fs::create_dir_all(out_dir)
        .map_err(|e| CliError(format!("--out-dir {}: {e}", out_dir.display())))?;
    for ((name, tensor), path) in outputs.into_iter().zip(files) {
        let (dtype, shape) = (tensor.dtype(), bcast::Dims(tensor.shape().to_vec()));
        bcast::npy::write_atomic(&path, &bcast::ir::bf16_to_npy_bits(tensor))
            .map_err(|e| CliError(format!("output '{name}': {e}")))?;
        println!("{}: {dtype} {shape}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `DIR/<name>.npy`, refusing Result names that are not a plain file name.
fn output_path(dir: &Path, name: &str) -> Result<PathBuf, CliError> {
    let unsafe_name =
        name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']);
    if unsafe_name {
        return Err(CliError(format!(
            "Result name '{name}' cannot be used as a file name in --out-dir"
        )));
    }
    Ok(dir.join(format!("{name}.npy")))
}

/// Reads each `--input`, keyed by Parameter name.
fn read_inputs(model: &Model, args: &[String]) -> Result<HashMap<String, Tensor>, CliError> {
    let params = model.inputs();
    let mut inputs = HashMap::new();
    for arg in args {
        let (name, file) = match arg.split_once('=') {
            Some((name, file)) => (name.to_string(), file),
            None if params.len() == 1 => (params[0].name.clone(), arg.as_str()),
            None => {
                return Err(CliError(format!(
                "--input '{arg}' needs the form NAME=FILE.npy: the model has {} Parameters ({})",
                params.len(),
                names(model)
            )))
            }
        };
        let Some(param) = params.iter().find(|p| p.name == name) else {
            return Err(CliError(format!(
                "--input '{arg}': the model has no Parameter '{name}' (it has: {})",
                names(model)
            )));
        };
        let tensor =
            bcast::npy::read(file).map_err(|e| CliError(format!("--input '{name}': {e}")))?;
        let tensor = match (param.dtype, bcast::ir::bf16_from_npy_bits(tensor, param.dtype)) {
            (DType::BF16, t @ Tensor::BF16(_)) => t,
            (DType::BF16, t) => {
                return Err(CliError(format!(
                    "--input '{name}': the Parameter is bf16, which .npy cannot hold: give its bit patterns as a uint16 .npy (this file is {})",
                    t.dtype()
                )))
            }
            (_, t) => t,
        };
        if inputs.insert(name.clone(), tensor).is_some() {
            return Err(CliError(format!("--input '{name}' is given twice")));
        }
    }
    Ok(inputs)
}

fn names(model: &Model) -> String {
    let names: Vec<&str> = model.inputs().iter().map(|p| p.name.as_str()).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}
