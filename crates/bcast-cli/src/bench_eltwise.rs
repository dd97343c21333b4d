//! The `eltwise` group of `bcast bench`: fused element-wise ops (`bcast::binary_into`,
//! `bcast::eltwise_into_with` for Sum and FakeQuantize, `bcast::select`) against the same-process bounds of this machine.
//!
//! Every number is measured in one process with the same threads and chunking, on one reused,
//! already-written output buffer:
//! - **kernel**: `binary_into` (planning included) into that output;
//! - **copy**: `memcpy` of an output-sized source into the same output buffer: the bound when
//!   one operand is as large as the output (it must be read);
//! - **fill**: a fill of the same buffer (the faster of a typed fill and `memset`): the bound
//!   when no operand is output-sized;
//! - **alloc**: `binary` (or `select`), which allocates its output each call.
//!
//! `ratio_bound` is kernel over copy where an input holds as many elements as the output (Select
//! and the same-shape add included), over fill where none does. `ratio_traffic` scales it by
//! the bytes the case must move over the bytes its bound moves (see [`EltMeasurement`]).
//! Kernel, fill and copy batches alternate within each round.

use std::time::Duration;

use half::f16;
use ndarray::{ArrayD, IxDyn};

use bcast::{AutoBroadcast, BinaryOp, BroadcastError, DType, Parallelism, Tensor};

use crate::bench::{fill, median, memcpy, memset, schedule, seconds_per_call};

/// One element-wise case.
#[derive(Debug, Clone, Copy)]
pub struct EltCase {
    /// Name used by `--case`.
    pub name: &'static str,
    /// The op (`None`: Select, with `a` the condition's shape and `b` then's, else a scalar
    /// unless `c` says otherwise).
    pub op: Option<BinaryOp>,
    /// First operand's shape (Select: the condition's).
    pub a: &'static [usize],
    /// Second operand's shape (Select: then's).
    pub b: &'static [usize],
    /// Select's else shape.
    pub c: &'static [usize],
    /// Operands after the first two, for ops that take more (Sum, FakeQuantize).
    pub more: &'static [&'static [usize]],
    /// Element type of the operands (Select: of then/else).
    pub dtype: DType,
    /// The auto-broadcast rule.
    pub spec: AutoBroadcast,
}

const fn case(
    name: &'static str,
    op: BinaryOp,
    a: &'static [usize],
    b: &'static [usize],
    dtype: DType,
    spec: AutoBroadcast,
) -> EltCase {
    EltCase {
        name,
        op: Some(op),
        a,
        b,
        c: &[],
        more: &[],
        dtype,
        spec,
    }
}

