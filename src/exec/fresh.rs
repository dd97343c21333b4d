//! Advice for freshly allocated outputs.
//!
//! A new output of tens of MiB comes straight from `mmap`, and every 4 KiB page faults on
//! first write, which costs more than writing the page. Asking for transparent huge pages
//! (as numpy does from 4 MiB) makes one fault per 2 MiB instead (benches/RESULTS.md,
//! "Measurements behind the code", has the measured difference on the allocating bench cases).

use std::mem::MaybeUninit;

use crate::error::{BroadcastError, Dims};

/// Outputs at least this large get the advice (numpy's threshold).
pub(crate) const HUGE_PAGE_ADVICE_BYTES: usize = 4 << 20;

/// An empty buffer with room for exactly `len` elements of `T`, allocated fallibly: the one
/// place where every executor's new output (and every row-major copy of an input) is
/// reserved. `shape` is what the error names; with `advise`, the room is advised for huge
/// pages ([`advise_huge_pages`]) for an output about to be written for the first time.
///
/// # Errors
/// [`BroadcastError::Allocation`] with the bytes asked for when the allocator refuses.
pub(crate) fn reserve<T>(
    len: usize,
    shape: &[usize],
    advise: bool,
) -> Result<Vec<T>, BroadcastError> {
    let mut out: Vec<T> = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|_| BroadcastError::Allocation {
            bytes: len.saturating_mul(std::mem::size_of::<T>()),
            shape: Dims(shape.to_vec()),
        })?;
    if advise {
        advise_huge_pages(&mut out.spare_capacity_mut()[..len]);
    }
    Ok(out)
}

/// Asks the OS to back the 2 MiB-aligned interior of `buf`, an output about to be written
/// for the first time, with transparent huge pages. Best effort: does nothing off Linux, for
/// small buffers, or when the kernel declines.
pub fn advise_huge_pages<T>(buf: &mut [MaybeUninit<T>]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let bytes = std::mem::size_of_val(buf);
        if bytes < HUGE_PAGE_ADVICE_BYTES {
            return;
        }
        let first = buf.as_mut_ptr() as usize;
        let start = first.next_multiple_of(HUGE_PAGE);
        let end = (first + bytes) / HUGE_PAGE * HUGE_PAGE;
        if end > start {
            // SAFETY: `[start, end)` lies inside `buf`, which we borrow mutably and whose
            // contents are uninitialised; MADV_HUGEPAGE only changes how the kernel backs
            // those pages, never their mapping or contents. The result is ignored: without
            // the advice the pages are simply 4 KiB ones.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}
