//! Non-temporal (streaming) stores for outputs larger than the last-level cache.
//!
//! An ordinary store to a line not in cache first reads the line from memory (read for
//! ownership), so writing a DRAM-sized output moves each byte over the memory bus twice.
//! Streaming stores (`movntdq`) write whole lines through write-combining buffers without
//! reading them. They only pay where the output cannot stay in cache anyway, and they evict
//! it, so the executors use them from [`super::Policy::stream_from_bytes`] on (decided on the
//! whole output, never per chunk). Every public writer here ends with `sfence`, so its stores
//! are ordered before the thread's later ones (and before the join that hands the output
//! back); the `_unfenced` ones leave the fence to their caller, once per chunk.
//!
//! x86_64 only (SSE2 `_mm_stream_si128` always, AVX `_mm256_stream_si256` when
//! [`Avx2::detect`] finds it); elsewhere the same functions use ordinary stores.

use std::mem::MaybeUninit;

use super::isa::Avx2;

/// A cache line: the size streamed at a time (heads and tails off a 64-byte boundary use
/// ordinary stores), and the unit the register kernels align their stores to.
pub(crate) const LINE: usize = 64;

/// Whether this CPU has streaming stores (always on x86_64).
#[must_use]
pub fn streaming_available() -> bool {
    cfg!(target_arch = "x86_64")
}

/// `dst[i] = src[i]`, the aligned middle with streaming stores, then a fence. The lengths
/// are equal.
///
/// `U` is a plain-data lane (an unsigned integer: every byte is initialised).
pub(crate) fn copy_streaming<U: Copy>(dst: &mut [MaybeUninit<U>], src: &[MaybeUninit<U>]) {
    copy_streaming_unfenced(dst, src);
    store_fence();
}

/// [`copy_streaming`] without the fence: the caller calls [`store_fence`] before the output
/// is handed on (once per chunk rather than once per row).
pub(crate) fn copy_streaming_unfenced<U: Copy>(dst: &mut [MaybeUninit<U>], src: &[MaybeUninit<U>]) {
    assert_eq!(dst.len(), src.len(), "copy_streaming: lengths");
    let bytes = std::mem::size_of_val(dst);
    let d = dst.as_mut_ptr().cast::<u8>();
    let s = src.as_ptr().cast::<u8>();
    let head = (d.align_offset(LINE)).min(bytes);
    let body = (bytes - head) / LINE * LINE;
    // SAFETY: `dst` and `src` are `bytes` long, do not overlap (one is borrowed mutably), and
    // every byte of `src` is initialised (plain-data lanes written by the caller); `head`,
    // `body` and the tail stay inside them; `d + head` is 64-byte aligned, as the streaming
    // copies require, and `body` is a multiple of 64.
    unsafe {
        std::ptr::copy_nonoverlapping(s, d, head);
        stream_copy(d.add(head), s.add(head), body);
        let done = head + body;
        std::ptr::copy_nonoverlapping(s.add(done), d.add(done), bytes - done);
    }
}

/// Writes `value` into every element of `dst`, the aligned middle with streaming stores,
/// then a fence. The bench's streaming fill bound; `size_of::<T>()` must divide 64 (1, 2, 4,
/// 8, 16, 32, 64), else this is an ordinary fill.
pub fn fill_streaming<T: bytemuck::Pod>(dst: &mut [T], value: T) {
    let dst: &mut [MaybeUninit<T>] = {
        let (p, n) = (dst.as_mut_ptr(), dst.len());
        // SAFETY: `MaybeUninit<T>` has `T`'s layout, every `T` is a valid `MaybeUninit<T>`,
        // and only `T`s (bytes of `value`) are written through the new slice, which takes
        // over the mutable borrow.
        unsafe { std::slice::from_raw_parts_mut(p.cast::<MaybeUninit<T>>(), n) }
    };
    fill_streaming_unfenced(dst, value);
    store_fence();
}

