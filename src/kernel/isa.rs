//! Wider vectors where the CPU has them.
//!
//! The crate is built for baseline x86-64 (16-byte SSE2 stores). For outputs that stay in
//! L2/L3 that is too narrow to keep up with `memset`: measured on the development machine, a
//! fill or a stamped pattern into 12 MiB with SSE2 stores ran at 0.45-0.8 of `memset`, with
//! AVX2 stores at 0.94-1.0 (AVX-512 measured no better than AVX2). So the whole walk is
//! compiled a second time with AVX2 enabled and picked at run time.

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
