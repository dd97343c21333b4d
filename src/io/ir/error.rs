//! Why an IR model could not be loaded or run. Every message about a layer names its id, its
//! name and its type, so the user can find it in the `.xml`.

use std::fmt;
use std::path::PathBuf;

use crate::dtype::DType;
use crate::error::{BroadcastError, Dims};
use crate::ir::types::IrShape;

/// A layer as the user sees it in the `.xml`: `layer 3 'Broadcast_3' (Broadcast)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LayerRef {
    /// The `id` attribute.
    pub id: u64,
    /// The `name` attribute.
    pub name: String,
    /// The `type` attribute.
    pub kind: String,
}

impl fmt::Display for LayerRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "layer {} '{}' ({})", self.id, self.name, self.kind)
    }
}

/// Which side of a layer a port is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PortDirection {
    /// An `<input>` port.
    Input,
    /// An `<output>` port.
    Output,
}

impl fmt::Display for PortDirection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PortDirection::Input => "input",
            PortDirection::Output => "output",
        })
    }
}

/// Why an OpenVINO IR model could not be loaded or run.
///
/// The enum is `#[non_exhaustive]`: new checks may add variants without a breaking change.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IrError {
    /// The `.xml` could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },

    /// The `.xml` is not well-formed XML.
    #[error("{path}: not well-formed XML: {message}")]
    Xml {
        /// The file (or `<memory>`).
        path: String,
        /// The parser's message, with line and column.
        message: String,
    },

    /// The document is XML but not an IR: no `<net>`, no `<layers>`, a layer without an id, ...
    #[error("not an OpenVINO IR: {0}")]
    NotIr(String),

    /// The `<net version>` is not 10 or 11.
    #[error("IR version '{0}' is not supported (bcast reads IR versions 10 and 11)")]
    UnsupportedIrVersion(String),

    /// Two layers have the same id.
    #[error("two layers have id {id}: '{first}' and '{second}'")]
    DuplicateLayerId {
        /// The id.
        id: u64,
        /// Name of the first layer.
        first: String,
        /// Name of the second layer.
        second: String,
    },

    /// The layer's type (or its opset) is not one bcast runs.
    #[error("{layer}: type {kind} version {version} is not one bcast runs (it runs Parameter, Const, Result, Broadcast, ShapeOf, Convert, Select, LogicalNot and the element-wise layers of the op table (Add ... LogicalXor, BitwiseAnd/Or/Xor, BitwiseLeftShift/RightShift, PRelu, FakeQuantize), from opset1 to opset16)")]
    UnsupportedLayer {
        /// The layer.
        layer: LayerRef,
        /// Its type.
        kind: String,
        /// Its `version` attribute.
        version: String,
    },

    /// An attribute is missing or has a value the layer cannot take.
    #[error("{layer}: attribute '{attribute}' {problem}")]
    Attribute {
        /// The layer.
        layer: LayerRef,
        /// The attribute's name.
        attribute: String,
        /// What is wrong with it.
        problem: String,
    },

    /// An element type bcast has no type for (`u4`, `nf4`, `f8e4m3`, `dynamic`, ...).
    #[error("{layer}: element type '{name}' is not supported (bcast has boolean, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64 and string)")]
    UnsupportedElementType {
        /// The layer.
        layer: LayerRef,
        /// The name as written.
        name: String,
    },

    /// A `<port>` declaration is malformed (no id, a bad `<dim>`, a repeated id).
    #[error("{layer}: {problem}")]
    BadPort {
        /// The layer.
        layer: LayerRef,
        /// What is wrong.
        problem: String,
    },

    /// An edge names a layer id that no layer has.
    #[error("edge {from_layer}:{from_port} -> {to_layer}:{to_port}: no layer has id {missing}")]
    NoSuchLayer {
        /// `from-layer`.
        from_layer: u64,
        /// `from-port`.
        from_port: u64,
        /// `to-layer`.
        to_layer: u64,
        /// `to-port`.
        to_port: u64,
        /// The id that does not exist.
        missing: u64,
    },

    /// An edge names a port the layer does not have.
    #[error("{layer}: has no {direction} port {port} (named by edge {from_layer}:{from_port} -> {to_layer}:{to_port})")]
    NoSuchPort {
        /// The layer.
        layer: LayerRef,
        /// Input or output.
        direction: PortDirection,
        /// The port id.
        port: u64,
        /// `from-layer`.
        from_layer: u64,
        /// `from-port`.
        from_port: u64,
        /// `to-layer`.
        to_layer: u64,
        /// `to-port`.
        to_port: u64,
    },

    /// An input port has no edge into it.
    #[error("{layer}: input port {port} is not connected to anything")]
    UnconnectedInput {
        /// The layer.
        layer: LayerRef,
        /// The port id.
        port: u64,
    },

    /// An input port has more than one edge into it.
    #[error("{layer}: input port {port} has more than one edge into it")]
    MultipleEdges {
        /// The layer.
        layer: LayerRef,
        /// The port id.
        port: u64,
    },

    /// The layer has the wrong number of input or output ports for what it is.
    #[error("{layer}: has {got} {direction} ports, but {expected}")]
    PortCount {
        /// The layer.
        layer: LayerRef,
        /// Input or output.
        direction: PortDirection,
        /// What the layer needs.
        expected: String,
        /// How many it has.
        got: usize,
    },

    /// The edges form a cycle.
    #[error("the graph has a cycle through {layer}")]
    Cycle {
        /// A layer on the cycle.
        layer: LayerRef,
    },

    /// The `.bin` needed by a Const could not be read.
    #[error("{layer}: cannot read its weights file {path}: {source}")]
    MissingWeights {
        /// The first Const layer that needs the file.
        layer: LayerRef,
        /// The weights file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },

    /// A Const's `offset`/`size` reach past the end of the `.bin`.
    #[error("{layer}: its data at offset {offset} with size {size} reaches past the end of the weights ({len} bytes): the .bin is short or the offset is wrong")]
    WeightsOutOfRange {
        /// The Const layer.
        layer: LayerRef,
        /// The `offset` attribute.
        offset: u64,
        /// The `size` attribute.
        size: u64,
        /// Length of the `.bin`.
        len: usize,
    },

    /// A Const's bytes do not make a tensor of its element type and shape.
    #[error("{layer}: {problem}")]
    ConstData {
        /// The Const layer.
        layer: LayerRef,
        /// What is wrong.
        problem: String,
    },

    /// The model has no Result layer, so it computes nothing.
    #[error("the model has no Result layer")]
    NoResults,

    /// Two Parameters or two Results share a name, so inputs or outputs would be ambiguous.
    #[error("two {kind} layers are named '{name}' (ids {first} and {second})")]
    DuplicateName {
        /// `Parameter` or `Result`.
        kind: &'static str,
        /// The name.
        name: String,
        /// Id of the first.
        first: u64,
        /// Id of the second.
        second: u64,
    },

    /// A Parameter was not given a tensor.
    #[error("{layer}: no input was given for it")]
    MissingInput {
        /// The Parameter layer.
        layer: LayerRef,
    },

    /// An input was given under a name no Parameter has.
    #[error("input '{name}' does not name a Parameter of the model (its Parameters are: {known})")]
    UnknownInput {
        /// The name given.
        name: String,
        /// The Parameter names, comma-separated.
        known: String,
    },

    /// The tensor given for a Parameter has another element type or shape.
    #[error(
        "{layer}: the input given is {got_dtype} {got_shape}, but the Parameter is {dtype} {shape}"
    )]
    InputMismatch {
        /// The Parameter layer.
        layer: LayerRef,
        /// The Parameter's element type.
        dtype: DType,
        /// The Parameter's shape.
        shape: IrShape,
        /// The element type given.
        got_dtype: DType,
        /// The shape given.
        got_shape: Dims,
    },

    /// The dims written on a port differ from what bcast computes for it.
    #[error("{layer}: {direction} port {port} is declared {declared} in the .xml, but bcast computes {computed}")]
    PortShape {
        /// The layer.
        layer: LayerRef,
        /// Input or output.
        direction: PortDirection,
        /// The port id.
        port: u64,
        /// What the `.xml` says.
        declared: IrShape,
        /// What the computation gives.
        computed: Dims,
    },

    /// The precision written on a port differs from the element type bcast computes for it.
    #[error("{layer}: {direction} port {port} is declared {declared} in the .xml, but bcast computes {computed}")]
    PortType {
        /// The layer.
        layer: LayerRef,
        /// Input or output.
        direction: PortDirection,
        /// The port id.
        port: u64,
        /// What the `.xml` says.
        declared: DType,
        /// What the computation gives.
        computed: DType,
    },

    /// A `target_shape` or `axes_mapping` input is not a 1-D tensor of non-negative integers.
    #[error("{layer}: {input} {problem}")]
    ShapeInput {
        /// The Broadcast layer.
        layer: LayerRef,
        /// `target_shape` or `axes_mapping`.
        input: &'static str,
        /// What is wrong.
        problem: String,
    },

    /// The Broadcast's rule refuses the shapes.
    #[error("{layer}: {source}")]
    Broadcast {
        /// The Broadcast layer.
        layer: LayerRef,
        /// The rule that was broken (boxed: it is the largest part of this enum).
        source: Box<BroadcastError>,
    },

    /// A port's declared dims cannot hold any shape the layer may compute (found at load
    /// time, on shapes known only in part).
    #[error("{layer}: {direction} port {port} is declared {declared} in the .xml, but bcast infers {inferred}, which no shape of the declared one matches")]
    PortPartialShape {
        /// The layer.
        layer: LayerRef,
        /// Input or output.
        direction: PortDirection,
        /// The port's `id`.
        port: u64,
        /// The dims in the `.xml`.
        declared: IrShape,
        /// The partial shape bcast infers.
        inferred: crate::PartialShape,
    },

    /// An element-wise, Select or Convert layer's element types break its rule (operands of
    /// different types, a comparison on strings, a logical op on numbers, a Select cond that
    /// is not boolean, a Convert of strings).
    #[error("{layer}: {problem}")]
    ElementTypes {
        /// The layer.
        layer: LayerRef,
        /// The rule and the types that break it.
        problem: String,
    },

    /// A ShapeOf with `output_type="i32"` met a dimension beyond `i32::MAX`.
    #[error("{layer}: dimension {dim} does not fit its output type i32")]
    ShapeOfOverflow {
        /// The ShapeOf layer.
        layer: LayerRef,
        /// The dimension.
        dim: usize,
    },
}
