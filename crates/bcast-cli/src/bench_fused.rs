//! The `fused` group of `bcast bench`: chains of element-wise ops under broadcast, run fused
//! by [`Expression::evaluate_into`] beside the same chain run op by op in bcast, against the
//! traffic bound of this machine.
//!
//! Every number is measured in one process, with the same threads, on one reused, already
//! written output buffer (and reused intermediate buffers):
//! - **fused**: `Expression::evaluate_into` into the output. The expression is parsed once,
//!   outside the timed loop; every call checks the operands and plans inside the loop, as a
//!   runtime calling it once per inference does.
//! - **op by op**: the case's own list of ops (written out by hand in [`FUSED_CASES`], not
//!   taken from the expression), each run by `bcast::eltwise_view_into` (planning included)
//!   into an output-sized intermediate buffer of its own, allocated once; the last op writes
//!   the output. This is a chain run op by op with no allocation in the loop, the fairest
//!   op-by-op peer bcast has.
//! - **copy**: `memcpy` of an output-sized source into the output buffer, with the same
//!   chunking and threads: the machine's copy rate.
//!
//! The three kinds take turns within every round, so a slower or faster stretch of a shared
//! machine falls on all of them alike; each figure is the median over the rounds.
//!
//! **Traffic** of a case: every distinct input read once plus the output written once,
//! `traffic_bytes = sum(input bytes) + output bytes` (what a fused pass must move at the
//! least). Rates (`fused_gbps`, `unfused_gbps`) are GB/s of that traffic (10^9 bytes/s), so
//! they compare directly with each other and with the peers of `benches/compare_fused.py`.
//!
//! **Bound**: a memcpy moves `2 x output bytes` (read once, written once) in `t_copy`, so
//! the machine moves traffic at `bound_gbps = 2 x output bytes / t_copy`, and the case's
//! bound is `bound_seconds = traffic_bytes / bound_gbps`. `ratio_bound = t_bound / t_fused =
//! fused_gbps / bound_gbps` (1 is the bound; a ratio above 1 is possible where reads are
//! cheaper than a copy's read-for-write, e.g. broadcast operands that stay in cache).
//! `speedup_unfused = t_op_by_op / t_fused`.
//!
//! Before any timing, the fused result and the op-by-op result of every case are compared
//! bit for bit (and with [`Expression::evaluate_unfused`]); a case whose results differ is
//! refused with an error, never reported.

use std::time::Duration;

use half::f16;
use ndarray::{ArrayD, IxDyn};

use bcast::{AutoBroadcast, BroadcastError, DType, EltwiseOp, Expression, Parallelism, Tensor};

use crate::bench::{median, memcpy, schedule, seconds_per_call};

/// An operand of one op of a case's op-by-op list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// The case's input `i` (in the order of [`FusedCase::inputs`]).
    Input(usize),
    /// The result of op `k` of the list (an earlier op).
    Step(usize),
    /// A 0-d zero of the case's element type (the literal `0`).
    Zero,
}

/// One op of a case's op-by-op list, under numpy's rule.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    /// The op.
    pub op: EltwiseOp,
    /// Its operands.
    pub args: &'static [Arg],
}

/// One chain: an expression and the same ops written out one by one.
#[derive(Debug, Clone, Copy)]
pub struct FusedCase {
    /// Name used by `--case` and joined on by `benches/compare_fused.py`.
    pub name: &'static str,
    /// The expression's text (numpy's rule; numexpr and Python evaluate the same text).
    pub expr: &'static str,
    /// Inputs, in the order the expression first names them: (name, shape).
    pub inputs: &'static [(&'static str, &'static [usize])],
    /// The same chain op by op; the last op's result is the output.
    pub steps: &'static [Step],
    /// Element type of every input.
    pub dtype: DType,
    /// Whether `--mib` scales the case (the leading axis of the output); the tiny chain
    /// measures per-call overhead and keeps its size.
    pub scalable: bool,
}

