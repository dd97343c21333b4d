//! One output slot and the handful of ways a run of slots is written.
//!
//! Plain-data lanes (`MaybeUninit<u8 | u16 | u32 | u64>`) and `String` implement the same
//! trait, so one walker serves both: for lanes every operation is a store loop or a `memcpy`,
//! for strings it is `clone_from`, which reuses each slot's existing capacity.

use std::mem::MaybeUninit;

use crate::exec::{FillStores, RowCopies, Strategy};

/// How long fills and row copies are written on this run (from [`Strategy`], read once per
/// run on the calling thread).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stores {
    /// Long fills.
    pub(crate) fill: FillStores,
    /// Long row copies.
    pub(crate) copy: RowCopies,
    /// [`Strategy::prefetch_writes`] for the output (`exec::write_distance`: 0 where the CPU
    /// has no `prefetchw` or the output stays in the core's cache): how far ahead of a short
    /// fill (one of vector stores) its lines are asked for.
    pub(crate) write_ahead: usize,
}

impl Stores {
    /// Ordinary stores and `memcpy`.
    pub(crate) const PLAIN: Stores = Stores {
        fill: FillStores::Vector,
        copy: RowCopies::Memcpy,
        write_ahead: 0,
    };

    /// What `strategy` says for an output of `out_bytes`.
    pub(crate) fn of(strategy: &Strategy, out_bytes: usize) -> Stores {
        Stores {
            fill: strategy.fill,
            copy: strategy.row_copy,
            write_ahead: crate::exec::write_distance(strategy, out_bytes),
        }
    }
}

/// An output slot.
pub(crate) trait Slot: Send + Sized {
    /// What the source holds.
    type Value: Sync;

    /// Writes `value` into every slot of `dst`, long runs as `how` says.
    fn fill(dst: &mut [Self], value: &Self::Value, how: Stores);

    /// Writes `src[i]` into `dst[i]`, long runs as `how` says; the lengths are equal.
    fn copy(dst: &mut [Self], src: &[Self::Value], how: Stores);

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
    /// (README, "Measurements behind the code").
    const COLUMN_BLOCK: usize;
}

impl<U: Copy + Send + Sync + bytemuck::NoUninit> Slot for MaybeUninit<U> {
    type Value = U;

    #[inline(always)]
    fn fill(dst: &mut [Self], value: &U, how: Stores) {
        // Long fills with the CPU's string store where the strategy says so: on those CPUs
        // vector stores fetch every output line before writing it, while `rep stos` with fast
        // strings writes whole lines without reading them (benches/RESULTS.md).
        #[cfg(target_arch = "x86_64")]
        if how.fill == FillStores::RepStos
            && std::mem::size_of_val(dst) >= REP_STOS_MIN_BYTES
            && fill_by_rep_stos(dst, value)
        {
            return;
        }
        // A short fill is vector stores, each of whose lines is fetched before it is written:
        // the lines the write distance ahead (the rows after this one) are asked for first,
        // as the element-wise loops ask for theirs.
        crate::exec::hint_writes(
            dst.as_mut_ptr(),
            std::mem::size_of_val(dst),
            how.write_ahead,
        );
        dst.fill(MaybeUninit::new(*value));
    }

    #[inline(always)]
    fn copy(dst: &mut [Self], src: &[U], how: Stores) {
        // Where `memcpy` of a row is a string move that falls behind vector stores, long rows
        // are copied a line at a time (benches/RESULTS.md).
        if how.copy == RowCopies::Lines && std::mem::size_of_val(dst) >= LINE_COPY_MIN_BYTES {
            Self::copy_slots(dst, as_uninit(src));
            return;
        }
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
        // first, which the hardware streams worse (README, "Measurements behind the code").
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
    fn fill(dst: &mut [Self], value: &String, _: Stores) {
        for d in dst {
            d.clone_from(value);
        }
    }

    #[inline(always)]
    fn copy(dst: &mut [Self], src: &[String], _: Stores) {
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

/// Row copies at least this long take the line loop when the strategy says so (shorter ones
/// are a few vector moves in `memcpy` anyway).
const LINE_COPY_MIN_BYTES: usize = 256;

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

/// An output lane of a run written with non-temporal stores: fills and copies of at least
/// [`STREAM_MIN_BYTES`] stream straight to memory (the caller fences once per chunk, with
/// `exec::store_fence`); shorter ones, and every other way of writing, are ordinary stores.
#[repr(transparent)]
pub(crate) struct Streamed<U>(MaybeUninit<U>);

/// Fills and copies at least this long are streamed (shorter ones would be mostly head and
/// tail).
const STREAM_MIN_BYTES: usize = 256;

impl<U> Streamed<U> {
    /// The lanes of `dst` as streamed slots.
    pub(crate) fn of_lanes(dst: &mut [MaybeUninit<U>]) -> &mut [Streamed<U>] {
        // SAFETY: `Streamed<U>` is `repr(transparent)` over `MaybeUninit<U>`, so the slices
        // have the same layout; the mutable borrow is moved, not duplicated.
        unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast(), dst.len()) }
    }

    fn lanes(dst: &mut [Self]) -> &mut [MaybeUninit<U>] {
        // SAFETY: as in `of_lanes`, the other way round.
        unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast(), dst.len()) }
    }

    fn lanes_of(src: &[Self]) -> &[MaybeUninit<U>] {
        // SAFETY: as in `of_lanes`, for a shared borrow.
        unsafe { std::slice::from_raw_parts(src.as_ptr().cast(), src.len()) }
    }
}

impl<U: Copy + Send + Sync + bytemuck::NoUninit> Slot for Streamed<U> {
    type Value = U;

    #[inline(always)]
    fn fill(dst: &mut [Self], value: &U, how: Stores) {
        if std::mem::size_of_val(dst) >= STREAM_MIN_BYTES {
            crate::exec::fill_streaming_unfenced(Self::lanes(dst), *value);
        } else {
            <MaybeUninit<U> as Slot>::fill(Self::lanes(dst), value, how);
        }
    }

    #[inline(always)]
    fn copy(dst: &mut [Self], src: &[U], how: Stores) {
        if std::mem::size_of_val(dst) >= STREAM_MIN_BYTES {
            crate::exec::copy_streaming_unfenced(Self::lanes(dst), as_uninit(src));
        } else {
            <MaybeUninit<U> as Slot>::copy(Self::lanes(dst), src, how);
        }
    }

    #[inline(always)]
    fn set(dst: &mut Self, value: &U) {
        dst.0 = MaybeUninit::new(*value);
    }

    #[inline(always)]
    fn replicate(dst: &mut [Self], at: usize, len: usize) {
        <MaybeUninit<U> as Slot>::replicate(Self::lanes(dst), at, len);
    }

    const STAMP: usize = <MaybeUninit<U> as Slot>::STAMP;
    const LINE: usize = <MaybeUninit<U> as Slot>::LINE;

    #[inline(always)]
    fn copy_slots(dst: &mut [Self], src: &[Self]) {
        <MaybeUninit<U> as Slot>::copy_slots(Self::lanes(dst), Self::lanes_of(src));
    }

    const COLUMN_BLOCK: usize = 0;
}
