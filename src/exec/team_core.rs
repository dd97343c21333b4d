//! The hand-shake of bcast's own thread team, on its own: how a caller publishes a job to
//! the team's workers, how they take part, spin for a while and then park, and how the
//! caller learns that every one of them is done.
//!
//! This file names its atomics, locks and threads through `super::sync`, so the same code
//! runs on `std` in the library ([`super::team`]) and on `loom`'s model checker in
//! `tests/loom_team.rs`, which explores every interleaving of these steps under the C11
//! memory model.
//!
//! The protocol (one job at a time; the caller is participant 0):
//! - `state` holds the job's epoch and how many participants it has (`epoch << 16 |
//!   participants`); the job itself is a pointer stored before `state` is (release);
//! - a worker whose index is below the participant count runs the job with its index and
//!   then decrements `remaining`; the others only note the epoch, and never touch the job;
//! - the caller runs participant 0, then waits until `remaining` is 0: the job (on the
//!   caller's stack) outlives every read of it;
//! - a worker with nothing to do spins on `state` for its budget, then announces itself
//!   asleep (`asleep[i]`), and after a sequentially consistent fence reads `state` again and
//!   parks; the caller stores `state` and after such a fence reads `asleep[i]`: of two
//!   `SeqCst` fences one comes first, so either the worker sees the new epoch or the caller
//!   sees it asleep and unparks it (a park token is never lost). Fences, not `SeqCst`
//!   accesses: the model checker showed the accesses alone let both sides read the old
//!   values, as the C11 model allows when one of them is a load that is not itself ordered by
//!   a fence.

use super::sync::{
    current_cpu, fence, move_off_cpu, park, spin_hint, AtomicBool, AtomicU64, AtomicUsize, Instant,
    Mutex, Ordering, Thread,
};

/// Participants per job are kept in the low bits of `state`.
const PARTICIPANT_BITS: u32 = 16;

/// The most participants one job may have (the caller included).
pub(crate) const MAX_PARTICIPANTS: usize = (1 << PARTICIPANT_BITS) - 1;

/// A job as the workers see it: a function of the participant index. `'static` only in
/// name: the caller erases the lifetime and waits for every participant before the borrow
/// ends.
pub(crate) type JobFn<'a> = dyn Fn(usize) + Sync + 'a;

/// A value alone on its cache line, so one worker's writes do not slow another's reads.
#[repr(align(128))]
#[derive(Default)]
pub(crate) struct Padded<T>(pub(crate) T);

/// The state the caller and the workers share.
pub(crate) struct Core {
    /// `epoch << 16 | participants` of the latest job.
    state: Padded<AtomicU64>,
    /// Workers of the current job that have not finished it.
    remaining: Padded<AtomicUsize>,
    /// Workers of the current job that have begun it (a hint, not part of the hand-shake).
    started: Padded<AtomicUsize>,
    /// The epoch of the latest job whose caller had finished its own share (a hint, not part
    /// of the hand-shake).
    caller_done: Padded<AtomicU64>,
    /// The CPU the caller of the latest job ran on when it published it (`usize::MAX`:
    /// unknown; a hint, not part of the hand-shake).
    caller_cpu: Padded<AtomicUsize>,
    /// The current job: a `*const &JobFn` (a pointer to a fat reference), stored as an
    /// address.
    job: Padded<AtomicUsize>,
    /// Per worker (index 1..): parked, or about to park.
    asleep: Vec<Padded<AtomicBool>>,
    /// Set once, when the team is dropped: every worker leaves its loop.
    shutdown: AtomicBool,
    /// The workers' handles, for unparking (index `i - 1` is worker `i`).
    threads: Mutex<Vec<Thread>>,
    /// How long a worker spins for the next job before it parks (zero: it parks at once).
    spin: std::time::Duration,
}

impl Core {
    /// The core of a team of `workers` threads besides the caller.
    pub(crate) fn new(workers: usize, spin: std::time::Duration) -> Core {
        Core {
            state: Padded(AtomicU64::new(0)),
            remaining: Padded(AtomicUsize::new(0)),
            started: Padded(AtomicUsize::new(0)),
            caller_done: Padded(AtomicU64::new(0)),
            caller_cpu: Padded(AtomicUsize::new(usize::MAX)),
            job: Padded(AtomicUsize::new(0)),
            asleep: (0..workers)
                .map(|_| Padded(AtomicBool::new(false)))
                .collect(),
            shutdown: AtomicBool::new(false),
            threads: Mutex::new(Vec::new()),
            spin,
        }
    }

    /// Workers besides the caller.
    pub(crate) fn workers(&self) -> usize {
        self.asleep.len()
    }

    /// Records the workers' handles (before the first job).
    pub(crate) fn set_threads(&self, threads: Vec<Thread>) {
        *self.threads.lock().unwrap_or_else(|e| e.into_inner()) = threads;
    }

