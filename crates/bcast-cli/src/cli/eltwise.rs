//! `bcast eltwise` and `bcast select`: element-wise ops under auto-broadcast on .npy files.
//!
//! As `bcast run`: every check that needs no file (op, rule, flags, output path) runs before
//! any input is read, the output is written atomically, `-` is standard input or output.

use std::path::PathBuf;
use std::process::ExitCode;

use bcast::{Arity, AutoBroadcast, EltwiseOp};

use super::files::{check_output_file, is_stdio, read_npy, write_npy};
use super::{CliError, CliResult};

/// The auto-broadcast rule and its axis, shared by `eltwise` and `select`.
#[derive(clap::Args, Debug)]
pub struct RuleArgs {
    /// The auto-broadcast rule: none (equal shapes), numpy (both operands stretch) or pdpd
    /// (the second operand is laid onto the first's shape).
    #[arg(long, value_name = "RULE", default_value = "numpy")]
    auto_broadcast: String,
    /// pdpd only: the first axis of A that B is laid on (default -1: right-aligned).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    axis: Option<i64>,
}

impl RuleArgs {
    /// The rule with its axis.
    ///
    /// # Errors
    /// An unknown rule, or `--axis` with a rule other than pdpd.
    pub fn spec(&self) -> Result<AutoBroadcast, CliError> {
        parse_rule(&self.auto_broadcast, self.axis, "--axis")
    }
}

/// Parses `--auto-broadcast` and its axis flag (named `flag` in messages).
///
/// # Errors
/// An unknown rule, or the axis flag given with a rule other than pdpd.
pub fn parse_rule(text: &str, axis: Option<i64>, flag: &str) -> Result<AutoBroadcast, CliError> {
    let spec: AutoBroadcast = text
        .parse()
        .map_err(|e| CliError(format!("--auto-broadcast: {e}")))?;
    match (spec, axis) {
        (AutoBroadcast::Pdpd { .. }, given) => Ok(AutoBroadcast::Pdpd {
            axis: given.unwrap_or(-1),
        }),
        (other, Some(_)) => Err(CliError(format!(
            "{flag} is a flag of --auto-broadcast pdpd; --auto-broadcast {} does not take it",
            other.name()
        ))),
        (other, None) => Ok(other),
    }
}

/// Arguments of `bcast eltwise`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
OPs (OpenVINO): add, subtract, multiply, divide, maximum, minimum, squared_difference, power,
floor_mod, mod, equal, not_equal, less, less_equal, greater, greater_equal, logical_and,
logical_or, logical_xor, bitwise_and, bitwise_or, bitwise_xor, bitwise_left_shift,
bitwise_right_shift, prelu (X SLOPE), fake_quantize (X IN_LOW IN_HIGH OUT_LOW OUT_HIGH, --levels).
OPs (ONNX): sum, mean, max, min (one or more inputs), bit_shift (--direction), onnx_prelu,
onnx_mod (--fmod), onnx_div, onnx_pow; select takes COND THEN ELSE.
Inputs have one element type (onnx_pow: the exponent any number type); comparisons and logical
ops write bool. Integers wrap; an integer division or remainder by zero is refused.
Examples:
  bcast eltwise add a.npy b.npy out.npy
  bcast eltwise multiply a.npy b.npy out.npy --auto-broadcast pdpd --axis 1
  bcast eltwise divide a.npy b.npy out.npy --pythondiv false
  bcast eltwise sum a.npy b.npy c.npy d.npy out.npy
  bcast eltwise fake_quantize x.npy il.npy ih.npy ol.npy oh.npy out.npy --levels 256")]
pub struct EltwiseArgs {
    /// The op: its snake-case name (add, floor_mod, sum, fake_quantize, ...) in any case, or
    /// OpenVINO's layer type (Add, FloorMod, FakeQuantize, ...).
    #[arg(value_name = "OP")]
    op: String,
    /// The inputs, then the output: `IN.npy... OUT.npy` (`-` reads standard input for one
    /// input, or writes standard output for the output; the output is written atomically).
    #[arg(value_name = "FILES", num_args = 2.., required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    rule: RuleArgs,
    /// divide only: floor integer quotients (true, OpenVINO's default) or truncate them.
    #[arg(long, value_name = "BOOL")]
    pythondiv: Option<bool>,
    /// fake_quantize only (required there): the number of quantization levels.
    #[arg(long, value_name = "N")]
    levels: Option<u64>,
    /// bit_shift only: LEFT (the default) or RIGHT.
    #[arg(long, value_name = "DIR")]
    direction: Option<String>,
    /// onnx_mod only: 0 (numpy's floored mod, the default) or 1 (C's fmod).
    #[arg(long, value_name = "0|1")]
    fmod: Option<u8>,
}

