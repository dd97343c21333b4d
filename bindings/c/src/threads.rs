//! The `threads` argument: 0 is the process's team (bcast's own, as many threads as
//! `BCAST_NUM_THREADS` or the CPUs), 1 the calling thread, N > 1 a team of N threads (the
//! caller's and N - 1 workers), built on first use and kept until `bcast_release_pools`.
//! Teams are bcast's spinning teams (`bcast::exec::Team`): a call that follows another
//! within the spin time starts its workers in well under a microsecond.
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

use bcast::exec::{Team, TeamBuilder};
use bcast::Parallelism;

use crate::error::{bcast_status, guard, Error};
use crate::types::BCAST_MAX_THREADS;

/// A team of our own (bcast's spinning team: the caller and N - 1 workers, which it stops
/// and joins when dropped).
pub(crate) struct Pool {
    team: Team,
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
            Threads::Pool(pool) => Parallelism::Team(&pool.team),
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

/// A team of `n` threads (the caller's and `n - 1` workers named `bcast-team-<i>`).
fn start_pool(n: usize) -> std::io::Result<Pool> {
    Ok(Pool {
        team: TeamBuilder::new(n).build()?,
    })
}

/// Releases the thread teams that `threads` values started (above 1: one per value; 0: the
/// process's team): each team's threads are stopped and joined, and the next call with such
/// a `threads` value starts a new team. Contexts made with `bcast_context_create` keep their
/// own teams (a context of `threads` 0 names the process's team, whichever is current).
///
/// Returns `BCAST_OK`, once every released pool that no call is running on has stopped and
/// its threads have exited. A call in flight on another thread when this is called keeps
/// its pool until it returns (its result is unaffected), and that pool's threads exit
/// before that call returns.
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
        Team::release_global();
        Ok(())
    })
}