/// The cases, in order.
pub const ELT_CASES: &[EltCase] = &[
    case(
        "bias_add_f32",
        BinaryOp::Add,
        &[1, 64, 512, 512],
        &[64, 1, 1],
        DType::F32,
        AutoBroadcast::Numpy,
    ),
    case(
        "row_mul_f32",
        BinaryOp::Multiply,
        &[8192, 2048],
        &[2048],
        DType::F32,
        AutoBroadcast::Numpy,
    ),
    case(
        "column_sub_f32",
        BinaryOp::Subtract,
        &[8192, 2048],
        &[8192, 1],
        DType::F32,
        AutoBroadcast::Numpy,
    ),
    case(
        "outer_add_f32",
        BinaryOp::Add,
        &[4096, 1],
        &[1, 4096],
        DType::F32,
        AutoBroadcast::Numpy,
    ),
    case(
        "same_add_f32",
        BinaryOp::Add,
        &[4096, 4096],
        &[4096, 4096],
        DType::F32,
        AutoBroadcast::None,
    ),
    case(
        "pdpd_mul_f32",
        BinaryOp::Multiply,
        &[8, 512, 64, 64],
        &[512],
        DType::F32,
        AutoBroadcast::Pdpd { axis: 1 },
    ),
    case(
        "pixel_add_u8",
        BinaryOp::Add,
        &[1, 2048, 2048, 3],
        &[3],
        DType::U8,
        AutoBroadcast::Numpy,
    ),
    case(
        "mid_mul_f16",
        BinaryOp::Multiply,
        &[64, 512, 512],
        &[512, 1],
        DType::F16,
        AutoBroadcast::Numpy,
    ),
    case(
        "row_gt_f32",
        BinaryOp::Greater,
        &[4096, 4096],
        &[4096],
        DType::F32,
        AutoBroadcast::Numpy,
    ),
    case(
        "scalar_max_f32",
        BinaryOp::Maximum,
        &[4096, 4096],
        &[],
        DType::F32,
        AutoBroadcast::Numpy,
    ),
    case(
        "tiny_add_f32",
        BinaryOp::Add,
        &[3, 1],
        &[4],
        DType::F32,
        AutoBroadcast::Numpy,
    ),
    EltCase {
        name: "select_f32",
        op: None,
        a: &[4096, 4096],
        b: &[4096, 4096],
        c: &[],
        more: &[],
        dtype: DType::F32,
        spec: AutoBroadcast::Numpy,
    },
    // ONNX Sum of four inputs in one pass (one of them a broadcast row).
    EltCase {
        name: "sum4_f32",
        op: Some(BinaryOp::Sum),
        a: &[16, 512, 512],
        b: &[16, 512, 512],
        c: &[],
        more: &[&[16, 512, 512], &[512]],
        dtype: DType::F32,
        spec: AutoBroadcast::Numpy,
    },
    // The FakeQuantize of an INT8 OpenVINO model: per-channel bounds on NCHW.
    EltCase {
        name: "fake_quantize_per_channel_f32",
        op: Some(BinaryOp::FakeQuantize { levels: 256 }),
        a: &[1, 64, 512, 512],
        b: &[1, 64, 1, 1],
        c: &[],
        more: &[&[1, 64, 1, 1], &[1, 64, 1, 1], &[1, 64, 1, 1]],
        dtype: DType::F32,
        spec: AutoBroadcast::Numpy,
    },
];

/// The case called `name`.
pub fn find_elt(name: &str) -> Option<&'static EltCase> {
    ELT_CASES.iter().find(|c| c.name == name)
}

/// What `bcast bench` reports for one element-wise case (GB/s of output written).
#[derive(Debug, Clone, serde::Serialize)]
pub struct EltMeasurement {
    /// Case name.
    pub case: &'static str,
    /// Output bytes.
    pub bytes: usize,
    /// Threads available to every run.
    pub threads: usize,
    /// `binary_into` (or Select) into the reused output, planning included (median).
    pub kernel_gbps: f64,
    /// memcpy of an output-sized buffer (median).
    pub copy_gbps: f64,
    /// Fill of the output buffer (median).
    pub fill_gbps: f64,
    /// `kernel_gbps` over the case's bound (copy or fill, see the module docs).
    pub ratio_bound: f64,
    /// Bytes moved per second against the bound's: `ratio_bound` times the bytes the kernel
    /// must move (inputs read once, output written) over those its bound moves for the same
    /// output (a copy 2x, a fill 1x). Below 1 it is the kernel; a `ratio_bound` below 1 with
    /// `ratio_traffic` near 1 is traffic the bound does not have (a 4-byte operand read for
    /// each 1-byte bool written, three streams against two).
    pub ratio_traffic: f64,
    /// The allocating call (median).
    pub alloc_gbps: f64,
    /// Median nanoseconds per kernel call.
    pub ns_per_call: f64,
}

/// Non-zero values that differ along the operand, of the case's type.
pub(crate) fn operand(shape: &[usize], dtype: DType, salt: usize) -> Tensor {
    let n: usize = shape.iter().product();
    let v = |i: usize| ((i * 7 + salt) % 251 + 1) as u8;
    let shape = IxDyn(shape);
    macro_rules! arr {
        ($f:expr) => {
            ArrayD::from_shape_vec(shape, (0..n).map($f).collect())
                .expect("length is the shape's product")
                .into()
        };
    }
    match dtype {
        DType::U8 => arr!(v),
        DType::F16 => arr!(|i| f16::from_f32(f32::from(v(i)) * 0.5)),
        DType::Bool => arr!(|i| v(i) % 2 == 0),
        _ => arr!(|i| f32::from(v(i)) * 0.5),
    }
}

