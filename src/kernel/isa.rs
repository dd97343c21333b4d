//! Wider vectors where the CPU has them.
//!
//! The crate is built for baseline x86-64 (16-byte SSE2 stores). For outputs that stay in
//! L2/L3 that is too narrow to keep up with `memset` (benches/RESULTS.md has the
//! measurements, AVX-512 included), so the whole walk is compiled a second time with
//! AVX2 enabled and picked at run time.

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
            // SAFETY: an `Avx2` token exists only where the CPU reported AVX2.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2(token) => unsafe { write_range_avx2(token, program, src, dst, start) },
            // Off x86_64 no token is ever made.
            _ => write_range(program, src, dst, start),
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
