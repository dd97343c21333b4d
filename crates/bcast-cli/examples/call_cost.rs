//! What a runtime's call costs: a 16-element f32 add unprepared (`binary_view_into`) and
//! prepared (`PreparedOp::run`), on the calling thread; and the model-shaped nodes at
//! one and two threads on bcast's team, on a rayon pool of the same size, and (for the
//! record) serially. Microseconds or nanoseconds per call, medians of interleaved rounds.
//!
//!     cargo run --release -p bcast-cli --example call_cost [-- ROUNDS] [--no-sweep]
//!
//! Then a sweep of a prepared f32 add from 1 KiB to 64 MiB at one thread and at every CPU
//! (the cost model's "never slower at N threads than at one"), unless `--no-sweep`.
//!
//! Prints one line per measurement, tab-separated: what, threads, per-call time.

use std::hint::black_box;
use std::time::Instant;

use bcast::exec::TeamBuilder;
use bcast::ndarray::{ArrayD, IxDyn};
use bcast::{
    binary_view_into, AutoBroadcast, DType, EltwiseOp, Parallelism, PreparedOp, TensorView,
    TensorViewMut,
};

/// Seconds per call of `f`, timed over batches of about 20 ms; the median of `rounds`.
fn per_call(rounds: usize, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed().as_secs_f64() < 0.02 {
        f();
        n += 1;
    }
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            t.elapsed().as_secs_f64() / n as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// One node: name, op, a's shape, b's shape, element type.
type Node = (
    &'static str,
    EltwiseOp,
    &'static [usize],
    &'static [usize],
    DType,
);

/// The nodes, and two plain adds at the cost model's line.
const NODES: &[Node] = &[
    (
        "bert_s128_mask_add",
        EltwiseOp::Add,
        &[1, 12, 128, 128],
        &[1, 1, 1, 128],
        DType::F32,
    ),
    (
        "bert_s128_softmax_sub",
        EltwiseOp::Subtract,
        &[1, 12, 128, 128],
        &[1, 12, 128, 1],
        DType::F32,
    ),
    (
        "vit_pos_add",
        EltwiseOp::Add,
        &[1, 197, 768],
        &[1, 197, 768],
        DType::F32,
    ),
    (
        "resnet_channel_scale",
        EltwiseOp::Multiply,
        &[1, 64, 112, 112],
        &[1, 64, 1, 1],
        DType::F32,
    ),
    (
        "llama_decode_residual_f16",
        EltwiseOp::Add,
        &[1, 1, 4096],
        &[1, 1, 4096],
        DType::F16,
    ),
    ("add_128k", EltwiseOp::Add, &[32768], &[32768], DType::F32),
    ("add_256k", EltwiseOp::Add, &[65536], &[65536], DType::F32),
];

fn tensor(dtype: DType, shape: &[usize]) -> bcast::Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f32> = (0..n).map(|i| (i % 251) as f32 / 8.0).collect();
    let t = bcast::Tensor::F32(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap());
    match dtype {
        DType::F16 => match t {
            bcast::Tensor::F32(a) => bcast::Tensor::F16(a.mapv(bcast::half::f16::from_f32)),
            _ => unreachable!(),
        },
        _ => t,
    }
}

fn main() {
    let rounds = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(7);
    // The call itself.
    let a = ArrayD::from_elem(IxDyn(&[16]), 1.5f32);
    let b = ArrayD::from_elem(IxDyn(&[16]), 2.0f32);
    let mut out = ArrayD::zeros(IxDyn(&[16]));
    let add = PreparedOp::new(
        EltwiseOp::Add,
        &[(DType::F32, &[16][..]), (DType::F32, &[16][..])],
        &AutoBroadcast::Numpy,
    )
    .unwrap();
    let mut unprepared = Vec::new();
    let mut prepared = Vec::new();
    for _ in 0..3 {
        unprepared.push(per_call(rounds, || {
            binary_view_into(
                EltwiseOp::Add,
                TensorView::F32(black_box(a.view())),
                TensorView::F32(black_box(b.view())),
                &AutoBroadcast::Numpy,
                TensorViewMut::F32(out.view_mut()),
                Parallelism::Serial,
            )
            .unwrap();
        }));
        prepared.push(per_call(rounds, || {
            add.run(
                &[
                    TensorView::F32(black_box(a.view())),
                    TensorView::F32(black_box(b.view())),
                ],
                TensorViewMut::F32(out.view_mut()),
                Parallelism::Serial,
            )
            .unwrap();
        }));
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "tiny_add_f32 unprepared\t1\t{:.0} ns",
        median(unprepared) * 1e9
    );
    println!("tiny_add_f32 prepared\t1\t{:.0} ns", median(prepared) * 1e9);

    // The cost model's promise: never slower at N threads than at one. A prepared f32 add
    // (both operands full) from 1 KiB to 64 MiB of output, the process's team at 1 thread
    // and at every CPU, interleaved.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores > 1 && !std::env::args().any(|a| a == "--no-sweep") {
        let one = TeamBuilder::new(1).build().unwrap();
        let all = TeamBuilder::new(cores).build().unwrap();
        let mut bytes = 1usize << 10;
        while bytes <= 64 << 20 {
            let n = bytes / 4;
            let (x, y) = (tensor(DType::F32, &[n]), tensor(DType::F32, &[n]));
            let prep = PreparedOp::new(
                EltwiseOp::Add,
                &[(DType::F32, &[n][..]), (DType::F32, &[n][..])],
                &AutoBroadcast::Numpy,
            )
            .unwrap();
            let mut o = bcast::binary(EltwiseOp::Add, &x, &y, &AutoBroadcast::Numpy).unwrap();
            let mut run = |par: Parallelism<'_>| {
                per_call(rounds, || {
                    prep.run(&[x.view(), y.view()], o.view_mut(), par).unwrap();
                })
            };
            let (mut t1, mut tn) = (Vec::new(), Vec::new());
            for _ in 0..3 {
                t1.push(run(Parallelism::Team(&one)));
                tn.push(run(Parallelism::Team(&all)));
            }
            let (t1, tn) = (median(t1), median(tn));
            println!(
                "sweep_add_f32 {} KiB\t1 / {cores}\t{:.2} us / {:.2} us\tratio {:.2}",
                bytes >> 10,
                t1 * 1e6,
                tn * 1e6,
                t1 / tn
            );
            bytes *= 2;
        }
    }

    // The nodes: team against a rayon pool of the same size, interleaved.
    for threads in [1usize, 2, cores].into_iter().filter(|&t| t <= cores) {
        let team = TeamBuilder::new(threads).build().unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for &(name, op, sa, sb, dtype) in NODES {
            let (x, y) = (tensor(dtype, sa), tensor(dtype, sb));
            let prep =
                PreparedOp::new(op, &[(dtype, sa), (dtype, sb)], &AutoBroadcast::Numpy).unwrap();
            let mut o = bcast::binary(op, &x, &y, &AutoBroadcast::Numpy).unwrap();
            let mut run = |par: Parallelism<'_>| {
                per_call(rounds, || {
                    prep.run(&[x.view(), y.view()], o.view_mut(), par).unwrap();
                })
            };
            let (mut t, mut r) = (Vec::new(), Vec::new());
            for _ in 0..3 {
                t.push(run(Parallelism::Team(&team)));
                r.push(run(Parallelism::Pool(&pool)));
            }
            println!(
                "{name}\t{threads}\tteam {:.2} us\trayon {:.2} us",
                median(t) * 1e6,
                median(r) * 1e6
            );
        }
    }
}
