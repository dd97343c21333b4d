//! Software prefetch for the executors' streaming loops.
//!
//! A loop that reads an operand front to back asks for the line `PREFETCH_AHEAD` bytes
//! ahead of where it reads. CPUs whose hardware prefetchers already follow such streams lose
//! almost nothing (one hint per cache line); machines whose prefetchers do not keep up (some
//! virtual machines) gain the memory-level parallelism the loop would otherwise lack; benches/
//! RESULTS.md has the figures.

/// How far ahead of its reads a streaming loop prefetches, in bytes.
pub(crate) const PREFETCH_AHEAD: usize = 1024;

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

/// Hints that the line `PREFETCH_AHEAD` bytes past `s[i]` will be read soon. Any index is
/// allowed: a prefetch is only a hint, never a memory access, and never faults.
#[inline(always)]
pub(crate) fn prefetch_ahead<T>(s: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = s
            .as_ptr()
            .wrapping_add(i)
            .cast::<i8>()
            .wrapping_add(PREFETCH_AHEAD);
        // SAFETY: `prefetcht0` does not access memory (it cannot fault, whatever the
        // address) and SSE is part of x86_64; `wrapping_add` keeps the pointer arithmetic
        // defined for any index.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (s, i);
}
