//! The element types bcast copies, and how each reaches the executor.
//!
//! Plain-data types go through one byte-level path chosen by element size (`f32`, `i32` and
//! `u32` all run as 4-byte lanes), so copies are bit-exact: NaN payloads, `-0.0` and every
//! bit of `f64`/`i64` survive. `String` goes through a clone path.

use std::fmt;
use std::mem::MaybeUninit;

use ndarray::ArrayD;

use crate::dtype::{dtype_table, DType};
use crate::error::{BroadcastError, Dims};
use crate::exec::Parallelism;
use crate::kernel;
use crate::plan::StridePlan;
use crate::tensor::Tensor;

mod sealed {
    pub trait Sealed {}
}

/// A type bcast can broadcast: `bool`, `i8`..`i64`, `u8`..`u64`, `f16`, `bf16`, `f32`, `f64`,
/// `String`. Sealed: the executor's memory safety depends on knowing each type's layout.
pub trait Element: Clone + Send + Sync + fmt::Debug + PartialEq + 'static + sealed::Sealed {
    /// The element type's tag.
    const DTYPE: DType;

    /// Runs `plan` over `src` into a freshly allocated vector of `plan.len()` elements.
    ///
    /// Precondition: `src.len() == plan.source_len()` (checked by the callers in this crate).
    #[doc(hidden)]
    fn run_plan(
        plan: &StridePlan,
        src: &[Self],
        par: Parallelism<'_>,
    ) -> Result<Vec<Self>, BroadcastError>;

    /// Runs `plan` over `src` into `dst`.
    ///
    /// Precondition: `src.len() == plan.source_len()` and `dst.len() == plan.len()`.
    #[doc(hidden)]
    fn run_plan_into(
        plan: &StridePlan,
        src: &[Self],
        dst: &mut [Self],
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError>;

    /// Wraps an array of this type as a [`Tensor`].
    fn into_tensor(array: ArrayD<Self>) -> Tensor;

    /// The array inside `tensor` if it holds this type, else `tensor` back.
    fn from_tensor(tensor: Tensor) -> Result<ArrayD<Self>, Tensor>;

    /// The array inside `tensor` if it holds this type.
    fn tensor_array(tensor: &Tensor) -> Option<&ArrayD<Self>>;

    /// Whether two values are the same bits (a NaN equals a NaN with the same payload,
    /// `-0.0` is not `0.0`); strings compare by value.
    fn bit_eq(&self, other: &Self) -> bool;
}

fn allocation_error(plan: &StridePlan, elem_size: usize) -> BroadcastError {
    BroadcastError::Allocation {
        bytes: plan.len().saturating_mul(elem_size),
        shape: Dims(plan.output_shape().to_vec()),
    }
}

/// Reinterprets a slice of `T` as possibly-uninitialised lanes of the same size.
///
/// # Safety
/// `T` and `U` must have the same size, `align_of::<T>() >= align_of::<U>()`, and every value
/// the caller writes through the result must be the bits of a valid `T` (here: bits copied
/// from a `&[T]`).
unsafe fn as_lanes_mut<T, U>(dst: &mut [MaybeUninit<T>]) -> &mut [MaybeUninit<U>] {
    debug_assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<U>());
    debug_assert!(std::mem::align_of::<T>() >= std::mem::align_of::<U>());
    // SAFETY: same size and compatible alignment (caller's contract), so the length and the
    // pointer are valid for `U`; `MaybeUninit` makes no claim about the contents.
    unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast(), dst.len()) }
}

/// Views an initialised slice as possibly-uninitialised storage.
///
/// # Safety
/// Every element the caller writes through the result must be a valid `T` (writing
/// `MaybeUninit::uninit()` would leave `dst` holding uninitialised values).
unsafe fn as_uninit_mut<T: Copy>(dst: &mut [T]) -> &mut [MaybeUninit<T>] {
    // SAFETY: `MaybeUninit<T>` has the layout of `T`; `T: Copy` has no drop glue, so
    // overwriting through the view cannot leak; validity of what is written is the caller's
    // contract.
    unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast(), dst.len()) }
}

/// The conversions every element type has, from its table row.
macro_rules! tensor_conversions {
    ($v:ident) => {
        fn into_tensor(array: ArrayD<Self>) -> Tensor {
            Tensor::$v(array)
        }

        fn from_tensor(tensor: Tensor) -> Result<ArrayD<Self>, Tensor> {
            match tensor {
                Tensor::$v(a) => Ok(a),
                other => Err(other),
            }
        }

        fn tensor_array(tensor: &Tensor) -> Option<&ArrayD<Self>> {
            match tensor {
                Tensor::$v(a) => Some(a),
                _ => None,
            }
        }
    };
}

