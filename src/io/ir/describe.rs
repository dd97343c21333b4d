//! The text of `bcast ir --describe`.

use std::fmt::Write;

use crate::dtype::DType;
use crate::ir::graph::{IrMode, Node, Op};
use crate::ir::types::IrShape;
use crate::ir::Model;
use crate::tensor::Tensor;

/// Integer constants up to this many values are printed (target shapes, axes).
const SHOWN_VALUES: usize = 16;

/// One layer as `bcast ir --describe` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerSummary {
    /// The layer's `id`.
    pub id: u64,
    /// The layer's `type`: Parameter, Const, Broadcast, ShapeOf or Result.
    pub kind: String,
    /// The layer's `name`.
    pub name: String,
    /// The layer's `version` (opset).
    pub version: String,
    /// The attributes that matter: a Broadcast's mode, a ShapeOf's output type.
    pub attributes: Option<String>,
    /// Where each input comes from, as `label layer:port`, comma-separated.
    pub sources: String,
    /// The output's element type (a Result's: its source's), if known.
    pub dtype: Option<DType>,
    /// The output's shape: `[2,3]`, or what load time inferred of it (`[?,3,1..8]`, `[...]`
    /// for an unknown rank), narrowed by the port's declared dims.
    pub shape: String,
    /// A Const's values, when it holds at most 16 integers: `[1,16,50,50]`.
    pub values: Option<String>,
    /// The number (from 1) of the fused chain the layer runs in, if any: see
    /// [`Model::chains`].
    pub chain: Option<usize>,
    /// Whether the layer is an element-wise layer prepared at load time ([`crate::PreparedOp`]:
    /// its operands' shapes were static then), which a run outside a fused chain calls as it
    /// is on operands of those shapes.
    pub prepared: bool,
}

/// A chain of element-wise layers that [`Model::run`] runs as one expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainSummary {
    /// Its number, from 1, in run order.
    pub number: usize,
    /// The ids of its layers, in run order; the last is the layer whose output it computes.
    pub layers: Vec<u64>,
    /// The name of its last layer.
    pub output: String,
    /// The expression in call form: `maximum(add(multiply(x, scale), shift), zero)`; its
    /// operands are named by the layers they come from.
    pub expression: String,
}

pub(crate) fn chains(model: &Model) -> Vec<ChainSummary> {
    let g = &model.graph;
    model
        .fusion
        .chains
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let last = *c.members.last().expect("a chain has layers");
            ChainSummary {
                number: k + 1,
                layers: c.members.iter().map(|&m| g.nodes[m].layer.id).collect(),
                output: g.nodes[last].layer.name.clone(),
                expression: c.expression.to_string(),
            }
        })
        .collect()
}

pub(crate) fn layers(model: &Model) -> Vec<LayerSummary> {
    let g = &model.graph;
    g.order
        .iter()
        .map(|&i| {
            let node = &g.nodes[i];
            let attributes = match &node.op {
                Op::Broadcast { mode, .. } => Some(mode.describe()),
                Op::ShapeOf { output_type } => Some(format!("output_type {output_type}")),
                Op::Eltwise { op, spec } => Some(match op {
                    crate::BinaryOp::Divide { pythondiv } => {
                        format!("auto_broadcast {spec}, pythondiv {pythondiv}")
                    }
                    crate::BinaryOp::FakeQuantize { levels } => {
                        format!("auto_broadcast {spec}, levels {levels}")
                    }
                    _ if !op.takes_auto_broadcast() => String::new(),
                    _ => format!("auto_broadcast {spec}"),
                }),
                Op::Select { spec } => Some(format!("auto_broadcast {spec}")),
                Op::Convert { to } => Some(format!("destination_type {to}")),
                _ => None,
            };
            let shape = match &node.op {
                Op::Result => {
                    let src = node.sources[0];
                    shape_of(model, src.node, src.output)
                }
                _ => shape_of(model, i, 0),
            };
            let producer = match &node.op {
                Op::Result => node.sources[0].node,
                _ => i,
            };
            LayerSummary {
                id: node.layer.id,
                kind: node.layer.kind.clone(),
                name: node.layer.name.clone(),
                version: node.version.clone(),
                attributes,
                sources: sources(model, node),
                dtype: model.dtypes[producer],
                shape,
                values: match &node.op {
                    Op::Const { value } => small_integers(value),
                    _ => None,
                },
                chain: model.fusion.chain_of[i].map(|c| c + 1),
                prepared: model.prepared[i].is_some(),
            }
        })
        .collect()
}

