//! OpenVINO IR models built from Broadcast layers, run without OpenVINO.
//!
//! [`Model::load`] reads an IR (version 10 or 11: the `.xml` topology and its `.bin` weights)
//! whose layers are `Parameter`, `Const`, `Broadcast` (opset1 and opset3), `ShapeOf` (opset1
//! and opset3) and `Result`, in any number and order. [`Model::run`] runs it on
//! [`Tensor`]s and returns one tensor per Result.
//!
//! Loading checks everything the files say and trusts none of it: a layer type bcast does
//! not run, a missing or short `.bin`, an offset past its end, an edge to a port that does
//! not exist, a cycle, a negative `target_shape` value, a Broadcast rule broken, or port
//! dims in the `.xml` that differ from what bcast computes are each an [`IrError`] naming
//! the layer's id, name and type. When every Parameter has a static shape, all of this is
//! found at load time.
//!
//! How IR attributes map to [`Mode`](crate::Mode): `numpy`, `bidirectional`, `explicit`
//! and its alias `none` (axes from the third input), and `pdpd` with its axis from
//! `mode.auto_broadcast_axis` (opset1) or `mode.mode.axis` (opset3), the names OpenVINO
//! 2026.4 writes and reads (the short names `auto_broadcast_axis` and `axis` are read too;
//! an absent axis is 0, as OpenVINO reads it). bcast's rules are stricter than OpenVINO's in
//! places (see [`crate::planners`]); such a model is refused with the rule it breaks.
//!
//! ```
//! use std::collections::HashMap;
//! use bcast::{ir::Model, Tensor};
//! use ndarray::array;
//!
//! let xml = r#"<net name="bias" version="11"><layers>
//!   <layer id="0" name="x" type="Parameter" version="opset1">
//!     <data shape="3" element_type="f32"/>
//!     <output><port id="0" precision="FP32"><dim>3</dim></port></output></layer>
//!   <layer id="1" name="target" type="Const" version="opset1">
//!     <data element_type="i64" shape="2" offset="0" size="16"/>
//!     <output><port id="0" precision="I64"><dim>2</dim></port></output></layer>
//!   <layer id="2" name="b" type="Broadcast" version="opset3">
//!     <data mode="numpy"/>
//!     <input><port id="0"><dim>3</dim></port><port id="1"><dim>2</dim></port></input>
//!     <output><port id="2" precision="FP32"><dim>2</dim><dim>3</dim></port></output></layer>
//!   <layer id="3" name="y" type="Result" version="opset1">
//!     <input><port id="0"><dim>2</dim><dim>3</dim></port></input></layer>
//! </layers><edges>
//!   <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
//!   <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
//!   <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
//! </edges></net>"#;
//! let weights: Vec<u8> = [2i64, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let model = Model::from_xml(xml, &weights)?;
//! assert_eq!(model.inputs()[0].name, "x");
//! assert_eq!(model.outputs()[0].shape.to_string(), "[2,3]");
//!
//! let x = Tensor::from(array![1.0f32, 2.0, 3.0].into_dyn());
//! let outputs = model.run(&HashMap::from([("x".to_string(), x)]))?;
//! assert_eq!(outputs[0].0, "y");
//! assert_eq!(outputs[0].1, Tensor::from(array![[1.0f32, 2.0, 3.0], [1.0, 2.0, 3.0]].into_dyn()));
//! # Ok::<(), bcast::ir::IrError>(())
//! ```

mod describe;
mod eltwise;
mod error;
mod eval;
mod fuse;
mod graph;
mod types;
mod weights;
mod xml;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use describe::{ChainSummary, LayerSummary};
pub use error::{IrError, LayerRef, PortDirection};
pub use fuse::MAX_CHAIN_LAYERS;
pub use types::{dtype_from_ir, Dim, IrShape};

use crate::dtype::DType;
use crate::io::files;
use crate::tensor::Tensor;
use crate::PreparedOp;
use eval::{Pass, Value};
use fuse::Fusion;
use graph::{Graph, Op};

