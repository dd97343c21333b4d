//! Runs the graph, layer by layer in topological order.
//!
//! The same walk serves twice. At load time ([`Pass::Infer`]) the Parameters stand for their
//! declared shapes and nothing large is computed: Consts and ShapeOfs give values, Broadcasts
//! give shapes, so a static model's every port is checked and every rule error is found
//! before any input is given. At run time ([`Pass::Run`]) every value is a tensor.

use std::borrow::Cow;

use ndarray::{ArrayD, IxDyn};

use crate::dtype::DType;
use crate::error::{BroadcastError, Dims};
use crate::exec::Parallelism;
use crate::ir::error::{IrError, LayerRef, PortDirection};
use crate::ir::fuse::{Chain, Fusion};
use crate::ir::graph::{Graph, IrMode, Node, Op, Port, Source};
use crate::mode::Mode;
use crate::partial_shape::{Dim as PDim, PartialShape, TargetShape};
use crate::tensor::Tensor;
use crate::PreparedOp;

/// What is known of one output: its tensor, or only its element type and maybe its shape.
#[derive(Debug, Clone)]
pub(crate) enum Value<'a> {
    Tensor(Cow<'a, Tensor>),
    /// Built by [`Value::meta`] only, so that `shape` is `partial` when that is static.
    Meta {
        dtype: DType,
        /// The shape, when every dimension is known.
        shape: Option<Vec<usize>>,
        /// What is known of the shape (load time).
        partial: PartialShape,
        /// What is known of the values of a 1-D integer tensor that holds a shape (the
        /// ShapeOf of a partially known tensor): one [`PDim`] per value.
        values: Option<Vec<PDim>>,
    },
}

impl Value<'_> {
    /// A value known only by its element type and (partial) shape.
    pub fn meta(dtype: DType, partial: PartialShape) -> Value<'static> {
        Value::Meta {
            dtype,
            shape: partial.to_static(),
            partial,
            values: None,
        }
    }

    /// What is known of the shape.
    pub fn partial(&self) -> PartialShape {
        match self {
            Value::Tensor(t) => PartialShape::from_static(t.shape()),
            Value::Meta { partial, .. } => partial.clone(),
        }
    }

    pub fn dtype(&self) -> DType {
        match self {
            Value::Tensor(t) => t.dtype(),
            Value::Meta { dtype, .. } => *dtype,
        }
    }

    pub fn shape(&self) -> Option<&[usize]> {
        match self {
            Value::Tensor(t) => Some(t.shape()),
            Value::Meta { shape, .. } => shape.as_deref(),
        }
    }
}

/// Which walk this is.
pub(crate) enum Pass<'a> {
    /// Load time: Parameters are their declarations.
    Infer,
    /// Run time: one tensor per Parameter, in `Graph::parameters` order, and the output
    /// shapes the load-time pass already knew (those ports were checked then).
    Run {
        inputs: Vec<&'a Tensor>,
        known: &'a [Vec<Option<Vec<usize>>>],
        /// The element-wise layers prepared at load time (static operand shapes), by node.
        prepared: &'a [Option<PreparedOp>],
    },
}

/// What a walk found.
pub(crate) struct Outcome<'a> {
    /// One per Result, in `Graph::results` order.
    pub results: Vec<Value<'a>>,
    /// The shape of every output port, where known: `shapes[node][output]`.
    pub shapes: Vec<Vec<Option<Vec<usize>>>>,
    /// The element type of every layer's output (`None` for Results).
    pub dtypes: Vec<Option<DType>>,
    /// What is known of every output port's shape: `partials[node][output]` (load time;
    /// `None` for Results).
    pub partials: Vec<Vec<Option<PartialShape>>>,
}

