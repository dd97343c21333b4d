//! bcast's team hand-shake (`src/exec/team_core.rs`), compiled against loom's atomics, lock
//! and threads when built with `--cfg loom` (and against std's otherwise, so that a plain
//! `cargo build` of the workspace builds it too).

#[cfg(loom)]
mod sync {
    pub(crate) use loom::hint::spin_loop as spin_hint;
    pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering};
    pub(crate) use loom::sync::Mutex;
    pub(crate) use loom::thread::{park, yield_now, Thread};

    /// loom's threads run on no CPU: a worker never finds itself on its caller's.
    pub(crate) fn current_cpu() -> usize {
        usize::MAX
    }

    pub(crate) fn move_off_cpu(_: usize) -> bool {
        false
    }

    /// loom has no clock: a model's workers never spin on time (their spin is zero).
    pub(crate) struct Instant;

    impl Instant {
        pub(crate) fn now() -> Instant {
            Instant
        }

        pub(crate) fn elapsed(&self) -> std::time::Duration {
            std::time::Duration::MAX
        }
    }
}

#[cfg(not(loom))]
mod sync {
    pub(crate) use std::hint::spin_loop as spin_hint;
    pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering};
    pub(crate) use std::sync::Mutex;
    pub(crate) use std::thread::{park, yield_now, Thread};
    pub(crate) use std::time::Instant;

    pub(crate) fn current_cpu() -> usize {
        usize::MAX
    }

    pub(crate) fn move_off_cpu(_: usize) -> bool {
        false
    }
}

#[path = "../../../src/exec/team_core.rs"]
#[allow(dead_code, unsafe_code)]
mod team_core;

/// Every interleaving of one caller and its workers (loom), checking that each job's
/// participants all run once, that what a worker writes is seen by the caller when `run`
/// returns (no data race: loom's cells report one), that a worker parked between jobs is
/// woken, and that shutting down ends every worker.
#[cfg(all(test, loom))]
mod model {
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;
    use std::time::Duration;

    use super::team_core::Core;

    /// Cells written by the participants of a job, each by its own (loom reports any two
    /// accesses that race).
    struct Cells(Vec<UnsafeCell<usize>>);

    // SAFETY: each participant writes only its own cell, and the caller reads them only
    // after `run` returns; loom checks exactly that.
    unsafe impl Sync for Cells {}

    impl Cells {
        fn new(n: usize) -> Cells {
            Cells((0..n).map(|_| UnsafeCell::new(0)).collect())
        }

        fn add(&self, i: usize, v: usize) {
            // SAFETY: participant `i` alone writes cell `i` during a job.
            self.0[i].with_mut(|p| unsafe { *p += v });
        }

        fn values(&self) -> Vec<usize> {
            // SAFETY: read after the job, every write to it ordered before (what loom checks).
            self.0.iter().map(|c| c.with(|p| unsafe { *p })).collect()
        }
    }

    /// A team of `workers` workers that park at once, its threads started; `body` then runs
    /// as the caller; the team is shut down and joined after.
    fn with_team(workers: usize, body: impl Fn(&Core) + Sync + Send + 'static) {
        loom::model(move || {
            let core = Arc::new(Core::new(workers, Duration::ZERO));
            let handles: Vec<_> = (1..=workers)
                .map(|i| {
                    let c = Arc::clone(&core);
                    thread::spawn(move || c.worker_loop(i))
                })
                .collect();
            core.set_threads(handles.iter().map(|h| h.thread().clone()).collect());
            body(&core);
            core.shut_down();
            for h in handles {
                h.join().unwrap();
            }
        });
    }

    /// One job over the caller and one worker: both shares run, and the worker's write is
    /// visible to the caller after `run`.
    #[test]
    fn one_job_two_participants() {
        with_team(1, |core| {
            let cells = Cells::new(2);
            core.run(2, &|i| cells.add(i, 1));
            assert_eq!(cells.values(), [1, 1]);
        });
    }

    /// Two jobs in a row, the worker parking or not in between: each share runs once per job.
    #[test]
    fn two_jobs_in_a_row() {
        with_team(1, |core| {
            let cells = Cells::new(2);
            for _ in 0..2 {
                core.run(2, &|i| cells.add(i, 1));
            }
            assert_eq!(cells.values(), [2, 2]);
        });
    }

    /// A job that uses one of two workers, then one that uses both: the idle worker never runs
    /// the first job, and both run the second.
    #[test]
    fn a_worker_left_out_then_taken() {
        with_team(2, |core| {
            let cells = Cells::new(3);
            core.run(2, &|i| cells.add(i, 1));
            core.run(3, &|i| cells.add(i, 10));
            assert_eq!(cells.values(), [11, 11, 10]);
        });
    }
}
