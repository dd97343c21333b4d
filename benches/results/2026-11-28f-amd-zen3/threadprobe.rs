// outer_add_f32 ([n,1] + [1,n] -> n*n f32) into a reused output at two threads, three ways in
// alternating batches: called from the main thread into a pool of two ("caller-works", as
// `bcast bench --threads 2` does: three threads, the caller one of the two writers), each call
// handed to the pool with `install` ("handoff": the caller sleeps, two threads write), and a
// whole batch run inside the pool ("in-pool": two threads, no hand-off per call). N (side),
// ROUNDS, BATCH from the environment. GB/s of output, medians.
use bcast::{AutoBroadcast, EltwiseOp, Parallelism, Tensor};
use ndarray::ArrayD;
use std::time::Instant;

fn env(k: &str, d: usize) -> usize {
    std::env::var(k).ok().and_then(|s| s.parse().ok()).unwrap_or(d)
}

fn main() {
    let n = env("N", 4096);
    let a = Tensor::F32(ArrayD::from_shape_fn(vec![n, 1], |i| i[0] as f32));
    let b = Tensor::F32(ArrayD::from_shape_fn(vec![1, n], |i| i[1] as f32 * 0.5));
    let mut out = Tensor::F32(ArrayD::zeros(vec![n, n]));
    let spec = AutoBroadcast::Numpy;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let rounds = env("ROUNDS", 9);
    let batch = env("BATCH", 20);
    let bytes = (n * n * 4) as f64;
    let par = Parallelism::Pool(&pool);
    let (mut caller, mut handoff, mut inpool) = (Vec::new(), Vec::new(), Vec::new());
    let gbs = |t: Instant| bytes * batch as f64 / t.elapsed().as_secs_f64() / 1e9;
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..batch {
            bcast::binary_into_with(EltwiseOp::Add, &a, &b, &spec, &mut out, par).unwrap();
        }
        caller.push(gbs(t));
        let t = Instant::now();
        for _ in 0..batch {
            pool.install(|| bcast::binary_into_with(EltwiseOp::Add, &a, &b, &spec, &mut out, par))
                .unwrap();
        }
        handoff.push(gbs(t));
        let t = Instant::now();
        pool.install(|| {
            for _ in 0..batch {
                bcast::binary_into_with(EltwiseOp::Add, &a, &b, &spec, &mut out, par).unwrap();
            }
        });
        inpool.push(gbs(t));
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|x, y| x.partial_cmp(y).unwrap());
        v[v.len() / 2]
    };
    println!(
        "n={n} caller-works {:.2} GB/s  handoff {:.2} GB/s  in-pool {:.2} GB/s",
        med(&mut caller),
        med(&mut handoff),
        med(&mut inpool)
    );
}
