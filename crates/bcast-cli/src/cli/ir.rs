//! `bcast ir`: load an OpenVINO IR model (Broadcast, ShapeOf, Convert, element-wise and
//! Select layers), describe it or run it on `.npy` inputs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bcast::ir::Model;
use bcast::{DType, Tensor};

use super::files::{commit_all, prepare_out_dir, read_npy, write_error};
use super::{CliError, CliResult};

/// Arguments of `bcast ir`.
#[derive(clap::Args)]
#[command(after_help = "\
Writes one OUT_DIR/<Result name>.npy per Result, all or none: each is written to a \
temporary file first and renamed into place only once all are written. OUT_DIR is created \
if missing (with its parents) and removed again if the call fails.
--input NAME=FILE.npy: NAME is the longest Parameter name followed by '=' that the text \
starts with, so a Parameter named a=b is fed with --input a=b=FILE.npy. FILE `-` is \
standard input.
Each chain of element-wise layers (Add, Multiply, Maximum, Select, FakeQuantize, ...) whose intermediate results have one reader and are not Results runs as one expression, in one pass over its output; --describe lists the chains, --no-fuse runs the layers one by one.
--time ROUNDS times the model in this process instead of writing outputs: it runs it once \
fused and once layer by layer, refuses (exit 2) unless the outputs are the same bit for bit, \
then runs ROUNDS interleaved rounds (fused, layer by layer, fused, ...), each repeating its \
run for at least 50 ms, and prints one JSON line per mode: {\"mode\": \"fused\" or \
\"layer_by_layer\", \"seconds_per_run\": the median over the rounds of a round's time / its \
runs, \"rounds\", \"runs_per_round\", \"threads\", \"cpu\", \"machine\", \"model\"}. Each \
run allocates its outputs, as a run without --time does.
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
    /// The folder for the outputs (created if missing, removed again on failure).
    #[arg(long, value_name = "DIR", conflicts_with = "describe")]
    pub out_dir: Option<PathBuf>,
    /// Print the model's inputs, outputs and layers instead of running it.
    #[arg(long, conflicts_with = "inputs")]
    pub describe: bool,
    /// With --describe: print the description as one JSON object.
    #[arg(long, requires = "describe")]
    pub json: bool,
    /// Run every element-wise layer into its own tensor, instead of each chain of them as
    /// one expression (the outputs are the same, bit for bit).
    #[arg(long, conflicts_with = "describe")]
    pub no_fuse: bool,
    /// Time the model instead of writing outputs: ROUNDS interleaved rounds of fused and
    /// layer-by-layer runs, one JSON line per mode with the median seconds per run (below).
    #[arg(
        long,
        value_name = "ROUNDS",
        allow_negative_numbers = true,
        value_parser = clap::value_parser!(u32).range(1..=MAX_ROUNDS),
        conflicts_with_all = ["describe", "out_dir", "no_fuse"]
    )]
    pub time: Option<u32>,
    /// Threads to run on [default: all cores, for large outputs].
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        conflicts_with = "describe"
    )]
    pub threads: Option<usize>,
}

/// The most rounds `--time` takes (each lasts at least [`ROUND_SECONDS`]).
const MAX_ROUNDS: i64 = 10_000;

