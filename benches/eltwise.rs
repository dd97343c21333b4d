//! Criterion benches over the `bcast bench` eltwise cases (`bcast_cli::bench_eltwise`), with
//! `Throughput::Bytes` of output, against what a Rust user would otherwise write: ndarray's
//! `Zip::par_for_each` over a broadcast view into a reused output, and `&a + &b` (allocating,
//! serial; Add cases only).
//!
//! Run: `cargo bench --bench eltwise` (all cases) or `cargo bench --bench eltwise -- row_mul`.

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use ndarray::{ArrayD, IxDyn, Zip};

use bcast::{AutoBroadcast, BinaryOp, Tensor};
use bcast_cli::bench_eltwise::ELT_CASES;

/// `b` reshaped to the output's rank (PDPD: placed from its axis) so that ndarray's numpy
/// broadcast gives the same mapping.
fn aligned(b: &[usize], out: &[usize], spec: &AutoBroadcast) -> Vec<usize> {
    let start = match *spec {
        AutoBroadcast::Pdpd { axis } if axis >= 0 => axis as usize,
        _ => out.len() - b.len(),
    };
    let mut s = vec![1; out.len()];
    s[start..start + b.len()].copy_from_slice(b);
    s
}

fn f32_op(op: BinaryOp) -> fn(f32, f32) -> f32 {
    match op {
        BinaryOp::Add => |x, y| x + y,
        BinaryOp::Subtract => |x, y| x - y,
        BinaryOp::Multiply => |x, y| x * y,
        _ => |x: f32, y: f32| if x < y { y } else { x },
    }
}

fn cases(c: &mut Criterion) {
    for case in ELT_CASES {
        let inputs = case.inputs();
        let mut out = case.run(&inputs).unwrap();
        let bytes = out.len() * out.dtype().size();
        let mut group = c.benchmark_group(format!("eltwise_{}", case.name));
        group.throughput(Throughput::Bytes(bytes as u64));
        if bytes >= 1 << 20 {
            group
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(2));
        }
        group.bench_function("bcast_into", |bch| {
            bch.iter(|| {
                case.run_into(black_box(&inputs), &mut out, bcast::Parallelism::Auto)
                    .unwrap()
            })
        });
        group.bench_function("bcast_alloc", |bch| {
            bch.iter(|| case.run(black_box(&inputs)).unwrap())
        });
        // Baselines where the types line up with a plain f32 closure.
        if let (Some(op), [Tensor::F32(a), Tensor::F32(b)]) = (case.op, &inputs[..]) {
            if !matches!(op, BinaryOp::Greater) {
                let shape = out.shape().to_vec();
                let a_al = a
                    .view()
                    .into_shape_with_order(IxDyn(&aligned(
                        a.shape(),
                        &shape,
                        &AutoBroadcast::Numpy,
                    )))
                    .unwrap();
                let b_al = b
                    .view()
                    .into_shape_with_order(IxDyn(&aligned(b.shape(), &shape, &case.spec)))
                    .unwrap();
                let f = f32_op(op);
                let mut o = ArrayD::<f32>::zeros(IxDyn(&shape));
                group.bench_function("ndarray_zip_par_for_each", |bch| {
                    bch.iter(|| {
                        let av = a_al.broadcast(IxDyn(&shape)).unwrap();
                        let bv = b_al.broadcast(IxDyn(&shape)).unwrap();
                        Zip::from(&mut o)
                            .and(&av)
                            .and(&bv)
                            .par_for_each(|o, &x, &y| *o = f(x, y));
                    })
                });
                if op == BinaryOp::Add {
                    group.bench_function("ndarray_add_alloc", |bch| {
                        bch.iter(|| black_box(&a_al + &b_al))
                    });
                }
            }
        }
        group.finish();
    }
}

criterion_group!(benches, cases);
criterion_main!(benches);