const fn step(op: EltwiseOp, args: &'static [Arg]) -> Step {
    Step { op, args }
}

use Arg::{Input as I, Step as S, Zero};
use EltwiseOp::{Add, Maximum, Multiply, Subtract};

const BN_STEPS: &[Step] = &[step(Multiply, &[I(0), I(1)]), step(Add, &[S(0), I(2)])];
const LN_STEPS: &[Step] = &[
    step(Subtract, &[I(0), I(1)]),
    step(Multiply, &[S(0), I(2)]),
    step(Multiply, &[S(1), I(3)]),
    step(Add, &[S(2), I(4)]),
];
const BIAS_RELU_STEPS: &[Step] = &[step(Add, &[I(0), I(1)]), step(Maximum, &[S(0), Zero])];
const RESIDUAL_STEPS: &[Step] = &[step(Add, &[I(0), I(1)]), step(Multiply, &[S(0), I(2)])];

// Shapes: the large outputs are 49 MiB (BatchNorm) and 32 MiB in f32, half that in f16: far
// beyond L2. benches/compare_fused.py holds the same table (and checks it against the
// `expr` and `inputs` of every JSON line).
const BN: &[(&str, &[usize])] = &[
    ("x", &[64, 64, 56, 56]),
    ("s", &[64, 1, 1]),
    ("b", &[64, 1, 1]),
];
const LN: &[(&str, &[usize])] = &[
    ("x", &[8192, 1024]),
    ("m", &[8192, 1]),
    ("r", &[8192, 1]),
    ("g", &[1024]),
    ("b", &[1024]),
];
const BIAS_RELU: &[(&str, &[usize])] = &[("x", &[8192, 1024]), ("b", &[1024])];
const RESIDUAL: &[(&str, &[usize])] = &[("x", &[8192, 1024]), ("y", &[8192, 1024]), ("s", &[])];
const TINY: &[(&str, &[usize])] = &[("x", &[64]), ("y", &[64]), ("s", &[])];

macro_rules! both {
    ($name:literal, $expr:literal, $inputs:expr, $steps:expr, $scalable:expr) => {
        [
            FusedCase {
                name: concat!($name, "_f32"),
                expr: $expr,
                inputs: $inputs,
                steps: $steps,
                dtype: DType::F32,
                scalable: $scalable,
            },
            FusedCase {
                name: concat!($name, "_f16"),
                expr: $expr,
                inputs: $inputs,
                steps: $steps,
                dtype: DType::F16,
                scalable: $scalable,
            },
        ]
    };
}

const BN_CASES: [FusedCase; 2] = both!("bn", "x * s + b", BN, BN_STEPS, true);
const LN_CASES: [FusedCase; 2] = both!("ln", "(x - m) * r * g + b", LN, LN_STEPS, true);
const BIAS_RELU_CASES: [FusedCase; 2] = both!(
    "bias_relu",
    "maximum(x + b, 0)",
    BIAS_RELU,
    BIAS_RELU_STEPS,
    true
);
const RESIDUAL_CASES: [FusedCase; 2] =
    both!("residual", "(x + y) * s", RESIDUAL, RESIDUAL_STEPS, true);
const TINY_CASES: [FusedCase; 2] = both!("tiny_chain", "(x + y) * s", TINY, RESIDUAL_STEPS, false);

/// The cases, in order: BatchNorm at inference, the LayerNorm tail, bias + ReLU, a scaled
/// residual add and a tiny chain (per-call overhead), each in f32 and f16.
pub const FUSED_CASES: &[FusedCase] = &[
    BN_CASES[0],
    BN_CASES[1],
    LN_CASES[0],
    LN_CASES[1],
    BIAS_RELU_CASES[0],
    BIAS_RELU_CASES[1],
    RESIDUAL_CASES[0],
    RESIDUAL_CASES[1],
    TINY_CASES[0],
    TINY_CASES[1],
];

/// The case called `name`.
pub fn find_fused(name: &str) -> Option<&'static FusedCase> {
    FUSED_CASES.iter().find(|c| c.name == name)
}

