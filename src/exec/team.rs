//! bcast's own thread team, and the trait through which a host hands bcast its own pool.
//!
//! Why a team of our own: rayon parks an idle worker within microseconds and wakes it with a
//! futex, so a parallel call from outside a rayon pool pays a wake-up of tens of microseconds
//! on a virtual machine (`benches/RESULTS.md`), more than a whole 1 MiB element-wise op
//! takes on one thread. A runtime calls hundreds of such ops an inference. The team's
//! workers instead spin for a bounded time after each job (as OpenMP's and ONNX Runtime's
//! do), so a call that follows another within that time starts its second thread in well
//! under a microsecond; after the spin they park and cost nothing. The spin is the team's
//! setting ([`TeamBuilder::spin`]; zero parks at once, as `OMP_WAIT_POLICY=passive`).
//!
//! What a host does to a library with threads, and what the team does about it:
//! - **fork**: a child process has none of the parent's workers. A team remembers the
//!   process that started it; in any other process its calls run on the calling thread,
//!   and the default team ([`Team::global`]) is started anew in the child.
//! - **re-entry**: a call made from inside a job (the team's or a host's) runs on its own
//!   thread; a second caller while the team is busy runs on its own thread too. Neither
//!   waits for the team, so neither can deadlock on it.
//! - **panics**: a job's panic is caught on the worker and raised again on the caller,
//!   after every participant is done.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, TryLockError};
use std::thread::JoinHandle;
use std::time::Duration;

#[path = "team_core.rs"]
mod team_core;

use team_core::{Core, JobFn, MAX_PARTICIPANTS};

/// The names `team_core` uses, from `std` (the loom test maps them to loom's).
pub(crate) mod sync {
    pub(crate) use super::placement::{current_cpu, move_off_cpu};
    pub(crate) use std::hint::spin_loop as spin_hint;
    pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering};
    pub(crate) use std::sync::Mutex;
    pub(crate) use std::thread::{park, yield_now, Thread};
    pub(crate) use std::time::Instant;
}

/// Where a thread runs, for the team's one defence against sharing a core with its caller:
/// Linux often starts a thread, or wakes it, on its waker's core, and a worker that spins
/// there holds the core its caller needs until the scheduler preempts it (a whole call's
/// time many times over); the scheduler then seldom moves either of two threads that keep
/// handing the core to each other.
mod placement {
    /// The CPU the calling thread runs on, `usize::MAX` where unknown.
    pub(crate) fn current_cpu() -> usize {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: no preconditions; returns -1 on failure.
            let cpu = unsafe { libc::sched_getcpu() };
            usize::try_from(cpu).unwrap_or(usize::MAX)
        }
        #[cfg(not(target_os = "linux"))]
        {
            usize::MAX
        }
    }

    /// The calling thread's affinity mask, `None` where it cannot be read.
    #[cfg(target_os = "linux")]
    pub(crate) fn affinity() -> Option<libc::cpu_set_t> {
        // SAFETY: `cpu_set_t` is plain bits; all zero is the empty set.
        let mut mask: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `mask` is a writable `cpu_set_t` of `size` bytes; 0 is this thread.
        (unsafe { libc::sched_getaffinity(0, size, &raw mut mask) } == 0).then_some(mask)
    }

    /// Sets the calling thread's affinity mask (the kernel moves the thread at once where
    /// its CPU leaves the mask); whether it was set.
    #[cfg(target_os = "linux")]
    pub(crate) fn set_affinity(mask: &libc::cpu_set_t) -> bool {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `mask` is a readable `cpu_set_t` of `size` bytes; 0 is this thread (an
        // empty set is refused by the kernel with an error, not applied).
        unsafe { libc::sched_setaffinity(0, size, mask) == 0 }
    }

    /// Moves the calling thread off `cpu` where its affinity allows another CPU: takes
    /// `cpu` out of its affinity mask, which makes the kernel move it at once, and puts the
    /// mask back as it was (a thread running on an idle core stays there). Whether it moved.
    pub(crate) fn move_off_cpu(cpu: usize) -> bool {
        #[cfg(target_os = "linux")]
        {
            if cpu >= libc::CPU_SETSIZE as usize {
                return false;
            }
            let Some(original) = affinity() else {
                return false;
            };
            let mut mask = original;
            // SAFETY: `cpu` is below CPU_SETSIZE (checked above); the macros only touch bits.
            let allowed_elsewhere = unsafe {
                libc::CPU_ISSET(cpu, &mask) && {
                    libc::CPU_CLR(cpu, &mut mask);
                    libc::CPU_COUNT(&mask) > 0
                }
            };
            if !allowed_elsewhere {
                return false;
            }
            let moved = set_affinity(&mask);
            set_affinity(&original);
            moved
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = cpu;
            false
        }
    }
}

