//! Random arguments through the C ABI's argument checks: mode, op, rule and dtype codes
//! (unknown ones too), ranks up to past `BCAST_MAX_RANK`, shapes (0, huge, overflowing),
//! mode arguments, capacities, thread counts and NULLs. Every call returns a status, never
//! `BCAST_ERR_PANIC`, with a message exactly when it fails. Every array passed is a real
//! buffer of at least the length claimed, or NULL: what is under test is the ABI's checks,
//! not a caller breaking its contract.

use std::ffi::{c_int, c_void, CStr, CString};

use bcast_c::{
    bcast_eltwise, bcast_eltwise_shape, bcast_eltwise_shape_n, bcast_expr_text_shape,
    bcast_last_error_message, bcast_output_shape, bcast_plan_create, bcast_plan_free,
    bcast_plan_output_len, bcast_plan_output_shape, BCAST_MAX_RANK, BCAST_MAX_THREADS,
};

struct Input<'a>(std::slice::Iter<'a, u8>);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        self.0.next().copied().unwrap_or(0)
    }

    /// A code: mostly among the first few values, sometimes far past them.
    fn code(&mut self) -> u32 {
        match self.byte() {
            250 => u32::MAX,
            251 => 1 << 31,
            b => u32::from(b) % 32,
        }
    }

    /// A dim: mostly small, sometimes 0 or huge.
    fn dim(&mut self) -> usize {
        match self.byte() {
            b @ 0..=199 => usize::from(b % 5),
            b @ 200..=239 => 1 << (b - 200),
            b => usize::MAX - usize::from(b - 240),
        }
    }

    /// A rank: small, or at and past `BCAST_MAX_RANK`.
    fn rank(&mut self) -> usize {
        match self.byte() {
            b @ 0..=239 => usize::from(b % 5),
            b => BCAST_MAX_RANK - 1 + usize::from(b - 240) % 4,
        }
    }

    /// A shape argument: dims, and whether it is passed as NULL.
    fn shape(&mut self) -> (Vec<usize>, bool) {
        let rank = self.rank();
        let dims = (0..rank).map(|_| self.dim()).collect();
        (dims, self.byte().is_multiple_of(16))
    }

    fn ints(&mut self) -> (Vec<i64>, bool) {
        let n = match self.byte() {
            b @ 0..=247 => usize::from(b % 4),
            b => BCAST_MAX_RANK - 1 + usize::from(b - 248),
        };
        let v = (0..n).map(|_| i64::from(self.byte() as i8) % 6).collect();
        (v, self.byte().is_multiple_of(16))
    }
}

fn ptr<T>(v: &[T], null: bool) -> *const T {
    if null {
        std::ptr::null()
    } else {
        v.as_ptr()
    }
}

/// An output buffer of `capacity` elements, passed as NULL when `null`.
fn out_ptr<T>(v: &mut [T], null: bool) -> *mut T {
    if null {
        std::ptr::null_mut()
    } else {
        v.as_mut_ptr()
    }
}

fn checked(status: c_int, what: &str) {
    // SAFETY: the library's message is NUL-terminated and lives until the next call.
    let message = unsafe { CStr::from_ptr(bcast_last_error_message()) }.to_string_lossy();
    assert_ne!(status, 6, "{what}: a caught panic: {message}");
    assert!(
        (0..=13).contains(&status) || status == 99,
        "{what}: status {status}"
    );
    assert_eq!(
        status == 0,
        message.is_empty(),
        "{what}: status {status}, '{message}'"
    );
}

