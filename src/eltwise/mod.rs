//! Element-wise ops under OpenVINO's auto-broadcast rules (`none`, `numpy`, `pdpd`), fused:
//! `out = f(a, b)` reads each operand in place, whatever its layout, and never materialises a
//! broadcast operand.
//!
//! - [`table`]: the op table, every op once (names, codes, arity, broadcasting, output type,
//!   and one body per kind of element type);
//! - [`kinds`]: the arithmetic each kind of element type brings to the bodies;
//! - [`kernels`]: the kernels, generated from the table;
//! - [`plan`]: one multi-operand plan (output shape, one stride list per operand, jointly
//!   simplified);
//! - [`exec`]: one parallel executor for every op and type (two operands, Select's three,
//!   FakeQuantize's five, and variadic folds in one pass);
//! - [`view`], [`dispatch`]: runtime-typed views and the entry points on them;
//! - [`select`]: the typed Select.

mod chain;
mod dispatch;
mod exec;
mod expr;
// Compiled only by Rust 1.89 or later (`build.rs` sets `bcast_avx512` from the compiler's
// version), where the AVX-512 intrinsics and target features it uses are stable.
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
#[clippy::msrv = "1.89"]
mod fp16;
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
#[clippy::msrv = "1.89"]
mod fp32;
mod fused;
mod half;
mod kernels;
mod kinds;
mod plan;
mod prepared;
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
#[clippy::msrv = "1.89"]
mod registers;
mod rule;
mod select;
mod select_lanes;
mod table;
mod view;

use ndarray::{ArrayD, ArrayViewD, ArrayViewMutD};

use crate::auto_broadcast::AutoBroadcast;
use crate::error::BroadcastError;
use crate::exec::Parallelism;
use exec::{run_binary, wide_isa, Fresh, Into, PerElement};

pub use dispatch::{
    binary, binary_into, binary_into_with, binary_view, binary_view_into, eltwise, eltwise_into,
    eltwise_into_with, eltwise_view, eltwise_view_into, select_tensor, select_view,
    select_view_into,
};
pub use expr::{ExprLiteral, ExprNode, ExprValue, Expression};
pub use prepared::{eltwise_row_major, PreparedOp};
pub use rule::eltwise_output_shape;
#[cfg(feature = "io")]
pub(crate) use rule::prelu_slope_shape;
pub use select::{select, select_into, select_into_with};
pub use table::{Arity, BinaryOp, EltwiseOp, ParseBinaryOpError, ShiftDirection};
pub use view::{TensorView, TensorViewMut};

/// `f(a, b)` element-wise, with `a` and `b` broadcast under `spec` (PDPD: `b` onto `a`), into a
/// new row-major array. Operands are read in place in any layout (transposed, stepped,
/// reversed); the work is split over rayon's current pool for large outputs, with results
/// identical for any thread count.
///
/// # Errors
/// The broken rule's error ([`BroadcastError::ShapesDiffer`], [`BroadcastError::Incompatible`],
/// [`BroadcastError::PdpdAxis`], [`BroadcastError::DimMismatch`]),
/// [`BroadcastError::ShapeOverflow`], [`BroadcastError::Allocation`],
/// [`BroadcastError::WorkerPanicked`] if `f` panicked.
///
/// ```
/// use bcast::{zip_with, AutoBroadcast};
/// use ndarray::array;
/// let a = array![[1.0f32, 2.0], [3.0, 4.0]].into_dyn();
/// let b = array![10.0f32, 20.0].into_dyn();
/// let sum = zip_with(a.view(), b.view(), &AutoBroadcast::Numpy, |x, y| x + y)?;
/// assert_eq!(sum, array![[11.0, 22.0], [13.0, 24.0]].into_dyn());
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn zip_with<A, B, C, F>(
    a: ArrayViewD<'_, A>,
    b: ArrayViewD<'_, B>,
    spec: &AutoBroadcast,
    f: F,
) -> Result<ArrayD<C>, BroadcastError>
where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Send,
    F: Fn(A, B) -> C + Sync,
{
    run_binary(
        &a,
        &b,
        spec,
        &PerElement(f),
        Fresh,
        Parallelism::Auto,
        wide_isa(Parallelism::Auto),
    )
}

/// [`zip_with`] into `out`, which must have the output's shape (any layout; a row-major one
/// is written in place with no allocation).
///
/// # Errors
/// As [`zip_with`]; [`BroadcastError::OutputShape`] when `out` has another shape.
pub fn zip_with_into<A, B, C, F>(
    a: ArrayViewD<'_, A>,
    b: ArrayViewD<'_, B>,
    spec: &AutoBroadcast,
    out: ArrayViewMutD<'_, C>,
    f: F,
) -> Result<(), BroadcastError>
where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Send,
    F: Fn(A, B) -> C + Sync,
{
    run_binary(
        &a,
        &b,
        spec,
        &PerElement(f),
        Into(out),
        Parallelism::Auto,
        wide_isa(Parallelism::Auto),
    )
}