/// How long the default team's workers spin for the next job before they park, unless
/// `BCAST_SPIN_US` says otherwise.
pub const DEFAULT_SPIN: Duration = Duration::from_micros(200);

/// A host's parallel-for: how a runtime hands bcast its own thread pool (as oneDNN's
/// `threadpool_iface`, XNNPACK's `pthreadpool_t` or ONNX Runtime's `TryParallelFor`), so
/// that bcast's work runs on the runtime's threads and the two never compete for cores.
///
/// ```
/// use bcast::exec::ParallelFor;
///
/// /// A host that runs every task on the calling thread, one after another.
/// struct Inline;
/// impl ParallelFor for Inline {
///     fn threads(&self) -> usize {
///         4
///     }
///     fn parallel_for(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
///         (0..n).for_each(task);
///     }
/// }
///
/// let row = bcast::ndarray::Array::from_elem(4096, 2.0f32).into_dyn();
/// let host = Inline;
/// let y = bcast::broadcast_with(row.view(), &[256, 4096], &bcast::Mode::Numpy,
///     bcast::Parallelism::Host(&host))?;
/// assert!(y.iter().all(|&v| v == 2.0));
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub trait ParallelFor: Sync {
    /// How many tasks may run at once (the host's threads, the caller's included).
    fn threads(&self) -> usize;

    /// Runs `task(i)` once for every `i` in `0..n`, on any of the host's threads (the
    /// calling one included), and returns once every call has returned. Running them all
    /// on the calling thread, in any order, is allowed. `task` never unwinds (bcast catches
    /// its own panics).
    fn parallel_for(&self, n: usize, task: &(dyn Fn(usize) + Sync));

    /// About what starting the host's threads for one call costs, in nanoseconds: bcast
    /// gives a thread at least the work that takes that long ([`super::Policy`]'s cost
    /// model). A pool whose threads spin between jobs costs about a microsecond.
    fn dispatch_cost_ns(&self) -> u64 {
        2_000
    }
}

impl std::fmt::Debug for dyn ParallelFor + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ParallelFor({} threads)", self.threads())
    }
}