/// Outputs below this many bytes measure a call's overhead: `--mib` leaves them as they are.
const SCALED_FROM_BYTES: usize = 1 << 20;

impl EltCase {
    /// The inputs' shapes, in [`EltCase::inputs_for`]'s order; with `bytes`, the output
    /// scaled to about that many bytes ([`crate::bench_fused::scale_leading_axis`]), unless
    /// the case is smaller than [`SCALED_FROM_BYTES`].
    pub fn shapes(&self, bytes: Option<usize>) -> Vec<Vec<usize>> {
        let mut shapes: Vec<Vec<usize>> = match self.op {
            Some(_) => [self.a, self.b]
                .iter()
                .chain(self.more)
                .map(|s| s.to_vec())
                .collect(),
            None => vec![self.a.to_vec(), self.b.to_vec(), self.c.to_vec()],
        };
        let size = self.dtype.size();
        let out_bytes = crate::bench_fused::output_len(&shapes) * size;
        if let Some(bytes) = bytes.filter(|_| out_bytes >= SCALED_FROM_BYTES) {
            crate::bench_fused::scale_leading_axis(&mut shapes, size, bytes);
        }
        shapes
    }

    /// The case's inputs at its own size (Select: cond, then, else).
    pub fn inputs(&self) -> Vec<Tensor> {
        self.inputs_for(&self.shapes(None))
    }

    /// The case's inputs of `shapes` ([`EltCase::shapes`]).
    pub fn inputs_for(&self, shapes: &[Vec<usize>]) -> Vec<Tensor> {
        match self.op {
            // (f32 bounds: the case is f32.) Bounds as a calibrated INT8 model has them: the input range holds most values
            // (the data lie in 0.5..=125.5; the bounds 0.5..=13 and 113..=125.5, per
            // channel), so the case measures the quantizing arithmetic, not the clamp.
            Some(BinaryOp::FakeQuantize { .. }) => {
                let bound = |shape: &[usize], salt: usize, at: f32, sign: f32| -> Tensor {
                    let n: usize = shape.iter().product();
                    let v = |i: usize| ((i * 7 + salt) % 251 + 1) as f32 * 0.05;
                    ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|i| at + sign * v(i)).collect())
                        .expect("length is the shape's product")
                        .into()
                };
                let [x, il, ih, ol, oh] = [0, 1, 2, 3, 4].map(|j| shapes[j].as_slice());
                vec![
                    operand(x, self.dtype, 0),
                    bound(il, 3, 0.45, 1.0),
                    bound(ih, 6, 125.55, -1.0),
                    bound(ol, 9, 0.0, -1.0),
                    bound(oh, 12, 0.0, 1.0),
                ]
            }
            Some(_) => shapes
                .iter()
                .enumerate()
                .map(|(j, shape)| operand(shape, self.dtype, 3 * j))
                .collect(),
            None => vec![
                operand(&shapes[0], DType::Bool, 0),
                operand(&shapes[1], self.dtype, 1),
                operand(&shapes[2], self.dtype, 2),
            ],
        }
    }

    /// Runs the case into a new tensor.
    ///
    /// # Errors
    /// Whatever the op says.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Tensor, BroadcastError> {
        match self.op {
            Some(op) => bcast::eltwise(op, &inputs.iter().collect::<Vec<_>>(), &self.spec),
            None => bcast::select_tensor(&inputs[0], &inputs[1], &inputs[2], &self.spec),
        }
    }

    /// Runs the case into `out` with the threads of `par`.
    ///
    /// # Errors
    /// Whatever the op says.
    pub fn run_into(
        &self,
        inputs: &[Tensor],
        out: &mut Tensor,
        par: Parallelism<'_>,
    ) -> Result<(), BroadcastError> {
        match self.op {
            Some(op) if inputs.len() == 2 => {
                bcast::binary_into_with(op, &inputs[0], &inputs[1], &self.spec, out, par)
            }
            Some(op) => bcast::eltwise_into_with(
                op,
                &inputs.iter().collect::<Vec<_>>(),
                &self.spec,
                out,
                par,
            ),
            None => match (&inputs[0], &inputs[1], &inputs[2], out) {
                (Tensor::Bool(c), Tensor::F32(t), Tensor::F32(e), Tensor::F32(o)) => {
                    bcast::select_into_with(
                        c.view(),
                        t.view(),
                        e.view(),
                        &self.spec,
                        o.view_mut(),
                        par,
                    )
                }
                (_, _, _, out) => {
                    *out = bcast::select_tensor(&inputs[0], &inputs[1], &inputs[2], &self.spec)?;
                    Ok(())
                }
            },
        }
    }

    /// Whether an input holds as many elements as the output (the copy bound applies).
    fn has_output_sized_input(&self, inputs: &[Tensor], out_len: usize) -> bool {
        self.op.is_none() || inputs.iter().any(|t| t.len() == out_len)
    }
}