/// Walks the graph.
///
/// # Errors
/// Any [`IrError`] a layer raises: a Broadcast rule, a bad `target_shape`, a port whose
/// declared dims or precision differ from what is computed, a Parameter input of the
/// wrong type or shape.
///
/// With `fusion` (a run only), each chain of element-wise layers runs as one expression at its
/// last layer: its other layers are walked for their shapes and element types only (so their
/// ports are checked as before), and the tensors the chain reads from outside are kept until
/// the chain has run.
pub(crate) fn evaluate<'a>(
    graph: &'a Graph,
    pass: &Pass<'a>,
    fusion: Option<&'a Fusion>,
) -> Result<Outcome<'a>, IrError> {
    let mut values: Vec<Vec<Option<Value<'a>>>> = graph
        .nodes
        .iter()
        .map(|n| n.outputs.iter().map(|_| None).collect())
        .collect();
    let mut shapes: Vec<Vec<Option<Vec<usize>>>> = graph
        .nodes
        .iter()
        .map(|n| vec![None; n.outputs.len()])
        .collect();
    let mut dtypes: Vec<Option<DType>> = vec![None; graph.nodes.len()];
    let mut partials: Vec<Vec<Option<PartialShape>>> = graph
        .nodes
        .iter()
        .map(|n| vec![None; n.outputs.len()])
        .collect();
    let record_partials = matches!(pass, Pass::Infer);
    let mut uses_left = graph.uses.clone();
    let mut results: Vec<Option<Value<'a>>> = graph.results.iter().map(|_| None).collect();
    let materialise = needs_data(graph);
    const KEPT: &str =
        "topological order: a source is computed before its readers and kept until its last reader";

    for &i in &graph.order {
        let node = &graph.nodes[i];
        for (port, src) in node.inputs.iter().zip(&node.sources) {
            let v = values[src.node][src.output].as_ref().expect(KEPT);
            check_port(
                node,
                PortDirection::Input,
                port,
                v,
                pass,
                known(pass, src.node, src.output),
            )?;
        }
        if let Op::Result = node.op {
            let src = node.sources[0];
            let left = &mut uses_left[src.node][src.output];
            *left -= 1;
            let slot = &mut values[src.node][src.output];
            let v = if *left == 0 {
                slot.take().expect(KEPT)
            } else {
                slot.clone().expect(KEPT)
            };
            let position = graph.slot[i].expect("a Result has a slot");
            results[position] = Some(v);
            continue;
        }
        let chain = fusion.and_then(|f| f.chain_of[i].map(|c| &f.chains[c]));
        // A member of a chain gives its shape and element type only; the chain's last layer
        // then computes the whole chain.
        let out = {
            let inputs: Vec<&Value<'a>> = node
                .sources
                .iter()
                .map(|s| values[s.node][s.output].as_ref().expect(KEPT))
                .collect();
            compute(graph, i, &inputs, pass, materialise[i] && chain.is_none())?
        };
        let out = match chain {
            Some(chain) if chain.members.last() == Some(&i) && materialise[i] => {
                run_chain(graph, chain, &values, pass)?.unwrap_or(out)
            }
            _ => out,
        };
        check_port(
            node,
            PortDirection::Output,
            &node.outputs[0],
            &out,
            pass,
            known(pass, i, 0),
        )?;
        shapes[i][0] = out.shape().map(<[usize]>::to_vec);
        if record_partials {
            partials[i][0] = Some(out.partial());
        }
        dtypes[i] = Some(out.dtype());
        if graph.uses[i][0] > 0 {
            values[i][0] = Some(out);
        }
        let mut release = |s: &Source| {
            let left = &mut uses_left[s.node][s.output];
            *left -= 1;
            if *left == 0 {
                values[s.node][s.output] = None;
            }
        };
        match chain {
            None => node.sources.iter().for_each(&mut release),
            Some(chain) => {
                let outside = |s: &&Source| !chain.members.contains(&s.node);
                // What a member reads from outside the chain is read again when the chain
                // runs, at its last layer: released there.
                if chain.members.last() == Some(&i) {
                    for &m in &chain.members {
                        graph.nodes[m]
                            .sources
                            .iter()
                            .filter(outside)
                            .for_each(&mut release);
                    }
                }
                node.sources
                    .iter()
                    .filter(|s| !outside(s))
                    .for_each(&mut release);
            }
        }
    }
    Ok(Outcome {
        results: results
            .into_iter()
            .map(|r| r.expect("every Result is in the order"))
            .collect(),
        shapes,
        dtypes,
        partials,
    })
}