/// How many times this process's ancestors forked since the library was first asked (a
/// child's count is its parent's plus one): a team remembers the count it was started at,
/// and in a later generation its workers are not there. Counted by a `pthread_atfork` child
/// handler, so no call pays a system call to learn it.
pub(crate) fn fork_generation() -> u64 {
    #[cfg(target_os = "linux")]
    {
        use std::sync::atomic::{AtomicU64, Ordering};
        static GENERATION: AtomicU64 = AtomicU64::new(0);
        static REGISTERED: std::sync::Once = std::sync::Once::new();
        extern "C" fn in_child() {
            // Async-signal-safe: one atomic add, no allocation, no lock.
            GENERATION.fetch_add(1, Ordering::Relaxed);
        }
        REGISTERED.call_once(|| {
            // SAFETY: registers a handler with no preconditions; `in_child` is a plain
            // `extern "C"` function that lives as long as the process.
            unsafe { libc::pthread_atfork(None, None, Some(in_child)) };
        });
        GENERATION.load(Ordering::Relaxed)
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

thread_local! {
    /// Set while this thread runs a share of a parallel job (the team's, a host's or a rayon
    /// scope's): a bcast call made from there runs on its own thread.
    static IN_JOB: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is running a share of a bcast job.
pub(crate) fn in_job() -> bool {
    IN_JOB.with(std::cell::Cell::get)
}

/// Runs `f` marked as a share of a job (see [`in_job`]).
pub(crate) fn as_job_share<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            IN_JOB.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(IN_JOB.with(|c| c.replace(true)));
    f()
}

/// The default team's slot.
fn global_slot() -> std::sync::MutexGuard<'static, Option<Arc<Team>>> {
    static GLOBAL: OnceLock<Mutex<Option<Arc<Team>>>> = OnceLock::new();
    GLOBAL
        .get_or_init(|| Mutex::new(None))
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// Builds a [`Team`].
#[derive(Debug, Clone, Copy)]
pub struct TeamBuilder {
    threads: usize,
    spin: Duration,
}

impl TeamBuilder {
    /// A team of `threads` threads, the caller's included (so `threads - 1` workers are
    /// started; 0 and 1 both mean no worker), spinning [`DEFAULT_SPIN`].
    #[must_use]
    pub fn new(threads: usize) -> TeamBuilder {
        TeamBuilder {
            threads: threads.clamp(1, MAX_PARTICIPANTS),
            spin: DEFAULT_SPIN,
        }
    }

    /// How long a worker spins for the next job before it parks (zero: it parks at once
    /// after each job, and every call pays the wake-up).
    #[must_use]
    pub fn spin(mut self, spin: Duration) -> TeamBuilder {
        self.spin = spin;
        self
    }

    /// Starts the workers.
    ///
    /// # Errors
    /// The operating system's error when a thread cannot be started (the ones already
    /// started are stopped and joined).
    pub fn build(self) -> std::io::Result<Team> {
        let workers = self.threads - 1;
        let core = Arc::new(Core::new(workers, self.spin));
        let mut handles = Vec::with_capacity(workers);
        for index in 1..=workers {
            let c = Arc::clone(&core);
            let spawned = std::thread::Builder::new()
                .name(format!("bcast-team-{index}"))
                .spawn(move || c.worker_loop(index));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    core.shut_down();
                    handles.drain(..).for_each(|h| drop(h.join()));
                    return Err(e);
                }
            }
        }
        core.set_threads(handles.iter().map(|h| h.thread().clone()).collect());
        Ok(Team {
            core,
            handles,
            busy: Mutex::new(()),
            generation: fork_generation(),
            threads: self.threads,
            spin: self.spin,
            born: std::time::Instant::now(),
            last_job_ns: std::sync::atomic::AtomicU64::new(0),
        })
    }
}

/// bcast's own team of threads: `threads - 1` workers that spin for a bounded time after
/// each job and then park, and the calling thread, which always does a share.
///
/// Built once (a runtime builds one per session, or uses [`Team::global`]) and passed to
/// every call as [`super::Parallelism::Team`]. Dropping it stops and joins its workers.
pub struct Team {
    core: Arc<Core>,
    handles: Vec<JoinHandle<()>>,
    /// Held while a job runs: one job at a time.
    busy: Mutex<()>,
    /// The fork generation of the process that started the workers ([`fork_generation`]).
    generation: u64,
    threads: usize,
    spin: Duration,
    /// When the team was built, and when its last job ended (nanoseconds after that): how
    /// long its workers have been idle, so whether they still spin.
    born: std::time::Instant,
    last_job_ns: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Team {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Team")
            .field("threads", &self.threads)
            .field("spin", &self.spin)
            .finish_non_exhaustive()
    }
}

