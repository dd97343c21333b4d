//! Splitting the flat output into contiguous chunks and running them on rayon.
//!
//! Each chunk is an independent range of the output: its writer finds its starting position
//! once and walks from there, so chunks need not fall on row boundaries. Below
//! [`SERIAL_BELOW_BYTES`] the pool is never touched.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use rayon::prelude::*;

use super::Parallelism;
use crate::error::BroadcastError;

/// Outputs smaller than this run on the calling thread. Measured on the 2-vCPU development VM
/// (fill and 3-byte-pattern cases, serial against 2 threads with the default chunking):
/// handing work to rayon costs about 13 us there (a 1 MiB output took 14 us serially and
/// 27 us in parallel), and a second core adds only 1.2-1.8x of memory bandwidth, so 2 MiB
/// outputs still ran at 0.75-0.92 of serial speed and 4 MiB ones at 0.8-1.7; from 8 MiB on
/// parallel won in most runs.
pub(crate) const SERIAL_BELOW_BYTES: usize = 4 << 20;

/// No chunk is smaller than this, so the per-chunk start-up (one division per axis, a task
/// hand-off) stays well below a percent of the chunk's work.
pub(crate) const MIN_CHUNK_BYTES: usize = 128 * 1024;

/// Chunks per thread: a few, so a thread slowed by another process does not hold up the end.
pub(crate) const CHUNKS_PER_THREAD: usize = 4;

/// Chunk edges fall on page boundaries of the output when the element size allows, so no two
/// threads share a cache line or first-touch the same page.
const CHUNK_ALIGN_BYTES: usize = 4096;

/// Knobs for tests of an executor's chunking, read on the calling thread when a run starts
/// (so parallel tests do not see each other's settings). Not for production use: they make
/// runs slower, and `panic_in_chunk` injects a fault.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tuning {
    /// Split every non-serial run into chunks of exactly this many elements, whatever the
    /// output size (the first chunk included: no alignment).
    pub chunk_elems: Option<usize>,
    /// Panic inside the worker that writes chunk number `n` (to test that a worker's panic
    /// becomes [`BroadcastError::WorkerPanicked`]).
    pub panic_in_chunk: Option<usize>,
    /// Split outputs from this many bytes on, with the default chunking (instead of
    /// [`SERIAL_BELOW_BYTES`]), so tests reach the default chunking with small outputs.
    pub serial_below_bytes: Option<usize>,
}

impl Tuning {
    const DEFAULT: Tuning = Tuning {
        chunk_elems: None,
        panic_in_chunk: None,
        serial_below_bytes: None,
    };
}

thread_local! {
    static TUNING: Cell<Tuning> = const { Cell::new(Tuning::DEFAULT) };
}

