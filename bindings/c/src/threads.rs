//! The `threads` argument: 0 is rayon's global pool, 1 the calling thread, N > 1 a pool of N
//! threads, built on first use and kept until `bcast_release_pools`.
//!
//! Why cached: starting a pool spawns N threads and joins them when dropped, tens to
//! hundreds of microseconds per call, more than a whole broadcast of a few thousand
//! elements (see the C guide, bindings/c/README.md). A runtime calls with the same few N
//! values again and again, so one pool per N is kept; at most one pool per distinct N
//! (N <= BCAST_MAX_THREADS) is cached at a time.
//!
//! Why release: a runtime that unloads its models, forks, or checks for leaked threads wants
//! the workers gone. `bcast_release_pools` empties the cache; a call in flight holds its own
//! `Arc` of its pool, so the pool outlives the cache entry until that call returns. Whoever
//! drops the last `Arc` (the release, or the last call in flight) stops the pool and joins
//! its threads, so that "released" means the threads have exited, not only been asked to.

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;

use bcast::Parallelism;
use rayon::ThreadPool;

use crate::error::{bcast_status, guard, Error};
use crate::types::BCAST_MAX_THREADS;

/// A pool of our own and the handles of its threads (spawned by us, so that they can be
/// joined: rayon's own threads are detached).
pub(crate) struct Pool {
    /// `Some` until dropped: taken in `drop` so that it stops before its threads are joined.
    pool: Option<ThreadPool>,
    workers: Vec<JoinHandle<()>>,
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Dropping the rayon pool tells its threads to finish; nothing runs on it any more
        // (every call holds an `Arc` of this `Pool` while it runs), so each thread leaves its
        // loop at once and the joins return.
        drop(self.pool.take());
        for worker in self.workers.drain(..) {
            // A worker's panic was already reported to the call it ran for; at teardown
            // there is nothing more to say.
            let _ = worker.join();
        }
    }
}

/// The threads a call runs on.
pub(crate) enum Threads {
    Auto,
    Serial,
    Pool(Arc<Pool>),
}

impl Threads {
    pub(crate) fn parallelism(&self) -> Parallelism<'_> {
        match self {
            Threads::Auto => Parallelism::Auto,
            Threads::Serial => Parallelism::Serial,
            Threads::Pool(pool) => match &pool.pool {
                Some(pool) => Parallelism::Pool(pool),
                // Only `drop` takes it, and a `Pool` being dropped is not reachable here.
                None => Parallelism::Serial,
            },
        }
    }
}

type Cache = Mutex<HashMap<usize, Arc<Pool>>>;

static POOLS: OnceLock<Cache> = OnceLock::new();

fn cache() -> std::sync::MutexGuard<'static, HashMap<usize, Arc<Pool>>> {
    // Poisoning cannot leave the map half-changed (one insert or one take), so it is ignored.
    POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// The threads of a `threads` argument.
pub(crate) fn threads(n: usize, func: &str) -> Result<Threads, Error> {
    match n {
        0 => Ok(Threads::Auto),
        1 => Ok(Threads::Serial),
        n if n > BCAST_MAX_THREADS => Err(Error::new(
            bcast_status::BCAST_ERR_THREADS,
            format!("{func}: threads {n} is above BCAST_MAX_THREADS ({BCAST_MAX_THREADS})"),
        )),
        n => {
            let mut pools = cache();
            if let Some(pool) = pools.get(&n) {
                return Ok(Threads::Pool(Arc::clone(pool)));
            }
            let pool = Arc::new(start_pool(n).map_err(|e| {
                Error::new(
                    bcast_status::BCAST_ERR_THREADS,
                    format!("{func}: cannot start a pool of {n} threads: {e}"),
                )
            })?);
            pools.insert(n, Arc::clone(&pool));
            Ok(Threads::Pool(pool))
        }
    }
}

/// A pool of `n` threads named `bcast-<n>-<i>`, spawned here so that their handles are kept.
fn start_pool(n: usize) -> Result<Pool, rayon::ThreadPoolBuildError> {
    let mut workers = Vec::with_capacity(n);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(move |i| format!("bcast-{n}-{i}"))
        .spawn_handler(|thread| {
            let mut builder = std::thread::Builder::new();
            if let Some(name) = thread.name() {
                builder = builder.name(name.to_owned());
            }
            if let Some(size) = thread.stack_size() {
                builder = builder.stack_size(size);
            }
            workers.push(builder.spawn(|| thread.run())?);
            Ok(())
        })
        .build();
    // On an error rayon has already told the threads it started to stop; their handles are
    // dropped (detached) rather than joined.
    Ok(Pool {
        pool: Some(pool?),
        workers,
    })
}

/// Releases the thread pools that `threads` values above 1 started: each pool's threads are
/// stopped and joined, and the next call with such a `threads` value starts a new pool.
///
/// Returns `BCAST_OK`, once every released pool that no call is running on has stopped and
/// its threads have exited. A call in flight on another thread when this is called keeps
/// its pool until it returns (its result is unaffected), and that pool's threads exit
/// before that call returns. The pool of `threads` = 0 (rayon's global pool) is not bcast's
/// and is kept for the life of the process.
///
/// `BCAST_ERR_PANIC` only for a bug (no other status).
///
/// Thread-safety: may be called from any thread at any time, also while other threads run
/// bcast calls with any `threads` value.
#[no_mangle]
pub extern "C" fn bcast_release_pools() -> c_int {
    guard(|| {
        // Taken out under the lock, dropped (and joined) outside it, so that calls starting
        // meanwhile are not held up: they start new pools.
        let released: Vec<Arc<Pool>> = cache().drain().map(|(_, pool)| pool).collect();
        drop(released);
        Ok(())
    })
}
