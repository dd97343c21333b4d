//! Element-wise ops under auto-broadcast (issue 18): `bcast_binary`, `bcast_select` and
//! `bcast_eltwise_shape`. The caller's buffers are wrapped as ndarray views and read in
//! place (no operand is copied); the output is written in place, row-major.

use std::ffi::{c_int, c_void};

use bcast::{AutoBroadcast, BinaryOp, DType, TensorView, TensorViewMut};
use half::{bf16, f16};
use ndarray::{ArrayViewD, ArrayViewMutD, IxDyn};

use crate::error::{bcast_status, guard, Error};
use crate::plan::write_shape;
use crate::threads::threads;
use crate::types::{array_arg, dst_buffer, dtype_of, src_buffer, DTypeCode, BCAST_MAX_RANK};

/// The element-wise binary ops (OpenVINO's opset, reference semantics: integers wrap,
/// Maximum is `a < b ? b : a`, f16/bf16 computed in float and rounded once).
///
/// Divide has two codes: `BCAST_OP_DIVIDE` floors integer quotients (OpenVINO's default,
/// `pythondiv = true`: -7 / 2 = -4), `BCAST_OP_DIVIDE_TRUNC` truncates them (-7 / 2 = -3);
/// on floats both are IEEE division. Comparisons (EQUAL..GREATER_EQUAL) and the logical ops
/// write bool (one byte, 0 or 1); the logical ops take bool operands only.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum bcast_binary_op {
    /// `a + b`.
    BCAST_OP_ADD = 0,
    /// `a - b`.
    BCAST_OP_SUBTRACT = 1,
    /// `a * b`.
    BCAST_OP_MULTIPLY = 2,
    /// `a / b`, integer quotients floored (Python's `//`).
    BCAST_OP_DIVIDE = 3,
    /// `a < b ? b : a`.
    BCAST_OP_MAXIMUM = 4,
    /// `b < a ? b : a`.
    BCAST_OP_MINIMUM = 5,
    /// `(a - b) * (a - b)`.
    BCAST_OP_SQUARED_DIFFERENCE = 6,
    /// `a ** b` (integers: computed in double, truncated back).
    BCAST_OP_POWER = 7,
    /// Remainder with the divisor's sign.
    BCAST_OP_FLOOR_MOD = 8,
    /// Remainder with the dividend's sign (C `%`, `fmod`).
    BCAST_OP_MOD = 9,
    /// `a == b` (bool out).
    BCAST_OP_EQUAL = 10,
    /// `a != b` (bool out).
    BCAST_OP_NOT_EQUAL = 11,
    /// `a < b` (bool out).
    BCAST_OP_LESS = 12,
    /// `a <= b` (bool out).
    BCAST_OP_LESS_EQUAL = 13,
    /// `a > b` (bool out).
    BCAST_OP_GREATER = 14,
    /// `a >= b` (bool out).
    BCAST_OP_GREATER_EQUAL = 15,
    /// `a && b` (bool in and out).
    BCAST_OP_LOGICAL_AND = 16,
    /// `a || b` (bool in and out).
    BCAST_OP_LOGICAL_OR = 17,
    /// `a != b` on bools (bool in and out).
    BCAST_OP_LOGICAL_XOR = 18,
    /// `a / b`, integer quotients truncated toward zero (C's `/`; `pythondiv = false`).
    BCAST_OP_DIVIDE_TRUNC = 19,
}

/// An element-wise op's `auto_broadcast` attribute (OpenVINO's).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum bcast_auto_broadcast {
    /// The shapes must be equal.
    BCAST_AB_NONE = 0,
    /// Right-aligned, per axis equal or one of them 1; both operands stretch.
    BCAST_AB_NUMPY = 1,
    /// `b` (trailing 1s dropped) laid on `a`'s axes from `axis` (-1: right-aligned); the
    /// output is `a`'s shape.
    BCAST_AB_PDPD = 2,
}