/// How a fill bound writes.
#[derive(Clone, Copy)]
enum Fill {
    /// A typed fill with one value of the element type.
    Typed,
    /// `memset` of the output's bytes (for bool, the byte of `true`).
    Memset,
}

/// One bound's pass over `out`: a copy from `src` when given, else a fill.
fn bound(
    out: &mut Tensor,
    src: Option<&Tensor>,
    how: Fill,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    fn slice<T>(a: &mut ArrayD<T>) -> &mut [T] {
        a.as_slice_mut().expect("the bench's outputs are row-major")
    }
    fn slice_of<T>(a: &ArrayD<T>) -> &[T] {
        a.as_slice().expect("the bench's sources are row-major")
    }
    macro_rules! each {
        ($($var:ident, $value:expr, $byte:expr;)*) => {
            match (out, src) {
                $(
                    (Tensor::$var(o), Some(Tensor::$var(s))) => memcpy(slice(o), slice_of(s), par),
                    (Tensor::$var(o), None) => match how {
                        Fill::Typed => fill(slice(o), $value, par),
                        Fill::Memset => fill_bytes(slice(o), $byte, par),
                    },
                )*
                (out, _) => Err(BroadcastError::UnsupportedType {
                    op: "bench bound",
                    dtype: out.dtype().name(),
                }),
            }
        };
    }
    each! {
        F32, 0.5f32, 0x3F;
        F16, f16::ONE, 0x3C;
        U8, 0xA5u8, 0xA5;
        Bool, true, 1;
    }
}

/// `memset` of a plain-data buffer (`bool` through its own fill of `true`, whose byte is 1).
fn fill_bytes<T: FillBytes>(
    buf: &mut [T],
    byte: u8,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    T::fill_bytes(buf, byte, par)
}

