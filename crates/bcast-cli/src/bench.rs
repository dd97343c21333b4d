//! Measuring the executor against the bounds of the machine it runs on: the case table and
//! the timing helpers behind `bcast bench` and the criterion benches.
//!
//! Not part of the library's API (hidden from the docs, may change at any time); it is
//! public only because the command line and `benches/` are separate crates.
//!
//! Every number is measured in one process, on one reused output buffer that has already
//! been written (so no page faults), with the same threads and the same chunking:
//! - **kernel**: `broadcast_into_with` (planning included) into that buffer;
//! - **fill**: the write bound: the faster of a typed `fill` with a non-zero value and a
//!   `memset` of a non-zero byte, over the same buffer;
//! - **memcpy**: copying an output-sized source into the buffer (the read+write reference);
//! - **alloc**: `broadcast_with`, which allocates a new output (page faults included; the
//!   result is dropped outside the timed region);
//! - **fresh**: the bound of the allocating path: the same allocation and huge-page advice,
//!   one element written per 4 KiB page, so the OS maps and zeroes every page and no data is
//!   written. A new output cannot be produced faster than the OS hands out zeroed pages.
//!
//! Kernel and fill runs are interleaved round by round, so a burst of load from another
//! process hits both alike; memcpy runs in rounds of its own afterwards (see `copy_rounds`).
//! Each figure is the median over the rounds.

use std::time::{Duration, Instant};

use half::f16;
use ndarray::{ArrayD, IxDyn};

use bcast::exec::{for_each_chunk, STRING_COST_BYTES};
use bcast::BroadcastError;
use bcast::Mode;
use bcast::Parallelism;
use bcast::StridePlan;
use bcast::Tensor;
use bcast::{DType, Element};

/// One benchmark case: data shape, target, element type and mode.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Name used by `--case`.
    pub name: &'static str,
    /// Shape of the data.
    pub data_shape: &'static [usize],
    /// Target shape (for bidirectional mode, the other operand's shape).
    pub target: &'static [usize],
    /// Element type.
    pub dtype: DType,
    /// The mode (a function because modes with arguments hold vectors).
    pub mode: fn() -> Mode,
}

/// The cases `bcast bench` runs, in order. A new group of cases is new rows here.
pub const CASES: &[Case] = &[
    Case {
        name: "channel_bias_f32",
        data_shape: &[64, 1, 1],
        target: &[1, 64, 512, 512],
        dtype: DType::F32,
        mode: || Mode::Numpy,
    },
    Case {
        name: "row_f32",
        data_shape: &[1000],
        target: &[8192, 1000],
        dtype: DType::F32,
        mode: || Mode::Numpy,
    },
    Case {
        name: "column_f32",
        data_shape: &[8192, 1],
        target: &[8192, 2048],
        dtype: DType::F32,
        mode: || Mode::Numpy,
    },
    Case {
        name: "scalar_f32",
        data_shape: &[],
        target: &[4096, 4096],
        dtype: DType::F32,
        mode: || Mode::Numpy,
    },
    Case {
        name: "explicit_c_f32",
        data_shape: &[64],
        target: &[1, 64, 512, 512],
        dtype: DType::F32,
        mode: || Mode::Explicit {
            axes_mapping: vec![1],
        },
    },
    Case {
        name: "bidir_f32",
        data_shape: &[64, 1, 1],
        target: &[4, 1, 256, 256],
        dtype: DType::F32,
        mode: || Mode::Bidirectional,
    },
    Case {
        name: "pixel_u8",
        data_shape: &[1, 1, 3],
        target: &[1, 2048, 2048, 3],
        dtype: DType::U8,
        mode: || Mode::Numpy,
    },
    Case {
        name: "mid_f16",
        data_shape: &[1, 512, 1],
        target: &[64, 512, 512],
        dtype: DType::F16,
        mode: || Mode::Numpy,
    },
    Case {
        name: "pdpd_f32",
        data_shape: &[512, 1],
        target: &[8, 512, 64, 64],
        dtype: DType::F32,
        mode: || Mode::Pdpd { axis: 1 },
    },
    Case {
        name: "axes_f64",
        data_shape: &[2048],
        target: &[2048, 2048],
        dtype: DType::F64,
        mode: || Mode::Axes {
            broadcast_axes: vec![1],
        },
    },
    Case {
        name: "tiny_f32",
        data_shape: &[3, 1],
        target: &[3, 4],
        dtype: DType::F32,
        mode: || Mode::Numpy,
    },
    Case {
        name: "strings",
        data_shape: &[1000],
        target: &[1000, 1000],
        dtype: DType::String,
        mode: || Mode::Numpy,
    },
];

