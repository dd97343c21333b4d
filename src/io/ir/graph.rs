//! From the `.xml` records to a checked graph: what each layer does, where each input comes
//! from, and an order to run the layers in.

use std::collections::{BTreeSet, HashMap};

use crate::auto_broadcast::AutoBroadcast;
use crate::dtype::DType;
use crate::ir::error::{IrError, LayerRef, PortDirection};
use crate::ir::types::{dtype_from_ir, IrShape};
use crate::ir::weights;
use crate::ir::xml::{RawLayer, RawNet, RawPort};
use crate::mode::Rule;
use crate::tensor::Tensor;
use crate::BinaryOp;

/// The newest opset bcast accepts in a layer's `version` (OpenVINO 2026.4 has Broadcast and
/// ShapeOf in opset1..=opset16, and no Broadcast in opset17).
const NEWEST_OPSET: u32 = 16;

/// A Broadcast mode as the IR names it, with its PDPD axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IrMode {
    Numpy,
    Explicit,
    Bidirectional,
    Pdpd { axis: i64 },
}

impl IrMode {
    pub fn describe(self) -> String {
        match self {
            IrMode::Numpy => "numpy".into(),
            IrMode::Explicit => "explicit".into(),
            IrMode::Bidirectional => "bidirectional".into(),
            IrMode::Pdpd { axis } => format!("pdpd, axis {axis}"),
        }
    }
}

/// What a layer does.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    Parameter {
        dtype: DType,
        shape: IrShape,
    },
    Const {
        value: Tensor,
    },
    ShapeOf {
        output_type: DType,
    },
    Broadcast {
        mode: IrMode,
    },
    /// An element-wise layer of the op table (Add ... LogicalXor, Bitwise*, PRelu,
    /// FakeQuantize).
    Eltwise {
        op: BinaryOp,
        spec: AutoBroadcast,
    },
    LogicalNot,
    Select {
        spec: AutoBroadcast,
    },
    Convert {
        to: DType,
    },
    Result,
}

/// A declared port with its precision read as an element type.
#[derive(Debug, Clone)]
pub(crate) struct Port {
    pub id: u64,
    pub precision: Option<DType>,
    pub dims: IrShape,
}

/// Where an input comes from: a node index and the index of one of its outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Source {
    pub node: usize,
    pub output: usize,
}

/// A layer, checked.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub layer: LayerRef,
    pub version: String,
    pub op: Op,
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
    /// One per input port, in the order the ports are declared.
    pub sources: Vec<Source>,
}

/// The checked graph.
#[derive(Debug, Clone)]
pub(crate) struct Graph {
    pub name: String,
    pub ir_version: u32,
    pub nodes: Vec<Node>,
    /// Node indices such that every node comes after the nodes it reads.
    pub order: Vec<usize>,
    /// Parameter node indices, in document order.
    pub parameters: Vec<usize>,
    /// Result node indices, in document order.
    pub results: Vec<usize>,
    /// Number of edges leaving each output port: `uses[node][output]`.
    pub uses: Vec<Vec<usize>>,
    /// For a Parameter, its index in `parameters`; for a Result, its index in `results`.
    pub slot: Vec<Option<usize>>,
}

