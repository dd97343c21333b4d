//! One output slot and the handful of ways a run of slots is written.
//!
//! Plain-data lanes (`MaybeUninit<u8 | u16 | u32 | u64>`) and `String` implement the same
//! trait, so one walker serves both: for lanes every operation is a store loop or a `memcpy`,
//! for strings it is `clone_from`, which reuses each slot's existing capacity.

use std::mem::MaybeUninit;

/// An output slot.
pub(crate) trait Slot: Send + Sized {
    /// What the source holds.
    type Value: Sync;

    /// Writes `value` into every slot of `dst`.
    fn fill(dst: &mut [Self], value: &Self::Value);

    /// Writes `src[i]` into `dst[i]`; the lengths are equal.
    fn copy(dst: &mut [Self], src: &[Self::Value]);

    /// Writes `value` into one slot.
    fn set(dst: &mut Self, value: &Self::Value);

    /// Copies `dst[..len]` onto `dst[at..at + len]`; `len <= at` so the ranges do not overlap.
    fn replicate(dst: &mut [Self], at: usize, len: usize);

    /// Slots per stamp when a pattern is stamped out: 256 bytes of plain data, one string.
    const STAMP: usize;

    /// Slots per 64-byte cache line (1 for strings).
    const LINE: usize;

    /// Writes `src[i]` into `dst[i]` from other slots; the lengths are equal.
    fn copy_slots(dst: &mut [Self], src: &[Self]);

    /// Columns per block when whole repeated rows are copied a column block at a time (0:
    /// never). Worth it when reading a source element costs more than its slot's bytes:
    /// a string's header and its heap bytes, which for a 1000-string row no longer fit in L1
    /// (benches/RESULTS.md, "Measurements behind the code").
    const COLUMN_BLOCK: usize;
}

impl<U: Copy + Send + Sync + bytemuck::NoUninit> Slot for MaybeUninit<U> {
    type Value = U;

    #[inline(always)]
    fn fill(dst: &mut [Self], value: &U) {
        // Long fills with the CPU's string store: vector stores fetch every output line
        // before writing it, while `rep stos` on a CPU with fast strings writes whole lines
        // without reading them (benches/RESULTS.md, "Measurements behind the code").
        #[cfg(target_arch = "x86_64")]
        if std::mem::size_of_val(dst) >= REP_STOS_MIN_BYTES && fill_by_rep_stos(dst, value) {
            return;
        }
        dst.fill(MaybeUninit::new(*value));
    }

    #[inline(always)]
    fn copy(dst: &mut [Self], src: &[U]) {
        dst.copy_from_slice(as_uninit(src));
    }

    #[inline(always)]
    fn set(dst: &mut Self, value: &U) {
        *dst = MaybeUninit::new(*value);
    }

    #[inline(always)]
    fn replicate(dst: &mut [Self], at: usize, len: usize) {
        let (done, rest) = dst.split_at_mut(at);
        rest[..len].copy_from_slice(&done[..len]);
    }

    const STAMP: usize = per(256, std::mem::size_of::<U>());
    const LINE: usize = per(64, std::mem::size_of::<U>());

    #[inline(always)]
    fn copy_slots(dst: &mut [Self], src: &[Self]) {
        // One cache line at a time, in address order. A single `copy_from_slice` of a stamp
        // is expanded by LLVM into stores running from the stamp's last line back to its
        // first, which the hardware streams worse (benches/RESULTS.md, "Measurements behind the code").
        let mut d = dst.chunks_exact_mut(Self::LINE);
        let mut s = src.chunks_exact(Self::LINE);
        for (d, s) in (&mut d).zip(&mut s) {
            d.copy_from_slice(s);
        }
        d.into_remainder().copy_from_slice(s.remainder());
    }

    // Plain rows are copied with `memcpy` from an L1-hot row already.
    const COLUMN_BLOCK: usize = 0;
}

impl Slot for String {
    type Value = String;

