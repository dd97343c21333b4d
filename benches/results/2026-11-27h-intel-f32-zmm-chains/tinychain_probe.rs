// Per-call cost of the bench's tiny fused chain `(x + y) * s` (x, y: [64] f32, s: a 0-d f32)
// into a reused output, on a one-thread pool, as `bcast bench --group fused` calls it.
use bcast::{AutoBroadcast, Expression, Parallelism, Tensor};
use ndarray::ArrayD;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args().nth(1).map_or(200_000, |a| a.parse().unwrap());
    let rounds: usize = std::env::args().nth(2).map_or(31, |a| a.parse().unwrap());
    let x = Tensor::F32(ArrayD::from_shape_fn(vec![64], |i| i[0] as f32 * 0.5));
    let y = Tensor::F32(ArrayD::from_shape_fn(vec![64], |i| 1.0 - i[0] as f32));
    let s = Tensor::F32(ArrayD::from_elem(vec![], 1.5_f32));
    let mut out = ArrayD::<f32>::zeros(vec![64]);
    let e = Expression::parse("(x + y) * s", AutoBroadcast::Numpy).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let par = Parallelism::Pool(&pool);
    let inputs = [x.view(), y.view(), s.view()];
    let mut per_call = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..n {
            e.evaluate_into(&inputs, bcast::TensorViewMut::from(out.view_mut()), par).unwrap();
        }
        per_call.push(t.elapsed().as_nanos() as f64 / n as f64);
    }
    per_call.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("min {:.1} median {:.1} ns/call ({})", per_call[0], per_call[rounds / 2], out[3]);
}
