//! A per-axis list that lives inline up to [`INLINE_RANK`] entries and on the heap beyond.
//!
//! A Broadcast plan holds six lists of about one entry per axis, an element-wise plan three.
//! Allocating each one cost more than the whole copy of a small broadcast, so for the ranks
//! real tensors have (rarely above 6) they sit in fixed arrays inside the plan; a longer list
//! moves to a `Vec`, so any rank still works.

use std::fmt;
use std::ops::{Deref, DerefMut};

/// Entries a list holds before it moves to the heap.
pub(crate) const INLINE_RANK: usize = 8;

/// A list of `Copy` entries, inline while it is short.
///
/// Equality and `Debug` are those of the slice it holds, so a list compares and prints the
/// same whichever storage it is in.
#[derive(Clone)]
pub(crate) enum AxisList<T: Copy> {
    /// `items[..len]` is the list; the rest is filler, never read.
    Inline { len: usize, items: [T; INLINE_RANK] },
    /// A list that outgrew the inline array.
    Heap(Vec<T>),
}

impl<T: Copy + Default> AxisList<T> {
    /// An empty list.
    #[inline]
    pub(crate) fn new() -> Self {
        Self::filled(T::default())
    }
}

impl<T: Copy> AxisList<T> {
    /// An empty list whose inline filler is `fill` (for entry types without a `Default`, such
    /// as an array of `N` strides).
    #[inline]
    pub(crate) fn filled(fill: T) -> Self {
        AxisList::Inline {
            len: 0,
            items: [fill; INLINE_RANK],
        }
    }

    /// Empties the list, keeping its storage.
    #[inline]
    pub(crate) fn clear(&mut self) {
        match self {
            AxisList::Inline { len, .. } => *len = 0,
            AxisList::Heap(v) => v.clear(),
        }
    }

    // Lists grow in place and are not built by value and moved: moving freshly written
    // entries (with wide loads) stalls on store forwarding, and a few such moves cost more
    // than the whole of planning a small broadcast.

    /// Appends `value`, moving the list to the heap when the inline array is full.
    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        match self {
            AxisList::Inline { len, items } if *len < INLINE_RANK => {
                items[*len] = value;
                *len += 1;
            }
            _ => self.extend_from_slice_spilled(&[value]),
        }
    }

    /// Appends `count` copies of `value`.
    #[inline]
    pub(crate) fn extend_repeated(&mut self, value: T, count: usize) {
        match self {
            AxisList::Inline { len, items } if count <= INLINE_RANK - *len => {
                for slot in &mut items[*len..*len + count] {
                    *slot = value;
                }
                *len += count;
            }
            _ => self.extend_repeated_spilled(value, count),
        }
    }

    /// Appends a copy of `values`.
    #[inline]
    pub(crate) fn extend_from_slice(&mut self, values: &[T]) {
        match self {
            AxisList::Inline { len, items } if values.len() <= INLINE_RANK - *len => {
                for (slot, &value) in items[*len..].iter_mut().zip(values) {
                    *slot = value;
                }
                *len += values.len();
            }
            _ => self.extend_from_slice_spilled(values),
        }
    }

    // The heap side, out of line so that the inline side stays a few instructions where it
    // is called.

    #[cold]
    #[inline(never)]
    fn extend_repeated_spilled(&mut self, value: T, count: usize) {
        match self {
            AxisList::Inline { len, items } => {
                let mut heap = heap_copy(&items[..*len], count);
                heap.resize(heap.len() + count, value);
                *self = AxisList::Heap(heap);
            }
            AxisList::Heap(heap) => heap.resize(heap.len().saturating_add(count), value),
        }
    }

    #[cold]
    #[inline(never)]
    fn extend_from_slice_spilled(&mut self, values: &[T]) {
        match self {
            AxisList::Inline { len, items } => {
                let mut heap = heap_copy(&items[..*len], values.len());
                heap.extend_from_slice(values);
                *self = AxisList::Heap(heap);
            }
            AxisList::Heap(heap) => heap.extend_from_slice(values),
        }
    }

    /// Whether the list is in the inline array (for tests of the heap fallback).
    #[cfg(test)]
    pub(crate) fn is_inline(&self) -> bool {
        matches!(self, AxisList::Inline { .. })
    }
}

/// `items` on the heap, with room for `more` (and for a plan's worth of growth).
fn heap_copy<T: Copy>(items: &[T], more: usize) -> Vec<T> {
    let mut heap = Vec::with_capacity(items.len().saturating_add(more).max(2 * INLINE_RANK));
    heap.extend_from_slice(items);
    heap
}

