//! # bcast-c: the C ABI of bcast
//!
//! `include/bcast.h` (generated from this crate by cbindgen; `tests/header.rs` fails when it
//! is stale) declares every function. The families, one file each:
//! - [`plan`]: `bcast_plan_create` once, `bcast_plan_run` many times, `bcast_plan_free`;
//! - [`oneshot`]: `bcast_broadcast` and `bcast_output_shape` in one call;
//! - [`eltwise`]: `bcast_eltwise` (every op of bcast's op table, any operand count),
//!   `bcast_binary`, `bcast_select`, `bcast_eltwise_shape_n`, `bcast_eltwise_shape`
//!   (element-wise ops under broadcast, operands read in place);
//! - [`expr`]: `bcast_expr_eval` (an expression of element-wise ops as an array of
//!   `bcast_expr_node`s), `bcast_expr_text_eval` (the same as text), and their shape and type
//!   queries;
//! - [`reduce`]: `bcast_reduce_to_input` / `bcast_plan_reduce`, the gradient;
//! - [`error`]: status codes, `bcast_status_string` and `bcast_last_error_message`;
//! - [`version`]: `bcast_version` (and the header's `BCAST_VERSION_*` macros);
//! - [`threads`]: the cached thread pools and `bcast_release_pools`;
//! - [`types`]: the enums, the limits, the checked reading of the caller's arguments.
//!
//! Every function runs its body under `catch_unwind`: no panic crosses into C, a bad
//! argument (NULL, a length above the limits, an unknown code, a misaligned buffer) is a
//! status code and a message, never a crash.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]
// The ABI's names are C's.
#![allow(non_camel_case_types)]

// In this order in the header: the types, then each family of functions.
pub mod types;

pub mod error;

pub mod version;

pub mod plan;

pub mod oneshot;

pub mod reduce;

pub mod eltwise;

pub mod expr;

pub mod threads;

pub mod context;

pub use context::{
    bcast_context, bcast_context_create, bcast_context_create_host, bcast_context_free, bcast_op,
    bcast_op_create, bcast_op_free, bcast_op_output_shape, bcast_op_run, bcast_parallel_for_fn,
    bcast_task_fn,
};
pub use eltwise::{
    bcast_auto_broadcast, bcast_binary, bcast_eltwise, bcast_eltwise_shape, bcast_eltwise_shape_n,
    bcast_select, BinaryOpCode, EltwiseOpCode,
};
pub use error::{bcast_last_error_message, bcast_status, bcast_status_string};
pub use expr::{
    bcast_expr_dtype, bcast_expr_eval, bcast_expr_node, bcast_expr_shape, bcast_expr_text_dtype,
    bcast_expr_text_eval, bcast_expr_text_shape, BCAST_EXPR_MAX_NODES,
};
pub use oneshot::{bcast_broadcast, bcast_output_shape};
pub use plan::{
    bcast_plan, bcast_plan_create, bcast_plan_free, bcast_plan_output_len, bcast_plan_output_shape,
    bcast_plan_run,
};
pub use reduce::{bcast_plan_reduce, bcast_reduce_to_input};
pub use threads::bcast_release_pools;
pub use types::{bcast_mode, dtype_code, DTypeCode, BCAST_MAX_RANK, BCAST_MAX_THREADS};
pub use version::bcast_version;

/// What the header carries after its `#include`s, generated rather than parsed by cbindgen:
/// the version macros, and the enums that come from bcast's tables (`bcast_dtype` from the
/// element-type table, `bcast_eltwise_op` from the op table). The header test puts it there.
#[doc(hidden)]
pub fn header_prelude() -> String {
    version::header_macros() + &types::dtype_header() + &eltwise::op_header()
}