impl Team {
    /// The process's default team: as many threads as `BCAST_NUM_THREADS`, else
    /// `RAYON_NUM_THREADS`, else the CPUs this process may use; spinning `BCAST_SPIN_US`
    /// microseconds, else [`DEFAULT_SPIN`]. Both are read when the team starts: the first
    /// call that needs it, and again in a forked child. `None` if its threads cannot start
    /// (callers then run on their own thread).
    pub fn global() -> Option<Arc<Team>> {
        let mut slot = global_slot();
        match slot.as_ref() {
            Some(team) if team.generation == fork_generation() => return Some(Arc::clone(team)),
            // A forked child: the parent's workers do not exist here. Their team is
            // forgotten, not dropped (dropping would wait for threads that will never
            // answer).
            Some(_) => std::mem::forget(slot.take()),
            None => {}
        }
        let env = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        let threads = env("BCAST_NUM_THREADS")
            .or_else(|| env("RAYON_NUM_THREADS"))
            .filter(|&n| n > 0)
            .map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                |n| usize::try_from(n).unwrap_or(usize::MAX),
            );
        let spin = env("BCAST_SPIN_US").map_or(DEFAULT_SPIN, Duration::from_micros);
        let team = Arc::new(TeamBuilder::new(threads).spin(spin).build().ok()?);
        *slot = Some(Arc::clone(&team));
        Some(team)
    }

    /// Stops the default team: its threads exit once no call runs on it (before this
    /// returns, when none does). The next call that needs it starts a new one. For a host
    /// that unloads bcast or counts its threads.
    pub fn release_global() {
        let team = global_slot().take();
        drop(team);
    }

    /// Threads of the team, the caller's included.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// How long its workers spin after a job.
    #[must_use]
    pub fn spin(&self) -> Duration {
        self.spin
    }

    /// Whether a job started now would get the team's workers: not from inside a job, not
    /// in a forked child, not while another caller has the team.
    pub(crate) fn usable(&self) -> bool {
        self.threads > 1 && !in_job() && self.generation == fork_generation()
    }

    /// About what handing a job to the workers costs now, in nanoseconds: about a
    /// microsecond while they still spin after the last job; the wake-up of a parked thread
    /// (tens of microseconds on a virtual machine) once they have parked, or when they never
    /// spin.
    #[must_use]
    pub fn dispatch_cost_ns(&self) -> u64 {
        const HOT_NS: u64 = 1_000;
        const PARKED_NS: u64 = 30_000;
        if self.spin.is_zero() {
            return PARKED_NS;
        }
        let now = u64::try_from(self.born.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let idle = now.saturating_sub(self.last_job_ns.load(std::sync::atomic::Ordering::Relaxed));
        if u128::from(idle) < self.spin.as_nanos() {
            HOT_NS
        } else {
            PARKED_NS
        }
    }

    /// Wakes the workers that have parked, so that they spin for the next call: for a call
    /// that runs alone because they had parked, while the calls after it (likely of the same
    /// size, the next nodes of a model) find them spinning.
    pub(crate) fn wake(&self) {
        if self.usable() {
            let now = u64::try_from(self.born.elapsed().as_nanos()).unwrap_or(u64::MAX);
            self.last_job_ns
                .store(now, std::sync::atomic::Ordering::Relaxed);
            self.core.wake_parked();
        }
    }

    /// Runs `task(i)` for every `i` in `0..n` on up to `n` of the team's threads (the
    /// caller's included), returning when all are done; on the calling thread alone where
    /// [`Team::usable`] says no or another caller has the team. A panic in a task is raised
    /// again here, after every task has ended.
    pub(crate) fn run(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
        let busy = if self.usable() && n > 1 {
            match self.busy.try_lock() {
                Ok(guard) => Some(guard),
                Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
                Err(TryLockError::WouldBlock) => None,
            }
        } else {
            None
        };
        let Some(_busy) = busy else {
            as_job_share(|| (0..n).for_each(task));
            return;
        };
        let panic: Mutex<Option<Box<dyn std::any::Any + Send>>> = Mutex::new(None);
        let share = |i: usize| {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| as_job_share(|| task(i)))) {
                panic
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(payload);
            }
        };
        let share: &JobFn<'_> = &share;
        self.core.run(n.min(self.threads), share);
        let end = u64::try_from(self.born.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.last_job_ns
            .store(end, std::sync::atomic::Ordering::Relaxed);
        // Tasks beyond the team's width (a caller asking for more than it has) run here.
        for i in self.threads..n {
            share(i);
        }
        if let Some(payload) = panic.into_inner().unwrap_or_else(PoisonError::into_inner) {
            std::panic::resume_unwind(payload);
        }
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        if self.generation != fork_generation() {
            // A forked child's copy: its workers are the parent's, and not here to join or
            // detach.
            self.handles.drain(..).for_each(std::mem::forget);
            return;
        }
        self.core.shut_down();
        for h in self.handles.drain(..) {
            // A worker never unwinds (jobs catch their panics); nothing to report.
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The calling thread's affinity mask, as the CPUs in it.
    #[cfg(target_os = "linux")]
    fn allowed_cpus() -> Vec<usize> {
        let mask = placement::affinity().expect("the thread's mask");
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: every index is below CPU_SETSIZE; the macro only reads bits.
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &mask) })
            .collect()
    }

    /// Sets the calling thread's affinity mask to `cpus`.
    #[cfg(target_os = "linux")]
    fn allow_cpus(cpus: &[usize]) {
        // SAFETY: `cpu_set_t` is plain bits; all zero is the empty set.
        let mut mask: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &c in cpus {
            // SAFETY: every CPU named is below CPU_SETSIZE (it came from a mask).
            unsafe { libc::CPU_SET(c, &mut mask) };
        }
        assert!(placement::set_affinity(&mask));
    }

    /// A worker found on its caller's CPU moves to another its mask allows, and keeps the
    /// mask it had; where the mask allows no other, it stays.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_thread_moves_off_a_cpu_and_keeps_its_mask() {
        std::thread::spawn(|| {
            let cpus = allowed_cpus();
            if cpus.len() < 2 {
                return; // one CPU: nowhere to move (the yielding spin covers it)
            }
            let pair = [cpus[0], cpus[1]];
            allow_cpus(&pair[..1]);
            assert_eq!(placement::current_cpu(), pair[0]);
            assert!(
                !placement::move_off_cpu(pair[0]),
                "the mask allows no other CPU"
            );
            assert_eq!(placement::current_cpu(), pair[0]);
            allow_cpus(&pair);
            assert!(placement::move_off_cpu(pair[0]));
            assert_eq!(placement::current_cpu(), pair[1]);
            assert_eq!(allowed_cpus(), pair, "the mask is put back");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn every_task_runs_once_on_a_spinning_and_a_parking_team() {
        for spin in [Duration::ZERO, Duration::from_micros(50)] {
            let team = TeamBuilder::new(3).spin(spin).build().unwrap();
            for round in 0..200 {
                let n = 1 + round % 5;
                let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                team.run(n, &|i| {
                    hits[i].fetch_add(1, Ordering::Relaxed);
                });
                assert!(
                    hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
                    "spin {spin:?}, round {round}"
                );
                if round % 50 == 0 {
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
        }
    }

    #[test]
    fn a_job_inside_a_job_runs_on_its_own_thread() {
        let team = TeamBuilder::new(2).build().unwrap();
        let inner = AtomicUsize::new(0);
        team.run(2, &|_| {
            let me = std::thread::current().id();
            team.run(3, &|_| {
                assert_eq!(std::thread::current().id(), me);
                inner.fetch_add(1, Ordering::Relaxed);
            });
        });
        assert_eq!(inner.load(Ordering::Relaxed), 6);
    }

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller_after_every_task() {
        let team = TeamBuilder::new(2).build().unwrap();
        let done = AtomicUsize::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            team.run(2, &|i| {
                if i == 1 {
                    panic!("task 1");
                }
                std::thread::sleep(Duration::from_millis(5));
                done.fetch_add(1, Ordering::Relaxed);
            });
        }));
        assert!(r.is_err());
        assert_eq!(done.load(Ordering::Relaxed), 1);
        // The team still works.
        let hits = AtomicUsize::new(0);
        team.run(2, &|_| {
            hits.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(hits.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn dropping_a_team_joins_its_workers() {
        let team = TeamBuilder::new(4).spin(Duration::ZERO).build().unwrap();
        team.run(4, &|_| {});
        drop(team);
    }
}