impl<T: Copy> Deref for AxisList<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            AxisList::Inline { len, items } => &items[..*len],
            AxisList::Heap(v) => v,
        }
    }
}

impl<T: Copy> DerefMut for AxisList<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            AxisList::Inline { len, items } => &mut items[..*len],
            AxisList::Heap(v) => v,
        }
    }
}

impl<'a, T: Copy> IntoIterator for &'a AxisList<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy + PartialEq> PartialEq for AxisList<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Copy + Eq> Eq for AxisList<T> {}

impl<T: Copy + fmt::Debug> fmt::Debug for AxisList<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pushed(values: impl Iterator<Item = usize>) -> AxisList<usize> {
        let mut list = AxisList::new();
        for v in values {
            list.push(v);
        }
        list
    }

    fn from_slice<T: Copy + Default>(values: &[T]) -> AxisList<T> {
        let mut list = AxisList::new();
        list.extend_from_slice(values);
        list
    }

    #[test]
    fn entries_without_a_default_fill_inline_and_spill() {
        // The element-wise plan's strides: one array of `N` per axis.
        let mut list = AxisList::filled([0isize; 3]);
        for k in 0..INLINE_RANK as isize {
            list.push([k, -k, 2 * k]);
        }
        assert!(list.is_inline());
        list.push([9, 9, 9]);
        assert!(!list.is_inline());
        let expected: Vec<[isize; 3]> = (0..INLINE_RANK as isize)
            .map(|k| [k, -k, 2 * k])
            .chain([[9, 9, 9]])
            .collect();
        assert_eq!(&*list, &expected[..]);
    }

    #[test]
    fn a_short_list_stays_inline() {
        let list = pushed(0..INLINE_RANK);
        assert!(list.is_inline());
        assert_eq!(&*list, &(0..INLINE_RANK).collect::<Vec<_>>()[..]);
    }

    #[test]
    fn pushing_past_the_inline_array_keeps_every_entry() {
        let list = pushed((0..3 * INLINE_RANK).map(|i| i * 7));
        assert!(!list.is_inline());
        let expected: Vec<usize> = (0..3 * INLINE_RANK).map(|i| i * 7).collect();
        assert_eq!(&*list, &expected[..]);
    }

    #[test]
    fn extending_matches_vec_at_every_length_around_the_limit() {
        for n in [0, 1, INLINE_RANK - 1, INLINE_RANK, INLINE_RANK + 1, 40] {
            let mut repeated = AxisList::new();
            repeated.extend_repeated(Some(3usize), n);
            assert_eq!(&*repeated, &vec![Some(3usize); n][..]);
            assert_eq!(repeated.is_inline(), n <= INLINE_RANK);
            let values: Vec<usize> = (0..n).map(|i| i + 100).collect();
            let list = from_slice(&values);
            assert_eq!(&*list, &values[..]);
            assert_eq!(list.is_inline(), n <= INLINE_RANK);
        }
    }

    #[test]
    fn every_way_of_growing_past_the_limit_keeps_order() {
        let mut list = pushed(0..5);
        list.extend_from_slice(&[5, 6, 7, 8, 9]);
        assert!(!list.is_inline());
        list.extend_repeated(42, 3);
        list.push(99);
        list.extend_from_slice(&[100]);
        assert_eq!(&*list, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 42, 42, 42, 99, 100]);

        let mut list = pushed(0..7);
        list.extend_repeated(7, 2);
        assert!(!list.is_inline());
        assert_eq!(&*list, &[0, 1, 2, 3, 4, 5, 6, 7, 7]);

        // Cleared heap lists are reused from empty.
        list.clear();
        list.extend_from_slice(&[3, 1]);
        assert_eq!(&*list, &[3, 1]);
    }

    #[test]
    fn inline_and_heap_lists_with_the_same_entries_are_equal() {
        let mut heap = AxisList::Heap(vec![1usize, 2, 3]);
        let inline = from_slice(&[1usize, 2, 3]);
        assert_eq!(heap, inline);
        assert_eq!(format!("{heap:?}"), "[1, 2, 3]");
        heap[0] = 9;
        assert_ne!(heap, inline);
    }

    #[test]
    fn the_filler_past_the_length_is_not_compared() {
        let mut a = from_slice(&[1usize, 2, 3]);
        a.push(4);
        let b = from_slice(&[1usize, 2, 3, 4]);
        assert_eq!(a, b);
        let short = from_slice(&[1usize, 2, 3]);
        assert_ne!(a, short);
    }
}
