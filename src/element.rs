//! The element types bcast copies, and how each reaches the executor.
//!
//! Plain-data types go through one byte-level path chosen by element size (`f32`, `i32` and
//! `u32` all run as 4-byte lanes), so copies are bit-exact: NaN payloads, `-0.0` and every
//! bit of `f64`/`i64` survive. `String` goes through a clone path.

use std::fmt;
use std::mem::MaybeUninit;

use half::{bf16, f16};

use crate::error::{BroadcastError, Dims};
use crate::exec::Parallelism;
use crate::kernel;
use crate::plan::StridePlan;

/// The element types of bcast, named as OpenVINO names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// `bool`, OpenVINO `boolean`.
    Bool,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// IEEE half, `half::f16`.
    F16,
    /// bfloat16, `half::bf16`.
    BF16,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `String`.
    String,
}

impl DType {
    /// Every element type, in a fixed order.
    pub const ALL: [DType; 14] = [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::String,
    ];

    /// OpenVINO's element type name (`boolean`, `i8`, ..., `f16`, `bf16`, `f32`, `f64`, `string`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "boolean",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::String => "string",
        }
    }

    /// Size of one element in bytes (`size_of::<String>()` for strings).
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 => 8,
            DType::String => std::mem::size_of::<String>(),
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

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
fn as_uninit_mut<T: Copy>(dst: &mut [T]) -> &mut [MaybeUninit<T>] {
    // SAFETY: `MaybeUninit<T>` has the layout of `T`; `T: Copy` has no drop glue, so
    // overwriting through the view cannot leak, and the executor writes only valid `T` bits.
    unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast(), dst.len()) }
}

macro_rules! plain_element {
    ($t:ty, $lane:ty, $dtype:expr, $src_cast:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = $dtype;

            fn run_plan(
                plan: &StridePlan,
                src: &[Self],
                par: Parallelism<'_>,
            ) -> Result<Vec<Self>, BroadcastError> {
                let mut out: Vec<Self> = Vec::new();
                out.try_reserve_exact(plan.len())
                    .map_err(|_| allocation_error(plan, std::mem::size_of::<Self>()))?;
                let lanes: &[$lane] = $src_cast(src);
                let spare = &mut out.spare_capacity_mut()[..plan.len()];
                crate::exec::advise_huge_pages(spare);
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
                let lanes: &[$lane] = $src_cast(src);
                // SAFETY: as in `run_plan`.
                let dst = unsafe { as_lanes_mut::<Self, $lane>(as_uninit_mut(dst)) };
                kernel::execute(plan, lanes, dst, par)
            }
        }
        const _: () = assert!(
            std::mem::size_of::<$t>() == std::mem::size_of::<$lane>()
                && std::mem::align_of::<$t>() >= std::mem::align_of::<$lane>()
        );
    };
}

plain_element!(bool, u8, DType::Bool, bytemuck::cast_slice::<bool, u8>);
plain_element!(i8, u8, DType::I8, bytemuck::cast_slice::<i8, u8>);
plain_element!(u8, u8, DType::U8, bytemuck::cast_slice::<u8, u8>);
plain_element!(i16, u16, DType::I16, bytemuck::cast_slice::<i16, u16>);
plain_element!(u16, u16, DType::U16, bytemuck::cast_slice::<u16, u16>);
plain_element!(f16, u16, DType::F16, bytemuck::cast_slice::<f16, u16>);
plain_element!(bf16, u16, DType::BF16, bytemuck::cast_slice::<bf16, u16>);
plain_element!(i32, u32, DType::I32, bytemuck::cast_slice::<i32, u32>);
plain_element!(u32, u32, DType::U32, bytemuck::cast_slice::<u32, u32>);
plain_element!(f32, u32, DType::F32, bytemuck::cast_slice::<f32, u32>);
plain_element!(i64, u64, DType::I64, bytemuck::cast_slice::<i64, u64>);
plain_element!(u64, u64, DType::U64, bytemuck::cast_slice::<u64, u64>);
plain_element!(f64, u64, DType::F64, bytemuck::cast_slice::<f64, u64>);

impl sealed::Sealed for String {}
impl Element for String {
    const DTYPE: DType = DType::String;

    fn run_plan(
        plan: &StridePlan,
        src: &[Self],
        par: Parallelism<'_>,
    ) -> Result<Vec<Self>, BroadcastError> {
        let mut out: Vec<String> = Vec::new();
        out.try_reserve_exact(plan.len())
            .map_err(|_| allocation_error(plan, std::mem::size_of::<Self>()))?;
        // Empty strings do not allocate; the executor then clones into each slot.
        out.resize(plan.len(), String::new());
        kernel::execute_clone(plan, src, &mut out, par)?;
        Ok(out)
    }

    fn run_plan_into(
        plan: &StridePlan,
        src: &[Self],
        dst: &mut [Self],
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        kernel::execute_clone(plan, src, dst, par)
    }
}
