//! What the rows of a run read of its strategy (the prefetch distances, the arithmetic width,
//! whether the register kernels pay at the run's size), installed on each thread for the rows
//! of that run it writes.
//!
//! A row loop is far below the call that chose the strategy (its context), and runs on
//! whichever thread the run's chunks reach; passing the two values down through every row
//! function would widen the hottest calls. So the runner ([`super::for_each_chunk`], and the
//! inline path of the element-wise writers) installs them on each participating thread around
//! the rows it runs, from the call's strategy, and puts back what was there after. Nothing
//! outside a run sets them, so two runs with different contexts, on one thread or many, each
//! read their own.

use std::cell::Cell;

use super::strategy::{ArithmeticWidth, Strategy};

/// The part of a strategy that row loops read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowSettings {
    /// [`Strategy::prefetch_ahead`].
    pub(crate) ahead: usize,
    /// [`Strategy::prefetch_writes`], 0 where the CPU has no `prefetchw`.
    pub(crate) ahead_writes: usize,
    /// [`Strategy::arithmetic`].
    pub(crate) arithmetic: ArithmeticWidth,
    /// Whether the run's output stays in the core's cache
    /// ([`super::Policy::core_resident_bytes`]): where f32 kernels in 64-byte registers may
    /// run (the strategy says whether they do).
    pub(crate) core_resident: bool,
}

impl RowSettings {
    /// What the rows of a run writing `out_bytes` of output read of `strategy`.
    #[inline]
    pub(crate) fn of(strategy: &Strategy, out_bytes: usize) -> RowSettings {
        RowSettings {
            ahead: strategy.prefetch_ahead,
            ahead_writes: super::prefetch::write_distance(strategy, out_bytes),
            arithmetic: strategy.arithmetic,
            core_resident: out_bytes <= super::Policy::get().core_resident_bytes,
        }
    }
}

thread_local! {
    // Outside every run (never read there): no prefetch, the baseline width.
    static ROWS: Cell<RowSettings> = const {
        Cell::new(RowSettings {
            ahead: 0,
            ahead_writes: 0,
            arithmetic: ArithmeticWidth::Baseline,
            core_resident: false,
        })
    };
}

/// The settings of the run whose rows this thread is writing.
#[inline(always)]
pub(crate) fn row_settings() -> RowSettings {
    ROWS.with(Cell::get)
}

/// Runs `f` (a run's rows) with `settings` in force on this thread.
#[inline]
pub(crate) fn with_row_settings<R>(settings: RowSettings, f: impl FnOnce() -> R) -> R {
    struct Restore(RowSettings);
    impl Drop for Restore {
        fn drop(&mut self) {
            ROWS.with(|r| r.set(self.0));
        }
    }
    let _restore = Restore(ROWS.with(|r| r.replace(settings)));
    f()
}