/// A `bcast_binary_op` as it crosses the boundary (read as an integer: a value outside the
/// enum is an error, not undefined behaviour). The header shows `bcast_binary_op`.
pub type BinaryOpCode = u32;

/// A `bcast_auto_broadcast` as it crosses the boundary. The header shows
/// `bcast_auto_broadcast`.
pub type AutoBroadcastCode = u32;

fn op_of(code: BinaryOpCode, func: &str) -> Result<BinaryOp, Error> {
    // By the number written in the op table, never by position; `bcast_binary` takes the
    // ops of two operands of one type.
    match BinaryOp::from_c_code(code) {
        Some(op) if op.arity() == bcast::Arity::Exactly(2) => Ok(op),
        _ => Err(Error::new(
            bcast_status::BCAST_ERR_INVALID,
            format!("{func}: unknown bcast_binary_op {code} (expected 0 to 19)"),
        )),
    }
}

fn spec_of(code: AutoBroadcastCode, axis: i64, func: &str) -> Result<AutoBroadcast, Error> {
    Ok(match code {
        0 => AutoBroadcast::None,
        1 => AutoBroadcast::Numpy,
        2 => AutoBroadcast::Pdpd { axis },
        _ => {
            return Err(Error::new(
                bcast_status::BCAST_ERR_INVALID,
                format!("{func}: unknown bcast_auto_broadcast {code} (expected 0 to 2)"),
            ))
        }
    })
}

/// A shape argument.
///
/// # Safety
/// As [`array_arg`].
unsafe fn shape_arg<'a>(
    ptr: *const usize,
    rank: usize,
    func: &str,
    what: &str,
) -> Result<&'a [usize], Error> {
    // SAFETY: passed on.
    unsafe { array_arg(ptr, rank, BCAST_MAX_RANK, func, what) }
}

/// The byte range `[start, end)` an operand's buffer covers (empty for no elements).
type Span = (usize, usize);

/// The caller's `bool` buffer of `len` bytes, each checked to be 0 or 1 (any other byte is
/// not a Rust `bool`).
///
/// # Safety
/// As [`src_buffer`].
unsafe fn bool_buffer<'a>(
    ptr: *const c_void,
    len: usize,
    func: &str,
    what: &str,
) -> Result<&'a [bool], Error> {
    // SAFETY: passed on.
    let bytes = unsafe { src_buffer::<u8>(ptr, len, func, what)? };
    if let Some(i) = bytes.iter().position(|&b| b > 1) {
        return Err(Error::new(
            bcast_status::BCAST_ERR_INVALID,
            format!(
                "{func}: {what}[{i}] is {}, but a bool must be 0 or 1",
                bytes[i]
            ),
        ));
    }
    // SAFETY: every byte is 0 or 1, a valid `bool`, which has the size and alignment of
    // `u8`; same length and lifetime.
    Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<bool>(), bytes.len()) })
}

/// The caller's operand of `dtype` and `shape` as a view of its own memory, and its span.
///
/// # Safety
/// A non-NULL `ptr` points to the shape's element count of readable elements of `dtype`,
/// not written during the call.
unsafe fn in_view<'a>(
    dtype: DType,
    ptr: *const c_void,
    shape: &[usize],
    func: &str,
    what: &str,
) -> Result<(TensorView<'a>, Span), Error> {
    let len = bcast::checked_len(shape)?;
    let dim = IxDyn(shape);
    macro_rules! typed {
        ($t:ty) => {{
            // SAFETY: the caller's contract.
            let s = unsafe { src_buffer::<$t>(ptr, len, func, what)? };
            let span = (
                s.as_ptr() as usize,
                s.as_ptr() as usize + std::mem::size_of_val(s),
            );
            let v = ArrayViewD::from_shape(dim, s).expect("the slice holds the shape's count");
            (TensorView::from(v), span)
        }};
    }
    Ok(match dtype {
        DType::Bool => {
            // SAFETY: the caller's contract.
            let s = unsafe { bool_buffer(ptr, len, func, what)? };
            let span = (s.as_ptr() as usize, s.as_ptr() as usize + s.len());
            let v = ArrayViewD::from_shape(dim, s).expect("the slice holds the shape's count");
            (TensorView::Bool(v), span)
        }
        DType::I8 => typed!(i8),
        DType::I16 => typed!(i16),
        DType::I32 => typed!(i32),
        DType::I64 => typed!(i64),
        DType::U8 => typed!(u8),
        DType::U16 => typed!(u16),
        DType::U32 => typed!(u32),
        DType::U64 => typed!(u64),
        DType::F16 => typed!(f16),
        DType::BF16 => typed!(bf16),
        DType::F32 => typed!(f32),
        DType::F64 => typed!(f64),
        // No bcast_dtype code reads as a string.
        DType::String => unreachable!("dtype_of never returns String"),
    })
}

