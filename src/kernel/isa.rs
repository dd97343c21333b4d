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
use crate::exec::isa::Avx2;

/// Which compiled copy of the walk to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isa {
    /// The baseline build.
    Baseline,
    /// The AVX2 build; the token proves the CPU runs it.
    Avx2(Avx2),
}

impl Isa {
    /// The widest copy this CPU runs.
    #[inline]
    pub(crate) fn detect() -> Isa {
        Avx2::detect().map_or(Isa::Baseline, Isa::Avx2)
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
            // SAFETY: an `Avx2` token exists only where the CPU reported AVX2.
            Isa::Avx2(token) => unsafe { write_range_avx2(token, program, src, dst, start) },
        }
    }
}

/// [`write_range`] compiled with AVX2 (everything it calls is `#[inline(always)]`).
///
/// # Safety
/// The CPU must support AVX2 (the token proves it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn write_range_avx2<S: Slot>(
    _: Avx2,
    program: &Program<'_>,
    src: &[S::Value],
    dst: &mut [S],
    start: usize,
) {
    write_range(program, src, dst, start);
}

/// Off x86_64 no token is ever made; this only keeps the match whole.
///
/// # Safety
/// None needed.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn write_range_avx2<S: Slot>(
    _: Avx2,
    program: &Program<'_>,
    src: &[S::Value],
    dst: &mut [S],
    start: usize,
) {
    write_range(program, src, dst, start);
}