/// The case called `name`.
pub fn find(name: &str) -> Option<&'static Case> {
    CASES.iter().find(|c| c.name == name)
}

impl Case {
    /// The case's plan.
    ///
    /// # Errors
    /// Whatever the planner says about the case's shapes.
    pub fn plan(&self) -> Result<StridePlan, BroadcastError> {
        bcast::plan(self.data_shape, self.target, &(self.mode)())
    }

    /// The same case with its output scaled to about `bytes` (at least one element), keeping
    /// its pattern: the largest output axis the data is broadcast along (not read) is scaled.
    /// A case with no such axis, or whose plan fails, is returned as it is. The new target
    /// is leaked (a bench process makes a handful).
    #[must_use]
    pub fn scaled(&self, bytes: usize) -> Case {
        let Ok(plan) = self.plan() else {
            return *self;
        };
        let out = plan.output_shape();
        let now = plan.len().saturating_mul(self.dtype.size()).max(1);
        if self.target.len() != out.len() {
            return *self;
        }
        let axis = (0..out.len())
            .filter(|&k| plan.source_axes()[k].is_none())
            .max_by_key(|&k| (out[k], std::cmp::Reverse(k)));
        let Some(k) = axis else {
            return *self;
        };
        let dim = ((out[k] as f64) * bytes as f64 / now as f64)
            .round()
            .max(1.0) as usize;
        let mut target = self.target.to_vec();
        target[k] = dim;
        Case {
            target: Box::leak(target.into_boxed_slice()),
            ..*self
        }
    }

    /// The case's input: non-zero values that differ along every axis (strings are 8-byte
    /// words), so no store can be elided and every source element is distinguishable.
    ///
    /// # Errors
    /// [`BroadcastError::ShapeOverflow`] for a data shape too large to allocate.
    pub fn input(&self) -> Result<Tensor, BroadcastError> {
        let n = bcast::checked_len(self.data_shape)?;
        let shape = IxDyn(self.data_shape);
        let small = |i: usize| (i % 251 + 1) as u8;
        macro_rules! array {
            ($f:expr) => {
                ArrayD::from_shape_vec(shape, (0..n).map($f).collect())
                    .expect("length is the shape's product")
                    .into()
            };
        }
        Ok(match self.dtype {
            DType::Bool => array!(|_| true),
            DType::I8 => array!(|i| small(i) as i8 & 0x7f),
            DType::I16 => array!(|i| i16::from(small(i))),
            DType::I32 => array!(|i| i32::from(small(i))),
            DType::I64 => array!(|i| i64::from(small(i))),
            DType::U8 => array!(small),
            DType::U16 => array!(|i| u16::from(small(i))),
            DType::U32 => array!(|i| u32::from(small(i))),
            DType::U64 => array!(|i| u64::from(small(i))),
            DType::F16 => array!(|i| f16::from_f32(f32::from(small(i)) * 0.5)),
            DType::BF16 => array!(|i| half::bf16::from_f32(f32::from(small(i)) * 0.5)),
            DType::F32 => array!(|i| f32::from(small(i)) * 0.5),
            DType::F64 => array!(|i| f64::from(small(i)) * 0.5),
            DType::String => array!(|i| format!("w{:07}", i % 10_000_000)),
        })
    }
}

/// What `bcast bench` reports for one case. Rates are in GB/s (10^9 bytes per second) of
/// output written; strings count `size_of::<String>()` bytes per element.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Measurement {
    /// Case name.
    pub case: &'static str,
    /// Output bytes.
    pub bytes: usize,
    /// Threads available to every run.
    pub threads: usize,
    /// `broadcast_into_with` into the reused buffer, planning included (median).
    pub kernel_gbps: f64,
    /// Write bound: the fastest of a typed fill, a memset and (for outputs at least as large
    /// as the last-level cache, where the CPU has them) a fill with non-temporal stores, of
    /// the same buffer (median).
    pub fill_gbps: f64,
    /// The non-temporal fill alone (median; 0 when not measured).
    pub stream_fill_gbps: f64,
    /// Copy of an output-sized source into the buffer (median).
    pub memcpy_gbps: f64,
    /// `broadcast_with`, allocating its output every call (median).
    pub alloc_gbps: f64,
    /// Fresh-page bound of the allocating path: allocating an output-sized buffer with the
    /// same huge-page advice and threads and writing one byte per 4 KiB page, so the OS maps
    /// and zeroes every page and nothing else is written (median). `alloc_gbps` cannot
    /// exceed it.
    pub fresh_gbps: f64,
    /// `kernel_gbps / fill_gbps`.
    pub ratio_fill: f64,
    /// Median nanoseconds per kernel call.
    pub ns_per_call: f64,
}

