//! Plans: made once (a runtime's compile time), run many times.

use std::ffi::{c_int, c_void};

use bcast::{Element, Parallelism, StridePlan};
use ndarray::{ArrayViewD, ArrayViewMutD, IxDyn};

use crate::error::{bcast_status, guard, Error};
use crate::threads::threads;
use crate::types::{dst_buffer, null_out, plan_args, src_buffer, ModeCode};

/// A broadcast planned once for one data shape, target shape and mode: the output shape and
/// where every output element comes from. Opaque; made by `bcast_plan_create`, freed by
/// `bcast_plan_free`.
///
/// A plan is immutable once made: any number of threads may run (and query) the same plan at
/// once.
pub struct bcast_plan {
    pub(crate) plan: StridePlan,
}

/// Plans `data_shape` (`data_rank` dims) broadcast to `target_shape` (`target_rank` dims)
/// under `mode`, with the mode's arguments `mode_args` (`n_mode_args` values):
/// `axes_mapping` for `BCAST_MODE_EXPLICIT`, `[axis]` for `BCAST_MODE_PDPD` (none: -1),
/// `broadcast_axes` for `BCAST_MODE_AXES`, none for the others. A shape pointer may be NULL
/// when its rank is 0.
///
/// Returns `BCAST_OK` and stores a new plan in `*plan_out`, or a status and stores NULL
/// there (when `plan_out` is not NULL).
///
/// Statuses: `BCAST_ERR_SHAPE` when the shapes break the mode's rule (the message names it);
/// `BCAST_ERR_INVALID` for an unknown `mode`, `mode_args` the mode does not take, or a
/// negative axis; `BCAST_ERR_RANK` for a rank or `n_mode_args` above `BCAST_MAX_RANK`;
/// `BCAST_ERR_OVERFLOW` for a shape whose element count overflows; `BCAST_ERR_NULL` for a
/// NULL `plan_out`, or a NULL array with a non-zero length; `BCAST_ERR_ALIGN` for an array
/// not aligned to its element size.
///
/// Ownership: the plan belongs to the caller, who frees it with `bcast_plan_free`. The shape
/// and argument arrays are only read during the call.
///
/// Thread-safety: may be called from any number of threads at once.
///
/// # Safety
/// Each array pointer is NULL or points to as many readable values as its length says;
/// `plan_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_plan_create(
    mode: ModeCode,
    data_shape: *const usize,
    data_rank: usize,
    target_shape: *const usize,
    target_rank: usize,
    mode_args: *const i64,
    n_mode_args: usize,
    plan_out: *mut *mut bcast_plan,
) -> c_int {
    const F: &str = "bcast_plan_create";
    guard(|| {
        if plan_out.is_null() {
            return Err(null_out(F, "plan_out"));
        }
        // SAFETY: non-NULL; the caller's pointer to a `bcast_plan *` (unaligned writes: a
        // misaligned pointer is no crash either).
        unsafe { plan_out.write_unaligned(std::ptr::null_mut()) };
        // SAFETY: the caller's contract on the arrays.
        let args = unsafe {
            plan_args(
                F,
                mode,
                data_shape,
                data_rank,
                target_shape,
                target_rank,
                mode_args,
                n_mode_args,
            )?
        };
        let plan = Box::new(bcast_plan { plan: args.plan()? });
        // SAFETY: as above.
        unsafe { plan_out.write_unaligned(Box::into_raw(plan)) };
        Ok(())
    })
}

/// Writes the plan's output shape to `shape[0..rank]` and its rank to `*rank_out`.
///
/// Statuses: `BCAST_ERR_CAPACITY` if `capacity` (the number of `size_t` that `shape` holds)
/// is smaller than the rank: nothing is written to `shape`, but `*rank_out` holds the rank
/// needed (`capacity` = `BCAST_MAX_RANK` is always enough; `shape` may be NULL when
/// `capacity` is 0); `BCAST_ERR_NULL` for a NULL `plan` or `rank_out`, or a NULL `shape`
/// that has a rank to hold; `BCAST_ERR_ALIGN` for a `shape` not aligned to `size_t`.
///
/// Ownership: all memory is the caller's. Thread-safety: any number of threads at once.
///
/// # Safety
/// `plan` is NULL or a live plan; `shape` is NULL or holds `capacity` writable `size_t`;
/// `rank_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_plan_output_shape(
    plan: *const bcast_plan,
    shape: *mut usize,
    capacity: usize,
    rank_out: *mut usize,
) -> c_int {
    const F: &str = "bcast_plan_output_shape";
    guard(|| {
        // SAFETY: the caller's contract: NULL or a live plan.
        let plan = unsafe { plan_ref(plan, F)? };
        // SAFETY: the caller's contract on `shape` and `rank_out`.
        unsafe { write_shape(plan.output_shape(), shape, capacity, rank_out, F) }
    })
}

