//! The kernels, generated from the op table, for each kind of element type (integers, 32/64-bit
//! floats, 16-bit floats, bool) and each output type (the operands' type, bool):
//!
//! - **block kernels** (`*_same_fn`, `*_bool_fn`): per op a small function that runs the op's
//!   body over one block of sources through the block loop of its shape, compiled for the
//!   baseline ISA and for AVX2. A fused expression calls them per node per block; a whole
//!   two-operand op calls its block kernel per run of whole rows of the plan walk (per
//!   stretch where an operand is read from a tile) ([`TableBinary`]), so
//!   the walk, the threads and the output handling are compiled once per element type, not
//!   once per op and type.
//! - **whole-op kernels** (`*_same`, `*_bool`): one arm per op; the two-operand ops go to
//!   [`TableBinary`], the variadic folds and FakeQuantize run their bodies through their own
//!   executors.
//!
//! An op without a body for the kind refuses the type (checked before, by `output_dtype`).

use ndarray::{ArrayViewD, Axis};

use super::chain::ChainIsa;
use super::exec::{
    run_binary, run_binary_planned, run_fold, run_quantize, wide_isa, BinaryKernel, BlockRows,
    DirectBinary, DirectRun, Fold, FoldPass, PerElement, Quantize, RefuseZeroDivisor,
    RegisterReading, Sink, Src,
};
use super::half::{Half, ViaF32};
use super::kinds::{
    floor_div, floor_mod_f64, floor_rem, int_pow, max_of, min_of, numpy_max, numpy_max_half,
    numpy_min, numpy_min_half, numpy_mod, onnx_shift, ov_shift_left, ov_shift_right, pow_via_f64,
    ExponentValue, FakeQuantize, Int, Mean, QuantizeBody, Real,
};
#[allow(unused_imports)]
use super::plan::EltwisePlan;
use super::rule::{prelu_slope_shape, resolve, Resolved};
use super::table::{op_bodies, EltwiseOp, ShiftDirection};
use super::view::ViewElement;
use crate::auto_broadcast::AutoBroadcast;
use crate::dtype::dtype_table;
use crate::error::BroadcastError;
use crate::exec::isa::Avx2;
use crate::exec::{row_settings, uninit_slots, Parallelism, Slot};
use std::cell::Cell;
use std::mem::MaybeUninit;

/// One run of an op on operands of one element type.
pub(crate) struct Job<'s, 'a, T> {
    pub(crate) op: EltwiseOp,
    pub(crate) operands: &'s [&'s ArrayViewD<'a, T>],
    pub(crate) spec: &'s AutoBroadcast,
    pub(crate) par: Parallelism<'s>,
    pub(crate) dtype: &'static str,
    /// A two-operand op's plan, built when the op was prepared from exactly these operands'
    /// shapes and strides under its resolved rule (see [`super::prepared`]).
    pub(crate) plan: Option<&'s EltwisePlan<2>>,
    /// Where a prepared op keeps the kernel record of a two-operand op ([`DirectRun`]), made
    /// as the op runs once on empty operands at preparation; `None` for every other call.
    pub(crate) keep: Option<&'s Cell<Option<Box<dyn DirectRun>>>>,
}

/// `op` does not take `dtype` (its row has no body for the type's kind).
fn unsupported(op: EltwiseOp, dtype: &'static str) -> BroadcastError {
    BroadcastError::UnsupportedType {
        op: op.name(),
        dtype,
    }
}

/// `op`'s shape does not take `got` operands.
pub(crate) fn wrong_arity(op: EltwiseOp, got: usize) -> BroadcastError {
    BroadcastError::Arity {
        op: op.name(),
        expected: "another number of",
        got,
    }
}

impl<T: Copy + Send + Sync> Job<'_, '_, T> {
    fn unsupported(&self) -> BroadcastError {
        unsupported(self.op, self.dtype)
    }

    fn arity(&self) -> BroadcastError {
        wrong_arity(self.op, self.operands.len())
    }

    /// Runs a two-operand op under the op's broadcasting ([`resolve`]), with the strategy's
    /// AVX2 reading ([`wide_isa`]) already taken.
    #[inline(always)]
    fn binary<C, K, D>(
        &self,
        kernel: &K,
        sink: D,
        wide: Option<(Avx2, usize)>,
    ) -> Result<D::Out, BroadcastError>
    where
        C: Send,
        K: BinaryKernel<T, T, C>,
        D: Sink<C>,
    {
        let [a, b] = self.operands else {
            return Err(self.arity());
        };
        if let Some(plan) = self.plan {
            return run_binary_planned(plan, a, b, kernel, sink, self.par, wide);
        }
        let Resolved { spec, channel } = resolve(self.op, self.spec, &[a.shape(), b.shape()])?;
        // Borrowed, not re-viewed: a view of IxDyn copies its shape and strides, which is a
        // visible share of a tiny op's call.
        let on_channel;
        let b = if channel {
            on_channel = on_channel_axis(a, (*b).clone());
            &on_channel
        } else {
            b
        };
        run_binary(a, b, &spec, kernel, sink, self.par, wide)
    }

