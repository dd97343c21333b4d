//! What every executor shares: how work is cut into contiguous output chunks and handed to
//! threads, how a worker's panic becomes an error, and how fresh outputs are prepared.
//!
//! The copy kernel ([`crate::broadcast`] and friends), the gradient reduction and the
//! element-wise kernel all run on these helpers; none of them imports another executor. The
//! module is public so that a runtime writing its own executor over bcast's plans can cut
//! its output the same way (a caller's rayon pool respected).

mod fresh;
mod odometer;
mod parallel;

pub use fresh::advise_huge_pages;
pub use odometer::Odometer;
pub use parallel::{for_each_chunk, threads, with_tuning, Tuning};

/// A string clone allocates; for chunking, count it as about this many bytes of plain writes.
pub const STRING_COST_BYTES: usize = 256;

/// How an executor may use threads.
#[derive(Debug, Clone, Copy, Default)]
pub enum Parallelism<'a> {
    /// Use rayon's current pool when the output is large enough to gain from it.
    #[default]
    Auto,
    /// Run on the calling thread only.
    Serial,
    /// Run on this rayon pool when the output is large enough to gain from it.
    Pool(&'a rayon::ThreadPool),
}