pub(crate) fn describe(model: &Model) -> String {
    let g = &model.graph;
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        s,
        "model '{}', IR version {}, {} layers",
        g.name,
        g.ir_version,
        g.nodes.len()
    );
    let _ = writeln!(s, "inputs:");
    if model.inputs.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    for i in &model.inputs {
        let _ = writeln!(s, "  {}: {} {}", i.name, i.dtype, i.shape);
    }
    let _ = writeln!(s, "outputs:");
    for o in &model.outputs {
        let _ = writeln!(s, "  {}: {} {}", o.name, o.dtype, o.shape);
    }
    let _ = writeln!(s, "layers, in run order:");
    for l in layers(model) {
        let _ = write!(s, "  {} {} '{}' ({}", l.id, l.kind, l.name, l.version);
        if let Some(a) = &l.attributes {
            let _ = write!(s, ", {a}");
        }
        let _ = write!(s, ")");
        if !l.sources.is_empty() {
            let _ = write!(s, ": {}", l.sources);
        }
        let dtype = l.dtype.map_or_else(|| "?".to_string(), |d| d.to_string());
        let _ = write!(s, " -> {dtype} {}", l.shape);
        if let Some(values) = &l.values {
            let _ = write!(s, " = {values}");
        }
        if let Some(chain) = l.chain {
            let _ = write!(s, " [chain {chain}]");
        }
        let _ = writeln!(s);
    }
    let chains = chains(model);
    if !chains.is_empty() {
        let _ = writeln!(s, "fused chains, each run as one expression:");
    }
    for c in chains {
        let ids: Vec<String> = c.layers.iter().map(u64::to_string).collect();
        let _ = writeln!(
            s,
            "  chain {}: layers {} -> '{}' = {}",
            c.number,
            ids.join(", "),
            c.output,
            c.expression
        );
    }
    s
}

fn sources(model: &Model, node: &Node) -> String {
    let labels: &[&str] = match &node.op {
        Op::Broadcast {
            mode: IrMode::Explicit,
            ..
        } => &["data", "target_shape", "axes_mapping"],
        Op::Broadcast { .. } => &["data", "target_shape", "unused"],
        Op::ShapeOf { .. } => &["data"],
        Op::Eltwise {
            op: crate::BinaryOp::FakeQuantize { .. },
            ..
        } => &["x", "input_low", "input_high", "output_low", "output_high"],
        Op::Eltwise {
            op: crate::BinaryOp::Prelu,
            ..
        } => &["x", "slope"],
        Op::Eltwise { .. } => &["a", "b"],
        Op::Select { .. } => &["cond", "then", "else"],
        _ => &[""],
    };
    node.sources
        .iter()
        .zip(labels)
        .map(|(src, label)| {
            let from = &model.graph.nodes[src.node];
            let port = from.outputs[src.output].id;
            let at = format!("{}:{}", from.layer.id, port);
            if label.is_empty() {
                at
            } else {
                format!("{label} {at}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The shape found at load time, or the one the `.xml` declares.
fn shape_of(model: &Model, node: usize, output: usize) -> String {
    match model
        .known
        .get(node)
        .and_then(|k| k.get(output))
        .and_then(Option::as_ref)
    {
        Some(shape) => IrShape::fixed(shape).to_string(),
        None => match model
            .partials
            .get(node)
            .and_then(|k| k.get(output))
            .and_then(Option::as_ref)
        {
            Some(partial) => partial.to_string(),
            None => format!(
                "{} (declared)",
                model.graph.nodes[node].outputs[output]
                    .dims
                    .declared_dynamic()
            ),
        },
    }
}

fn small_integers(t: &Tensor) -> Option<String> {
    if t.len() > SHOWN_VALUES {
        return None;
    }
    macro_rules! list {
        ($a:expr) => {
            Some(format!(
                "[{}]",
                $a.iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ))
        };
    }
    match t {
        Tensor::I8(a) => list!(a),
        Tensor::I16(a) => list!(a),
        Tensor::I32(a) => list!(a),
        Tensor::I64(a) => list!(a),
        Tensor::U8(a) => list!(a),
        Tensor::U16(a) => list!(a),
        Tensor::U32(a) => list!(a),
        Tensor::U64(a) => list!(a),
        _ => None,
    }
}
