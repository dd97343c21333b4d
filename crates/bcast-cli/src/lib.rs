//! The tools around the bcast kernel: the conformance runner (`bcast conformance`) and the
//! benchmark harness (`bcast bench`). The `bcast` binary is this crate's `main.rs`; the
//! kernel itself is the `bcast` crate, which depends on nothing here.
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod bench;
pub mod bench_eltwise;
pub mod bench_fused;
pub mod bench_model;
pub mod conformance;