/// Checks the records and builds the graph; `bin` is the whole `.bin`.
pub(crate) fn build(net: RawNet, bin: &[u8]) -> Result<Graph, IrError> {
    let mut index_of: HashMap<u64, usize> = HashMap::with_capacity(net.layers.len());
    for (i, l) in net.layers.iter().enumerate() {
        if let Some(&first) = index_of.get(&l.layer.id) {
            return Err(IrError::DuplicateLayerId {
                id: l.layer.id,
                first: net.layers[first].layer.name.clone(),
                second: l.layer.name.clone(),
            });
        }
        index_of.insert(l.layer.id, i);
    }
    let mut nodes = Vec::with_capacity(net.layers.len());
    for raw in &net.layers {
        nodes.push(node(raw, bin)?);
    }
    connect(&net, &index_of, &mut nodes)?;
    let order = topological_order(&nodes)?;
    let of_kind = |want: fn(&Op) -> bool| -> Vec<usize> {
        (0..nodes.len()).filter(|&i| want(&nodes[i].op)).collect()
    };
    let parameters = of_kind(|op| matches!(op, Op::Parameter { .. }));
    let results = of_kind(|op| matches!(op, Op::Result));
    if results.is_empty() {
        return Err(IrError::NoResults);
    }
    unique_names(&nodes, &parameters, "Parameter")?;
    unique_names(&nodes, &results, "Result")?;
    let mut uses: Vec<Vec<usize>> = nodes.iter().map(|n| vec![0; n.outputs.len()]).collect();
    for n in &nodes {
        for s in &n.sources {
            uses[s.node][s.output] += 1;
        }
    }
    let mut slot = vec![None; nodes.len()];
    for list in [&parameters, &results] {
        for (position, &node) in list.iter().enumerate() {
            slot[node] = Some(position);
        }
    }
    Ok(Graph {
        name: net.name,
        ir_version: net.version,
        nodes,
        order,
        parameters,
        results,
        uses,
        slot,
    })
}

fn unique_names(nodes: &[Node], which: &[usize], kind: &'static str) -> Result<(), IrError> {
    let mut seen: HashMap<&str, u64> = HashMap::new();
    for &i in which {
        let l = &nodes[i].layer;
        if let Some(&first) = seen.get(l.name.as_str()) {
            return Err(IrError::DuplicateName {
                kind,
                name: l.name.clone(),
                first,
                second: l.id,
            });
        }
        seen.insert(&l.name, l.id);
    }
    Ok(())
}

/// The operation's version from `opsetN`, if N is one bcast knows.
fn opset_number(version: &str) -> Option<u32> {
    version
        .strip_prefix("opset")?
        .parse()
        .ok()
        .filter(|n| (1..=NEWEST_OPSET).contains(n))
}

