//! The fused executor of an [`Expression`]: one walk over the output for the whole expression.
//!
//! Lowering places every input an expression reads on the final output, composing each
//! node's own placement ([`place`], as the op alone places its operands) from the result down
//! to the leaves, so one multi-operand plan ([`EltwisePlan`]) reads every input in place, in
//! any layout, broadcast ones as splats or tiles. The executor walks that plan as the
//! single-op executor does (chunks over threads, rows, stretches) and cuts each stretch into
//! blocks of [`BLOCK_BYTES`]: per block, each node runs its op's block kernel (the op table's
//! body, through the same block loop as the op alone: `kernels.rs`'s `*_fn` block kernels)
//! from its operands' sources into a scratch block that stays in L1, the last node straight
//! into the output. No intermediate tensor, no per-element dispatch: one call per node per block.
//! A linear chain whose operands read in place runs instead as a register chain (`chain.rs`),
//! one kernel call per run of whole rows along the innermost outer axis ([`walk_rows`]), so
//! rows of a few KiB cost no more than one long row.
//!
//! A value computed at an output position from operands placed there is the value the op
//! alone computes at the position it broadcasts to, so every element equals the op-by-op
//! result bit for bit; an integer divisor is checked block by block, over every element the
//! op alone would check (each element of a broadcast operand lies under some output
//! position of a non-empty output). What the executor does not take runs op by op
//! ([`Expression::evaluate_unfused`], identical by definition): an empty output (so errors
//! come from the same ops), strings, operands of two non-bool element types, more than
//! [`FOLD_MAX`] distinct placed inputs or operands of one node, more than [`MAX_STEPS`] steps.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::chain::{ChainFn, ChainIsa, Node, RowSource, Rows, MAX_LINKS};
use super::exec::{
    advance, cost_bytes, room, run_source, select_block, source, walk, walk_rows, wide_isa_for,
    Fresh, Into, Operand, Piece, Sink, Src, Tile, Writer, FOLD_MAX,
};
use super::expr::{literal_tensor, ExprValue, Expression};
use super::kernels::{BlockJob, BlockKernels};
use super::plan::{EltwisePlan, RowKind};
use super::rule::Placement;
use super::table::{EltwiseOp, Out, Shape};
use super::view::{TensorView, TensorViewMut, ViewElement};
use crate::auto_broadcast::AutoBroadcast;
use crate::dtype::{dtype_table, DType};
use crate::element::Element;
use crate::error::BroadcastError;
use crate::exec::isa::Avx2;
use crate::exec::{for_each_chunk, stream_stores, uninit_slots, Parallelism, Slot, Strategy};
use crate::tensor::Tensor;

/// Expressions of more steps than this (a node used twice is a step per use) run op by op.
pub(crate) const MAX_STEPS: usize = 64;

/// Bytes of one scratch block (per node value): small enough that every live block of an
/// expression stays in L1, long enough that one call per node per block is nothing.
const BLOCK_BYTES: usize = 8192;

/// Which scratch a value lives in: the expression's element type, or bool (comparisons,
/// logical ops, Select's condition).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lane {
    Value,
    Bool,
}

/// A step's operand.
#[derive(Debug, Clone, Copy)]
enum Arg {
    /// Placed input `j` of the step's lane.
    Leaf(usize),
    /// Literal `j` of the step's lane.
    Literal(usize),
    /// Scratch block `j` of the step's lane.
    Scratch(usize),
}

/// One node at one use: its op on its operands' blocks into a scratch block.
#[derive(Debug)]
struct Step {
    op: EltwiseOp,
    /// The lane of the operands (Select: of `then` and `else`; its condition is bool).
    lane: Lane,
    args: Vec<(Lane, Arg)>,
    /// The lane and scratch block of the result.
    out: (Lane, usize),
}

/// An input as the fused plan reads it: its view's strides laid on the final output's axes.
#[derive(Debug, PartialEq)]
struct Leaf {
    input: usize,
    shape: Vec<usize>,
    strides: Vec<isize>,
}

/// An expression lowered for one set of input shapes and types.
pub(crate) struct Program {
    /// The element type of the value lane (the inputs' non-bool type).
    value_dtype: DType,
    out_shape: Vec<usize>,
    /// The plan that reads every leaf in place (value leaves first, then bool leaves).
    plan: Option<Plan>,
    leaves: [Vec<Leaf>; 2],
    literals: [Vec<super::expr::ExprLiteral>; 2],
    literal_dtypes: [Vec<DType>; 2],
    steps: Vec<Step>,
    scratch: [usize; 2],
    root: (Lane, usize),
    /// The steps as a linear chain, where they are one (`chain.rs`).
    chain: Option<ChainPlan>,
}

/// A linear chain: the first node's first operand, then per node its op, whether the running
/// value is its first operand, and its other operand (a value leaf or literal).
#[derive(Debug)]
struct ChainPlan {
    first: Arg,
    links: Vec<(EltwiseOp, bool, Arg)>,
}

/// The steps as a linear chain of the value lane: every step a two-operand op of the value
/// type, the first on two leaves or literals, each later one on the step before it and one
/// leaf or literal.
fn chain_of(steps: &[Step]) -> Option<ChainPlan> {
    if steps.is_empty() || steps.len() > MAX_LINKS {
        return None;
    }
    let operand = |a: &(Lane, Arg)| match a {
        (Lane::Value, Arg::Leaf(_) | Arg::Literal(_)) => Some(a.1),
        _ => None,
    };
    let mut first = None;
    let mut links = Vec::with_capacity(steps.len());
    for (k, step) in steps.iter().enumerate() {
        let binary = step.op.shape() == Shape::Binary && step.op.out() == Out::Same;
        if !binary || step.lane != Lane::Value || step.out.0 != Lane::Value {
            return None;
        }
        let [a, b] = step.args.as_slice() else {
            return None;
        };
        if k == 0 {
            first = Some(operand(a)?);
            links.push((step.op, true, operand(b)?));
            continue;
        }
        let running = |x: &(Lane, Arg)| matches!(x, (Lane::Value, Arg::Scratch(j)) if *j == steps[k - 1].out.1);
        match (running(a), running(b)) {
            (true, false) => links.push((step.op, true, operand(b)?)),
            (false, true) => links.push((step.op, false, operand(a)?)),
            _ => return None,
        }
    }
    Some(ChainPlan {
        first: first?,
        links,
    })
}

