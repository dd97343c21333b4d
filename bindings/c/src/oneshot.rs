//! One-shot calls: plan and run (or only shape) in one call, for callers that do not keep
//! plans.

use std::ffi::{c_int, c_void};

use bcast::{Element, Parallelism, StridePlan};

use crate::error::{bcast_status, guard, Error};
use crate::plan::{check_elem_size, run_bits, run_slice, write_shape};
use crate::threads::threads;
use crate::types::{misaligned, null, plan_args, ModeCode, BCAST_MAX_RANK};

/// The output shape of `data_shape` broadcast to `target_shape` under `mode` (arguments as
/// `bcast_plan_create`'s), written to `shape[0..rank]`, its rank to `*rank_out`.
///
/// Statuses: those of `bcast_plan_create` (but `plan_out`) and of `bcast_plan_output_shape`
/// (but `plan`): `BCAST_ERR_SHAPE` if the shapes break the mode's rule;
/// `BCAST_ERR_CAPACITY` if `capacity` is smaller than the rank (then `*rank_out` holds the
/// rank needed).
///
/// Ownership: all memory is the caller's. Thread-safety: any number of threads at once.
///
/// # Safety
/// Each array pointer is NULL or points to as many readable values as its length says;
/// `shape` is NULL or holds `capacity` writable `size_t`; `rank_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_output_shape(
    mode: ModeCode,
    data_shape: *const usize,
    data_rank: usize,
    target_shape: *const usize,
    target_rank: usize,
    mode_args: *const i64,
    n_mode_args: usize,
    shape: *mut usize,
    capacity: usize,
    rank_out: *mut usize,
) -> c_int {
    const F: &str = "bcast_output_shape";
    guard(|| {
        // SAFETY: the caller's contract on every array.
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
            let plan = args.plan()?;
            write_shape(plan.output_shape(), shape, capacity, rank_out, F)
        }
    })
}

/// Broadcasts `src` (data shape `data_shape`) to `dst` (row-major, the output shape, which
/// `bcast_output_shape` gives) under `mode` (arguments as `bcast_plan_create`'s) in one call.
///
/// `src_strides`: NULL for a row-major `src`, or `data_rank` strides in elements (negative
/// and zero strides allowed), `src` pointing at element (0, ..., 0): a runtime's
/// non-contiguous tensor, read in logical order. `elem_size` and `threads` as for
/// `bcast_plan_run`; both buffers aligned to `elem_size`, not overlapping.
///
/// Statuses: those of `bcast_plan_create` (but `plan_out`) and of `bcast_plan_run` (but
/// `plan`); `BCAST_ERR_OVERFLOW` also for `src_strides` that reach beyond `PTRDIFF_MAX`
/// bytes; `BCAST_ERR_ALLOC` when the row-major copy of a strided `src` cannot be allocated.
///
/// Ownership: all memory is the caller's; nothing is kept after the call.
///
/// Thread-safety: any number of threads at once, each into its own `dst`.
///
/// # Safety
/// Each array pointer is NULL or points to as many readable values as its length says;
/// every element that `src` with `data_shape` and `src_strides` reaches is readable (if
/// `src` is not NULL); `dst` is NULL or holds the output element count of writable elements.
#[no_mangle]
pub unsafe extern "C" fn bcast_broadcast(
    mode: ModeCode,
    data_shape: *const usize,
    data_rank: usize,
    target_shape: *const usize,
    target_rank: usize,
    mode_args: *const i64,
    n_mode_args: usize,
    src: *const c_void,
    src_strides: *const i64,
    dst: *mut c_void,
    elem_size: usize,
    threads: usize,
) -> c_int {
    const F: &str = "bcast_broadcast";
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
            check_elem_size(elem_size, F)?;
            let strides = crate::types::array_arg(
                src_strides,
                if src_strides.is_null() { 0 } else { data_rank },
                BCAST_MAX_RANK,
                F,
                "src_strides",
            )?;
            let threads = self::threads(threads, F)?;
            let plan = args.plan()?;
            let par = threads.parallelism();
            if src_strides.is_null() || is_row_major(plan.source_shape(), strides) {
                return run_bits(&plan, src, dst, elem_size, par, F);
            }
            match elem_size {
                1 => run_strided::<u8>(&plan, src, strides, dst, par),
                2 => run_strided::<u16>(&plan, src, strides, dst, par),
                4 => run_strided::<u32>(&plan, src, strides, dst, par),
                _ => run_strided::<u64>(&plan, src, strides, dst, par),
            }
        }
    })
}