fn node(raw: &RawLayer, bin: &[u8]) -> Result<Node, IrError> {
    let layer = &raw.layer;
    let unsupported = || IrError::UnsupportedLayer {
        layer: layer.clone(),
        kind: layer.kind.clone(),
        version: raw.version.clone(),
    };
    let opset = opset_number(&raw.version).ok_or_else(unsupported)?;
    let ports = |list: &[RawPort]| -> Result<Vec<Port>, IrError> {
        list.iter()
            .map(|p| {
                let precision = match &p.precision {
                    Some(name) => Some(element_type(layer, name)?),
                    None => None,
                };
                Ok(Port {
                    id: p.id,
                    precision,
                    dims: p.dims.clone(),
                })
            })
            .collect()
    };
    let op = match layer.kind.as_str() {
        "Parameter" => {
            let dtype = element_type(layer, required(raw, "element_type")?)?;
            let shape = shape_attribute(raw, "shape")?;
            Op::Parameter { dtype, shape }
        }
        "Const" => constant(raw, bin)?,
        "ShapeOf" => {
            let output_type = if opset >= 3 {
                match raw.attr("output_type").unwrap_or("i64") {
                    "i64" => DType::I64,
                    "i32" => DType::I32,
                    other => {
                        return Err(bad_attribute(
                            layer,
                            "output_type",
                            format!("is '{other}', but ShapeOf-3 outputs i32 or i64"),
                        ))
                    }
                }
            } else {
                DType::I64
            };
            Op::ShapeOf { output_type }
        }
        "Broadcast" => broadcast(raw, if opset >= 3 { 3 } else { 1 }, raw.inputs.len())?,
        "Result" => Op::Result,
        "LogicalNot" => Op::LogicalNot,
        "Select" => Op::Select {
            spec: auto_broadcast(raw)?,
        },
        "Convert" => {
            let name = required(raw, "destination_type")?;
            let to = element_type(layer, name)?;
            Op::Convert { to }
        }
        kind => match BinaryOp::from_openvino_type(kind) {
            Ok(mut op) => {
                match &mut op {
                    BinaryOp::Divide { pythondiv } => {
                        *pythondiv = match raw.attr("m_pythondiv").map(str::trim) {
                            None | Some("true") => true,
                            Some("false") => false,
                            Some(other) => {
                                return Err(bad_attribute(
                                    layer,
                                    "m_pythondiv",
                                    format!("is '{other}', but Divide takes true or false"),
                                ))
                            }
                        };
                    }
                    BinaryOp::FakeQuantize { levels } => {
                        let text = required(raw, "levels")?;
                        *levels = match text.trim().parse::<u64>() {
                            Ok(n) if n >= 2 => n,
                            _ => {
                                return Err(bad_attribute(
                                    layer,
                                    "levels",
                                    format!("is '{text}', but FakeQuantize takes an integer >= 2"),
                                ))
                            }
                        };
                    }
                    _ => {}
                }
                // PRelu has no auto_broadcast attribute: it places the slope by its own rule.
                let spec = if op.takes_auto_broadcast() {
                    auto_broadcast(raw)?
                } else {
                    AutoBroadcast::Numpy
                };
                Op::Eltwise { op, spec }
            }
            Err(_) => return Err(unsupported()),
        },
    };
    // After the attributes, so that a bad element type is reported where it is declared.
    let inputs = ports(&raw.inputs)?;
    let outputs = ports(&raw.outputs)?;
    let (want_inputs, want_outputs): (Option<usize>, usize) = match &op {
        Op::Parameter { .. } | Op::Const { .. } => (Some(0), 1),
        Op::ShapeOf { .. } | Op::LogicalNot | Op::Convert { .. } => (Some(1), 1),
        Op::Eltwise { op, .. } => match op.arity() {
            crate::Arity::Exactly(n) => (Some(n), 1),
            crate::Arity::AtLeast(_) => (None, 1),
        },
        Op::Select { .. } => (Some(3), 1),
        // Counted in `broadcast`, where the mode is known.
        Op::Broadcast { .. } => (None, 1),
        Op::Result => (Some(1), 0),
    };
    if let Some(want_inputs) = want_inputs.filter(|&w| w != inputs.len()) {
        return Err(IrError::PortCount {
            layer: layer.clone(),
            direction: PortDirection::Input,
            expected: format!("a {} has {want_inputs}", layer.kind),
            got: inputs.len(),
        });
    }
    if outputs.len() != want_outputs {
        return Err(IrError::PortCount {
            layer: layer.clone(),
            direction: PortDirection::Output,
            expected: format!("a {} has {want_outputs}", layer.kind),
            got: outputs.len(),
        });
    }
    Ok(Node {
        layer: layer.clone(),
        version: raw.version.clone(),
        op,
        inputs,
        outputs,
        sources: Vec::new(),
    })
}

fn required<'r>(raw: &'r RawLayer, name: &str) -> Result<&'r str, IrError> {
    raw.attr(name)
        .ok_or_else(|| bad_attribute(&raw.layer, name, "is missing".into()))
}

fn bad_attribute(layer: &LayerRef, name: &str, problem: String) -> IrError {
    IrError::Attribute {
        layer: layer.clone(),
        attribute: name.to_string(),
        problem,
    }
}

fn element_type(layer: &LayerRef, name: &str) -> Result<DType, IrError> {
    dtype_from_ir(name).ok_or_else(|| IrError::UnsupportedElementType {
        layer: layer.clone(),
        name: name.to_string(),
    })
}

fn shape_attribute(raw: &RawLayer, name: &str) -> Result<IrShape, IrError> {
    let text = required(raw, name)?;
    IrShape::parse_attribute(text).ok_or_else(|| {
        bad_attribute(
            &raw.layer,
            name,
            format!("is '{text}', which is not a shape (sizes, ?, -1, ranges, or ...)"),
        )
    })
}

fn u64_attribute(raw: &RawLayer, name: &str) -> Result<u64, IrError> {
    let text = required(raw, name)?;
    text.trim().parse().map_err(|_| {
        bad_attribute(
            &raw.layer,
            name,
            format!("is '{text}', which is not a non-negative integer"),
        )
    })
}

