//! Splitting the flat output into contiguous chunks and running them on rayon.
//!
//! Each chunk is an independent range of the output: its writer finds its starting position
//! once and walks from there, so chunks need not fall on row boundaries. How many threads,
//! how large the chunks and when to stay on the calling thread come from the machine
//! ([`Policy`]).
//!
//! The hand-off: the calling thread opens an `in_place_scope` on the pool, spawns one job per
//! extra thread, and then works itself; every participant claims the next chunk from a shared
//! list until none is left. So there is no tree of `join` splits (each waking one thread), the
//! caller's core is not idle while the others wake, and a thread that wakes late finds less
//! left to do. A caller outside the pool hands a long run to it instead
//! ([`Strategy::pool_handoff_from`]): the pool's threads write every chunk while the caller
//! waits. Which thread writes a chunk never changes what is written.

use std::sync::Mutex;

use super::guard::guarded;
use super::machine::{Policy, MIN_CHUNK_BYTES};
use super::rows::{with_row_settings, RowSettings};
use super::strategy::Strategy;
use super::team::{as_job_share, in_job, ParallelFor, Team};
use super::Parallelism;
use crate::error::BroadcastError;

/// Chunks per thread: a few, so a thread slowed by another process does not hold up the end.
pub(crate) const CHUNKS_PER_THREAD: usize = 4;

/// Chunk edges fall on page boundaries of the output when the element size allows, so no two
/// threads share a cache line or first-touch the same page.
const CHUNK_ALIGN_BYTES: usize = 4096;

/// Knobs for tests of an executor's chunking, read on the calling thread when a run starts
/// (so parallel tests do not see each other's settings). Only in builds with the `testing`
/// feature (this crate's own tests): they make runs slower, and `panic_in_chunk` injects a
/// fault. Without it every run reads [`Tuning::DEFAULT`], a constant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tuning {
    /// Split every non-serial run into chunks of exactly this many elements, whatever the
    /// output size (the first chunk included: no alignment).
    pub chunk_elems: Option<usize>,
    /// Panic inside the worker that writes chunk number `n` (to test that a worker's panic
    /// becomes [`BroadcastError::WorkerPanicked`]).
    pub panic_in_chunk: Option<usize>,
    /// Split outputs from this many bytes on, with the default chunking (instead of the
    /// machine's [`Policy::serial_below_bytes`]), so tests reach the default chunking with
    /// small outputs.
    pub serial_below_bytes: Option<usize>,
    /// Force non-temporal (streaming) stores on or off for plain-data outputs, whatever
    /// their size (`None`: the machine's [`Policy::stream_from_bytes`] decides).
    pub stream_stores: Option<bool>,
}

impl Tuning {
    const DEFAULT: Tuning = Tuning {
        chunk_elems: None,
        panic_in_chunk: None,
        serial_below_bytes: None,
        stream_stores: None,
    };
}

#[cfg(any(test, feature = "testing"))]
thread_local! {
    static TUNING: std::cell::Cell<Tuning> = const { std::cell::Cell::new(Tuning::DEFAULT) };
}

/// The knobs in force: a test's, in a `testing` build; else none.
#[inline(always)]
fn tuning() -> Tuning {
    #[cfg(any(test, feature = "testing"))]
    {
        TUNING.with(std::cell::Cell::get)
    }
    #[cfg(not(any(test, feature = "testing")))]
    {
        Tuning::DEFAULT
    }
}

/// Runs `f` with `tuning` in force for runs started on this thread.
#[cfg(any(test, feature = "testing"))]
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
    match par.threads_only() {
        Parallelism::Serial => 1,
        Parallelism::Auto if rayon::current_thread_index().is_some() => {
            rayon::current_num_threads()
        }
        Parallelism::Auto => Team::global().map_or(1, |t| t.threads()),
        Parallelism::Pool(pool) => pool.current_num_threads(),
        Parallelism::Team(team) => team.threads(),
        Parallelism::Host(host) => host.threads().max(1),
        Parallelism::Context(_) => unreachable!("resolved to its threads"),
    }
}

/// Whether a plain-data output of `bytes` is written with non-temporal stores: from the
/// machine's [`Policy::stream_from_bytes`] on, unless a [`Tuning`] forces it.
pub(crate) fn stream_stores(bytes: usize) -> bool {
    tuning()
        .stream_stores
        .unwrap_or_else(|| bytes >= Policy::get().stream_from_bytes)
}

