//! Expressions of element-wise ops over named operands, run in one pass over memory.
//!
//! An [`Expression`] is a list of nodes, each an op of the op table applied to inputs,
//! literals or earlier nodes under its own auto-broadcast rule; the last node is the result.
//! Every node places its operands exactly as the op run alone places them ([`super::rule`]),
//! so the result's shape and every value are those of running the ops one by one
//! ([`Expression::evaluate_unfused`]). [`Expression::evaluate`] runs it fused: one walk over
//! the output, each block of it computed node by node in L1, stored once (`fused.rs`).
//!
//! Text form ([`Expression::parse`]): `(x - m) * r * g + b`, `maximum(x + b, 0)`,
//! `select(x > 0, x, x * 0.1)`. Infix `+ - * / % **` are add, subtract, multiply, divide
//! (OpenVINO's, `pythondiv`: integer division floors), floor_mod and power; `< <= > >= ==
//! !=` the comparisons; any op of the table is a call by its snake-case name (or the name of
//! an attribute value with its own C code: `divide_trunc`, `bit_shift_right`, `onnx_fmod`),
//! FakeQuantize as `fake_quantize(x, il, ih, ol, oh, levels=256)`. A number is a literal of
//! the type of the operands beside it (numpy's weak scalar: `x * 0.5` is `x`'s type;
//! Select's condition is bool; with no typed operand beside it, the first non-bool
//! input's type); `true` and `false` are bool literals.

use std::collections::HashMap;
use std::fmt;

use ndarray::ArrayD;

use super::dispatch::{eltwise_view, eltwise_view_into};
use super::fused;
use super::rule::{place, Placement};
use super::table::{EltwiseOp, Shape, ShiftDirection};
use super::view::{TensorView, TensorViewMut};
use crate::auto_broadcast::AutoBroadcast;
use crate::dtype::{dtype_table, DType};
use crate::error::BroadcastError;
use crate::exec::Parallelism;
use crate::tensor::Tensor;

/// A constant in an expression, converted to the expression's element type when it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ExprLiteral {
    /// An integer: exact in every type that holds it (an integer type that does not is
    /// refused; a float type rounds it as numpy converts a Python int).
    Int(i128),
    /// A float: rounded once to a float type; refused for integer and bool types.
    Float(f64),
    /// A bool: for bool operands only.
    Bool(bool),
}

/// Where a node's operand comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExprValue {
    /// Input `i` (in the order of [`Expression::inputs`]).
    Input(usize),
    /// Literal `i` (in the order of [`Expression::literals`]).
    Literal(usize),
    /// The result of node `i` (an earlier node).
    Node(usize),
}

/// One op of an expression.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprNode {
    /// The op, with its attributes.
    pub op: EltwiseOp,
    /// Its operands, in the op's order.
    pub args: Vec<ExprValue>,
    /// The auto-broadcast rule it places its operands by (as the op alone would).
    pub rule: AutoBroadcast,
}

/// An expression of element-wise ops (see the module documentation).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expression {
    inputs: Vec<String>,
    /// Each input's index by name: a name is looked up at every use, and an expression may
    /// have as many inputs as operands.
    input_index: HashMap<String, usize>,
    literals: Vec<ExprLiteral>,
    nodes: Vec<ExprNode>,
    /// The last lowering for the fused executor (see [`fused::LoweringCache`]).
    lowered: fused::LoweringCache,
}

fn invalid(reason: impl Into<String>) -> BroadcastError {
    BroadcastError::InvalidExpression {
        reason: reason.into(),
    }
}

/// The error for a node past [`Expression::MAX_OPS`].
pub(crate) fn too_many_ops() -> BroadcastError {
    invalid(format!(
        "more than {} ops (Expression::MAX_OPS, the most an expression holds)",
        Expression::MAX_OPS
    ))
}

impl Expression {
    /// The most ops (nodes) an expression holds: [`Expression::apply`], and so
    /// [`Expression::parse`], refuse the next one. Every walk over an expression is a loop
    /// or an explicit stack, so depth is not what this bounds: it bounds the work and memory
    /// of one call (an expression past the fused executor's 64 steps runs op by op, each op
    /// a pass over the output), far above any real chain (the IR fuser builds at most 32).
    pub const MAX_OPS: usize = 1 << 16;

