//! A fused expression's linear chain run with its running value in registers.
//!
//! A chain is an expression whose every node after the first takes the node before it and
//! one input or literal: `((x - m) * r) * g + b`, `maximum(x + b, 0)`. The block path
//! (`fused.rs`) runs such a chain one node per pass over an L1 block, so each node loads its
//! operands from L1 and stores its result back there. Here the nodes run one after the other
//! on a group of `W` elements held in registers (a few vector registers wide), loading only
//! the inputs and storing only the result: the loads and stores of every intermediate value
//! are gone, which is what the block path spends its time on once the data is in cache.
//!
//! Each node is the op table's body for the element type (`chain_arms!` below, generated
//! from the same rows as the block kernels), applied lane by lane: the same IEEE operations
//! in the same order, integers wrapping, 16-bit floats widened, computed in f32 and rounded
//! after every node as the op alone rounds. So a chain's result is the op-by-op result bit
//! for bit; `tests/expression.rs` compares every chain-able op and type both ways.
//!
//! Which nodes chain: the two-operand ops whose result has the operands' type and that
//! refuse no operand value (integer division and remainders check their divisor, so they
//! stay on the block path), of every integer and float type (f16 where the CPU converts
//! f16 in hardware, F16C), but not the 16-bit floats' Maximum and Minimum (measured slower
//! in registers). Anything else, and a block with a strided operand, runs on the block path.
//!
//! Where the CPU computes f16 natively (AVX512-FP16), an f16 chain whose every op has an
//! `f16x32` body in the table runs on the f16 values themselves, Maximum and Minimum
//! included (`fp16.rs`: the same bits, no widening). Likewise, where the strategy's
//! arithmetic width is AVX-512, an f32 chain whose every op has an `f32x16` body runs in
//! 64-byte registers (`fp32.rs`), four to a group: the vectoriser compiled the generic
//! lanes to 16-byte registers, so the bodies name the instructions.

use std::mem::MaybeUninit;

use super::exec::Src;
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
use super::fp16::{self, Avx512Fp16};
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
use super::fp32::{self, Avx512};
use super::half::Half;
#[allow(unused_imports)]
use super::kinds::{
    floor_div, floor_mod_f64, floor_rem, int_pow, max_of, min_of, numpy_max, numpy_max_half,
    numpy_min, numpy_min_half, numpy_mod, onnx_shift, ov_shift_left, ov_shift_right, pow_via_f64,
    FakeQuantize, Int, Real,
};
use super::table::{op_bodies, EltwiseOp};
use crate::exec::isa::Avx2;
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
use crate::exec::stream_value_lines;
use crate::exec::{store_fence, stream_value, Ahead, ArithmeticWidth, Strategy};

/// Nodes a chain may have beyond its first operand (longer chains take the block path).
pub(crate) const MAX_LINKS: usize = 8;

/// One operand of a chain over a run of rows ([`ChainFn`]).
#[derive(Clone, Copy)]
pub(crate) struct RowSource<T> {
    /// Its element at the first position of the first row.
    pub(crate) at: *const T,
    /// Whether it moves along a row (contiguous), or holds one value for a whole row.
    pub(crate) moves: bool,
    /// Elements from its first element in one row to that in the next.
    pub(crate) row_step: isize,
}

impl<T> RowSource<T> {
    /// A one-row source from a stretch's source: `None` for a strided one, which a chain
    /// does not read (the block path does).
    pub(crate) fn of(src: Src<'_, T>) -> Option<Self> {
        match src {
            Src::Contig(s) => Some(RowSource {
                at: s.as_ptr(),
                moves: true,
                row_step: 0,
            }),
            Src::Splat(v) => Some(RowSource {
                at: v,
                moves: false,
                row_step: 0,
            }),
            Src::Strided(_) => None,
        }
    }
}

/// One node of a chain: its op, and whether the running value is the op's first operand
/// (`op(running, other)`) or its second (`op(other, running)`).
pub(crate) type Node = (EltwiseOp, bool);

/// How a chain kernel's call lays out its output.
#[derive(Clone, Copy)]
pub(crate) struct Rows {
    /// Rows of `out.len() / count` positions each, one after another in `out`.
    pub(crate) count: usize,
    /// Whether whole groups go out with streaming stores (the output is too large to stay
    /// in cache: [`crate::exec::stream_stores`]); the kernel fences them before it returns.
    pub(crate) stream: bool,
}

/// A chain over `rows.count` rows, stored one after another in `out` (every slot written).
/// `sources[0]` starts the running value and `sources[k + 1]` is node `k`'s other operand;
/// row `r` of a source begins `r * row_step` elements after its row 0.
///
/// One call takes every whole row of a run (not one call per row), so the call's setup is
/// paid once per run, however short the rows.
pub(crate) type ChainFn<T> = unsafe fn(&[RowSource<T>], &[Node], Rows, &mut [MaybeUninit<T>]);