/// Arguments of `bcast select`. The rule flags are `eltwise`'s, with Select's own help: its
/// rule places three operands, not B onto A.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "\
COND is bool; THEN and ELSE have one element type, which the output takes.
numpy broadcasts all three together, multidirectionally (as OpenVINO runs Select-1); none wants
three equal shapes; pdpd gives THEN's shape, with ELSE and COND each laid onto it from --axis.
Examples:
  bcast select cond.npy then.npy else.npy out.npy
  bcast select cond.npy then.npy else.npy out.npy --auto-broadcast pdpd --axis 1",
    mut_arg("auto_broadcast", |a| a.help(
        "The auto-broadcast rule: none (three equal shapes), numpy (COND, THEN and ELSE \
         stretch to their common shape) or pdpd (the output has THEN's shape; ELSE and COND \
         are laid onto it)"
    )),
    mut_arg("axis", |a| a.help(
        "pdpd only: the first axis of THEN that ELSE and COND are laid on (default -1: \
         right-aligned)"
    ))
)]
pub struct SelectArgs {
    /// The condition (bool); `-` reads standard input.
    #[arg(value_name = "COND.npy")]
    cond: PathBuf,
    /// Taken where COND is true; `-` reads standard input.
    #[arg(value_name = "THEN.npy")]
    then: PathBuf,
    /// Taken where COND is false; `-` reads standard input.
    #[arg(value_name = "ELSE.npy")]
    else_: PathBuf,
    /// Where to write the result (atomically); `-` writes standard output.
    #[arg(value_name = "OUT.npy")]
    output: PathBuf,
    #[command(flatten)]
    rule: RuleArgs,
}

/// At most one input may be standard input: it can be read only once.
fn one_stdin(paths: &[&PathBuf]) -> Result<(), CliError> {
    if paths.iter().filter(|p| is_stdio(p)).count() > 1 {
        return Err(CliError(
            "only one input can be '-' (standard input is read once)".into(),
        ));
    }
    Ok(())
}

/// The op named on the command line, in any case, as modes are: the snake-case name
/// (`floor_mod`, `FLOOR_MOD`) or OpenVINO's layer type (`FloorMod`, `Add`).
///
/// # Errors
/// No op of that name.
pub fn parse_op(text: &str) -> Result<EltwiseOp, CliError> {
    text.to_ascii_lowercase()
        .parse()
        .or_else(|_| EltwiseOp::from_openvino_type(text))
        .map_err(|_| {
            let e = bcast::ParseBinaryOpError(text.to_string());
            CliError(format!("{e} (see bcast eltwise --help for the list)"))
        })
}

/// The op with the attributes its flags set; a flag of another op is an error.
fn op_with_attributes(args: &EltwiseArgs) -> Result<EltwiseOp, CliError> {
    let mut op = parse_op(&args.op)?;
    let foreign = |flag: &str, owner: &str| {
        CliError(format!(
            "--{flag} is a flag of {owner}; {} does not take it",
            args.op
        ))
    };
    match (&mut op, args.pythondiv) {
        (EltwiseOp::Divide { pythondiv }, Some(given)) => *pythondiv = given,
        (_, Some(_)) => return Err(foreign("pythondiv", "divide")),
        _ => {}
    }
    match (&mut op, args.levels) {
        (EltwiseOp::FakeQuantize { levels }, Some(given)) => *levels = given,
        (EltwiseOp::FakeQuantize { .. }, None) => {
            return Err(CliError("fake_quantize needs --levels".into()))
        }
        (_, Some(_)) => return Err(foreign("levels", "fake_quantize")),
        _ => {}
    }
    match (&mut op, &args.direction) {
        (EltwiseOp::BitShift { direction }, Some(given)) => {
            *direction = given.parse().map_err(|_| {
                CliError(format!("--direction must be LEFT or RIGHT, not '{given}'"))
            })?
        }
        (_, Some(_)) => return Err(foreign("direction", "bit_shift")),
        _ => {}
    }
    match (&mut op, args.fmod) {
        (EltwiseOp::OnnxMod { fmod }, Some(given @ (0 | 1))) => *fmod = given == 1,
        (EltwiseOp::OnnxMod { .. }, Some(other)) => {
            return Err(CliError(format!("--fmod must be 0 or 1, not {other}")))
        }
        (_, Some(_)) => return Err(foreign("fmod", "onnx_mod")),
        _ => {}
    }
    Ok(op)
}

/// `bcast eltwise`.
///
/// # Errors
/// An unknown op or rule, a flag of another op or rule, a count of inputs the op does not
/// take, an unreadable input, a broken rule, operand types the op refuses, an integer
/// division by zero, an output that cannot be written.
pub fn eltwise(args: EltwiseArgs) -> CliResult {
    let op = op_with_attributes(&args)?;
    let spec = args.rule.spec()?;
    let (output, inputs) = args
        .files
        .split_last()
        .ok_or_else(|| CliError("no output file".into()))?;
    if !op.arity().admits(inputs.len()) {
        return Err(CliError(format!(
            "{} takes {} input(s), got {} (the last file is the output)",
            op.name(),
            match op.arity() {
                Arity::Exactly(n) => n.to_string(),
                Arity::AtLeast(n) => format!("{n} or more"),
            },
            inputs.len()
        )));
    }
    one_stdin(&inputs.iter().collect::<Vec<_>>())?;
    check_output_file(output)?;
    let tensors = inputs
        .iter()
        .map(|p| read_npy(p))
        .collect::<Result<Vec<_>, _>>()?;
    let out = bcast::eltwise(op, &tensors.iter().collect::<Vec<_>>(), &spec)?;
    write_npy(output, &out)?;
    Ok(ExitCode::SUCCESS)
}

/// `bcast select`.
///
/// # Errors
/// As [`eltwise`]; a COND that is not bool, THEN and ELSE of different types.
pub fn select(args: SelectArgs) -> CliResult {
    let spec = args.rule.spec()?;
    one_stdin(&[&args.cond, &args.then, &args.else_])?;
    check_output_file(&args.output)?;
    let cond = read_npy(&args.cond)?;
    let then = read_npy(&args.then)?;
    let else_ = read_npy(&args.else_)?;
    let out = bcast::select_tensor(&cond, &then, &else_, &spec)?;
    write_npy(&args.output, &out)?;
    Ok(ExitCode::SUCCESS)
}
