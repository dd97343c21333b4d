//! The `threads` argument: 0 is rayon's global pool, 1 the calling thread, N > 1 a pool of N
//! threads, built on first use and kept for the life of the process.
//!
//! Why cached: starting a pool spawns N threads and joins them when dropped, tens to
//! hundreds of microseconds per call, more than a whole broadcast of a few thousand
//! elements (see the README's C section for the measurement). A runtime calls with the same
//! few N values again and again, so one pool per N is kept; at most one pool per distinct N
//! (N <= BCAST_MAX_THREADS) ever exists.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use bcast::Parallelism;
use rayon::ThreadPool;

use crate::error::{bcast_status, Error};
use crate::types::BCAST_MAX_THREADS;

/// The threads a call runs on.
pub(crate) enum Threads {
    Auto,
    Serial,
    Pool(Arc<ThreadPool>),
}

impl Threads {
    pub(crate) fn parallelism(&self) -> Parallelism<'_> {
        match self {
            Threads::Auto => Parallelism::Auto,
            Threads::Serial => Parallelism::Serial,
            Threads::Pool(pool) => Parallelism::Pool(pool),
        }
    }
}

static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();

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
            // Poisoning cannot leave the map half-changed (one insert), so it is ignored.
            let mut pools = POOLS
                .get_or_init(Default::default)
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(pool) = pools.get(&n) {
                return Ok(Threads::Pool(Arc::clone(pool)));
            }
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(move |i| format!("bcast-{n}-{i}"))
                .build()
                .map_err(|e| {
                    Error::new(
                        bcast_status::BCAST_ERR_THREADS,
                        format!("{func}: cannot start a pool of {n} threads: {e}"),
                    )
                })?;
            let pool = Arc::new(pool);
            pools.insert(n, Arc::clone(&pool));
            Ok(Threads::Pool(pool))
        }
    }
}
