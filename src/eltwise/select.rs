//! Select: `out = cond ? then : else`, with `cond` bool and `then`/`else` of any element type
//! (strings included), all three read in place.
//!
//! **Rule** (measured on OpenVINO 2026.4's reference, which we follow):
//! - `numpy`: `cond`, `then` and `else` broadcast together multidirectionally (cond [2,1,1,2],
//!   then [1,1,4,1], else [2] give [2,1,4,2]). The Select-1 spec text says `then` and `else`
//!   broadcast to each other and `cond` one way onto that; OpenVINO also stretches `then` and
//!   `else` to `cond`, and so do we (a departure from the spec's wording, not its runtime).
//! - `none`: all three shapes equal.
//! - `pdpd`: the output is `then`'s shape; `else` and `cond` are each PDPD-broadcast onto it
//!   with the same axis (`then` itself never stretches).

use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD};

use super::exec::{run_select, Fresh, Into};
use crate::auto_broadcast::AutoBroadcast;
use crate::error::BroadcastError;
use crate::exec::Parallelism;

/// `cond ? then : else_` element-wise under `spec` (see the [module rule](self)).
///
/// For any `T: Clone`, each pick cloned; the Select of the typed views
/// ([`crate::select_view`], prepared ops, the C and Python faces) moves the crate's numeric
/// and bool values as bits, in vector registers where the strategy says so.
///
/// # Errors
/// The broken rule's error ([`BroadcastError::ShapesDiffer`], [`BroadcastError::Incompatible`],
/// [`BroadcastError::PdpdAxis`], [`BroadcastError::DimMismatch`]),
/// [`BroadcastError::ShapeOverflow`], [`BroadcastError::Allocation`],
/// [`BroadcastError::WorkerPanicked`].
///
/// ```
/// use bcast::{select, AutoBroadcast};
/// use ndarray::array;
/// let cond = array![[true], [false]].into_dyn();
/// let then = array![1.0f32, 2.0, 3.0].into_dyn();
/// let else_ = ndarray::arr0(-1.0f32).into_dyn();
/// let out = select(cond.view(), then.view(), else_.view(), &AutoBroadcast::Numpy)?;
/// assert_eq!(out, array![[1.0, 2.0, 3.0], [-1.0, -1.0, -1.0]].into_dyn());
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn select<T: Clone + Send + Sync>(
    cond: ArrayViewD<'_, bool>,
    then: ArrayViewD<'_, T>,
    else_: ArrayViewD<'_, T>,
    spec: &AutoBroadcast,
) -> Result<ArrayD<T>, BroadcastError> {
    run_select(&cond, &then, &else_, spec, Fresh, Parallelism::Auto, false)
}

/// [`select`] into `out`, which must have the output's shape (a row-major `out` is written in
/// place with no allocation).
///
/// # Errors
/// As [`select`]; [`BroadcastError::OutputShape`] when `out` has another shape.
pub fn select_into<T: Clone + Send + Sync>(
    cond: ArrayViewD<'_, bool>,
    then: ArrayViewD<'_, T>,
    else_: ArrayViewD<'_, T>,
    spec: &AutoBroadcast,
    out: ArrayViewMutD<'_, T>,
) -> Result<(), BroadcastError> {
    select_into_with(cond, then, else_, spec, out, Parallelism::Auto)
}

/// [`select_into`] with a choice of threads.
///
/// # Errors
/// As [`select_into`].
pub fn select_into_with<T: Clone + Send + Sync>(
    cond: ArrayViewD<'_, bool>,
    then: ArrayViewD<'_, T>,
    else_: ArrayViewD<'_, T>,
    spec: &AutoBroadcast,
    out: ArrayViewMutD<'_, T>,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    run_select(&cond, &then, &else_, spec, Into(out), par, false)
}
