//! The executor: runs any [`StridePlan`] for any element type.
//!
//! Interface (the whole of it): [`execute`] for plain-data lanes written into possibly
//! uninitialised memory, [`execute_clone`] for strings. Both take the same plan and the
//! same [`Parallelism`]; both write every output element exactly once on success.

use std::mem::MaybeUninit;

use crate::error::BroadcastError;
use crate::plan::StridePlan;

/// How the executor may use threads.
#[derive(Debug, Clone, Copy, Default)]
pub enum Parallelism<'a> {
    /// Use rayon's current pool when the output is large enough to gain from it.
    #[default]
    Auto,
    /// Run on the calling thread only.
    Serial,
    /// Run on this rayon pool when the output is large enough to gain from it.
    Pool(&'a rayon::ThreadPool),
}

/// One output slot and how runs of it are written.
pub(crate) trait Slot: Send + Sized {
    /// What the source holds.
    type Value: Sync;
    /// Writes `value` into every slot of `dst`.
    fn fill(dst: &mut [Self], value: &Self::Value);
    /// Writes `src[i]` into `dst[i]`; the lengths are equal.
    fn copy(dst: &mut [Self], src: &[Self::Value]);
}

impl<U: Copy + Send + Sync> Slot for MaybeUninit<U> {
    type Value = U;

    #[inline]
    fn fill(dst: &mut [Self], value: &U) {
        dst.fill(MaybeUninit::new(*value));
    }

    #[inline]
    fn copy(dst: &mut [Self], src: &[U]) {
        debug_assert_eq!(dst.len(), src.len());
        // SAFETY: `MaybeUninit<U>` has the layout of `U`, so `src` can be read as a slice of
        // initialised `MaybeUninit<U>` of the same length.
        let src: &[MaybeUninit<U>] =
            unsafe { std::slice::from_raw_parts(src.as_ptr().cast(), src.len()) };
        dst.copy_from_slice(src);
    }
}

impl Slot for String {
    type Value = String;

    #[inline]
    fn fill(dst: &mut [Self], value: &String) {
        for d in dst {
            d.clone_from(value);
        }
    }

    #[inline]
    fn copy(dst: &mut [Self], src: &[String]) {
        dst.clone_from_slice(src);
    }
}

/// Runs `plan` over plain-data lanes.
///
/// Preconditions (checked; a violation is a bug in this crate, so it panics):
/// `src.len() == plan.source_len()`, `dst.len() == plan.len()`.
///
/// Postcondition on `Ok`: every element of `dst` has been written.
pub(crate) fn execute<U: Copy + Send + Sync>(
    plan: &StridePlan,
    src: &[U],
    dst: &mut [MaybeUninit<U>],
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    run(plan, src, dst, par)
}

/// Runs `plan` over strings, cloning each source element into its output slots.
///
/// Preconditions as [`execute`].
pub(crate) fn execute_clone(
    plan: &StridePlan,
    src: &[String],
    dst: &mut [String],
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    run(plan, src, dst, par)
}

fn run<S: Slot>(
    plan: &StridePlan,
    src: &[S::Value],
    dst: &mut [S],
    _par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    assert_eq!(src.len(), plan.source_len(), "executor: source length");
    assert_eq!(dst.len(), plan.len(), "executor: output length");
    if plan.is_empty() {
        return Ok(());
    }
    write_range(plan, src, dst, 0);
    Ok(())
}

/// Writes output elements `start .. start + dst.len()` of `plan`.
///
/// The position of `start` is found once (one div/mod per axis); after that the walk keeps
/// a multi-index and a source offset that are updated incrementally, row by row.
fn write_range<S: Slot>(plan: &StridePlan, src: &[S::Value], dst: &mut [S], start: usize) {
    let dims = plan.dims();
    let strides = plan.strides();
    let Some((&inner, outer_dims)) = dims.split_last() else {
        // One-element output.
        S::copy(&mut dst[..1], &src[..1]);
        return;
    };
    let inner_stride = strides[dims.len() - 1];
    let outer_strides = &strides[..dims.len() - 1];

    let mut col = start % inner;
    let mut row = start / inner;
    let mut index = vec![0usize; outer_dims.len()];
    let mut base = 0usize;
    for k in (0..outer_dims.len()).rev() {
        index[k] = row % outer_dims[k];
        row /= outer_dims[k];
        base += index[k] * outer_strides[k];
    }

    let mut written = 0usize;
    while written < dst.len() {
        let n = (inner - col).min(dst.len() - written);
        let out = &mut dst[written..written + n];
        match inner_stride {
            0 => S::fill(out, &src[base]),
            1 => S::copy(out, &src[base + col..base + col + n]),
            s => {
                for (j, o) in out.iter_mut().enumerate() {
                    let at = base + (col + j) * s;
                    S::copy(std::slice::from_mut(o), &src[at..at + 1]);
                }
            }
        }
        written += n;
        col = 0;
        for k in (0..outer_dims.len()).rev() {
            index[k] += 1;
            base += outer_strides[k];
            if index[k] < outer_dims[k] {
                break;
            }
            base -= outer_dims[k] * outer_strides[k];
            index[k] = 0;
        }
    }
}