/// The caller's output of `dtype`, row-major with `shape`, after checking its capacity and
/// that it overlaps no operand.
///
/// # Safety
/// A non-NULL `ptr` points to `capacity` writable elements of `dtype`, not otherwise
/// accessed during the call.
unsafe fn out_view<'a>(
    dtype: DType,
    ptr: *mut c_void,
    capacity: usize,
    shape: &[usize],
    inputs: &[Span],
    func: &str,
) -> Result<TensorViewMut<'a>, Error> {
    let len = bcast::checked_len(shape)?;
    if capacity < len {
        return Err(Error::new(
            bcast_status::BCAST_ERR_CAPACITY,
            format!(
                "{func}: the output {shape:?} has {len} elements but out_capacity_elems is \
                 {capacity}"
            ),
        ));
    }
    let dim = IxDyn(shape);
    macro_rules! typed {
        ($t:ty) => {{
            // SAFETY: the caller's contract; `len <= capacity`. No source slice is passed
            // (`&[]`): the overlap with every operand is checked below.
            let s = unsafe { dst_buffer::<$t>(ptr, len, &[], func, "out")? };
            let (d0, d1) = (
                s.as_ptr() as usize,
                s.as_ptr() as usize + std::mem::size_of_val(s),
            );
            if inputs.iter().any(|&(s0, s1)| s0 < s1 && d0 < s1 && s0 < d1) {
                return Err(Error::new(
                    bcast_status::BCAST_ERR_INVALID,
                    format!("{func}: out overlaps an input buffer"),
                ));
            }
            TensorViewMut::from(
                ArrayViewMutD::from_shape(dim, s).expect("the slice holds the shape's count"),
            )
        }};
    }
    Ok(match dtype {
        DType::Bool => typed!(bool),
        DType::I8 => typed!(i8),
        DType::I16 => typed!(i16),
        DType::I32 => typed!(i32),
        DType::I64 => typed!(i64),
        DType::U8 => typed!(u8),
        DType::U16 => typed!(u16),
        DType::U32 => typed!(u32),
        DType::U64 => typed!(u64),
        DType::F16 => typed!(f16),
        DType::BF16 => typed!(bf16),
        DType::F32 => typed!(f32),
        DType::F64 => typed!(f64),
        DType::String => unreachable!("dtype_of never returns String"),
    })
}