fn lane_index(lane: Lane) -> usize {
    match lane {
        Lane::Value => 0,
        Lane::Bool => 1,
    }
}

/// Lowers `expr` for `inputs`; `None` where the fused executor does not take it.
struct Lowering<'e, 'v> {
    expr: &'e Expression,
    inputs: &'e [TensorView<'v>],
    dtypes: Vec<DType>,
    node_dtypes: Vec<DType>,
    /// Each node's operands as the node alone places them.
    placements: Vec<Placement>,
    value_dtype: DType,
    program: Program,
    /// Free scratch blocks per lane.
    free: [Vec<usize>; 2],
    /// Calls of [`Lowering::node`] so far: each that succeeds makes one step, so past
    /// [`MAX_STEPS`] the expression runs op by op. Counted at entry, before the operands
    /// are lowered, this also bounds the recursion's depth (a chain is lowered from its
    /// result down to its first node) whatever the expression's length.
    visits: usize,
}

impl Lowering<'_, '_> {
    fn lane_of(&self, dtype: DType) -> Option<Lane> {
        if dtype == DType::Bool {
            Some(Lane::Bool)
        } else if dtype == self.value_dtype {
            Some(Lane::Value)
        } else {
            None
        }
    }

    fn scratch(&mut self, lane: Lane) -> usize {
        let l = lane_index(lane);
        self.free[l].pop().unwrap_or_else(|| {
            self.program.scratch[l] += 1;
            self.program.scratch[l] - 1
        })
    }

    /// Lowers node `k`, its output lying on the final output from axis `start` on.
    fn node(&mut self, k: usize, start: usize) -> Result<Option<(Lane, usize)>, BroadcastError> {
        if self.visits >= MAX_STEPS {
            return Ok(None);
        }
        self.visits += 1;
        let expr = self.expr;
        let node = &expr.nodes()[k];
        if node.args.len() > FOLD_MAX {
            return Ok(None);
        }
        let placement = self.placements[k].clone();
        let default = Expression::literal_dtype(&self.dtypes);
        let arg_dtypes = expr.arg_dtypes(node, &self.dtypes, &self.node_dtypes, default);
        let out_rank = placement.out_shape.len();
        let mut args = Vec::with_capacity(node.args.len());
        let mut children = Vec::new();
        for (j, v) in node.args.iter().enumerate() {
            let Some(lane) = self.lane_of(arg_dtypes[j]) else {
                return Ok(None);
            };
            let (seen, at) = &placement.operands[j];
            let at = start + at;
            let arg = match *v {
                ExprValue::Input(i) => match self.leaf(i, seen, at, start + out_rank) {
                    Some(leaf) => {
                        let list = &mut self.program.leaves[lane_index(lane)];
                        let j = list.iter().position(|l| *l == leaf).unwrap_or_else(|| {
                            list.push(leaf);
                            list.len() - 1
                        });
                        Arg::Leaf(j)
                    }
                    None => return Ok(None),
                },
                ExprValue::Literal(i) => {
                    let l = lane_index(lane);
                    self.program.literals[l].push(expr.literals()[i]);
                    self.program.literal_dtypes[l].push(arg_dtypes[j]);
                    Arg::Literal(self.program.literals[l].len() - 1)
                }
                ExprValue::Node(c) => match self.node(c, at)? {
                    Some((_, s)) => {
                        children.push((lane, s));
                        Arg::Scratch(s)
                    }
                    None => return Ok(None),
                },
            };
            args.push((lane, arg));
        }
        let Some(out_lane) = self.lane_of(self.node_dtypes[k]) else {
            return Ok(None);
        };
        // The result's block is taken before the operands' are freed, so a step never
        // writes a block it reads.
        let out = self.scratch(out_lane);
        for (lane, s) in children {
            self.free[lane_index(lane)].push(s);
        }
        let lane = if node.op.shape() == Shape::Select {
            args[1].0
        } else {
            args[0].0
        };
        self.program.steps.push(Step {
            op: node.op,
            lane,
            args,
            out: (out_lane, out),
        });
        Ok(Some((out_lane, out)))
    }

    /// Input `i` as the op sees it (`seen`: its shape, a PRelu slope's with trailing 1s)
    /// lying on the final output from axis `at` on, inside the node's output axes
    /// `..end`; `None` if it does not fit (then the expression runs op by op).
    fn leaf(&self, i: usize, seen: &[usize], at: usize, end: usize) -> Option<Leaf> {
        let out = &self.program.out_shape;
        let view = &self.inputs[i];
        let (shape, strides) = (view.shape(), view_strides(view));
        let mut leaf = Leaf {
            input: i,
            shape: vec![1; out.len()],
            strides: vec![0; out.len()],
        };
        for (k, &d) in seen.iter().enumerate() {
            let axis = at + k;
            if d == 1 {
                continue;
            }
            if axis >= end || axis >= out.len() || out[axis] != d || shape.get(k) != Some(&d) {
                return None;
            }
            leaf.shape[axis] = d;
            leaf.strides[axis] = strides[k];
        }
        Some(leaf)
    }
}

