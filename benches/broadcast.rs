//! Criterion benches over the `bcast bench` case table (`bcast_cli::bench::CASES`), with
//! `Throughput::Bytes` of output, against two baselines a Rust user would otherwise pick:
//! ndarray's `view.broadcast(shape).unwrap().to_owned()` and a naive per-element loop.
//!
//! Run: `cargo bench --bench broadcast` (all cases) or `cargo bench --bench broadcast -- row_f32`.

use criterion::{
    black_box, criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput,
};
use std::time::Duration;

use bcast::{broadcast, broadcast_into_with, Element, Parallelism, StridePlan, Tensor};
use bcast_cli::bench::{Case, CASES};
use ndarray::{ArrayD, IxDyn};

/// The data reshaped to the output's rank (size 1 on every broadcast axis), so ndarray's
/// numpy-style `broadcast` reproduces any mode's mapping.
fn aligned_shape(plan: &StridePlan) -> Vec<usize> {
    plan.output_shape()
        .iter()
        .zip(plan.axis_strides())
        .map(|(&d, &s)| if s == 0 { 1 } else { d })
        .collect()
}

/// Output element `i` reads source `sum(index[k] * axis_strides[k])`, one division per axis
/// per element: what a straightforward implementation does.
fn naive<T: Clone>(plan: &StridePlan, src: &[T], out: &mut [T]) {
    let shape = plan.output_shape();
    let strides = plan.axis_strides();
    for (flat, o) in out.iter_mut().enumerate() {
        let mut rest = flat;
        let mut at = 0;
        for k in (0..shape.len()).rev() {
            at += (rest % shape[k]) * strides[k];
            rest /= shape[k];
        }
        *o = src[at].clone();
    }
}

fn bench_case<T: Element>(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    case: &Case,
    plan: &StridePlan,
    input: &ArrayD<T>,
) {
    let mode = (case.mode)();
    let mut out = bcast::run_plan(plan, input.view(), Parallelism::Auto).unwrap();
    for (name, par) in [
        ("bcast_into", Parallelism::Auto),
        ("bcast_into_serial", Parallelism::Serial),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                broadcast_into_with(
                    black_box(input.view()),
                    case.target,
                    &mode,
                    out.view_mut(),
                    par,
                )
                .unwrap()
            })
        });
    }
    group.bench_function("bcast_alloc", |b| {
        b.iter(|| broadcast(black_box(input.view()), case.target, &mode).unwrap())
    });
    let aligned = input
        .view()
        .into_shape_with_order(IxDyn(&aligned_shape(plan)))
        .unwrap();
    group.bench_function("ndarray_to_owned", |b| {
        b.iter(|| {
            black_box(aligned.view())
                .broadcast(IxDyn(plan.output_shape()))
                .unwrap()
                .to_owned()
        })
    });
    let src = input.as_slice().unwrap();
    let dst = out.as_slice_mut().unwrap();
    group.bench_function("naive_loop", |b| {
        b.iter(|| naive(plan, black_box(src), dst))
    });
}

fn cases(c: &mut Criterion) {
    for case in CASES {
        let plan = case.plan().unwrap();
        let input = case.input().unwrap();
        let mut group = c.benchmark_group(case.name);
        let bytes = plan.len() * case.dtype.size();
        group.throughput(Throughput::Bytes(bytes as u64));
        if bytes >= 1 << 20 {
            group
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(2));
        }
        match &input {
            Tensor::F32(a) => bench_case(&mut group, case, &plan, a),
            Tensor::F16(a) => bench_case(&mut group, case, &plan, a),
            Tensor::F64(a) => bench_case(&mut group, case, &plan, a),
            Tensor::U8(a) => bench_case(&mut group, case, &plan, a),
            Tensor::String(a) => bench_case(&mut group, case, &plan, a),
            other => panic!("no bench dispatch for {}", other.dtype()),
        }
        group.finish();
    }
}

criterion_group!(benches, cases);
criterion_main!(benches);