/// The output shape of an element-wise op on shapes `a_shape` and `b_shape` under `ab`
/// (`axis`: the PDPD start axis, -1 right-aligned; ignored by NONE and NUMPY), written to
/// `shape[0..rank]`, its rank to `*rank_out`. For `bcast_select` under NUMPY, call it twice
/// (`then` with `else`, the result with `cond`); under NONE and PDPD the output is `then`'s.
///
/// Statuses: `BCAST_ERR_SHAPE` if the shapes break the rule; `BCAST_ERR_CAPACITY` if
/// `capacity` is smaller than the rank (then `*rank_out` holds the rank needed);
/// `BCAST_ERR_INVALID` for an unknown `ab`; `BCAST_ERR_RANK` for a rank above
/// `BCAST_MAX_RANK`; `BCAST_ERR_OVERFLOW` for a shape whose element count overflows;
/// `BCAST_ERR_NULL` for a NULL `rank_out`, a NULL shape with a non-zero rank, or a NULL
/// `shape` that has a rank to hold; `BCAST_ERR_ALIGN` for a shape array not aligned to
/// `size_t`.
///
/// Ownership: all memory is the caller's. Thread-safety: any number of threads at once.
///
/// # Safety
/// Each shape pointer is NULL or points to as many readable values as its rank says;
/// `shape` is NULL or holds `capacity` writable `size_t`; `rank_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bcast_eltwise_shape(
    a_shape: *const usize,
    a_rank: usize,
    b_shape: *const usize,
    b_rank: usize,
    ab: AutoBroadcastCode,
    axis: i64,
    shape: *mut usize,
    capacity: usize,
    rank_out: *mut usize,
) -> c_int {
    const F: &str = "bcast_eltwise_shape";
    guard(|| {
        // SAFETY: the caller's contract on every array.
        unsafe {
            let a = shape_arg(a_shape, a_rank, F, "a_shape")?;
            let b = shape_arg(b_shape, b_rank, F, "b_shape")?;
            let spec = spec_of(ab, axis, F)?;
            let dims = bcast::eltwise_shape(a, b, &spec)?;
            write_shape(&dims, shape, capacity, rank_out, F)
        }
    })
}

/// `out = op(a, b)` element-wise, `a` and `b` (row-major, of `dtype`, aligned to it)
/// broadcast under `ab` (`axis` as for `bcast_eltwise_shape`), into `out` (row-major, the
/// shape `bcast_eltwise_shape` gives; `dtype` for arithmetic, bool, one byte 0/1, for
/// comparisons and logical ops). The operands are read in place, never copied. `threads` as
/// for `bcast_plan_run`; the result does not depend on it.
///
/// Statuses: `BCAST_ERR_CAPACITY` if `out_capacity_elems` is below the output's element
/// count (nothing is written); `BCAST_ERR_SHAPE` for shapes that break the rule;
/// `BCAST_ERR_DTYPE` for an op the dtype does not have (arithmetic on BOOL, logical ops on
/// anything but BOOL); `BCAST_ERR_DIV_ZERO` for an integer DIVIDE, DIVIDE_TRUNC, MOD or
/// FLOOR_MOD whose `b` holds a 0 (nothing is written then); `BCAST_ERR_INVALID` for an
/// unknown code, a bool byte other than 0 or 1, or an `out` overlapping `a` or `b`;
/// `BCAST_ERR_RANK`, `BCAST_ERR_OVERFLOW`, `BCAST_ERR_NULL` and `BCAST_ERR_ALIGN` as for
/// `bcast_eltwise_shape`, and for the buffers as for `bcast_plan_run`; `BCAST_ERR_THREADS`
/// as there; `BCAST_ERR_ALLOC` when a temporary cannot be allocated.
///
/// Ownership: all memory is the caller's; nothing is kept after the call.
///
/// Thread-safety: any number of threads at once, each into its own `out`.
///
/// # Safety
/// Each shape pointer is NULL or points to as many readable values as its rank says; `a`
/// and `b` are NULL or hold their shape's element count of readable elements of `dtype`;
/// `out` is NULL or holds `out_capacity_elems` writable elements of the output type.
#[no_mangle]
pub unsafe extern "C" fn bcast_binary(
    op: BinaryOpCode,
    dtype: DTypeCode,
    a: *const c_void,
    a_shape: *const usize,
    a_rank: usize,
    b: *const c_void,
    b_shape: *const usize,
    b_rank: usize,
    ab: AutoBroadcastCode,
    axis: i64,
    out: *mut c_void,
    out_capacity_elems: usize,
    threads: usize,
) -> c_int {
    const F: &str = "bcast_binary";
    guard(|| {
        // SAFETY: the caller's contract on every array and buffer.
        unsafe {
            let op = op_of(op, F)?;
            let dtype = dtype_of(dtype, F)?;
            let a_shape = shape_arg(a_shape, a_rank, F, "a_shape")?;
            let b_shape = shape_arg(b_shape, b_rank, F, "b_shape")?;
            let spec = spec_of(ab, axis, F)?;
            let out_dtype = op.output_dtype(dtype)?;
            let threads = self::threads(threads, F)?;
            let shape = bcast::eltwise_shape(a_shape, b_shape, &spec)?;
            let (a, a_span) = in_view(dtype, a, a_shape, F, "a")?;
            let (b, b_span) = in_view(dtype, b, b_shape, F, "b")?;
            let out = out_view(
                out_dtype,
                out,
                out_capacity_elems,
                &shape,
                &[a_span, b_span],
                F,
            )?;
            bcast::binary_view_into(op, a, b, &spec, out, threads.parallelism())?;
            Ok(())
        }
    })
}