trait FillBytes: Sized {
    fn fill_bytes(buf: &mut [Self], byte: u8, par: Parallelism<'_>) -> Result<(), BroadcastError>;
}

macro_rules! pod_fill_bytes {
    ($($t:ty),*) => {$(
        impl FillBytes for $t {
            fn fill_bytes(buf: &mut [Self], byte: u8, par: Parallelism<'_>) -> Result<(), BroadcastError> {
                memset(buf, byte, par)
            }
        }
    )*};
}
pod_fill_bytes!(f32, f16, u8);

impl FillBytes for bool {
    fn fill_bytes(buf: &mut [Self], byte: u8, par: Parallelism<'_>) -> Result<(), BroadcastError> {
        // `bool` may hold only 0 or 1; `fill(true)` is a memset of 1 bytes.
        debug_assert_eq!(byte, 1);
        fill(buf, byte == 1, par)
    }
}

/// Measures one case on `pool`, spending about `budget` on the interleaved rounds.
///
/// # Errors
/// Any error of the op itself.
pub fn measure_elt(
    case: &EltCase,
    bytes: Option<usize>,
    pool: &rayon::ThreadPool,
    threads: usize,
    budget: Duration,
) -> Result<EltMeasurement, BroadcastError> {
    let par = Parallelism::Pool(pool);
    let inputs = case.inputs_for(&case.shapes(bytes));
    let mut out = pool.install(|| case.run(&inputs))?;
    let out_len = out.len();
    let bytes = out_len * out.dtype().size();
    // The kernel gets the pool as `Parallelism::Pool`, like the fill and copy bounds: small
    // outputs run on the calling thread, large ones hand chunks to the pool.
    let kernel = |out: &mut Tensor| case.run_into(&inputs, out, par);
    kernel(&mut out)?;
    let one = seconds_per_call(1, || kernel(&mut out))?;
    let (batch, rounds) = schedule(one, budget, 3);
    // The bounds write the kernel's own output buffer, so all three find it in the same
    // cache state (a separate buffer, warm from the bound's previous round, flattered the
    // bounds wherever the output fits in the last-level cache). The copy reads a source as
    // large as the output.
    let src = out.clone();
    // Kernel, fills and copy take turns within every round, so a slower or faster stretch
    // of a shared machine falls on all of them alike.
    let (mut k, mut f, mut m, mut c) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        k.push(seconds_per_call(batch, || kernel(&mut out))?);
        f.push(seconds_per_call(batch, || {
            bound(&mut out, None, Fill::Typed, par)
        })?);
        m.push(seconds_per_call(batch, || {
            bound(&mut out, None, Fill::Memset, par)
        })?);
        c.push(seconds_per_call(batch, || {
            bound(&mut out, Some(&src), Fill::Typed, par)
        })?);
    }
    drop(src);
    let mut a = vec![];
    let mut kept = Vec::with_capacity(batch);
    for _ in 0..rounds.min(31) {
        let start = std::time::Instant::now();
        for _ in 0..batch {
            kept.push(pool.install(|| case.run(&inputs))?);
        }
        a.push(start.elapsed().as_secs_f64() / batch as f64);
        kept.clear();
    }
    let gbps = |t: f64| if t > 0.0 { bytes as f64 / t / 1e9 } else { 0.0 };
    // The fill bound is the faster of a typed fill and memset (they differ by CPU).
    let (kernel, copy, fill, alloc) = (
        median(&mut k),
        median(&mut c),
        median(&mut f).min(median(&mut m)),
        median(&mut a),
    );
    let copy_bound = case.has_output_sized_input(&inputs, out_len);
    let bound = if copy_bound { gbps(copy) } else { gbps(fill) };
    // Bytes the kernel must move (every input read once, the output written) against the
    // bytes its bound moves per output byte (a copy reads and writes; a fill writes).
    let moved = bytes
        + inputs
            .iter()
            .map(|t| t.len() * t.dtype().size())
            .sum::<usize>();
    let bound_moves = if copy_bound { 2 * bytes } else { bytes };
    let ratio_traffic = if bound > 0.0 && kernel > 0.0 {
        gbps(kernel) / bound * moved as f64 / bound_moves as f64
    } else {
        0.0
    };
    Ok(EltMeasurement {
        case: case.name,
        bytes,
        threads,
        kernel_gbps: gbps(kernel),
        copy_gbps: gbps(copy),
        fill_gbps: gbps(fill),
        ratio_bound: if bound > 0.0 {
            gbps(kernel) / bound
        } else {
            0.0
        },
        ratio_traffic,
        alloc_gbps: gbps(alloc),
        ns_per_call: kernel * 1e9,
    })
}

