//! Criterion benches of the gradient reduce over the 64 MiB shapes of the broadcast bench in
//! reverse (the gradient is the broadcast's output, the result the data), with
//! `Throughput::Bytes` of gradient read, against the read bound of this machine: a wrapping
//! sum of the same buffer as `u64` words, on the same threads.
//!
//! Run: `cargo bench --bench reduce` (all cases) or `cargo bench --bench reduce -- row_f32`.
//! Compare `reduce` with `read_bound` and `reduce_serial` with `read_bound_serial`.

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use half::f16;
use ndarray::{ArrayD, IxDyn};
use rayon::prelude::*;

use bcast::{reduce_to_input_with, Mode, Parallelism, Summable};

/// One reduce case: the data shape, the broadcast's target and mode, the gradient dtype.
struct Case {
    name: &'static str,
    data: &'static [usize],
    target: &'static [usize],
    mode: fn() -> Mode,
    dtype: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "channel_bias_f32",
        data: &[64, 1, 1],
        target: &[1, 64, 512, 512],
        mode: || Mode::Numpy,
        dtype: "f32",
    },
    Case {
        name: "row_f32",
        data: &[1000],
        target: &[8192, 1000],
        mode: || Mode::Numpy,
        dtype: "f32",
    },
    Case {
        name: "column_f32",
        data: &[8192, 1],
        target: &[8192, 2048],
        mode: || Mode::Numpy,
        dtype: "f32",
    },
    Case {
        name: "scalar_f32",
        data: &[],
        target: &[4096, 4096],
        mode: || Mode::Numpy,
        dtype: "f32",
    },
    Case {
        name: "explicit_c_f32",
        data: &[64],
        target: &[1, 64, 512, 512],
        mode: || Mode::Explicit {
            axes_mapping: vec![1],
        },
        dtype: "f32",
    },
    Case {
        name: "bidir_f32",
        data: &[64, 1, 1],
        target: &[4, 1, 256, 256],
        mode: || Mode::Bidirectional,
        dtype: "f32",
    },
    Case {
        name: "pixel_u8",
        data: &[1, 1, 3],
        target: &[1, 2048, 2048, 3],
        mode: || Mode::Numpy,
        dtype: "u8",
    },
    Case {
        name: "mid_f16",
        data: &[1, 512, 1],
        target: &[64, 512, 512],
        mode: || Mode::Numpy,
        dtype: "f16",
    },
    Case {
        name: "pdpd_f32",
        data: &[512, 1],
        target: &[8, 512, 64, 64],
        mode: || Mode::Pdpd { axis: 1 },
        dtype: "f32",
    },
    Case {
        name: "axes_f64",
        data: &[2048],
        target: &[2048, 2048],
        mode: || Mode::Axes {
            broadcast_axes: vec![1],
        },
        dtype: "f64",
    },
];

/// Reads every byte once: the bound a reduction cannot beat.
fn read_bound(bytes: &[u64], parallel: bool) -> u64 {
    fn sum(words: &[u64]) -> u64 {
        let mut lanes = [0u64; 8];
        let mut chunks = words.chunks_exact(8);
        for c in &mut chunks {
            for (l, &w) in lanes.iter_mut().zip(c) {
                *l = l.wrapping_add(w);
            }
        }
        let rest = chunks
            .remainder()
            .iter()
            .fold(0u64, |a, &w| a.wrapping_add(w));
        lanes.iter().fold(rest, |a, &l| a.wrapping_add(l))
    }
    if parallel {
        bytes
            .par_chunks(1 << 17)
            .map(sum)
            .reduce(|| 0, u64::wrapping_add)
    } else {
        sum(bytes)
    }
}

fn bench_case<T: Summable>(c: &mut Criterion, case: &Case, grad: ArrayD<T>) {
    let bytes = (grad.len() * std::mem::size_of::<T>()) as u64;
    let words: Vec<u64> = vec![0x0101_0101_0101_0101; (bytes / 8) as usize];
    let mode = (case.mode)();
    let shape = bcast::output_shape(case.data, case.target, &mode).unwrap();
    assert_eq!(grad.shape(), shape.as_slice());
    let mut group = c.benchmark_group(case.name);
    group.throughput(Throughput::Bytes(bytes));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for (label, par) in [
        ("reduce", Parallelism::Auto),
        ("reduce_serial", Parallelism::Serial),
    ] {
        group.bench_function(label, |b| {
            b.iter(|| {
                reduce_to_input_with(black_box(grad.view()), case.data, case.target, &mode, par)
                    .unwrap()
            })
        });
    }
    group.bench_function("read_bound", |b| {
        b.iter(|| read_bound(black_box(&words), true))
    });
    group.bench_function("read_bound_serial", |b| {
        b.iter(|| read_bound(black_box(&words), false))
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    for case in CASES {
        let mode = (case.mode)();
        let shape = bcast::output_shape(case.data, case.target, &mode).unwrap();
        let n: usize = shape.iter().product();
        let dim = IxDyn(&shape);
        match case.dtype {
            "f32" => bench_case(c, case, ArrayD::from_shape_fn(dim, |_| 0.5f32)),
            "f64" => bench_case(c, case, ArrayD::from_shape_fn(dim, |_| 0.5f64)),
            "f16" => bench_case(c, case, ArrayD::from_shape_fn(dim, |_| f16::from_f32(0.5))),
            "u8" => bench_case(
                c,
                case,
                ArrayD::from_shape_vec(dim, (0..n).map(|i| i as u8).collect()).unwrap(),
            ),
            other => panic!("no dtype {other}"),
        }
    }
}

criterion_group!(reduce, benches);
criterion_main!(reduce);