fn constant(raw: &RawLayer, bin: &[u8]) -> Result<Op, IrError> {
    let layer = &raw.layer;
    let dtype = element_type(layer, required(raw, "element_type")?)?;
    let shape = shape_attribute(raw, "shape")?.to_static().ok_or_else(|| {
        bad_attribute(
            layer,
            "shape",
            "of a Const must have only fixed dimensions".into(),
        )
    })?;
    let offset = u64_attribute(raw, "offset")?;
    let size = u64_attribute(raw, "size")?;
    let bytes = weights::slice(bin, offset, size, layer)?;
    let value = weights::decode(bytes, dtype, &shape, layer)?;
    Ok(Op::Const { value })
}

fn broadcast(raw: &RawLayer, opset: u32, input_count: usize) -> Result<Op, IrError> {
    let layer = &raw.layer;
    let mode_text = match raw.attr("mode") {
        Some(m) => m,
        None if opset == 1 && input_count == 3 => {
            return Err(bad_attribute(
                layer,
                "mode",
                "is missing: OpenVINO reads an opset1 Broadcast with three inputs and no mode as explicit, its spec says numpy; write the mode".into(),
            ))
        }
        None => "numpy",
    };
    // The names are the library's one table (`MODE_NAMES`); `axes` and `multi` have no IR form.
    let mode = match Rule::from_mode_name(mode_text) {
        Some(Rule::Numpy) => IrMode::Numpy,
        Some(Rule::Explicit) => IrMode::Explicit,
        Some(Rule::Bidirectional) if opset >= 3 => IrMode::Bidirectional,
        Some(Rule::Pdpd) => IrMode::Pdpd {
            axis: pdpd_axis(raw, opset)?,
        },
        _ => {
            let other = mode_text;
            let known = if opset >= 3 {
                "numpy, explicit, none, bidirectional or pdpd"
            } else {
                "numpy, explicit, none or pdpd (bidirectional needs opset3)"
            };
            return Err(bad_attribute(
                layer,
                "mode",
                format!("is '{other}', but Broadcast-{opset} takes {known}"),
            ));
        }
    };
    let expected = match (mode, opset) {
        (IrMode::Explicit, _) => "3 (data, target_shape, axes_mapping) in explicit mode",
        // Broadcast-1 keeps a third input in every mode (OpenVINO writes a dummy u8 scalar);
        // its value is not read.
        (_, 1) => "2 or 3 (data, target_shape[, axes_mapping, unused in this mode])",
        _ => "2 (data, target_shape) in this mode",
    };
    let count_ok = match (mode, opset) {
        (IrMode::Explicit, _) => input_count == 3,
        (_, 1) => input_count == 2 || input_count == 3,
        _ => input_count == 2,
    };
    if !count_ok {
        return Err(IrError::PortCount {
            layer: layer.clone(),
            direction: PortDirection::Input,
            expected: format!("Broadcast-{opset} takes {expected}"),
            got: input_count,
        });
    }
    Ok(Op::Broadcast { mode })
}

/// An element-wise layer's `auto_broadcast` attribute (absent: numpy, OpenVINO's default for
/// every element-wise op): `none` (or `explicit`, the same value in OpenVINO), `numpy`, or
/// `pdpd` with its axis from `auto_broadcast.auto_broadcast_axis` (the name OpenVINO 2026.4
/// writes; `auto_broadcast_axis` is read too). An absent pdpd axis is 0, as OpenVINO reads it.
fn auto_broadcast(raw: &RawLayer) -> Result<AutoBroadcast, IrError> {
    let text = raw.attr("auto_broadcast").unwrap_or("numpy");
    let spec = match text.trim().to_ascii_lowercase().as_str() {
        "none" | "explicit" => AutoBroadcast::None,
        "numpy" => AutoBroadcast::Numpy,
        "pdpd" => {
            let names = ["auto_broadcast.auto_broadcast_axis", "auto_broadcast_axis"];
            AutoBroadcast::Pdpd {
                axis: agreed_int_attr(raw, names)?.unwrap_or(0),
            }
        }
        _ => {
            return Err(bad_attribute(
                &raw.layer,
                "auto_broadcast",
                format!(
                    "is '{text}', but an element-wise {} takes none, numpy or pdpd",
                    raw.layer.kind
                ),
            ))
        }
    };
    Ok(spec)
}

