//! Gradients: the output gradient of a broadcast summed back to the data's shape.

use std::ffi::{c_int, c_void};

use bcast::{BroadcastError, DType, Parallelism, StridePlan, Summable};
use ndarray::{ArrayViewD, IxDyn};

use crate::error::{guard, Error};
use crate::plan::{bcast_plan, plan_ref};
use crate::threads::threads;
use crate::types::{dst_buffer, dtype_of, plan_args, src_buffer, with_dtype, DTypeCode, ModeCode};

/// The gradient of `bcast_broadcast`: `grad` (row-major, the broadcast's output shape) summed
/// over every axis the data was repeated along, written to `out` (row-major, `data_shape`).
/// Shapes, mode and arguments as for `bcast_plan_create`.
///
/// `dtype` is the element type of both buffers (aligned to it): every integer type (sums
/// wrap in the type, as numpy's `sum(dtype=...)`), F16/BF16 (summed in float, rounded
/// once), F32/F64 (summed in double); `BCAST_DTYPE_BOOL` is `BCAST_ERR_DTYPE`. Float sums
/// are pairwise; the result does not depend on `threads` (as for `bcast_plan_run`).
///
/// Statuses: those of `bcast_plan_create` (but `plan_out`) and of `bcast_plan_run` (but
/// `plan` and `elem_size`: the buffers are checked against `dtype`); `BCAST_ERR_INVALID`
/// also for an unknown `dtype`; `BCAST_ERR_DTYPE` for `BCAST_DTYPE_BOOL`; `BCAST_ERR_ALLOC`
/// when the sums' memory cannot be allocated.
///
/// Ownership: all memory is the caller's; nothing is kept after the call.
///
/// Thread-safety: any number of threads at once, each into its own `out`.
///
/// # Safety
/// Each array pointer is NULL or points to as many readable values as its length says;
/// `grad` is NULL or holds the output element count of readable elements of `dtype`, `out`
/// is NULL or holds the data element count of writable ones.
#[no_mangle]
pub unsafe extern "C" fn bcast_reduce_to_input(
    mode: ModeCode,
    data_shape: *const usize,
    data_rank: usize,
    target_shape: *const usize,
    target_rank: usize,
    mode_args: *const i64,
    n_mode_args: usize,
    dtype: DTypeCode,
    grad: *const c_void,
    out: *mut c_void,
    threads: usize,
) -> c_int {
    const F: &str = "bcast_reduce_to_input";
    guard(|| {
        // SAFETY: the caller's contract on every array and buffer.
        unsafe {
            let args = plan_args(
                F,
                mode,
                data_shape,
                data_rank,
                target_shape,
                target_rank,
                mode_args,
                n_mode_args,
            )?;
            let dtype = dtype_of(dtype, F)?;
            let threads = self::threads(threads, F)?;
            let plan = args.plan()?;
            reduce(&plan, dtype, grad, out, threads.parallelism(), F)
        }
    })
}

/// `bcast_reduce_to_input` with a plan: `grad` (row-major, the plan's output shape) summed
/// back to `out` (row-major, the plan's data shape). `dtype` and `threads` as there.
///
/// Statuses: those of `bcast_reduce_to_input` that are not about shapes or the mode;
/// `BCAST_ERR_NULL` also for a NULL `plan`.
///
/// Ownership: all memory is the caller's. Thread-safety: any number of threads may use the
/// same plan at once, each into its own `out`.
///
/// # Safety
/// `plan` is NULL or a live plan; `grad` is NULL or holds the plan's output element count of
/// readable elements of `dtype`, `out` is NULL or holds its data element count of writable
/// ones.
#[no_mangle]
pub unsafe extern "C" fn bcast_plan_reduce(
    plan: *const bcast_plan,
    dtype: DTypeCode,
    grad: *const c_void,
    out: *mut c_void,
    threads: usize,
) -> c_int {
    const F: &str = "bcast_plan_reduce";
    guard(|| {
        // SAFETY: the caller's contract on the plan and the buffers.
        unsafe {
            let plan = plan_ref(plan, F)?;
            let dtype = dtype_of(dtype, F)?;
            let threads = self::threads(threads, F)?;
            reduce(plan, dtype, grad, out, threads.parallelism(), F)
        }
    })
}

/// # Safety
/// As [`bcast_plan_reduce`]'s buffers.
unsafe fn reduce(
    plan: &StridePlan,
    dtype: DType,
    grad: *const c_void,
    out: *mut c_void,
    par: Parallelism<'_>,
    func: &str,
) -> Result<(), Error> {
    // SAFETY: each arm's function has this function's contract, which is passed on.
    unsafe {
        with_dtype!(numeric dtype, T => reduce_typed::<T>(plan, grad, out, par, func),
            // Bool (and String, which has no code): the library's own refusal.
            other => Err(BroadcastError::UnsupportedType {
                op: "reduce",
                dtype: other.name(),
            }
            .into()))
    }
}

/// # Safety
/// As [`bcast_plan_reduce`]'s buffers, with elements of `T`.
unsafe fn reduce_typed<T: Summable + Copy>(
    plan: &StridePlan,
    grad: *const c_void,
    out: *mut c_void,
    par: Parallelism<'_>,
    func: &str,
) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    let (grad, out) = unsafe {
        let grad = src_buffer::<T>(grad, plan.len(), func, "grad")?;
        (
            grad,
            dst_buffer::<T>(out, plan.source_len(), grad, func, "out")?,
        )
    };
    let grad = ArrayViewD::from_shape(IxDyn(plan.output_shape()), grad)
        .expect("the plan's length is the product of its output shape");
    let sums = bcast::reduce_with_plan(plan, grad, par)?;
    out.copy_from_slice(
        sums.as_slice()
            .expect("reduce_with_plan returns a row-major array"),
    );
    Ok(())
}
