//! `bcast eltwise` and `bcast select`: element-wise ops under auto-broadcast on .npy files.
//!
//! As `bcast run`: every check that needs no file (op, rule, flags, output path) runs before
//! any input is read, the output is written atomically, `-` is standard input or output.

use std::path::PathBuf;
use std::process::ExitCode;

use bcast::{AutoBroadcast, BinaryOp};

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
OPs: add, subtract, multiply, divide, maximum, minimum, squared_difference, power, floor_mod,
mod, equal, not_equal, less, less_equal, greater, greater_equal, logical_and, logical_or,
logical_xor. Both inputs have one element type; comparisons and logical ops write bool.
Integers wrap; an integer divide, mod or floor_mod by zero is refused.
Examples:
  bcast eltwise add a.npy b.npy out.npy
  bcast eltwise multiply a.npy b.npy out.npy --auto-broadcast pdpd --axis 1
  bcast eltwise divide a.npy b.npy out.npy --pythondiv false")]
pub struct EltwiseArgs {
    /// The op: its snake-case name (add, floor_mod, logical_xor, ...) in any case, or
    /// OpenVINO's layer type (Add, FloorMod, LogicalXor, ...).
    #[arg(value_name = "OP")]
    op: String,
    /// The first operand (A); `-` reads standard input.
    #[arg(value_name = "A.npy")]
    a: PathBuf,
    /// The second operand (B); `-` reads standard input.
    #[arg(value_name = "B.npy")]
    b: PathBuf,
    /// Where to write the result (atomically); `-` writes standard output.
    #[arg(value_name = "OUT.npy")]
    output: PathBuf,
    #[command(flatten)]
    rule: RuleArgs,
    /// divide only: floor integer quotients (true, OpenVINO's default) or truncate them.
    #[arg(long, value_name = "BOOL")]
    pythondiv: Option<bool>,
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
pub fn parse_op(text: &str) -> Result<BinaryOp, CliError> {
    text.to_ascii_lowercase()
        .parse()
        .or_else(|_| BinaryOp::from_openvino_type(text))
        .map_err(|_| {
            let e = bcast::ParseBinaryOpError(text.to_string());
            CliError(format!("{e} (see bcast eltwise --help for the list)"))
        })
}

/// `bcast eltwise`.
///
/// # Errors
/// An unknown op or rule, a flag of another op or rule, an unreadable input, a broken rule,
/// operand types the op refuses, an integer division by zero, an output that cannot be
/// written.
pub fn eltwise(args: EltwiseArgs) -> CliResult {
    let mut op = parse_op(&args.op)?;
    match (&mut op, args.pythondiv) {
        (BinaryOp::Divide { pythondiv }, Some(given)) => *pythondiv = given,
        (_, Some(_)) => {
            return Err(CliError(format!(
                "--pythondiv is a flag of divide; {} does not take it",
                op.name()
            )))
        }
        _ => {}
    }
    let spec = args.rule.spec()?;
    one_stdin(&[&args.a, &args.b])?;
    check_output_file(&args.output)?;
    let a = read_npy(&args.a)?;
    let b = read_npy(&args.b)?;
    let out = bcast::binary(op, &a, &b, &spec)?;
    write_npy(&args.output, &out)?;
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
