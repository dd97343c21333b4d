//! The kernels, generated from the op table: for each kind of element type (integers, 32/64-bit
//! floats, 16-bit floats, bool) one function per output type holds one arm per op, running the
//! op's body for that kind through the executor of its shape (binary, fold, quantize). An op
//! without a body for the kind refuses the type (checked before, by `output_dtype`).

use ndarray::{ArrayViewD, Axis};

use super::exec::{
    run_binary, run_fold, run_quantize, BinaryKernel, Fold, FoldPass, PerElement, Quantize,
    RefuseZeroDivisor, Sink, Src,
};
use super::half::{Half, ViaF32};
#[allow(unused_imports)]
use super::kinds::{
    fake_quantize, floor_div, floor_mod_f64, floor_rem, int_pow, max_of, min_of, numpy_max,
    numpy_max_half, numpy_min, numpy_min_half, numpy_mod, onnx_shift, ov_shift_left,
    ov_shift_right, pow_via_f64, ExponentValue, Int, Mean, Real,
};
use super::rule::{prelu_slope_shape, resolve};
use super::table::{op_table, EltwiseOp, ShiftDirection};
use crate::auto_broadcast::AutoBroadcast;
use crate::error::BroadcastError;
use crate::exec::Parallelism;
use std::mem::MaybeUninit;

/// One run of an op on operands of one element type.
pub(crate) struct Job<'s, 'a, T> {
    pub(crate) op: EltwiseOp,
    pub(crate) operands: &'s [ArrayViewD<'a, T>],
    pub(crate) spec: &'s AutoBroadcast,
    pub(crate) par: Parallelism<'s>,
    pub(crate) dtype: &'static str,
}

impl<T: Copy + Send + Sync> Job<'_, '_, T> {
    fn unsupported(&self) -> BroadcastError {
        BroadcastError::UnsupportedType {
            op: self.op.name(),
            dtype: self.dtype,
        }
    }

    fn arity(&self) -> BroadcastError {
        BroadcastError::Arity {
            op: self.op.name(),
            expected: "another number of",
            got: self.operands.len(),
        }
    }

