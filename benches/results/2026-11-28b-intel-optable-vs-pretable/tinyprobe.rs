// Per-call cost of a tiny two-operand add ([3,1] + [4] -> [3,4], f32) into a reused output,
// as main calls it. For the code before the op table (92b35c2) the same file with
// `sed s/EltwiseOp/BinaryOp/g`. N calls a batch, BATCHES batches (environment).
use bcast::{AutoBroadcast, EltwiseOp, Parallelism, Tensor};
use ndarray::ArrayD;
use std::time::Instant;

fn main() {
    let a = Tensor::F32(ArrayD::from_shape_vec(vec![3, 1], vec![1.0, 2.0, 3.0]).unwrap());
    let b = Tensor::F32(ArrayD::from_shape_vec(vec![4], vec![0.5, 1.5, 2.5, 3.5]).unwrap());
    let mut out = Tensor::F32(ArrayD::zeros(vec![3, 4]));
    let spec = AutoBroadcast::Numpy;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let par = Parallelism::Pool(&pool);
    let n: usize = std::env::var("N").ok().and_then(|s| s.parse().ok()).unwrap_or(200_000);
    let batches: usize = std::env::var("BATCHES").ok().and_then(|s| s.parse().ok()).unwrap_or(31);
    let mut best = Vec::new();
    for _ in 0..batches {
        let t = Instant::now();
        for _ in 0..n {
            bcast::binary_into_with(EltwiseOp::Add, &a, &b, &spec, &mut out, par).unwrap();
        }
        best.push(t.elapsed().as_nanos() as f64 / n as f64);
    }
    best.sort_by(|x, y| x.partial_cmp(y).unwrap());
    println!("min {:.1} median {:.1} ns/call", best[0], best[best.len() / 2]);
}
