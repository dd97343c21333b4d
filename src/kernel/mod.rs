//! The executor: runs any [`StridePlan`] for any element type.
//!
//! Interface (the whole of it): `execute` for plain-data lanes written into possibly
//! uninitialised memory, `execute_clone` for strings. Both take the same plan and the
//! same [`Parallelism`]; both write every output element exactly once on success.
//!
//! How it is fast:
//! - `program` cuts the simplified plan into outer axes and one kind of row (a fill, a
//!   copy, a repeat-each-element block, or a short block tiled across a broadcast axis), with
//!   every row at least a few hundred bytes long;
//! - `walk` walks the outer axes with an odometer (additions only) and `rows` writes each
//!   row with store loops and `memcpy`;
//! - `crate::exec` cuts the flat output into contiguous chunks (at least 128 KiB, at most a
//!   core's cache, a few per thread) and hands them to threads when the machine's policy
//!   says the output is large enough; each chunk finds its start position once;
//! - outputs larger than twice the last-level cache go through an L1 window and are
//!   streamed out with non-temporal stores.
//!
//! Element sizes 1, 2, 4 and 8 share this one path (`f32`, `i32` and `u32` are all 4-byte
//! lanes), compiled twice (`isa`: baseline and AVX2, chosen at run time); strings take the
//! same walk with `clone_from` and no widening.

use std::mem::MaybeUninit;

use crate::error::BroadcastError;
use crate::exec::{
    copy_streaming, for_each_chunk, store_fence, stream_stores, Parallelism, Strategy,
    StreamedRows, STRING_COST_BYTES,
};
use crate::plan::StridePlan;

mod isa;
mod program;
mod rows;
mod slot;
mod walk;

use isa::Isa;
use program::{Program, Row, Run, Widening};
use slot::{Slot, Stores, Streamed};

/// Outputs smaller than this run the baseline copy of the walk.
const WIDE_ISA_MIN_BYTES: usize = 4096;

/// Runs `plan` over plain-data lanes.
///
/// Preconditions (checked; a violation is a bug in this crate, so it panics):
/// `src.len() == plan.source_len()`, `dst.len() == plan.len()`.
///
/// Postcondition on `Ok`: every element of `dst` has been written.
///
/// # Errors
/// [`BroadcastError::WorkerPanicked`] if a worker thread panicked (then `dst` may be only
/// partly written).
pub(crate) fn execute<U: Copy + Send + Sync + bytemuck::NoUninit>(
    plan: &StridePlan,
    src: &[U],
    dst: &mut [MaybeUninit<U>],
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    let elem_bytes = std::mem::size_of::<U>();
    // Below a few KiB the wider copy of the walk gains nothing, and its call is a visible
    // part of a tiny broadcast's time.
    let isa = if dst.len().saturating_mul(elem_bytes) >= WIDE_ISA_MIN_BYTES {
        Isa::detect()
    } else {
        Isa::Baseline
    };
    let style = Style {
        elem_bytes,
        cost_bytes: elem_bytes,
        widening: Widening::LANES,
        isa,
        strategy: par.strategy(),
    };
    if stream_stores(dst.len().saturating_mul(elem_bytes)) {
        return run_streaming(plan, src, dst, par, style);
    }
    run(plan, src, dst, par, style)
}

/// Bytes written through the cache-resident window at a time on the streaming path.
const STREAM_WINDOW_BYTES: usize = 16 << 10;