/// What `bcast bench` reports for one fused case (rates in GB/s of the case's traffic).
#[derive(Debug, Clone, serde::Serialize)]
pub struct FusedMeasurement {
    /// Case name.
    pub case: &'static str,
    /// The expression.
    pub expr: &'static str,
    /// Element type name (`f32`, `f16`).
    pub dtype: &'static str,
    /// The inputs' names and shapes, in the expression's order (after `--mib`).
    pub inputs: Vec<(&'static str, Vec<usize>)>,
    /// Ops in the chain.
    pub ops: usize,
    /// Output bytes.
    pub bytes: usize,
    /// Every input's bytes plus the output's: what a fused pass moves at the least.
    pub traffic_bytes: usize,
    /// Threads available to every run.
    pub threads: usize,
    /// `Expression::evaluate_into` into the reused output (median), GB/s of traffic.
    pub fused_gbps: f64,
    /// The ops one by one into reused buffers (median), GB/s of the same traffic.
    pub unfused_gbps: f64,
    /// memcpy of an output-sized buffer (median), GB/s of output.
    pub copy_gbps: f64,
    /// The machine's traffic rate: `2 x copy_gbps` (a copy reads and writes every byte).
    pub bound_gbps: f64,
    /// `fused_gbps / bound_gbps`: the traffic bound's time over the fused time.
    pub ratio_bound: f64,
    /// Op-by-op time over fused time.
    pub speedup_unfused: f64,
    /// Median nanoseconds per fused call.
    pub fused_ns_per_call: f64,
    /// Median nanoseconds per op-by-op chain.
    pub unfused_ns_per_call: f64,
    /// Whether the fused result equalled the op-by-op result bit for bit (always true in a
    /// report: a case whose results differ is refused).
    pub bit_identical: bool,
}

/// Values of the case's type, multiples of 1/64 in [-1.95, 1.95] (exact in f16), that
/// differ along the operand and change sign, so `maximum(_, 0)` takes both sides and no
/// chain overflows f16.
fn operand(shape: &[usize], dtype: DType, salt: usize) -> Result<Tensor, BroadcastError> {
    let n: usize = shape.iter().product();
    let v = |i: usize| (((i * 7 + salt) % 251) as f32 - 125.0) / 64.0;
    let shape = IxDyn(shape);
    let bad = |_| BroadcastError::InvalidExpression {
        reason: "bench operand: length is not the shape's product".into(),
    };
    Ok(match dtype {
        DType::F16 => Tensor::F16(
            ArrayD::from_shape_vec(shape, (0..n).map(|i| f16::from_f32(v(i))).collect())
                .map_err(bad)?,
        ),
        DType::F32 => {
            Tensor::F32(ArrayD::from_shape_vec(shape, (0..n).map(v).collect()).map_err(bad)?)
        }
        other => {
            return Err(BroadcastError::UnsupportedType {
                op: "fused bench",
                dtype: other.name(),
            })
        }
    })
}

/// A 0-d zero of `dtype`.
fn zero(dtype: DType) -> Result<Tensor, BroadcastError> {
    operand(&[], dtype, 125)
}

/// Scales a bench case's input `shapes` (elements of `elem_size` bytes) so that the output
/// holds about `bytes`, keeping the case's pattern: the leading axis of the output is scaled
/// in every input of the output's rank that spans it; where that axis is 1 (`[1, C, H, W]`),
/// in the output-sized inputs only, so per-channel operands stay per channel.
pub fn scale_leading_axis(shapes: &mut [Vec<usize>], elem_size: usize, bytes: usize) {
    let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
    if rank == 0 {
        return;
    }
    let lead = shapes
        .iter()
        .filter(|s| s.len() == rank)
        .map(|s| s[0])
        .max()
        .unwrap_or(1);
    let out_len = output_len(shapes);
    let now = out_len.saturating_mul(elem_size).max(1);
    let dim = ((lead as f64) * bytes as f64 / now as f64).round().max(1.0) as usize;
    for s in shapes
        .iter_mut()
        .filter(|s| s.len() == rank && s[0] == lead)
    {
        if lead > 1 || s.iter().product::<usize>() == out_len {
            s[0] = dim;
        }
    }
}

/// Elements of the output of inputs of `shapes` under numpy's rule (each axis, aligned from
/// the right, as long as its longest input's).
pub fn output_len(shapes: &[Vec<usize>]) -> usize {
    let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
    (0..rank)
        .map(|k| {
            shapes
                .iter()
                .filter_map(|s| s.len().checked_sub(rank - k).map(|at| s[at]))
                .max()
                .unwrap_or(1)
        })
        .product()
}

impl FusedCase {
    /// The inputs' shapes; with `bytes`, scaled as [`scale_leading_axis`] does.
    pub fn shapes(&self, bytes: Option<usize>) -> Vec<Vec<usize>> {
        let mut shapes: Vec<Vec<usize>> = self.inputs.iter().map(|(_, s)| s.to_vec()).collect();
        if let Some(bytes) = bytes.filter(|_| self.scalable) {
            scale_leading_axis(&mut shapes, self.dtype.size(), bytes);
        }
        shapes
    }