/// [`fill_streaming`] into possibly uninitialised lanes, without the fence: the caller calls
/// [`store_fence`] before the output is handed on.
pub(crate) fn fill_streaming_unfenced<T: Copy + bytemuck::NoUninit>(
    dst: &mut [MaybeUninit<T>],
    value: T,
) {
    let size = std::mem::size_of::<T>();
    let plain = |d: &mut [MaybeUninit<T>]| d.fill(MaybeUninit::new(value));
    if size == 0 || !LINE.is_multiple_of(size) {
        plain(dst);
        return;
    }
    let head_bytes = dst.as_ptr().cast::<u8>().align_offset(LINE);
    let head = (head_bytes / size).min(dst.len());
    if head * size != head_bytes && head < dst.len() {
        // An element straddles the line boundary (a misaligned slice): no streaming.
        plain(dst);
        return;
    }
    let (first, rest) = dst.split_at_mut(head);
    plain(first);
    let lines = std::mem::size_of_val(rest) / LINE;
    let (body, tail) = rest.split_at_mut(lines * LINE / size);
    plain(tail);
    let mut pattern = [0u8; LINE];
    for c in pattern.chunks_exact_mut(size) {
        c.copy_from_slice(bytemuck::bytes_of(&value));
    }
    // SAFETY: `body` is 64-byte aligned (it starts `head_bytes` into `dst`) and
    // `lines * 64` bytes long, all writable; the lanes take any bytes, and these are
    // `value`'s (no padding: `NoUninit`).
    unsafe { stream_fill(body.as_mut_ptr().cast(), &pattern, lines * LINE) };
}

/// Writes `value` to `dst` with streaming stores, 16 bytes at a time (no fence): for a
/// kernel that computes a group of lanes in registers and stores it once. Elsewhere than
/// x86_64, an ordinary store.
///
/// # Safety
/// `dst` 16-byte aligned and writable for `size_of::<X>()` bytes, a multiple of 16; `X`
/// plain data with no padding (every byte initialised).
#[inline(always)]
pub(crate) unsafe fn stream_value<X: Copy>(dst: *mut X, value: X) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        debug_assert!(std::mem::size_of::<X>().is_multiple_of(16));
        debug_assert!((dst as usize).is_multiple_of(16));
        let src = (&raw const value).cast::<__m128i>();
        let dst = dst.cast::<__m128i>();
        for k in 0..std::mem::size_of::<X>() / 16 {
            // SAFETY: the caller's contract: `dst + k` is 16-byte aligned and writable, and
            // `value`'s bytes are initialised; SSE2 is part of x86_64.
            unsafe { _mm_stream_si128(dst.add(k), _mm_loadu_si128(src.add(k))) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract.
    unsafe {
        dst.write(value)
    };
}

/// [`stream_value`] a 64-byte line a register where `dst` is on 64 bytes and `X` is whole
/// lines (one `vmovntdq` per line, which the write-combining buffers take whole), else 16
/// bytes at a time. For kernels compiled with AVX-512.
///
/// # Safety
/// As [`stream_value`]; the CPU runs AVX-512F.
// Built only by a compiler with the AVX-512 intrinsics (`bcast_avx512`, as `eltwise/fp32.rs`).
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) unsafe fn stream_value_lines<X: Copy>(dst: *mut X, value: X) {
    use std::arch::x86_64::{__m512i, _mm512_loadu_si512, _mm512_stream_si512};
    let size = std::mem::size_of::<X>();
    if !(size.is_multiple_of(LINE) && (dst as usize).is_multiple_of(LINE)) {
        // SAFETY: the caller's contract.
        return unsafe { stream_value(dst, value) };
    }
    let src = (&raw const value).cast::<__m512i>();
    let dst = dst.cast::<__m512i>();
    for k in 0..size / LINE {
        // SAFETY: `dst + k` is on 64 bytes (checked above) and writable (the caller's
        // contract), `value`'s bytes are initialised; the CPU runs AVX-512F.
        unsafe { _mm512_stream_si512(dst.add(k), _mm512_loadu_si512(src.add(k))) };
    }
}

/// Orders this thread's streaming stores before its later stores (and so before the join
/// that hands the output back).
pub(crate) fn store_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86_64.
    unsafe {
        std::arch::x86_64::_mm_sfence();
    }
}

/// Streams `len` bytes (a multiple of 64) from `src` to the 64-byte aligned `dst` (no fence).
///
/// # Safety
/// `dst` 64-byte aligned and writable for `len` bytes, `src` readable and initialised for
/// `len` bytes, no overlap.
unsafe fn stream_copy(dst: *mut u8, src: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(token) = Avx2::detect() {
            // SAFETY: the caller's contract; the token proves the CPU has AVX.
            unsafe { stream_copy_avx(token, dst, src, len) };
        } else {
            // SAFETY: the caller's contract; SSE2 is part of x86_64.
            unsafe { stream_copy_sse2(dst, src, len) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, len)
    };
}