/// Runs a chain at its last layer, as one expression over the tensors it reads from outside;
/// `None` when one of them is not a tensor (then neither is the chain's output).
///
/// # Errors
/// An error of a layer of the chain (an integer division by zero): the one its layers run
/// one by one give, naming the layer.
fn run_chain<'a>(
    graph: &'a Graph,
    chain: &Chain,
    values: &[Vec<Option<Value<'a>>>],
    pass: &Pass<'a>,
) -> Result<Option<Value<'a>>, IrError> {
    let mut views = Vec::with_capacity(chain.inputs.len());
    for s in &chain.inputs {
        match values[s.node][s.output].as_ref() {
            Some(Value::Tensor(t)) => views.push(t.view()),
            _ => return Ok(None),
        }
    }
    let fused = match chain.expression.evaluate(&views, Parallelism::Auto) {
        Ok(t) => return Ok(Some(Value::Tensor(Cow::Owned(t)))),
        Err(e) => e,
    };
    // The layers one by one: they find the same fault and name the layer that has it.
    let mut computed: Vec<(usize, Value<'a>)> = Vec::with_capacity(chain.members.len());
    for &m in &chain.members {
        let inputs: Vec<&Value<'a>> = graph.nodes[m]
            .sources
            .iter()
            .map(|s| match computed.iter().find(|(n, _)| *n == s.node) {
                Some((_, v)) => v,
                None => values[s.node][s.output]
                    .as_ref()
                    .expect("a chain's outside operands are kept until it runs"),
            })
            .collect();
        let v = compute(graph, m, &inputs, pass, true)?;
        computed.push((m, v));
    }
    // The layers ran where the expression failed: a fault of the fused run alone, which
    // must not fail the model. (The fused executor's agreement with the ops one by one is
    // what tests/expression.rs checks, op by op and type by type.)
    let _ = fused;
    Ok(computed.pop().map(|(_, v)| v))
}

/// Whether the load-time pass already knew (and so checked) this output's shape.
fn known(pass: &Pass<'_>, node: usize, output: usize) -> bool {
    match pass {
        Pass::Infer => false,
        Pass::Run { known, .. } => known
            .get(node)
            .and_then(|k| k.get(output))
            .is_some_and(Option::is_some),
    }
}

/// Compares a port's declared precision and dims with the value on it.
///
/// A port with no `<dim>` is rank 0, or, when the shape depends on a dynamic input, may be
/// OpenVINO's way of writing "any rank": at run time such ports accept any shape.
fn check_port(
    node: &Node,
    direction: PortDirection,
    port: &Port,
    value: &Value<'_>,
    pass: &Pass<'_>,
    already_checked: bool,
) -> Result<(), IrError> {
    if already_checked {
        return Ok(());
    }
    if let Some(declared) = port.precision {
        if declared != value.dtype() {
            return Err(IrError::PortType {
                layer: node.layer.clone(),
                direction,
                port: port.id,
                declared,
                computed: value.dtype(),
            });
        }
    }
    let Some(shape) = value.shape() else {
        return check_partial_port(node, direction, port, value);
    };
    let dynamic_rank_possible = matches!(pass, Pass::Run { .. })
        && port.dims == crate::ir::types::IrShape::Dims(Vec::new());
    if !dynamic_rank_possible && !port.dims.accepts(shape) {
        return Err(IrError::PortShape {
            layer: node.layer.clone(),
            direction,
            port: port.id,
            declared: port.dims.clone(),
            computed: Dims(shape.to_vec()),
        });
    }
    Ok(())
}

/// A port against a shape known only in part: refused when no shape the layer may compute
/// fits the declared dims (a rank that differs, a dimension whose intervals do not meet). A
/// port with no `<dim>` is how OpenVINO writes "any rank" there, so it holds any shape.
fn check_partial_port(
    node: &Node,
    direction: PortDirection,
    port: &Port,
    value: &Value<'_>,
) -> Result<(), IrError> {
    let declared = port.dims.declared_dynamic().to_partial();
    let inferred = value.partial();
    let fits = match (declared.dims(), inferred.dims()) {
        (Some(d), Some(i)) => {
            d.len() == i.len() && d.iter().zip(i).all(|(a, b)| a.intersect(*b).is_some())
        }
        _ => true,
    };
    if fits {
        return Ok(());
    }
    Err(IrError::PortPartialShape {
        layer: node.layer.clone(),
        direction,
        port: port.id,
        declared: port.dims.clone(),
        inferred,
    })
}

/// Which layers' outputs must be computed as tensors at run time: those a Result reads, those
/// read as a Broadcast's `target_shape` or `axes_mapping`, and the data of a Broadcast that
/// must itself be computed. A ShapeOf reads only its input's shape, so a Broadcast that only
/// feeds ShapeOfs is planned (its shape checked) but never materialised.
fn needs_data(graph: &Graph) -> Vec<bool> {
    let mut needs = vec![false; graph.nodes.len()];
    for &i in graph.order.iter().rev() {
        let node = &graph.nodes[i];
        for (k, src) in node.sources.iter().enumerate() {
            let reads_values = match node.op {
                Op::ShapeOf { .. } => false,
                Op::Broadcast { .. } if k == 0 => needs[i],
                _ => true,
            };
            needs[src.node] |= reads_values;
        }
    }
    needs
}