fn view_strides<'a>(view: &'a TensorView<'_>) -> &'a [isize] {
    macro_rules! strides {
        (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
            match view {
                $(TensorView::$v(a) => a.strides(),)*
            }
        };
    }
    dtype_table!(strides!)
}

/// Lowers `expr` for `inputs`, or `None` where the expression runs op by op.
pub(crate) fn lower(
    expr: &Expression,
    inputs: &[TensorView<'_>],
) -> Result<Option<Program>, BroadcastError> {
    let dtypes: Vec<DType> = inputs.iter().map(|v| v.dtype()).collect();
    let node_dtypes = expr.node_dtypes(&dtypes)?;
    let shapes: Vec<&[usize]> = inputs.iter().map(|v| v.shape()).collect();
    let placements = expr.placements(&shapes)?;
    let out_shape = placements
        .last()
        .expect("checked: one node or more")
        .out_shape
        .clone();
    if out_shape.contains(&0) || dtypes.contains(&DType::String) {
        return Ok(None);
    }
    let value_dtype = Expression::literal_dtype(&dtypes);
    let mut lowering = Lowering {
        expr,
        inputs,
        value_dtype,
        dtypes,
        node_dtypes,
        placements,
        program: Program {
            value_dtype,
            out_shape,
            plan: None,
            leaves: [Vec::new(), Vec::new()],
            literals: [Vec::new(), Vec::new()],
            literal_dtypes: [Vec::new(), Vec::new()],
            steps: Vec::new(),
            scratch: [0, 0],
            root: (Lane::Value, 0),
            chain: None,
        },
        free: [Vec::new(), Vec::new()],
        visits: 0,
    };
    let Some(root) = lowering.node(expr.nodes().len() - 1, 0)? else {
        return Ok(None);
    };
    let mut program = lowering.program;
    program.root = root;
    program.chain = chain_of(&program.steps);
    if program.leaves[0].len() + program.leaves[1].len() > FOLD_MAX {
        return Ok(None);
    }
    // The leaves' common shape is the output's (each output dim comes from an input's).
    let leaves = || program.leaves.iter().flatten();
    let covered = program
        .out_shape
        .iter()
        .enumerate()
        .all(|(a, &d)| d == 1 || leaves().any(|l| l.shape[a] == d));
    if !covered {
        return Ok(None);
    }
    let mut shapes: [&[usize]; FOLD_MAX] = [&[]; FOLD_MAX];
    let mut strides: [&[isize]; FOLD_MAX] = [&[]; FOLD_MAX];
    for (j, l) in program.leaves.iter().flatten().enumerate() {
        shapes[j] = &l.shape;
        strides[j] = &l.strides;
    }
    let leaves = program.leaves[0].len() + program.leaves[1].len();
    let plan = Plan::new(leaves, shapes, strides)?;
    program.plan = Some(plan);
    Ok(Some(program))
}

/// The plan of an expression's leaves, no wider than they need: the walk builds and copies
/// one piece per plan operand for every stretch, so a chain of three inputs walks a plan four
/// wide, not sixteen.
// One plan per kept lowering, read on every call: the variants' sizes cost nothing, a box
// would cost an allocation per lowering and a pointer chase per call.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Plan {
    Four(EltwisePlan<4>),
    Eight(EltwisePlan<8>),
    Sixteen(EltwisePlan<FOLD_MAX>),
}

impl Plan {
    fn new(
        leaves: usize,
        shapes: [&[usize]; FOLD_MAX],
        strides: [&[isize]; FOLD_MAX],
    ) -> Result<Plan, BroadcastError> {
        fn narrow<X: Copy, const N: usize>(all: [&[X]; FOLD_MAX]) -> [&[X]; N] {
            std::array::from_fn(|j| all[j])
        }
        // Unused operand slots are scalars: they broadcast along everything and are never
        // read.
        let numpy = &AutoBroadcast::Numpy;
        Ok(if leaves <= 4 {
            Plan::Four(EltwisePlan::new(
                narrow(shapes),
                narrow(strides),
                0,
                numpy,
                true,
            )?)
        } else if leaves <= 8 {
            Plan::Eight(EltwisePlan::new(
                narrow(shapes),
                narrow(strides),
                0,
                numpy,
                true,
            )?)
        } else {
            Plan::Sixteen(EltwisePlan::new(shapes, strides, 0, numpy, true)?)
        })
    }
}

/// An expression's lowering for one layout of its inputs (each input's element type, shape
/// and strides): `None` where it runs op by op.
pub(crate) struct Lowered {
    layout: Vec<(DType, Vec<usize>, Vec<isize>)>,
    program: Option<Program>,
}

impl Lowered {
    fn fits(&self, inputs: &[TensorView<'_>]) -> bool {
        self.layout.len() == inputs.len()
            && self
                .layout
                .iter()
                .zip(inputs)
                .all(|((dtype, shape, strides), v)| {
                    // Element by element: these are a few numbers, not worth a `memcmp` call.
                    *dtype == v.dtype()
                        && shape.iter().eq(v.shape())
                        && strides.iter().eq(view_strides(v))
                })
    }
}

/// The last lowering an expression made, kept for its next call on inputs laid out alike
/// (a runtime calls one expression on the same shapes again and again): such a call checks
/// the layout and goes straight to the walk. Not part of the expression's value (clones
/// start empty, equality ignores it).
#[derive(Default)]
pub(crate) struct LoweringCache(Mutex<Option<Arc<Lowered>>>);

impl Clone for LoweringCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PartialEq for LoweringCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for LoweringCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LoweringCache")
    }
}