    /// The case's inputs for `shapes` (from [`FusedCase::shapes`]).
    ///
    /// # Errors
    /// [`BroadcastError::UnsupportedType`] for a type the bench does not generate.
    pub fn operands(&self, shapes: &[Vec<usize>]) -> Result<Vec<Tensor>, BroadcastError> {
        shapes
            .iter()
            .enumerate()
            .map(|(j, s)| operand(s, self.dtype, 37 * j + 11))
            .collect()
    }

    /// The parsed expression, its inputs checked against the case's.
    ///
    /// # Errors
    /// A parse error; [`BroadcastError::InvalidExpression`] if the names differ.
    pub fn expression(&self) -> Result<Expression, BroadcastError> {
        let e = Expression::parse(self.expr, AutoBroadcast::Numpy)?;
        let names: Vec<&str> = self.inputs.iter().map(|(n, _)| *n).collect();
        if e.inputs() != names.as_slice() {
            return Err(BroadcastError::InvalidExpression {
                reason: format!(
                    "bench case {}: the expression names {:?}, the case {names:?}",
                    self.name,
                    e.inputs()
                ),
            });
        }
        Ok(e)
    }
}

/// The op-by-op chain of a case with its buffers: one output-sized intermediate per op but
/// the last, allocated once.
struct OpByOp<'a> {
    case: &'a FusedCase,
    zero: Tensor,
    temps: Vec<Tensor>,
}

impl<'a> OpByOp<'a> {
    /// Runs every op once allocating, which sizes the intermediates; returns the chain and
    /// its result.
    fn new(
        case: &'a FusedCase,
        inputs: &[Tensor],
        par: Parallelism<'_>,
    ) -> Result<(Self, Tensor), BroadcastError> {
        let zero = zero(case.dtype)?;
        let mut temps: Vec<Tensor> = Vec::with_capacity(case.steps.len());
        for st in case.steps {
            let args = st
                .args
                .iter()
                .map(|a| match *a {
                    Arg::Input(i) => inputs[i].view(),
                    Arg::Step(k) => temps[k].view(),
                    Arg::Zero => zero.view(),
                })
                .collect::<Vec<_>>();
            let r = bcast::eltwise_view(st.op, &args, &AutoBroadcast::Numpy, par)?;
            drop(args);
            temps.push(r);
        }
        let result = temps
            .pop()
            .ok_or_else(|| BroadcastError::InvalidExpression {
                reason: format!("bench case {} has no ops", case.name),
            })?;
        Ok((Self { case, zero, temps }, result))
    }