fn compute<'a>(
    graph: &'a Graph,
    index: usize,
    inputs: &[&Value<'a>],
    pass: &Pass<'a>,
    materialise: bool,
) -> Result<Value<'a>, IrError> {
    let node = &graph.nodes[index];
    let layer = &node.layer;
    match &node.op {
        Op::Parameter { dtype, shape } => match pass {
            Pass::Infer => Ok(Value::meta(*dtype, shape.to_partial())),
            Pass::Run { inputs, .. } => {
                let position = graph.slot[index].expect("a Parameter has a slot");
                let t = inputs[position];
                if t.dtype() != *dtype || !shape.accepts(t.shape()) {
                    return Err(IrError::InputMismatch {
                        layer: layer.clone(),
                        dtype: *dtype,
                        shape: shape.clone(),
                        got_dtype: t.dtype(),
                        got_shape: Dims(t.shape().to_vec()),
                    });
                }
                Ok(Value::Tensor(Cow::Borrowed(t)))
            }
        },
        Op::Const { value } => Ok(Value::Tensor(Cow::Borrowed(value))),
        Op::ShapeOf { output_type } => match inputs[0].shape() {
            Some(shape) => Ok(Value::Tensor(Cow::Owned(shape_tensor(
                shape,
                *output_type,
                layer,
            )?))),
            None => {
                let partial = inputs[0].partial();
                Ok(match partial.dims() {
                    Some(dims) => Value::Meta {
                        dtype: *output_type,
                        shape: Some(vec![dims.len()]),
                        partial: PartialShape::from_static(&[dims.len()]),
                        values: Some(dims.to_vec()),
                    },
                    None => Value::meta(*output_type, PartialShape::Ranked(vec![PDim::ANY])),
                })
            }
        },
        Op::Broadcast { mode, .. } => broadcast(layer, *mode, inputs, pass, materialise),
        Op::Eltwise { op, spec } => {
            let prepared = match pass {
                Pass::Run { prepared, .. } => prepared.get(index).and_then(Option::as_ref),
                Pass::Infer => None,
            };
            crate::ir::eltwise::binary(layer, *op, spec, inputs, materialise, prepared)
        }
        Op::LogicalNot => crate::ir::eltwise::logical_not(layer, inputs[0], materialise),
        Op::Select { spec } => crate::ir::eltwise::select(layer, spec, inputs, materialise),
        Op::Convert { to } => crate::ir::eltwise::convert(layer, *to, inputs[0], materialise),
        Op::Result => unreachable!("Results are taken by the walk"),
    }
}

fn shape_tensor(shape: &[usize], dtype: DType, layer: &LayerRef) -> Result<Tensor, IrError> {
    let len = [shape.len()];
    Ok(match dtype {
        DType::I32 => {
            let dims = shape
                .iter()
                .map(|&d| {
                    i32::try_from(d).map_err(|_| IrError::ShapeOfOverflow {
                        layer: layer.clone(),
                        dim: d,
                    })
                })
                .collect::<Result<Vec<i32>, _>>()?;
            Tensor::I32(ArrayD::from_shape_vec(IxDyn(&len), dims).expect("one value per axis"))
        }
        // Dims are at most isize::MAX (every shape bcast builds passes `checked_len`).
        _ => Tensor::I64(
            ArrayD::from_shape_vec(IxDyn(&len), shape.iter().map(|&d| d as i64).collect())
                .expect("one value per axis"),
        ),
    })
}

fn is_integer(dtype: DType) -> bool {
    matches!(
        dtype,
        DType::I8
            | DType::I16
            | DType::I32
            | DType::I64
            | DType::U8
            | DType::U16
            | DType::U32
            | DType::U64
    )
}