    #[inline(always)]
    fn fill(dst: &mut [Self], value: &String) {
        for d in dst {
            d.clone_from(value);
        }
    }

    #[inline(always)]
    fn copy(dst: &mut [Self], src: &[String]) {
        dst.clone_from_slice(src);
    }

    #[inline(always)]
    fn set(dst: &mut Self, value: &String) {
        dst.clone_from(value);
    }

    #[inline(always)]
    fn replicate(dst: &mut [Self], at: usize, len: usize) {
        let (done, rest) = dst.split_at_mut(at);
        rest[..len].clone_from_slice(&done[..len]);
    }

    const STAMP: usize = 1;
    const LINE: usize = 1;

    #[inline(always)]
    fn copy_slots(dst: &mut [Self], src: &[Self]) {
        dst.clone_from_slice(src);
    }

    const COLUMN_BLOCK: usize = 128;
}

/// How many `size`-byte slots fit in `bytes` (at least 1).
const fn per(bytes: usize, size: usize) -> usize {
    if size == 0 || size > bytes {
        1
    } else {
        bytes / size
    }
}

/// Views initialised values as possibly-uninitialised ones (always sound: it only forgets).
#[inline]
fn as_uninit<U: Copy>(src: &[U]) -> &[MaybeUninit<U>] {
    // SAFETY: `MaybeUninit<U>` has the size and alignment of `U`, and an initialised `U` is a
    // valid `MaybeUninit<U>`; the shared borrow keeps `src` alive and unaliased by writers.
    unsafe { std::slice::from_raw_parts(src.as_ptr().cast(), src.len()) }
}

/// Fills at least this long use `rep stos` where the CPU has fast strings.
#[cfg(target_arch = "x86_64")]
const REP_STOS_MIN_BYTES: usize = 2048;

/// Fills `dst` with `value` by `rep stos` of the element's width (1, 2, 4 or 8 bytes), when the
/// CPU reports enhanced `rep movsb`/`stosb` (ERMS); returns `false`, writing nothing,
/// otherwise.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fill_by_rep_stos<U: Copy + bytemuck::NoUninit>(dst: &mut [MaybeUninit<U>], value: &U) -> bool {
    use std::arch::asm;
    if !crate::exec::isa::fast_strings() {
        return false;
    }
    let bytes = bytemuck::bytes_of(value);
    let n = dst.len();
    let p = dst.as_mut_ptr();
    // SAFETY: `rep stos` stores `n` items of the width named by the instruction from `p`
    // upwards, and the width is `size_of::<U>()`, so it writes exactly `dst`'s bytes, which we
    // borrow mutably; `MaybeUninit<U>` may hold any bytes, and they are the bytes of a `U`
    // (`value`'s, which has no padding: `NoUninit`). The direction flag is clear on entry to
    // any Rust code (the ABI), so the stores go upwards; `rcx` and `rdi` are declared
    // clobbered, nothing else is touched.
    unsafe {
        match *bytes {
            [b] => {
                asm!("rep stosb", inout("rcx") n => _, inout("rdi") p => _, in("al") b, options(nostack, preserves_flags))
            }
            [b0, b1] => {
                asm!("rep stosw", inout("rcx") n => _, inout("rdi") p => _, in("ax") u16::from_ne_bytes([b0, b1]), options(nostack, preserves_flags))
            }
            [b0, b1, b2, b3] => {
                asm!("rep stosd", inout("rcx") n => _, inout("rdi") p => _, in("eax") u32::from_ne_bytes([b0, b1, b2, b3]), options(nostack, preserves_flags))
            }
            [b0, b1, b2, b3, b4, b5, b6, b7] => {
                asm!("rep stosq", inout("rcx") n => _, inout("rdi") p => _, in("rax") u64::from_ne_bytes([b0, b1, b2, b3, b4, b5, b6, b7]), options(nostack, preserves_flags))
            }
            _ => return false,
        }
    }
    true
}
