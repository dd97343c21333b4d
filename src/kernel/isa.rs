//! Wider vectors where the CPU has them.
//!
//! The crate is built for baseline x86-64 (16-byte SSE2 stores). For outputs that stay in
//! L2/L3 that is too narrow: measured on the development VM into 12 MiB with 2 threads, in
//! the same runs, a `u32` fill ran at 0.44-0.6 of `memset` with SSE2 and 1.0 with AVX2, and
//! 256-byte stamps of a 3-byte pattern at 0.7-0.8 with SSE2 and 0.87-0.97 with AVX2 (AVX-512
//! measured no better than AVX2). So the whole walk is compiled a second time with AVX2
//! enabled and picked at run time.

use super::program::Program;
use super::slot::Slot;
use super::walk::write_range;

/// Which compiled copy of the walk to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isa {
    /// The baseline build.
    Baseline,
    /// The AVX2 build (only chosen when the CPU has AVX2).
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Isa {
    /// The widest copy this CPU runs (`std` caches the CPUID answer).
    #[inline]
    pub(crate) fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Isa::Avx2;
        }
        Isa::Baseline
    }

    /// [`write_range`] with this copy of the code.
    #[inline]
    pub(crate) fn write_range<S: Slot>(
        self,
        program: &Program<'_>,
        src: &[S::Value],
        dst: &mut [S],
        start: usize,
    ) {
        match self {
            Isa::Baseline => write_range(program, src, dst, start),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2` is only produced by `detect` after the CPU reported AVX2.
            Isa::Avx2 => unsafe { write_range_avx2(program, src, dst, start) },
        }
    }
}

/// [`write_range`] compiled with AVX2 (everything it calls is `#[inline(always)]`).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn write_range_avx2<S: Slot>(
    program: &Program<'_>,
    src: &[S::Value],
    dst: &mut [S],
    start: usize,
) {
    write_range(program, src, dst, start);
}