/// Reads a `target_shape` or `axes_mapping` input: a 1-D tensor of non-negative integers.
/// `None` while its values are not known (load time, fed by a Parameter).
fn index_list(
    layer: &LayerRef,
    input: &'static str,
    value: &Value<'_>,
) -> Result<Option<Vec<usize>>, IrError> {
    let fail = |problem: String| IrError::ShapeInput {
        layer: layer.clone(),
        input,
        problem,
    };
    if !is_integer(value.dtype()) {
        return Err(fail(format!(
            "must be an integer tensor, but is {}",
            value.dtype()
        )));
    }
    if let Some(shape) = value.shape() {
        if shape.len() != 1 {
            return Err(fail(format!(
                "must be 1-D, but has shape {}",
                Dims(shape.to_vec())
            )));
        }
    }
    let Value::Tensor(t) = value else {
        return Ok(None);
    };
    macro_rules! convert {
        ($a:expr) => {{
            let ints: Vec<_> = $a.iter().copied().collect();
            if input == "axes_mapping" {
                crate::shape::axes_from_ints(&ints)
            } else {
                crate::shape::shape_from_ints(&ints)
            }
        }};
    }
    let converted = match t.as_ref() {
        Tensor::I8(a) => convert!(a),
        Tensor::I16(a) => convert!(a),
        Tensor::I32(a) => convert!(a),
        Tensor::I64(a) => convert!(a),
        Tensor::U8(a) => convert!(a),
        Tensor::U16(a) => convert!(a),
        Tensor::U32(a) => convert!(a),
        Tensor::U64(a) => convert!(a),
        _ => unreachable!("the element type was checked above"),
    };
    converted.map(Some).map_err(|e| {
        fail(match e {
            BroadcastError::NegativeValue { index, value, .. } => {
                format!("value {value} at index {index} is negative")
            }
            BroadcastError::ValueTooLarge { index, value, .. } => {
                format!("value {value} at index {index} does not fit in usize")
            }
            other => other.to_string(),
        })
    })
}

fn broadcast<'a>(
    layer: &LayerRef,
    mode: IrMode,
    inputs: &[&Value<'a>],
    pass: &Pass<'a>,
    materialise: bool,
) -> Result<Value<'a>, IrError> {
    let data = inputs[0];
    let target = index_list(layer, "target_shape", inputs[1])?;
    let axes = match mode {
        IrMode::Explicit => index_list(layer, "axes_mapping", inputs[2])?,
        _ => Some(Vec::new()),
    };
    let (Some(data_shape), Some(target), Some(axes)) = (data.shape(), target.clone(), axes.clone())
    else {
        return infer_broadcast(layer, mode, data, inputs[1], target, axes);
    };
    let mode = match mode {
        IrMode::Numpy => Mode::Numpy,
        IrMode::Explicit => Mode::Explicit { axes_mapping: axes },
        IrMode::Bidirectional => Mode::Bidirectional,
        IrMode::Pdpd { axis } => Mode::Pdpd { axis },
    };
    let rule = |source: BroadcastError| IrError::Broadcast {
        layer: layer.clone(),
        source: Box::new(source),
    };
    let plan = crate::planners::plan(data_shape, &target, &mode).map_err(rule)?;
    match (pass, data) {
        (Pass::Run { .. }, Value::Tensor(t)) if materialise => Ok(Value::Tensor(Cow::Owned(
            t.run_plan(&plan, Parallelism::Auto).map_err(rule)?,
        ))),
        _ => Ok(Value::meta(
            data.dtype(),
            PartialShape::from_static(plan.output_shape()),
        )),
    }
}

/// A Broadcast whose data shape or target values are known only in part: the tightest
/// partial output shape ([`crate::infer_shape`]), or the rule's error when the contradiction
/// is certain.
fn infer_broadcast<'a>(
    layer: &LayerRef,
    mode: IrMode,
    data: &Value<'_>,
    target_value: &Value<'_>,
    target: Option<Vec<usize>>,
    axes: Option<Vec<usize>>,
) -> Result<Value<'a>, IrError> {
    let target = match (target, target_value) {
        (Some(values), _) => TargetShape::Known(values),
        (
            None,
            Value::Meta {
                values: Some(v), ..
            },
        ) => TargetShape::Partial(v.clone()),
        (None, v) => match v.shape() {
            Some([n]) => TargetShape::Rank(*n),
            _ => TargetShape::Unknown,
        },
    };
    let mode = match (mode, axes) {
        (IrMode::Numpy, _) => Mode::Numpy,
        (IrMode::Bidirectional, _) => Mode::Bidirectional,
        (IrMode::Pdpd { axis }, _) => Mode::Pdpd { axis },
        (IrMode::Explicit, Some(axes_mapping)) => Mode::Explicit { axes_mapping },
        // Axes not known until run time: the output is the target, unchecked.
        (IrMode::Explicit, None) => {
            return Ok(Value::meta(data.dtype(), target.to_partial_shape()))
        }
    };
    let partial = crate::infer::infer_shape(&data.partial(), &target, &mode).map_err(|source| {
        IrError::Broadcast {
            layer: layer.clone(),
            source: Box::new(source),
        }
    })?;
    Ok(Value::meta(data.dtype(), partial))
}
