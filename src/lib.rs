//! # bcast: tensor Broadcast, in every mode, exactly and at memory speed
//!
//! bcast materialises a Broadcast as inference runtimes define it: numpy (one-directional),
//! bidirectional (ONNX Expand), explicit `axes_mapping`, PDPD (`axis` offset), nGraph v0
//! `broadcast_axes`, and N-ary broadcast of several tensors to their common shape.
//!
//! How it is built:
//! - a [`Mode`] names the rule; one planner per mode ([`planners`]) checks it and returns a
//!   [`StridePlan`]: the output shape plus, per output axis, the source stride (0 where
//!   broadcast), simplified;
//! - one executor ([`kernel`]) runs any plan for any [`Element`] type, bit-exactly.
//!
//! ```
//! use bcast::{broadcast, Mode};
//! use ndarray::array;
//!
//! // ONNX Expand: [3,1] with shape [2,1,6] gives [2,3,6].
//! let x = array![[1.5f32], [2.5], [-0.0]].into_dyn();
//! let y = broadcast(x.view(), &[2, 1, 6], &Mode::Bidirectional)?;
//! assert_eq!(y.shape(), &[2, 3, 6]);
//! assert!(y.iter().skip(12).take(6).all(|v| v.to_bits() == (-0.0f32).to_bits()));
//! # Ok::<(), bcast::BroadcastError>(())
//! ```
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod api;
mod auto_broadcast;
mod dtype;
mod element;
mod eltwise;
mod error;
pub mod exec;
mod infer;
#[cfg(feature = "io")]
mod io;
mod kernel;
mod mode;
mod partial_shape;
mod plan;
pub mod planners;
mod reduce;
mod shape;
mod tensor;
mod view;

/// The `f16` and `bf16` element types bcast takes, re-exported for the same reason as
/// [`ndarray`].
pub use half;
/// The ndarray that bcast's API takes and returns (`ArrayD`, `ArrayViewD`, ...). Build your
/// arrays with `bcast::ndarray` (or depend on the same ndarray version) so that both sides
/// agree on the types: two ndarray versions in one build are two different `ArrayD`s.
pub use ndarray;

pub use api::{
    broadcast, broadcast_all, broadcast_into, broadcast_into_with, broadcast_with, output_shape,
    run_plan, run_plan_into,
};
pub use auto_broadcast::{eltwise_shape, AutoBroadcast, ParseAutoBroadcastError};
pub use dtype::{DType, DTypeKind, ParseDTypeError};
pub use element::Element;
pub use eltwise::{
    binary, binary_into, binary_into_with, binary_view, binary_view_into, eltwise, eltwise_into,
    eltwise_into_with, eltwise_output_shape, eltwise_row_major, eltwise_view, eltwise_view_into,
    select, select_into, select_into_with, select_tensor, select_view, select_view_into, zip_with,
    zip_with_into, Arity, BinaryOp, EltwiseOp, ExprLiteral, ExprNode, ExprValue, Expression,
    ParseBinaryOpError, PreparedOp, ShiftDirection, TensorView, TensorViewMut,
};
pub use error::{BroadcastError, Dims};
pub use exec::Parallelism;
pub use infer::{infer_eltwise_shape, infer_shape};
#[cfg(feature = "io")]
pub use io::{ir, npy};
pub use mode::{Mode, ParseModeError, Rule, MODE_NAMES};
pub use partial_shape::{Dim, ParseShapeError, ParseShapeErrorKind, PartialShape, TargetShape};
pub use plan::StridePlan;
pub use planners::{broadcast_shapes, plan};
pub use reduce::{
    reduce_to_input, reduce_to_input_tensor, reduce_to_input_with, reduce_to_inputs,
    reduce_to_inputs_tensor, reduce_with_plan, Summable,
};
pub use shape::{axes_from_ints, checked_len, shape_from_ints};
pub use tensor::Tensor;
pub use view::{broadcast_view, broadcast_views, view_plan};

/// The README's examples run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