    /// The chain into `out`, every op into its reused buffer.
    fn run_into(
        &mut self,
        inputs: &[Tensor],
        out: &mut Tensor,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        let last = self.case.steps.len() - 1;
        for (k, st) in self.case.steps.iter().enumerate() {
            let (done, rest) = self.temps.split_at_mut(k);
            let args = st
                .args
                .iter()
                .map(|a| match *a {
                    Arg::Input(i) => inputs[i].view(),
                    Arg::Step(j) => done[j].view(),
                    Arg::Zero => self.zero.view(),
                })
                .collect::<Vec<_>>();
            let dst = if k == last {
                out.view_mut()
            } else {
                rest[0].view_mut()
            };
            bcast::eltwise_view_into(st.op, &args, &AutoBroadcast::Numpy, dst, par)?;
        }
        Ok(())
    }
}

/// The bytes of a tensor's elements in memory order (the bench's types only).
fn bits(t: &Tensor) -> Option<&[u8]> {
    match t {
        Tensor::F32(a) => a.as_slice().map(bytemuck::cast_slice),
        Tensor::F16(a) => a.as_slice().map(bytemuck::cast_slice),
        _ => None,
    }
}

/// Refuses a case whose `fused` result is not `reference` bit for bit, naming the first
/// element that differs.
fn check_identical(
    case: &FusedCase,
    what: &str,
    fused: &Tensor,
    reference: &Tensor,
) -> Result<(), BroadcastError> {
    let refuse = |detail: String| {
        Err(BroadcastError::InvalidExpression {
            reason: format!(
                "bench case {}: the fused result differs from {what} ({detail}); not reported",
                case.name
            ),
        })
    };
    if fused.dtype() != reference.dtype() || fused.shape() != reference.shape() {
        return refuse(format!(
            "{} {:?} against {} {:?}",
            fused.dtype().name(),
            fused.shape(),
            reference.dtype().name(),
            reference.shape()
        ));
    }
    let (Some(a), Some(b)) = (bits(fused), bits(reference)) else {
        return refuse("not a contiguous f32 or f16 tensor".into());
    };
    if let Some(at) = a.iter().zip(b).position(|(x, y)| x != y) {
        let elem = at / fused.dtype().size();
        return refuse(format!("first at element {elem}"));
    }
    Ok(())
}

/// Checks that the case's fused result is the op-by-op result (the case's own ops into
/// reused buffers, and `evaluate_unfused`) bit for bit, on `pool`'s threads.
///
/// # Errors
/// [`BroadcastError::InvalidExpression`] naming the case and the first differing element;
/// any error of the ops themselves.
pub fn check_fused(
    case: &FusedCase,
    shapes: &[Vec<usize>],
    pool: &rayon::ThreadPool,
) -> Result<(), BroadcastError> {
    let par = Parallelism::Pool(pool);
    let inputs = case.operands(shapes)?;
    let expr = case.expression()?;
    let views: Vec<_> = inputs.iter().map(Tensor::view).collect();
    let (mut chain, mut stepped) = OpByOp::new(case, &inputs, par)?;
    let mut fused = expr.evaluate(&views, par)?;
    check_identical(case, "its ops run one by one", &fused, &stepped)?;
    // The reused-buffer paths the timing runs, with the outputs garbled first.
    garble(&mut fused);
    expr.evaluate_into(&views, fused.view_mut(), par)?;
    garble(&mut stepped);
    chain.run_into(&inputs, &mut stepped, par)?;
    check_identical(
        case,
        "its ops run one by one into reused buffers",
        &fused,
        &stepped,
    )?;
    let unfused = expr.evaluate_unfused(&views, par)?;
    check_identical(case, "Expression::evaluate_unfused", &fused, &unfused)
}

/// Overwrites every element (so a run that writes nothing cannot pass the check).
fn garble(t: &mut Tensor) {
    match t {
        Tensor::F32(a) => a.fill(f32::from_bits(0x7FC0_1234)),
        Tensor::F16(a) => a.fill(f16::from_bits(0x7E12)),
        _ => {}
    }
}