/// Median of `samples` (sorted in place); 0 for none.
pub fn median(samples: &mut [f64]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Seconds per call of `batch` back-to-back calls of `f`.
///
/// # Errors
/// The first error `f` returns.
pub fn seconds_per_call<E>(batch: usize, mut f: impl FnMut() -> Result<(), E>) -> Result<f64, E> {
    let start = Instant::now();
    for _ in 0..batch {
        f()?;
    }
    Ok(start.elapsed().as_secs_f64() / batch.max(1) as f64)
}

/// How to time a run that takes about `one_call` seconds within `budget` shared by `kinds`
/// interleaved kinds of run: (calls per timed sample, rounds). A sample lasts at least a
/// millisecond so timer resolution does not matter; there are at least 7 rounds.
pub fn schedule(one_call: f64, budget: Duration, kinds: usize) -> (usize, usize) {
    let one_call = one_call.max(1e-9);
    let batch = (1e-3 / one_call).ceil().clamp(1.0, 1e6) as usize;
    let round = one_call * batch as f64 * kinds.max(1) as f64;
    let rounds = (budget.as_secs_f64() / round).clamp(7.0, 201.0) as usize;
    (batch, rounds | 1)
}

/// Fills `buf` with `value` through the executor's chunking and threads: the write bound.
///
/// # Errors
/// [`BroadcastError::WorkerPanicked`] if a worker panicked.
pub fn fill<T: Copy + Send + Sync>(
    buf: &mut [T],
    value: T,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    for_each_chunk(buf, std::mem::size_of::<T>(), par, |_, c| c.fill(value))
}

/// Sets every byte of `buf` to `byte` (`memset`) through the executor's chunking and threads.
///
/// # Errors
/// [`BroadcastError::WorkerPanicked`] if a worker panicked.
pub fn memset<T: bytemuck::Pod + Send>(
    buf: &mut [T],
    byte: u8,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    for_each_chunk(buf, std::mem::size_of::<T>(), par, |_, c| {
        bytemuck::cast_slice_mut::<T, u8>(c).fill(byte);
    })
}

/// Fills `buf` with `value` using non-temporal stores (the aligned middle of every chunk)
/// through the executor's chunking and threads: the write bound of outputs beyond the cache.
///
/// # Errors
/// [`BroadcastError::WorkerPanicked`] if a worker panicked.
pub fn fill_nt<T: bytemuck::Pod + Send + Sync>(
    buf: &mut [T],
    value: T,
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    for_each_chunk(buf, std::mem::size_of::<T>(), par, |_, c| {
        bcast::exec::fill_streaming(c, value);
    })
}

/// Copies `src` into `buf` (same length) through the executor's chunking and threads.
///
/// # Errors
/// [`BroadcastError::WorkerPanicked`] if a worker panicked.
pub fn memcpy<T: Copy + Send + Sync>(
    buf: &mut [T],
    src: &[T],
    par: Parallelism<'_>,
) -> Result<(), BroadcastError> {
    for_each_chunk(buf, std::mem::size_of::<T>(), par, |start, c| {
        c.copy_from_slice(&src[start..start + c.len()]);
    })
}

/// Measures one case with `threads` threads reported and `par` used, spending about `budget`
/// on the interleaved rounds (the allocating runs come on top).
///
/// # Errors
/// Any error of the broadcast itself; [`BroadcastError::UnsupportedType`] for `bool` cases.
pub fn measure(
    case: &Case,
    par: Parallelism<'_>,
    threads: usize,
    budget: Duration,
) -> Result<Measurement, BroadcastError> {
    let input = case.input()?;
    let plan = case.plan()?;
    let m = match input {
        Tensor::Bool(_) => {
            return Err(BroadcastError::UnsupportedType {
                op: "bench",
                dtype: "boolean",
            })
        }
        Tensor::String(a) => measure_strings(case, &plan, &a, par, budget)?,
        Tensor::I8(a) => measure_plain(case, &plan, &a, par, budget)?,
        Tensor::I16(a) => measure_plain(case, &plan, &a, par, budget)?,
        Tensor::I32(a) => measure_plain(case, &plan, &a, par, budget)?,
        Tensor::I64(a) => measure_plain(case, &plan, &a, par, budget)?,
        Tensor::U8(a) => measure_plain(case, &plan, &a, par, budget)?,
        Tensor::U16(a) => measure_plain(case, &plan, &a, par, budget)?,
        Tensor::U32(a) => measure_plain(case, &plan, &a, par, budget)?,
        Tensor::U64(a) => measure_plain(case, &plan, &a, par, budget)?,
        Tensor::F16(a) => measure_plain(case, &plan, &a, par, budget)?,
        Tensor::BF16(a) => measure_plain(case, &plan, &a, par, budget)?,
        Tensor::F32(a) => measure_plain(case, &plan, &a, par, budget)?,
        Tensor::F64(a) => measure_plain(case, &plan, &a, par, budget)?,
    };
    Ok(Measurement { threads, ..m })
}

/// Medians, in seconds per call, turned into a measurement.
struct Medians {
    kernel: f64,
    fill: f64,
    stream_fill: f64,
    memcpy: f64,
    alloc: f64,
    fresh: f64,
}

impl Medians {
    fn report(self, case: &Case, bytes: usize) -> Measurement {
        let gbps = |t: f64| if t > 0.0 { bytes as f64 / t / 1e9 } else { 0.0 };
        let kernel_gbps = gbps(self.kernel);
        let fill_gbps = gbps(self.fill);
        Measurement {
            case: case.name,
            bytes,
            threads: 0,
            kernel_gbps,
            fill_gbps,
            stream_fill_gbps: gbps(self.stream_fill),
            memcpy_gbps: gbps(self.memcpy),
            alloc_gbps: gbps(self.alloc),
            fresh_gbps: gbps(self.fresh),
            ratio_fill: if fill_gbps > 0.0 {
                kernel_gbps / fill_gbps
            } else {
                0.0
            },
            ns_per_call: self.kernel * 1e9,
        }
    }
}

fn measure_plain<T: Element + bytemuck::Pod>(
    case: &Case,
    plan: &StridePlan,
    input: &ArrayD<T>,
    par: Parallelism<'_>,
    budget: Duration,
) -> Result<Measurement, BroadcastError> {
    let mode = (case.mode)();
    let target = case.target;
    let bytes = plan.len() * std::mem::size_of::<T>();
    let src = input.as_slice().expect("case inputs are row-major");
    let value = src.first().copied().unwrap_or_else(T::zeroed);
    let copy_src: Vec<T> = (0..plan.len())
        .map(|i| src.get(i % src.len().max(1)).copied().unwrap_or(value))
        .collect();
    // The reused output, written once so its pages are mapped.
    let mut out = bcast::run_plan(plan, input.view(), par)?;
    let mut kernel =
        || bcast::broadcast_into_with(input.view(), target, &mode, out.view_mut(), par);
    kernel()?;
    let one = seconds_per_call(1, &mut kernel)?;
    let streaming = bcast::exec::streaming_available()
        && bytes >= bcast::exec::Machine::get().llc_bytes
        && 64 % std::mem::size_of::<T>() == 0;
    let (batch, rounds) = schedule(one, budget, if streaming { 5 } else { 4 });

    let (mut k, mut f, mut s, mut nt) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        k.push(seconds_per_call(batch, || {
            bcast::broadcast_into_with(input.view(), target, &mode, out.view_mut(), par)
        })?);
        let buf = out.as_slice_mut().expect("fresh arrays are row-major");
        f.push(seconds_per_call(batch, || fill(buf, value, par))?);
        s.push(seconds_per_call(batch, || memset(buf, 0xA5, par))?);
        if streaming {
            nt.push(seconds_per_call(batch, || fill_nt(buf, value, par))?);
        }
    }
    let c = copy_rounds(batch, rounds, || {
        let buf = out.as_slice_mut().expect("fresh arrays are row-major");
        memcpy(buf, &copy_src, par)
    })?;
    drop(copy_src);
    let alloc = time_alloc(batch, rounds, || {
        bcast::broadcast_with(input.view(), target, &mode, par)
    })?;
    let fresh = time_alloc(batch, rounds, || fresh_pages(plan, par, T::zeroed))?;
    let stream_fill = median(&mut nt);
    let mut fill = median(&mut f).min(median(&mut s));
    if streaming {
        fill = fill.min(stream_fill);
    }
    Ok(Medians {
        kernel: median(&mut k),
        fill,
        stream_fill,
        memcpy: c,
        alloc,
        fresh,
    }
    .report(case, bytes))
}