/// `out = cond ? then : else_` element-wise: `cond` bool (one byte, 0 or 1), `then` and
/// `else_` of `dtype`, all row-major and read in place; `out` row-major of `dtype`.
/// Broadcast under `ab`: NUMPY broadcasts all three together; NONE needs three equal
/// shapes; PDPD keeps `then`'s shape and lays `else_` and `cond` on it from `axis`.
/// `threads` as for `bcast_plan_run`.
///
/// Statuses as for `bcast_binary` (no `BCAST_ERR_DIV_ZERO`; a `cond` byte other than 0 or 1
/// is `BCAST_ERR_INVALID`). Every dtype, BOOL included.
///
/// Ownership: all memory is the caller's; nothing is kept after the call.
///
/// Thread-safety: any number of threads at once, each into its own `out`.
///
/// # Safety
/// Each shape pointer is NULL or points to as many readable values as its rank says; `cond`,
/// `then` and `else_` are NULL or hold their shape's element count of readable elements;
/// `out` is NULL or holds `out_capacity_elems` writable elements of `dtype`.
#[no_mangle]
pub unsafe extern "C" fn bcast_select(
    dtype: DTypeCode,
    cond: *const u8,
    cond_shape: *const usize,
    cond_rank: usize,
    then: *const c_void,
    then_shape: *const usize,
    then_rank: usize,
    else_: *const c_void,
    else_shape: *const usize,
    else_rank: usize,
    ab: AutoBroadcastCode,
    axis: i64,
    out: *mut c_void,
    out_capacity_elems: usize,
    threads: usize,
) -> c_int {
    const F: &str = "bcast_select";
    guard(|| {
        // SAFETY: the caller's contract on every array and buffer.
        unsafe {
            let dtype = dtype_of(dtype, F)?;
            let cond_shape = shape_arg(cond_shape, cond_rank, F, "cond_shape")?;
            let then_shape = shape_arg(then_shape, then_rank, F, "then_shape")?;
            let else_shape = shape_arg(else_shape, else_rank, F, "else_shape")?;
            let spec = spec_of(ab, axis, F)?;
            let threads = self::threads(threads, F)?;
            // The output shape: `then` with `else_`, then with `cond` (numpy: the common shape
            // of the three; none and pdpd: `then`'s, each other shape checked against it).
            let te = bcast::eltwise_shape(then_shape, else_shape, &spec)?;
            let shape = bcast::eltwise_shape(&te, cond_shape, &spec)?;
            let n_cond = bcast::checked_len(cond_shape)?;
            let c = bool_buffer(cond.cast(), n_cond, F, "cond")?;
            let c_span = (c.as_ptr() as usize, c.as_ptr() as usize + c.len());
            let c = ArrayViewD::from_shape(IxDyn(cond_shape), c)
                .expect("the slice holds the shape's count");
            let (t, t_span) = in_view(dtype, then, then_shape, F, "then")?;
            let (e, e_span) = in_view(dtype, else_, else_shape, F, "else")?;
            let out = out_view(
                dtype,
                out,
                out_capacity_elems,
                &shape,
                &[c_span, t_span, e_span],
                F,
            )?;
            bcast::select_view_into(c, t, e, &spec, out, threads.parallelism())?;
            Ok(())
        }
    })
}