/// Measures one case on `pool`, spending about `budget` on the interleaved rounds, after
/// checking its fused and op-by-op results bit for bit ([`check_fused`]).
///
/// # Errors
/// The check's refusal; any error of the ops.
pub fn measure_fused(
    case: &FusedCase,
    shapes: &[Vec<usize>],
    pool: &rayon::ThreadPool,
    threads: usize,
    budget: Duration,
) -> Result<FusedMeasurement, BroadcastError> {
    check_fused(case, shapes, pool)?;
    let par = Parallelism::Pool(pool);
    let inputs = case.operands(shapes)?;
    // Parsed once; `evaluate_into` checks and plans on every call.
    let expr = case.expression()?;
    let views: Vec<_> = inputs.iter().map(Tensor::view).collect();
    let (mut chain, mut out) = OpByOp::new(case, &inputs, par)?;
    let bytes = out.len() * out.dtype().size();
    let traffic = bytes
        + inputs
            .iter()
            .map(|t| t.len() * t.dtype().size())
            .sum::<usize>();
    let src = out.clone();
    let fused = |out: &mut Tensor| expr.evaluate_into(&views, out.view_mut(), par);
    let copy = |out: &mut Tensor| -> Result<(), BroadcastError> {
        match (out, &src) {
            (Tensor::F32(o), Tensor::F32(s)) => memcpy(
                o.as_slice_mut().expect("row-major"),
                s.as_slice().expect("row-major"),
                par,
            ),
            (Tensor::F16(o), Tensor::F16(s)) => memcpy(
                o.as_slice_mut().expect("row-major"),
                s.as_slice().expect("row-major"),
                par,
            ),
            (o, _) => Err(BroadcastError::UnsupportedType {
                op: "fused bench copy",
                dtype: o.dtype().name(),
            }),
        }
    };
    fused(&mut out)?;
    let t_fused = seconds_per_call(1, || fused(&mut out))?;
    let t_chain = seconds_per_call(1, || chain.run_into(&inputs, &mut out, par))?;
    let t_copy = seconds_per_call(1, || copy(&mut out))?;
    // Each kind its own batch (a sample lasts about a millisecond at least); the rounds fill
    // the budget.
    let batch = |t: f64| schedule(t, budget, 1).0;
    let (bf, bu, bc) = (batch(t_fused), batch(t_chain), batch(t_copy));
    let round = bf as f64 * t_fused + bu as f64 * t_chain + bc as f64 * t_copy;
    let rounds = ((budget.as_secs_f64() / round.max(1e-9)).clamp(7.0, 201.0) as usize) | 1;
    let (mut f, mut u, mut c) = (vec![], vec![], vec![]);
    for _ in 0..rounds {
        f.push(seconds_per_call(bf, || fused(&mut out))?);
        u.push(seconds_per_call(bu, || {
            chain.run_into(&inputs, &mut out, par)
        })?);
        c.push(seconds_per_call(bc, || copy(&mut out))?);
    }
    let (t_fused, t_chain, t_copy) = (median(&mut f), median(&mut u), median(&mut c));
    let rate = |b: usize, t: f64| if t > 0.0 { b as f64 / t / 1e9 } else { 0.0 };
    let (fused_gbps, copy_gbps) = (rate(traffic, t_fused), rate(bytes, t_copy));
    let bound_gbps = 2.0 * copy_gbps;
    Ok(FusedMeasurement {
        case: case.name,
        expr: case.expr,
        dtype: case.dtype.name(),
        inputs: case
            .inputs
            .iter()
            .zip(shapes)
            .map(|((n, _), s)| (*n, s.clone()))
            .collect(),
        ops: case.steps.len(),
        bytes,
        traffic_bytes: traffic,
        threads,
        fused_gbps,
        unfused_gbps: rate(traffic, t_chain),
        copy_gbps,
        bound_gbps,
        ratio_bound: if bound_gbps > 0.0 {
            fused_gbps / bound_gbps
        } else {
            0.0
        },
        speedup_unfused: if t_fused > 0.0 {
            t_chain / t_fused
        } else {
            0.0
        },
        fused_ns_per_call: t_fused * 1e9,
        unfused_ns_per_call: t_chain * 1e9,
        bit_identical: true,
    })
}

