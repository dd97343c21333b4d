//! What every executor shares: how work is cut into contiguous output chunks and handed to
//! threads, how a worker's panic becomes an error, and how fresh outputs are prepared.
//!
//! The copy kernel ([`crate::broadcast`] and friends), the gradient reduction and the
//! element-wise kernel all run on these helpers; none of them imports another executor. The
//! module is public so that a runtime writing its own executor over bcast's plans can cut
//! its output the same way (a caller's rayon pool respected).

mod context;
mod fresh;
mod guard;
pub(crate) mod isa;
mod machine;
mod odometer;
mod parallel;
mod prefetch;
mod rows;
mod scratch;
mod slot;
mod source;
mod strategy;
mod stream;
mod team;

pub use context::Context;
pub use fresh::advise_huge_pages;
pub(crate) use fresh::reserve;
pub(crate) use guard::guarded;
pub use machine::{Machine, Policy};
pub use odometer::Odometer;
#[cfg(any(test, feature = "testing"))]
pub use parallel::with_tuning;
#[cfg(feature = "testing")]
pub use parallel::Tuning;
pub use parallel::{for_each_chunk, threads, threads_for};
pub(crate) use parallel::{
    runs_inline, stream_eltwise_stores, stream_stores, threads_for_rayon, CHUNKS_PER_THREAD,
};
pub(crate) use prefetch::{hint_writes, per_line, prefetch_ahead, write_distance, Ahead};
pub(crate) use rows::{row_settings, with_row_settings, RowSettings};
pub(crate) use scratch::with_zeroed;
pub(crate) use slot::{as_init, uninit_slots, Slot};
pub(crate) use source::{broadcast_source, check_shape, row_major};
pub use strategy::{ArithmeticWidth, FillStores, RowCopies, Strategy, StreamedRows, Vendor};
pub(crate) use stream::{
    copy_streaming, copy_streaming_unfenced, fill_streaming_unfenced, store_fence, stream_value,
};
pub use stream::{fill_streaming, streaming_available};
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
pub(crate) use stream::{stream_value_lines, LINE};
pub(crate) use team::in_job;
pub use team::{ParallelFor, Team, TeamBuilder, DEFAULT_SPIN};

/// A string clone allocates; for chunking, count it as about this many bytes of plain writes.
pub const STRING_COST_BYTES: usize = 256;

/// How an executor may use threads.
///
/// ```
/// use bcast::{broadcast_with, Mode, Parallelism};
/// use bcast::exec::TeamBuilder;
/// use ndarray::arr1;
///
/// let row = arr1(&[1u8, 2, 3]).into_dyn();
/// // On the calling thread only (a runtime that schedules its own work):
/// let a = broadcast_with(row.view(), &[4, 3], &Mode::Numpy, Parallelism::Serial)?;
/// // On a runtime's own rayon pool, when the output is large enough to gain from it:
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let b = broadcast_with(row.view(), &[4, 3], &Mode::Numpy, Parallelism::Pool(&pool))?;
/// // On a team of bcast's own, built once and passed to every call:
/// let team = TeamBuilder::new(2).build().unwrap();
/// let c = broadcast_with(row.view(), &[4, 3], &Mode::Numpy, Parallelism::Team(&team))?;
/// assert_eq!(a, b);
/// assert_eq!(a, c);
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub enum Parallelism<'a> {
    /// Inside a rayon pool's thread, that pool (a caller's pool is respected); elsewhere the
    /// process's own team ([`Team::global`]); each when the work is large enough to gain.
    #[default]
    Auto,
    /// Run on the calling thread only.
    Serial,
    /// Run on this rayon pool when the output is large enough to gain from it.
    Pool(&'a rayon::ThreadPool),
    /// Run on this team of bcast's own when the output is large enough to gain from it.
    Team(&'a Team),
    /// Run on the host's thread pool, through its parallel-for, when the output is large
    /// enough to gain from it.
    Host(&'a dyn ParallelFor),
    /// Run as this context says: on its threads, with its strategy ([`Context::run`] and
    /// [`Context::parallelism`] hand it out). Every other value runs with this process's
    /// strategy ([`Strategy::for_process`]).
    Context(&'a Context),
}

impl<'a> Parallelism<'a> {
    /// The threads alone: a context's threads, every other value itself.
    #[inline]
    #[must_use]
    pub fn threads_only(self) -> Parallelism<'a> {
        match self {
            Parallelism::Context(c) => c.threads(),
            par => par,
        }
    }

    /// The strategy a call on `self` runs with: a context's, else this process's.
    #[inline]
    #[must_use]
    pub fn strategy(self) -> Strategy {
        match self {
            Parallelism::Context(c) => c.strategy(),
            _ => Strategy::for_process(),
        }
    }
}