pub fn run(bytes: &[u8]) {
    let mut b = Input(bytes.iter());
    let which = b.byte() % 6;
    let (data, data_null) = b.shape();
    let (target, target_null) = b.shape();
    let (args, args_null) = b.ints();
    let capacity = match b.byte() {
        c @ 0..=247 => usize::from(c % 6),
        _ => BCAST_MAX_RANK,
    };
    let mut shape = vec![0usize; capacity];
    let shape_null = b.byte().is_multiple_of(16);
    let mut rank = 0usize;
    let rank_null = b.byte().is_multiple_of(16);
    let rank_out = if rank_null {
        std::ptr::null_mut()
    } else {
        &mut rank as *mut usize
    };
    let code = b.code();
    let axis = i64::from(b.byte() as i8);
    // SAFETY (every call below): each array is NULL or holds at least the count passed with
    // it; each output pointer is NULL or writable.
    let status = unsafe {
        match which {
            0 => bcast_output_shape(
                code,
                ptr(&data, data_null),
                data.len(),
                ptr(&target, target_null),
                target.len(),
                ptr(&args, args_null),
                args.len(),
                out_ptr(&mut shape, shape_null),
                capacity,
                rank_out,
            ),
            1 => {
                let mut plan = std::ptr::null_mut();
                let plan_out = if b.byte().is_multiple_of(16) {
                    std::ptr::null_mut()
                } else {
                    &mut plan
                };
                let s = bcast_plan_create(
                    code,
                    ptr(&data, data_null),
                    data.len(),
                    ptr(&target, target_null),
                    target.len(),
                    ptr(&args, args_null),
                    args.len(),
                    plan_out,
                );
                if s == 0 {
                    let mut len = 0usize;
                    checked(
                        bcast_plan_output_shape(
                            plan,
                            out_ptr(&mut shape, shape_null),
                            capacity,
                            rank_out,
                        ),
                        "bcast_plan_output_shape",
                    );
                    checked(
                        bcast_plan_output_len(plan, &mut len),
                        "bcast_plan_output_len",
                    );
                    bcast_plan_free(plan);
                }
                s
            }
            2 => bcast_eltwise_shape(
                ptr(&data, data_null),
                data.len(),
                ptr(&target, target_null),
                target.len(),
                code,
                axis,
                out_ptr(&mut shape, shape_null),
                capacity,
                rank_out,
            ),
            3 => {
                let n = usize::from(b.byte() % 6);
                let shapes: Vec<*const usize> = (0..n)
                    .map(|k| {
                        if k.is_multiple_of(2) {
                            ptr(&data, data_null)
                        } else {
                            ptr(&target, target_null)
                        }
                    })
                    .collect();
                let ranks: Vec<usize> = (0..n)
                    .map(|k| {
                        if k.is_multiple_of(2) {
                            data.len()
                        } else {
                            target.len()
                        }
                    })
                    .collect();
                bcast_eltwise_shape_n(
                    code,
                    n,
                    ptr(&shapes, b.byte().is_multiple_of(16)),
                    ptr(&ranks, b.byte().is_multiple_of(16)),
                    b.code() % 4,
                    axis,
                    out_ptr(&mut shape, shape_null),
                    capacity,
                    rank_out,
                )
            }
            4 => {
                // Operands of the two shapes, each buffer as long as its shape's elements
                // at 8 bytes; skipped when the shapes are too large to hold.
                let len = |s: &[usize]| s.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
                let (Some(ld), Some(lt)) = (len(&data), len(&target)) else {
                    return;
                };
                if ld > 1 << 12 || lt > 1 << 12 {
                    return;
                }
                let n = usize::from(b.byte() % 6);
                let bufs: Vec<Vec<u64>> = (0..n)
                    .map(|k| {
                        let l = if k.is_multiple_of(2) { ld } else { lt };
                        (0..l.max(1)).map(|_| u64::from(b.byte() % 2)).collect()
                    })
                    .collect();
                let inputs: Vec<*const c_void> = bufs
                    .iter()
                    .map(|v| {
                        if data_null {
                            std::ptr::null()
                        } else {
                            v.as_ptr().cast()
                        }
                    })
                    .collect();
                let shapes: Vec<*const usize> = (0..n)
                    .map(|k| {
                        if k.is_multiple_of(2) {
                            data.as_ptr()
                        } else {
                            target.as_ptr()
                        }
                    })
                    .collect();
                let ranks: Vec<usize> = (0..n)
                    .map(|k| {
                        if k.is_multiple_of(2) {
                            data.len()
                        } else {
                            target.len()
                        }
                    })
                    .collect();
                let dtypes: Vec<u32> = (0..n).map(|_| b.code() % 16).collect();
                let out_len = usize::from(b.byte()) * 8;
                let mut out = vec![0u64; out_len.max(1)];
                let threads = match b.byte() % 8 {
                    0 => BCAST_MAX_THREADS + 1,
                    t => usize::from(t % 3),
                };
                bcast_eltwise(
                    code,
                    n,
                    ptr(&dtypes, args_null),
                    ptr(&inputs, shape_null),
                    shapes.as_ptr(),
                    ranks.as_ptr(),
                    b.code() % 4,
                    axis,
                    i64::from(b.byte() as i8),
                    out.as_mut_ptr().cast(),
                    out_len,
                    threads,
                )
            }
            _ => {
                let text: Vec<u8> = bytes.iter().copied().filter(|&c| c != 0).skip(8).collect();
                let text = CString::new(text).expect("no NUL left");
                let n = usize::from(b.byte() % 4);
                let shapes: Vec<*const usize> = (0..n).map(|_| ptr(&data, data_null)).collect();
                let ranks: Vec<usize> = (0..n).map(|_| data.len()).collect();
                let text_ptr = if b.byte().is_multiple_of(16) {
                    std::ptr::null()
                } else {
                    text.as_ptr()
                };
                bcast_expr_text_shape(
                    text_ptr,
                    n,
                    shapes.as_ptr(),
                    ranks.as_ptr(),
                    code % 4,
                    axis,
                    out_ptr(&mut shape, shape_null),
                    capacity,
                    rank_out,
                )
            }
        }
    };
    checked(status, "the call");
}
