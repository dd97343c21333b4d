//! The bounds of the machine a kernel is measured against, run with the executor's chunking
//! and threads: the write bound (typed fill, memset, non-temporal fill), the read+write
//! reference (memcpy), the fresh-page and fresh-fill bounds of an allocating run, and the
//! read bound of a
//! reduction.

use bcast::exec::for_each_chunk;
use bcast::{BroadcastError, Parallelism, StridePlan};

/// Fills `buf` with `value` through the executor's chunking and threads: the write bound.
///
/// # Errors
/// [`BroadcastError::WorkerPanicked`] if a worker panicked.
pub fn fill<T: Copy + Send + Sync>(
    buf: &mut [T],
    value: T,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    for_each_chunk(buf, std::mem::size_of::<T>(), par, |_, c| c.fill(value))
}

/// Sets every byte of `buf` to `byte` (`memset`) through the executor's chunking and threads.
///
/// # Errors
/// [`BroadcastError::WorkerPanicked`] if a worker panicked.
pub fn memset<T: bytemuck::Pod + Send>(
    buf: &mut [T],
    byte: u8,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    for_each_chunk(buf, std::mem::size_of::<T>(), par, |_, c| {
        bytemuck::cast_slice_mut::<T, u8>(c).fill(byte);
    })
}

/// Fills `buf` with `value` using non-temporal stores (the aligned middle of every chunk)
/// through the executor's chunking and threads: the write bound of outputs beyond the cache.
///
/// # Errors
/// [`BroadcastError::WorkerPanicked`] if a worker panicked.
pub fn fill_nt<T: bytemuck::Pod + Send + Sync>(
    buf: &mut [T],
    value: T,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    for_each_chunk(buf, std::mem::size_of::<T>(), par, |_, c| {
        bcast::exec::fill_streaming(c, value);
    })
}

/// Copies `src` into `buf` (same length) through the executor's chunking and threads.
///
/// # Errors
/// [`BroadcastError::WorkerPanicked`] if a worker panicked.
pub fn memcpy<T: Copy + Send + Sync>(
    buf: &mut [T],
    src: &[T],
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    for_each_chunk(buf, std::mem::size_of::<T>(), par, |start, c| {
        c.copy_from_slice(&src[start..start + c.len()]);
    })
}

/// An output-sized allocation advised and faulted in the way `broadcast_with` does it, with
/// one element written per 4 KiB page: what a fresh output costs before any data is written.
/// `value` makes an element that owns no heap memory (the `Vec` keeps length 0, so the
/// written elements are never dropped).
pub(super) fn fresh_pages<T: Send>(
    plan: &StridePlan,
    par: Parallelism<'_>,
    value: impl Fn() -> T + Sync,
) -> Result<Vec<T>, BroadcastError> {
    let step = (4096 / std::mem::size_of::<T>().max(1)).max(1);
    fresh_written(plan, par, step, value)
}

/// As [`fresh_pages`], with every element written by the same threads: the bound of an
/// allocating run that includes its write (page faults and zeroing, then the stores).
pub(super) fn fresh_filled<T: Send>(
    plan: &StridePlan,
    par: Parallelism<'_>,
    value: impl Fn() -> T + Sync,
) -> Result<Vec<T>, BroadcastError> {
    fresh_written(plan, par, 1, value)
}

/// An output-sized allocation with the huge-page advice, every `step`-th element written
/// with `value()` through the executor's chunking and threads.
fn fresh_written<T: Send>(
    plan: &StridePlan,
    par: Parallelism<'_>,
    step: usize,
    value: impl Fn() -> T + Sync,
) -> Result<Vec<T>, BroadcastError> {
    let mut out: Vec<T> = Vec::new();
    out.try_reserve_exact(plan.len())
        .map_err(|_| BroadcastError::Allocation {
            bytes: plan.len().saturating_mul(std::mem::size_of::<T>()),
            shape: bcast::Dims(plan.output_shape().to_vec()),
        })?;
    let spare = &mut out.spare_capacity_mut()[..plan.len()];
    bcast::exec::advise_huge_pages(spare);
    let elem_bytes = std::mem::size_of::<T>().max(1);
    for_each_chunk(spare, elem_bytes, par, |_, chunk| {
        for slot in chunk.iter_mut().step_by(step) {
            slot.write(value());
        }
    })?;
    Ok(out)
}

/// Reads every byte of `buf` (as 64-bit words, summed with wrapping) with the threads of
/// `par`, in chunks of 256 KiB: the read bound a reduction is measured against.
pub fn read_sum<T: bytemuck::Pod + Sync>(buf: &[T], par: Parallelism<'_>) -> u64 {
    use rayon::prelude::*;
    let (head, words, tail) = bytemuck::pod_align_to::<T, u64>(buf);
    let edge: u64 = bytemuck::cast_slice::<T, u8>(head)
        .iter()
        .chain(bytemuck::cast_slice::<T, u8>(tail))
        .map(|&b| u64::from(b))
        .sum();
    let chunk = 1 << 15;
    let sum_words = |w: &[u64]| w.iter().fold(0u64, |a, &b| a.wrapping_add(b));
    let body = match par.threads_only() {
        Parallelism::Serial => sum_words(words),
        // The reduction runs on rayon (a team or a host's pool leaves it on the caller).
        Parallelism::Team(_) | Parallelism::Host(_) => sum_words(words),
        Parallelism::Auto => words
            .par_chunks(chunk)
            .map(sum_words)
            .reduce(|| 0, u64::wrapping_add),
        Parallelism::Pool(pool) => pool.install(|| {
            words
                .par_chunks(chunk)
                .map(sum_words)
                .reduce(|| 0, u64::wrapping_add)
        }),
        Parallelism::Context(_) => unreachable!("resolved to its threads"),
    };
    std::hint::black_box(edge.wrapping_add(body))
}