    /// An empty expression (add inputs, literals and nodes).
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) fn lowering_cache(&self) -> &fused::LoweringCache {
        &self.lowered
    }

    /// The input named `name` (an existing one, or a new one at the end of the inputs).
    pub fn input(&mut self, name: &str) -> ExprValue {
        if let Some(&i) = self.input_index.get(name) {
            return ExprValue::Input(i);
        }
        self.lowered = fused::LoweringCache::default();
        self.input_index.insert(name.to_string(), self.inputs.len());
        self.inputs.push(name.to_string());
        ExprValue::Input(self.inputs.len() - 1)
    }

    /// A literal operand.
    pub fn literal(&mut self, value: ExprLiteral) -> ExprValue {
        self.lowered = fused::LoweringCache::default();
        self.literals.push(value);
        ExprValue::Literal(self.literals.len() - 1)
    }

    /// A node: `op` on `args` under `rule`; the last node added is the expression's result.
    ///
    /// # Errors
    /// [`BroadcastError::Arity`], [`BroadcastError::InvalidAttribute`], and
    /// [`BroadcastError::InvalidExpression`] for an operand that is not there yet or a node
    /// past [`Expression::MAX_OPS`].
    pub fn apply(
        &mut self,
        op: EltwiseOp,
        args: &[ExprValue],
        rule: AutoBroadcast,
    ) -> Result<ExprValue, BroadcastError> {
        if self.nodes.len() >= Self::MAX_OPS {
            return Err(too_many_ops());
        }
        op.check_arity(args.len())?;
        op.check_attributes()?;
        for arg in args {
            let there = match *arg {
                ExprValue::Input(i) => i < self.inputs.len(),
                ExprValue::Literal(i) => i < self.literals.len(),
                ExprValue::Node(i) => i < self.nodes.len(),
            };
            if !there {
                return Err(invalid(format!("{op}: operand {arg:?} is not defined yet")));
            }
        }
        // A kept lowering is of the expression before this node.
        self.lowered = fused::LoweringCache::default();
        self.nodes.push(ExprNode {
            op,
            args: args.to_vec(),
            rule,
        });
        Ok(ExprValue::Node(self.nodes.len() - 1))
    }

    /// Parses the text form (module documentation), every op under `rule`.
    ///
    /// ```
    /// use bcast::{AutoBroadcast, Expression};
    /// let e = Expression::parse("(x - m) * r * g + b", AutoBroadcast::Numpy)?;
    /// assert_eq!(e.inputs(), ["x", "m", "r", "g", "b"]);
    /// assert_eq!(e.nodes().len(), 4);
    /// # Ok::<(), bcast::BroadcastError>(())
    /// ```
    ///
    /// # Errors
    /// [`BroadcastError::InvalidExpression`] naming the position and what was expected; the
    /// errors of [`Expression::apply`].
    pub fn parse(text: &str, rule: AutoBroadcast) -> Result<Expression, BroadcastError> {
        let mut parser = Parser {
            tokens: tokenize(text)?,
            at: 0,
            expr: Expression::new(),
            rule,
        };
        parser.parse()?;
        if parser.expr.nodes.is_empty() {
            return Err(invalid("an expression needs at least one op"));
        }
        Ok(parser.expr)
    }

    /// The input names, in the order `evaluate` takes the inputs.
    pub fn inputs(&self) -> &[String] {
        &self.inputs
    }

    /// The literals.
    pub fn literals(&self) -> &[ExprLiteral] {
        &self.literals
    }

    /// The nodes, each after its operands; the last is the result.
    pub fn nodes(&self) -> &[ExprNode] {
        &self.nodes
    }

    /// The element type a literal takes with no typed operand beside it: the first non-bool
    /// input's (bool if every input is bool).
    pub(crate) fn literal_dtype(dtypes: &[DType]) -> DType {
        dtypes
            .iter()
            .copied()
            .find(|d| *d != DType::Bool)
            .unwrap_or(DType::Bool)
    }

    fn check_inputs(&self, got: usize) -> Result<(), BroadcastError> {
        if self.nodes.is_empty() {
            return Err(invalid("an expression needs at least one op"));
        }
        if got != self.inputs.len() {
            return Err(invalid(format!(
                "takes {} input(s) ({}), got {got}",
                self.inputs.len(),
                self.inputs.join(", ")
            )));
        }
        Ok(())
    }

    /// The element type of the result for inputs of `dtypes`, every node's operand types
    /// checked as the op alone checks them (all of one type; Select's condition bool).
    ///
    /// # Errors
    /// [`BroadcastError::InvalidExpression`] for a wrong input count or a literal the type
    /// cannot hold; [`BroadcastError::DTypeMismatch`], [`BroadcastError::UnsupportedType`]
    /// naming the node's op.
    pub fn output_dtype(&self, dtypes: &[DType]) -> Result<DType, BroadcastError> {
        Ok(*self
            .node_dtypes(dtypes)?
            .last()
            .expect("checked: one node or more"))
    }

    /// Every node's element type.
    pub(crate) fn node_dtypes(&self, dtypes: &[DType]) -> Result<Vec<DType>, BroadcastError> {
        self.check_inputs(dtypes.len())?;
        let default = Self::literal_dtype(dtypes);
        let mut out: Vec<DType> = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let args = self.arg_dtypes(node, dtypes, &out, default);
            for (v, d) in node.args.iter().zip(&args) {
                if let ExprValue::Literal(i) = *v {
                    literal_tensor(self.literals[i], *d)?;
                }
            }
            let op = node.op;
            let mismatch = |a: DType, b: DType| BroadcastError::DTypeMismatch {
                op: op.name(),
                left: a.name(),
                right: b.name(),
            };
            let dtype = if op.shape() == Shape::Select {
                if args[0] != DType::Bool {
                    return Err(BroadcastError::UnsupportedType {
                        op: "select condition",
                        dtype: args[0].name(),
                    });
                }
                if args[1] != args[2] {
                    return Err(mismatch(args[1], args[2]));
                }
                args[1]
            } else {
                if let Some(other) = args.iter().find(|d| **d != args[0]) {
                    return Err(mismatch(args[0], *other));
                }
                op.output_dtype(args[0])?
            };
            out.push(dtype);
        }
        Ok(out)
    }

    /// The element types of `node`'s operands: an input's or an earlier node's own; a
    /// literal takes the type of the operands beside it that are not literals (numpy's
    /// weak scalar; Select's condition is bool), or `default` when there are none.
    pub(crate) fn arg_dtypes(
        &self,
        node: &ExprNode,
        dtypes: &[DType],
        nodes: &[DType],
        default: DType,
    ) -> Vec<DType> {
        let select = node.op.shape() == Shape::Select;
        // Select's condition is a group of its own; every other operand shares one type.
        let group = |j: usize| select && j == 0;
        let known = |v: &ExprValue| match *v {
            ExprValue::Input(i) => Some(dtypes[i]),
            ExprValue::Node(i) => Some(nodes[i]),
            ExprValue::Literal(_) => None,
        };
        (0..node.args.len())
            .map(|j| {
                known(&node.args[j]).unwrap_or_else(|| {
                    (0..node.args.len())
                        .filter(|&k| group(k) == group(j))
                        .find_map(|k| known(&node.args[k]))
                        .unwrap_or(if group(j) { DType::Bool } else { default })
                })
            })
            .collect()
    }

    /// The shape of the result for inputs of `shapes`: each node's output shape under its
    /// rule, as the op alone gives it.
    ///
    /// # Errors
    /// [`BroadcastError::InvalidExpression`] for a wrong input count; each node's broadcast
    /// errors, as the op alone reports them.
    pub fn output_shape(&self, shapes: &[&[usize]]) -> Result<Vec<usize>, BroadcastError> {
        let mut placements = self.placements(shapes)?;
        Ok(placements
            .pop()
            .expect("checked: one node or more")
            .out_shape)
    }

    /// Each node's placement under its rule for inputs of `shapes`, in node order.
    pub(crate) fn placements(&self, shapes: &[&[usize]]) -> Result<Vec<Placement>, BroadcastError> {
        self.check_inputs(shapes.len())?;
        let mut placements: Vec<Placement> = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let args: Vec<&[usize]> = node
                .args
                .iter()
                .map(|v| match *v {
                    ExprValue::Input(i) => shapes[i],
                    ExprValue::Literal(_) => &[][..],
                    ExprValue::Node(i) => placements[i].out_shape.as_slice(),
                })
                .collect();
            placements.push(place(node.op, &node.rule, &args)?);
        }
        Ok(placements)
    }

    /// Runs the expression on `inputs` (in the order of [`Expression::inputs`]), fused,
    /// into a new tensor. Bit for bit the result of [`Expression::evaluate_unfused`].
    ///
    /// ```
    /// use bcast::ndarray::{array, ArrayD, IxDyn};
    /// use bcast::{AutoBroadcast, Expression, Parallelism, Tensor};
    /// let e = Expression::parse("maximum(x + b, 0)", AutoBroadcast::Numpy)?;
    /// let x = Tensor::F32(array![[-2.0f32, 1.0], [3.0, -4.0]].into_dyn());
    /// let b = Tensor::F32(array![1.0f32, 0.5].into_dyn());
    /// let y = e.evaluate(&[x.view(), b.view()], Parallelism::Auto)?;
    /// assert_eq!(y, Tensor::F32(array![[0.0f32, 1.5], [4.0, 0.0]].into_dyn()));
    /// # Ok::<(), bcast::BroadcastError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Expression::output_dtype`] and [`Expression::output_shape`]; each op's own
    /// errors (an integer division by zero).
    pub fn evaluate(
        &self,
        inputs: &[TensorView<'_>],
        par: Parallelism<'_>,
    ) -> Result<Tensor, BroadcastError> {
        Ok(fused::evaluate(self, inputs, None, par)?.expect("a fresh result is returned"))
    }

    /// Whether [`Expression::evaluate`] runs the expression on inputs like `inputs` in one
    /// pass. It runs op by op (same results) on an empty output, on strings, on operands of
    /// two non-bool element types, with more than 16 distinct inputs (as each is placed) or
    /// operands of one node, or more than 64 steps (a node used twice counts at each use).
    ///
    /// # Errors
    /// As [`Expression::output_dtype`] and [`Expression::output_shape`].
    pub fn fuses(&self, inputs: &[TensorView<'_>]) -> Result<bool, BroadcastError> {
        Ok(fused::lower(self, inputs)?.is_some())
    }

    /// Whether [`Expression::evaluate`] on `par` runs the expression on inputs like `inputs`
    /// as a register chain: fused, and a linear chain (each op after the first takes the op before
    /// it and one input or literal) of two-operand ops of the inputs' type that refuse no
    /// value (not integer division or remainder), at most 8 ops, whose running value stays
    /// in registers between ops. Where `par`'s strategy (a context's, else this CPU's) turns
    /// register chains off (`chains=blocks`, and CPUs they were not measured on) or a type
    /// has no kernel for it (f16 without F16C), it runs fused block by block instead; the
    /// results are the same.
    ///
    /// # Errors
    /// As [`Expression::fuses`].
    pub fn in_registers(
        &self,
        inputs: &[TensorView<'_>],
        par: Parallelism<'_>,
    ) -> Result<bool, BroadcastError> {
        fused::in_registers(self, inputs, par)
    }

    /// [`Expression::evaluate`] into `out`, which must have the result's element type and
    /// shape.
    ///
    /// # Errors
    /// As [`Expression::evaluate`]; [`BroadcastError::DTypeMismatch`],
    /// [`BroadcastError::OutputShape`] for an `out` of another type or shape.
    pub fn evaluate_into(
        &self,
        inputs: &[TensorView<'_>],
        out: TensorViewMut<'_>,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        fused::evaluate(self, inputs, Some(out), par).map(|_| ())
    }

    /// [`Expression::evaluate_unfused`] into `out`.
    pub(crate) fn evaluate_unfused_into(
        &self,
        inputs: &[TensorView<'_>],
        out: TensorViewMut<'_>,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        self.unfused(inputs, Some(out), par).map(|_| ())
    }

    /// Runs the ops one by one, each into a new tensor: what the fused run must equal. A
    /// node the result does not read is checked (its types and shapes) but not run, in either
    /// run.
    ///
    /// # Errors
    /// As [`Expression::evaluate`].
    pub fn evaluate_unfused(
        &self,
        inputs: &[TensorView<'_>],
        par: Parallelism<'_>,
    ) -> Result<Tensor, BroadcastError> {
        Ok(self
            .unfused(inputs, None, par)?
            .expect("a fresh result is returned"))
    }

    fn unfused(
        &self,
        inputs: &[TensorView<'_>],
        out: Option<TensorViewMut<'_>>,
        par: Parallelism<'_>,
    ) -> Result<Option<Tensor>, BroadcastError> {
        let dtypes: Vec<DType> = inputs.iter().map(|v| v.dtype()).collect();
        let node_dtypes = self.node_dtypes(&dtypes)?;
        // Every node's shapes are checked before any node runs, as the fused run plans the
        // whole expression first: an expression with both a shape error and a zero divisor
        // reports the shape error either way.
        let shapes: Vec<&[usize]> = inputs.iter().map(|v| v.shape()).collect();
        self.placements(&shapes)?;
        let default = Self::literal_dtype(&dtypes);
        // Each node's result is dropped after its last reader (at once when nothing reads
        // it): a long chain holds two intermediates at a time, not one per node.
        // A node the result does not read (a caller's node array may hold such) is not run,
        // as the fused run, which lowers from the result, never reaches it: its zero divisor
        // is no error of this expression (its types and shapes were checked above).
        let mut live = vec![false; self.nodes.len()];
        if let Some(root) = live.last_mut() {
            *root = true;
        }
        for k in (0..self.nodes.len()).rev() {
            if live[k] {
                for v in &self.nodes[k].args {
                    if let ExprValue::Node(i) = *v {
                        live[i] = true;
                    }
                }
            }
        }
        let mut last_read = vec![None; self.nodes.len()];
        for (k, node) in self.nodes.iter().enumerate().filter(|(k, _)| live[*k]) {
            for v in &node.args {
                if let ExprValue::Node(i) = *v {
                    last_read[i] = Some(k);
                }
            }
        }
        let mut results: Vec<Option<Tensor>> = Vec::with_capacity(self.nodes.len());
        let last = self.nodes.len() - 1;
        let mut out = out;
        for (k, node) in self.nodes.iter().enumerate() {
            if !live[k] {
                results.push(None);
                continue;
            }
            let arg_dtypes = self.arg_dtypes(node, &dtypes, &node_dtypes, default);
            let literals = node
                .args
                .iter()
                .zip(&arg_dtypes)
                .filter_map(|(v, d)| match *v {
                    ExprValue::Literal(i) => Some(literal_tensor(self.literals[i], *d)),
                    _ => None,
                })
                .collect::<Result<Vec<_>, _>>()?;
            let mut literal = literals.iter();
            let args: Vec<TensorView<'_>> = node
                .args
                .iter()
                .map(|v| match *v {
                    ExprValue::Input(i) => inputs[i].reborrow(),
                    ExprValue::Literal(_) => literal.next().expect("one per literal").view(),
                    ExprValue::Node(i) => results[i]
                        .as_ref()
                        .expect("kept until its last reader")
                        .view(),
                })
                .collect();
            if k == last {
                if let Some(out) = out.take() {
                    eltwise_view_into(node.op, &args, &node.rule, out, par)?;
                    return Ok(None);
                }
            }
            let r = eltwise_view(node.op, &args, &node.rule, par)?;
            drop(args);
            if k == last {
                return Ok(Some(r));
            }
            for v in &node.args {
                if let ExprValue::Node(i) = *v {
                    if last_read[i] == Some(k) {
                        results[i] = None;
                    }
                }
            }
            results.push(last_read[k].map(|_| r));
        }
        unreachable!("the last node returns")
    }
}

/// A literal as a 0-d tensor of `dtype`.
///
/// # Errors
/// [`BroadcastError::InvalidExpression`] when `dtype` cannot hold the literal.
pub(crate) fn literal_tensor(lit: ExprLiteral, dtype: DType) -> Result<Tensor, BroadcastError> {
    macro_rules! convert {
        (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
            match dtype {
                $(DType::$v => convert!(@ $kind, $v, $t),)*
            }
        };
        (@ Int, $v:ident, $t:ty) => { convert!(@int $v, $t) };
        (@ Uint, $v:ident, $t:ty) => { convert!(@int $v, $t) };
        (@int $v:ident, $t:ty) => {
            match lit {
                ExprLiteral::Int(i) => <$t>::try_from(i).ok().map(|x| Tensor::$v(ArrayD::from_elem(vec![], x))),
                _ => None,
            }
        };
        (@ Float, $v:ident, $t:ty) => {
            match lit {
                ExprLiteral::Int(i) => Some(Tensor::$v(ArrayD::from_elem(vec![], <$t as LiteralFloat>::from_f64(i as f64)))),
                ExprLiteral::Float(f) => Some(Tensor::$v(ArrayD::from_elem(vec![], <$t as LiteralFloat>::from_f64(f)))),
                ExprLiteral::Bool(_) => None,
            }
        };
        (@ Bool, $v:ident, $t:ty) => {
            match lit {
                ExprLiteral::Bool(b) => Some(Tensor::Bool(ArrayD::from_elem(vec![], b))),
                _ => None,
            }
        };
        (@ Text, $v:ident, $t:ty) => { None };
    }
    dtype_table!(convert!).ok_or_else(|| {
        invalid(format!(
            "the literal {} does not fit element type {}",
            LiteralText(lit),
            dtype.name()
        ))
    })
}

/// A float type's rounding of an f64 (once, to nearest even).
trait LiteralFloat {
    fn from_f64(v: f64) -> Self;
}

impl LiteralFloat for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl LiteralFloat for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl LiteralFloat for half::f16 {
    fn from_f64(v: f64) -> Self {
        half::f16::from_f64(v)
    }
}

impl LiteralFloat for half::bf16 {
    fn from_f64(v: f64) -> Self {
        half::bf16::from_f64(v)
    }
}

struct LiteralText(ExprLiteral);

impl fmt::Display for LiteralText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ExprLiteral::Int(i) => write!(f, "{i}"),
            // `{:?}` keeps a point or an exponent, so the text parses back as a float.
            ExprLiteral::Float(x) => write!(f, "{x:?}"),
            ExprLiteral::Bool(b) => write!(f, "{b}"),
        }
    }
}

impl fmt::Display for Expression {
    /// The expression as calls (`add(multiply(x, s), b)`), which [`Expression::parse`]
    /// reads back; a node used twice is written out at each use.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(root) = self.nodes.len().checked_sub(1) else {
            return Ok(());
        };
        // An explicit stack of the calls being written (each with its next operand), not
        // recursion: an expression may be as deep as it has nodes.
        let mut open: Vec<(usize, usize)> = vec![(root, 0)];
        write!(f, "{}(", self.nodes[root].op.c_name())?;
        while let Some(top) = open.last_mut() {
            let (k, j) = *top;
            let node = &self.nodes[k];
            let Some(arg) = node.args.get(j) else {
                if let EltwiseOp::FakeQuantize { levels } = node.op {
                    write!(f, ", levels={levels}")?;
                }
                f.write_str(")")?;
                open.pop();
                continue;
            };
            top.1 += 1;
            if j > 0 {
                f.write_str(", ")?;
            }
            match *arg {
                ExprValue::Input(i) => f.write_str(&self.inputs[i])?,
                ExprValue::Literal(i) => write!(f, "{}", LiteralText(self.literals[i]))?,
                ExprValue::Node(c) => {
                    write!(f, "{}(", self.nodes[c].op.c_name())?;
                    open.push((c, 0));
                }
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(ExprLiteral),
    Name(String),
    Sym(&'static str),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Num(l) => write!(f, "number {}", LiteralText(*l)),
            Tok::Name(n) => write!(f, "name '{n}'"),
            Tok::Sym(s) => write!(f, "'{s}'"),
        }
    }
}

struct Token {
    tok: Tok,
    /// Character position in the text (from 0).
    pos: usize,
}

const SYMBOLS: [&str; 17] = [
    "**", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "<", ">", "(", ")", ",", "=", "!",
];

fn tokenize(text: &str) -> Result<Vec<Token>, BroadcastError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let pos = i;
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let mut j = i;
            let mut float = false;
            while j < chars.len() {
                let d = chars[j];
                let exp_sign = (d == '+' || d == '-') && matches!(chars[j - 1], 'e' | 'E') && float;
                if d.is_ascii_digit() || d == '_' {
                } else if d == '.' || d == 'e' || d == 'E' {
                    float = true;
                } else if !exp_sign {
                    break;
                }
                j += 1;
            }
            let s: String = chars[i..j].iter().filter(|c| **c != '_').collect();
            // A float that rounds to infinity is refused: its text form (`inf`) would read
            // back as a name.
            let lit = if float {
                s.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .map(ExprLiteral::Float)
            } else {
                s.parse::<i128>().ok().map(ExprLiteral::Int)
            };
            let lit = lit.ok_or_else(|| invalid(format!("bad number '{s}' at character {pos}")))?;
            out.push(Token {
                tok: Tok::Num(lit),
                pos,
            });
            i = j;
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let mut j = i;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            out.push(Token {
                tok: Tok::Name(chars[i..j].iter().collect()),
                pos,
            });
            i = j;
            continue;
        }
        let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
        let Some(sym) = SYMBOLS.iter().find(|s| rest.starts_with(**s)) else {
            return Err(invalid(format!("unexpected '{c}' at character {pos}")));
        };
        out.push(Token {
            tok: Tok::Sym(sym),
            pos,
        });
        i += sym.chars().count();
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    expr: Expression,
    rule: AutoBroadcast,
}

/// The infix operators of the text: the op and its precedence (comparisons bind loosest,
/// then `+ -`, then `* / %`, then `**`, which alone groups to the right).
fn infix(tok: &Tok) -> Option<(EltwiseOp, u8)> {
    Some(match tok {
        Tok::Sym("<") => (EltwiseOp::Less, COMPARISON),
        Tok::Sym("<=") => (EltwiseOp::LessEqual, COMPARISON),
        Tok::Sym(">") => (EltwiseOp::Greater, COMPARISON),
        Tok::Sym(">=") => (EltwiseOp::GreaterEqual, COMPARISON),
        Tok::Sym("==") => (EltwiseOp::Equal, COMPARISON),
        Tok::Sym("!=") => (EltwiseOp::NotEqual, COMPARISON),
        Tok::Sym("+") => (EltwiseOp::Add, 2),
        Tok::Sym("-") => (EltwiseOp::Subtract, 2),
        Tok::Sym("*") => (EltwiseOp::Multiply, 3),
        Tok::Sym("/") => (EltwiseOp::Divide { pythondiv: true }, 3),
        Tok::Sym("%") => (EltwiseOp::FloorMod, 3),
        Tok::Sym("**") => (EltwiseOp::Power, POWER),
        _ => return None,
    })
}

const COMPARISON: u8 = 1;
const POWER: u8 = 4;

/// What a level of the text is inside of.
enum Open {
    /// The whole text.
    Top,
    /// Parentheses.
    Paren,
    /// A call's argument list: the call, its arguments so far and its `levels=`.
    Call {
        op: EltwiseOp,
        name: String,
        pos: usize,
        args: Vec<ExprValue>,
        levels: Option<u64>,
    },
}

/// One level of nesting being read: the text, a parenthesis or a call's argument, with its
/// operands and the infix operators not applied yet (each waits for its right operand to
/// end, at an operator that binds no tighter or at the end of the level).
struct Level {
    open: Open,
    values: Vec<ExprValue>,
    ops: Vec<(EltwiseOp, u8)>,
    /// Whether this level has its comparison: comparisons do not chain (`a < b < c` is
    /// refused), as a level holds at most one.
    compared: bool,
}

impl Level {
    fn new(open: Open) -> Level {
        Level {
            open,
            values: Vec::new(),
            ops: Vec::new(),
            compared: false,
        }
    }
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at).map(|t| &t.tok)
    }

    fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym) {
            self.at += 1;
            return true;
        }
        false
    }

    fn expected(&self, what: &str) -> BroadcastError {
        match self.tokens.get(self.at) {
            Some(t) => invalid(format!(
                "expected {what} at character {}, found {}",
                t.pos, t.tok
            )),
            None => invalid(format!("expected {what}, found the end of the text")),
        }
    }

    fn node(&mut self, op: EltwiseOp, args: &[ExprValue]) -> Result<ExprValue, BroadcastError> {
        self.expr.apply(op, args, self.rule)
    }

    /// Applies `level`'s pending operators while the last binds at least as tightly as one
    /// of precedence `prec` would (`**` groups to the right: an equal one waits).
    fn reduce(&mut self, level: &mut Level, prec: u8) -> Result<(), BroadcastError> {
        while let Some(&(op, p)) = level.ops.last() {
            if p < prec || (p == prec && prec == POWER) {
                break;
            }
            level.ops.pop();
            let right = level.values.pop().expect("an operand after each operator");
            let left = level.values.pop().expect("an operand before each operator");
            let v = self.node(op, &[left, right])?;
            level.values.push(v);
        }
        Ok(())
    }

    /// Reads the whole text into `self.expr`. The grammar is read with an explicit stack of
    /// levels, never by recursion, so no nesting or length of text can overflow the
    /// caller's stack: `(((x)))` 100,000 deep, or `x ** x ** ...`, costs heap in proportion
    /// to the text.
    fn parse(&mut self) -> Result<(), BroadcastError> {
        let mut levels = vec![Level::new(Open::Top)];
        loop {
            // An operand: a number, a name, a call, or a parenthesis (a new level).
            let Some(token) = self.tokens.get(self.at) else {
                return Err(self.expected("an operand"));
            };
            let pos = token.pos;
            let value = match token.tok.clone() {
                Tok::Num(lit) => {
                    self.at += 1;
                    self.expr.literal(lit)
                }
                Tok::Sym("-") => {
                    self.at += 1;
                    let lit = match self.peek() {
                        Some(Tok::Num(ExprLiteral::Int(i))) => ExprLiteral::Int(-*i),
                        Some(Tok::Num(ExprLiteral::Float(x))) => ExprLiteral::Float(-*x),
                        _ => {
                            return Err(invalid(format!(
                                "unary minus at character {pos}: only a number can be \
                                 negated (negation is no op of the table; write 0 - x)"
                            )))
                        }
                    };
                    self.at += 1;
                    self.expr.literal(lit)
                }
                Tok::Sym("(") => {
                    self.at += 1;
                    levels.push(Level::new(Open::Paren));
                    continue;
                }
                Tok::Name(name) => {
                    self.at += 1;
                    match name.as_str() {
                        "true" => self.expr.literal(ExprLiteral::Bool(true)),
                        "false" => self.expr.literal(ExprLiteral::Bool(false)),
                        _ if !self.eat("(") => self.expr.input(&name),
                        _ => {
                            let op = op_of_call(&name).ok_or_else(|| {
                                invalid(format!("unknown op '{name}' at character {pos}"))
                            })?;
                            levels.push(Level::new(Open::Call {
                                op,
                                name,
                                pos,
                                args: Vec::new(),
                                levels: None,
                            }));
                            if self.eat(")") {
                                let call = levels.pop().expect("just pushed");
                                self.call(call)?
                            } else if self.arguments(&mut levels, false)? {
                                continue;
                            } else {
                                let call = levels.pop().expect("an open call");
                                self.call(call)?
                            }
                        }
                    }
                }
                _ => return Err(self.expected("an operand")),
            };
            let mut value = value;
            // After an operand: an infix operator (then the next operand), or the end of
            // levels, each ending at what closes it.
            loop {
                let level = levels.last_mut().expect("the text's level stays");
                level.values.push(value);
                if let Some((op, prec)) = self.peek().and_then(infix) {
                    if prec != COMPARISON || !level.compared {
                        self.at += 1;
                        level.compared |= prec == COMPARISON;
                        self.reduce(level, prec)?;
                        level.ops.push((op, prec));
                        break;
                    }
                }
                let mut level = levels.pop().expect("the text's level stays");
                self.reduce(&mut level, 0)?;
                value = level.values.pop().expect("one value left");
                match level.open {
                    Open::Top => {
                        if let Some(t) = self.tokens.get(self.at) {
                            return Err(invalid(format!(
                                "unexpected {} at character {}",
                                t.tok, t.pos
                            )));
                        }
                        return Ok(());
                    }
                    Open::Paren => {
                        if !self.eat(")") {
                            return Err(self.expected("')'"));
                        }
                    }
                    Open::Call { .. } => {
                        let mut call = Level::new(level.open);
                        if let Open::Call { args, .. } = &mut call.open {
                            args.push(value);
                        }
                        levels.push(call);
                        if self.arguments(&mut levels, true)? {
                            break;
                        }
                        let call = levels.pop().expect("an open call");
                        value = self.call(call)?;
                    }
                }
            }
        }
    }

    /// Reads a call's keyword arguments from the next argument on (after the `,` that ends
    /// an argument when `after` holds), until an argument that is an operand (then `true`:
    /// read it into the call's level, the last of `levels`) or the closing `)` (then
    /// `false`, the call complete).
    fn arguments(&mut self, levels: &mut [Level], after: bool) -> Result<bool, BroadcastError> {
        let mut after = after;
        loop {
            if after {
                if self.eat(")") {
                    return Ok(false);
                }
                if !self.eat(",") {
                    return Err(self.expected("',' or ')'"));
                }
            }
            after = true;
            let keyword = match (self.peek(), self.tokens.get(self.at + 1)) {
                (Some(Tok::Name(k)), Some(t)) if t.tok == Tok::Sym("=") => k.clone(),
                _ => return Ok(true),
            };
            self.at += 2;
            let Some(Tok::Num(ExprLiteral::Int(v))) = self.peek().cloned() else {
                return Err(self.expected("an integer"));
            };
            self.at += 1;
            let Some(Level {
                open:
                    Open::Call {
                        op,
                        name,
                        pos,
                        levels: l,
                        ..
                    },
                ..
            }) = levels.last_mut()
            else {
                unreachable!("arguments are read inside a call");
            };
            match (keyword.as_str(), &*op) {
                ("levels", EltwiseOp::FakeQuantize { .. }) => {
                    *l =
                        Some(u64::try_from(v).map_err(|_| {
                            invalid(format!("levels={v}: must fit 64 unsigned bits"))
                        })?);
                }
                _ => {
                    return Err(invalid(format!(
                        "{name} takes no attribute '{keyword}' (at character {pos})"
                    )))
                }
            }
        }
    }

    /// The node of a complete call (`level`, a call's level).
    fn call(&mut self, level: Level) -> Result<ExprValue, BroadcastError> {
        let Open::Call {
            mut op,
            pos,
            args,
            levels,
            ..
        } = level.open
        else {
            unreachable!("a call's level");
        };
        if let EltwiseOp::FakeQuantize { levels: l } = &mut op {
            *l = levels.ok_or_else(|| {
                invalid(format!(
                    "fake_quantize needs levels=N (at character {pos}): the op has no default"
                ))
            })?;
        }
        self.node(op, &args)
    }
}

