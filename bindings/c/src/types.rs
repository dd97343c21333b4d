//! The enums and limits of the ABI, and the checked reading of the caller's arguments
//! (shapes, mode arguments, buffers) into Rust values.

use std::ffi::c_void;

use bcast::{DType, Mode, StridePlan};

use crate::error::{bcast_status, Error};

/// The largest rank bcast accepts for a data, target or output shape, and the most mode
/// arguments (numpy's limit). A `size_t shape[BCAST_MAX_RANK]` always holds an output shape.
pub const BCAST_MAX_RANK: usize = 64;

/// The largest `threads` value (a pool of that many threads).
pub const BCAST_MAX_THREADS: usize = 1024;

/// How a data shape is placed in a target shape (OpenVINO Broadcast's `mode`, and nGraph v0).
///
/// `mode_args` per mode: `BCAST_MODE_EXPLICIT` takes `axes_mapping` (one output axis per data
/// axis, strictly increasing), `BCAST_MODE_PDPD` takes `[axis]` (none: -1, right-aligned),
/// `BCAST_MODE_AXES` takes `broadcast_axes` (the new output axes); the others take none.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum bcast_mode {
    /// Right-aligned; each data dim equals the target's or is 1; output = target.
    BCAST_MODE_NUMPY = 0,
    /// Both padded to the larger rank; per axis equal or one is 1 (1 vs 0 gives 0); ONNX
    /// Expand.
    BCAST_MODE_BIDIRECTIONAL = 1,
    /// `axes_mapping[i]` is data axis i's output axis, strictly increasing (IR `none`).
    BCAST_MODE_EXPLICIT = 2,
    /// Data (trailing 1s dropped) lies on the target axes from `axis` (-1: right-aligned).
    BCAST_MODE_PDPD = 3,
    /// nGraph v0: `broadcast_axes` are the new output axes; the rest equal the data exactly.
    BCAST_MODE_AXES = 4,
}

/// Element types, for the functions that must know more than an element's size (a sum).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum bcast_dtype {
    /// `bool` (one byte, 0 or 1).
    BCAST_DTYPE_BOOL = 0,
    /// `int8_t`.
    BCAST_DTYPE_I8 = 1,
    /// `int16_t`.
    BCAST_DTYPE_I16 = 2,
    /// `int32_t`.
    BCAST_DTYPE_I32 = 3,
    /// `int64_t`.
    BCAST_DTYPE_I64 = 4,
    /// `uint8_t`.
    BCAST_DTYPE_U8 = 5,
    /// `uint16_t`.
    BCAST_DTYPE_U16 = 6,
    /// `uint32_t`.
    BCAST_DTYPE_U32 = 7,
    /// `uint64_t`.
    BCAST_DTYPE_U64 = 8,
    /// IEEE 754 binary16, as 16 bits.
    BCAST_DTYPE_F16 = 9,
    /// bfloat16, as 16 bits.
    BCAST_DTYPE_BF16 = 10,
    /// `float`.
    BCAST_DTYPE_F32 = 11,
    /// `double`.
    BCAST_DTYPE_F64 = 12,
}

/// A `bcast_mode` as it crosses the boundary: read as an integer so that a value outside the
/// enum is an error, not undefined behaviour. The header shows `bcast_mode`.
pub type ModeCode = u32;

/// A `bcast_dtype` as it crosses the boundary (see [`ModeCode`]). The header shows
/// `bcast_dtype`.
pub type DTypeCode = u32;

/// The library's dtype of a `bcast_dtype` code.
pub(crate) fn dtype_of(code: DTypeCode, func: &str) -> Result<DType, Error> {
    Ok(match code {
        0 => DType::Bool,
        1 => DType::I8,
        2 => DType::I16,
        3 => DType::I32,
        4 => DType::I64,
        5 => DType::U8,
        6 => DType::U16,
        7 => DType::U32,
        8 => DType::U64,
        9 => DType::F16,
        10 => DType::BF16,
        11 => DType::F32,
        12 => DType::F64,
        _ => {
            return Err(Error::new(
                bcast_status::BCAST_ERR_INVALID,
                format!("{func}: unknown bcast_dtype {code} (expected 0 to 12)"),
            ))
        }
    })
}

/// The caller's array `ptr[0..len]`: an error for a length above `limit` (checked before
/// anything is read) and for a NULL or misaligned pointer with a non-zero length.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable values that live and stay unchanged for
/// `'a`.
pub(crate) unsafe fn array_arg<'a, T>(
    ptr: *const T,
    len: usize,
    limit: usize,
    func: &str,
    what: &str,
) -> Result<&'a [T], Error> {
    if len > limit {
        return Err(Error::new(
            bcast_status::BCAST_ERR_RANK,
            format!("{func}: {what} has {len} entries, more than BCAST_MAX_RANK ({limit})"),
        ));
    }
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(null(func, what, len));
    }
    if !ptr.cast::<T>().is_aligned() {
        return Err(misaligned(func, what, std::mem::align_of::<T>()));
    }
    // SAFETY: non-NULL and aligned (checked), `len` values readable for 'a (the caller's
    // contract).
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

pub(crate) fn null(func: &str, what: &str, len: usize) -> Error {
    Error::new(
        bcast_status::BCAST_ERR_NULL,
        format!("{func}: {what} is NULL but has {len} elements"),
    )
}

pub(crate) fn null_out(func: &str, what: &str) -> Error {
    Error::new(
        bcast_status::BCAST_ERR_NULL,
        format!("{func}: {what} is NULL"),
    )
}