/// A model input (a Parameter) or output (a Result): its name, element type and shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    /// The layer's `name`: the key of [`Model::run`]'s inputs, the name of its outputs.
    pub name: String,
    /// The element type.
    pub dtype: DType,
    /// The shape: as declared for an input; for an output, as computed at load time when
    /// every input is static, otherwise as declared on the Result's port.
    pub shape: IrShape,
}

/// A loaded, checked IR model.
#[derive(Debug, Clone)]
pub struct Model {
    graph: Graph,
    /// The shape of every output port found at load time: `known[node][output]`.
    known: Vec<Vec<Option<Vec<usize>>>>,
    /// The element type of every layer's output (`None` for Results).
    dtypes: Vec<Option<DType>>,
    /// What load time inferred of every output port's shape, met with the port's declared
    /// dims: `partials[node][output]`.
    partials: Vec<Vec<Option<IrShape>>>,
    inputs: Vec<TensorInfo>,
    outputs: Vec<TensorInfo>,
    /// The chains of element-wise layers [`Model::run`] runs as one expression each.
    fusion: Fusion,
    /// Each element-wise layer whose operands' shapes are static at load time, prepared
    /// then ([`PreparedOp`]): `prepared[node]`.
    prepared: Vec<Option<PreparedOp>>,
}

/// The element-wise layers whose operands' element types and shapes load time found, each
/// prepared for them (a layer the library refuses on them is left to fail, naming itself, at
/// run time, as before).
fn prepare(
    graph: &Graph,
    known: &[Vec<Option<Vec<usize>>>],
    dtypes: &[Option<DType>],
) -> Vec<Option<PreparedOp>> {
    graph
        .nodes
        .iter()
        .map(|node| {
            let Op::Eltwise { op, spec } = &node.op else {
                return None;
            };
            let operands = node
                .sources
                .iter()
                .map(|s| Some((dtypes[s.node]?, known[s.node][s.output].as_deref()?)))
                .collect::<Option<Vec<_>>>()?;
            PreparedOp::new(*op, &operands, spec).ok()
        })
        .collect()
}