/// Whether a whole element-wise op streams a plain-data output of `bytes`: where the
/// call's strategy says so ([`super::Strategy::stream_eltwise`]), as [`stream_stores`]
/// decides; a [`Tuning`] that forces streaming on or off decides whatever the strategy.
pub(crate) fn stream_eltwise_stores(bytes: usize, strategy: &Strategy) -> bool {
    tuning()
        .stream_stores
        .unwrap_or_else(|| strategy.stream_eltwise && bytes >= Policy::get().stream_from_bytes)
}

/// Whether a job of `bytes` runs on the calling thread whatever the parallelism: too small
/// for two shares of the least any pool is given ([`Policy::min_dispatch_bytes`]; a rayon
/// pool's line, [`Policy::serial_below_bytes`], is higher) and below the streaming
/// threshold, with no [`Tuning`] in force. The executors then skip their choice of threads,
/// chunks and stores: for the smallest calls that choice costs more than the work.
#[inline]
pub(crate) fn runs_inline(bytes: usize) -> bool {
    let policy = Policy::get();
    bytes < policy.least_parallel_bytes().min(policy.stream_from_bytes)
        && tuning() == Tuning::DEFAULT
}

/// The threads an executor uses on `par` for a job of about `bytes` of memory traffic.
///
/// On a rayon pool, the machine's [`Policy::threads_for`] (with a [`Tuning`]'s
/// `serial_below_bytes` in force): rayon's workers park at once and each call pays their
/// wake-up. On bcast's [`Team`] or a host's [`ParallelFor`], the cost model
/// [`Policy::threads_for_dispatch`]: a thread is used for as much work as its start-up cost is
/// worth. 1 for [`Parallelism::Serial`] and inside a share of a bcast job.
#[must_use]
pub fn threads_for(bytes: usize, par: Parallelism<'_>) -> usize {
    let policy = Policy::get();
    match par.threads_only() {
        Parallelism::Serial => 1,
        _ if in_job() => 1,
        Parallelism::Pool(pool) => threads_for_rayon(bytes, pool.current_num_threads()),
        Parallelism::Auto if rayon::current_thread_index().is_some() => {
            threads_for_rayon(bytes, rayon::current_num_threads())
        }
        // The default team is only asked for once the work is worth a second thread on the
        // cheapest team, so a small call never touches it.
        Parallelism::Auto if bytes < policy.least_parallel_bytes() => 1,
        Parallelism::Auto => Team::global().map_or(1, |t| threads_on_team(&policy, bytes, &t)),
        // Below two of a hot team's least shares nothing is asked of the team (not even the
        // clock): one thread is all the cost model could give.
        Parallelism::Team(_) | Parallelism::Host(_) if bytes < policy.least_parallel_bytes() => 1,
        Parallelism::Team(team) if !team.usable() => 1,
        Parallelism::Team(team) => threads_on_team(&policy, bytes, team),
        Parallelism::Host(host) => {
            policy.threads_for_dispatch(bytes, host.threads(), host.dispatch_cost_ns())
        }
        Parallelism::Context(_) => unreachable!("resolved to its threads"),
    }
}

/// The threads `team` is given for `bytes` of work: the cost model at what starting its
/// workers costs now. Where they have parked and the work is worth them only hot, the call
/// runs alone and wakes them for the calls after it.
fn threads_on_team(policy: &Policy, bytes: usize, team: &Team) -> usize {
    let threads = policy.threads_for_dispatch(bytes, team.threads(), team.dispatch_cost_ns());
    if threads == 1 && policy.threads_for_dispatch(bytes, team.threads(), 0) > 1 {
        team.wake();
    }
    threads
}

