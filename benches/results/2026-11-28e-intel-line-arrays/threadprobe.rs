// outer_add_f32 ([4096,1] + [1,4096] -> 64 MiB f32) into a reused output at two threads, three
// ways in alternating batches: called from the main thread into a pool of two ("main+2",
// as `bcast bench --threads 2` does: three threads), from inside that pool ("in-pool": two
// threads), and from the main thread into a pool of one... which runs serially, so instead
// a pool of two whose second worker is kept busy is not tried. GB/s of output, medians.
use bcast::{AutoBroadcast, EltwiseOp, Parallelism, Tensor};
use ndarray::ArrayD;
use std::time::Instant;

fn main() {
    let n = 4096usize;
    let a = Tensor::F32(ArrayD::from_shape_fn(vec![n, 1], |i| i[0] as f32));
    let b = Tensor::F32(ArrayD::from_shape_fn(vec![1, n], |i| i[1] as f32 * 0.5));
    let mut out = Tensor::F32(ArrayD::zeros(vec![n, n]));
    let spec = AutoBroadcast::Numpy;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(9);
    let batch = 20;
    let bytes = (n * n * 4) as f64;
    let mut main2 = Vec::new();
    let mut inpool = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..batch {
            bcast::binary_into_with(EltwiseOp::Add, &a, &b, &spec, &mut out, Parallelism::Pool(&pool)).unwrap();
        }
        main2.push(bytes * batch as f64 / t.elapsed().as_secs_f64() / 1e9);
        let t = Instant::now();
        pool.install(|| {
            for _ in 0..batch {
                bcast::binary_into_with(EltwiseOp::Add, &a, &b, &spec, &mut out, Parallelism::Pool(&pool)).unwrap();
            }
        });
        inpool.push(bytes * batch as f64 / t.elapsed().as_secs_f64() / 1e9);
    }
    let med = |v: &mut Vec<f64>| { v.sort_by(|x, y| x.partial_cmp(y).unwrap()); v[v.len() / 2] };
    println!("main+2 {:.1} GB/s  in-pool {:.1} GB/s", med(&mut main2), med(&mut inpool));
}