/// The PDPD start axis. OpenVINO 2026.4 writes and reads `mode.auto_broadcast_axis`
/// (opset1) and `mode.mode.axis` (opset3); the short names the spec uses are read too. An
/// absent axis is 0, as OpenVINO reads it.
fn pdpd_axis(raw: &RawLayer, opset: u32) -> Result<i64, IrError> {
    let names: [&str; 2] = if opset >= 3 {
        ["mode.mode.axis", "axis"]
    } else {
        ["mode.auto_broadcast_axis", "auto_broadcast_axis"]
    };
    Ok(agreed_int_attr(raw, names)?.unwrap_or(0))
}

/// An integer attribute that OpenVINO spells several ways: the value under whichever of
/// `names` the layer has (`None` if none), and an error if it is not an integer or two
/// spellings disagree.
fn agreed_int_attr(raw: &RawLayer, names: [&str; 2]) -> Result<Option<i64>, IrError> {
    let mut found: Option<(i64, &str)> = None;
    for name in names {
        let Some(text) = raw.attr(name) else {
            continue;
        };
        let value: i64 = text.trim().parse().map_err(|_| {
            bad_attribute(
                &raw.layer,
                name,
                format!("is '{text}', which is not an integer"),
            )
        })?;
        if let Some((first, first_name)) = found {
            if first != value {
                return Err(bad_attribute(
                    &raw.layer,
                    name,
                    format!("is {value} but '{first_name}' is {first}"),
                ));
            }
        }
        found = Some((value, name));
    }
    Ok(found.map(|(value, _)| value))
}

/// Resolves every edge to a (node, output) source of an input port.
fn connect(
    net: &RawNet,
    index_of: &HashMap<u64, usize>,
    nodes: &mut [Node],
) -> Result<(), IrError> {
    let mut sources: Vec<Vec<Option<Source>>> =
        nodes.iter().map(|n| vec![None; n.inputs.len()]).collect();
    for e in &net.edges {
        let find = |id: u64| {
            index_of.get(&id).copied().ok_or(IrError::NoSuchLayer {
                from_layer: e.from_layer,
                from_port: e.from_port,
                to_layer: e.to_layer,
                to_port: e.to_port,
                missing: id,
            })
        };
        let from = find(e.from_layer)?;
        let to = find(e.to_layer)?;
        let no_port = |node: &Node, direction: PortDirection, port: u64| IrError::NoSuchPort {
            layer: node.layer.clone(),
            direction,
            port,
            from_layer: e.from_layer,
            from_port: e.from_port,
            to_layer: e.to_layer,
            to_port: e.to_port,
        };
        let output = nodes[from]
            .outputs
            .iter()
            .position(|p| p.id == e.from_port)
            .ok_or_else(|| no_port(&nodes[from], PortDirection::Output, e.from_port))?;
        let input = nodes[to]
            .inputs
            .iter()
            .position(|p| p.id == e.to_port)
            .ok_or_else(|| no_port(&nodes[to], PortDirection::Input, e.to_port))?;
        let slot = &mut sources[to][input];
        if slot.is_some() {
            return Err(IrError::MultipleEdges {
                layer: nodes[to].layer.clone(),
                port: e.to_port,
            });
        }
        *slot = Some(Source { node: from, output });
    }
    for (node, srcs) in nodes.iter_mut().zip(sources) {
        node.sources = srcs
            .into_iter()
            .zip(&node.inputs)
            .map(|(s, p)| {
                s.ok_or_else(|| IrError::UnconnectedInput {
                    layer: node.layer.clone(),
                    port: p.id,
                })
            })
            .collect::<Result<_, _>>()?;
    }
    Ok(())
}