/// [`run`] for outputs larger than the last-level cache, with non-temporal stores (see
/// [`crate::exec`]'s `stream` module), which save reading every output line before writing
/// it. Where the strategy says so, long fill and copy rows are streamed straight from a
/// register or the source ([`Streamed`] slots). Every other row kind (and every row where
/// the strategy says so) is written a window at a time into a small buffer that stays in L1
/// (by the same walk, so every row kind is covered), and the window is then streamed out.
fn run_streaming<U: Copy + Send + Sync + bytemuck::NoUninit>(
    plan: &StridePlan,
    src: &[U],
    dst: &mut [MaybeUninit<U>],
    par: Parallelism<'_>,
    style: Style,
) -> Result<(), BroadcastError> {
    assert_eq!(src.len(), plan.source_len(), "executor: source length");
    assert_eq!(dst.len(), plan.len(), "executor: output length");
    if plan.is_empty() {
        return Ok(());
    }
    let program = style.program(plan);
    if style.strategy.streamed_rows == StreamedRows::Direct
        && streams_directly(&program.row, style.elem_bytes)
    {
        return for_each_chunk(dst, style.cost_bytes, par, |start, chunk| {
            style
                .isa
                .write_range(&program, src, Streamed::of_lanes(chunk), start);
            store_fence();
        });
    }
    let window = (STREAM_WINDOW_BYTES / style.elem_bytes.max(1)).max(1);
    for_each_chunk(dst, style.cost_bytes, par, |start, chunk| {
        let mut buf: Vec<MaybeUninit<U>> = vec![MaybeUninit::uninit(); window.min(chunk.len())];
        let mut at = 0;
        for out in chunk.chunks_mut(window) {
            let tmp = &mut buf[..out.len()];
            style.isa.write_range(&program, src, tmp, start + at);
            copy_streaming(out, tmp);
            at += out.len();
        }
    })
}

/// Runs `plan` over strings, cloning each source element into its output slots.
///
/// Preconditions and errors as [`execute`].
pub(crate) fn execute_clone(
    plan: &StridePlan,
    src: &[String],
    dst: &mut [String],
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    let style = Style {
        elem_bytes: std::mem::size_of::<String>(),
        cost_bytes: STRING_COST_BYTES,
        // Stamping clones from the output is no cheaper than cloning the source, and clones
        // do not vectorise.
        widening: Widening::NONE,
        isa: Isa::Baseline,
        strategy: par.strategy(),
    };
    run(plan, src, dst, par, style)
}

/// How one kind of slot is run.
#[derive(Debug, Clone, Copy)]
struct Style {
    /// Size of a slot.
    elem_bytes: usize,
    /// What writing one slot costs, in bytes of plain writes (for chunking).
    cost_bytes: usize,
    /// When rows are widened.
    widening: Widening,
    /// Which compiled copy of the walk runs.
    isa: Isa,
    /// The store strategies, read once on the calling thread.
    strategy: Strategy,
}

impl Style {
    /// The program of `plan` for this style.
    fn program<'p>(&self, plan: &'p StridePlan) -> Program<'p> {
        Program {
            stores: Stores::of(&self.strategy, plan.len().saturating_mul(self.elem_bytes)),
            ..Program::new(plan.dims(), plan.strides(), self.elem_bytes, self.widening)
        }
    }
}

/// Runs of at least this many bytes are long enough to stream without the window: a whole
/// line or more in the middle of each.
const DIRECT_RUN_MIN_BYTES: usize = 1024;

/// Whether every run of `row` is a long fill or copy, which [`Streamed`] slots write
/// straight to memory.
fn streams_directly(row: &Row<'_>, elem_bytes: usize) -> bool {
    match *row {
        Row::Run(Run::Fill | Run::Copy) => true,
        Row::Run(Run::RepeatEach { repeat, .. }) => {
            repeat.saturating_mul(elem_bytes) >= DIRECT_RUN_MIN_BYTES
        }
        _ => false,
    }
}

fn run<S: Slot>(
    plan: &StridePlan,
    src: &[S::Value],
    dst: &mut [S],
    par: Parallelism<'_>,
    style: Style,
) -> Result<(), BroadcastError> {
    assert_eq!(src.len(), plan.source_len(), "executor: source length");
    assert_eq!(dst.len(), plan.len(), "executor: output length");
    if plan.is_empty() {
        return Ok(());
    }
    let program = style.program(plan);
    for_each_chunk(dst, style.cost_bytes, par, |start, chunk| {
        style.isa.write_range(&program, src, chunk, start);
    })
}
