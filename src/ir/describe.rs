//! The text of `bcast ir --describe`.

use std::fmt::Write;

use crate::ir::graph::{IrMode, Node, Op};
use crate::ir::types::IrShape;
use crate::ir::Model;
use crate::tensor::Tensor;

/// Integer constants up to this many values are printed (target shapes, axes).
const SHOWN_VALUES: usize = 16;

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
    for &i in &g.order {
        let node = &g.nodes[i];
        let _ = write!(
            s,
            "  {} {} '{}' ({}",
            node.layer.id, node.layer.kind, node.layer.name, node.version
        );
        match &node.op {
            Op::Broadcast { mode, .. } => {
                let _ = write!(s, ", {}", mode.describe());
            }
            Op::ShapeOf { output_type } => {
                let _ = write!(s, ", output_type {output_type}");
            }
            _ => {}
        }
        let _ = write!(s, ")");
        let sources = sources(model, node);
        if !sources.is_empty() {
            let _ = write!(s, ": {sources}");
        }
        let shown = match &node.op {
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
        let dtype = model.dtypes[producer].map_or_else(|| "?".to_string(), |d| d.to_string());
        let _ = write!(s, " -> {dtype} {shown}");
        if let Op::Const { value } = &node.op {
            if let Some(values) = small_integers(value) {
                let _ = write!(s, " = {values}");
            }
        }
        let _ = writeln!(s);
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
        None => format!(
            "{} (declared)",
            model.graph.nodes[node].outputs[output]
                .dims
                .declared_dynamic()
        ),
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
                    .join(", ")
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
