// Exploration probe (not committed): bcast's fused chains beside plain loops, same process.
use bcast::{AutoBroadcast, Expression, Parallelism, Tensor};
use ndarray::{ArrayD, IxDyn};
use std::time::Instant;

fn t(shape: &[usize], k: usize) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::F32(
        ArrayD::from_shape_vec(
            IxDyn(shape),
            (0..n)
                .map(|i| (((i * k) % 251) as f32 - 125.0) / 64.0)
                .collect(),
        )
        .unwrap(),
    )
}
fn sl(t: &Tensor) -> &[f32] {
    match t {
        Tensor::F32(a) => a.as_slice().unwrap(),
        _ => panic!(),
    }
}

#[target_feature(enable = "avx512f")]
unsafe fn ln_rows(d: &mut [f32], x: &[f32], m: &[f32], r: &[f32], g: &[f32], b: &[f32]) {
    let dn = g.len();
    for (k, (d, x)) in d.chunks_exact_mut(dn).zip(x.chunks_exact(dn)).enumerate() {
        let (mm, rr) = (m[k], r[k]);
        for i in 0..dn {
            d[i] = (x[i] - mm) * rr * g[i] + b[i];
        }
    }
}
#[target_feature(enable = "avx512f")]
unsafe fn bn_rows(d: &mut [f32], x: &[f32], s: &[f32], b: &[f32], row: usize, c0: usize) {
    for (k, (d, x)) in d.chunks_exact_mut(row).zip(x.chunks_exact(row)).enumerate() {
        let c = (c0 + k) % s.len();
        let (ss, bb) = (s[c], b[c]);
        for i in 0..row {
            d[i] = x[i] * ss + bb;
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
    let (nn, dn) = (8192usize, 1024usize);
    let ln_in = [
        t(&[nn, dn], 3),
        t(&[nn, 1], 5),
        t(&[nn, 1], 7),
        t(&[dn], 11),
        t(&[dn], 13),
    ];
    let bn_in = [
        t(&[64, 64, 56, 56], 3),
        t(&[64, 1, 1], 5),
        t(&[64, 1, 1], 7),
    ];
    let ln_e = Expression::parse("(x - m) * r * g + b", AutoBroadcast::Numpy).unwrap();
    let bn_e = Expression::parse("x * s + b", AutoBroadcast::Numpy).unwrap();
    let ln_v: Vec<_> = ln_in.iter().map(Tensor::view).collect();
    let bn_v: Vec<_> = bn_in.iter().map(Tensor::view).collect();
    let mut ln_out = t(&[nn, dn], 1);
    let mut bn_out = t(&[64, 64, 56, 56], 1);
    let mut ln_plain = vec![0f32; nn * dn];
    let mut bn_plain = vec![0f32; 64 * 64 * 56 * 56];
    let ln_src = vec![1f32; nn * dn];
    let bn_src = vec![1f32; 64 * 64 * 56 * 56];
    let ln_traffic = 8.0 * (nn * dn) as f64;
    let bn_traffic = 8.0 * (64 * 64 * 56 * 56) as f64;
    let mut res = vec![vec![]; 6];
    let reps = 3;
    let time = |f: &mut dyn FnMut()| {
        let s = Instant::now();
        for _ in 0..reps {
            f();
        }
        s.elapsed().as_secs_f64() / reps as f64
    };
    for _ in 0..21 {
        let lnp = |i: usize| -> &[f32] { sl(&ln_in[i]) };
        let tt = time(&mut || ln_e.evaluate_into(&ln_v, ln_out.view_mut(), par).unwrap());
        res[0].push(ln_traffic / tt / 1e9);
        let tt = time(&mut || {
            pool.install(|| {
                use rayon::prelude::*;
                let rows = nn / threads;
                ln_plain
                    .par_chunks_mut(rows * dn)
                    .zip(lnp(0).par_chunks(rows * dn))
                    .enumerate()
                    .for_each(|(k, (d, x))| unsafe {
                        ln_rows(
                            d,
                            x,
                            &lnp(1)[k * rows..],
                            &lnp(2)[k * rows..],
                            lnp(3),
                            lnp(4),
                        )
                    });
            })
        });
        res[1].push(ln_traffic / tt / 1e9);
        let tt = time(&mut || {
            pool.install(|| {
                use rayon::prelude::*;
                let c = nn * dn / threads;
                ln_plain
                    .par_chunks_mut(c)
                    .zip(ln_src.par_chunks(c))
                    .for_each(|(d, s)| d.copy_from_slice(s));
            })
        });
        res[2].push(ln_traffic / tt / 1e9);
        let tt = time(&mut || bn_e.evaluate_into(&bn_v, bn_out.view_mut(), par).unwrap());
        res[3].push(bn_traffic / tt / 1e9);
        let tt = time(&mut || {
            pool.install(|| {
                use rayon::prelude::*;
                let rows = 64 * 64 / threads;
                bn_plain
                    .par_chunks_mut(rows * 3136)
                    .zip(sl(&bn_in[0]).par_chunks(rows * 3136))
                    .enumerate()
                    .for_each(|(k, (d, x))| unsafe {
                        bn_rows(d, x, sl(&bn_in[1]), sl(&bn_in[2]), 3136, k * rows)
                    });
            })
        });
        res[4].push(bn_traffic / tt / 1e9);
        let tt = time(&mut || {
            pool.install(|| {
                use rayon::prelude::*;
                let c = bn_plain.len() / threads;
                bn_plain
                    .par_chunks_mut(c)
                    .zip(bn_src.par_chunks(c))
                    .for_each(|(d, s)| d.copy_from_slice(s));
            })
        });
        res[5].push(bn_traffic / tt / 1e9);
    }
    let med: Vec<f64> = res
        .iter_mut()
        .map(|v| {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            v[v.len() / 2]
        })
        .collect();
    println!("{threads}t ln: bcast {:.2} plain {:.2} (of copy {:.1})   bn: bcast {:.2} plain {:.2} (of copy {:.1})",
        med[0] / med[2], med[1] / med[2], med[2], med[3] / med[5], med[4] / med[5], med[5]);
}
