//! Probe (not committed): per-batch times of a 2-thread softmax subtract over a process's life.
use bcast::exec::TeamBuilder;
use bcast::ndarray::{ArrayD, IxDyn};
use bcast::{AutoBroadcast, DType, EltwiseOp, Parallelism, PreparedOp, TensorView, TensorViewMut};
use std::time::Instant;

fn main() {
    let a = ArrayD::<f32>::from_elem(IxDyn(&[1, 12, 128, 128]), 1.5);
    let b = ArrayD::<f32>::from_elem(IxDyn(&[1, 12, 128, 1]), 0.5);
    let mut o = ArrayD::<f32>::zeros(IxDyn(&[1, 12, 128, 128]));
    let team = TeamBuilder::new(2).build().unwrap();
    let par = Parallelism::Team(&team);
    let op = PreparedOp::new(
        EltwiseOp::Subtract,
        &[
            (DType::F32, &[1, 12, 128, 128]),
            (DType::F32, &[1, 12, 128, 1]),
        ],
        &AutoBroadcast::Numpy,
    )
    .unwrap();
    let t0 = Instant::now();
    let mut line = String::new();
    for batch in 0..80 {
        let t = Instant::now();
        for _ in 0..50 {
            op.run(
                &[TensorView::F32(a.view()), TensorView::F32(b.view())],
                TensorViewMut::F32(o.view_mut()),
                par,
            )
            .unwrap();
        }
        let us = t.elapsed().as_secs_f64() / 50.0 * 1e6;
        line += &format!("{us:.0}{} ", cpus());
        if batch % 20 == 19 {
            line += &format!("[{:.0}ms] ", t0.elapsed().as_secs_f64() * 1e3);
        }
    }
    println!("{line}");
}

fn cpus() -> String {
    let mut v = String::from("(");
    for e in std::fs::read_dir("/proc/self/task").unwrap() {
        let p = e.unwrap().path().join("stat");
        let t = std::fs::read_to_string(p).unwrap();
        let after = &t[t.rfind(')').unwrap() + 2..];
        let f: Vec<&str> = after.split(' ').collect();
        v += f[36];
    }
    v + ")"
}