    /// Runs a two-operand op of the table through its block kernel ([`TableBinary`]);
    /// `refuse_zero`: a zero divisor anywhere in `b` is refused before any output is written.
    #[inline(always)]
    fn table_binary<C, D>(
        &self,
        block_fn: fn(EltwiseOp, Option<Avx2>) -> BlockFn<T, C>,
        register_fn: fn(EltwiseOp, ChainIsa) -> Option<RegisterBlock<T, C>>,
        refuse_zero: bool,
        sink: D,
    ) -> Result<D::Out, BroadcastError>
    where
        T: PartialEq + Default + crate::Element,
        C: Copy + Send + crate::Element,
        D: Sink<C>,
    {
        // One reading of the strategy serves the block kernels and the walk. Where the
        // strategy runs the wide build, an op with a kernel in 64-byte registers that the
        // strategy allows (`registers.rs`) keeps that too, for the runs small enough for it.
        let wide = wide_isa(self.par);
        let strategy = self.par.strategy();
        let registers = RegisterReading::of(&strategy);
        let kernel = TableBinary {
            op: self.op,
            dtype: self.dtype,
            f16c: Avx2::detect(),
            refuse_zero,
            relative_cost: self.op.relative_cost(T::DTYPE),
            block: block_fn(self.op, None),
            wide_block: wide.map(|(isa, from)| (block_fn(self.op, Some(isa)), from)),
            register_block: wide.and_then(|_| register_fn(self.op, ChainIsa::new(&strategy))),
        };
        if let (Some(keep), false) = (self.keep, refuse_zero) {
            keep.set(Some(Box::new(DirectBinary::<T, C, _>::new(
                kernel.clone(),
                wide,
                registers,
            ))));
        }
        self.binary(&kernel, sink, wide)
    }

    fn fold<F0, F, G, D>(&self, fold: &Fold<F0, F, G>, sink: D) -> Result<D::Out, BroadcastError>
    where
        T: Default,
        F0: Fn(T) -> T + Sync,
        F: Fn(T, T) -> T + Sync,
        G: Fn(T, usize) -> T + Sync,
        D: Sink<T>,
    {
        let shapes: Vec<&[usize]> = self.operands.iter().map(|v| v.shape()).collect();
        resolve(self.op, self.spec, &shapes)?;
        run_fold(self.op.name(), self.operands, fold, sink, self.par)
    }

    fn quantize<F, D>(&self, kernel: &Quantize<F>, sink: D) -> Result<D::Out, BroadcastError>
    where
        F: QuantizeBody<T>,
        D: Sink<T>,
    {
        let [x, il, ih, ol, oh] = self.operands else {
            return Err(self.arity());
        };
        let shapes = [x.shape(), il.shape(), ih.shape(), ol.shape(), oh.shape()];
        let rule = resolve(self.op, self.spec, &shapes)?;
        let views = [x.view(), il.view(), ih.view(), ol.view(), oh.view()];
        run_quantize(views, &rule.spec, kernel, sink, self.par)
    }
}

/// A block kernel of the table: the op's arm of its element type's generated function, for
/// one output type, compiled for the baseline ISA or for AVX2.
pub(crate) type BlockFn<T, C> =
    unsafe fn(&BlockJob<'_, '_, T>, &mut [MaybeUninit<C>]) -> Result<(), BroadcastError>;

/// A two-operand op of the table as one [`BinaryKernel`]: per run of rows ([`BlockRows`]) or
/// stretch of the plan walk, the op's block kernel (one match on the op, then the op's block
/// loop). The walk is compiled once per element type, not once per op and type.
pub(crate) struct TableBinary<T, C> {
    op: EltwiseOp,
    dtype: &'static str,
    f16c: Option<Avx2>,
    refuse_zero: bool,
    /// [`EltwiseOp::relative_cost`] for the operands' type.
    relative_cost: usize,
    /// The baseline build.
    block: BlockFn<T, C>,
    /// The AVX2 build, where the strategy and the CPU run it, and the output bytes from
    /// which a call uses it (`Strategy::wide_eltwise_from`).
    wide_block: Option<(BlockFn<T, C>, usize)>,
    /// The kernel in 64-byte registers (`registers.rs`), where the strategy and the CPU
    /// allow one; it takes the AVX2 build's place in the runs it is for
    /// ([`RegisterBlock::every_size`]).
    register_block: Option<RegisterBlock<T, C>>,
}

/// A block kernel in 64-byte registers (`registers.rs`) and the runs it takes.
pub(crate) struct RegisterBlock<T, C> {
    /// The kernel.
    pub(crate) block: BlockFn<T, C>,
    /// Whether it runs at every output size (f16: its native arithmetic makes the op
    /// memory-bound where the widening build is bound by its conversions, in the core's
    /// cache and beyond it), or only for outputs that stay in the core's cache
    /// (`RowSettings::core_resident`; f32: beyond it the AVX2 build's loop keeps the same
    /// memory rate).
    pub(crate) every_size: bool,
}