fn measure_strings(
    case: &Case,
    plan: &StridePlan,
    input: &ArrayD<String>,
    par: Parallelism<'_>,
    budget: Duration,
) -> Result<Measurement, BroadcastError> {
    let mode = (case.mode)();
    let target = case.target;
    let bytes = plan.len() * std::mem::size_of::<String>();
    let src = input.as_slice().expect("case inputs are row-major");
    let value = src.first().cloned().unwrap_or_default();
    let copy_src: Vec<String> = (0..plan.len())
        .map(|i| src.get(i % src.len().max(1)).cloned().unwrap_or_default())
        .collect();
    let mut out = bcast::run_plan(plan, input.view(), par)?;
    let mut kernel =
        || bcast::broadcast_into_with(input.view(), target, &mode, out.view_mut(), par);
    kernel()?;
    let one = seconds_per_call(1, &mut kernel)?;
    let (batch, rounds) = schedule(one, budget, 3);

    let (mut k, mut f) = (vec![], vec![]);
    for _ in 0..rounds {
        k.push(seconds_per_call(batch, || {
            bcast::broadcast_into_with(input.view(), target, &mode, out.view_mut(), par)
        })?);
        let buf = out.as_slice_mut().expect("fresh arrays are row-major");
        f.push(seconds_per_call(batch, || {
            for_each_chunk(buf, STRING_COST_BYTES, par, |_, chunk| {
                for slot in chunk {
                    slot.clone_from(&value);
                }
            })
        })?);
    }
    let c = copy_rounds(batch, rounds, || {
        let buf = out.as_slice_mut().expect("fresh arrays are row-major");
        for_each_chunk(buf, STRING_COST_BYTES, par, |start, chunk| {
            chunk.clone_from_slice(&copy_src[start..start + chunk.len()]);
        })
    })?;
    drop(copy_src);
    let alloc = time_alloc(batch, rounds, || {
        bcast::broadcast_with(input.view(), target, &mode, par)
    })?;
    let fresh = time_alloc(batch, rounds, || fresh_pages(plan, par, String::new))?;
    Ok(Medians {
        kernel: median(&mut k),
        fill: median(&mut f),
        stream_fill: 0.0,
        memcpy: c,
        alloc,
        fresh,
    }
    .report(case, bytes))
}