/// Runs `bcast ir`.
pub fn main(args: IrArgs) -> CliResult {
    let model =
        Model::load(&args.model, args.weights.as_deref()).map_err(|e| CliError(e.to_string()))?;
    if args.describe {
        if args.json {
            println!("{}", describe_json(&model));
        } else {
            print!("{}", model.describe());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let pool = match args.threads {
        Some(0) => return Err(CliError("--threads must be at least 1".into())),
        Some(n) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| CliError(format!("cannot start {n} threads: {e}")))?,
        ),
        None => None,
    };
    if let Some(rounds) = args.time {
        let inputs = read_inputs(&model, &args.inputs)?;
        return on_pool(pool.as_ref(), || time(&model, &inputs, rounds));
    }
    let out_dir = args.out_dir.as_deref().ok_or_else(|| {
        CliError("--out-dir is required to run the model (or give --describe or --time)".into())
    })?;
    let files: Vec<PathBuf> = model
        .outputs()
        .iter()
        .map(|o| output_path(out_dir, &o.name))
        .collect::<Result<_, _>>()?;
    let inputs = read_inputs(&model, &args.inputs)?;
    let outputs = on_pool(pool.as_ref(), || {
        if args.no_fuse {
            model.run_unfused(&inputs)
        } else {
            model.run(&inputs)
        }
    })
    .map_err(|e| CliError(e.to_string()))?;
    let created = prepare_out_dir(out_dir)?;
    // All or nothing: every output goes to a temporary file first; only once all are written
    // are they renamed into place. Dropping `staged` on an error removes the temporary files.
    let mut staged = Vec::with_capacity(outputs.len());
    let mut written = Vec::with_capacity(outputs.len());
    for ((name, tensor), path) in outputs.into_iter().zip(files) {
        let (dtype, shape) = (tensor.dtype(), bcast::Dims(tensor.shape().to_vec()));
        let file = bcast::npy::stage(&path, &bcast::ir::bf16_to_npy_bits(tensor))
            .map_err(|e| CliError(format!("output '{name}': {}", write_error(&path, e))))?;
        staged.push(file);
        written.push(format!("{}: {dtype} {shape}", path.display()));
    }
    commit_all(staged)?;
    created.keep();
    for line in written {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `f` on `pool` when --threads gave one, else on the calling thread: the model's layers
/// run on rayon's current pool (`Parallelism::Auto`), so `pool` sets their threads.
fn on_pool<R: Send>(pool: Option<&rayon::ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// The least time one round of `--time` repeats its run for, in seconds: long enough that
/// the clock's resolution and the start of a round do not count.
const ROUND_SECONDS: f64 = 0.05;

/// `--time`: checks that the fused and layer-by-layer runs give the same outputs bit for bit,
/// then times `rounds` interleaved rounds of each and prints one JSON line per mode.
fn time(model: &Model, inputs: &HashMap<String, Tensor>, rounds: u32) -> CliResult {
    use bcast_cli::bench::{median, seconds_per_call};
    let ir = |e: bcast::ir::IrError| CliError(e.to_string());
    let fused = model.run(inputs).map_err(ir)?;
    let unfused = model.run_unfused(inputs).map_err(ir)?;
    if let Some(name) = first_difference(&fused, &unfused) {
        return Err(CliError(format!(
            "the fused and layer-by-layer runs differ in output '{name}' (please report): not timed"
        )));
    }
    drop((fused, unfused));
    let mut run_fused = || model.run(inputs).map(drop);
    let mut run_unfused = || model.run_unfused(inputs).map(drop);
    let fused_reps = runs_per_round(&mut run_fused).map_err(ir)?;
    let unfused_reps = runs_per_round(&mut run_unfused).map_err(ir)?;
    let mut fused_samples = Vec::with_capacity(rounds as usize);
    let mut unfused_samples = Vec::with_capacity(rounds as usize);
    for _ in 0..rounds {
        fused_samples.push(seconds_per_call(fused_reps, &mut run_fused).map_err(ir)?);
        unfused_samples.push(seconds_per_call(unfused_reps, &mut run_unfused).map_err(ir)?);
    }
    let (cpu, machine) = (super::bench::cpu_model(), super::bench::machine_line());
    let threads = rayon::current_num_threads();
    for (mode, samples, reps) in [
        ("fused", &mut fused_samples, fused_reps),
        ("layer_by_layer", &mut unfused_samples, unfused_reps),
    ] {
        let line = serde_json::json!({
            "mode": mode,
            "seconds_per_run": median(samples),
            "rounds": rounds,
            "runs_per_round": reps,
            "threads": threads,
            "cpu": cpu,
            "machine": machine,
            "model": model.name(),
        });
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The name of the first output that differs between two runs of the same model (in name,
/// element type, shape or any element's bits), if one does.
fn first_difference<'a>(a: &'a [(String, Tensor)], b: &[(String, Tensor)]) -> Option<&'a str> {
    if a.len() != b.len() {
        return Some(a.first().map_or("", |(name, _)| name.as_str()));
    }
    a.iter()
        .zip(b)
        .find(|((na, ta), (nb, tb))| na != nb || !ta.bit_equal(tb))
        .map(|((name, _), _)| name.as_str())
}

/// How many runs of `run` one round of `--time` repeats: enough for [`ROUND_SECONDS`], from
/// batches doubled until one takes a fifth of that.
fn runs_per_round<E>(run: &mut impl FnMut() -> Result<(), E>) -> Result<usize, E> {
    let mut batch = 1usize;
    loop {
        let seconds = bcast_cli::bench::seconds_per_call(batch, &mut *run)? * batch as f64;
        if seconds >= ROUND_SECONDS / 5.0 || batch >= 1 << 24 {
            let per_run = (seconds / batch as f64).max(1e-9);
            return Ok(((ROUND_SECONDS / per_run).ceil() as usize).clamp(1, 1 << 26));
        }
        batch *= 2;
    }
}

/// The description as JSON: the model's name and IR version, its inputs and outputs, and
/// every layer in run order.
fn describe_json(model: &Model) -> serde_json::Value {
    use serde_json::json;
    let tensor = |t: &bcast::ir::TensorInfo| json!({"name": t.name, "dtype": t.dtype.to_string(), "shape": t.shape.to_string()});
    let layers: Vec<serde_json::Value> = model
        .layers()
        .into_iter()
        .map(|l| {
            json!({
                "id": l.id,
                "type": l.kind,
                "name": l.name,
                "version": l.version,
                "attributes": l.attributes,
                "sources": l.sources,
                "dtype": l.dtype.map(|d| d.to_string()),
                "shape": l.shape,
                "values": l.values,
                "chain": l.chain,
            })
        })
        .collect();
    let chains: Vec<serde_json::Value> = model
        .chains()
        .into_iter()
        .map(|c| {
            json!({
                "number": c.number,
                "layers": c.layers,
                "output": c.output,
                "expression": c.expression,
            })
        })
        .collect();
    json!({
        "name": model.name(),
        "ir_version": model.ir_version(),
        "inputs": model.inputs().iter().map(tensor).collect::<Vec<_>>(),
        "outputs": model.outputs().iter().map(tensor).collect::<Vec<_>>(),
        "layers": layers,
        "chains": chains,
    })
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
    // Found before anything is written, so that no output is written when a later one
    // could not be (file systems limit a name to 255 bytes).
    let file_name_len = name.len() + ".npy".len();
    if file_name_len > MAX_FILE_NAME {
        return Err(CliError(format!(
            "Result name '{name}' makes a file name of {file_name_len} bytes, more than the {MAX_FILE_NAME} a file system allows"
        )));
    }
    Ok(dir.join(format!("{name}.npy")))
}

/// The longest file name (in bytes) Linux file systems allow.
const MAX_FILE_NAME: usize = 255;

/// Splits `--input NAME=FILE`: NAME is the longest Parameter name followed by `=` that the
/// text starts with; with one Parameter and no such prefix, the whole text is the file.
fn split_input<'a>(model: &'a Model, arg: &'a str) -> Option<(&'a str, &'a str)> {
    model
        .inputs()
        .iter()
        .filter_map(|p| {
            let file = arg.strip_prefix(p.name.as_str())?.strip_prefix('=')?;
            Some((p.name.as_str(), file))
        })
        .max_by_key(|(name, _)| name.len())
}

/// Reads each `--input`, keyed by Parameter name.
fn read_inputs(model: &Model, args: &[String]) -> Result<HashMap<String, Tensor>, CliError> {
    let params = model.inputs();
    let mut inputs = HashMap::new();
    for arg in args {
        let (name, file) = match (split_input(model, arg), arg.split_once('=')) {
            (Some((name, file)), _) => (name.to_string(), file),
            // One Parameter: a text that names none is the file, unless it looks like a
            // NAME=FILE with a mistyped name and no such file exists.
            (None, Some((name, _))) if params.len() > 1 || !Path::new(arg).exists() => {
                return Err(CliError(format!(
                    "--input '{arg}': the model has no Parameter '{name}' (it has: {})",
                    names(model)
                )));
            }
            (None, _) if params.len() == 1 => (params[0].name.clone(), arg.as_str()),
            (None, _) => {
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
        let tensor = read_npy(Path::new(file))
            .map_err(|e| CliError(format!("--input '{name}': {}", e.0)))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use bcast::ndarray::arr1;

    fn f32s(values: &[f32]) -> Tensor {
        Tensor::F32(arr1(values).into_dyn())
    }

    #[test]
    fn runs_differ_in_any_bit_name_or_count() {
        let run = |name: &str, v: &[f32]| vec![(name.to_string(), f32s(v))];
        let nan = f32::from_bits(0x7fc0_0001);
        assert_eq!(
            first_difference(&run("y", &[1.0, nan]), &run("y", &[1.0, nan])),
            None
        );
        // -0.0 == 0.0 as numbers, but not as bits.
        assert_eq!(
            first_difference(&run("y", &[1.0, -0.0]), &run("y", &[1.0, 0.0])),
            Some("y")
        );
        let other_nan = f32::from_bits(0x7fc0_0002);
        assert_eq!(
            first_difference(&run("y", &[nan]), &run("y", &[other_nan])),
            Some("y")
        );
        assert_eq!(
            first_difference(&run("y", &[1.0]), &run("z", &[1.0])),
            Some("y")
        );
        let two = vec![
            ("y".to_string(), f32s(&[1.0])),
            ("z".to_string(), f32s(&[2.0])),
        ];
        assert_eq!(first_difference(&two, &run("y", &[1.0])), Some("y"));
        assert_eq!(first_difference(&two, &two), None);
    }
}
