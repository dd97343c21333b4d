//! The gradient of a broadcast: the output gradient summed back to the data's shape.
//!
//! nGraph's Broadcast spec states the backward rule: the adjoint of a broadcast sums the
//! output gradient over the broadcast axes. With the plan's
//! [`source_axes`](StridePlan::source_axes) that is, for every mode, a sum over each output
//! axis the data does not move along (a new axis, or a size-1 data axis stretched), the
//! result taking the data's shape. An output axis of size 0 leaves nothing to sum: zeros.
//!
//! Numbers: integers wrap in their own type (numpy's `sum(dtype=...)`); `f16`/`bf16` are
//! summed in `f32` and `f32`/`f64` in `f64`, rounded once; float sums are pairwise, so the
//! error grows as `O(log n)`. The summation order is fixed by the shapes alone, so results
//! are bit-identical with or without threads.

mod exec;
mod layout;
mod sum;

use ndarray::{ArrayD, ArrayViewD, IxDyn};

use crate::dtype::{dtype_table, numeric_dispatch};
use crate::error::BroadcastError;
use crate::exec::{self as shared, guarded, Parallelism};
use crate::mode::Mode;
use crate::plan::StridePlan;
use crate::planners::{self, plan_multi};
use crate::tensor::Tensor;

use self::layout::Layout;

mod sealed {
    pub trait Sealed {}
}

/// An element type a gradient can be summed in: every integer type, `f16`, `bf16`, `f32`,
/// `f64` (not `bool`, not `String`). Sealed.
pub trait Summable: sum::Sum + sealed::Sealed {}

/// One table row's `Summable` impl: every integer and float kind.
macro_rules! summable_impl {
    ($t:ty, Bool) => {};
    ($t:ty, Text) => {};
    ($t:ty, $kind:ident) => {
        impl sealed::Sealed for $t {}
        impl Summable for $t {}
    };
}

macro_rules! define_summable {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        $(summable_impl!($t, $kind);)*
    };
}
dtype_table!(define_summable!);

/// Runs `$body` with `$g` bound to the array of a summable tensor and `$wrap` to its
/// constructor; other tensors return [`BroadcastError::UnsupportedType`].
macro_rules! summable_dispatch {
    ($t:expr, $g:ident, $wrap:ident => $body:expr) => {
        numeric_dispatch!($t, $g, $wrap => $body, _ => Err(BroadcastError::UnsupportedType {
            op: "reduce",
            dtype: $t.dtype().name(),
        }))
    };
}

/// The gradient of [`crate::broadcast`]: `grad`, shaped as the broadcast's output, summed
/// over every axis the data was repeated along, in the data's shape.
///
/// This is the adjoint of the broadcast: for every `x` of `data_shape` and every `g` of the
/// output shape, `<reduce_to_input(g), x> == <g, broadcast(x)>`. Any layout of `grad` is
/// accepted (a non-row-major one is copied first). Uses rayon when the gradient is large.
///
/// # Errors
/// The [`BroadcastError`] naming the rule the shapes break;
/// [`BroadcastError::OutputShape`] if `grad` does not have the broadcast's output shape;
/// [`BroadcastError::Allocation`] if the result cannot be allocated.
///
/// # Examples
/// ```
/// use bcast::{reduce_to_input, Mode};
/// use ndarray::array;
///
/// // A [3] bias broadcast over a [2,3] batch: its gradient sums the batch axis.
/// let grad = array![[1.0f32, 2.0, 3.0], [10.0, 20.0, 30.0]].into_dyn();
/// let bias_grad = reduce_to_input(grad.view(), &[3], &[2, 3], &Mode::Numpy)?;
/// assert_eq!(bias_grad, array![11.0f32, 22.0, 33.0].into_dyn());
///
/// // Integers wrap in their own type, as numpy's sum with dtype=uint8 does.
/// let grad = array![[200u8, 100]].into_dyn();
/// let col = reduce_to_input(grad.view(), &[1, 1], &[1, 2], &Mode::Numpy)?;
/// assert_eq!(col, array![[44u8]].into_dyn());
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn reduce_to_input<T: Summable>(
    grad: ArrayViewD<'_, T>,
    data_shape: &[usize],
    target_shape: &[usize],
    mode: &Mode,
) -> Result<ArrayD<T>, BroadcastError> {
    reduce_to_input_with(grad, data_shape, target_shape, mode, Parallelism::Auto)
}

/// [`reduce_to_input`] with a choice of threads. The result does not depend on it.
///
/// # Errors
/// As [`reduce_to_input`].
pub fn reduce_to_input_with<T: Summable>(
    grad: ArrayViewD<'_, T>,
    data_shape: &[usize],
    target_shape: &[usize],
    mode: &Mode,
    par: Parallelism<'_>,
) -> Result<ArrayD<T>, BroadcastError> {
    let plan = planners::plan(data_shape, target_shape, mode)?;
    reduce_with_plan(&plan, grad, par)
}