/// Median seconds per call of the copy reference, timed in rounds of its own after the
/// interleaved kernel and fill rounds.
///
/// A copy streams an output-sized source through the caches, and whichever run follows it
/// pays for that. Interleaved in the same rounds, it sat just before the kernel: measured on
/// the development VM, `pixel_u8` (12 MiB) then read 0.71 of the fill bound and `mid_f16`
/// 0.85, against 0.90-0.94 and 0.96 with the copy rounds apart (same binary, alternating
/// runs); a warm-up call before each timed batch did not remove the effect.
fn copy_rounds(
    batch: usize,
    rounds: usize,
    mut copy: impl FnMut() -> Result<(), BroadcastError>,
) -> Result<f64, BroadcastError> {
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        samples.push(seconds_per_call(batch, &mut copy)?);
    }
    Ok(median(&mut samples))
}

/// An output-sized allocation advised and faulted in the way `broadcast_with` does it, with
/// one element written per 4 KiB page: what a fresh output costs before any data is written.
/// `value` makes an element that owns no heap memory (the `Vec` keeps length 0, so the
/// written elements are never dropped).
fn fresh_pages<T: Send>(
    plan: &StridePlan,
    par: Parallelism<'_>,
    value: impl Fn() -> T + Sync,
) -> Result<Vec<T>, BroadcastError> {
    let mut out: Vec<T> = Vec::new();
    out.try_reserve_exact(plan.len())
        .map_err(|_| BroadcastError::Allocation {
            bytes: plan.len().saturating_mul(std::mem::size_of::<T>()),
            shape: bcast::Dims(plan.output_shape().to_vec()),
        })?;
    let spare = &mut out.spare_capacity_mut()[..plan.len()];
    bcast::exec::advise_huge_pages(spare);
    let elem_bytes = std::mem::size_of::<T>().max(1);
    let step = (4096 / elem_bytes).max(1);
    for_each_chunk(spare, elem_bytes, par, |_, chunk| {
        for slot in chunk.iter_mut().step_by(step) {
            slot.write(value());
        }
    })?;
    Ok(out)
}

