// Exploration probe (not committed): bcast's Sum of four beside a plain loop, same process.
use bcast::{AutoBroadcast, BinaryOp, Parallelism, Tensor};
use ndarray::{ArrayD, IxDyn};
use std::time::Instant;

fn t(shape: &[usize], k: usize) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::F32(
        ArrayD::from_shape_vec(
            IxDyn(shape),
            (0..n).map(|i| ((i * k) % 251) as f32).collect(),
        )
        .unwrap(),
    )
}

#[inline(never)]
fn plain(d: &mut [f32], x: &[f32], y: &[f32], z: &[f32], b: &[f32]) {
    for (((d, x), y), z) in d
        .chunks_exact_mut(512)
        .zip(x.chunks_exact(512))
        .zip(y.chunks_exact(512))
        .zip(z.chunks_exact(512))
    {
        for i in 0..512 {
            d[i] = x[i] + y[i] + z[i] + b[i];
        }
    }
}

fn main() {
    let threads: usize = std::env::args().nth(1).map_or(1, |s| s.parse().unwrap());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let par = Parallelism::Pool(&pool);
    let s = [16usize, 512, 512];
    let ins = [t(&s, 3), t(&s, 5), t(&s, 7), t(&[512], 11)];
    let refs: Vec<&Tensor> = ins.iter().collect();
    let b1 = t(&[1], 11);
    let refs1: Vec<&Tensor> = vec![&ins[0], &ins[1], &ins[2], &b1];
    let bfull = t(&s, 11);
    let refs_full: Vec<&Tensor> = vec![&ins[0], &ins[1], &ins[2]];
    let _ = &bfull;
    let mut out = t(&s, 1);
    let mut out2 = vec![0f32; 16 * 512 * 512];
    let n = out2.len();
    let src = vec![1f32; n];
    let sl = |t: &Tensor| match t {
        Tensor::F32(a) => a.as_slice().unwrap().to_vec(),
        _ => panic!(),
    };
    let (x, y, z, b) = (sl(&ins[0]), sl(&ins[1]), sl(&ins[2]), sl(&ins[3]));
    let expr = bcast::Expression::parse("x + y + z + b", AutoBroadcast::Numpy).unwrap();
    let views: Vec<_> = ins.iter().map(Tensor::view).collect();
    let mut out3 = t(&s, 2);
    let mut res = vec![vec![]; 6];
    for _ in 0..21 {
        let st = Instant::now();
        for _ in 0..5 {
            bcast::eltwise_into_with(BinaryOp::Sum, &refs, &AutoBroadcast::Numpy, &mut out, par)
                .unwrap();
        }
        res[0].push(16.0 * n as f64 * 5.0 / st.elapsed().as_secs_f64() / 1e9);
        let st = Instant::now();
        for _ in 0..5 {
            pool.install(|| {
                use rayon::prelude::*;
                let c = n / threads;
                out2.par_chunks_mut(c)
                    .zip(x.par_chunks(c))
                    .zip(y.par_chunks(c))
                    .zip(z.par_chunks(c))
                    .for_each(|(((d, x), y), z)| plain(d, x, y, z, &b));
            });
        }
        res[1].push(16.0 * n as f64 * 5.0 / st.elapsed().as_secs_f64() / 1e9);
        let st = Instant::now();
        for _ in 0..5 {
            pool.install(|| {
                use rayon::prelude::*;
                let c = n / threads;
                out2.par_chunks_mut(c)
                    .zip(src.par_chunks(c))
                    .for_each(|(d, s)| d.copy_from_slice(s));
            });
        }
        res[2].push(8.0 * n as f64 * 5.0 / st.elapsed().as_secs_f64() / 1e9);
        let st = Instant::now();
        for _ in 0..5 {
            expr.evaluate_into(&views, out3.view_mut(), par).unwrap();
        }
        res[3].push(16.0 * n as f64 * 5.0 / st.elapsed().as_secs_f64() / 1e9);
        let st = Instant::now();
        for _ in 0..5 {
            bcast::eltwise_into_with(BinaryOp::Sum, &refs1, &AutoBroadcast::Numpy, &mut out, par)
                .unwrap();
        }
        res[4].push(16.0 * n as f64 * 5.0 / st.elapsed().as_secs_f64() / 1e9);
        let st = Instant::now();
        for _ in 0..5 {
            bcast::eltwise_into_with(
                BinaryOp::Sum,
                &refs_full,
                &AutoBroadcast::Numpy,
                &mut out,
                par,
            )
            .unwrap();
        }
        res[5].push(16.0 * n as f64 * 5.0 / st.elapsed().as_secs_f64() / 1e9);
    }
    let med: Vec<f64> = res
        .iter_mut()
        .map(|v| {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            v[v.len() / 2]
        })
        .collect();
    println!("{threads}t bcast sum4 {:.1} ({:.2} of copy)  plain {:.1} ({:.2})  chain {:.1} ({:.2})  b[1] {:.2}  sum3 {:.2}  copy {:.1}", med[0], med[0] / med[2], med[1], med[1] / med[2], med[3], med[3] / med[2], med[4] / med[2], med[5] / med[2], med[2]);
}
