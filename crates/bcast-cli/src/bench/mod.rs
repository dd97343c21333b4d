//! Measuring the executor against the bounds of the machine it runs on: the case table and
//! the timing helpers behind `bcast bench` and the criterion benches.
//!
//! Not part of the library's API (hidden from the docs, may change at any time); it is
//! public only because the command line and `benches/` are separate crates.
//!
//! Every number is measured in one process, on one reused output buffer that has already
//! been written (so no page faults), with the same threads and the same chunking:
//! - **kernel**: `broadcast_into_with` (planning included) into that buffer;
//! - **fill**: the write bound: the faster of a typed `fill` with a non-zero value and a
//!   `memset` of a non-zero byte, over the same buffer;
//! - **memcpy**: copying an output-sized source into the buffer (the read+write reference);
//! - **alloc**: `broadcast_with`, which allocates a new output (page faults included; the
//!   result is dropped outside the timed region);
//! - **fresh**: the bound of the allocating path: the same allocation and huge-page advice,
//!   one element written per 4 KiB page, so the OS maps and zeroes every page and no data is
//!   written. A new output cannot be produced faster than the OS hands out zeroed pages.
//!
//! Kernel and fill runs are interleaved round by round, so a burst of load from another
//! process hits both alike; memcpy runs in rounds of its own afterwards (see `copy_rounds`).
//! Each figure is the median over the rounds.
//!
//! One file a part: `cases` (the case tables), `bounds` (the machine's bounds the kernel is
//! measured against), `timing` (timed batches, rounds and medians), `measure` (a case
//! measured) and `report` (what a measurement reports). Every item is re-exported here, at
//! the path callers use (`bcast_cli::bench::fill`, `bcast_cli::bench::CASES`, ...).

mod bounds;
mod cases;
mod measure;
mod report;
mod timing;

pub use bounds::{fill, fill_nt, memcpy, memset, read_sum};
pub use cases::{find, reduce_cases, reduce_cases_of, Case, ReduceCase, CASES};
pub use measure::{measure, measure_reduce};
pub use report::{Measurement, ReduceMeasurement};
pub use timing::{median, schedule, seconds_per_call};