/// Median seconds per call of an allocating broadcast; results are dropped after the clock
/// stops, so freeing is not counted (allocating, page faults and writing are).
fn time_alloc<T>(
    batch: usize,
    rounds: usize,
    mut f: impl FnMut() -> Result<T, BroadcastError>,
) -> Result<f64, BroadcastError> {
    let mut kept = Vec::with_capacity(batch);
    drop(f()?);
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        for _ in 0..batch {
            kept.push(f()?);
        }
        samples.push(start.elapsed().as_secs_f64() / batch as f64);
        kept.clear();
    }
    Ok(median(&mut samples))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_plans_and_names_are_unique() {
        for (i, c) in CASES.iter().enumerate() {
            assert!(c.plan().is_ok(), "{}", c.name);
            assert!(CASES[..i].iter().all(|o| o.name != c.name), "{}", c.name);
        }
        let bidir = find("bidir_f32").unwrap().plan().unwrap();
        assert_eq!(bidir.output_shape(), &[4, 64, 256, 256]);
    }

    #[test]
    fn scaled_cases_keep_their_pattern() {
        let row = find("row_f32").unwrap().scaled(1 << 20);
        assert_eq!(row.target, &[262, 1000]);
        let pixel = find("pixel_u8").unwrap().scaled(6 << 20);
        assert_eq!(pixel.target, &[1, 1024, 2048, 3]);
        let column = find("column_f32").unwrap().scaled(128 << 20);
        assert_eq!(column.target, &[8192, 4096]);
        let tiny = find("tiny_f32").unwrap().scaled(1);
        assert_eq!(tiny.target, &[3, 1]);
    }

    #[test]
    fn median_takes_the_middle_sample() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut []), 0.0);
    }

    #[test]
    fn schedule_batches_short_calls_and_bounds_rounds() {
        let (batch, rounds) = schedule(50e-9, Duration::from_millis(100), 4);
        assert!(batch >= 10_000);
        assert!((7..=201).contains(&rounds) && rounds % 2 == 1);
        assert_eq!(schedule(0.01, Duration::from_secs(1), 4).0, 1);
    }

    #[test]
    fn a_tiny_case_measures_without_error() {
        let m = measure(
            find("tiny_f32").unwrap(),
            Parallelism::Serial,
            1,
            Duration::from_millis(20),
        )
        .unwrap();
        assert_eq!(m.bytes, 48);
        assert!(m.kernel_gbps > 0.0 && m.ns_per_call > 0.0);
    }
}

/// The reduce group: every broadcast case with an output of 1 MiB or more and a summable
/// element type, run in reverse (a gradient of the output shape summed back to the data
/// shape). Named `reduce_<case>`.
pub fn reduce_cases() -> Vec<ReduceCase> {
    reduce_cases_of(CASES)
}

/// [`reduce_cases`] of the given broadcast cases (scaled ones, say).
pub fn reduce_cases_of(cases: &[Case]) -> Vec<ReduceCase> {
    cases
        .iter()
        .filter(|c| c.dtype != DType::String && c.dtype != DType::Bool)
        .filter(|c| {
            c.plan()
                .map(|p| p.len() * c.dtype.size() >= 1 << 20)
                .unwrap_or(false)
        })
        .map(|c| ReduceCase {
            name: format!("reduce_{}", c.name),
            case: *c,
        })
        .collect()
}

/// A broadcast case run in reverse by [`bcast::reduce_with_plan`].
#[derive(Debug, Clone)]
pub struct ReduceCase {
    /// `reduce_<broadcast case name>`.
    pub name: String,
    /// The broadcast case whose output shape is the gradient's.
    pub case: Case,
}