/// The threads a rayon pool of `available` threads is given for `bytes` of work: the
/// machine's [`Policy::threads_for`], with a [`Tuning`]'s `serial_below_bytes` in force.
pub(crate) fn threads_for_rayon(bytes: usize, available: usize) -> usize {
    let policy = Policy::get();
    Policy {
        serial_below_bytes: tuning()
            .serial_below_bytes
            .unwrap_or(policy.serial_below_bytes),
        ..policy
    }
    .threads_for(bytes, available)
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
    let tuning = tuning();
    let bytes = dst.len().saturating_mul(cost_bytes);
    let policy = Policy::get();
    let strategy = par.strategy();
    let rows = RowSettings::of(&strategy, std::mem::size_of_val(dst));
    let par = par.threads_only();
    let threads = match par {
        Parallelism::Serial => 1,
        _ if in_job() => 1,
        _ if tuning.chunk_elems.is_some() => threads(par).max(2),
        _ => threads_for(bytes, par),
    };
    if threads <= 1 {
        with_row_settings(rows, || write(0, dst));
        return Ok(());
    }
    // The default outside a rayon pool is the process's team, found only now that the work
    // is known to be worth it.
    let global;
    let par = match par {
        Parallelism::Auto if rayon::current_thread_index().is_none() => match Team::global() {
            Some(team) => {
                global = team;
                Parallelism::Team(&global)
            }
            None => {
                with_row_settings(rows, || write(0, dst));
                return Ok(());
            }
        },
        par => par,
    };
    let chunks = match tuning.chunk_elems {
        Some(n) => split_even(dst, n.max(1)),
        None => split(dst, cost_bytes, threads, policy.max_chunk_bytes),
    };
    let jobs = threads.min(chunks.len());
    let run_chunk = |i: usize, start: usize, chunk: &mut [S]| {
        if tuning.panic_in_chunk == Some(i) {
            panic!("injected panic in chunk {i}");
        }
        with_row_settings(rows, || write(start, chunk));
    };
    if let Parallelism::Team(_) | Parallelism::Host(_) = par {
        // A fixed share per participant, as OpenMP's static schedule: participant `p` always
        // writes the same part of an output (the `p`-th run of chunks), so an op called again
        // on the same buffers finds its part in its own core's cache. Claimed chunks moved
        // between cores from call to call, and two threads ran no faster than one below the
        // L2 size.
        let shares = static_shares(chunks, jobs);
        let share = |p: usize| {
            let mine = std::mem::take(&mut *shares[p].lock().unwrap_or_else(|e| e.into_inner()));
            for (i, (start, chunk)) in mine {
                run_chunk(i, start, chunk);
            }
        };
        return guarded(|| match par {
            Parallelism::Team(team) => team.run(jobs, &share),
            Parallelism::Host(host) => run_on_host(host, jobs, &share),
            _ => unreachable!("a team or a host"),
        });
    }
    let next = Mutex::new(chunks.into_iter().enumerate());
    let work = || loop {
        // A poisoned lock means another participant panicked inside `write`, never while
        // holding the lock; the list itself is intact.
        let claimed = next.lock().unwrap_or_else(|e| e.into_inner()).next();
        let Some((i, (start, chunk))) = claimed else {
            return;
        };
        run_chunk(i, start, chunk);
    };
    let work = &work;
    let hand_off = bytes >= strategy.pool_handoff_from;
    guarded(|| match par {
        // `scope` from outside the pool runs its body on a pool thread, the caller blocked.
        Parallelism::Pool(pool) if hand_off && pool.current_thread_index().is_none() => {
            pool.scope(|scope| spawn_and_work(scope, jobs, work));
        }
        Parallelism::Pool(pool) => pool.in_place_scope(|scope| spawn_and_work(scope, jobs, work)),
        _ if hand_off && rayon::current_thread_index().is_none() => {
            rayon::scope(|scope| spawn_and_work(scope, jobs, work));
        }
        _ => rayon::in_place_scope(|scope| spawn_and_work(scope, jobs, work)),
    })
}

/// The chunk list (numbered) cut into `jobs` contiguous runs, as even in elements as whole
/// chunks allow.
type Share<'d, S> = Mutex<Vec<(usize, (usize, &'d mut [S]))>>;

fn static_shares<S>(chunks: Vec<(usize, &mut [S])>, jobs: usize) -> Vec<Share<'_, S>> {
    let jobs = jobs.max(1);
    let total = chunks.iter().map(|(_, c)| c.len()).sum::<usize>().max(1);
    let mut shares: Vec<Share<'_, S>> = (0..jobs).map(|_| Mutex::new(Vec::new())).collect();
    for (i, (start, c)) in chunks.into_iter().enumerate() {
        // A chunk goes to the participant whose `total / jobs` elements hold its middle, not
        // by its number: the chunks are not all of one size (the first takes the unaligned
        // head, the last the rest), and three chunks of a small output numbered 0, 1 | 2 gave
        // the second thread an eighth of the work.
        // `start` counts from the output's first element (`split`, `split_even`).
        let middle = start + c.len() / 2;
        let p = (middle.saturating_mul(jobs) / total).min(jobs - 1);
        shares[p]
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .push((i, (start, c)));
    }
    shares
}