// By hand, as `TableBinary`'s.
impl<T, C> Clone for RegisterBlock<T, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, C> Copy for RegisterBlock<T, C> {}

// By hand: a derive would ask `T: Clone` and `C: Clone` of what are only fn pointers' types.
impl<T, C> Clone for TableBinary<T, C> {
    fn clone(&self) -> Self {
        TableBinary { ..*self }
    }
}

impl<T, C> TableBinary<T, C> {
    /// One call of the op's block kernel, on one block (`args`) or a run of rows (`rows`).
    #[inline(always)]
    fn call_block(
        &self,
        args: &[Src<'_, T>],
        rows: Option<&BlockRows<'_, T, T>>,
        out: &mut [MaybeUninit<C>],
    ) {
        let job = BlockJob {
            op: self.op,
            args,
            rows,
            dtype: self.dtype,
            f16c: self.f16c,
        };
        let block = match (self.wide_block, self.register_block) {
            (Some((_, from)), Some(registers))
                if std::mem::size_of_val(out) >= from
                    && (registers.every_size || row_settings().core_resident) =>
            {
                registers.block
            }
            (Some((wide, from)), _) if std::mem::size_of_val(out) >= from => wide,
            _ => self.block,
        };
        // SAFETY: `wide_block` is the AVX2 build, chosen with the token that proves this CPU
        // runs AVX2 ([`BlockKernels::same_fn`]); `register_block` was chosen with the token of
        // its registers' features ([`BlockKernels::register_fn`]); `block` is the baseline
        // build.
        let done = unsafe { block(&job, out) };
        if let Err(e) = done {
            // The op, the type and the arity were checked before the run, and a zero divisor
            // by `check`; a failed block has not written its slots, so the run must not
            // return (the executor's guard turns this into `WorkerPanicked`).
            unreachable!("a block kernel refused operands checked before the run: {e}");
        }
    }
}

impl<T, C> BinaryKernel<T, T, C> for TableBinary<T, C>
where
    T: Copy + PartialEq + Default + Sync,
    C: Copy + Send,
{
    #[inline]
    fn block<S: Slot<C>>(&self, a: &Src<'_, T>, b: &Src<'_, T>, out: &mut [S]) {
        // SAFETY: `C` is `Copy` (no drop glue) and the block kernels store a whole valid `C`
        // in every slot they are given, never an uninitialised value.
        let slots = unsafe { uninit_slots(out) };
        let args = [*a, *b];
        self.call_block(&args, None, slots);
    }

    #[inline]
    fn rows<S: Slot<C>>(&self, rows: &BlockRows<'_, T, T>, out: &mut [S]) {
        // SAFETY: as in `block`.
        let slots = unsafe { uninit_slots(out) };
        self.call_block(&[], Some(rows), slots);
    }

    fn relative_cost(&self) -> usize {
        self.relative_cost
    }

    fn check(&self, _a: &ArrayViewD<'_, T>, b: &ArrayViewD<'_, T>) -> Result<(), BroadcastError> {
        let zero = T::default();
        if self.refuse_zero && b.iter().any(|x| *x == zero) {
            return Err(BroadcastError::DivisionByZero {
                op: self.op.name(),
                dtype: self.dtype,
            });
        }
        Ok(())
    }
}

/// An element type's block kernels, from its row of the element-type table.
pub(crate) trait BlockKernels:
    ViewElement + Copy + Default + Send + Sync + super::chain::ChainKernels
{
    /// The block kernel of `op` (an op whose output has the operands' type), compiled for
    /// AVX2 when `isa` holds the token.
    fn same_fn(op: EltwiseOp, isa: Option<Avx2>) -> BlockFn<Self, Self>;
    /// The block kernel of `op` (an op whose output is bool: comparisons).
    fn boolean_fn(op: EltwiseOp, isa: Option<Avx2>) -> BlockFn<Self, bool>;
    /// The block kernel of `op` (an op whose output has the operands' type) in 64-byte
    /// registers (`registers.rs`), where the type has one for the op and `isa` allows it.
    fn register_fn(op: EltwiseOp, isa: ChainIsa) -> Option<RegisterBlock<Self, Self>> {
        let _ = (op, isa);
        None
    }
}

/// No block kernel in registers (ops whose output is bool).
fn no_register_fn<T, C>(_: EltwiseOp, _: ChainIsa) -> Option<RegisterBlock<T, C>> {
    None
}

macro_rules! block_kernels_impl {
    ($t:ty, $same:ident, $boolean:ident $(, $kind:ident $kernel:ident)*) => {
        impl BlockKernels for $t {
            fn same_fn(op: EltwiseOp, isa: Option<Avx2>) -> BlockFn<Self, Self> {
                $same(op, isa)
            }

            fn boolean_fn(op: EltwiseOp, isa: Option<Avx2>) -> BlockFn<Self, bool> {
                $boolean(op, isa)
            }

            // The first of the type's register kernels the CPU and strategy allow.
            fn register_fn(op: EltwiseOp, isa: ChainIsa) -> Option<RegisterBlock<Self, Self>> {
                let _ = (op, isa);
                $(
                    if let Some(kernel) = register_block!($kind $kernel, op, isa) {
                        return Some(kernel);
                    }
                )*
                None
            }
        }
    };
}

/// The register kernel of kind `$k` where the CPU and strategy allow it (`isa`); none from a
/// compiler without the AVX-512 intrinsics.
macro_rules! register_block {
    ($kind:ident $kernel:ident, $op:ident, $isa:ident) => {{
        #[cfg(all(target_arch = "x86_64", bcast_avx512))]
        {
            if $isa.$kind.is_some() {
                super::registers::$kernel($op)
            } else {
                None
            }
        }
        #[cfg(not(all(target_arch = "x86_64", bcast_avx512)))]
        {
            let _ = ($op, $isa);
            None
        }
    }};
}

macro_rules! block_kernels_for {
    (Int, $v:ident, $t:ty, $lane:tt) => {
        block_kernels_impl!($t, int_same_fn, int_bool_fn);
    };
    (Uint, $v:ident, $t:ty, $lane:tt) => {
        block_kernels_impl!($t, int_same_fn, int_bool_fn);
    };
    (Float, F16, $t:ty, u16) => {
        block_kernels_impl!(
            $t,
            half_same_fn,
            half_bool_fn,
            f16x32 f16x32_block,
            f16_f32x16 f16_in_f32x16_block
        );
    };
    (Float, $v:ident, $t:ty, u16) => {
        block_kernels_impl!($t, half_same_fn, half_bool_fn);
    };
    (Float, F32, $t:ty, $lane:tt) => {
        block_kernels_impl!($t, float_same_fn, float_bool_fn, f32x16 f32x16_block);
    };
    (Float, $v:ident, $t:ty, $lane:tt) => {
        block_kernels_impl!($t, float_same_fn, float_bool_fn);
    };
    (Bool, $v:ident, $t:ty, $lane:tt) => {
        block_kernels_impl!($t, bool_same_fn, bool_bool_fn);
    };
    // Strings own memory: their expressions (Select only) run op by op.
    (Text, $v:ident, $t:ty, $lane:tt) => {};
}

macro_rules! define_block_kernels {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        $(block_kernels_for!($kind, $v, $t, $lane);)*
    };
}
dtype_table!(define_block_kernels!);

