//! Per-thread scratch memory for an executor's temporaries (partial-sum rows, offsets),
//! kept between calls.
//!
//! A temporary allocated and freed on every call looks free, but it is not with glibc's
//! default allocator: when a freed block leaves more than the trim threshold (128 KiB until
//! a large block has been freed once) at the top of a thread's heap, the allocator hands
//! those pages back to the OS, and the next call faults them in again. Every call then pays
//! page faults and, with several threads, the TLB shootdowns of the `madvise`; on a
//! reduction of a few MiB that is a large share of the call (benches/RESULTS.md, "Measurements
//! behind the code"). So executors take their temporaries from here: a few buffers per thread,
//! reused, whatever the allocator.
//!
//! Re-entrant: a thread waiting in `rayon::join` may run another job of the same executor,
//! which takes a buffer of its own (each use takes a buffer out of the thread's list and puts
//! it back when done).

use std::cell::RefCell;

/// Buffers kept per thread ...
const KEEP: usize = 8;
/// ... each at most this large (a larger one is freed after use).
const KEEP_BYTES: usize = 16 << 20;

thread_local! {
    /// Spare buffers of this thread, in 8-byte words (so any element type up to 8 bytes
    /// aligns in them).
    static SPARE: RefCell<Vec<Vec<u64>>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on `len` elements of `A`, all zero bits, taken from this thread's spare
/// buffers (or newly allocated the first time).
///
/// For temporaries whose size is bounded by the executor's own constants (an accumulator
/// row of at most a tile, a slab of sums), not by the input: the allocation is not fallible.
pub(crate) fn with_zeroed<A: bytemuck::Pod, R>(len: usize, f: impl FnOnce(&mut [A]) -> R) -> R {
    const {
        assert!(std::mem::align_of::<A>() <= 8 && 8 % std::mem::size_of::<A>() == 0);
    }
    let words = (len * std::mem::size_of::<A>()).div_ceil(8);
    let mut buf = SPARE.with(|s| s.borrow_mut().pop()).unwrap_or_default();
    buf.clear();
    buf.resize(words, 0);
    let elems: &mut [A] = bytemuck::cast_slice_mut(buf.as_mut_slice());
    let result = f(&mut elems[..len]);
    if buf.capacity() * 8 <= KEEP_BYTES {
        SPARE.with(|s| {
            let mut spare = s.borrow_mut();
            if spare.len() < KEEP {
                spare.push(buf);
            }
        });
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_zeroed_and_reused() {
        let first = with_zeroed::<f64, _>(1000, |s| {
            assert!(s.iter().all(|&x| x.to_bits() == 0));
            s.fill(7.0);
            s.as_ptr() as usize
        });
        // The same thread gets the same memory back, zeroed again.
        let second = with_zeroed::<f64, _>(1000, |s| {
            assert_eq!(s.len(), 1000);
            assert!(s.iter().all(|&x| x.to_bits() == 0));
            s.as_ptr() as usize
        });
        assert_eq!(first, second);
    }

    #[test]
    fn nested_uses_get_distinct_buffers() {
        with_zeroed::<u8, _>(13, |outer| {
            outer.fill(1);
            with_zeroed::<u8, _>(13, |inner| {
                assert!(inner.iter().all(|&x| x == 0));
                assert_ne!(inner.as_ptr(), outer.as_ptr());
            });
            assert!(outer.iter().all(|&x| x == 1));
        });
    }
}