/// Streams the 64-byte `pattern` over `len` bytes (a multiple of 64) at the 64-byte aligned
/// `dst` (no fence).
///
/// # Safety
/// `dst` 64-byte aligned and writable for `len` bytes.
unsafe fn stream_fill(dst: *mut u8, pattern: &[u8; LINE], len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(token) = Avx2::detect() {
            // SAFETY: the caller's contract; the token proves the CPU has AVX.
            unsafe { stream_fill_avx(token, dst, pattern, len) };
        } else {
            // SAFETY: the caller's contract; SSE2 is part of x86_64.
            unsafe { stream_fill_sse2(dst, pattern, len) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for i in (0..len).step_by(LINE) {
        // SAFETY: the caller's contract: `dst + i .. + 64` is writable.
        unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), dst.add(i), LINE) };
    }
}

/// # Safety
/// As [`stream_copy`]; the CPU has AVX (proved by the token).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn stream_copy_avx(_: Avx2, dst: *mut u8, src: *const u8, len: usize) {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_stream_si256};
    let mut i = 0;
    while i < len {
        // SAFETY: `i + 64 <= len`; `dst + i` is 32-byte aligned (64-byte aligned `dst`, `i`
        // a multiple of 64); the loads accept any alignment.
        unsafe {
            let a = _mm256_loadu_si256(src.add(i).cast::<__m256i>());
            let b = _mm256_loadu_si256(src.add(i + 32).cast::<__m256i>());
            _mm256_stream_si256(dst.add(i).cast::<__m256i>(), a);
            _mm256_stream_si256(dst.add(i + 32).cast::<__m256i>(), b);
        }
        i += LINE;
    }
}

/// # Safety
/// As [`stream_copy`].
#[cfg(target_arch = "x86_64")]
unsafe fn stream_copy_sse2(dst: *mut u8, src: *const u8, len: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    let mut i = 0;
    while i < len {
        for k in (0..LINE).step_by(16) {
            // SAFETY: `i + k + 16 <= len`; `dst + i + k` is 16-byte aligned.
            unsafe {
                let v = _mm_loadu_si128(src.add(i + k).cast::<__m128i>());
                _mm_stream_si128(dst.add(i + k).cast::<__m128i>(), v);
            }
        }
        i += LINE;
    }
}

/// # Safety
/// As [`stream_fill`]; the CPU has AVX (proved by the token).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn stream_fill_avx(_: Avx2, dst: *mut u8, pattern: &[u8; LINE], len: usize) {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_stream_si256};
    // SAFETY: `pattern` is 64 readable bytes.
    let (a, b) = unsafe {
        (
            _mm256_loadu_si256(pattern.as_ptr().cast::<__m256i>()),
            _mm256_loadu_si256(pattern.as_ptr().add(32).cast::<__m256i>()),
        )
    };
    let mut i = 0;
    while i < len {
        // SAFETY: `i + 64 <= len`; `dst + i` is 64-byte aligned.
        unsafe {
            _mm256_stream_si256(dst.add(i).cast::<__m256i>(), a);
            _mm256_stream_si256(dst.add(i + 32).cast::<__m256i>(), b);
        }
        i += LINE;
    }
}

/// # Safety
/// As [`stream_fill`].
#[cfg(target_arch = "x86_64")]
unsafe fn stream_fill_sse2(dst: *mut u8, pattern: &[u8; LINE], len: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    // SAFETY: `pattern` is 64 readable bytes.
    let v: [__m128i; 4] = std::array::from_fn(|k| unsafe {
        _mm_loadu_si128(pattern.as_ptr().add(16 * k).cast::<__m128i>())
    });
    let mut i = 0;
    while i < len {
        for (k, &x) in v.iter().enumerate() {
            // SAFETY: `i + 64 <= len`; `dst + i + 16k` is 16-byte aligned.
            unsafe { _mm_stream_si128(dst.add(i + 16 * k).cast::<__m128i>(), x) };
        }
        i += LINE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_fills_and_copies_write_every_byte() {
        for offset in 0..5 {
            let mut buf = vec![0u32; 1000];
            fill_streaming(&mut buf[offset..], 0xDEAD_BEEF);
            assert!(buf[..offset].iter().all(|&v| v == 0));
            assert!(buf[offset..].iter().all(|&v| v == 0xDEAD_BEEF));
            let src: Vec<MaybeUninit<u16>> = (0..999u16).map(MaybeUninit::new).collect();
            let mut dst = vec![MaybeUninit::new(0u16); 1003];
            copy_streaming(&mut dst[offset..offset + 999], &src);
            for (i, d) in dst[offset..offset + 999].iter().enumerate() {
                // SAFETY: every element was initialised above.
                assert_eq!(unsafe { d.assume_init() }, i as u16);
            }
        }
    }
}