/// Widening and rounding of eight lanes of a 16-bit float (F16C, or bf16's bit arithmetic),
/// value to value, so that the lanes stay in registers.
pub(crate) trait Lanes<H>: Copy {
    fn widen8(self, x: [H; 8]) -> [f32; 8];
    fn narrow8(self, v: [f32; 8]) -> [H; 8];
}

/// bf16 (and any 16-bit float without hardware conversion): per lane, written without
/// branches so that it vectorises.
#[derive(Clone, Copy)]
pub(crate) struct Scalar;

impl<H: Half> Lanes<H> for Scalar {
    #[inline(always)]
    fn widen8(self, x: [H; 8]) -> [f32; 8] {
        x.map(H::widen)
    }
    #[inline(always)]
    fn narrow8(self, v: [f32; 8]) -> [H; 8] {
        v.map(H::narrow)
    }
}

/// f16 through F16C. Used only inside the kernels compiled with F16C (`wide_fn`), which run
/// only where the [`Avx2`] token was found.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct F16c;

#[cfg(target_arch = "x86_64")]
impl<H: Half> Lanes<H> for F16c {
    #[inline(always)]
    fn widen8(self, x: [H; 8]) -> [f32; 8] {
        use std::arch::x86_64::{__m128i, _mm256_cvtph_ps};
        // SAFETY: `F16c` is used only inside kernels compiled with F16C and run only with
        // the token, which proves the CPU has it.
        let v = unsafe { _mm256_cvtph_ps(bytemuck::cast::<[H; 8], __m128i>(x)) };
        bytemuck::cast(v)
    }
    #[inline(always)]
    fn narrow8(self, v: [f32; 8]) -> [H; 8] {
        use std::arch::x86_64::{__m256, _mm256_cvtps_ph, _MM_FROUND_TO_NEAREST_INT};
        // SAFETY: F16C, as above; round to nearest even, what `f16::from_f32` does.
        #[allow(unused_unsafe)]
        let h = unsafe {
            _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(bytemuck::cast::<[f32; 8], __m256>(v))
        };
        bytemuck::cast(h)
    }
}

/// `acc` and `x` eight lanes at a time (`W` is a multiple of 8 wherever a 16-bit float
/// chains), each eight as values.
#[inline(always)]
fn by_eights<H: Copy, const W: usize>(
    acc: &mut [H; W],
    x: &[H; W],
    mut f: impl FnMut([H; 8], [H; 8]) -> [H; 8],
) {
    for c in 0..W / 8 {
        let a: &mut [H; 8] = (&mut acc[c * 8..c * 8 + 8])
            .try_into()
            .expect("eight lanes");
        let b: &[H; 8] = x[c * 8..c * 8 + 8].try_into().expect("eight lanes");
        *a = f(*a, *b);
    }
}

/// Pins a body's signature (the table's bodies carry no annotations).
#[inline(always)]
fn fn2<A, B, C, F: Fn(A, B) -> C>(f: F) -> F {
    f
}

/// `acc = f(acc, x)` lane by lane (`f(x, acc)` when the running value is the second
/// operand), in place: a loop the vectoriser takes whole and unrolls, so the running value
/// is promoted to registers (a value passed through by copy was left in memory).
#[inline(always)]
fn lanes<X: Copy, const W: usize>(
    f: impl Fn(X, X) -> X,
    running_first: bool,
    acc: &mut [X; W],
    x: &[X; W],
) {
    if running_first {
        for k in 0..W {
            acc[k] = f(acc[k], x[k]);
        }
    } else {
        for k in 0..W {
            acc[k] = f(x[k], acc[k]);
        }
    }
}

/// One row's arm: the body of kind `$k` for a two-operand op of the operands' type whose row
/// says `Lanes`, or `false`/unreachable where the row does not chain (`$mode` `ok` asks
/// whether it does).
macro_rules! chain_arm {
    (ok, $k:ident, [Binary], Same Lanes, [$($key:ident : $body:expr),*], $($rest:tt)*) => {
        chain_pick!(ok, $k, [$($key : $body),*], $($rest)*)
    };
    (ok, $k:ident, $shape:tt, $($out:ident)+, $bodies:tt, $($rest:tt)*) => {
        false
    };
    (apply, $k:ident, [Binary], Same Lanes, [$($key:ident : $body:expr),*], $($rest:tt)*) => {
        chain_pick!(apply, $k, [$($key : $body),*], $($rest)*)
    };
    // Not reached (`ok` says these do not chain); no body here, so that no call or loop of
    // another op's body keeps the running value out of registers.
    (apply, $k:ident, $shape:tt, $($out:ident)+, $bodies:tt, $($rest:tt)*) => {
        unreachable!("a chain holds only ops that chain")
    };
}

