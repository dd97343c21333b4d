//! The runtime-typed entry points: operands as [`TensorView`]s (or [`Tensor`]s, viewed),
//! output fresh or into a caller's view. One dispatch from the element type (the dtype
//! table) to the op table's kernel for that type's kind.

use std::cell::Cell;

use ndarray::{ArrayD, ArrayViewD, IxDyn};

use super::exec::{run_select, DirectRun, Fresh, Into, Sink};
use super::kernels::{
    bool_bool, bool_same, float_bool, float_pow_mixed, float_same, half_bool, half_pow_mixed,
    half_same, int_bool, int_pow_mixed, int_same, Job, MixedPow,
};
use super::kinds::{AsExponent, ExponentValue};
use super::plan::EltwisePlan;
use super::table::{EltwiseOp, KernelKind, Out, Shape};
use super::view::{TensorView, TensorViewMut, ViewElement};
use crate::auto_broadcast::AutoBroadcast;
use crate::dtype::{dtype_dispatch, dtype_table, DType, DTypeKind};
use crate::error::BroadcastError;
use crate::exec::Parallelism;
use crate::tensor::Tensor;

fn mismatch(op: &'static str, left: DType, right: DType) -> BroadcastError {
    BroadcastError::DTypeMismatch {
        op,
        left: left.name(),
        right: right.name(),
    }
}

/// Where a run's output goes, with its element type known only at run time.
pub(crate) trait Output {
    /// What the entry point returns.
    type Ret;
    /// The typed destination for element type `C`.
    type To<C: ViewElement>: Sink<C>;
    /// Refuses an output of another element type than `want`.
    fn check_dtype(&self, op: &'static str, want: DType) -> Result<(), BroadcastError>;
    /// The typed destination (the type was checked by `check_dtype`).
    fn to<C: ViewElement>(self, op: &'static str) -> Result<Self::To<C>, BroadcastError>;
    /// The entry point's return value from the typed run's.
    fn ret<C: ViewElement>(out: <Self::To<C> as Sink<C>>::Out) -> Self::Ret;
}

/// A new tensor.
struct NewTensor;

impl Output for NewTensor {
    type Ret = Tensor;
    type To<C: ViewElement> = Fresh;

    fn check_dtype(&self, _op: &'static str, _want: DType) -> Result<(), BroadcastError> {
        Ok(())
    }

    fn to<C: ViewElement>(self, _op: &'static str) -> Result<Fresh, BroadcastError> {
        Ok(Fresh)
    }

    fn ret<C: ViewElement>(out: ArrayD<C>) -> Tensor {
        C::into_tensor(out)
    }
}

/// The caller's view.
struct IntoView<'o>(TensorViewMut<'o>);

impl<'o> Output for IntoView<'o> {
    type Ret = ();
    type To<C: ViewElement> = Into<'o, C>;

    fn check_dtype(&self, op: &'static str, want: DType) -> Result<(), BroadcastError> {
        if self.0.dtype() != want {
            return Err(mismatch(op, want, self.0.dtype()));
        }
        Ok(())
    }

