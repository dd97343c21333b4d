//! Chains of element-wise layers run as one [`Expression`]: one pass over the chain's output
//! instead of one intermediate tensor per layer.
//!
//! A layer joins the chain of its reader when both are element-wise layers of the op table
//! (Select and FakeQuantize included), its one output has exactly one reader (so no other
//! layer, and no Result, needs the intermediate tensor), and its value depends on a
//! Parameter (a layer of Consts only is computed once, as a small tensor, not again for
//! every element of the chain's output). Growing from the inputs in run order, each chain is
//! a tree whose root, its last layer, is the only member read from outside; it is capped at
//! [`MAX_CHAIN_LAYERS`] layers (a longer run of layers becomes consecutive chains).
//!
//! Each node of the expression keeps its layer's `auto_broadcast` as its rule, and every
//! operand from outside the chain (a Parameter, a Const, any other layer) is an input of the
//! expression, never a literal: a Const's values stay exactly what the `.bin` holds, whatever
//! its shape. Every node places its operands and rounds its results as the layer alone does,
//! so a fused run is bit for bit the layer-by-layer run ([`crate::ir::Model::run_unfused`]).

use std::collections::HashMap;

use crate::auto_broadcast::AutoBroadcast;
use crate::ir::graph::{Graph, Op, Source};
use crate::{EltwiseOp, ExprValue, Expression};

/// The most layers one chain takes; a longer run of layers is split into several chains.
/// Real chains are a handful of layers (BatchNorm, bias + activation, a LayerNorm tail); the
/// cap bounds one expression's per-block scratch and the depth of its text form.
pub const MAX_CHAIN_LAYERS: usize = 32;

/// One chain: its layers and the expression that computes its last layer's output.
#[derive(Debug, Clone)]
pub(crate) struct Chain {
    /// Node indices, in run order; the last is the chain's output (its root).
    pub members: Vec<usize>,
    /// Where each input of the expression comes from, in the order of its inputs.
    pub inputs: Vec<Source>,
    /// The chain's layers as one expression over `inputs`.
    pub expression: Expression,
}

/// The chains of a graph.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fusion {
    pub chains: Vec<Chain>,
    /// For every node, the index in `chains` of the chain it belongs to.
    pub chain_of: Vec<Option<usize>>,
}

/// The op and rule of an element-wise layer of the op table; `None` for any other layer.
pub(crate) fn eltwise_layer(op: &Op) -> Option<(EltwiseOp, AutoBroadcast)> {
    match op {
        Op::Eltwise { op, spec } => Some((*op, *spec)),
        Op::Select { spec } => Some((EltwiseOp::Select, *spec)),
        _ => None,
    }
}

/// Finds the chains of `graph` (module documentation) and builds their expressions.
pub(crate) fn plan(graph: &Graph) -> Fusion {
    let n = graph.nodes.len();
    // Whether each node's value depends on a Parameter (run order visits sources first).
    let mut varies = vec![false; n];
    for &i in &graph.order {
        let node = &graph.nodes[i];
        varies[i] =
            matches!(node.op, Op::Parameter { .. }) || node.sources.iter().any(|s| varies[s.node]);
    }
    // Each chain, kept under its current root: a node's members move to its reader's list
    // when the reader takes it in. A reader comes after its sources in run order, so a source
    // is always still the root of its own chain when its one reader is reached.
    let mut members: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
    for &reader in &graph.order {
        if eltwise_layer(&graph.nodes[reader].op).is_none() {
            continue;
        }
        for k in 0..graph.nodes[reader].sources.len() {
            let s = graph.nodes[reader].sources[k];
            let joins = s.node != reader
                && eltwise_layer(&graph.nodes[s.node].op).is_some()
                && varies[s.node]
                && s.output == 0
                && graph.uses[s.node][0] == 1
                && members[s.node].len() + members[reader].len() <= MAX_CHAIN_LAYERS;
            if joins {
                let taken = std::mem::take(&mut members[s.node]);
                members[reader].extend(taken);
            }
        }
    }
    let position: HashMap<usize, usize> = graph
        .order
        .iter()
        .enumerate()
        .map(|(at, &node)| (node, at))
        .collect();
    let mut fusion = Fusion {
        chains: Vec::new(),
        chain_of: vec![None; n],
    };
    for &root in &graph.order {
        let mut list = std::mem::take(&mut members[root]);
        if list.len() < 2 {
            continue;
        }
        list.sort_by_key(|m| position[m]);
        // An expression the builder refuses leaves its layers to run one by one.
        let Some(chain) = build(graph, list) else {
            continue;
        };
        for &m in &chain.members {
            fusion.chain_of[m] = Some(fusion.chains.len());
        }
        fusion.chains.push(chain);
    }
    fusion
}

/// The expression of a chain whose members are `members`, in run order.
fn build(graph: &Graph, members: Vec<usize>) -> Option<Chain> {
    let mut expression = Expression::new();
    let mut inputs: Vec<Source> = Vec::new();
    let mut input_values: Vec<ExprValue> = Vec::new();
    let mut node_values: HashMap<usize, ExprValue> = HashMap::with_capacity(members.len());
    for &m in &members {
        let node = &graph.nodes[m];
        let (op, rule) = eltwise_layer(&node.op)?;
        let mut args = Vec::with_capacity(node.sources.len());
        for s in &node.sources {
            let value = match node_values.get(&s.node) {
                Some(v) => *v,
                None => match inputs.iter().position(|i| i == s) {
                    Some(k) => input_values[k],
                    None => {
                        let name = input_name(graph, *s, &expression);
                        let v = expression.input(&name);
                        inputs.push(*s);
                        input_values.push(v);
                        v
                    }
                },
            };
            args.push(value);
        }
        let v = expression.apply(op, &args, rule).ok()?;
        node_values.insert(m, v);
    }
    Some(Chain {
        members,
        inputs,
        expression,
    })
}

/// The name an outside operand has in the expression's text: its layer's name, made unique
/// with the layer's id (and port) when another operand of the chain already has that name.
fn input_name(graph: &Graph, source: Source, expression: &Expression) -> String {
    let node = &graph.nodes[source.node];
    let taken = |name: &str| expression.inputs().iter().any(|n| n == name);
    let mut name = node.layer.name.clone();
    if name.is_empty() || taken(&name) {
        name = format!("{}#{}", node.layer.name, node.layer.id);
    }
    if taken(&name) || node.outputs.len() > 1 {
        name = format!(
            "{}#{}:{}",
            node.layer.name, node.layer.id, node.outputs[source.output].id
        );
    }
    name
}