    /// Runs `job(i)` for `i` in `0..participants`: 0 on the calling thread, the others on
    /// workers `1..participants`; returns once all have returned. One job at a time: the
    /// caller must hold the team's dispatch lock. `job` must not unwind (the team wraps it).
    pub(crate) fn run(&self, participants: usize, job: &JobFn<'_>) {
        let participants = participants.clamp(1, self.workers() + 1);
        if participants == 1 {
            job(0);
            return;
        }
        // The job is reached through this local until every worker is done with it.
        let job_ref: &JobFn<'_> = job;
        let job_at = std::ptr::from_ref(&job_ref) as usize;
        self.job.0.store(job_at, Ordering::Relaxed);
        self.remaining.0.store(participants - 1, Ordering::Relaxed);
        self.started.0.store(0, Ordering::Relaxed);
        self.caller_cpu.0.store(current_cpu(), Ordering::Relaxed);
        let epoch = (self.state.0.load(Ordering::Relaxed) >> PARTICIPANT_BITS) + 1;
        // Release: the job and the count above go with the new state.
        self.state.0.store(
            (epoch << PARTICIPANT_BITS) | participants as u64,
            Ordering::Release,
        );
        // Ordered against the workers' announcements that they park (module documentation).
        fence(Ordering::SeqCst);
        for worker in 1..participants {
            if self.asleep[worker - 1].0.load(Ordering::Relaxed) {
                self.unpark(worker);
            }
        }
        job(0);
        self.caller_done.0.store(epoch, Ordering::Relaxed);
        self.wait_done(participants - 1);
    }

    #[cold]
    fn unpark(&self, worker: usize) {
        let threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = threads.get(worker - 1) {
            t.unpark();
        }
    }

    /// Spins until every worker of the current job has finished it (they were woken before
    /// the caller began its own share, so the wait is short), yielding after a while so a
    /// worker that lost its core can get it back, and at once while a worker has not begun:
    /// a worker that has not run during the caller's whole share is most likely waiting for
    /// the caller's own core (the scheduler often starts or wakes a thread on its waker's
    /// core), and only a yield lets it run.
    fn wait_done(&self, workers: usize) {
        let mut spins = 0u32;
        while self.remaining.0.load(Ordering::Acquire) != 0 {
            spins = spins.saturating_add(1);
            if spins < 1 << 12 && self.started.0.load(Ordering::Relaxed) == workers {
                spin_hint();
            } else {
                super::sync::yield_now();
            }
        }
    }

    /// The loop of worker `index` (1-based), until the team shuts down.
    pub(crate) fn worker_loop(&self, index: usize) {
        let mut seen = 0u64;
        let mut shares_core = false;
        loop {
            let Some(state) = self.next_state(index, seen, shares_core) else {
                return;
            };
            seen = state >> PARTICIPANT_BITS;
            let participants = (state & ((1 << PARTICIPANT_BITS) - 1)) as usize;
            if index < participants {
                // SAFETY: `state` (read with acquire) carries this job's epoch and counts this
                // worker in, so the pointer stored before it is the current job's, and the
                // caller waits in `run` for this worker's decrement below before the job's
                // borrow ends.
                let job: &JobFn<'_> =
                    unsafe { *(self.job.0.load(Ordering::Relaxed) as *const &JobFn<'_>) };
                // A worker on its caller's core moves to another where it may (the caller
                // yields while a worker has not begun, so this worker got to run). One that
                // cannot, or that began only after the caller had finished its whole share
                // (the two did not run side by side), yields now and then while it spins
                // until the next job, or it would hold a core the caller waits for.
                let caller_cpu = self.caller_cpu.0.load(Ordering::Relaxed);
                let moved = caller_cpu != usize::MAX
                    && current_cpu() == caller_cpu
                    && move_off_cpu(caller_cpu);
                self.started.0.fetch_add(1, Ordering::Relaxed);
                shares_core = !moved && self.caller_done.0.load(Ordering::Relaxed) == seen;
                job(index);
                self.remaining.0.fetch_sub(1, Ordering::Release);
            }
        }
    }

    /// Waits for a `state` whose epoch is not `seen`: spins for the budget (yielding every
    /// 64 spins where `yielding`), then parks. `None` once the team shuts down.
    fn next_state(&self, index: usize, seen: u64, yielding: bool) -> Option<u64> {
        let asleep = &self.asleep[index - 1].0;
        // Restarted after every park, spurious or not: the next job is likely close behind
        // the one that woke this worker.
        let mut start = Instant::now();
        let mut spins = 0u32;
        loop {
            let state = self.state.0.load(Ordering::Acquire);
            if state >> PARTICIPANT_BITS != seen {
                return Some(state);
            }
            if self.shutdown.load(Ordering::Acquire) {
                return None;
            }
            spins = spins.wrapping_add(1);
            // The clock is read once every 64 spins: a read costs more than a spin.
            let spinning =
                !self.spin.is_zero() && (!spins.is_multiple_of(64) || start.elapsed() < self.spin);
            if spinning {
                if yielding && spins.is_multiple_of(64) {
                    super::sync::yield_now();
                } else {
                    spin_hint();
                }
                continue;
            }
            asleep.store(true, Ordering::Relaxed);
            // Ordered against the caller's publication of a job (module documentation).
            fence(Ordering::SeqCst);
            let state = self.state.0.load(Ordering::Acquire);
            if state >> PARTICIPANT_BITS == seen && !self.shutdown.load(Ordering::Acquire) {
                park();
            }
            asleep.store(false, Ordering::Relaxed);
            start = Instant::now();
        }
    }

    /// Wakes the parked workers without a job, so they spin for the next one (their spin
    /// starts again when they wake).
    pub(crate) fn wake_parked(&self) {
        fence(Ordering::SeqCst);
        for worker in 1..=self.workers() {
            if self.asleep[worker - 1].0.load(Ordering::Relaxed) {
                self.unpark(worker);
            }
        }
    }

    /// Tells every worker to leave its loop and wakes the parked ones.
    pub(crate) fn shut_down(&self) {
        self.shutdown.store(true, Ordering::Release);
        fence(Ordering::SeqCst);
        for worker in 1..=self.workers() {
            if self.asleep[worker - 1].0.load(Ordering::Relaxed) {
                self.unpark(worker);
            }
        }
    }
}