/// Kahn's algorithm, taking ready layers in document order so the order is deterministic.
fn topological_order(nodes: &[Node]) -> Result<Vec<usize>, IrError> {
    let mut waiting: Vec<usize> = nodes.iter().map(|n| n.sources.len()).collect();
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for s in &n.sources {
            readers[s.node].push(i);
        }
    }
    let mut ready: BTreeSet<usize> = (0..nodes.len()).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &r in &readers[i] {
            waiting[r] -= 1;
            if waiting[r] == 0 {
                ready.insert(r);
            }
        }
    }
    if order.len() == nodes.len() {
        return Ok(order);
    }
    // Walk back along unfinished inputs from any stuck layer: every stuck layer has one, so
    // the walk must revisit a layer, and that layer is on a cycle.
    let stuck = |i: usize| waiting[i] > 0;
    let mut at = (0..nodes.len()).find(|&i| stuck(i)).unwrap_or(0);
    let mut seen = vec![false; nodes.len()];
    while !seen[at] {
        seen[at] = true;
        at = nodes[at]
            .sources
            .iter()
            .map(|s| s.node)
            .find(|&n| stuck(n))
            .unwrap_or(at);
    }
    Err(IrError::Cycle {
        layer: nodes[at].layer.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::xml;

    /// Result `r` (listed first) reads `b`; `b` and `c` read each other.
    const CYCLE_AFTER_A_READER: &str = r#"<net name="c" version="11"><layers>
<layer id="9" name="r" type="Result" version="opset1"><input><port id="0"/></input></layer>
<layer id="5" name="b" type="ShapeOf" version="opset3"><input><port id="0"/></input><output><port id="1"/></output></layer>
<layer id="6" name="c" type="ShapeOf" version="opset3"><input><port id="0"/></input><output><port id="1"/></output></layer>
</layers><edges>
<edge from-layer="5" from-port="1" to-layer="9" to-port="0"/>
<edge from-layer="6" from-port="1" to-layer="5" to-port="0"/>
<edge from-layer="5" from-port="1" to-layer="6" to-port="0"/>
</edges></net>"#;

    #[test]
    fn a_cycle_is_named_by_a_layer_on_it_not_by_a_reader_of_it() {
        let net = xml::parse(CYCLE_AFTER_A_READER, "c.xml").unwrap();
        let e = build(net, &[]).unwrap_err();
        assert!(
            matches!(&e, IrError::Cycle { layer } if layer.id == 5 || layer.id == 6),
            "{e}"
        );
    }

    #[test]
    fn order_puts_every_layer_after_its_sources_whatever_the_document_order() {
        let text = CYCLE_AFTER_A_READER.replace(
            r#"<edge from-layer="6" from-port="1" to-layer="5" to-port="0"/>"#,
            "",
        );
        // Without the edge into b, b reads nothing: make it a Parameter.
        let text = text.replace(
            r#"<layer id="5" name="b" type="ShapeOf" version="opset3"><input><port id="0"/></input><output><port id="1"/></output></layer>"#,
            r#"<layer id="5" name="b" type="Parameter" version="opset1"><data shape="2" element_type="i64"/><output><port id="1"/></output></layer>"#,
        );
        let g = build(xml::parse(&text, "c.xml").unwrap(), &[]).unwrap();
        let position = |id: u64| {
            g.order
                .iter()
                .position(|&i| g.nodes[i].layer.id == id)
                .unwrap()
        };
        assert!(position(5) < position(6));
        assert!(position(5) < position(9));
        assert_eq!(g.order.len(), 3);
    }

    #[test]
    fn opset_versions_map_to_operation_versions_as_openvino_reads_them() {
        assert_eq!(opset_number("opset1"), Some(1));
        assert_eq!(opset_number("opset16"), Some(16));
        for bad in ["opset0", "opset17", "opset", "experimental", "", "opsetx"] {
            assert_eq!(opset_number(bad), None, "{bad}");
        }
    }
}