/// Finds kind `$k`'s body among a row's keys (as `kernels.rs`'s `pick!`).
macro_rules! chain_pick {
    (ok, $k:ident, [], $($rest:tt)*) => { false };
    (apply, $k:ident, [], $($rest:tt)*) => { unreachable!("a chain holds only ops that chain") };
    // A divisor is checked before the op runs: the block path keeps that.
    (ok, int, [int_div : $b:expr $(, $key:ident : $body:expr)*], $($rest:tt)*) => { false };
    (apply, int, [int_div : $b:expr $(, $key:ident : $body:expr)*], $($rest:tt)*) => {
        unreachable!("a chain holds only ops that chain")
    };
    (ok, int, [int : $b:expr $(, $key:ident : $body:expr)*], $($rest:tt)*) => { true };
    (ok, int, [uint : $b:expr $(, $key:ident : $body:expr)*], $($rest:tt)*) => { true };
    (ok, float, [float : $b:expr $(, $key:ident : $body:expr)*], $($rest:tt)*) => { true };
    (ok, half, [half : $b:expr $(, $key:ident : $body:expr)*], $($rest:tt)*) => { true };
    // A body on the 16-bit values (Maximum, Minimum: a comparison choosing an operand) was
    // chained bit for bit by comparing widened lanes and choosing the 16-bit ones, and
    // measured slower than block by block (a compare, a mask narrowing and a blend per eight
    // lanes): it takes the block path.
    (ok, half, [half_native : $b:expr $(, $key:ident : $body:expr)*], $($rest:tt)*) => { false };
    (apply, half, [half_native : $b:expr $(, $key:ident : $body:expr)*], $($rest:tt)*) => {
        unreachable!("a chain holds only ops that chain")
    };
    (ok, f16x32, [f16x32 : $b:expr $(, $key:ident : $body:expr)*], $($rest:tt)*) => { true };
    (ok, f32x16, [f32x16 : $b:expr $(, $key:ident : $body:expr)*], $($rest:tt)*) => { true };
    // 16 f32 lanes a register (`fp32.rs`).
    (apply, f32x16, [f32x16 : $b:expr $(, $key:ident : $body:expr)*], $first:ident, $acc:ident, $x:ident, $l:ident) => {
        fp32::registers(|a, b| $b(a, b), $first, $acc, $x)
    };
    // 32 f16 lanes a register, computed natively (`fp16.rs`).
    (apply, f16x32, [f16x32 : $b:expr $(, $key:ident : $body:expr)*], $first:ident, $acc:ident, $x:ident, $l:ident) => {
        fp16::registers(|a, b| $b(a, b), $first, $acc, $x)
    };
    (apply, int, [int : $b:expr $(, $key:ident : $body:expr)*], $first:ident, $acc:ident, $x:ident, $l:ident) => {
        lanes(fn2::<T, T, T, _>($b), $first, $acc, $x)
    };
    (apply, int, [uint : $b:expr $(, $key:ident : $body:expr)*], $first:ident, $acc:ident, $x:ident, $l:ident) => {
        lanes(fn2::<T, T, T, _>($b), $first, $acc, $x)
    };
    (apply, float, [float : $b:expr $(, $key:ident : $body:expr)*], $first:ident, $acc:ident, $x:ident, $l:ident) => {
        lanes(fn2::<T, T, T, _>($b), $first, $acc, $x)
    };
    // Widened, computed in f32 and rounded after the node, as the op alone does.
    (apply, half, [half : $b:expr $(, $key:ident : $body:expr)*], $first:ident, $acc:ident, $x:ident, $l:ident) => {{
        let f = fn2::<f32, f32, f32, _>($b);
        by_eights($acc, $x, |a, x| {
            let (mut a, x) = ($l.widen8(a), $l.widen8(x));
            lanes(&f, $first, &mut a, &x);
            $l.narrow8(a)
        });
    }};
    ($mode:ident, $k:ident, [$other:ident : $b:expr $(, $key:ident : $body:expr)*], $($rest:tt)*) => {
        chain_pick!($mode, $k, [$($key : $body),*], $($rest)*)
    };
}