/// Runs `f` with `tuning` in force for runs started on this thread.
pub fn with_tuning<R>(tuning: Tuning, f: impl FnOnce() -> R) -> R {
    struct Restore(Tuning);
    impl Drop for Restore {
        fn drop(&mut self) {
            TUNING.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(TUNING.with(|t| t.replace(tuning)));
    f()
}

/// The number of threads `par` may use.
#[must_use]
pub fn threads(par: Parallelism<'_>) -> usize {
    match par {
        Parallelism::Serial => 1,
        Parallelism::Auto => rayon::current_num_threads(),
        Parallelism::Pool(pool) => pool.current_num_threads(),
    }
}

/// Calls `write(start, chunk)` over `dst` cut into contiguous chunks (`start` is the chunk's
/// first element index), in parallel when `par` and the size allow it.
///
/// `cost_bytes` is how many bytes of plain writing one element costs about as much as: the
/// element size for plain data, more for elements that allocate when written.
///
/// # Errors
/// [`BroadcastError::WorkerPanicked`] if a worker panicked; the other chunks are still
/// written, and `dst` holds whatever was written.
pub fn for_each_chunk<S, F>(
    dst: &mut [S],
    cost_bytes: usize,
    par: Parallelism<'_>,
    write: F,
) -> Result<(), BroadcastError>
where
    S: Send,
    F: Fn(usize, &mut [S]) + Sync,
{
    let tuning = TUNING.with(Cell::get);
    let bytes = dst.len().saturating_mul(cost_bytes);
    let serial = match par {
        Parallelism::Serial => true,
        _ => {
            let serial_below = tuning.serial_below_bytes.unwrap_or(SERIAL_BELOW_BYTES);
            tuning.chunk_elems.is_none() && (bytes < serial_below || threads(par) <= 1)
        }
    };
    if serial {
        write(0, dst);
        return Ok(());
    }
    let chunks = match tuning.chunk_elems {
        Some(n) => split_even(dst, n.max(1)),
        None => split(dst, cost_bytes, threads(par)),
    };
    let run = || {
        chunks
            .into_par_iter()
            .enumerate()
            .for_each(|(i, (start, chunk))| {
                if tuning.panic_in_chunk == Some(i) {
                    panic!("injected panic in chunk {i}");
                }
                write(start, chunk);
            });
    };
    catch_unwind(AssertUnwindSafe(|| match par {
        Parallelism::Pool(pool) => pool.install(run),
        _ => run(),
    }))
    .map_err(|payload| BroadcastError::WorkerPanicked {
        reason: payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-text panic payload".into()),
    })
}

/// Chunk length in elements for `len` elements of `elem_bytes` on `threads` threads: a few
/// chunks per thread, none under [`MIN_CHUNK_BYTES`], whole pages when the element size
/// divides a page.
pub(crate) fn chunk_elems(len: usize, elem_bytes: usize, threads: usize) -> usize {
    let elem_bytes = elem_bytes.max(1);
    let bytes = len.saturating_mul(elem_bytes);
    let target = bytes / threads.max(1).saturating_mul(CHUNKS_PER_THREAD).max(1);
    let chunk_bytes = target.max(MIN_CHUNK_BYTES);
    if CHUNK_ALIGN_BYTES % elem_bytes == 0 {
        chunk_bytes.next_multiple_of(CHUNK_ALIGN_BYTES) / elem_bytes
    } else {
        (chunk_bytes / elem_bytes).max(1)
    }
}

/// Cuts `dst` into chunks of [`chunk_elems`] whose edges fall on page-aligned addresses (the
/// first chunk absorbs the unaligned head) when `cost_bytes` is the element size.
fn split<S>(dst: &mut [S], cost_bytes: usize, threads: usize) -> Vec<(usize, &mut [S])> {
    let chunk = chunk_elems(dst.len(), cost_bytes, threads);
    let elem_bytes = std::mem::size_of::<S>();
    let head = if elem_bytes == cost_bytes && elem_bytes > 0 && CHUNK_ALIGN_BYTES % elem_bytes == 0
    {
        let misalign = dst.as_ptr() as usize % CHUNK_ALIGN_BYTES;
        ((CHUNK_ALIGN_BYTES - misalign) % CHUNK_ALIGN_BYTES) / elem_bytes
    } else {
        0
    };
    let mut chunks = Vec::with_capacity(dst.len() / chunk + 2);
    let mut start = 0;
    let mut rest = dst;
    let mut take = head + chunk;
    while !rest.is_empty() {
        let n = take.min(rest.len());
        let (this, next) = rest.split_at_mut(n);
        chunks.push((start, this));
        start += n;
        rest = next;
        take = chunk;
    }
    chunks
}

/// Cuts `dst` into chunks of exactly `chunk` elements (the last may be shorter).
fn split_even<S>(dst: &mut [S], chunk: usize) -> Vec<(usize, &mut [S])> {
    dst.chunks_mut(chunk)
        .enumerate()
        .map(|(i, c)| (i * chunk, c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_output_in_order() {
        let mut v = vec![0u32; 1_000_003];
        let chunks = split(&mut v[1..], 4, 2);
        assert!(chunks.len() >= 2);
        let mut next = 0;
        for (start, c) in &chunks {
            assert_eq!(*start, next);
            next += c.len();
        }
        assert_eq!(next, 1_000_002);
        // Every edge after the first is page-aligned.
        for (_, c) in chunks.iter().skip(1) {
            assert_eq!(c.as_ptr() as usize % CHUNK_ALIGN_BYTES, 0);
        }
    }

    #[test]
    fn chunks_are_never_below_the_minimum() {
        assert_eq!(chunk_elems(1 << 20, 1, 64), MIN_CHUNK_BYTES);
        assert!(chunk_elems(64 << 20, 4, 2) * 4 >= (64 << 20) / 8);
        assert!(chunk_elems(10, 24, 2) >= 1);
    }

    #[test]
    fn a_worker_panic_is_an_error() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut v = vec![0u8; 100];
        let tuning = Tuning {
            chunk_elems: Some(7),
            panic_in_chunk: Some(3),
            serial_below_bytes: None,
        };
        let r = with_tuning(tuning, || {
            for_each_chunk(&mut v, 1, Parallelism::Pool(&pool), |_, c| c.fill(1))
        });
        assert!(
            matches!(r, Err(BroadcastError::WorkerPanicked { reason }) if reason.contains("chunk 3"))
        );
    }
}