/// Runs and prints the cases named in `names` (all of them when `names` is empty): a table,
/// or one JSON object per line with `json`. This is all `bcast bench` calls for the group.
///
/// # Errors
/// The first measuring or writing error, as a message.
pub fn run_group(
    names: &[String],
    bytes: Option<usize>,
    pool: &rayon::ThreadPool,
    threads: usize,
    budget: Duration,
    json: bool,
    out: &mut impl std::io::Write,
) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot write the report: {e}");
    let cases: Vec<_> = ELT_CASES
        .iter()
        .filter(|c| names.is_empty() || names.iter().any(|n| n == c.name))
        .collect();
    if !json && !cases.is_empty() {
        writeln!(
            out,
            "# eltwise: fused op into a reused output; GB/s of output, medians; bound = copy \
             when an input is output-sized, else fill"
        )
        .map_err(io)?;
        writeln!(
            out,
            "{:<17} {:>10} {:>7} {:>11} {:>9} {:>9} {:>11} {:>13} {:>10} {:>12}",
            "case",
            "bytes",
            "threads",
            "kernel_GB/s",
            "copy_GB/s",
            "fill_GB/s",
            "ratio_bound",
            "ratio_traffic",
            "alloc_GB/s",
            "ns_per_call"
        )
        .map_err(io)?;
    }
    for case in cases {
        let m = measure_elt(case, bytes, pool, threads, budget).map_err(|e| e.to_string())?;
        let line = if json {
            serde_json::to_string(&m).map_err(|e| e.to_string())?
        } else {
            format!(
                "{:<17} {:>10} {:>7} {:>11.2} {:>9.2} {:>9.2} {:>11.2} {:>13.2} {:>10.2} {:>12.0}",
                m.case,
                m.bytes,
                m.threads,
                m.kernel_gbps,
                m.copy_gbps,
                m.fill_gbps,
                m.ratio_bound,
                m.ratio_traffic,
                m.alloc_gbps,
                m.ns_per_call
            )
        };
        writeln!(out, "{line}").map_err(io)?;
        out.flush().map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_runs_and_names_are_unique() {
        for (i, c) in ELT_CASES.iter().enumerate() {
            assert!(
                ELT_CASES[..i].iter().all(|o| o.name != c.name),
                "{}",
                c.name
            );
            assert!(crate::bench::find(c.name).is_none(), "{}", c.name);
        }
        let tiny = find_elt("tiny_add_f32").unwrap();
        let out = tiny.run(&tiny.inputs()).unwrap();
        assert_eq!(out.shape(), &[3, 4]);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let m = measure_elt(tiny, None, &pool, 1, Duration::from_millis(10)).unwrap();
        assert!(m.kernel_gbps > 0.0 && m.bytes == 48);
    }

    #[test]
    fn scaled_cases_keep_their_pattern() {
        let gib = Some(1 << 30);
        let shapes = |name: &str| find_elt(name).unwrap().shapes(gib);
        // Both operands span the leading axis.
        assert_eq!(
            shapes("column_sub_f32"),
            [vec![131_072, 2048], vec![131_072, 1]]
        );
        // A leading 1: the output-sized input grows, the per-channel bounds stay.
        let fq = shapes("fake_quantize_per_channel_f32");
        assert_eq!(fq[0], [16, 64, 512, 512]);
        assert!(fq[1..].iter().all(|s| s == &[1, 64, 1, 1]));
        assert_eq!(shapes("outer_add_f32"), [vec![65_536, 1], vec![1, 4096]]);
        assert_eq!(shapes("sum4_f32")[3], [512]);
        // A call's overhead keeps its size.
        assert_eq!(shapes("tiny_add_f32"), [vec![3, 1], vec![4]]);
        // Every other case grows to about the size asked for (its inputs are not built:
        // a GiB each).
        for case in ELT_CASES.iter().filter(|c| c.name != "tiny_add_f32") {
            let bytes = crate::bench_fused::output_len(&case.shapes(gib)) * case.dtype.size();
            assert!(
                (bytes as f64 / f64::from(1 << 30) - 1.0).abs() < 0.1,
                "{}: {bytes}",
                case.name
            );
        }
    }
}
