//! What the executors need to know about the machine, read once: cores, the cache each core
//! has to itself, the last-level cache. On Linux from `/sys/devices/system/cpu/cpu0/cache`;
//! elsewhere (or when sysfs says nothing) conservative constants.
//!
//! Every threshold of the executors is derived here, in [`Policy`], so the copy kernel, the
//! gradient reduction and the element-wise kernel cut and hand off work the same way.

use std::sync::OnceLock;

/// Cache sizes and core count of this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Machine {
    /// Logical CPUs this process may use.
    pub cores: usize,
    /// Bytes of the largest cache one core has to itself (its L2; the L1 data cache if there
    /// is no L2).
    pub core_cache_bytes: usize,
    /// Bytes of the last-level cache (shared by the cores of one socket or complex).
    pub llc_bytes: usize,
}

/// Used when the OS does not say: a 1 MiB L2 and a 32 MiB L3 (the development machine).
const FALLBACK: Machine = Machine {
    cores: 1,
    core_cache_bytes: 1 << 20,
    llc_bytes: 32 << 20,
};

impl Machine {
    /// This machine (read once per process).
    pub fn get() -> &'static Machine {
        static MACHINE: OnceLock<Machine> = OnceLock::new();
        MACHINE.get_or_init(Machine::read)
    }

    fn read() -> Machine {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut m = Machine { cores, ..FALLBACK };
        #[cfg(target_os = "linux")]
        {
            let (mut core, mut llc) = (0, 0);
            for index in 0..8 {
                let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
                let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
                let Some(size) = read("size").as_deref().and_then(parse_size) else {
                    continue;
                };
                let level = read("level").and_then(|l| l.trim().parse::<u32>().ok());
                let kind = read("type").unwrap_or_default();
                if kind.trim() == "Instruction" {
                    continue;
                }
                // "0-1" or "0,2": one CPU listed means the cache is the core's own.
                let shared = read("shared_cpu_list").is_some_and(|l| l.trim().contains(['-', ',']));
                // An L2 shared by the two hyperthreads of a core still is that core's.
                if level.unwrap_or(0) <= 2 && (!shared || level == Some(2)) {
                    core = core.max(size);
                }
                llc = llc.max(size);
            }
            if core > 0 {
                m.core_cache_bytes = core;
            }
            if llc > 0 {
                m.llc_bytes = llc.max(m.core_cache_bytes);
            }
        }
        m
    }
}

/// `"1024K"`, `"32768K"`, `"2M"`, `"512"` as bytes.
fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let n: usize = digits.parse().ok()?;
    let shift = match unit.trim() {
        "" => 0,
        "K" | "k" | "KiB" => 10,
        "M" | "MiB" => 20,
        "G" | "GiB" => 30,
        _ => return None,
    };
    n.checked_mul(1 << shift)
}

/// How an executor cuts and hands off work on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Work smaller than this runs on the calling thread.
    pub serial_below_bytes: usize,
    /// Above that, a thread is only woken for at least this many bytes of output (or gradient): below
    /// it, waking one costs more than it saves.
    pub min_thread_bytes: usize,
    /// Chunks (the unit a thread claims at a time) are at most this large: the core's own
    /// cache, so a slowed thread holds up little at the end.
    pub max_chunk_bytes: usize,
    /// Plain-data outputs from this size on are written with non-temporal stores (where the
    /// CPU has them): they cannot stay in the last-level cache anyway, and streaming stores
    /// skip reading every line before writing it.
    pub stream_from_bytes: usize,
    /// On a team whose threads are hot (bcast's spinning [`super::Team`], or a host's pool),
    /// each thread gets at least this much work: below it, a second thread's share takes
    /// about as long as handing it over and meeting again.
    pub min_dispatch_bytes: usize,
    /// Outputs up to this size stay in the core's cache from one call to the next: half the
    /// core's cache, the rest for the operands. Up to it, f32 ops with kernels in 64-byte
    /// registers (`eltwise/registers.rs`) run them (beyond it the AVX2 build's loop keeps
    /// the same memory rate), and no loop asks for the output's lines ahead (they are in
    /// the cache already; the hints only cost instructions). benches/RESULTS.md has the
    /// figures.
    pub core_resident_bytes: usize,
}

/// Bytes of output one thread writes in a nanosecond, about, on the slowest of the machines
/// measured (an element-wise op that reads two operands): the rate at which a thread's
/// start-up cost is turned into bytes of work it must be given to pay for itself.
const BYTES_PER_NS: u64 = 4;

/// The least work worth a second thread on a hot team: two threads pay from 128 KiB, as
/// PyTorch's do (`benches/RESULTS.md` has bcast's own figures).
const MIN_DISPATCH_BYTES: usize = 64 << 10;

/// No chunk is smaller than this (a chunk's start-up, one division per axis, stays a
/// fraction of a percent of its work), except where a count of chunks that the threads
/// divide asks for a little less (`exec::parallel::chunk_elems`).
pub(crate) const MIN_CHUNK_BYTES: usize = 128 * 1024;