    /// Runs a two-operand op under the op's broadcasting ([`resolve`]).
    fn binary<C, K, D>(&self, kernel: &K, sink: D) -> Result<D::Out, BroadcastError>
    where
        C: Send,
        K: BinaryKernel<T, T, C>,
        D: Sink<C>,
    {
        let [a, b] = self.operands else {
            return Err(self.arity());
        };
        let rule = resolve(self.op, self.spec, &[a.shape(), b.shape()])?;
        let b = if rule.channel {
            on_channel_axis(a, b.view())
        } else {
            b.view()
        };
        run_binary(a.view(), b, &rule.spec, kernel, sink, self.par)
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
        F: Fn(T, T, T, T, T) -> T + Sync,
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
fn fn5<T, F: Fn(T, T, T, T, T) -> T>(f: F) -> F {
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
    (Same, Bool, $k:ident, $job:ident, $($rest:tt)*) => { Err($job.unsupported()) };
    (Bool, Same, $k:ident, $job:ident, $($rest:tt)*) => { Err($job.unsupported()) };
    ($fo:ident, $ro:ident, $k:ident, $job:ident, $sink:ident, $shape:tt, [$($key:ident : $body:expr),*]) => {
        pick!($k, $fo, $job, $sink, $shape, [$($key : $body),*])
    };
}

/// Finds the body for kind `$k` among a row's keys.
macro_rules! pick {
    ($k:ident, $fo:ident, $job:ident, $sink:ident, $shape:tt, []) => {
        Err($job.unsupported())
    };
    (int, $fo:ident, $job:ident, $sink:ident, $shape:tt, [int_div : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!(int_div, $fo, $job, $sink, $shape, $b)
    };
    (int, $fo:ident, $job:ident, $sink:ident, $shape:tt, [int : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!(plain, $fo, $job, $sink, $shape, $b)
    };
    (int, $fo:ident, $job:ident, $sink:ident, $shape:tt, [uint : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!(plain, $fo, $job, $sink, $shape, $b)
    };
    (float, $fo:ident, $job:ident, $sink:ident, $shape:tt, [float : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!(plain, $fo, $job, $sink, $shape, $b)
    };
    (half, $fo:ident, $job:ident, $sink:ident, $shape:tt, [half : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!(via_f32, $fo, $job, $sink, $shape, $b)
    };
    (half, $fo:ident, $job:ident, $sink:ident, $shape:tt, [half_native : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!(plain, $fo, $job, $sink, $shape, $b)
    };
    (bool, $fo:ident, $job:ident, $sink:ident, $shape:tt, [bool : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!(plain, $fo, $job, $sink, $shape, $b)
    };
    ($k:ident, $fo:ident, $job:ident, $sink:ident, $shape:tt, [ord : $b:expr $(, $key:ident : $body:expr)*]) => {
        run!(plain, $fo, $job, $sink, $shape, $b)
    };
    ($k:ident, $fo:ident, $job:ident, $sink:ident, $shape:tt, [$other:ident : $b:expr $(, $key:ident : $body:expr)*]) => {
        pick!($k, $fo, $job, $sink, $shape, [$($key : $body),*])
    };
}

/// Runs body `$b` (`plain`: on `T`; `via_f32`: on f32, each element widened and the result
/// rounded once; `int_div`: on `T`, a zero divisor refused) through the row's shape.
macro_rules! run {
    (plain, $fo:ident, $job:ident, $sink:ident, [Binary], $b:expr) => {
        $job.binary(&PerElement(fn2::<T, T, out_ty!($fo, T), _>($b)), $sink)
    };
    (plain, $fo:ident, $job:ident, $sink:ident, [Mixed], $b:expr) => {
        $job.binary(&PerElement(fn2::<T, T, out_ty!($fo, T), _>($b)), $sink)
    };
    (int_div, $fo:ident, $job:ident, $sink:ident, [Binary], $b:expr) => {
        $job.binary(
            &RefuseZeroDivisor {
                kernel: PerElement(fn2::<T, T, T, _>($b)),
                op: $job.op.name(),
                dtype: $job.dtype,
            },
            $sink,
        )
    };
    (via_f32, $fo:ident, $job:ident, $sink:ident, [Binary], $b:expr) => {
        $job.binary(&ViaF32::new(fn2::<f32, f32, f32, _>($b)), $sink)
    };
    (via_f32, $fo:ident, $job:ident, $sink:ident, [Mixed], $b:expr) => {
        $job.binary(&ViaF32::new(fn2::<f32, f32, f32, _>($b)), $sink)
    };
    (plain, $fo:ident, $job:ident, $sink:ident, [Fold($start:ident, $finish:ident)], $b:expr) => {{
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
    (via_f32, $fo:ident, $job:ident, $sink:ident, [Fold($start:ident, $finish:ident)], $b:expr) => {{
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
    (plain, $fo:ident, $job:ident, $sink:ident, [Quantize], $b:expr) => {
        $job.quantize(&Quantize(fn5::<T, _>($b)), $sink)
    };
    (via_f32, $fo:ident, $job:ident, $sink:ident, [Quantize], $b:expr) => {{
        let f = fn5::<f32, _>($b);
        $job.quantize(
            &Quantize(move |x: T, il: T, ih: T, ol: T, oh: T| {
                T::narrow(f(x.widen(), il.widen(), ih.widen(), ol.widen(), oh.widen()))
            }),
            $sink,
        )
    }};
    ($how:ident, $fo:ident, $job:ident, $sink:ident, [Select], $b:expr) => {
        Err($job.unsupported())
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
    ($kind:ident, $same:ident, $boolean:ident, [$($gen:tt)*], $elem:ty, [$($alias:tt)*],
     $job:ident, $sink:ident ;
     $(
        [$v:ident $({ $($f:ident : $fty:ty = $fdef:expr),+ })?]
        [$name:literal, $ov:literal, $onnx:literal]
        [$code:literal $(, $alt:literal $alt_name:literal => { $($af:ident : $av:expr),+ })?]
        [$shape:ident $(($start:ident, $finish:ident))? $bc:ident $out:ident]
        $(only [$($only:ident),+])?
        { $($key:ident : $body:expr),* $(,)? }
     )*) => {
        #[allow(unused_variables, clippy::redundant_closure)]
        pub(crate) fn $same<$($gen)* D: $sink<$elem>>(
            job: &$job<'_, '_, $elem>,
            sink: D,
        ) -> Result<D::Out, BroadcastError> {
            $($alias)*
            match job.op {
                $(EltwiseOp::$v { $($($f),+)? } => arm!(
                    Same, $out, $kind, job, sink,
                    [$shape $(($start, $finish))?], [$($key : $body),*]
                ),)*
            }
        }

        #[allow(unused_variables, clippy::redundant_closure)]
        pub(crate) fn $boolean<$($gen)* D: $sink<bool>>(
            job: &$job<'_, '_, $elem>,
            sink: D,
        ) -> Result<D::Out, BroadcastError> {
            $($alias)*
            match job.op {
                $(EltwiseOp::$v { $($($f),+)? } => arm!(
                    Bool, $out, $kind, job, sink,
                    [$shape $(($start, $finish))?], [$($key : $body),*]
                ),)*
            }
        }
    };
}

op_table!(define_kernels!(int, int_same, int_bool, [T: Int,], T, [], Job, Sink));
op_table!(define_kernels!(float, float_same, float_bool, [T: Real + Mean,], T, [], Job, Sink));
op_table!(
    define_kernels!(half, half_same, half_bool, [T: Half + Mean + Default,], T, [], Job, Sink)
);
op_table!(define_kernels!(bool, bool_same, bool_bool, [], bool, [type T = bool;], Job, Sink));

/// One block of one node of an expression: the op's operands as the block's sources, the
/// result into a block of scratch ([`BlockOut`]). The same bodies as the kernels above,
/// through the same block loops, so a fused node rounds and wraps as the op alone does.
pub(crate) struct BlockJob<'s, 'a, T> {
    pub(crate) op: EltwiseOp,
    pub(crate) args: &'s [Src<'a, T>],
    pub(crate) dtype: &'static str,
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
        BroadcastError::UnsupportedType {
            op: self.op.name(),
            dtype: self.dtype,
        }
    }

    fn arity(&self) -> BroadcastError {
        BroadcastError::Arity {
            op: self.op.name(),
            expected: "another number of",
            got: self.args.len(),
        }
    }

    #[inline(always)]
    fn binary<C, K, D>(&self, kernel: &K, mut sink: D) -> Result<D::Out, BroadcastError>
    where
        C: Send,
        K: BinaryKernel<T, T, C>,
        D: BlockSink<C>,
    {
        let [a, b] = *self.args else {
            return Err(self.arity());
        };
        let out = sink.slots();
        kernel.check_block(b, out.len())?;
        kernel.block(a, b, out);
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
        F: Fn(T, T, T, T, T) -> T + Sync,
        D: BlockSink<T>,
    {
        let Ok(args) = <&[Src<'_, T>; 5]>::try_from(self.args) else {
            return Err(self.arity());
        };
        kernel.block(args, sink.slots());
        Ok(sink.done())
    }
}

op_table!(
    define_kernels!(int, int_same_block, int_bool_block, [T: Int,], T, [], BlockJob, BlockSink)
);
op_table!(
    define_kernels!(float, float_same_block, float_bool_block, [T: Real + Mean,], T, [], BlockJob, BlockSink)
);
op_table!(
    define_kernels!(half, half_same_block, half_bool_block, [T: Half + Mean + Default,], T, [], BlockJob, BlockSink)
);
op_table!(
    define_kernels!(bool, bool_same_block, bool_bool_block, [], bool, [type T = bool;], BlockJob, BlockSink)
);

/// ONNX Pow (opset 15) with an exponent of another type than the base, as onnx.reference
/// computes it (`np.power(a, b).astype(a.dtype)`): in numpy's promoted type, cast back to the
/// base's. `wide` says the exponent's type (32/64-bit integer, f64) promotes a float base to
/// f64; otherwise a float base computes in its own type (a 16-bit one in f32, rounded once).
/// An integer base with an integer exponent is exact and wraps; with a float exponent it
/// computes in f64 and truncates back (saturating: numpy's out-of-range cast is undefined).
pub(crate) struct MixedPow<'s, 'a, T> {
    pub(crate) op: EltwiseOp,
    pub(crate) base: ArrayViewD<'a, T>,
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
        let (x, y) = (self.base.view(), self.exponent.view());
        run_binary(x, y, &rule.spec, &PerElement(f), sink, self.par)
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