impl Model {
    /// Loads `xml_path` and its weights: `bin_path`, or the `.xml`'s sibling with the
    /// extension `.bin`. The weights are read only if the model has a Const.
    ///
    /// # Errors
    /// [`IrError::Io`] if the `.xml` cannot be read, [`IrError::MissingWeights`] if a Const
    /// needs a `.bin` that cannot be read, and every check of [`Model::from_xml`].
    ///
    /// ```no_run
    /// let model = bcast::ir::Model::load("model.xml", None)?;
    /// for input in model.inputs() {
    ///     println!("{}: {} {}", input.name, input.dtype, input.shape);
    /// }
    /// # Ok::<(), bcast::ir::IrError>(())
    /// ```
    pub fn load(xml_path: impl AsRef<Path>, bin_path: Option<&Path>) -> Result<Model, IrError> {
        let xml_path = xml_path.as_ref();
        let io = |source| IrError::Io {
            path: xml_path.to_path_buf(),
            source,
        };
        // Only a regular file, and only up to a bound: never a FIFO, a device or /dev/zero.
        let (mut file, len) = files::open_regular(xml_path).map_err(io)?;
        if len > MAX_XML_BYTES {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "the .xml is {len} bytes; bcast reads models of at most {MAX_XML_BYTES} bytes"
                ),
            )));
        }
        let bytes = files::read_up_to(&mut file, len, true).map_err(io)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("stream did not contain valid UTF-8: {e}"),
            ))
        })?;
        let net = xml::parse(&text, &xml_path.display().to_string())?;
        let bin_path: PathBuf =
            bin_path.map_or_else(|| xml_path.with_extension("bin"), Path::to_path_buf);
        let bin = match net.layers.iter().find(|l| l.layer.kind == "Const") {
            Some(first_const) => {
                read_weights(&net, &bin_path).map_err(|source| IrError::MissingWeights {
                    layer: first_const.layer.clone(),
                    path: bin_path.clone(),
                    source,
                })?
            }
            None => Vec::new(),
        };
        Model::from_net(net, &bin)
    }

    /// Builds a model from the text of an `.xml` and the bytes of its `.bin`.
    ///
    /// # Errors
    /// Every check described in the [module documentation](self): malformed XML, an IR
    /// version other than 10 or 11, an unsupported layer type or element type, a bad
    /// attribute, a Const outside the weights, an edge to a missing layer or port, an
    /// unconnected or doubly connected input, a cycle, no Result, two Parameters or two
    /// Results with one name, and, for models whose Parameters are static, any error
    /// [`Model::run`] would find in the layers.
    pub fn from_xml(xml_text: &str, weights: &[u8]) -> Result<Model, IrError> {
        Model::from_net(xml::parse(xml_text, "<memory>")?, weights)
    }

    fn from_net(net: xml::RawNet, bin: &[u8]) -> Result<Model, IrError> {
        let graph = graph::build(net, bin)?;
        let (known, dtypes, partials, outputs) = {
            let outcome = eval::evaluate(&graph, &Pass::Infer, None)?;
            let outputs = graph
                .results
                .iter()
                .zip(&outcome.results)
                .map(|(&r, value)| {
                    let node = &graph.nodes[r];
                    TensorInfo {
                        name: node.layer.name.clone(),
                        dtype: value.dtype(),
                        shape: meet(&value.partial(), &node.inputs[0].dims),
                    }
                })
                .collect();
            let partials = outcome
                .partials
                .iter()
                .zip(&graph.nodes)
                .map(|(ports, node)| {
                    ports
                        .iter()
                        .zip(&node.outputs)
                        .map(|(p, port)| p.as_ref().map(|p| meet(p, &port.dims)))
                        .collect()
                })
                .collect();
            (outcome.shapes, outcome.dtypes, partials, outputs)
        };
        let inputs = graph
            .parameters
            .iter()
            .map(|&p| {
                let node = &graph.nodes[p];
                match &node.op {
                    Op::Parameter { dtype, shape } => TensorInfo {
                        name: node.layer.name.clone(),
                        dtype: *dtype,
                        shape: shape.clone(),
                    },
                    _ => unreachable!("parameters are Parameter nodes"),
                }
            })
            .collect();
        let fusion = fuse::plan(&graph);
        let prepared = prepare(&graph, &known, &dtypes);
        Ok(Model {
            graph,
            fusion,
            prepared,
            known,
            dtypes,
            partials,
            inputs,
            outputs,
        })
    }

    /// The `<net name>`.
    pub fn name(&self) -> &str {
        &self.graph.name
    }

    /// The IR version, 10 or 11.
    pub fn ir_version(&self) -> u32 {
        self.graph.ir_version
    }

    /// The Parameters, in the order of the `.xml`.
    pub fn inputs(&self) -> &[TensorInfo] {
        &self.inputs
    }

    /// The Results, in the order of the `.xml`.
    pub fn outputs(&self) -> &[TensorInfo] {
        &self.outputs
    }

    /// Runs the model: one tensor per Parameter, keyed by its name; returns one
    /// `(Result name, tensor)` per Result, in [`Model::outputs`] order.
    ///
    /// Each chain of element-wise layers ([`Model::chains`]) runs fused, as one
    /// [`Expression`](crate::Expression): one pass over its output, no intermediate tensor.
    /// The outputs are bit for bit those of [`Model::run_unfused`].
    ///
    /// # Errors
    /// [`IrError::MissingInput`] for a Parameter without a tensor, [`IrError::UnknownInput`]
    /// for a name no Parameter has, [`IrError::InputMismatch`] for a tensor of another
    /// element type or shape than its Parameter, and any error of a layer: a Broadcast rule,
    /// a bad `target_shape`, computed dims that differ from the `.xml`'s.
    pub fn run(&self, inputs: &HashMap<String, Tensor>) -> Result<Vec<(String, Tensor)>, IrError> {
        self.run_with(inputs, Some(&self.fusion))
    }

    /// [`Model::run`] layer by layer: every element-wise layer into its own tensor, as before
    /// fusion (the reference fused runs are compared with).
    ///
    /// # Errors
    /// As [`Model::run`].
    pub fn run_unfused(
        &self,
        inputs: &HashMap<String, Tensor>,
    ) -> Result<Vec<(String, Tensor)>, IrError> {
        self.run_with(inputs, None)
    }

    fn run_with(
        &self,
        inputs: &HashMap<String, Tensor>,
        fusion: Option<&Fusion>,
    ) -> Result<Vec<(String, Tensor)>, IrError> {
        if let Some(name) = inputs
            .keys()
            .find(|k| !self.inputs.iter().any(|i| &i.name == *k))
        {
            return Err(IrError::UnknownInput {
                name: name.clone(),
                known: self
                    .inputs
                    .iter()
                    .map(|i| i.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let tensors = self
            .graph
            .parameters
            .iter()
            .map(|&p| {
                let layer = &self.graph.nodes[p].layer;
                inputs
                    .get(&layer.name)
                    .ok_or_else(|| IrError::MissingInput {
                        layer: layer.clone(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let pass = Pass::Run {
            inputs: tensors,
            known: &self.known,
            prepared: &self.prepared,
        };
        let outcome = eval::evaluate(&self.graph, &pass, fusion)?;
        Ok(self
            .outputs
            .iter()
            .zip(outcome.results)
            .map(|(info, value)| {
                let tensor = match value {
                    Value::Tensor(t) => t.into_owned(),
                    Value::Meta { .. } => unreachable!("a run computes every value"),
                };
                (info.name.clone(), tensor)
            })
            .collect())
    }

    /// A readable listing of the model: inputs, outputs, and every layer in run order with
    /// its attributes, sources and shape.
    pub fn describe(&self) -> String {
        describe::describe(self)
    }

    /// Every layer in run order, with what [`Model::describe`] prints of it.
    pub fn layers(&self) -> Vec<LayerSummary> {
        describe::layers(self)
    }

    /// The chains of element-wise layers that [`Model::run`] runs fused, in run order.
    pub fn chains(&self) -> Vec<ChainSummary> {
        describe::chains(self)
    }
}

/// What is known of a port's shape: the inferred partial shape narrowed by the dims the
/// `.xml` declares (which load time checked to meet it). A port with no `<dim>` on a shape
/// not known statically declares nothing.
fn meet(inferred: &crate::PartialShape, declared: &IrShape) -> IrShape {
    let declared = declared.declared_dynamic().to_partial();
    let shape = match (inferred.dims(), declared.dims()) {
        (Some(i), Some(d)) if i.len() == d.len() => crate::PartialShape::Ranked(
            i.iter()
                .zip(d)
                .map(|(a, b)| a.intersect(*b).unwrap_or(*a))
                .collect(),
        ),
        (None, Some(_)) => declared,
        _ => inferred.clone(),
    };
    IrShape::from_partial(&shape)
}

/// The largest `.xml` [`Model::load`] reads: 256 MiB (a model of Broadcast layers is a few
/// kilobytes).
pub const MAX_XML_BYTES: u64 = 256 << 20;

/// Reads the part of the weights file the Consts of `net` declare (the largest
/// `offset + size`), never more: a `.bin` that is a FIFO, a device or a symlink to one is
/// refused, and a longer file is read only as far as needed. A shorter one is read whole, and
/// the Const that reaches past its end is named when the model is built.
fn read_weights(net: &xml::RawNet, path: &Path) -> std::io::Result<Vec<u8>> {
    let number = |l: &xml::RawLayer, name: &str| -> u64 {
        l.attr(name)
            .and_then(|t| t.trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    let needed = net
        .layers
        .iter()
        .filter(|l| l.layer.kind == "Const")
        .map(|l| number(l, "offset").saturating_add(number(l, "size")))
        .max()
        .unwrap_or(0);
    let (mut file, len) = files::open_regular(path)?;
    files::read_up_to(&mut file, needed.min(len), true)
}

/// `.npy` has no bfloat16, so bcast stores a bf16 tensor in `.npy` as its uint16 bit
/// patterns. This turns a bf16 tensor into those bits; any other tensor is returned as is.
pub fn bf16_to_npy_bits(t: Tensor) -> Tensor {
    match t {
        Tensor::BF16(a) => Tensor::U16(a.mapv(|v| v.to_bits())),
        other => other,
    }
}

/// The inverse of [`bf16_to_npy_bits`] for a value bound for a `want`-typed input: uint16
/// bits become bf16 when `want` is bf16; anything else is returned as is (the model's own
/// type check then names a mismatch).
pub fn bf16_from_npy_bits(t: Tensor, want: DType) -> Tensor {
    match (want, t) {
        (DType::BF16, Tensor::U16(bits)) => Tensor::BF16(bits.mapv(half::bf16::from_bits)),
        (_, t) => t,
    }
}

#[cfg(test)]
mod deep {
    use super::*;
    use ndarray::{ArrayD, IxDyn};

    /// A Parameter `x` of shape `[?, 3]` (a dynamic dim: the partial-shape pass runs on
    /// every layer), then `n` Add layers, each adding `x` to the layer before, then a Result.
    fn chain_of_adds(n: usize) -> String {
        let port = |id: usize| {
            format!(r#"<port id="{id}" precision="I64"><dim>-1</dim><dim>3</dim></port>"#)
        };
        let mut layers = format!(
            r#"<layer id="0" name="x" type="Parameter" version="opset1"><data shape="?,3" element_type="i64"/><output>{}</output></layer>"#,
            port(0)
        );
        let mut edges = String::new();
        for k in 1..=n {
            layers += &format!(
                r#"<layer id="{k}" name="a{k}" type="Add" version="opset1"><data auto_broadcast="numpy"/><input>{}{}</input><output>{}</output></layer>"#,
                port(0),
                port(1),
                port(2)
            );
            let from_port = if k == 1 { 0 } else { 2 };
            edges += &format!(
                r#"<edge from-layer="{}" from-port="{from_port}" to-layer="{k}" to-port="0"/><edge from-layer="0" from-port="0" to-layer="{k}" to-port="1"/>"#,
                k - 1
            );
        }
        layers += &format!(
            r#"<layer id="{r}" name="y" type="Result" version="opset1"><input>{}</input></layer>"#,
            port(0),
            r = n + 1
        );
        edges += &format!(
            r#"<edge from-layer="{n}" from-port="2" to-layer="{}" to-port="0"/>"#,
            n + 1
        );
        format!(
            r#"<?xml version="1.0"?><net name="deep" version="11"><layers>{layers}</layers><edges>{edges}</edges></net>"#
        )
    }

    /// Real models' runs of element-wise layers are tens of layers, their graphs a few
    /// thousand deep: 20,000 layers in one chain goes through the reader, the graph passes
    /// (order, partial shapes, fusion into chains of at most 32), the description and a run,
    /// none of which recurses on depth. Expected: x * (n + 1), by arithmetic.
    #[test]
    fn a_chain_of_twenty_thousand_layers_loads_describes_and_runs() {
        let n = 20_000;
        let model = Model::from_xml(&chain_of_adds(n), &[]).unwrap();
        assert_eq!(model.outputs()[0].shape.to_string(), "[?,3]");
        assert!(model.chains().len() >= n / fuse::MAX_CHAIN_LAYERS);
        assert!(model.describe().contains("a20000"));
        let x =
            Tensor::I64(ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1, -2, 3, 0, 5, 7]).unwrap());
        let want: Vec<i64> = [1, -2, 3, 0, 5, 7]
            .iter()
            .map(|v| v * (n as i64 + 1))
            .collect();
        let inputs = HashMap::from([("x".to_string(), x)]);
        for run in [Model::run, Model::run_unfused] {
            let out = run(&model, &inputs).unwrap();
            assert_eq!(
                out[0].1,
                Tensor::I64(ArrayD::from_shape_vec(IxDyn(&[2, 3]), want.clone()).unwrap())
            );
        }
    }
}
