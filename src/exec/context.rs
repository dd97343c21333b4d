//! The execution context: where a caller's calls run (its threads) and how (the store
//! strategy), built once and passed to every call.
//!
//! A runtime builds one per inference session; the free functions that take no context run
//! as [`Context::default`] does (the process's team outside a rayon pool, the pool inside
//! one, and the strategy of this CPU).

use std::sync::Arc;

use super::strategy::{with_strategy, Strategy};
use super::team::{ParallelFor, Team};
use super::Parallelism;

/// Where a context's calls run.
#[derive(Clone)]
enum Threads {
    Default,
    Serial,
    Pool(Arc<rayon::ThreadPool>),
    Team(Arc<Team>),
    Host(Arc<dyn ParallelFor + Send + Sync>),
}

/// Where and how calls run: their threads and their store strategy.
///
/// ```
/// use std::sync::Arc;
/// use bcast::exec::{Context, TeamBuilder};
/// use bcast::{broadcast_with, Mode};
///
/// // Once per session: a team of two threads whose workers spin 100 us after each call.
/// let team = TeamBuilder::new(2).spin(std::time::Duration::from_micros(100)).build()?;
/// let ctx = Context::team(Arc::new(team));
/// // Every call:
/// let row = bcast::ndarray::arr1(&[1.0f32, 2.0]).into_dyn();
/// let y = ctx.run(|par| broadcast_with(row.view(), &[3, 2], &Mode::Numpy, par))?;
/// assert_eq!(y.shape(), &[3, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Context {
    threads: Threads,
    strategy: Option<Strategy>,
}

impl Default for Context {
    fn default() -> Context {
        Context {
            threads: Threads::Default,
            strategy: None,
        }
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let threads = match &self.threads {
            Threads::Default => "default".to_string(),
            Threads::Serial => "serial".to_string(),
            Threads::Pool(p) => format!("rayon pool of {}", p.current_num_threads()),
            Threads::Team(t) => format!("{t:?}"),
            Threads::Host(h) => format!("host pool of {}", h.threads()),
        };
        f.debug_struct("Context")
            .field("threads", &threads)
            .field("strategy", &self.strategy)
            .finish()
    }
}

impl Context {
    /// Calls run on the calling thread only.
    #[must_use]
    pub fn serial() -> Context {
        Context {
            threads: Threads::Serial,
            strategy: None,
        }
    }

    /// Calls run on a team of bcast's own.
    #[must_use]
    pub fn team(team: Arc<Team>) -> Context {
        Context {
            threads: Threads::Team(team),
            strategy: None,
        }
    }

    /// Calls run on a caller's rayon pool.
    #[must_use]
    pub fn pool(pool: Arc<rayon::ThreadPool>) -> Context {
        Context {
            threads: Threads::Pool(pool),
            strategy: None,
        }
    }

    /// Calls run on the host's own pool, through its parallel-for.
    #[must_use]
    pub fn host(host: Arc<dyn ParallelFor + Send + Sync>) -> Context {
        Context {
            threads: Threads::Host(host),
            strategy: None,
        }
    }

    /// The same threads with this store strategy instead of the CPU's.
    #[must_use]
    pub fn with_strategy(mut self, strategy: Strategy) -> Context {
        self.strategy = Some(strategy);
        self
    }

    /// The strategy calls run with: the one given, or the CPU's.
    #[must_use]
    pub fn strategy(&self) -> Strategy {
        self.strategy.unwrap_or_else(Strategy::get)
    }

    /// The threads, as the `*_with` functions take them.
    #[must_use]
    pub fn parallelism(&self) -> Parallelism<'_> {
        match &self.threads {
            Threads::Default => Parallelism::Auto,
            Threads::Serial => Parallelism::Serial,
            Threads::Pool(p) => Parallelism::Pool(p),
            Threads::Team(t) => Parallelism::Team(t),
            Threads::Host(h) => Parallelism::Host(h.as_ref()),
        }
    }

    /// Runs `call` with the context's threads, and its strategy in force on this thread
    /// (every executor reads the strategy once, on the calling thread, when a call starts).
    pub fn run<R>(&self, call: impl FnOnce(Parallelism<'_>) -> R) -> R {
        match self.strategy {
            Some(s) => with_strategy(s, || call(self.parallelism())),
            None => call(self.parallelism()),
        }
    }
}
