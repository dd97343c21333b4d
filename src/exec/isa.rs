//! The one CPU-feature check of the crate.
//!
//! Wide code paths (the copy walk compiled for AVX2, the gradient leaves compiled for
//! AVX2+F16C, AVX stream stores) are `#[target_feature]` functions, which are `unsafe` to call:
//! the CPU must have the features. Each of them takes an [`Avx2`] token, which only
//! [`Avx2::detect`] can make (its field is private), so holding one proves the check was done
//! and the `SAFETY` argument of every such call is the token's type. [`fast_strings`] is
//! not a safety matter (`rep stos` runs on every x86-64 CPU), only a choice of the faster
//! loop.

/// Proof that this CPU runs AVX2, AVX, F16C (every AVX2 CPU has F16C; both are checked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Avx2(());

impl Avx2 {
    /// The token, when the CPU has the features (`std` caches the CPUID answer, so this is an
    /// atomic load and a test).
    #[inline]
    pub(crate) fn detect() -> Option<Avx2> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("avx")
            && std::arch::is_x86_feature_detected!("f16c")
        {
            return Some(Avx2(()));
        }
        None
    }
}

/// Proof that this CPU computes f16 in AVX-512 registers (AVX512-FP16, with AVX512F, BW and
/// VL: Intel from Sapphire Rapids on), for the f16 chains of `eltwise/fp16.rs`. Made only by
/// [`Avx512Fp16::detect`], as [`Avx2`].
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Avx512Fp16(());

#[cfg(all(target_arch = "x86_64", bcast_avx512))]
impl Avx512Fp16 {
    /// The token, when the CPU has the features (cached by `std`, as above).
    #[inline]
    pub(crate) fn detect() -> Option<Avx512Fp16> {
        use std::arch::is_x86_feature_detected as has;
        (has!("avx512f") && has!("avx512bw") && has!("avx512vl") && has!("avx512fp16"))
            .then_some(Avx512Fp16(()))
    }
}

/// Proof that this CPU runs AVX-512 (F, VL, BW and DQ) besides AVX2, for loops bound by
/// their arithmetic. Made only by [`Avx512::detect`], as [`Avx2`].
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Avx512(());

#[cfg(all(target_arch = "x86_64", bcast_avx512))]
impl Avx512 {
    /// The token, when the CPU has the features (cached by `std`, as above).
    #[inline]
    pub(crate) fn detect() -> Option<Avx512> {
        use std::arch::is_x86_feature_detected as has;
        (Avx2::detect().is_some()
            && has!("avx512f")
            && has!("avx512vl")
            && has!("avx512bw")
            && has!("avx512dq"))
        .then_some(Avx512(()))
    }
}

/// Whether this CPU has `prefetchw` (CPUID leaf 0x8000_0001, ECX bit 8: PRFCHW, which AMD
/// calls 3DNowPrefetch): every AMD CPU of x86-64, Intel from Broadwell on. Read once.
#[cfg(target_arch = "x86_64")]
pub(crate) fn write_prefetch() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        use std::arch::x86_64::__cpuid;
        // `__cpuid` is a safe function from Rust 1.94 on and an unsafe one before it.
        #[allow(unused_unsafe)]
        // SAFETY: CPUID exists on every x86-64 CPU; asking for a leaf past the highest one
        // the CPU reports is answered, not faulted, so the maximum is checked only to read
        // a meaningful answer.
        let (max, ecx) = unsafe { (__cpuid(0x8000_0000).eax, __cpuid(0x8000_0001).ecx) };
        max >= 0x8000_0001 && ecx & (1 << 8) != 0
    })
}

/// Whether this CPU reports enhanced `rep movsb`/`stosb` (ERMS): then `rep stos` writes whole
/// lines without reading them first, and long fills use it (`std` caches the answer).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn fast_strings() -> bool {
    std::arch::is_x86_feature_detected!("ermsb")
}