/// What `bcast bench` reports for one reduce case. Rates are in GB/s of gradient read.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ReduceMeasurement {
    /// Case name (`reduce_...`).
    pub case: String,
    /// Gradient bytes.
    pub bytes: usize,
    /// Threads available to every run.
    pub threads: usize,
    /// `reduce_with_plan` over the gradient, result allocation included (median).
    pub reduce_gbps: f64,
    /// Read bound: a wrapping sum of the same buffer as 64-bit words, same threads (median).
    pub read_gbps: f64,
    /// `reduce_gbps / read_gbps`.
    pub ratio_read: f64,
    /// Median nanoseconds per reduce call.
    pub ns_per_call: f64,
}

/// Reads every byte of `buf` (as 64-bit words, summed with wrapping) with the threads of
/// `par`, in chunks of 256 KiB: the read bound a reduction is measured against.
pub fn read_sum<T: bytemuck::Pod + Sync>(buf: &[T], par: Parallelism<'_>) -> u64 {
    use rayon::prelude::*;
    let (head, words, tail) = bytemuck::pod_align_to::<T, u64>(buf);
    let edge: u64 = bytemuck::cast_slice::<T, u8>(head)
        .iter()
        .chain(bytemuck::cast_slice::<T, u8>(tail))
        .map(|&b| u64::from(b))
        .sum();
    let chunk = 1 << 15;
    let sum_words = |w: &[u64]| w.iter().fold(0u64, |a, &b| a.wrapping_add(b));
    let body = match par {
        Parallelism::Serial => sum_words(words),
        Parallelism::Auto => words
            .par_chunks(chunk)
            .map(sum_words)
            .reduce(|| 0, u64::wrapping_add),
        Parallelism::Pool(pool) => pool.install(|| {
            words
                .par_chunks(chunk)
                .map(sum_words)
                .reduce(|| 0, u64::wrapping_add)
        }),
    };
    std::hint::black_box(edge.wrapping_add(body))
}

/// Measures one reduce case, interleaving reduce and read-bound rounds for about `budget`.
///
/// # Errors
/// Any error of the reduction itself.
pub fn measure_reduce(
    rc: &ReduceCase,
    par: Parallelism<'_>,
    threads: usize,
    budget: Duration,
) -> Result<ReduceMeasurement, BroadcastError> {
    let plan = rc.case.plan()?;
    // The gradient: the broadcast of the case's input, so values are non-trivial.
    let grad = rc.case.input()?.run_plan(&plan, par)?;
    let (reduce, read) = match &grad {
        Tensor::U8(g) => time_reduce(&plan, g, par, budget)?,
        Tensor::F16(g) => time_reduce(&plan, g, par, budget)?,
        Tensor::F32(g) => time_reduce(&plan, g, par, budget)?,
        Tensor::F64(g) => time_reduce(&plan, g, par, budget)?,
        Tensor::I32(g) => time_reduce(&plan, g, par, budget)?,
        t => {
            return Err(BroadcastError::UnsupportedType {
                op: "reduce bench",
                dtype: t.dtype().name(),
            })
        }
    };
    let bytes = plan.len() * rc.case.dtype.size();
    let gbps = |t: f64| if t > 0.0 { bytes as f64 / t / 1e9 } else { 0.0 };
    let (reduce_gbps, read_gbps) = (gbps(reduce), gbps(read));
    Ok(ReduceMeasurement {
        case: rc.name.clone(),
        bytes,
        threads,
        reduce_gbps,
        read_gbps,
        ratio_read: if read_gbps > 0.0 {
            reduce_gbps / read_gbps
        } else {
            0.0
        },
        ns_per_call: reduce * 1e9,
    })
}

/// Medians of (reduce, read bound) seconds per call.
fn time_reduce<T: bcast::Summable + bytemuck::Pod + Sync>(
    plan: &StridePlan,
    grad: &ArrayD<T>,
    par: Parallelism<'_>,
    budget: Duration,
) -> Result<(f64, f64), BroadcastError> {
    let buf = grad.as_slice().expect("fresh arrays are row-major");
    let mut reduce = || bcast::reduce_with_plan(plan, grad.view(), par).map(drop);
    reduce()?;
    let one = seconds_per_call(1, &mut reduce)?;
    let (batch, rounds) = schedule(one, budget, 2);
    let (mut r, mut b) = (vec![], vec![]);
    for _ in 0..rounds {
        r.push(seconds_per_call(batch, &mut reduce)?);
        b.push(seconds_per_call(batch, || {
            read_sum(buf, par);
            Ok::<(), BroadcastError>(())
        })?);
    }
    Ok((median(&mut r), median(&mut b)))
}