/// Stores the number of elements of the plan's output (the product of its output shape) in
/// `*len_out`: the size, in elements, of the `dst` buffer `bcast_plan_run` writes.
///
/// Statuses: `BCAST_ERR_NULL` for a NULL `plan` or `len_out`.
///
/// Ownership: all memory is the caller's. Thread-safety: any number of threads at once.
///
/// # Safety
/// `plan` is NULL or a live plan; `len_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_plan_output_len(
    plan: *const bcast_plan,
    len_out: *mut usize,
) -> c_int {
    const F: &str = "bcast_plan_output_len";
    guard(|| {
        // SAFETY: the caller's contract: NULL or a live plan.
        let plan = unsafe { plan_ref(plan, F)? };
        if len_out.is_null() {
            return Err(null_out(F, "len_out"));
        }
        // SAFETY: non-NULL; the caller's pointer to a size_t.
        unsafe { len_out.write_unaligned(plan.len()) };
        Ok(())
    })
}

/// Runs the plan: reads `src` (row-major, the plan's data shape) and writes every element of
/// `dst` (row-major, the plan's output shape). Elements are copied bit for bit, so one
/// `elem_size` (1, 2, 4 or 8 bytes) serves every type of that size; both buffers must be
/// aligned to it. `threads`: 0 = automatic (rayon's global pool, only for outputs large
/// enough to gain), 1 = the calling thread only, N > 1 = a pool of N threads (made on first
/// use, then kept until `bcast_release_pools`). A buffer may be NULL when it has no
/// elements.
///
/// Statuses: `BCAST_ERR_ELEM_SIZE` for an `elem_size` other than 1, 2, 4 or 8;
/// `BCAST_ERR_THREADS` for `threads` above `BCAST_MAX_THREADS` or a pool that cannot be
/// started; `BCAST_ERR_NULL` for a NULL `plan`, or a NULL buffer that has elements;
/// `BCAST_ERR_ALIGN` for a buffer not aligned to `elem_size`; `BCAST_ERR_INVALID` for `src`
/// and `dst` overlapping; `BCAST_ERR_OVERFLOW` for a buffer whose size in bytes exceeds
/// `PTRDIFF_MAX`.
///
/// Ownership: all memory is the caller's; nothing is kept after the call.
///
/// Thread-safety: any number of threads may run the same plan at once, each into its own
/// `dst`.
///
/// # Safety
/// `plan` is NULL or a live plan; `src` is NULL or holds the plan's data element count of
/// readable elements of `elem_size` bytes, `dst` is NULL or holds its output element count
/// of writable ones.
#[no_mangle]
pub unsafe extern "C" fn bcast_plan_run(
    plan: *const bcast_plan,
    src: *const c_void,
    dst: *mut c_void,
    elem_size: usize,
    threads: usize,
) -> c_int {
    const F: &str = "bcast_plan_run";
    guard(|| {
        // SAFETY: the caller's contract: NULL or a live plan.
        let plan = unsafe { plan_ref(plan, F)? };
        check_elem_size(elem_size, F)?;
        let threads = self::threads(threads, F)?;
        // SAFETY: the caller's contract on the buffers.
        unsafe { run_bits(plan, src, dst, elem_size, threads.parallelism(), F) }
    })
}

/// Frees a plan made by `bcast_plan_create`. NULL is allowed (nothing happens).
///
/// Ownership: the plan must not be used after this, nor freed twice.
///
/// Thread-safety: no other thread may be using the plan.
///
/// # Safety
/// `plan` is NULL or a plan from `bcast_plan_create` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn bcast_plan_free(plan: *mut bcast_plan) {
    if !plan.is_null() {
        // SAFETY: the caller's contract: a plan from `bcast_plan_create`, not yet freed.
        let plan = unsafe { Box::from_raw(plan) };
        // Dropping a plan frees its lists and does not panic; guarded all the same.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(plan)));
    }
}