/// Runs `work` as `jobs` tasks of the host's parallel-for. Each task is marked as a share of
/// a job (a bcast call inside it stays on its thread) and catches its own panic, which is
/// raised again here once the host has returned: a host written in C must never see one.
fn run_on_host(host: &dyn ParallelFor, jobs: usize, work: &(impl Fn(usize) + Sync)) {
    let panic: Mutex<Option<Box<dyn std::any::Any + Send>>> = Mutex::new(None);
    let task = |p: usize| {
        let run = std::panic::AssertUnwindSafe(|| as_job_share(|| work(p)));
        if let Err(payload) = std::panic::catch_unwind(run) {
            panic
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(payload);
        }
    };
    host.parallel_for(jobs, &task);
    if let Some(payload) = panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
        std::panic::resume_unwind(payload);
    }
}

/// Spawns `jobs - 1` participants on `scope` and joins them on the current thread.
fn spawn_and_work<'s>(scope: &rayon::Scope<'s>, jobs: usize, work: &'s (impl Fn() + Sync)) {
    for _ in 1..jobs {
        scope.spawn(move |_| work());
    }
    work();
}

/// Chunk length in elements for `len` elements of `elem_bytes` on `threads` threads: a few
/// chunks per thread, none under [`MIN_CHUNK_BYTES`] nor over `max_chunk_bytes` (one core's
/// cache), whole pages when the element size divides a page; their count a multiple of the
/// threads where it was not, which may take a chunk under the minimum (by less than half).
pub(crate) fn chunk_elems(
    len: usize,
    elem_bytes: usize,
    threads: usize,
    max_chunk_bytes: usize,
) -> usize {
    let elem_bytes = elem_bytes.max(1);
    let bytes = len.saturating_mul(elem_bytes);
    let target = bytes / threads.max(1).saturating_mul(CHUNKS_PER_THREAD).max(1);
    // At least one chunk per thread, so a small output given to a cheap team is split.
    let min_chunk = MIN_CHUNK_BYTES.min(bytes.div_ceil(threads.max(1)).max(1));
    let chunk_bytes = target.min(max_chunk_bytes).max(min_chunk);
    // As many chunks as a multiple of the threads, so that each thread's static share (a
    // team's, a host's) is as many chunks of one size: two threads on three chunks of a
    // small output write two and one.
    let count = bytes.div_ceil(chunk_bytes);
    let chunk_bytes = if threads > 1 && !count.is_multiple_of(threads) {
        bytes.div_ceil(count.next_multiple_of(threads))
    } else {
        chunk_bytes
    };
    if CHUNK_ALIGN_BYTES.is_multiple_of(elem_bytes) {
        chunk_bytes.next_multiple_of(CHUNK_ALIGN_BYTES) / elem_bytes
    } else {
        (chunk_bytes / elem_bytes).max(1)
    }
}

