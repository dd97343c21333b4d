//! Software prefetch for the executors' streaming loops.
//!
//! A loop that reads an operand front to back asks for the line [`super::Strategy::prefetch_ahead`]
//! bytes ahead of where it reads (none when that is 0). CPUs whose hardware prefetchers
//! already follow such streams lose almost nothing (one hint per cache line); machines whose
//! prefetchers do not keep up (some virtual machines) gain the memory-level parallelism the
//! loop would otherwise lack; benches/RESULTS.md has the figures.

use super::rows::row_settings;
use super::Strategy;

/// The write distance `strategy` asks for ([`Strategy::prefetch_writes`]) for an output of
/// `out_bytes`, or 0: where the CPU has no `prefetchw` (and off x86-64; the one place the
/// instruction's presence is checked), and where the output stays in the core's cache
/// ([`super::Policy::core_resident_bytes`]: its lines are there already).
pub(crate) fn write_distance(strategy: &Strategy, out_bytes: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    if strategy.prefetch_writes > 0
        && out_bytes > super::Policy::get().core_resident_bytes
        && super::isa::write_prefetch()
    {
        return strategy.prefetch_writes;
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (strategy, out_bytes);
    0
}

/// Elements of `T` per 64-byte line (at least 1): how often a loop issues a hint.
#[inline(always)]
pub(crate) const fn per_line<T>() -> usize {
    let size = std::mem::size_of::<T>();
    if size == 0 || size >= 64 {
        1
    } else {
        64 / size
    }
}

/// Hints that the line the prefetch distance past `s[i]` will be read soon. Any index is
/// allowed: a prefetch is only a hint, never a memory access, and never faults.
#[inline(always)]
pub(crate) fn prefetch_ahead<T>(s: &[T], i: usize) {
    Ahead::get().hint(s.as_ptr().wrapping_add(i));
}

/// The prefetch distances of the run in progress ([`super::RowSettings`]), read once for a
/// whole block of work, so a loop's hint per line is one instruction (a loop-invariant test
/// when the distance is 0) instead of a read of the setting per line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ahead(usize, usize);

impl Ahead {
    #[inline(always)]
    pub(crate) fn get() -> Ahead {
        let rows = row_settings();
        Ahead(rows.ahead, rows.ahead_writes)
    }

    /// Whether the run gives no hints, read or write (both distances 0).
    #[inline(always)]
    pub(crate) fn is_off(self) -> bool {
        self.0 == 0 && self.1 == 0
    }

    /// Whether the run asks for the output's lines ahead (a write distance).
    #[inline(always)]
    pub(crate) fn writes(self) -> bool {
        self.1 != 0
    }

    /// Asks for the line the write distance past `p` with the intent to write it
    /// (`prefetchw`), where the run has a write distance. Any pointer is allowed, as for
    /// [`Ahead::hint`]: past the end of the output it asks for a line nobody writes.
    #[inline(always)]
    pub(crate) fn hint_write<T>(self, p: *mut T) {
        #[cfg(target_arch = "x86_64")]
        {
            if self.1 == 0 {
                return;
            }
            let p = p.cast::<u8>().wrapping_add(self.1);
            // SAFETY: `prefetchw` does not access memory (it cannot fault, whatever the
            // address); a nonzero write distance only comes from `write_distance`, which
            // checks that CPUID reports the instruction. Written as assembly because the intrinsic of
            // a write prefetch becomes a read prefetch in code not compiled for `prfchw`.
            // `nomem`: the instruction reads and writes nothing the program can observe, so the
            // compiler may place it among the loop's loads and stores as it likes.
            #[allow(clippy::pointers_in_nomem_asm_block)]
            unsafe {
                std::arch::asm!("prefetchw [{p}]", p = in(reg) p, options(nostack, preserves_flags, nomem));
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = p;
    }

    /// Hints that the line the prefetch distance past `p` will be read soon. Any pointer is
    /// allowed: a prefetch is only a hint, never a memory access, and never faults.
    #[inline(always)]
    pub(crate) fn hint<T>(self, p: *const T) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            if self.0 == 0 {
                return;
            }
            let p = p.cast::<i8>().wrapping_add(self.0);
            // SAFETY: `prefetcht0` does not access memory (it cannot fault, whatever the
            // address) and SSE is part of x86_64; `wrapping_add` keeps the pointer
            // arithmetic defined for any distance.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = p;
    }
}

/// Asks for every line of the `bytes` from `p` on, `distance` bytes further on, with the
/// intent to write them ([`Ahead::hint_write`]); nothing when `distance` is 0. `distance`
/// comes from [`write_distance`].
#[inline(always)]
pub(crate) fn hint_writes<T>(p: *mut T, bytes: usize, distance: usize) {
    if distance == 0 {
        return;
    }
    let ahead = Ahead(0, distance);
    let p = p.cast::<u8>();
    for line in (0..bytes).step_by(64) {
        ahead.hint_write(p.wrapping_add(line));
    }
}