/// OpenVINO PRelu's slope placement: a 1-D slope as long as x's channel axis (axis 1) goes
/// on that axis (trailing axes of 1 added); any other slope is left for the numpy rule.
fn on_channel_axis<'a, T>(x: &ArrayViewD<'_, T>, slope: ArrayViewD<'a, T>) -> ArrayViewD<'a, T> {
    let rank = prelu_slope_shape(x.shape(), slope.shape()).len();
    let mut s = slope;
    while s.ndim() < rank {
        let last = Axis(s.ndim());
        s = s.insert_axis(last);
    }
    s
}

/// Pins a closure's signature (so the table's bodies need no type annotations).
#[inline(always)]
fn fn2<A, B, C, F: Fn(A, B) -> C>(f: F) -> F {
    f
}

#[inline(always)]
fn quantize_body<T, B: QuantizeBody<T>>(f: B) -> B {
    f
}

/// The output element type of a generated function.
macro_rules! out_ty {
    (Same, $t:ty) => {
        $t
    };
    (Bool, $t:ty) => {
        bool
    };
}

/// One arm's code: `Err` when the row's output type is not the function's, else the body of
/// the function's kind (`$k`), run through the row's shape.
macro_rules! arm {
    ($path:tt, Same, Bool, $k:ident, $job:ident, $($rest:tt)*) => { Err($job.unsupported()) };
    ($path:tt, Bool, Same, $k:ident, $job:ident, $($rest:tt)*) => { Err($job.unsupported()) };
    ($path:tt, $fo:ident, $ro:ident, $k:ident, $job:ident, $sink:ident, $shape:tt, [$($key:ident : $body:expr),*]) => {
        pick!($path, $k, $fo, $job, $sink, $shape, [$($key : $body),*])
    };
}