/// Cuts `dst` into chunks of [`chunk_elems`] whose edges fall on page-aligned addresses (the
/// first chunk absorbs the unaligned head) when `cost_bytes` is the element size.
fn split<S>(
    dst: &mut [S],
    cost_bytes: usize,
    threads: usize,
    max_chunk_bytes: usize,
) -> Vec<(usize, &mut [S])> {
    let chunk = chunk_elems(dst.len(), cost_bytes, threads, max_chunk_bytes);
    let elem_bytes = std::mem::size_of::<S>();
    let head = if elem_bytes == cost_bytes
        && elem_bytes > 0
        && CHUNK_ALIGN_BYTES.is_multiple_of(elem_bytes)
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
        let chunks = split(&mut v[1..], 4, 2, 1 << 20);
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

    /// Static shares are contiguous runs of the chunk list, each within the error a whole
    /// chunk allows of `len / jobs` elements (half the largest chunk per edge between two
    /// shares), whatever the output's size and misalignment. A node of 75,264 f32 starting
    /// 16 bytes past a page (a large `malloc`) cuts into chunks of 33,788, 32,768 and 8,708
    /// elements, which numbered shares gave out as 66,556 and 8,708.
    #[test]
    fn static_shares_are_even_in_elements() {
        let mut backing = vec![0u32; (8 << 20) + 4096];
        let page = backing.as_ptr() as usize % CHUNK_ALIGN_BYTES;
        let aligned = (CHUNK_ALIGN_BYTES - page) % CHUNK_ALIGN_BYTES / 4;
        for len in [75_264usize, 65_536, 98_304, 150_000, 1_000_003, 2_000_000] {
            for skew in [0usize, 4, 1020] {
                for jobs in 2..=4usize {
                    let dst = &mut backing[aligned + skew..aligned + skew + len];
                    let chunks = split(dst, 4, jobs, 1 << 20);
                    let sizes: Vec<usize> = chunks.iter().map(|(_, c)| c.len()).collect();
                    let largest = sizes.iter().copied().max().unwrap();
                    let shares = static_shares(chunks, jobs);
                    let mut next = 0;
                    for (p, share) in shares.into_iter().enumerate() {
                        let share = share.into_inner().unwrap();
                        let mut elems = 0;
                        for (i, (start, c)) in share {
                            assert_eq!((i, start), (next, sizes[..i].iter().sum::<usize>()));
                            next += 1;
                            elems += c.len();
                        }
                        let edges = if p == 0 || p == jobs - 1 { 1 } else { 2 };
                        let even = len / jobs;
                        assert!(
                            elems.abs_diff(even) <= edges * largest / 2 + jobs,
                            "len {len} skew {skew} jobs {jobs}: share {p} has {elems} of \
                             {len} (chunks {sizes:?})"
                        );
                    }
                    assert_eq!(next, sizes.len());
                }
            }
        }
    }

    #[test]
    fn chunks_are_never_below_the_minimum() {
        assert_eq!(chunk_elems(1 << 20, 1, 4, 1 << 20), MIN_CHUNK_BYTES);
        // Never fewer chunks than threads: a small output on a cheap team is split.
        assert_eq!(chunk_elems(1 << 20, 1, 64, 1 << 20), 16 << 10);
        assert_eq!(chunk_elems(32 << 10, 4, 2, 1 << 20) * 4, 64 << 10);
        assert_eq!(chunk_elems(64 << 20, 4, 2, 1 << 20) * 4, 1 << 20);
        assert!(chunk_elems(64 << 20, 4, 2, 64 << 20) * 4 >= (64 << 20) / 8);
        assert!(chunk_elems(10, 24, 2, 1 << 20) >= 1);
        // 384 KiB on two threads: four chunks of 96 KiB, not three of 128 KiB.
        assert_eq!(chunk_elems(98_304, 4, 2, 1 << 20), 24_576);
    }

    /// With the hand-off on, a run called from outside the pool is written by the pool's
    /// threads only; from inside the pool, and with the hand-off off, the caller takes part.
    /// Every element is written once, by whoever writes it.
    #[test]
    fn a_run_from_outside_the_pool_is_handed_to_it() {
        use super::super::Context;
        let pool = std::sync::Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .unwrap(),
        );
        let tuning = Tuning {
            chunk_elems: Some(64),
            ..Tuning::default()
        };
        for (from, inside) in [(0, false), (0, true), (usize::MAX, false)] {
            let strategy = Strategy {
                pool_handoff_from: from,
                ..Strategy::PLAIN
            };
            let mut v = vec![0u32; 4099];
            let caller = Mutex::new(None);
            let writers = Mutex::new(Vec::new());
            let mut run = || {
                *caller.lock().unwrap() = Some(std::thread::current().id());
                let ctx = Context::pool(std::sync::Arc::clone(&pool)).with_strategy(strategy);
                with_tuning(tuning, || {
                    for_each_chunk(&mut v, 4, ctx.parallelism(), |start, c| {
                        writers.lock().unwrap().push(std::thread::current().id());
                        for (i, x) in c.iter_mut().enumerate() {
                            *x += (start + i) as u32 + 1;
                        }
                    })
                })
            };
            if inside {
                pool.install(run).unwrap();
            } else {
                run().unwrap();
            }
            let what = format!("from {from}, inside {inside}");
            assert!(
                v.iter().enumerate().all(|(i, &x)| x == i as u32 + 1),
                "{what}"
            );
            let caller = caller.into_inner().unwrap().unwrap();
            let writers = writers.into_inner().unwrap();
            assert_eq!(writers.len(), 4099usize.div_ceil(64), "{what}");
            if from == 0 && !inside {
                assert!(!writers.contains(&caller), "{what}: the caller wrote");
            }
        }
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
            ..Tuning::default()
        };
        let r = with_tuning(tuning, || {
            for_each_chunk(&mut v, 1, Parallelism::Pool(&pool), |_, c| c.fill(1))
        });
        assert!(
            matches!(r, Err(BroadcastError::WorkerPanicked { reason }) if reason.contains("chunk 3"))
        );
    }
}