/// Generates, for one kind, whether an op chains and its lane-by-lane application.
macro_rules! define_chain_arms {
    ($kind:ident, $chains:ident, $apply:ident, [$($gen:tt)*] $(#[$attr:meta])* ;
     $(
        $v:ident [$($f:ident),*] $shape:tt $out:ident [$($lanes:ident)?]
        { $($key:ident : $body:expr),* }
     )*) => {
        /// Whether `op` runs in a chain of this kind.
        pub(crate) fn $chains(op: EltwiseOp) -> bool {
            match op {
                $(EltwiseOp::$v { .. } => chain_arm!(
                    ok, $kind, $shape, $out $($lanes)?, [$($key : $body),*],
                ),)*
            }
        }

        /// `op` on `W` lanes (`running_first`: the running value is its first operand).
        #[allow(unused_variables, clippy::redundant_closure)]
        $(#[$attr])*
        pub(crate) fn $apply<$($gen)* const W: usize>(
            op: EltwiseOp,
            running_first: bool,
            acc: &mut [T; W],
            x: &[T; W],
            l: L,
        ) {
            match op {
                $(EltwiseOp::$v { $($f),* } => chain_arm!(
                    apply, $kind, $shape, $out $($lanes)?, [$($key : $body),*],
                    running_first, acc, x, l
                ),)*
            }
        }
    };
}

op_bodies!(define_chain_arms!(int, int_chains, int_apply, [T: Int, L: Copy,] #[inline(always)]));
op_bodies!(
    define_chain_arms!(float, float_chains, float_apply, [T: Real, L: Copy,] #[inline(always)])
);
op_bodies!(define_chain_arms!(
    half, half_chains, half_apply, [T: Half + Default, L: Lanes<T>,] #[inline(always)]
));
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
op_bodies!(define_chain_arms!(
    f16x32, f16x32_chains, f16x32_apply, [T: Copy, L: Copy,]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512fp16")] #[inline]
));
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
op_bodies!(define_chain_arms!(
    f32x16, f32x16_chains, f32x16_apply, [T: Copy, L: Copy,] #[target_feature(enable = "avx512f")] #[inline]
));

/// A kind's lane-by-lane application, as a type (a closure would not be inlined into the
/// group loop, and the groups would pass through memory).
pub(crate) trait ApplyLanes<T>: Copy {
    fn apply<const W: usize>(
        self,
        op: EltwiseOp,
        running_first: bool,
        acc: &mut [T; W],
        x: &[T; W],
    );

    /// Whether a streamed row goes to its first 64-byte line boundary with ordinary stores
    /// first, so that [`ApplyLanes::stream`] writes whole lines in order ([`run_row`]).
    /// Measured for the f32 AVX-512 lanes only (beyond the cache, one and two threads); the
    /// others stream from any 16-byte start.
    const LINE_STREAMS: bool = false;

    /// Writes a computed group with streaming stores (no fence).
    ///
    /// # Safety
    /// As [`stream_value`].
    #[inline(always)]
    unsafe fn stream<X: Copy>(self, dst: *mut X, value: X) {
        // SAFETY: the caller's contract.
        unsafe { stream_value(dst, value) }
    }
}

#[derive(Clone, Copy)]
pub(crate) struct IntLanes;

impl<T: Int> ApplyLanes<T> for IntLanes {
    #[inline(always)]
    fn apply<const W: usize>(self, op: EltwiseOp, first: bool, acc: &mut [T; W], x: &[T; W]) {
        int_apply(op, first, acc, x, ())
    }
}

#[derive(Clone, Copy)]
pub(crate) struct FloatLanes;

impl<T: Real> ApplyLanes<T> for FloatLanes {
    #[inline(always)]
    fn apply<const W: usize>(self, op: EltwiseOp, first: bool, acc: &mut [T; W], x: &[T; W]) {
        float_apply(op, first, acc, x, ())
    }
}

/// A 16-bit float's lanes, widened and rounded by `L`.
#[derive(Clone, Copy)]
pub(crate) struct HalfLanes<L>(L);

impl<T: Half + Default, L: Lanes<T>> ApplyLanes<T> for HalfLanes<L> {
    #[inline(always)]
    fn apply<const W: usize>(self, op: EltwiseOp, first: bool, acc: &mut [T; W], x: &[T; W]) {
        half_apply(op, first, acc, x, self.0)
    }
}

/// f16 lanes computed in AVX512-FP16 registers, 32 a register. Used only inside the kernel
/// compiled with AVX512-FP16 (`f16x32_chain`), which runs only where the [`Avx512Fp16`]
/// token was found.
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
#[derive(Clone, Copy)]
struct F16x32Lanes;

#[cfg(all(target_arch = "x86_64", bcast_avx512))]
impl ApplyLanes<half::f16> for F16x32Lanes {
    #[inline(always)]
    fn apply<const W: usize>(
        self,
        op: EltwiseOp,
        first: bool,
        acc: &mut [half::f16; W],
        x: &[half::f16; W],
    ) {
        // SAFETY: `F16x32Lanes` is used only inside `f16x32_chain`'s kernel, which is compiled
        // with these features and handed out only with the token, which proves the CPU has
        // them.
        unsafe { f16x32_apply(op, first, acc, x, ()) }
    }
}

/// f32 lanes computed in AVX-512 registers, 16 a register. Used only inside the kernel
/// compiled with AVX-512 (`f32x16_chain`), which runs only where the [`Avx512`] token was
/// found.
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
#[derive(Clone, Copy)]
struct F32x16Lanes;

#[cfg(all(target_arch = "x86_64", bcast_avx512))]
impl ApplyLanes<f32> for F32x16Lanes {
    #[inline(always)]
    fn apply<const W: usize>(self, op: EltwiseOp, first: bool, acc: &mut [f32; W], x: &[f32; W]) {
        // SAFETY: `F32x16Lanes` is used only inside `f32x16_chain`'s kernel, which is compiled
        // with AVX-512 and handed out only with the token, which proves the CPU has it.
        unsafe { f32x16_apply(op, first, acc, x, ()) }
    }

    const LINE_STREAMS: bool = true;

    #[inline(always)]
    unsafe fn stream<X: Copy>(self, dst: *mut X, value: X) {
        // SAFETY: the caller's contract; the CPU runs AVX-512F (as above).
        unsafe { stream_value_lines(dst, value) }
    }
}

/// Lanes of the groups that finish a block (after its last whole group of `W`).
const TAIL_LANES: usize = 8;

/// Runs a chain ([`ChainFn`]) over `rows.count` rows: each row in groups of `W` lanes, then
/// groups of `V` (a divisor of `W`), then the last few elements as one padded group of `V`.
///
/// # Safety
/// As [`ChainFn`]: `sources.len() == nodes.len() + 1 <= MAX_LINKS + 1`, `rows.count >= 1`
/// divides `out.len()`, and for every row `r < rows.count` each source's row `r` (from
/// `at + r * row_step`) is readable: `out.len() / rows.count` elements where it moves, one
/// where it does not. `T` is plain data (every byte of a value initialised).
#[inline(always)]
unsafe fn run_rows<T: Copy + Default, A: ApplyLanes<T>, const W: usize, const V: usize>(
    lanes: A,
    sources: &[RowSource<T>],
    nodes: &[Node],
    rows: Rows,
    out: &mut [MaybeUninit<T>],
) {
    if out.is_empty() {
        return;
    }
    let n = out.len() / rows.count;
    let count = nodes.len();
    // One-value operands as `W` copies, so every operand loads a whole group the same way.
    let mut splats = [const { MaybeUninit::<[T; W]>::uninit() }; MAX_LINKS + 1];
    // Each operand's next group, and whether it moves (contiguous) or not (one value).
    let mut at = [std::ptr::null::<T>(); MAX_LINKS + 1];
    let mut moves = [false; MAX_LINKS + 1];
    for (m, s) in moves.iter_mut().zip(sources) {
        *m = s.moves;
    }
    let mut ops = [(EltwiseOp::Add, true); MAX_LINKS];
    ops[..count].copy_from_slice(nodes);
    let (moves, ops) = (&moves[..=count], &ops[..count]);
    // The contiguous operands' lines a prefetch distance ahead (the strategy's; none where
    // it is 0), as the element-wise loops hint theirs.
    let ahead = Ahead::get();
    for (r, row) in out.chunks_exact_mut(n).enumerate() {
        for ((s, at), splat) in sources.iter().zip(&mut at).zip(&mut splats) {
            let first = s.at.wrapping_offset(r as isize * s.row_step);
            if s.moves {
                *at = first;
            } else if r == 0 || s.row_step != 0 {
                // SAFETY: the caller's contract: one readable value for row `r`.
                *at = splat.write([unsafe { *first }; W]).as_ptr();
            }
        }
        // Streamed where the lanes go to a line boundary first, else where the row starts on
        // 16 bytes (then so does every whole group).
        let stream = rows.stream && (A::LINE_STREAMS || (row.as_ptr() as usize).is_multiple_of(16));
        // SAFETY: `at` holds each source's row `r` (the caller's contract) or `W` copies of
        // its value; the row is `n` slots; `T` is plain data.
        unsafe { run_row::<T, A, W, V>(lanes, &mut at[..=count], moves, ops, ahead, stream, row) };
    }
    if rows.stream {
        store_fence();
    }
}

/// One row of [`run_rows`]; whole groups with streaming stores where `stream` (no fence).
/// With [`ApplyLanes::LINE_STREAMS`], the elements before the row's first 64-byte line
/// boundary go first with ordinary stores, so that the streamed groups fill whole lines in
/// order (a line the write-combining buffers get in pieces from two groups is written out
/// partly, twice).
///
/// # Safety
/// `at[j]` points at `out.len()` readable elements where `moves[j]`, else at `W` copies of
/// one value; `at.len() == moves.len() == ops.len() + 1`; where `stream`, `T` is plain data,
/// and `out` starts on 16 bytes unless the lanes have `LINE_STREAMS`.
#[inline(always)]
unsafe fn run_row<T: Copy + Default, A: ApplyLanes<T>, const W: usize, const V: usize>(
    lanes: A,
    at: &mut [*const T],
    moves: &[bool],
    ops: &[Node],
    ahead: Ahead,
    stream: bool,
    out: &mut [MaybeUninit<T>],
) {
    let size = std::mem::size_of::<T>();
    let misaligned = out.as_ptr() as usize % 64;
    // Streamed only where a whole group is whole 16-byte pieces and the row can reach a
    // line boundary in whole elements (every number type's size divides 64); with line
    // streams, not a row shorter than one group of `V` (its head could not be one group).
    let stream = stream
        && (W * size).is_multiple_of(16)
        && misaligned.is_multiple_of(size)
        && !(A::LINE_STREAMS && out.len() < V);
    let mut out = out;
    if A::LINE_STREAMS && stream && misaligned != 0 {
        // Fewer than `V` elements: line-streaming lanes' groups of `V` are whole lines.
        let head = (64 - misaligned) / size;
        debug_assert!(head < V && V * size >= 64, "a line's head fits one group");
        let (first, rest) = out.split_at_mut(head);
        // One group of `V` from the row's start, its first `head` lanes kept: a row's head
        // costs one group, not the padded tail's copies (rows can be short).
        // SAFETY: the sources hold the row's `>= V` elements from `at` on (contiguous) or at
        // least `V` copies (the caller's contract).
        let mut acc = unsafe { *at[0].cast::<[T; V]>() };
        for (a, &(op, first)) in at[1..].iter().zip(ops) {
            // SAFETY: as above.
            lanes.apply(op, first, &mut acc, unsafe { &*a.cast::<[T; V]>() });
        }
        for (o, v) in first.iter_mut().zip(&acc) {
            o.write(*v);
        }
        for (a, &m) in at.iter_mut().zip(moves) {
            if m {
                *a = a.wrapping_add(head);
            }
        }
        out = rest;
    }
    let groups = out.len() / W;
    let lines = (W * std::mem::size_of::<T>()).div_ceil(64);
    for group in out[..groups * W].chunks_exact_mut(W) {
        for (a, &m) in at.iter().zip(moves) {
            if m {
                for line in 0..lines {
                    ahead.hint(a.cast::<u8>().wrapping_add(line * 64));
                }
            }
        }
        // SAFETY: the group's `W` elements lie inside every contiguous source (`at` has
        // moved one group per earlier group); a one-value source's buffer holds `W`; an
        // array of `T` has `T`'s alignment.
        let mut acc = unsafe { *at[0].cast::<[T; W]>() };
        for (a, &(op, first)) in at[1..].iter().zip(ops) {
            // SAFETY: as above.
            let x = unsafe { &*a.cast::<[T; W]>() };
            lanes.apply(op, first, &mut acc, x);
        }
        for (a, &m) in at.iter_mut().zip(moves) {
            // SAFETY: at most one past the last group of a contiguous source.
            *a = unsafe { a.add(if m { W } else { 0 }) };
        }
        let dst = group.as_mut_ptr().cast::<[T; W]>();
        if stream {
            // SAFETY: `group` is `W` slots laid out as `T`s, a multiple of 16 bytes from a
            // line boundary (the head above) or a start on 16 bytes, so on 16 bytes itself;
            // `T` is plain data.
            unsafe { lanes.stream(dst, acc) };
        } else {
            // SAFETY: `group` is `W` slots, and `MaybeUninit<T>` has the layout of `T`.
            unsafe { dst.write_unaligned(acc) };
        }
    }
    let rest = &mut out[groups * W..];
    if rest.is_empty() {
        return;
    }
    // SAFETY: the sources hold the `rest.len()` elements from `at` on (contiguous) or at
    // least `V` copies (`W >= V`); where `stream`, `rest` starts whole groups (multiples of
    // 16 bytes) after a line boundary or a start on 16 bytes.
    unsafe { run_tail::<T, A, V>(lanes, at, moves, ops, stream, rest) };
}

/// The end of a block: groups of `V` lanes, then the last `< V` elements through padded
/// copies.
///
/// # Safety
/// `at[j]` points at `out.len()` readable elements where `moves[j]`, else at `V` copies of
/// one value; where `stream`, `out` starts on 16 bytes and `T` is plain data.
#[inline(always)]
unsafe fn run_tail<T: Copy + Default, A: ApplyLanes<T>, const V: usize>(
    lanes: A,
    at: &mut [*const T],
    moves: &[bool],
    ops: &[Node],
    stream: bool,
    out: &mut [MaybeUninit<T>],
) {
    let groups = out.len() / V;
    for group in out[..groups * V].chunks_exact_mut(V) {
        // SAFETY: as in `run_row`, for groups of `V`.
        let mut acc = unsafe { *at[0].cast::<[T; V]>() };
        for (a, &(op, first)) in at[1..].iter().zip(ops) {
            // SAFETY: as above.
            lanes.apply(op, first, &mut acc, unsafe { &*a.cast::<[T; V]>() });
        }
        for (a, &m) in at.iter_mut().zip(moves) {
            // SAFETY: at most one past the last group of a contiguous source.
            *a = unsafe { a.add(if m { V } else { 0 }) };
        }
        let dst = group.as_mut_ptr().cast::<[T; V]>();
        // Streamed where a group is whole 16-byte pieces (then each starts on 16 bytes), so
        // that a row's end does not fall back to reading its lines for ownership.
        if stream && std::mem::size_of::<[T; V]>().is_multiple_of(16) {
            // SAFETY: `group` is `V` slots laid out as `T`s, a multiple of 16 bytes from a
            // start on 16 bytes; `T` is plain data.
            unsafe { lanes.stream(dst, acc) };
        } else {
            // SAFETY: `group` is `V` slots, laid out as `T`s.
            unsafe { dst.write_unaligned(acc) };
        }
    }
    let last = &mut out[groups * V..];
    let len = last.len();
    if len == 0 {
        return;
    }
    // The last elements, each operand copied into `V` lanes (the padding computes on zeros
    // and is dropped).
    let mut padded = [[T::default(); V]; MAX_LINKS + 1];
    for ((p, a), &m) in padded.iter_mut().zip(at.iter()).zip(moves) {
        for (k, v) in p[..len].iter_mut().enumerate() {
            // SAFETY: `k < len`, within what remains of a contiguous source; a one-value
            // source holds `V > len` copies.
            *v = unsafe { *a.add(if m { k } else { 0 }) };
        }
    }
    let (acc, rest) = padded.split_first_mut().expect("one operand or more");
    for (x, &(op, first)) in rest.iter().zip(ops) {
        lanes.apply(op, first, acc, x);
    }
    for (o, v) in last.iter_mut().zip(acc.iter()) {
        o.write(*v);
    }
}

/// The instruction sets a chain kernel may use: those the strategy in force allows and
/// this CPU has.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ChainIsa {
    /// AVX2 and F16C (the strategy's `arithmetic`, from `Avx2` up).
    pub(crate) wide: Option<Avx2>,
    /// f16 computed in AVX512-FP16 registers (the strategy's `native_f16`).
    #[cfg(all(target_arch = "x86_64", bcast_avx512))]
    pub(crate) f16x32: Option<Avx512Fp16>,
    /// f32 computed in AVX-512 registers (the strategy's `arithmetic` at `Avx512`).
    #[cfg(all(target_arch = "x86_64", bcast_avx512))]
    pub(crate) f32x16: Option<Avx512>,
    /// Whole f16 ops widened into AVX-512 registers (the strategy's `f16_avx512`).
    #[cfg(all(target_arch = "x86_64", bcast_avx512))]
    pub(crate) f16_f32x16: Option<Avx512>,
}

impl ChainIsa {
    /// What `strategy` allows on this CPU.
    pub(crate) fn new(strategy: &Strategy) -> ChainIsa {
        ChainIsa {
            wide: (strategy.arithmetic >= ArithmeticWidth::Avx2)
                .then(Avx2::detect)
                .flatten(),
            #[cfg(all(target_arch = "x86_64", bcast_avx512))]
            f16x32: strategy.native_f16.then(Avx512Fp16::detect).flatten(),
            #[cfg(all(target_arch = "x86_64", bcast_avx512))]
            f32x16: (strategy.arithmetic >= ArithmeticWidth::Avx512)
                .then(Avx512::detect)
                .flatten(),
            #[cfg(all(target_arch = "x86_64", bcast_avx512))]
            f16_f32x16: strategy.f16_avx512.then(Avx512::detect).flatten(),
        }
    }
}

/// An element type's chain kernels.
pub(crate) trait ChainKernels: Sized {
    /// The kernel of a chain of `ops` under `isa`: `None` where an op of them does not chain
    /// for this type, or the type has no kernel for the ISA.
    fn chain_fn(ops: &[EltwiseOp], isa: ChainIsa) -> Option<ChainFn<Self>>;
}

/// Lanes per group: four vector registers of the ISA (16 bytes at the baseline, 32 with
/// AVX2), few enough that the running value, the loaded operand and the result stay in
/// registers.
macro_rules! chain_kernels_impl {
    ($t:ty, $chains:ident, $base_lanes:expr, $wide_lanes:expr, $has_base:ident, $native:ident) => {
        impl ChainKernels for $t {
            fn chain_fn(ops: &[EltwiseOp], isa: ChainIsa) -> Option<ChainFn<Self>> {
                const BASE: usize = 64 / std::mem::size_of::<$t>();
                #[allow(dead_code)]
                const WIDE: usize = 128 / std::mem::size_of::<$t>();
                /// # Safety
                /// As [`run_rows`].
                unsafe fn base(
                    sources: &[RowSource<$t>],
                    nodes: &[Node],
                    rows: Rows,
                    out: &mut [MaybeUninit<$t>],
                ) {
                    // SAFETY: the caller's contract.
                    unsafe {
                        run_rows::<$t, _, BASE, TAIL_LANES>($base_lanes, sources, nodes, rows, out)
                    }
                }
                /// # Safety
                /// As [`run_rows`]; the CPU runs AVX2 and F16C.
                #[cfg(target_arch = "x86_64")]
                #[target_feature(enable = "avx2,f16c")]
                unsafe fn wide_fn(
                    sources: &[RowSource<$t>],
                    nodes: &[Node],
                    rows: Rows,
                    out: &mut [MaybeUninit<$t>],
                ) {
                    // SAFETY: the caller's contract.
                    unsafe {
                        run_rows::<$t, _, WIDE, TAIL_LANES>($wide_lanes, sources, nodes, rows, out)
                    }
                }
                if let Some(native) = chain_native!($native, ops, isa) {
                    return Some(native);
                }
                if !ops.iter().all(|&op| $chains(op)) {
                    return None;
                }
                match isa.wide {
                    #[cfg(target_arch = "x86_64")]
                    Some(_) => Some(wide_fn),
                    _ => chain_base!($has_base, base),
                }
            }
        }
    };
}

/// The baseline kernel, but none for f16, whose conversions without F16C are calls to
/// software routines per element (the block path widens whole blocks instead).
macro_rules! chain_base {
    (no_base, $base:ident) => {{
        let _ = $base;
        None
    }};
    (base, $base:ident) => {
        Some($base)
    };
}

/// A kernel on natively computed lanes, tried first: f16 in AVX512-FP16 registers.
macro_rules! chain_native {
    (none, $ops:ident, $isa:ident) => {
        None
    };
    (f16x32, $ops:ident, $isa:ident) => {
        f16x32_chain($ops, $isa)
    };
    (f32x16, $ops:ident, $isa:ident) => {
        f32x16_chain($ops, $isa)
    };
}

/// The f16 kernel computing in AVX512-FP16 registers, where `isa` has them and every op of
/// `ops` has an `f16x32` body.
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
fn f16x32_chain(ops: &[EltwiseOp], isa: ChainIsa) -> Option<ChainFn<half::f16>> {
    /// Lanes per group: four registers.
    const GROUP: usize = 4 * fp16::LANES;
    /// # Safety
    /// As [`run_rows`]; the CPU runs AVX512-FP16 (with F, BW, VL).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512fp16")]
    unsafe fn kernel(
        sources: &[RowSource<half::f16>],
        nodes: &[Node],
        rows: Rows,
        out: &mut [MaybeUninit<half::f16>],
    ) {
        // SAFETY: the caller's contract.
        unsafe {
            run_rows::<half::f16, _, GROUP, { fp16::LANES }>(F16x32Lanes, sources, nodes, rows, out)
        }
    }
    isa.f16x32?;
    ops.iter()
        .all(|&op| f16x32_chains(op))
        .then_some(kernel as ChainFn<half::f16>)
}

#[cfg(not(all(target_arch = "x86_64", bcast_avx512)))]
fn f16x32_chain(_: &[EltwiseOp], _: ChainIsa) -> Option<ChainFn<half::f16>> {
    None
}

/// The f32 kernel computing in AVX-512 registers, where `isa` has them and every op of `ops`
/// has an `f32x16` body in the table.
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
fn f32x16_chain(ops: &[EltwiseOp], isa: ChainIsa) -> Option<ChainFn<f32>> {
    /// Lanes per group: four registers.
    const GROUP: usize = 4 * fp32::LANES;
    /// # Safety
    /// As [`run_rows`]; the CPU runs AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn kernel(
        sources: &[RowSource<f32>],
        nodes: &[Node],
        rows: Rows,
        out: &mut [MaybeUninit<f32>],
    ) {
        // SAFETY: the caller's contract.
        unsafe {
            run_rows::<f32, _, GROUP, { fp32::LANES }>(F32x16Lanes, sources, nodes, rows, out)
        }
    }
    isa.f32x16?;
    ops.iter()
        .all(|&op| f32x16_chains(op))
        .then_some(kernel as ChainFn<f32>)
}

#[cfg(not(all(target_arch = "x86_64", bcast_avx512)))]
fn f32x16_chain(_: &[EltwiseOp], _: ChainIsa) -> Option<ChainFn<f32>> {
    None
}

macro_rules! chain_kernels_for {
    (Int, $v:ident, $t:ty, $lane:tt) => {
        chain_kernels_impl!($t, int_chains, IntLanes, IntLanes, base, none);
    };
    (Uint, $v:ident, $t:ty, $lane:tt) => {
        chain_kernels_impl!($t, int_chains, IntLanes, IntLanes, base, none);
    };
    (Float, F16, $t:ty, u16) => {
        chain_kernels_impl!(
            $t,
            half_chains,
            HalfLanes(Scalar),
            HalfLanes(F16c),
            no_base,
            f16x32
        );
    };
    (Float, $v:ident, $t:ty, u16) => {
        chain_kernels_impl!(
            $t,
            half_chains,
            HalfLanes(Scalar),
            HalfLanes(Scalar),
            base,
            none
        );
    };
    (Float, F32, $t:ty, $lane:tt) => {
        chain_kernels_impl!($t, float_chains, FloatLanes, FloatLanes, base, f32x16);
    };
    (Float, $v:ident, $t:ty, $lane:tt) => {
        chain_kernels_impl!($t, float_chains, FloatLanes, FloatLanes, base, none);
    };
    // Bool values are conditions, strings own memory: neither chains.
    (Bool, $v:ident, $t:ty, $lane:tt) => {
        impl ChainKernels for $t {
            fn chain_fn(_: &[EltwiseOp], _: ChainIsa) -> Option<ChainFn<Self>> {
                None
            }
        }
    };
    (Text, $v:ident, $t:ty, $lane:tt) => {};
}

macro_rules! define_chain_kernels {
    (; $(($v:ident, $t:ty, $lane:tt, $name:literal, $kind:ident))*) => {
        $(chain_kernels_for!($kind, $v, $t, $lane);)*
    };
}
crate::dtype::dtype_table!(define_chain_kernels!);