/// Finds the body for kind `$k` among a row's keys.
macro_rules! pick {
    ($path:tt, $k:ident, $fo:ident, $job:ident, $sink:ident, $shape:tt, []) => {
        Err($job.unsupported())
    };
    ($path:tt, int, $fo:ident, $job:ident, $sink:ident, $shape:tt, [int_div : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!($path, int_div, $fo, $job, $sink, $shape, $b)
    };
    ($path:tt, int, $fo:ident, $job:ident, $sink:ident, $shape:tt, [int : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!($path, plain, $fo, $job, $sink, $shape, $b)
    };
    ($path:tt, int, $fo:ident, $job:ident, $sink:ident, $shape:tt, [uint : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!($path, plain, $fo, $job, $sink, $shape, $b)
    };
    ($path:tt, float, $fo:ident, $job:ident, $sink:ident, $shape:tt, [float : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!($path, plain, $fo, $job, $sink, $shape, $b)
    };
    ($path:tt, half, $fo:ident, $job:ident, $sink:ident, $shape:tt, [half : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!($path, via_f32, $fo, $job, $sink, $shape, $b)
    };
    ($path:tt, half, $fo:ident, $job:ident, $sink:ident, $shape:tt, [half_native : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!($path, plain, $fo, $job, $sink, $shape, $b)
    };
    ($path:tt, bool, $fo:ident, $job:ident, $sink:ident, $shape:tt, [bool : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!($path, plain, $fo, $job, $sink, $shape, $b)
    };
    ($path:tt, $k:ident, $fo:ident, $job:ident, $sink:ident, $shape:tt, [ord : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!($path, plain, $fo, $job, $sink, $shape, $b)
    };
    ($path:tt, $k:ident, $fo:ident, $job:ident, $sink:ident, $shape:tt, [$other:ident : $b:expr $(, $key:ident : $body:expr)*]) => {
        pick!($path, $k, $fo, $job, $sink, $shape, [$($key : $body),*])
    };
}

/// Runs body `$b` (`plain`: on `T`; `via_f32`: on f32, each element widened and the result
/// rounded once; `int_div`: on `T`, a zero divisor refused) through the row's shape.
///
/// `$path` is `(whole 'label)` for a whole op's run, `block` for a block of an expression's
/// node. A whole two-operand op runs its block kernel (the `block` path's function for the
/// type, [`BlockKernels`]) once per run of rows of the plan walk ([`TableBinary`]), so the walk is
/// compiled once per element type rather than once per op and type; its arm only says
/// whether a zero divisor is refused (`break 'label`), and the whole-op kernel then makes
/// its one call of the table's two-operand runner.
macro_rules! run {
    ((whole $table:lifetime), int_div, $fo:ident, $job:ident, $sink:ident, [Binary], $b:expr) => {
        break $table true
    };
    ((whole $table:lifetime), $how:ident, $fo:ident, $job:ident, $sink:ident, [Binary], $b:expr) => {
        break $table false
    };
    ((whole $table:lifetime), $how:ident, $fo:ident, $job:ident, $sink:ident, [Mixed], $b:expr) => {
        break $table false
    };
    ($path:tt, plain, $fo:ident, $job:ident, $sink:ident, [Binary], $b:expr) => {
        $job.binary(&PerElement(fn2::<T, T, out_ty!($fo, T), _>($b)), $sink)
    };
    ($path:tt, plain, $fo:ident, $job:ident, $sink:ident, [Mixed], $b:expr) => {
        $job.binary(&PerElement(fn2::<T, T, out_ty!($fo, T), _>($b)), $sink)
    };
    ($path:tt, int_div, $fo:ident, $job:ident, $sink:ident, [Binary], $b:expr) => {
        $job.binary(
            &RefuseZeroDivisor {
                kernel: PerElement(fn2::<T, T, T, _>($b)),
                op: $job.op.name(),
                dtype: $job.dtype,
            },
            $sink,
        )
    };
    ($path:tt, via_f32, $fo:ident, $job:ident, $sink:ident, [Binary], $b:expr) => {
        $job.binary(
            &ViaF32::with_f16c(fn2::<f32, f32, f32, _>($b), $job.f16c),
            $sink,
        )
    };
    ($path:tt, via_f32, $fo:ident, $job:ident, $sink:ident, [Mixed], $b:expr) => {
        $job.binary(
            &ViaF32::with_f16c(fn2::<f32, f32, f32, _>($b), $job.f16c),
            $sink,
        )
    };
    ($path:tt, plain, $fo:ident, $job:ident, $sink:ident, [Fold($start:ident, $finish:ident)], $b:expr) => {{
        let step = fn2::<T, T, T, _>($b);
        $job.fold(
            &Fold {
                start: fold_start!($start, step),
                step,
                finish: |a: T, n: usize| fold_finish!($finish, a, n),
            },
            $sink,
        )
    }};
    ($path:tt, via_f32, $fo:ident, $job:ident, $sink:ident, [Fold($start:ident, $finish:ident)], $b:expr) => {{
        let f = fn2::<f32, f32, f32, _>($b);
        // Rounded after every step, as the references add in the element type.
        let step = move |a: T, x: T| T::narrow(f(a.widen(), x.widen()));
        $job.fold(
            &Fold {
                start: fold_start!($start, step),
                step,
                finish: |a: T, n: usize| fold_finish!($finish, a, n),
            },
            $sink,
        )
    }};
    ($path:tt, plain, $fo:ident, $job:ident, $sink:ident, [Quantize], $b:expr) => {
        $job.quantize(&Quantize(quantize_body::<T, _>($b)), $sink)
    };
    ($path:tt, via_f32, $fo:ident, $job:ident, $sink:ident, [Quantize], $b:expr) => {{
        let f = quantize_body::<f32, _>($b);
        $job.quantize(
            &Quantize(move |x: T, il: T, ih: T, ol: T, oh: T| {
                T::narrow(f.element(x.widen(), il.widen(), ih.widen(), ol.widen(), oh.widen()))
            }),
            $sink,
        )
    }};
    ($path:tt, $how:ident, $fo:ident, $job:ident, $sink:ident, [Select], $b:expr) => {
        Err($job.unsupported())
    };
}

/// The block kernel of an output type (`Same`, `Bool`), as a function of the ISA token.
macro_rules! block_fn {
    (Same) => {
        <T as BlockKernels>::same_fn
    };
    (Bool) => {
        <T as BlockKernels>::boolean_fn
    };
}

/// The block kernel of an output type in 64-byte registers, where there is one.
macro_rules! register_fn {
    (Same) => {
        <T as BlockKernels>::register_fn
    };
    (Bool) => {
        no_register_fn
    };
}

macro_rules! fold_start {
    (First, $step:ident) => {
        |x: T| x
    };
}

macro_rules! fold_finish {
    (Keep, $a:ident, $n:ident) => {{
        let _ = $n;
        $a
    }};
    (Mean, $a:ident, $n:ident) => {
        Mean::mean($a, $n)
    };
}

/// Generates, for each kind, one function per output type with one arm per row.
macro_rules! define_kernels {
    ($kind:ident, $same:ident, $boolean:ident, $gen:tt, $elem:ty, $alias:tt,
     $job:ident, $sink:ident, $path:tt ; $($rows:tt)*) => {
        define_kernels!(@one $kind, $same, Same, $elem, $gen, $elem, $alias, $job, $sink, $path ; $($rows)*);
        define_kernels!(@one $kind, $boolean, Bool, bool, $gen, $elem, $alias, $job, $sink, $path ; $($rows)*);
    };
    (@one $kind:ident, $name:ident, $fo:ident, $out_elem:ty, [$($gen:tt)*], $elem:ty,
     [$($alias:tt)*], $job:ident, $sink:ident, $path:tt ;
     $(
        $v:ident [$($f:ident),*] $shape:tt $out:ident [$($lanes:ident)?]
        { $($key:ident : $body:expr),* }
     )*) => {
        // Inlined into the one caller (the type's dispatch): a tiny op pays for each call
        // layer it passes on its way to the plan.
        #[allow(unused_variables, clippy::redundant_closure, clippy::diverging_sub_expression)]
        #[inline(always)]
        pub(crate) fn $name<$($gen)* D: $sink<$out_elem>>(
            job: &$job<'_, '_, $elem>,
            sink: D,
        ) -> Result<D::Out, BroadcastError> {
            $($alias)*
            // Two-operand ops leave the match with whether a zero divisor is refused; the
            // others return from their arm.
            let refuse_zero = 'table: {
                return match job.op {
                    $(EltwiseOp::$v { $($f),* } => arm!(
                        ($path 'table), $fo, $out, $kind, job, sink,
                        $shape, [$($key : $body),*]
                    ),)*
                };
            };
            job.table_binary(block_fn!($fo), register_fn!($fo), refuse_zero, sink)
        }
    };
}

/// Generates, for each kind, one function per output type that gives an op's block kernel:
/// per row a small function of its own (the op's body through the block loop of its shape),
/// compiled for the baseline ISA and for AVX2, so a stretch or block costs one indirect call
/// and no match over the table.
macro_rules! define_block_fns {
    ($kind:ident, $same:ident, $boolean:ident, $gen:tt, $elem:ty, $alias:tt ; $($rows:tt)*) => {
        define_block_fns!(@ $kind, $same, $boolean, $gen, $gen, $elem, $alias ; $($rows)*);
    };
    (@ $kind:ident, $same:ident, $boolean:ident, [$($gen:tt)*], $g:tt, $elem:ty, $a:tt ;
     $(
        $v:ident [$($f:ident),*] $shape:tt $out:ident [$($lanes:ident)?]
        { $($key:ident : $body:expr),* }
     )*) => {
        pub(crate) fn $same<$($gen)*>(op: EltwiseOp, isa: Option<Avx2>) -> BlockFn<$elem, $elem> {
            match op {
                $(EltwiseOp::$v { .. } => block_fn_of!(
                    Same, $elem, $g, $a, isa,
                    { EltwiseOp::$v { $($f),* } },
                    { $out, $kind, $shape, [$($key : $body),*] }
                ),)*
            }
        }

        pub(crate) fn $boolean<$($gen)*>(op: EltwiseOp, isa: Option<Avx2>) -> BlockFn<$elem, bool> {
            match op {
                $(EltwiseOp::$v { .. } => block_fn_of!(
                    Bool, $elem, $g, $a, isa,
                    { EltwiseOp::$v { $($f),* } },
                    { $out, $kind, $shape, [$($key : $body),*] }
                ),)*
            }
        }
    };
}

/// One row's block kernel for output type `$fo`, baseline or AVX2 by `$isa`.
macro_rules! block_fn_of {
    ($fo:ident, $elem:ty, [$($gen:tt)*], [$($alias:tt)*], $isa:ident, { $pat:pat },
     { $out:ident, $kind:ident, $shape:tt, $bodies:tt }) => {{
        #[allow(unused_variables, dead_code, clippy::redundant_closure)]
        #[inline(always)]
        fn body<$($gen)* D: BlockSink<out_ty!($fo, $elem)>>(
            job: &BlockJob<'_, '_, $elem>,
            sink: D,
        ) -> Result<D::Out, BroadcastError> {
            $($alias)*
            match job.op {
                $pat => arm!(block, $fo, $out, $kind, job, sink, $shape, $bodies),
                _ => Err(job.unsupported()),
            }
        }
        fn base<$($gen)*>(
            job: &BlockJob<'_, '_, $elem>,
            out: &mut [MaybeUninit<out_ty!($fo, $elem)>],
        ) -> Result<(), BroadcastError> {
            body(job, BlockOut(out))
        }
        /// # Safety
        /// The CPU must run AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn wide<$($gen)*>(
            job: &BlockJob<'_, '_, $elem>,
            out: &mut [MaybeUninit<out_ty!($fo, $elem)>],
        ) -> Result<(), BroadcastError> {
            body(job, BlockOut(out))
        }
        match $isa {
            #[cfg(target_arch = "x86_64")]
            Some(_) => wide as BlockFn<$elem, out_ty!($fo, $elem)>,
            _ => base as BlockFn<$elem, out_ty!($fo, $elem)>,
        }
    }};
}

op_bodies!(
    define_kernels!(int, int_same, int_bool, [T: Int + BlockKernels,], T, [], Job, Sink, whole)
);
op_bodies!(
    define_kernels!(float, float_same, float_bool, [T: Real + Mean + BlockKernels,], T, [], Job, Sink, whole)
);
op_bodies!(
    define_kernels!(half, half_same, half_bool, [T: Half + Mean + Default + BlockKernels,], T, [], Job, Sink, whole)
);
op_bodies!(
    define_kernels!(bool, bool_same, bool_bool, [], bool, [type T = bool;], Job, Sink, whole)
);

/// One block of one node of an expression: the op's operands as the block's sources, the
/// result into a block of scratch ([`BlockOut`]). The same bodies as the kernels above,
/// through the same block loops, so a fused node rounds and wraps as the op alone does.
pub(crate) struct BlockJob<'s, 'a, T> {
    pub(crate) op: EltwiseOp,
    pub(crate) args: &'s [Src<'a, T>],
    /// Instead of `args`, a run of whole rows of a two-operand op (a whole op's walk).
    pub(crate) rows: Option<&'s BlockRows<'a, T, T>>,
    pub(crate) dtype: &'static str,
    /// The CPU's F16C, found once per run (not once per block) for the 16-bit float kernels.
    pub(crate) f16c: Option<Avx2>,
}

/// A block's destination: slots the kernel writes every one of.
pub(crate) trait BlockSink<C> {
    type Out;
    fn slots(&mut self) -> &mut [MaybeUninit<C>];
    fn done(self) -> Self::Out;
}

/// The block a node writes (a scratch block, or the result's stretch of the output).
pub(crate) struct BlockOut<'o, C>(pub(crate) &'o mut [MaybeUninit<C>]);

impl<C> BlockSink<C> for BlockOut<'_, C> {
    type Out = ();

    fn slots(&mut self) -> &mut [MaybeUninit<C>] {
        self.0
    }

    fn done(self) {}
}

impl<T: Copy + Send + Sync> BlockJob<'_, '_, T> {
    fn unsupported(&self) -> BroadcastError {
        unsupported(self.op, self.dtype)
    }

    fn arity(&self) -> BroadcastError {
        wrong_arity(self.op, self.args.len())
    }

    #[inline(always)]
    fn binary<C, K, D>(&self, kernel: &K, mut sink: D) -> Result<D::Out, BroadcastError>
    where
        C: Send,
        K: BinaryKernel<T, T, C>,
        D: BlockSink<C>,
    {
        let out = sink.slots();
        // One block is one row; the loop is written once so the op's block loop is inlined
        // once.
        let (count, n) = match self.rows {
            Some(rows) => (rows.count(), rows.row_len()),
            None => (1, out.len()),
        };
        for r in 0..count {
            let (a, b) = match (self.rows, self.args) {
                (Some(rows), _) => rows.sources(r),
                (None, [a, b]) => (*a, *b),
                (None, _) => return Err(self.arity()),
            };
            let row = &mut out[r * n..(r + 1) * n];
            kernel.check_block(b, n)?;
            kernel.block(&a, &b, row);
        }
        Ok(sink.done())
    }

    #[inline(always)]
    fn fold<F0, F, G, D>(
        &self,
        fold: &Fold<F0, F, G>,
        mut sink: D,
    ) -> Result<D::Out, BroadcastError>
    where
        T: Default,
        F0: Fn(T) -> T + Sync,
        F: Fn(T, T) -> T + Sync,
        G: Fn(T, usize) -> T + Sync,
        D: BlockSink<T>,
    {
        if self.rows.is_some() {
            // Runs of rows are a two-operand op's (`TableBinary`).
            return Err(self.arity());
        }
        let pass = FoldPass {
            partial: false,
            finish: Some(self.args.len()),
        };
        fold.block(self.args, pass, sink.slots());
        Ok(sink.done())
    }

    #[inline(always)]
    fn quantize<F, D>(&self, kernel: &Quantize<F>, mut sink: D) -> Result<D::Out, BroadcastError>
    where
        F: QuantizeBody<T>,
        D: BlockSink<T>,
    {
        let (None, Ok(args)) = (self.rows, <&[Src<'_, T>; 5]>::try_from(self.args)) else {
            return Err(self.arity());
        };
        kernel.block(args, sink.slots());
        Ok(sink.done())
    }
}

op_bodies!(define_block_fns!(int, int_same_fn, int_bool_fn, [T: Int,], T, []));
op_bodies!(define_block_fns!(float, float_same_fn, float_bool_fn, [T: Real + Mean,], T, []));
op_bodies!(define_block_fns!(half, half_same_fn, half_bool_fn, [T: Half + Mean + Default,], T, []));
op_bodies!(define_block_fns!(bool, bool_same_fn, bool_bool_fn, [], bool, [type T = bool;]));

/// ONNX Pow (opset 15) with an exponent of another type than the base, as onnx.reference
/// computes it (`np.power(a, b).astype(a.dtype)`): in numpy's promoted type, cast back to the
/// base's. `wide` says the exponent's type (32/64-bit integer, f64) promotes a float base to
/// f64; otherwise a float base computes in its own type (a 16-bit one in f32, rounded once).
/// An integer base with an integer exponent is exact and wraps; with a float exponent it
/// computes in f64 and truncates back (saturating: numpy's out-of-range cast is undefined).
pub(crate) struct MixedPow<'s, 'a, T> {
    pub(crate) op: EltwiseOp,
    pub(crate) base: &'s ArrayViewD<'a, T>,
    pub(crate) exponent: ArrayViewD<'s, ExponentValue>,
    pub(crate) wide: bool,
    pub(crate) spec: &'s AutoBroadcast,
    pub(crate) par: Parallelism<'s>,
}

impl<T: Copy + Send + Sync> MixedPow<'_, '_, T> {
    fn run<F, D>(&self, f: F, sink: D) -> Result<D::Out, BroadcastError>
    where
        F: Fn(T, ExponentValue) -> T + Sync,
        D: Sink<T>,
    {
        let rule = resolve(
            self.op,
            self.spec,
            &[self.base.shape(), self.exponent.shape()],
        )?;
        run_binary(
            self.base,
            &self.exponent,
            &rule.spec,
            &PerElement(f),
            sink,
            self.par,
            wide_isa(self.par),
        )
    }
}

fn exponent_f64(y: ExponentValue) -> f64 {
    match y {
        ExponentValue::Int(i) => i as f64,
        ExponentValue::Float(f) => f,
    }
}

pub(crate) fn int_pow_mixed<T: Int, D: Sink<T>>(
    job: &MixedPow<'_, '_, T>,
    sink: D,
) -> Result<D::Out, BroadcastError> {
    job.run(
        |x: T, y| match y {
            ExponentValue::Int(e) => int_pow(x, e),
            ExponentValue::Float(e) => T::from_f64(x.to_f64().powf(e)),
        },
        sink,
    )
}

pub(crate) fn float_pow_mixed<T: Real, D: Sink<T>>(
    job: &MixedPow<'_, '_, T>,
    sink: D,
) -> Result<D::Out, BroadcastError> {
    if job.wide {
        job.run(
            |x: T, y| T::from_f64(x.to_f64().powf(exponent_f64(y))),
            sink,
        )
    } else {
        job.run(|x: T, y| x.powf(T::from_f64(exponent_f64(y))), sink)
    }
}

pub(crate) fn half_pow_mixed<T: Half, D: Sink<T>>(
    job: &MixedPow<'_, '_, T>,
    sink: D,
) -> Result<D::Out, BroadcastError> {
    if job.wide {
        job.run(
            |x: T, y| T::from_f64(x.to_f64().powf(exponent_f64(y))),
            sink,
        )
    } else {
        job.run(
            |x: T, y| T::narrow(x.widen().powf(exponent_f64(y) as f32)),
            sink,
        )
    }
}