    fn to<C: ViewElement>(self, op: &'static str) -> Result<Into<'o, C>, BroadcastError> {
        let got = self.0.dtype();
        C::view_mut_of(self.0)
            .map(Into)
            .ok_or_else(|| mismatch(op, C::DTYPE, got))
    }

    fn ret<C: ViewElement>(_out: ()) {}
}

/// Calls `f` with `items` mapped by `map`, or `missing` if any maps to None, without
/// allocating for up to five items. `f`'s result is returned as it is, not wrapped: a large
/// result moved once more per layer stalls a tiny op on reading back what was just written.
#[inline]
fn mapped<'i, I, V, R>(
    items: &'i [I],
    map: impl Fn(&'i I) -> Option<V>,
    f: impl FnOnce(&[V]) -> R,
    missing: impl FnOnce() -> R,
) -> R {
    let m = |i: usize| map(&items[i]);
    match items.len() {
        1 => match m(0) {
            Some(a) => f(&[a]),
            None => missing(),
        },
        2 => match (m(0), m(1)) {
            (Some(a), Some(b)) => f(&[a, b]),
            _ => missing(),
        },
        3 => match (m(0), m(1), m(2)) {
            (Some(a), Some(b), Some(c)) => f(&[a, b, c]),
            _ => missing(),
        },
        4 => match (m(0), m(1), m(2), m(3)) {
            (Some(a), Some(b), Some(c), Some(d)) => f(&[a, b, c, d]),
            _ => missing(),
        },
        5 => match (m(0), m(1), m(2), m(3), m(4)) {
            (Some(a), Some(b), Some(c), Some(d), Some(e)) => f(&[a, b, c, d, e]),
            _ => missing(),
        },
        _ => match items.iter().map(map).collect::<Option<Vec<V>>>() {
            Some(all) => f(&all),
            None => missing(),
        },
    }
}

/// Calls `f` with views of `tensors`, without allocating for up to five.
fn with_views<R>(tensors: &[&Tensor], f: impl FnOnce(&[TensorView<'_>]) -> R) -> R {
    match tensors {
        [a] => f(&[a.view()]),
        [a, b] => f(&[a.view(), b.view()]),
        [a, b, c] => f(&[a.view(), b.view(), c.view()]),
        [a, b, c, d] => f(&[a.view(), b.view(), c.view(), d.view()]),
        [a, b, c, d, e] => f(&[a.view(), b.view(), c.view(), d.view(), e.view()]),
        _ => f(&tensors.iter().map(|t| t.view()).collect::<Vec<_>>()),
    }
}

/// An element type's way to its kernels: the kind's generated functions (from its row of the
/// element-type table).
trait Kernels: ViewElement + AsExponent {
    fn run<O: Output>(
        op: EltwiseOp,
        operands: &[&ArrayViewD<'_, Self>],
        spec: &AutoBroadcast,
        par: Parallelism<'_>,
        out: O,
        plan: Option<&EltwisePlan<2>>,
        keep: Option<&Cell<Option<Box<dyn DirectRun>>>>,
    ) -> Result<O::Ret, BroadcastError>;

    /// ONNX Pow with an exponent of another type (see [`MixedPow`]).
    fn run_mixed<O: Output>(job: MixedPow<'_, '_, Self>, out: O) -> Result<O::Ret, BroadcastError>;
}

macro_rules! kind_kernels {
    ($same:ident, $boolean:ident, $mixed:ident) => {
        kind_kernels!($same, $boolean);

        fn run_mixed<O: Output>(
            job: MixedPow<'_, '_, Self>,
            out: O,
        ) -> Result<O::Ret, BroadcastError> {
            let to = out.to::<Self>(job.op.name())?;
            Ok(O::ret::<Self>($mixed(&job, to)?))
        }
    };
    ($same:ident, $boolean:ident) => {
        #[inline(always)]
        fn run<O: Output>(
            op: EltwiseOp,
            operands: &[&ArrayViewD<'_, Self>],
            spec: &AutoBroadcast,
            par: Parallelism<'_>,
            out: O,
            plan: Option<&EltwisePlan<2>>,
            keep: Option<&Cell<Option<Box<dyn DirectRun>>>>,
        ) -> Result<O::Ret, BroadcastError> {
            let job = Job {
                op,
                operands,
                spec,
                par,
                dtype: <Self as crate::Element>::DTYPE.name(),
                plan,
                keep,
            };
            match op.out() {
                Out::Same => Ok(O::ret::<Self>($same(&job, out.to::<Self>(op.name())?)?)),
                Out::Bool => Ok(O::ret::<bool>($boolean(&job, out.to::<bool>(op.name())?)?)),
            }
        }
    };
}

/// Bool and strings are no base of Pow (refused by `output_dtype` before this is reached).
macro_rules! no_mixed {
    () => {
        fn run_mixed<O: Output>(
            job: MixedPow<'_, '_, Self>,
            _out: O,
        ) -> Result<O::Ret, BroadcastError> {
            Err(BroadcastError::UnsupportedType {
                op: job.op.name(),
                dtype: <Self as crate::Element>::DTYPE.name(),
            })
        }
    };
}

macro_rules! kernels_impl {
    (Int, $t:ty, $lane:tt) => {
        impl Kernels for $t {
            kind_kernels!(int_same, int_bool, int_pow_mixed);
        }
    };
    // Unsigned integers run the integer kernels (each body is generic over `Int`).
    (Uint, $t:ty, $lane:tt) => {
        kernels_impl!(Int, $t, $lane);
    };
    (Float, $t:ty, u16) => {
        impl Kernels for $t {
            kind_kernels!(half_same, half_bool, half_pow_mixed);
        }
    };
    (Float, $t:ty, $lane:tt) => {
        impl Kernels for $t {
            kind_kernels!(float_same, float_bool, float_pow_mixed);
        }
    };
    (Bool, $t:ty, $lane:tt) => {
        impl Kernels for $t {
            kind_kernels!(bool_same, bool_bool);
            no_mixed!();
        }
    };
    (Text, $t:ty, $lane:tt) => {
        impl Kernels for $t {
            fn run<O: Output>(
                op: EltwiseOp,
                _operands: &[&ArrayViewD<'_, Self>],
                _spec: &AutoBroadcast,
                _par: Parallelism<'_>,
                _out: O,
                _plan: Option<&EltwisePlan<2>>,
                _keep: Option<&Cell<Option<Box<dyn DirectRun>>>>,
            ) -> Result<O::Ret, BroadcastError> {
                Err(BroadcastError::UnsupportedType {
                    op: op.name(),
                    dtype: <Self as crate::Element>::DTYPE.name(),
                })
            }
            no_mixed!();
        }
    };
}

macro_rules! define_kernel_impls {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        $(kernels_impl!($kind, $t, $lane);)*
    };
}
dtype_table!(define_kernel_impls!);

/// Runs `op` on `inputs` into `out`: the checks every op shares, then the typed kernel.
#[inline]
fn run<O: Output>(
    op: EltwiseOp,
    inputs: &[TensorView<'_>],
    spec: &AutoBroadcast,
    out: O,
    par: Parallelism<'_>,
) -> Result<O::Ret, BroadcastError> {
    run_planned(op, inputs, spec, out, par, None)
}

/// [`run`] with a two-operand op's prepared plan (built from exactly these operands' shapes
/// and strides under the op's resolved rule).
#[inline]
fn run_planned<O: Output>(
    op: EltwiseOp,
    inputs: &[TensorView<'_>],
    spec: &AutoBroadcast,
    out: O,
    par: Parallelism<'_>,
    plan: Option<&EltwisePlan<2>>,
) -> Result<O::Ret, BroadcastError> {
    op.check_arity(inputs.len())?;
    op.check_attributes()?;
    if op.shape() == Shape::Select {
        return select(inputs, spec, out, par);
    }
    let dtype = inputs[0].dtype();
    if op.shape() == Shape::Mixed && inputs[1].dtype() != dtype {
        return mixed(op, inputs, spec, out, par);
    }
    if let Some(other) = inputs.iter().find(|v| v.dtype() != dtype) {
        return Err(mismatch(op.name(), dtype, other.dtype()));
    }
    let want = op.output_dtype(dtype)?;
    out.check_dtype(op.name(), want)?;
    dtype_dispatch!(dtype, T => {
        mapped(
            inputs,
            T::view_of,
            |views| T::run(op, views, spec, par, out, plan, None),
            || Err(mismatch(op.name(), dtype, dtype)),
        )
    })
}

/// ONNX Pow with base and exponent of different types: the exponent is read into exact
/// values (one array of the exponent's size), the base in place.
fn mixed<O: Output>(
    op: EltwiseOp,
    inputs: &[TensorView<'_>],
    spec: &AutoBroadcast,
    out: O,
    par: Parallelism<'_>,
) -> Result<O::Ret, BroadcastError> {
    let [base, exponent] = inputs else {
        return Err(BroadcastError::Arity {
            op: op.name(),
            expected: "2",
            got: inputs.len(),
        });
    };
    let (dtype, edtype) = (base.dtype(), exponent.dtype());
    let want = op.output_dtype(dtype)?;
    out.check_dtype(op.name(), want)?;
    let refused = || BroadcastError::UnsupportedType {
        op: op.name(),
        dtype: edtype.name(),
    };
    let ekind = KernelKind::of(edtype);
    if !matches!(
        ekind,
        KernelKind::Signed | KernelKind::Unsigned | KernelKind::Float | KernelKind::Half
    ) {
        return Err(refused());
    }
    // numpy promotes a float base to f64 under a 32/64-bit integer or an f64 exponent.
    let wide = edtype == DType::F64
        || (ekind != KernelKind::Float && ekind != KernelKind::Half && edtype.size() >= 4);
    let values: ArrayD<ExponentValue> = dtype_dispatch!(edtype, E => {
        let view = E::view_of(exponent).ok_or_else(refused)?;
        let mut v: Vec<ExponentValue> = crate::exec::reserve(view.len(), view.shape(), false)?;
        for x in view.iter() {
            v.push(x.exponent().ok_or_else(refused)?);
        }
        ArrayD::from_shape_vec(view.raw_dim(), v).map_err(|_| refused())?
    });
    dtype_dispatch!(dtype, T => {
        let Some(base) = T::view_of(base) else {
            return Err(mismatch(op.name(), dtype, dtype));
        };
        let job = MixedPow {
            op,
            base,
            exponent: values.view(),
            wide,
            spec,
            par,
        };
        T::run_mixed(job, out)
    })
}

/// Select: a bool condition, then and else of one (any) element type.
fn select<O: Output>(
    inputs: &[TensorView<'_>],
    spec: &AutoBroadcast,
    out: O,
    par: Parallelism<'_>,
) -> Result<O::Ret, BroadcastError> {
    let [cond, then, else_] = inputs else {
        return Err(BroadcastError::Arity {
            op: "select",
            expected: "3",
            got: inputs.len(),
        });
    };
    let TensorView::Bool(cond) = cond else {
        return Err(BroadcastError::UnsupportedType {
            op: "select condition",
            dtype: cond.dtype().name(),
        });
    };
    let dtype = then.dtype();
    if else_.dtype() != dtype {
        return Err(mismatch("select", dtype, else_.dtype()));
    }
    out.check_dtype("select", dtype)?;
    dtype_dispatch!(dtype, T => match (T::view_of(then), T::view_of(else_)) {
        (Some(t), Some(e)) => {
            let to = out.to::<T>("select")?;
            // The table's types other than text are plain bits: picks may move them so.
            let plain = dtype.kind() != DTypeKind::Text;
            Ok(O::ret::<T>(run_select(cond, t, e, spec, to, par, plain)?))
        }
        _ => Err(mismatch("select", dtype, else_.dtype())),
    })
}

/// `op` on `inputs` (viewed in place, any layout) under `spec`, into a new tensor, on the
/// threads `par` names. The output type is [`EltwiseOp::output_dtype`] of operand 0's.
///
/// # Errors
/// [`BroadcastError::Arity`] for a count of operands the op does not take;
/// [`BroadcastError::InvalidAttribute`]; [`BroadcastError::DTypeMismatch`] when operands
/// differ in type (Select: `then` and `else`); [`BroadcastError::UnsupportedType`] for a
/// type the op has no body for; [`BroadcastError::RuleNotTaken`] for pdpd on an op that
/// broadcasts by its own rule; [`BroadcastError::DivisionByZero`] for an integer division or
/// remainder by zero; the broadcast rule's errors.
pub fn eltwise_view(
    op: EltwiseOp,
    inputs: &[TensorView<'_>],
    spec: &AutoBroadcast,
    par: Parallelism<'_>,
) -> Result<Tensor, BroadcastError> {
    run(op, inputs, spec, NewTensor, par)
}

/// [`eltwise_view`] into `out`, which must have the output's element type and shape; a
/// row-major `out` is written in place.
///
/// # Errors
/// As [`eltwise_view`]; [`BroadcastError::DTypeMismatch`] when `out` has another element type
/// (left: the op's output type, right: `out`'s); [`BroadcastError::OutputShape`] when it has
/// another shape.
pub fn eltwise_view_into(
    op: EltwiseOp,
    inputs: &[TensorView<'_>],
    spec: &AutoBroadcast,
    out: TensorViewMut<'_>,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    run(op, inputs, spec, IntoView(out), par)
}

/// [`eltwise_view`] on tensors, on rayon's current pool for large outputs.
///
/// ```
/// use bcast::{eltwise, AutoBroadcast, EltwiseOp, Tensor};
/// use ndarray::array;
/// let a = Tensor::F32(array![[1.0f32, 2.0], [3.0, 4.0]].into_dyn());
/// let b = Tensor::F32(array![10.0f32, 20.0].into_dyn());
/// let c = Tensor::F32(ndarray::arr0(0.5f32).into_dyn());
/// let sum = eltwise(EltwiseOp::Sum, &[&a, &b, &c], &AutoBroadcast::Numpy)?;
/// assert_eq!(sum, Tensor::F32(array![[11.5f32, 22.5], [13.5, 24.5]].into_dyn()));
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
///
/// # Errors
/// As [`eltwise_view`].
pub fn eltwise(
    op: EltwiseOp,
    inputs: &[&Tensor],
    spec: &AutoBroadcast,
) -> Result<Tensor, BroadcastError> {
    with_views(inputs, |views| {
        eltwise_view(op, views, spec, Parallelism::Auto)
    })
}

/// [`eltwise`] into `out`, which must already have the output's element type and shape.
///
/// # Errors
/// As [`eltwise_view_into`].
pub fn eltwise_into(
    op: EltwiseOp,
    inputs: &[&Tensor],
    spec: &AutoBroadcast,
    out: &mut Tensor,
) -> Result<(), BroadcastError> {
    eltwise_into_with(op, inputs, spec, out, Parallelism::Auto)
}

/// [`eltwise_into`] with a choice of threads.
///
/// # Errors
/// As [`eltwise_view_into`].
pub fn eltwise_into_with(
    op: EltwiseOp,
    inputs: &[&Tensor],
    spec: &AutoBroadcast,
    out: &mut Tensor,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    with_views(inputs, |views| {
        eltwise_view_into(op, views, spec, out.view_mut(), par)
    })
}

/// `op` on two tensors of the same element type under `spec`, into a new tensor (bool for
/// comparisons and logical ops, else the operands' type): [`eltwise`] with two operands.
///
/// # Errors
/// As [`eltwise`].
///
/// ```
/// use bcast::{binary, AutoBroadcast, BinaryOp, Tensor};
/// use ndarray::array;
/// let a = Tensor::U8(array![200u8, 7].into_dyn());
/// let b = Tensor::U8(array![100u8].into_dyn());
/// let sum = binary(BinaryOp::Add, &a, &b, &AutoBroadcast::Numpy)?;
/// assert_eq!(sum, Tensor::U8(array![44u8, 107].into_dyn()));
/// # Ok::<(), bcast::BroadcastError>(())
/// ```
pub fn binary(
    op: EltwiseOp,
    a: &Tensor,
    b: &Tensor,
    spec: &AutoBroadcast,
) -> Result<Tensor, BroadcastError> {
    eltwise_view(op, &[a.view(), b.view()], spec, Parallelism::Auto)
}

/// [`binary`] into `out`, which must already have the output's element type and shape.
///
/// # Errors
/// As [`eltwise_into`].
pub fn binary_into(
    op: EltwiseOp,
    a: &Tensor,
    b: &Tensor,
    spec: &AutoBroadcast,
    out: &mut Tensor,
) -> Result<(), BroadcastError> {
    binary_into_with(op, a, b, spec, out, Parallelism::Auto)
}

/// [`binary_into`] with a choice of threads (`Parallelism::Serial`, or a rayon pool used for
/// large outputs only, as every executor of the crate does).
///
/// # Errors
/// As [`binary_into`].
pub fn binary_into_with(
    op: EltwiseOp,
    a: &Tensor,
    b: &Tensor,
    spec: &AutoBroadcast,
    out: &mut Tensor,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    eltwise_view_into(op, &[a.view(), b.view()], spec, out.view_mut(), par)
}

/// `op` on two views: [`eltwise_view`] with two operands.
///
/// # Errors
/// As [`eltwise_view`].
pub fn binary_view(
    op: EltwiseOp,
    a: TensorView<'_>,
    b: TensorView<'_>,
    spec: &AutoBroadcast,
    par: Parallelism<'_>,
) -> Result<Tensor, BroadcastError> {
    eltwise_view(op, &[a.reborrow(), b.reborrow()], spec, par)
}

/// [`binary_view`] into `out` ([`eltwise_view_into`] with two operands).
///
/// # Errors
/// As [`eltwise_view_into`].
pub fn binary_view_into(
    op: EltwiseOp,
    a: TensorView<'_>,
    b: TensorView<'_>,
    spec: &AutoBroadcast,
    out: TensorViewMut<'_>,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    eltwise_view_into(op, &[a.reborrow(), b.reborrow()], spec, out, par)
}

/// [`crate::select`] on tensors: `cond` must be bool, `then` and `else_` of one element type.
///
/// # Errors
/// [`BroadcastError::UnsupportedType`] when `cond` is not bool,
/// [`BroadcastError::DTypeMismatch`] when `then` and `else_` differ; as [`crate::select`].
pub fn select_tensor(
    cond: &Tensor,
    then: &Tensor,
    else_: &Tensor,
    spec: &AutoBroadcast,
) -> Result<Tensor, BroadcastError> {
    eltwise_view(
        EltwiseOp::Select,
        &[cond.view(), then.view(), else_.view()],
        spec,
        Parallelism::Auto,
    )
}

/// [`crate::select`] on views: `then` and `else_` of one element type, into a new tensor, on
/// the threads `par` names.
///
/// # Errors
/// [`BroadcastError::DTypeMismatch`] when `then` and `else_` differ; as [`crate::select`].
pub fn select_view(
    cond: ArrayViewD<'_, bool>,
    then: TensorView<'_>,
    else_: TensorView<'_>,
    spec: &AutoBroadcast,
    par: Parallelism<'_>,
) -> Result<Tensor, BroadcastError> {
    eltwise_view(
        EltwiseOp::Select,
        &[
            TensorView::Bool(cond.view()),
            then.reborrow(),
            else_.reborrow(),
        ],
        spec,
        par,
    )
}

/// [`select_view`] into `out`, which must have `then`'s element type and the output's shape.
///
/// # Errors
/// As [`select_view`]; [`BroadcastError::DTypeMismatch`] when `out` has another element
/// type; [`BroadcastError::OutputShape`] when it has another shape.
pub fn select_view_into(
    cond: ArrayViewD<'_, bool>,
    then: TensorView<'_>,
    else_: TensorView<'_>,
    spec: &AutoBroadcast,
    out: TensorViewMut<'_>,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    eltwise_view_into(
        EltwiseOp::Select,
        &[
            TensorView::Bool(cond.view()),
            then.reborrow(),
            else_.reborrow(),
        ],
        spec,
        out,
        par,
    )
}

/// A prepared two-operand op's run into the caller's view, with the plan built when it was
/// prepared.
pub(crate) fn run_prepared_into(
    op: EltwiseOp,
    inputs: &[TensorView<'_>],
    spec: &AutoBroadcast,
    out: TensorViewMut<'_>,
    par: Parallelism<'_>,
    plan: Option<&EltwisePlan<2>>,
) -> Result<(), BroadcastError> {
    run_planned(op, inputs, spec, IntoView(out), par, plan)
}

/// The kernel record of `op` on two operands of `dtype` ([`DirectRun`]), for a prepared op:
/// the op runs once on two empty operands under the numpy rule, through the very dispatch
/// and op table every call takes, and keeps the kernel it chose. `None` where the op is not
/// a two-operand op of the table on that type, or refuses operands (integer division).
pub(crate) fn direct_binary(op: EltwiseOp, dtype: DType) -> Option<Box<dyn DirectRun>> {
    if !matches!(op.shape(), Shape::Binary | Shape::Mixed) || op.output_dtype(dtype).is_err() {
        return None;
    }
    let keep = Cell::new(None);
    dtype_dispatch!(dtype, T => {
        let empty = ArrayViewD::<T>::from_shape(IxDyn(&[0]), &[]).ok()?;
        let ran = T::run(
            op,
            &[&empty, &empty],
            &AutoBroadcast::Numpy,
            Parallelism::Serial,
            NewTensor,
            None,
            Some(&keep),
        );
        ran.ok()?;
    });
    keep.into_inner()
        .filter(|record| record.dtypes() == (dtype, op.output_dtype(dtype).unwrap_or(dtype)))
}

/// [`run_prepared_into`] into a new tensor.
pub(crate) fn run_prepared_new(
    op: EltwiseOp,
    inputs: &[TensorView<'_>],
    spec: &AutoBroadcast,
    par: Parallelism<'_>,
    plan: Option<&EltwisePlan<2>>,
) -> Result<Tensor, BroadcastError> {
    run_planned(op, inputs, spec, NewTensor, par, plan)
}