pub(crate) fn misaligned(func: &str, what: &str, align: usize) -> Error {
    Error::new(
        bcast_status::BCAST_ERR_ALIGN,
        format!("{func}: {what} is not aligned to {align} bytes"),
    )
}

/// Shapes and mode of a planning call, read from the caller's arguments.
pub(crate) struct PlanArgs<'a> {
    pub(crate) data_shape: &'a [usize],
    pub(crate) target_shape: &'a [usize],
    pub(crate) mode: Mode,
}

impl PlanArgs<'_> {
    pub(crate) fn plan(&self) -> Result<StridePlan, Error> {
        Ok(bcast::plan(self.data_shape, self.target_shape, &self.mode)?)
    }
}

/// Reads the arguments every planning function takes.
///
/// # Safety
/// As [`array_arg`] for each array.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn plan_args<'a>(
    func: &str,
    mode: ModeCode,
    data_shape: *const usize,
    data_rank: usize,
    target_shape: *const usize,
    target_rank: usize,
    mode_args: *const i64,
    n_mode_args: usize,
) -> Result<PlanArgs<'a>, Error> {
    // SAFETY: the caller's contract, passed on.
    let (data_shape, target_shape, args) = unsafe {
        (
            array_arg(data_shape, data_rank, BCAST_MAX_RANK, func, "data_shape")?,
            array_arg(
                target_shape,
                target_rank,
                BCAST_MAX_RANK,
                func,
                "target_shape",
            )?,
            array_arg(mode_args, n_mode_args, BCAST_MAX_RANK, func, "mode_args")?,
        )
    };
    let mode = mode_of(mode, args, func)?;
    Ok(PlanArgs {
        data_shape,
        target_shape,
        mode,
    })
}

/// The library's [`Mode`] of a `bcast_mode` code and its arguments.
pub(crate) fn mode_of(code: ModeCode, args: &[i64], func: &str) -> Result<Mode, Error> {
    let none = |name: &str| {
        if args.is_empty() {
            Ok(())
        } else {
            Err(Error::new(
                bcast_status::BCAST_ERR_INVALID,
                format!("{func}: {name} mode takes no mode_args, got {}", args.len()),
            ))
        }
    };
    Ok(match code {
        0 => {
            none("numpy")?;
            Mode::Numpy
        }
        1 => {
            none("bidirectional")?;
            Mode::Bidirectional
        }
        2 => Mode::Explicit {
            axes_mapping: bcast::axes_from_ints(args)?,
        },
        3 => match args {
            [] => Mode::Pdpd { axis: -1 },
            &[axis] => Mode::Pdpd { axis },
            _ => {
                return Err(Error::new(
                    bcast_status::BCAST_ERR_INVALID,
                    format!(
                        "{func}: pdpd mode takes at most one mode_arg (axis), got {}",
                        args.len()
                    ),
                ))
            }
        },
        4 => Mode::Axes {
            broadcast_axes: bcast::axes_from_ints(args)?,
        },
        _ => {
            return Err(Error::new(
                bcast_status::BCAST_ERR_INVALID,
                format!("{func}: unknown bcast_mode {code} (expected 0 to 4)"),
            ))
        }
    })
}

/// Checks that `len` elements of `size` bytes fit in an address range.
pub(crate) fn byte_len(len: usize, size: usize, func: &str, what: &str) -> Result<usize, Error> {
    len.checked_mul(size)
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| {
            Error::new(
                bcast_status::BCAST_ERR_OVERFLOW,
                format!(
                    "{func}: {what} of {len} elements of {size} bytes exceeds isize::MAX bytes"
                ),
            )
        })
}

/// The caller's read-only buffer of `len` elements of `T`.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable elements that live and are not written for
/// `'a`.
pub(crate) unsafe fn src_buffer<'a, T>(
    ptr: *const c_void,
    len: usize,
    func: &str,
    what: &str,
) -> Result<&'a [T], Error> {
    byte_len(len, std::mem::size_of::<T>(), func, what)?;
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(null(func, what, len));
    }
    let ptr = ptr.cast::<T>();
    if !ptr.is_aligned() {
        return Err(misaligned(func, what, std::mem::align_of::<T>()));
    }
    // SAFETY: non-NULL, aligned, a checked byte length; readable for 'a (the contract).
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// The caller's writable buffer of `len` elements of `T`, which must not overlap `src`.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` writable elements that live and are not otherwise
/// accessed for `'a`.
pub(crate) unsafe fn dst_buffer<'a, T>(
    ptr: *mut c_void,
    len: usize,
    src: &[T],
    func: &str,
    what: &str,
) -> Result<&'a mut [T], Error> {
    let bytes = byte_len(len, std::mem::size_of::<T>(), func, what)?;
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(null(func, what, len));
    }
    let ptr = ptr.cast::<T>();
    if !ptr.is_aligned() {
        return Err(misaligned(func, what, std::mem::align_of::<T>()));
    }
    let (d0, d1) = (ptr as usize, ptr as usize + bytes);
    let s0 = src.as_ptr() as usize;
    let s1 = s0 + std::mem::size_of_val(src);
    if !src.is_empty() && d0 < s1 && s0 < d1 {
        return Err(Error::new(
            bcast_status::BCAST_ERR_INVALID,
            format!("{func}: {what} overlaps the source buffer"),
        ));
    }
    // SAFETY: non-NULL, aligned, a checked byte length, disjoint from `src`; writable and
    // unaliased for 'a (the contract).
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}