/// Runs and prints the cases named in `names` (all of them when `names` is empty), each
/// scaled to about `bytes` of output when given: a table, or one JSON object per line with
/// `json`. This is all `bcast bench` calls for the group.
///
/// # Errors
/// The first refusal, measuring or writing error, as a message.
pub fn run_group(
    names: &[String],
    bytes: Option<usize>,
    pool: &rayon::ThreadPool,
    threads: usize,
    budget: Duration,
    json: bool,
    out: &mut impl std::io::Write,
) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot write the report: {e}");
    let cases: Vec<_> = FUSED_CASES
        .iter()
        .filter(|c| names.is_empty() || names.iter().any(|n| n == c.name))
        .collect();
    if !json && !cases.is_empty() {
        writeln!(
            out,
            "# fused: Expression::evaluate_into (parsed once, planned every call) and the same \
             ops one by one into reused buffers; GB/s of traffic (inputs read once + output \
             written once), medians; bound = 2 x memcpy GB/s"
        )
        .map_err(io)?;
        writeln!(
            out,
            "{:<15} {:>10} {:>7} {:>10} {:>12} {:>10} {:>11} {:>9} {:>11} {:>12}",
            "case",
            "traffic",
            "threads",
            "fused_GB/s",
            "opbyop_GB/s",
            "bound_GB/s",
            "ratio_bound",
            "speedup",
            "fused_ns",
            "opbyop_ns"
        )
        .map_err(io)?;
    }
    for case in cases {
        let shapes = case.shapes(bytes);
        let m = measure_fused(case, &shapes, pool, threads, budget).map_err(|e| e.to_string())?;
        let line = if json {
            serde_json::to_string(&m).map_err(|e| e.to_string())?
        } else {
            format!(
                "{:<15} {:>10} {:>7} {:>10.2} {:>12.2} {:>10.2} {:>11.2} {:>9.2} {:>11.0} {:>12.0}",
                m.case,
                m.traffic_bytes,
                m.threads,
                m.fused_gbps,
                m.unfused_gbps,
                m.bound_gbps,
                m.ratio_bound,
                m.speedup_unfused,
                m.fused_ns_per_call,
                m.unfused_ns_per_call
            )
        };
        writeln!(out, "{line}").map_err(io)?;
        out.flush().map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_expression_names_its_inputs() {
        for (i, c) in FUSED_CASES.iter().enumerate() {
            assert!(
                FUSED_CASES[..i].iter().all(|o| o.name != c.name),
                "{}",
                c.name
            );
            assert!(crate::bench::find(c.name).is_none(), "{}", c.name);
            assert!(
                crate::bench_eltwise::find_elt(c.name).is_none(),
                "{}",
                c.name
            );
            let e = c.expression().unwrap();
            assert_eq!(e.nodes().len(), c.steps.len(), "{}", c.name);
        }
    }

    #[test]
    fn scaling_keeps_the_pattern_and_leaves_the_tiny_chain() {
        let ln = find_fused("ln_f32").unwrap().shapes(Some(1 << 20));
        assert_eq!(
            ln,
            vec![
                vec![256, 1024],
                vec![256, 1],
                vec![256, 1],
                vec![1024],
                vec![1024]
            ]
        );
        let bn = find_fused("bn_f16")
            .unwrap()
            .shapes(Some(2 * 64 * 56 * 56 * 2));
        assert_eq!(bn[0], [2, 64, 56, 56]);
        assert_eq!(bn[1], [64, 1, 1]);
        let tiny = find_fused("tiny_chain_f32").unwrap();
        assert_eq!(tiny.shapes(Some(1 << 20)), vec![vec![64], vec![64], vec![]]);
    }
}