/// The op a call names: a snake-case op name, or the name of an attribute value with a C
/// code of its own (`divide_trunc`, `bit_shift_right`, `onnx_fmod`).
fn op_of_call(name: &str) -> Option<EltwiseOp> {
    if let Ok(op) = name.parse::<EltwiseOp>() {
        return Some(op);
    }
    let alternatives = [
        EltwiseOp::Divide { pythondiv: false },
        EltwiseOp::BitShift {
            direction: ShiftDirection::Right,
        },
        EltwiseOp::OnnxMod { fmod: true },
    ];
    alternatives.into_iter().find(|op| op.c_name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Expression, BroadcastError> {
        Expression::parse(s, AutoBroadcast::Numpy)
    }

    #[test]
    fn precedence_and_associativity_follow_python() {
        let e = parse("a - b - c * d ** e ** f").unwrap();
        assert_eq!(
            e.to_string(),
            "subtract(subtract(a, b), multiply(c, power(d, power(e, f))))"
        );
        let e = parse("x + 1 < y * 2.5").unwrap();
        assert_eq!(e.to_string(), "less(add(x, 1), multiply(y, 2.5))");
        let e = parse("fake_quantize(x, -1, 1, -1.5e0, 1.5, levels=255)").unwrap();
        assert_eq!(
            e.to_string(),
            "fake_quantize(x, -1, 1, -1.5, 1.5, levels=255)"
        );
        let e = parse("divide_trunc(a, b) % onnx_fmod(a, b)").unwrap();
        assert_eq!(
            e.to_string(),
            "floor_mod(divide_trunc(a, b), onnx_fmod(a, b))"
        );
        // The text form reads back to the same expression.
        for s in [
            "(x - m) * r * g + b",
            "select(x > 0, x, x * 0.1)",
            "sum(a, b, c) / 3",
        ] {
            let e = parse(s).unwrap();
            assert_eq!(parse(&e.to_string()).unwrap(), e, "{s}");
        }
    }

    #[test]
    fn bad_text_is_an_error_naming_the_place() {
        for (text, says) in [
            ("x +", "expected an operand, found the end"),
            ("x + * y", "expected an operand at character 4"),
            ("(x + y", "expected ')'"),
            ("frobnicate(x)", "unknown op 'frobnicate' at character 0"),
            ("-x", "unary minus at character 0"),
            ("x $ y", "unexpected '$' at character 2"),
            ("add(x)", "add takes 2 operand(s), got 1"),
            ("fake_quantize(x, a, b, c, d)", "needs levels=N"),
            (
                "fake_quantize(x, a, b, c, d, levels=1)",
                "levels must be 2 or more",
            ),
            ("add(x, y, levels=3)", "takes no attribute 'levels'"),
            ("x", "at least one op"),
            ("x y", "unexpected name 'y' at character 2"),
            ("x * 1e999", "bad number '1e999' at character 4"),
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn types_and_shapes_are_checked_per_node() {
        let e = parse("select(c, x, 0) + y").unwrap();
        assert_eq!(e.inputs(), ["c", "x", "y"]);
        let f32s = [DType::Bool, DType::F32, DType::F32];
        assert_eq!(e.output_dtype(&f32s).unwrap(), DType::F32);
        let err = e
            .output_dtype(&[DType::F32, DType::F32, DType::F32])
            .unwrap_err();
        assert!(err.to_string().contains("select condition"), "{err}");
        let err = e
            .output_dtype(&[DType::Bool, DType::F32, DType::F64])
            .unwrap_err();
        assert!(
            err.to_string().contains("add: element types f32 and f64"),
            "{err}"
        );
        assert_eq!(
            e.output_shape(&[&[2, 1], &[3], &[4, 1, 1]]).unwrap(),
            vec![4, 2, 3]
        );
        // A float literal in an integer expression is refused, as is an int past the type.
        let e = parse("x * 0.5").unwrap();
        assert!(e.output_dtype(&[DType::I32]).is_err());
        let e = parse("x + 300").unwrap();
        assert!(e.output_dtype(&[DType::U8]).is_err());
        assert!(e.output_dtype(&[DType::U16]).is_ok());
        assert!(e.output_dtype(&[DType::U16, DType::U16]).is_err());
    }
}
