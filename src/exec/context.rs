//! The execution context: where a caller's calls run (its threads) and how (the store
//! strategy), built once and passed to every call.
//!
//! A runtime builds one per inference session; the free functions that take no context run
//! as [`Context::default`] does (the process's team outside a rayon pool, the pool inside
//! one, and the strategy of this CPU). A call on a context reads its threads and strategy
//! from the context alone: the strategy is fixed when the context is built.

use std::sync::Arc;

use super::strategy::Strategy;
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
    strategy: Strategy,
}

impl Default for Context {
    fn default() -> Context {
        Context::of(Threads::Default)
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
    /// Calls on `threads` with this process's strategy ([`Strategy::for_process`]).
    fn of(threads: Threads) -> Context {
        Context {
            threads,
            strategy: Strategy::for_process(),
        }
    }

    /// Calls run on the calling thread only.
    #[must_use]
    pub fn serial() -> Context {
        Context::of(Threads::Serial)
    }

    /// Calls run on a team of bcast's own.
    #[must_use]
    pub fn team(team: Arc<Team>) -> Context {
        Context::of(Threads::Team(team))
    }

    /// Calls run on a caller's rayon pool.
    #[must_use]
    pub fn pool(pool: Arc<rayon::ThreadPool>) -> Context {
        Context::of(Threads::Pool(pool))
    }

    /// Calls run on the host's own pool, through its parallel-for.
    #[must_use]
    pub fn host(host: Arc<dyn ParallelFor + Send + Sync>) -> Context {
        Context::of(Threads::Host(host))
    }

    /// The same threads with this store strategy instead of the CPU's.
    #[must_use]
    pub fn with_strategy(mut self, strategy: Strategy) -> Context {
        self.strategy = strategy;
        self
    }

    /// The strategy calls run with: the one given, or the CPU's when the context was built.
    #[must_use]
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The context as the `*_with` functions take it: its threads and its strategy
    /// ([`Parallelism::Context`]).
    #[must_use]
    pub fn parallelism(&self) -> Parallelism<'_> {
        Parallelism::Context(self)
    }

    /// Its threads alone.
    pub(crate) fn threads(&self) -> Parallelism<'_> {
        match &self.threads {
            Threads::Default => Parallelism::Auto,
            Threads::Serial => Parallelism::Serial,
            Threads::Pool(p) => Parallelism::Pool(p),
            Threads::Team(t) => Parallelism::Team(t),
            Threads::Host(h) => Parallelism::Host(h.as_ref()),
        }
    }

    /// Runs `call` on the context ([`Context::parallelism`]).
    pub fn run<R>(&self, call: impl FnOnce(Parallelism<'_>) -> R) -> R {
        call(self.parallelism())
    }
}
