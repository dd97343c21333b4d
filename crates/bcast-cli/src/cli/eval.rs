//! `bcast eval`: an expression of element-wise ops over named .npy files, run fused (one pass
//! over the output) or, with `--unfused`, op by op.
//!
//! As `bcast eltwise`: every check that needs no file (the expression, the rule, the operand
//! names, the flags, the output path) runs before any input is read, the output is written
//! atomically, `-` is standard input (for one operand) or standard output.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bcast::{Expression, Parallelism, Tensor, TensorView};

use super::eltwise::RuleArgs;
use super::files::{check_output_file, is_stdio, read_npy, write_npy};
use super::{CliError, CliResult};

/// Arguments of `bcast eval`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
EXPR: infix + - * / % ** (add, subtract, multiply, divide (floors integers, as OpenVINO's \
pythondiv), floor_mod, power), comparisons < <= > >= == != (bool results), parentheses, and \
any op of `bcast eltwise` as a call by its snake-case name: maximum(x, 0), \
select(c, x, y), squared_difference(x, m), fake_quantize(x, il, ih, ol, oh, levels=256). \
A number is a literal of the operands' element type (the first non-bool operand's), as \
numpy takes a Python scalar; true and false are bool literals.
Every op runs under --auto-broadcast, placing its operands as `bcast eltwise OP` does, and \
rounds as it does (f16 after each op): the result is bit for bit that of running the ops one \
by one (--unfused), without their intermediate arrays.
Examples:
  bcast eval \"(x - m) * r * g + b\" x=x.npy m=mean.npy r=rstd.npy g=gamma.npy b=beta.npy -o y.npy
  bcast eval \"maximum(x * s + t, 0)\" x=x.npy s=scale.npy t=shift.npy -o y.npy --auto-broadcast pdpd --axis 1
  bcast eval \"select(x > 0, x, x * 0.1)\" x=- -o - < x.npy > y.npy")]
pub struct EvalArgs {
    /// The expression over named operands, e.g. "(x - m) * r * g + b" (see below).
    #[arg(value_name = "EXPR")]
    expression: String,
    /// One NAME=FILE.npy per operand the expression names (FILE `-`: standard input, for
    /// one operand).
    #[arg(value_name = "NAME=FILE.npy")]
    operands: Vec<String>,
    /// Where to write the result (atomically); `-` writes standard output.
    #[arg(short, long, value_name = "OUT.npy", required = true)]
    output: PathBuf,
    #[command(flatten)]
    rule: RuleArgs,
    /// Threads to run on (1: the calling thread only) [default: all cores, for large
    /// outputs].
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Run the ops one by one, each into its own array (for comparisons).
    #[arg(long)]
    unfused: bool,
}

/// `bcast eval`.
///
/// # Errors
/// A malformed expression, an unknown rule, an operand the expression does not name or one
/// it names that is not given, an operand given twice, a bad input file, operand types or
/// shapes the ops refuse, an integer division by zero, an output that cannot be written.
pub fn main(args: EvalArgs) -> CliResult {
    let rule = args.rule.spec()?;
    let expression = Expression::parse(&args.expression, rule)?;
    let files = operand_files(&expression, &args.operands)?;
    if files.iter().filter(|f| is_stdio(f)).count() > 1 {
        return Err(CliError(
            "only one operand can be '-' (standard input is read once)".into(),
        ));
    }
    let pool = match args.threads {
        Some(0) => return Err(CliError("--threads must be at least 1".into())),
        Some(n) if n > 1 => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| CliError(format!("cannot start {n} threads: {e}")))?,
        ),
        _ => None,
    };
    let par = match (&pool, args.threads) {
        (Some(pool), _) => Parallelism::Pool(pool),
        (None, Some(_)) => Parallelism::Serial,
        (None, None) => Parallelism::Auto,
    };
    check_output_file(&args.output)?;
    let tensors = expression
        .inputs()
        .iter()
        .zip(&files)
        .map(|(name, file)| {
            read_npy(file).map_err(|e| CliError(format!("operand '{name}': {}", e.0)))
        })
        .collect::<Result<Vec<Tensor>, _>>()?;
    let views: Vec<TensorView<'_>> = tensors.iter().map(Tensor::view).collect();
    let out = if args.unfused {
        expression.evaluate_unfused(&views, par)?
    } else {
        expression.evaluate(&views, par)?
    };
    write_npy(&args.output, &out)?;
    Ok(ExitCode::SUCCESS)
}

/// The file of each input of `expression`, in the order of its inputs, from the
/// `NAME=FILE.npy` arguments.
///
/// # Errors
/// An argument without `=`, a name the expression does not read, a name given twice, an
/// input of the expression that no argument gives.
fn operand_files<'a>(
    expression: &Expression,
    operands: &'a [String],
) -> Result<Vec<&'a Path>, CliError> {
    let names = expression.inputs();
    let reads = || match names.len() {
        0 => "no operand: it has only literals".to_string(),
        _ => names.join(", "),
    };
    let mut files: Vec<Option<&Path>> = vec![None; names.len()];
    for arg in operands {
        let Some((name, file)) = arg.split_once('=') else {
            return Err(CliError(format!(
                "operand '{arg}' needs the form NAME=FILE.npy (the expression reads: {})",
                reads()
            )));
        };
        let Some(k) = names.iter().position(|n| n == name) else {
            return Err(CliError(format!(
                "operand '{name}': the expression has no operand of that name (it reads: {})",
                reads()
            )));
        };
        if files[k].replace(Path::new(file)).is_some() {
            return Err(CliError(format!("operand '{name}' is given twice")));
        }
    }
    names
        .iter()
        .zip(files)
        .map(|(name, file)| {
            file.ok_or_else(|| {
                CliError(format!(
                    "the expression reads '{name}', but no {name}=FILE.npy is given"
                ))
            })
        })
        .collect()
}