impl LoweringCache {
    /// The lowering of `expr` for `inputs`: the kept one if it fits them, else a new one
    /// (then kept). Errors are not kept.
    pub(crate) fn lowered(
        &self,
        expr: &Expression,
        inputs: &[TensorView<'_>],
    ) -> Result<Arc<Lowered>, BroadcastError> {
        // A poisoned lock only means a panic elsewhere while it was held; the slot holds a
        // whole value or none.
        let kept = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(l) = kept.filter(|l| l.fits(inputs)) {
            return Ok(l);
        }
        let lowered = Arc::new(Lowered {
            layout: inputs
                .iter()
                .map(|v| (v.dtype(), v.shape().to_vec(), view_strides(v).to_vec()))
                .collect(),
            program: lower(expr, inputs)?,
        });
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::clone(&lowered));
        Ok(lowered)
    }
}

/// Runs `expr` fused where it can ([`lower`]), else op by op; into a new tensor, or into
/// `out`.
pub(crate) fn evaluate(
    expr: &Expression,
    inputs: &[TensorView<'_>],
    out: Option<TensorViewMut<'_>>,
    par: Parallelism<'_>,
) -> Result<Option<Tensor>, BroadcastError> {
    let lowered = expr.lowering_cache().lowered(expr, inputs)?;
    let Some(program) = &lowered.program else {
        return match out {
            Some(out) => expr.evaluate_unfused_into(inputs, out, par).map(|()| None),
            None => expr.evaluate_unfused(inputs, par).map(Some),
        };
    };
    let root_op = program.steps.last().expect("a root step").op;
    let root_dtype = match program.root.0 {
        Lane::Bool => DType::Bool,
        Lane::Value => program.value_dtype,
    };
    if let Some(out) = &out {
        if out.dtype() != root_dtype {
            return Err(BroadcastError::DTypeMismatch {
                op: root_op.name(),
                left: root_dtype.name(),
                right: out.dtype().name(),
            });
        }
    }
    macro_rules! typed {
        (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
            match program.value_dtype {
                $(DType::$v => typed!(@ $kind, $t),)*
            }
        };
        (@ Text, $t:ty) => { unreachable!("strings run op by op") };
        (@ $kind:ident, $t:ty) => { run_typed::<$t>(program, inputs, out, par) };
    }
    dtype_table!(typed!)
}

/// The typed run: the value lane of `T`, the result of `T` or bool.
fn run_typed<T: BlockKernels>(
    program: &Program,
    inputs: &[TensorView<'_>],
    out: Option<TensorViewMut<'_>>,
    par: Parallelism<'_>,
) -> Result<Option<Tensor>, BroadcastError> {
    // Fixed arrays, not vectors: a small expression's call allocates as little as it can.
    let mut value_ops = [Operand::unused(); FOLD_MAX];
    for (op, l) in value_ops.iter_mut().zip(&program.leaves[0]) {
        let view = T::view_of(&inputs[l.input]).expect("a value-lane input has the value type");
        *op = Operand::of(view);
    }
    let mut bool_ops = [Operand::unused(); FOLD_MAX];
    for (op, l) in bool_ops.iter_mut().zip(&program.leaves[1]) {
        *op = Operand::of(bool::view_of(&inputs[l.input]).expect("a bool-lane input is bool"));
    }
    let scalar = |lane: usize, j: usize| {
        literal_tensor(program.literals[lane][j], program.literal_dtypes[lane][j])
    };
    let value_literals = (0..program.literals[0].len())
        .map(|j| {
            let t = scalar(0, j)?;
            Ok(*T::tensor_array(&t)
                .expect("a literal of the value type")
                .first()
                .expect("0-d"))
        })
        .collect::<Result<Vec<T>, BroadcastError>>()?;
    let bool_literals = (0..program.literals[1].len())
        .map(|j| {
            let t = scalar(1, j)?;
            Ok(*bool::tensor_array(&t)
                .expect("a bool literal")
                .first()
                .expect("0-d"))
        })
        .collect::<Result<Vec<bool>, BroadcastError>>()?;
    let literals = (value_literals, bool_literals);
    match program.plan.as_ref().expect("planned by lower") {
        Plan::Four(plan) => run_planned(program, plan, value_ops, bool_ops, literals, out, par),
        Plan::Eight(plan) => run_planned(program, plan, value_ops, bool_ops, literals, out, par),
        Plan::Sixteen(plan) => run_planned(program, plan, value_ops, bool_ops, literals, out, par),
    }
}

/// [`run_typed`] on a plan `N` wide.
fn run_planned<T: BlockKernels, const N: usize>(
    program: &Program,
    plan: &EltwisePlan<N>,
    value_ops: [Operand<'_, T>; FOLD_MAX],
    bool_ops: [Operand<'_, bool>; FOLD_MAX],
    (value_literals, bool_literals): (Vec<T>, Vec<bool>),
    out: Option<TensorViewMut<'_>>,
    par: Parallelism<'_>,
) -> Result<Option<Tensor>, BroadcastError> {
    let run = Run {
        program,
        chain: chain_kernel(program, &par.strategy()),
        stream: stream_stores(plan.len().saturating_mul(std::mem::size_of::<T>())),
        plan,
        value_ops,
        bool_ops,
        value_literals,
        bool_literals,
        dtype: T::DTYPE.name(),
        isa: wide_isa_for(par, plan.len().saturating_mul(std::mem::size_of::<T>())),
        f16c: Avx2::detect(),
        failed: AtomicBool::new(false),
        error: Mutex::new(None),
        par,
    };
    match program.root.0 {
        Lane::Value => finish::<T, T, N>(&run, out, root_value::<T>),
        Lane::Bool => finish::<T, bool, N>(&run, out, root_bool::<T>),
    }
}

/// The chain kernel of `program` for `T` and its chain, where it runs as a register chain:
/// it is one, every op of it chains for `T`, the strategy in force says so, and `T` has a
/// kernel at the strategy's arithmetic width on this CPU.
fn chain_kernel<'p, T: BlockKernels>(
    program: &'p Program,
    strategy: &Strategy,
) -> Option<(ChainFn<T>, &'p ChainPlan)> {
    let chain = program.chain.as_ref()?;
    if !strategy.register_chains {
        return None;
    }
    let mut ops = [EltwiseOp::Add; MAX_LINKS];
    for (op, link) in ops.iter_mut().zip(&chain.links) {
        *op = link.0;
    }
    let ops = &ops[..chain.links.len()];
    Some((T::chain_fn(ops, ChainIsa::new(strategy))?, chain))
}

/// Whether `expr` runs on `inputs` as a register chain ([`chain_kernel`]) with `par`'s
/// strategy.
pub(crate) fn in_registers(
    expr: &Expression,
    inputs: &[TensorView<'_>],
    par: Parallelism<'_>,
) -> Result<bool, BroadcastError> {
    let strategy = par.strategy();
    let Some(program) = lower(expr, inputs)? else {
        return Ok(false);
    };
    macro_rules! typed {
        (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
            match program.value_dtype {
                $(DType::$v => typed!(@ $kind, $t),)*
            }
        };
        (@ Text, $t:ty) => { false };
        (@ $kind:ident, $t:ty) => { chain_kernel::<$t>(&program, &strategy).is_some() };
    }
    Ok(dtype_table!(typed!))
}

/// The result's stretch of the output, in the lane of the result.
enum RootSlots<'o, T> {
    Value(&'o mut [MaybeUninit<T>]),
    Bool(&'o mut [MaybeUninit<bool>]),
}

/// Names an output of `C` as the lane `C` is (instantiated with `C = T` or `C = bool`).
type Root<T, C> = for<'o> fn(&'o mut [MaybeUninit<C>]) -> RootSlots<'o, T>;

fn root_value<T>(out: &mut [MaybeUninit<T>]) -> RootSlots<'_, T> {
    RootSlots::Value(out)
}

fn root_bool<T>(out: &mut [MaybeUninit<bool>]) -> RootSlots<'_, T> {
    RootSlots::Bool(out)
}

fn finish<T: BlockKernels, C: ViewElement + Copy, const N: usize>(
    run: &Run<'_, '_, T, N>,
    out: Option<TensorViewMut<'_>>,
    root: Root<T, C>,
) -> Result<Option<Tensor>, BroadcastError> {
    let writer = FusedWriter { run, root };
    match out {
        None => Ok(Some(C::into_tensor(Fresh.finish(run.plan, &writer)?))),
        Some(out) => {
            let got = out.dtype();
            let view = C::view_mut_of(out).ok_or(BroadcastError::DTypeMismatch {
                op: "expression",
                left: C::DTYPE.name(),
                right: got.name(),
            })?;
            Into(view).finish(run.plan, &writer)?;
            Ok(None)
        }
    }
}

/// Everything a chunk's walk reads.
struct Run<'p, 'v, T, const N: usize> {
    program: &'p Program,
    /// The chain kernel and the chain, where the expression runs as a register chain.
    chain: Option<(ChainFn<T>, &'p ChainPlan)>,
    /// Whether the chain kernel streams its stores: the output is too large to stay in cache
    /// ([`stream_stores`]).
    stream: bool,
    /// The ISA the steps' block kernels are built for (the strategy's element-wise width),
    /// found once per run.
    isa: Option<Avx2>,
    /// The CPU's F16C (16-bit float conversions), found once per run.
    f16c: Option<Avx2>,
    plan: &'p EltwisePlan<N>,
    /// The value leaves' operands (the first `program.leaves[0].len()`), then the bool ones'.
    value_ops: [Operand<'v, T>; FOLD_MAX],
    bool_ops: [Operand<'v, bool>; FOLD_MAX],
    value_literals: Vec<T>,
    bool_literals: Vec<bool>,
    dtype: &'static str,
    /// Set when a block failed (an integer division by zero): the other chunks stop.
    failed: AtomicBool,
    error: Mutex<Option<BroadcastError>>,
    par: Parallelism<'p>,
}

struct FusedWriter<'r, 'p, 'v, T, C, const N: usize> {
    run: &'r Run<'p, 'v, T, N>,
    root: Root<T, C>,
}

impl<T: BlockKernels, C: Copy + Send, const N: usize> Writer<C>
    for FusedWriter<'_, '_, '_, T, C, N>
{
    fn write<S: Slot<C>>(&self, out: &mut [S]) -> Result<(), BroadcastError> {
        let run = self.run;
        // Each step costs about what its op alone costs per output element (a pass over an
        // L1 block), so an expression is worth a second thread at a smaller output than one op.
        let cost = cost_bytes::<C>().saturating_mul(run.program.steps.len().max(1));
        for_each_chunk(out, cost, run.par, |start, chunk| {
            // SAFETY: `C` is `Copy` (no drop glue), and the kernels store only whole valid
            // `C`s, so an initialised output stays so.
            let slots = unsafe { uninit_slots(chunk) };
            if let Err(e) = run.chunk(start, slots, self.root) {
                run.failed.store(true, Ordering::Relaxed);
                let mut slot = run.error.lock().unwrap_or_else(|p| p.into_inner());
                slot.get_or_insert(e);
            }
        })?;
        match run.error.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Scratch elements a run keeps on the stack before it allocates.
const STACK_SCRATCH: usize = 256;

/// `len` scratch slots: the front of `stack` when it is long enough, else `heap` grown to
/// `len`.
fn scratch_of<'s, X: Copy>(
    stack: &'s mut [MaybeUninit<X>],
    heap: &'s mut Vec<MaybeUninit<X>>,
    len: usize,
) -> &'s mut [MaybeUninit<X>] {
    if len <= stack.len() {
        &mut stack[..len]
    } else {
        heap.resize(len, MaybeUninit::uninit());
        heap
    }
}

/// Values per scratch block for elements of `T` (bool blocks hold as many).
fn block_len<T>() -> usize {
    (BLOCK_BYTES / std::mem::size_of::<T>().max(1)).max(1)
}

/// A lane's scratch blocks other than the one a step writes, for its operands.
struct Blocks<'a, X> {
    /// The blocks before the written one (all of them when the step writes none here).
    before: &'a [MaybeUninit<X>],
    /// The blocks after the written one.
    after: &'a [MaybeUninit<X>],
    written: Option<usize>,
    block: usize,
}

impl<'a, X> Blocks<'a, X> {
    /// Block `j` (never the written one: lowering gives a step's result a block none of its
    /// operands is in).
    fn get(&self, j: usize) -> &'a [MaybeUninit<X>] {
        let b = self.block;
        match self.written {
            Some(w) if j > w => &self.after[(j - w - 1) * b..][..b],
            _ => &self.before[j * b..][..b],
        }
    }
}

/// Splits a lane's scratch (`block` elements per block) into the block `write` (empty when
/// `None`) and the others.
fn split_blocks<X>(
    scratch: &mut [MaybeUninit<X>],
    block: usize,
    write: Option<usize>,
) -> (&mut [MaybeUninit<X>], Blocks<'_, X>) {
    match write {
        None => (
            &mut [],
            Blocks {
                before: scratch,
                after: &[],
                written: None,
                block,
            },
        ),
        Some(w) => {
            let (before, rest) = scratch.split_at_mut(w * block);
            let (written, after) = rest.split_at_mut(block);
            (
                written,
                Blocks {
                    before,
                    after,
                    written: Some(w),
                    block,
                },
            )
        }
    }
}

/// The first `m` slots of a scratch block as values.
///
/// # Safety
/// The step that owns the block wrote its first `m` slots in this block of the walk (every
/// block kernel writes every slot it is given).
unsafe fn written<X>(block: &[MaybeUninit<X>], m: usize) -> &[X] {
    // SAFETY: `MaybeUninit<X>` has the layout of `X`, and the caller's contract makes the
    // first `m` slots initialised.
    unsafe { std::slice::from_raw_parts(block.as_ptr().cast::<X>(), m) }
}

impl<T: BlockKernels, const N: usize> Run<'_, '_, T, N> {
    /// Writes output positions `start .. start + chunk.len()`.
    fn chunk<C>(
        &self,
        start: usize,
        chunk: &mut [MaybeUninit<C>],
        root: Root<T, C>,
    ) -> Result<(), BroadcastError> {
        let program = self.program;
        // Blocks never longer than the chunk (a small output takes small scratch).
        let block = block_len::<T>().min(chunk.len());
        let (nv, nb) = (program.leaves[0].len(), program.leaves[1].len());
        // Tiles only where the plan has periodic rows (a small broadcast block repeated along
        // a row); otherwise every piece is a run read in place.
        let tiled = self
            .plan
            .kinds()
            .iter()
            .any(|k| matches!(k, RowKind::Periodic { .. }));
        // A register chain over an untiled plan whose operands are runs or values along a
        // row reads everything in place: it needs no scratch and no blocks, and takes runs of
        // whole rows at once.
        if let (Some((kernel, chain)), false) = (self.chain, tiled) {
            if self.chain_in_place(chain) {
                if let RootSlots::Value(out) = root(&mut *chunk) {
                    self.chain_rows(kernel, chain, start, out);
                    return Ok(());
                }
            }
        }
        let (tiles_v, tiles_b) = if tiled { (nv, nb) } else { (0, 0) };
        let mut value_tiles: Vec<Tile<T>> = (0..tiles_v).map(|_| Tile::new()).collect();
        let mut bool_tiles: Vec<Tile<bool>> = (0..tiles_b).map(|_| Tile::new()).collect();
        // Each lane's scratch blocks in one buffer (block `j` at `j * block`).
        // A small output's scratch lives on the stack (no allocation per call).
        let mut value_stack = [MaybeUninit::<T>::uninit(); STACK_SCRATCH];
        let mut value_heap: Vec<MaybeUninit<T>> = Vec::new();
        let value_scratch = scratch_of(
            &mut value_stack,
            &mut value_heap,
            program.scratch[0] * block,
        );
        let mut bool_stack = [MaybeUninit::<bool>::uninit(); STACK_SCRATCH];
        let mut bool_heap: Vec<MaybeUninit<bool>> = Vec::new();
        let bool_scratch = scratch_of(&mut bool_stack, &mut bool_heap, program.scratch[1] * block);
        let mut result = Ok(());
        walk(self.plan, start, chunk.len(), |pieces, from, n| {
            if result.is_err() || self.failed.load(Ordering::Relaxed) {
                return;
            }
            let mut pieces = *pieces;
            let mut at = 0;
            while at < n {
                let m = pieces[..nv]
                    .iter()
                    .map(room::<T>)
                    .chain(pieces[nv..nv + nb].iter().map(room::<bool>))
                    .fold((n - at).min(block), usize::min);
                let mut value_srcs = [Src::Contig(&[][..]); N];
                let mut tiles = value_tiles.iter_mut();
                for (j, src) in value_srcs[..nv].iter_mut().enumerate() {
                    let (op, piece) = (self.value_ops[j], &pieces[j]);
                    let tile = tiles.next();
                    // SAFETY: the pieces come from walking `plan`, built from the views
                    // these operands point into (their strides laid on the output's axes,
                    // each axis an axis of the view or broadcast), over output positions of
                    // this chunk; `m` is within every piece's room.
                    *src = unsafe {
                        match tile {
                            Some(tile) => source(op, tile, piece, m),
                            None => run_source(op, piece, m).expect("untiled: runs only"),
                        }
                    };
                }
                let mut bool_srcs = [Src::Contig(&[][..]); N];
                let mut tiles = bool_tiles.iter_mut();
                for (j, src) in bool_srcs[..nb].iter_mut().enumerate() {
                    let (op, piece) = (self.bool_ops[j], &pieces[nv + j]);
                    let tile = tiles.next();
                    // SAFETY: as above, for the bool leaves (plan operands `nv..`).
                    *src = unsafe {
                        match tile {
                            Some(tile) => source(op, tile, piece, m),
                            None => run_source(op, piece, m).expect("untiled: runs only"),
                        }
                    };
                }
                let out = root(&mut chunk[from + at..from + at + m]);
                // The chain takes the block where it can and gives the output back where it
                // cannot (a strided operand); the steps take what it gives back.
                let left = match (self.chain, out) {
                    (Some((kernel, chain)), RootSlots::Value(out)) => self
                        .chain_block(kernel, chain, &value_srcs[..nv], out)
                        .map(RootSlots::Value),
                    (_, out) => Some(out),
                };
                if let Some(out) = left {
                    let step = self.steps(
                        &value_srcs[..nv],
                        &bool_srcs[..nb],
                        (&mut *value_scratch, &mut *bool_scratch, block),
                        out,
                        m,
                    );
                    if let Err(e) = step {
                        result = Err(e);
                        return;
                    }
                }
                for p in &mut pieces[..nv + nb] {
                    advance(p, m);
                }
                at += m;
            }
        });
        result
    }

    /// Whether every leaf the chain reads is, along a row, a run or one value (no strided
    /// operand, which the chain kernels do not read).
    fn chain_in_place(&self, chain: &ChainPlan) -> bool {
        let kinds = self.plan.kinds();
        std::iter::once(chain.first)
            .chain(chain.links.iter().map(|l| l.2))
            .all(|a| match a {
                Arg::Leaf(j) => matches!(kinds[j], RowKind::Run { stride: 0 | 1 }),
                Arg::Literal(_) | Arg::Scratch(_) => true,
            })
    }

    /// The chain's nodes, in order.
    fn chain_nodes(chain: &ChainPlan) -> [Node; MAX_LINKS] {
        let mut nodes = [(EltwiseOp::Add, true); MAX_LINKS];
        for (node, &(op, running_first, _)) in nodes.iter_mut().zip(&chain.links) {
            *node = (op, running_first);
        }
        nodes
    }

    /// A literal as a chain operand.
    fn literal_source(&self, j: usize) -> RowSource<T> {
        RowSource {
            at: &self.value_literals[j],
            moves: false,
            row_step: 0,
        }
    }

    /// Runs the chain over output positions `start .. start + out.len()` of an untiled plan
    /// whose chain operands read in place ([`Run::chain_in_place`]), one kernel call per run
    /// of whole rows.
    fn chain_rows(
        &self,
        kernel: ChainFn<T>,
        chain: &ChainPlan,
        start: usize,
        out: &mut [MaybeUninit<T>],
    ) {
        let nodes = Self::chain_nodes(chain);
        let count = chain.links.len();
        walk_rows(
            self.plan,
            start,
            out.len(),
            |pieces, from, n, rows, steps| {
                let source = |a: Arg| match a {
                    Arg::Leaf(j) => match pieces[j] {
                        Piece::Run { offset, stride } => RowSource {
                            at: self.value_ops[j].element_ptr(offset),
                            moves: stride != 0,
                            row_step: steps[j],
                        },
                        Piece::Periodic { .. } => unreachable!("an untiled plan has runs only"),
                    },
                    Arg::Literal(j) => self.literal_source(j),
                    Arg::Scratch(_) => unreachable!("a chain's operands are leaves and literals"),
                };
                let mut sources = [source(chain.first); MAX_LINKS + 1];
                for (s, l) in sources[1..].iter_mut().zip(&chain.links) {
                    *s = source(l.2);
                }
                // SAFETY: the pieces come from walking `plan`, built from the views these
                // operands point into, over this chunk's positions; row `r` of the `rows` lies
                // `r` steps along the innermost outer axis, whose strides are `steps`, so each
                // source's row `r` begins `r * steps[j]` elements on. Along a row every leaf is a
                // run of stride 1 (`n` elements of its view) or 0 (one element)
                // (`chain_in_place`); a literal is one value for every row. `chain_of` keeps
                // chains within `MAX_LINKS`; the kernel is the AVX2 build only where the token was
                // found (`run_planned`); a chain's `T` is a number type (plain data), as
                // streaming stores require.
                unsafe {
                    kernel(
                        &sources[..=count],
                        &nodes[..count],
                        Rows {
                            count: rows,
                            stream: self.stream,
                        },
                        &mut out[from..from + n * rows],
                    )
                };
            },
        );
    }

    /// Runs the chain over one block into `out`; gives `out` back (untouched) where an
    /// operand is strided, for the block path.
    fn chain_block<'o>(
        &self,
        kernel: ChainFn<T>,
        chain: &ChainPlan,
        value_srcs: &[Src<'_, T>],
        out: &'o mut [MaybeUninit<T>],
    ) -> Option<&'o mut [MaybeUninit<T>]> {
        let source = |a: Arg| match a {
            Arg::Leaf(j) => RowSource::of(value_srcs[j]),
            Arg::Literal(j) => Some(self.literal_source(j)),
            Arg::Scratch(_) => unreachable!("a chain's operands are leaves and literals"),
        };
        let Some(first) = source(chain.first) else {
            return Some(out);
        };
        let mut sources = [first; MAX_LINKS + 1];
        for (s, l) in sources[1..].iter_mut().zip(&chain.links) {
            match source(l.2) {
                Some(src) => *s = src,
                None => return Some(out),
            }
        }
        let count = chain.links.len();
        // SAFETY: every source is contiguous over the block's `out.len()` positions or one
        // value (`RowSource::of` refuses strided ones), one row; `chain_of` keeps chains
        // within `MAX_LINKS`; the kernel is the AVX2 build only where the token was found
        // (`run_planned`); a chain's `T` is a number type (plain data), as streaming stores
        // require.
        unsafe {
            kernel(
                &sources[..=count],
                &Self::chain_nodes(chain)[..count],
                Rows {
                    count: 1,
                    stream: self.stream,
                },
                out,
            )
        };
        None
    }

    /// Runs every step over one block of `m` positions, the last into `root`; `scratch`:
    /// each lane's blocks, `block` elements each.
    fn steps(
        &self,
        value_srcs: &[Src<'_, T>],
        bool_srcs: &[Src<'_, bool>],
        scratch: (&mut [MaybeUninit<T>], &mut [MaybeUninit<bool>], usize),
        root: RootSlots<'_, T>,
        m: usize,
    ) -> Result<(), BroadcastError> {
        let (value_scratch, bool_scratch, block) = scratch;
        let steps = &self.program.steps;
        let mut root = Some(root);
        for (k, step) in steps.iter().enumerate() {
            // A step's block is split off while its operands' blocks are read (a step never
            // reads the block it writes); the last step writes the output itself.
            let (out_lane, out) = step.out;
            let last = k + 1 == steps.len();
            let writes = |lane: Lane| (!last && out_lane == lane).then_some(out);
            let (value_block, value_blocks) =
                split_blocks(value_scratch, block, writes(Lane::Value));
            let (bool_block, bool_blocks) = split_blocks(bool_scratch, block, writes(Lane::Bool));
            let (value_out, bool_out): (&mut [MaybeUninit<T>], &mut [MaybeUninit<bool>]) =
                match if last { root.take() } else { None } {
                    Some(RootSlots::Value(s)) => (s, &mut []),
                    Some(RootSlots::Bool(s)) => (&mut [], s),
                    None => (
                        value_block.get_mut(..m).unwrap_or_default(),
                        bool_block.get_mut(..m).unwrap_or_default(),
                    ),
                };
            let value_arg = |a: Arg| -> Src<'_, T> {
                match a {
                    Arg::Leaf(j) => value_srcs[j],
                    Arg::Literal(j) => Src::Splat(&self.value_literals[j]),
                    // SAFETY: an operand's block was written by an earlier step of this
                    // block (steps run operands first).
                    Arg::Scratch(j) => Src::Contig(unsafe { written(value_blocks.get(j), m) }),
                }
            };
            let bool_arg = |a: Arg| -> Src<'_, bool> {
                match a {
                    Arg::Leaf(j) => bool_srcs[j],
                    Arg::Literal(j) => Src::Splat(&self.bool_literals[j]),
                    // SAFETY: as above.
                    Arg::Scratch(j) => Src::Contig(unsafe { written(bool_blocks.get(j), m) }),
                }
            };
            let r = if step.op.shape() == Shape::Select {
                let cond = bool_arg(step.args[0].1);
                match step.lane {
                    Lane::Value => {
                        let (t, e) = (value_arg(step.args[1].1), value_arg(step.args[2].1));
                        select_block(cond, t, e, value_out);
                    }
                    Lane::Bool => {
                        let (t, e) = (bool_arg(step.args[1].1), bool_arg(step.args[2].1));
                        select_block(cond, t, e, bool_out);
                    }
                }
                Ok(())
            } else {
                match step.lane {
                    Lane::Value => {
                        let mut srcs = [Src::Contig(&[][..]); FOLD_MAX];
                        for (s, (_, a)) in srcs.iter_mut().zip(&step.args) {
                            *s = value_arg(*a);
                        }
                        let job = BlockJob {
                            op: step.op,
                            args: &srcs[..step.args.len()],
                            rows: None,
                            dtype: self.dtype,
                            f16c: self.f16c,
                        };
                        // SAFETY: the block kernels are built for `self.isa`, whose token
                        // proves the CPU runs it (none: the baseline, which every CPU runs).
                        unsafe {
                            match step.op.out() {
                                Out::Same => T::same_fn(step.op, self.isa)(&job, value_out),
                                Out::Bool => T::boolean_fn(step.op, self.isa)(&job, bool_out),
                            }
                        }
                    }
                    Lane::Bool => {
                        let mut srcs = [Src::Contig(&[][..]); FOLD_MAX];
                        for (s, (_, a)) in srcs.iter_mut().zip(&step.args) {
                            *s = bool_arg(*a);
                        }
                        let job = BlockJob {
                            op: step.op,
                            args: &srcs[..step.args.len()],
                            rows: None,
                            dtype: DType::Bool.name(),
                            f16c: self.f16c,
                        };
                        // SAFETY: as above.
                        unsafe {
                            match step.op.out() {
                                Out::Same => bool::same_fn(step.op, self.isa)(&job, bool_out),
                                Out::Bool => bool::boolean_fn(step.op, self.isa)(&job, bool_out),
                            }
                        }
                    }
                }
            };
            r?;
        }
        Ok(())
    }
}
