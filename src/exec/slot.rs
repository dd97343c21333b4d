//! Output slots: an executor writes either fresh memory (`MaybeUninit<C>`) or a caller's
//! initialised array ([`Init<C>`]); [`Slot`] is what both have in common, and it promises
//! the layout of `C`, so a kernel may store a vector of `C`s into a run of slots at once.

use std::mem::MaybeUninit;

/// One element of output as an executor sees it.
///
/// # Safety
/// Implementors have the layout of `C` (`repr(transparent)` over it, or `C` itself), so a
/// run of initialised `C`s may be moved over a run of slots byte for byte.
pub(crate) unsafe trait Slot<C>: Send {
    /// Stores `v`.
    fn put(&mut self, v: C);
}

// SAFETY: `MaybeUninit<C>` is `repr(transparent)` over `C`.
unsafe impl<C: Send> Slot<C> for MaybeUninit<C> {
    #[inline(always)]
    fn put(&mut self, v: C) {
        self.write(v);
    }
}

/// An initialised output element (its old value is dropped when overwritten).
#[repr(transparent)]
pub(crate) struct Init<C>(C);

// SAFETY: `Init<C>` is `repr(transparent)` over `C`.
unsafe impl<C: Send> Slot<C> for Init<C> {
    #[inline(always)]
    fn put(&mut self, v: C) {
        self.0 = v;
    }
}

// SAFETY: a `C` has the layout of `C`.
unsafe impl Slot<f32> for f32 {
    #[inline(always)]
    fn put(&mut self, v: f32) {
        *self = v;
    }
}

/// A caller's initialised output as slots.
pub(crate) fn as_init<C>(s: &mut [C]) -> &mut [Init<C>] {
    // SAFETY: `Init<C>` is `repr(transparent)` over `C`, so the slices have the same layout;
    // the borrow is moved, not duplicated.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast(), s.len()) }
}

/// Slots as `MaybeUninit<C>`s, for a kernel that writes through them (the block kernels).
///
/// # Safety
/// `C` has no drop glue (an old value overwritten through the result is not dropped), and
/// the caller stores only whole valid `C`s through the result, never an uninitialised value,
/// so initialised slots stay initialised.
pub(crate) unsafe fn uninit_slots<C, S: Slot<C>>(out: &mut [S]) -> &mut [MaybeUninit<C>] {
    // SAFETY: `Slot<C>` promises the layout of `C`, which `MaybeUninit<C>` has; the borrow is
    // moved, not duplicated; the caller's contract keeps initialised slots initialised.
    unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), out.len()) }
}