/// One table row's `Element` impl: plain data runs as lanes of its size; `clone` rows
/// (types that own memory) run through the clone path.
macro_rules! element_impl {
    ($v:ident, $t:ty, clone) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$v;

            fn run_plan(
                plan: &StridePlan,
                src: &[Self],
                par: Parallelism<'_>,
            ) -> Result<Vec<Self>, BroadcastError> {
                run_plan_strings(plan, src, par)
            }

            fn run_plan_into(
                plan: &StridePlan,
                src: &[Self],
                dst: &mut [Self],
                par: Parallelism<'_>,
            ) -> Result<(), BroadcastError> {
                kernel::execute_clone(plan, src, dst, par)
            }

            tensor_conversions!($v);

            fn bit_eq(&self, other: &Self) -> bool {
                self == other
            }
        }
    };
    ($v:ident, $t:ty, $lane:ty) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$v;

            fn run_plan(
                plan: &StridePlan,
                src: &[Self],
                par: Parallelism<'_>,
            ) -> Result<Vec<Self>, BroadcastError> {
                let mut out: Vec<Self> =
                    crate::exec::reserve(plan.len(), plan.output_shape(), true)?;
                let lanes: &[$lane] = bytemuck::cast_slice::<$t, $lane>(src);
                let spare = &mut out.spare_capacity_mut()[..plan.len()];
                // SAFETY: $t and $lane have the same size and alignment (asserted below at
                // compile time); the executor writes lanes copied from `src`, valid $t bits.
                let dst = unsafe { as_lanes_mut::<Self, $lane>(spare) };
                kernel::execute(plan, lanes, dst, par)?;
                // SAFETY: `execute` returned Ok, which means it wrote every one of the
                // `plan.len()` elements (its postcondition); capacity is at least that.
                unsafe { out.set_len(plan.len()) };
                Ok(out)
            }

            fn run_plan_into(
                plan: &StridePlan,
                src: &[Self],
                dst: &mut [Self],
                par: Parallelism<'_>,
            ) -> Result<(), BroadcastError> {
                let lanes: &[$lane] = bytemuck::cast_slice::<$t, $lane>(src);
                // SAFETY: as in `run_plan`; the executor writes only lanes copied from
                // `src`, which are valid $t bits, so `dst` stays initialised.
                let dst = unsafe { as_lanes_mut::<Self, $lane>(as_uninit_mut(dst)) };
                kernel::execute(plan, lanes, dst, par)
            }

            tensor_conversions!($v);

            fn bit_eq(&self, other: &Self) -> bool {
                bytemuck::cast::<$t, $lane>(*self) == bytemuck::cast::<$t, $lane>(*other)
            }
        }
        const _: () = assert!(
            std::mem::size_of::<$t>() == std::mem::size_of::<$lane>()
                && std::mem::align_of::<$t>() >= std::mem::align_of::<$lane>()
        );
    };
}

macro_rules! define_elements {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        $(element_impl!($v, $t, $lane);)*
    };
}
dtype_table!(define_elements!);

/// The clone path's allocating run (strings).
///
/// A string's text lives in its own allocation, so the size of the output is not
/// `len * size_of::<String>()`: every source string is cloned `len / source_len` times
/// (a broadcast repeats each source element equally often). That total, text included, is
/// computed first and must be allocatable (one fallible reservation of that many bytes,
/// released at once) before any string is cloned, so a broadcast too large for memory is an
/// [`BroadcastError::Allocation`] error instead of an abort in the middle of the clones.
fn run_plan_strings(
    plan: &StridePlan,
    src: &[String],
    par: Parallelism<'_>,
) -> Result<Vec<String>, BroadcastError> {
    let too_big = || allocation_error(plan, usize::MAX);
    let copies = plan.len().checked_div(plan.source_len()).unwrap_or(0);
    let text: usize = src
        .iter()
        .try_fold(0usize, |acc, s| acc.checked_add(s.len()))
        .ok_or_else(too_big)?;
    let text_bytes = text.checked_mul(copies).ok_or_else(too_big)?;
    if text_bytes > 0 {
        let mut probe: Vec<u8> = Vec::new();
        probe
            .try_reserve_exact(text_bytes)
            .map_err(|_| BroadcastError::Allocation {
                bytes: text_bytes,
                shape: Dims(plan.output_shape().to_vec()),
            })?;
    }
    let mut out: Vec<String> = crate::exec::reserve(plan.len(), plan.output_shape(), false)?;
    // Empty strings do not allocate; the executor then clones into each slot.
    out.resize(plan.len(), String::new());
    kernel::execute_clone(plan, src, &mut out, par)?;
    Ok(out)
}