/// Whether `strides` are the row-major strides of `shape` on every axis that has more than
/// one element (the others are never stepped along).
fn is_row_major(shape: &[usize], strides: &[i64]) -> bool {
    let mut expected: i64 = 1;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        if d > 1 && s != expected {
            return false;
        }
        // Cannot overflow: the plan checked the shape's element count.
        expected = expected.saturating_mul(d.max(1) as i64);
    }
    true
}

/// Gathers the strided `src` into a row-major copy, then runs the plan from it.
///
/// # Safety
/// `src` points at element (0, ..., 0) of a tensor of the plan's source shape with these
/// element strides, every element of it readable; `dst` as for `bcast_plan_run`.
unsafe fn run_strided<T: Element + Copy>(
    plan: &StridePlan,
    src: *const c_void,
    strides: &[i64],
    dst: *mut c_void,
    par: Parallelism<'_>,
) -> Result<(), Error> {
    const F: &str = "bcast_broadcast";
    let shape = plan.source_shape();
    let len = plan.source_len();
    if len == 0 {
        // SAFETY: passed on; nothing is read.
        return unsafe { run_slice::<T>(plan, &[], dst, par, F) };
    }
    if src.is_null() {
        return Err(null(F, "src", len));
    }
    let src = src.cast::<T>();
    if !src.is_aligned() {
        return Err(misaligned(F, "src", std::mem::align_of::<T>()));
    }
    // The lowest and highest element offsets reached must stay within an address range.
    let overflow = || {
        Error::new(
            bcast_status::BCAST_ERR_OVERFLOW,
            format!(
                "{F}: src_strides {strides:?} for shape {shape:?} reach beyond isize::MAX bytes"
            ),
        )
    };
    let (mut lo, mut hi) = (0i64, 0i64);
    for (&d, &s) in shape.iter().zip(strides) {
        let reach = s.checked_mul(d as i64 - 1).ok_or_else(overflow)?;
        if reach < 0 {
            lo = lo.checked_add(reach).ok_or_else(overflow)?;
        } else {
            hi = hi.checked_add(reach).ok_or_else(overflow)?;
        }
    }
    let span = (hi as i128 - lo as i128 + 1) * std::mem::size_of::<T>() as i128;
    if span > isize::MAX as i128 {
        return Err(overflow());
    }
    let mut copy: Vec<T> = Vec::new();
    copy.try_reserve_exact(len).map_err(|_| {
        Error::new(
            bcast_status::BCAST_ERR_ALLOC,
            format!("{F}: cannot allocate a row-major copy of the source ({len} elements)"),
        )
    })?;
    // An odometer over the source's multi-index, innermost axis fastest.
    let rank = shape.len();
    let mut index = vec![0usize; rank];
    let mut offset: isize = 0;
    let (inner_dim, inner_stride) = match rank {
        0 => (1, 0),
        _ => (shape[rank - 1], strides[rank - 1] as isize),
    };
    loop {
        let mut o = offset;
        for _ in 0..inner_dim {
            // SAFETY: `o` is an offset of an element of the caller's tensor (the contract),
            // and every such offset was checked to fit in `isize` bytes above.
            copy.push(unsafe { src.offset(o).read() });
            o = o.wrapping_add(inner_stride);
        }
        // Next index of the outer axes.
        let mut axis = rank.saturating_sub(1);
        loop {
            if axis == 0 {
                // SAFETY: passed on; `copy` is the source in row-major order.
                return unsafe { run_slice(plan, &copy, dst, par, F) };
            }
            axis -= 1;
            index[axis] += 1;
            offset = offset.wrapping_add(strides[axis] as isize);
            if index[axis] < shape[axis] {
                break;
            }
            offset =
                offset.wrapping_sub((strides[axis] as isize).wrapping_mul(shape[axis] as isize));
            index[axis] = 0;
        }
    }
}
