//! Measuring one case: the kernel interleaved round by round with its bounds, then the copy
//! and allocating runs, each reduced to its median.

use std::time::Duration;

use ndarray::ArrayD;

use bcast::exec::{for_each_chunk, STRING_COST_BYTES};
use bcast::{BroadcastError, Element, Parallelism, StridePlan, Tensor};

use super::bounds::{fill, fill_nt, fresh_filled, fresh_pages, memcpy, memset, read_sum};
use super::cases::{Case, ReduceCase};
use super::report::{Measurement, Medians, ReduceMeasurement};
use super::timing::{copy_rounds, median, schedule, seconds_per_call, time_alloc};

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
    let fresh_fill = time_alloc(batch, rounds, || fresh_filled(plan, par, || value))?;
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
        fresh_fill,
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
    let fresh_fill = time_alloc(batch, rounds, || fresh_filled(plan, par, String::new))?;
    Ok(Medians {
        kernel: median(&mut k),
        fill: median(&mut f),
        stream_fill: 0.0,
        memcpy: c,
        alloc,
        fresh,
        fresh_fill,
    }
    .report(case, bytes))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::find;
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