/// The gradient of [`crate::broadcast_all`]: one reduction of `grad` (shaped as the common
/// shape) per input shape, in order.
///
/// # Errors
/// As [`crate::broadcast_shapes`], and [`BroadcastError::OutputShape`] if `grad` does not
/// have the common shape.
///
/// ```
/// use ndarray::array;
/// let grad = array![[1i32, 2, 3], [4, 5, 6]].into_dyn();
/// let grads = bcast::reduce_to_inputs(grad.view(), &[&[2, 1], &[3]])?;
/// assert_eq!(grads[0], array![[6], [15]].into_dyn());
/// assert_eq!(grads[1], array![5, 7, 9].into_dyn());
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn reduce_to_inputs<T: Summable>(
    grad: ArrayViewD<'_, T>,
    shapes: &[&[usize]],
) -> Result<Vec<ArrayD<T>>, BroadcastError> {
    let plans = plan_multi(shapes)?;
    let Some(first) = plans.first() else {
        return Ok(Vec::new());
    };
    check_grad(first, grad.shape())?;
    // One row-major copy (if any) for every input's reduction.
    let grad = shared::row_major(&grad)?;
    plans
        .iter()
        .map(|plan| reduce_slice(plan, &grad, Parallelism::Auto))
        .collect()
}

/// Reduces `grad` (shaped as `plan`'s output) to `plan`'s source shape.
///
/// # Errors
/// [`BroadcastError::OutputShape`] if `grad` does not have the plan's output shape;
/// [`BroadcastError::Allocation`]; [`BroadcastError::WorkerPanicked`] if a worker thread
/// failed (a bug: nothing is returned).
pub fn reduce_with_plan<T: Summable>(
    plan: &StridePlan,
    grad: ArrayViewD<'_, T>,
    par: Parallelism<'_>,
) -> Result<ArrayD<T>, BroadcastError> {
    check_grad(plan, grad.shape())?;
    reduce_slice(plan, &shared::row_major(&grad)?, par)
}

/// [`reduce_with_plan`] of a row-major gradient of the plan's output shape.
fn reduce_slice<T: Summable>(
    plan: &StridePlan,
    grad: &[T],
    par: Parallelism<'_>,
) -> Result<ArrayD<T>, BroadcastError> {
    debug_assert_eq!(grad.len(), plan.len());
    let data_len = plan.source_len();
    let mut out: Vec<T> = shared::reserve(data_len, plan.source_shape(), false)?;
    out.resize(data_len, T::narrow(<T::Acc as sum::Acc>::ZERO));
    // An empty gradient (an output axis of size 0) sums to zeros of the data's shape.
    if !plan.is_empty() {
        let layout = Layout::new(plan);
        // The reduction hands its pairwise trees to rayon itself (ARCHITECTURE.md says why):
        // on a team or a host's pool it runs on the calling thread.
        let bytes = std::mem::size_of_val(grad);
        let par = par.threads_only();
        let threads = match par {
            Parallelism::Auto if !shared::in_job() => {
                shared::threads_for_rayon(bytes, rayon::current_num_threads())
            }
            Parallelism::Team(_) | Parallelism::Host(_) => 1,
            _ => shared::threads_for(bytes, par),
        };
        let out = &mut out;
        let isa = shared::isa::Avx2::detect();
        if threads <= 1 {
            exec::reduce_into(grad, &layout, out, isa, None);
        } else {
            match par {
                Parallelism::Serial
                | Parallelism::Team(_)
                | Parallelism::Host(_)
                | Parallelism::Context(_) => {
                    unreachable!("one thread, or resolved to its threads")
                }
                Parallelism::Auto => {
                    guarded(|| exec::reduce_into(grad, &layout, out, isa, Some(threads)))?;
                }
                Parallelism::Pool(pool) => guarded(|| {
                    pool.install(|| exec::reduce_into(grad, &layout, out, isa, Some(threads)))
                })?,
            }
        }
    }
    Ok(ArrayD::from_shape_vec(IxDyn(plan.source_shape()), out)
        .expect("the plan's source length is the product of its source shape"))
}

/// [`reduce_to_input`] for a tensor of any element type.
///
/// # Errors
/// [`BroadcastError::UnsupportedType`] for `bool` and `string` gradients, otherwise as
/// [`reduce_to_input`].
///
/// ```
/// use bcast::{reduce_to_input_tensor, Mode, Tensor};
/// use ndarray::array;
/// let grad = Tensor::I64(array![[1i64, 2], [3, 4]].into_dyn());
/// let out = reduce_to_input_tensor(&grad, &[2], &[2, 2], &Mode::Explicit { axes_mapping: vec![0] })?;
/// assert_eq!(out, Tensor::I64(array![3i64, 7].into_dyn()));
/// assert!(reduce_to_input_tensor(&Tensor::Bool(array![true].into_dyn()), &[1], &[1], &Mode::Numpy).is_err());
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn reduce_to_input_tensor(
    grad: &Tensor,
    data_shape: &[usize],
    target_shape: &[usize],
    mode: &Mode,
) -> Result<Tensor, BroadcastError> {
    let plan = planners::plan(data_shape, target_shape, mode);
    summable_dispatch!(grad, g, W => Ok(W(reduce_with_plan(&plan?, g.view(), Parallelism::Auto)?)))
}

/// [`reduce_to_inputs`] for a tensor of any element type.
///
/// # Errors
/// [`BroadcastError::UnsupportedType`] for `bool` and `string` gradients, otherwise as
/// [`reduce_to_inputs`].
pub fn reduce_to_inputs_tensor(
    grad: &Tensor,
    shapes: &[&[usize]],
) -> Result<Vec<Tensor>, BroadcastError> {
    summable_dispatch!(grad, g, W => Ok(reduce_to_inputs(g.view(), shapes)?
        .into_iter()
        .map(W)
        .collect()))
}

fn check_grad(plan: &StridePlan, grad_shape: &[usize]) -> Result<(), BroadcastError> {
    shared::check_shape(plan.output_shape(), grad_shape, |expected, actual| {
        BroadcastError::OutputShape { expected, actual }
    })
}