impl Policy {
    /// This machine's policy.
    ///
    /// - `serial_below_bytes`: two core caches, at least 1 MiB: below that, waking a second
    ///   thread costs about as much as it saves (benches/RESULTS.md has the figures);
    /// - `min_thread_bytes`: a quarter of a core cache, at least 256 KiB: a thread woken for
    ///   less spends most of its time being woken;
    /// - `max_chunk_bytes`: one core cache, at least [`MIN_CHUNK_BYTES`].
    /// - `stream_from_bytes`: twice the last-level cache, or `BCAST_STREAM_FROM_MIB` MiB when
    ///   that environment variable is set (for measuring): an output that cannot stay in
    ///   the last-level cache is written faster without reading its lines first (benches/
    ///   RESULTS.md has the figures, and how the same stores lose on outputs that fit).
    pub fn get() -> Policy {
        static POLICY: OnceLock<Policy> = OnceLock::new();
        *POLICY.get_or_init(|| {
            let stream_from_bytes = std::env::var("BCAST_STREAM_FROM_MIB")
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
                .map(|mib| mib.saturating_mul(1 << 20));
            let policy = Policy::of(Machine::get());
            Policy {
                stream_from_bytes: stream_from_bytes.unwrap_or(policy.stream_from_bytes),
                ..policy
            }
        })
    }

    /// The policy of a machine described by `m`.
    pub fn of(m: &Machine) -> Policy {
        Policy {
            serial_below_bytes: (2 * m.core_cache_bytes).max(1 << 20),
            min_thread_bytes: (m.core_cache_bytes / 4).max(256 << 10),
            max_chunk_bytes: m.core_cache_bytes.max(MIN_CHUNK_BYTES),
            stream_from_bytes: 2 * m.llc_bytes,
            min_dispatch_bytes: MIN_DISPATCH_BYTES,
            core_resident_bytes: m.core_cache_bytes / 2,
        }
    }

    /// The least job [`Policy::threads_for_dispatch`] gives two threads: two of the least
    /// shares. Below it every pool runs a job on the calling thread.
    #[must_use]
    pub fn least_parallel_bytes(&self) -> usize {
        self.min_dispatch_bytes.saturating_mul(2)
    }

    /// The cost model of a team whose start-up costs `dispatch_ns` a call: threads worth
    /// using for `bytes` of work when `available` may be used. Each thread must get at least
    /// [`Policy::min_dispatch_bytes`], and at least the work that takes a thread as long as
    /// the start-up (`dispatch_ns` at [`BYTES_PER_NS`]); so a spinning team splits from
    /// 128 KiB, and a parked one (tens of microseconds to wake) only from several hundred.
    /// `bytes` already counts what an element costs beyond its size (a string's clone).
    pub fn threads_for_dispatch(&self, bytes: usize, available: usize, dispatch_ns: u64) -> usize {
        let worth = usize::try_from(dispatch_ns.saturating_mul(BYTES_PER_NS)).unwrap_or(usize::MAX);
        let per_thread = self.min_dispatch_bytes.max(worth).max(1);
        (bytes / per_thread).clamp(1, available.max(1))
    }

    /// Threads worth using for `bytes` of work when `available` may be used: 1 below
    /// `serial_below_bytes`, else one per `min_thread_bytes`, at most `available`.
    pub fn threads_for(&self, bytes: usize, available: usize) -> usize {
        if bytes < self.serial_below_bytes {
            return 1;
        }
        (bytes / self.min_thread_bytes.max(1)).clamp(1, available.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_sysfs_writes_them() {
        assert_eq!(parse_size("1024K\n"), Some(1 << 20));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("x"), None);
    }

    #[test]
    fn the_policy_follows_the_caches() {
        let p = Policy::of(&Machine {
            cores: 16,
            core_cache_bytes: 2 << 20,
            llc_bytes: 300 << 20,
        });
        assert_eq!(p.serial_below_bytes, 4 << 20);
        assert_eq!(p.min_thread_bytes, 512 << 10);
        assert_eq!(p.stream_from_bytes, 600 << 20);
        assert_eq!(p.threads_for(1 << 20, 16), 1);
        assert_eq!(p.threads_for(64 << 20, 16), 16);
        assert_eq!(p.threads_for(4 << 20, 16), 8);
        // A hot team: two threads from 128 KiB, one thread per 64 KiB, never past the team.
        assert_eq!(p.threads_for_dispatch(127 << 10, 2, 1_000), 1);
        assert_eq!(p.threads_for_dispatch(128 << 10, 2, 1_000), 2);
        assert_eq!(p.threads_for_dispatch(512 << 10, 16, 1_000), 8);
        assert_eq!(p.threads_for_dispatch(64 << 20, 16, 1_000), 16);
        // A parked team (30 us to wake): a thread per 120 KB of work.
        assert_eq!(p.threads_for_dispatch(128 << 10, 2, 30_000), 1);
        assert_eq!(p.threads_for_dispatch(240_000, 2, 30_000), 2);
        let m = Machine::get();
        assert!(m.cores >= 1 && m.core_cache_bytes > 0 && m.llc_bytes >= m.core_cache_bytes);
    }
}