/// The plan behind a caller's pointer.
///
/// # Safety
/// `plan` is NULL or a live plan from `bcast_plan_create`.
pub(crate) unsafe fn plan_ref<'a>(
    plan: *const bcast_plan,
    func: &str,
) -> Result<&'a StridePlan, Error> {
    // SAFETY: the caller's contract.
    match unsafe { plan.as_ref() } {
        Some(p) => Ok(&p.plan),
        None => Err(null_out(func, "plan")),
    }
}

/// Writes `dims` to the caller's `shape` / `rank_out`.
///
/// # Safety
/// `shape` is NULL or holds `capacity` writable `size_t`; `rank_out` is NULL or writable.
pub(crate) unsafe fn write_shape(
    dims: &[usize],
    shape: *mut usize,
    capacity: usize,
    rank_out: *mut usize,
    func: &str,
) -> Result<(), Error> {
    if rank_out.is_null() {
        return Err(null_out(func, "rank_out"));
    }
    // SAFETY: non-NULL and writable (the contract).
    unsafe { rank_out.write_unaligned(dims.len()) };
    if capacity < dims.len() {
        return Err(Error::new(
            bcast_status::BCAST_ERR_CAPACITY,
            format!(
                "{func}: the output shape has rank {} but capacity is {capacity}",
                dims.len()
            ),
        ));
    }
    if dims.is_empty() {
        return Ok(());
    }
    if shape.is_null() {
        return Err(null_out(func, "shape"));
    }
    if !shape.is_aligned() {
        return Err(crate::types::misaligned(
            func,
            "shape",
            std::mem::align_of::<usize>(),
        ));
    }
    // SAFETY: non-NULL, aligned, `capacity >= dims.len()` writable values (the contract).
    unsafe { std::ptr::copy_nonoverlapping(dims.as_ptr(), shape, dims.len()) };
    Ok(())
}

pub(crate) fn check_elem_size(elem_size: usize, func: &str) -> Result<(), Error> {
    match elem_size {
        1 | 2 | 4 | 8 => Ok(()),
        _ => Err(Error::new(
            bcast_status::BCAST_ERR_ELEM_SIZE,
            format!("{func}: elem_size {elem_size} is not 1, 2, 4 or 8"),
        )),
    }
}

/// Runs `plan` from the row-major `src` into `dst`, as lanes of `elem_size` bytes.
///
/// # Safety
/// As [`bcast_plan_run`]'s buffers.
pub(crate) unsafe fn run_bits(
    plan: &StridePlan,
    src: *const c_void,
    dst: *mut c_void,
    elem_size: usize,
    par: Parallelism<'_>,
    func: &str,
) -> Result<(), Error> {
    // SAFETY: each arm's function has this function's contract, which is passed on.
    unsafe {
        match elem_size {
            1 => run_typed::<u8>(plan, src, dst, par, func),
            2 => run_typed::<u16>(plan, src, dst, par, func),
            4 => run_typed::<u32>(plan, src, dst, par, func),
            8 => run_typed::<u64>(plan, src, dst, par, func),
            _ => Err(check_elem_size(elem_size, func).unwrap_err()),
        }
    }
}

/// # Safety
/// As [`bcast_plan_run`]'s buffers.
unsafe fn run_typed<T: Element + Copy>(
    plan: &StridePlan,
    src: *const c_void,
    dst: *mut c_void,
    par: Parallelism<'_>,
    func: &str,
) -> Result<(), Error> {
    // SAFETY: the caller's contract.
    unsafe {
        let src = src_buffer::<T>(src, plan.source_len(), func, "src")?;
        run_slice(plan, src, dst, par, func)
    }
}

/// Runs `plan` from the row-major `src` (already checked) into the caller's `dst`.
///
/// # Safety
/// As [`bcast_plan_run`]'s `dst`.
pub(crate) unsafe fn run_slice<T: Element + Copy>(
    plan: &StridePlan,
    src: &[T],
    dst: *mut c_void,
    par: Parallelism<'_>,
    func: &str,
) -> Result<(), Error> {
    // SAFETY: the caller's contract on `dst`.
    let dst = unsafe { dst_buffer::<T>(dst, plan.len(), src, func, "dst")? };
    let src = ArrayViewD::from_shape(IxDyn(plan.source_shape()), src)
        .expect("the plan's source length is the product of its source shape");
    let dst = ArrayViewMutD::from_shape(IxDyn(plan.output_shape()), dst)
        .expect("the plan's length is the product of its output shape");
    bcast::run_plan_into(plan, src, dst, par)?;
    Ok(())
}
