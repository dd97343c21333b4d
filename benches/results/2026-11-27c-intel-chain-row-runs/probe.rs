use bcast::{AutoBroadcast, Expression, Parallelism, Tensor};
use ndarray::{ArrayD, IxDyn};
use std::time::Instant;

fn t(shape: &[usize], salt: usize) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::F32(
        ArrayD::from_shape_vec(
            IxDyn(shape),
            (0..n)
                .map(|i| (((i * 7 + salt) % 251) as f32 - 125.0) / 64.0)
                .collect(),
        )
        .unwrap(),
    )
}

fn main() {
    let threads: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let par = Parallelism::Pool(&pool);
    let scale: usize = std::env::var("SCALE")
        .ok()
        .map_or(1, |s| s.parse().unwrap());
    let n = 8192 * 1024 / scale;
    let cases: Vec<(&str, &str, Vec<Vec<usize>>)> = vec![
        (
            "add_row1k",
            "x + b",
            vec![vec![8192 / scale, 1024], vec![1024]],
        ),
        (
            "add_row4k",
            "x + b",
            vec![vec![2048 / scale, 4096], vec![4096]],
        ),
        (
            "add_row16k",
            "x + b",
            vec![vec![512 / scale, 16384], vec![16384]],
        ),
        (
            "add_scalar",
            "x + b",
            vec![vec![8192 / scale, 1024], vec![]],
        ),
        (
            "add_col",
            "x + b",
            vec![vec![8192 / scale, 1024], vec![8192 / scale, 1]],
        ),
        (
            "relu_row1k",
            "maximum(x + b, 0)",
            vec![vec![8192 / scale, 1024], vec![1024]],
        ),
        (
            "relu_scalar",
            "maximum(x + b, 0)",
            vec![vec![8192 / scale, 1024], vec![]],
        ),
        (
            "ln",
            "(x - m) * r * g + b",
            vec![
                vec![8192 / scale, 1024],
                vec![8192 / scale, 1],
                vec![8192 / scale, 1],
                vec![1024],
                vec![1024],
            ],
        ),
        (
            "ln_row4k",
            "(x - m) * r * g + b",
            vec![
                vec![2048 / scale, 4096],
                vec![2048 / scale, 1],
                vec![2048 / scale, 1],
                vec![4096],
                vec![4096],
            ],
        ),
    ];
    let only = std::env::var("ONLY").ok();
    let cases: Vec<_> = cases
        .into_iter()
        .filter(|c| only.as_deref().map_or(true, |o| o == c.0))
        .collect();
    let names = ["x", "b", "c", "d", "e"];
    let mut prepared = vec![];
    for (name, text, shapes) in &cases {
        let expr = Expression::parse(text, AutoBroadcast::Numpy).unwrap();
        let inputs: Vec<Tensor> = shapes
            .iter()
            .enumerate()
            .map(|(i, s)| t(s, i * 13))
            .collect();
        let _ = names;
        let out = t(&shapes[0], 99);
        let traffic: usize = 4
            * (n + shapes
                .iter()
                .map(|s| s.iter().product::<usize>())
                .sum::<usize>());
        let _ = out;
        let off: usize = std::env::var("OFF").ok().map_or(0, |s| s.parse().unwrap());
        let mut buf = vec![0f32; n + 64];
        let a = buf.as_ptr().align_offset(64) + off;
        prepared.push((name, expr, inputs, (buf, a), traffic));
    }
    let src = vec![1.0f32; n];
    let mut dst = vec![0.0f32; n];
    let mut res: Vec<Vec<f64>> = vec![vec![]; cases.len() + 2];
    for _round in 0..15 {
        for (k, (_, expr, inputs, (buf, a), traffic)) in prepared.iter_mut().enumerate() {
            let views: Vec<_> = inputs.iter().map(Tensor::view).collect();
            let shape = inputs[0].shape().to_vec();
            let mut out = bcast::ndarray::ArrayViewMutD::from_shape(
                bcast::ndarray::IxDyn(&shape),
                &mut buf[*a..*a + n],
            )
            .unwrap();
            let s = Instant::now();
            for _ in 0..5 * scale {
                expr.evaluate_into(&views, bcast::TensorViewMut::from(out.view_mut()), par)
                    .unwrap();
            }
            res[k].push(*traffic as f64 * 5.0 * scale as f64 / s.elapsed().as_secs_f64() / 1e9);
        }
        let s = Instant::now();
        for _ in 0..5 * scale {
            pool.install(|| {
                use rayon::prelude::*;
                dst.par_chunks_mut(n / threads)
                    .zip(src.par_chunks(n / threads))
                    .for_each(|(d, s)| d.copy_from_slice(s));
            });
        }
        res[cases.len()]
            .push(8.0 * n as f64 * 5.0 * scale as f64 / s.elapsed().as_secs_f64() / 1e9);
        let b: Vec<f32> = (0..1024).map(|i| i as f32).collect();
        let s = Instant::now();
        for _ in 0..5 * scale {
            let (_, _, inputs, (buf, a), _) = &mut prepared[0];
            let Tensor::F32(xa) = &inputs[0] else {
                panic!()
            };
            let xs = xa.as_slice().unwrap();
            let a = *a;
            let nt = std::env::var("NT").is_ok_and(|v| v == "1");
            let z = std::env::var("NT").is_ok_and(|v| v == "2");
            if z {
                #[target_feature(enable = "avx512f")]
                unsafe fn rowz(d: &mut [f32], x: &[f32], b: &[f32]) {
                    use std::arch::x86_64::*;
                    for i in (0..1024).step_by(16) {
                        let v = _mm512_add_ps(
                            _mm512_loadu_ps(x.as_ptr().add(i)),
                            _mm512_loadu_ps(b.as_ptr().add(i)),
                        );
                        _mm512_store_ps(d.as_mut_ptr().add(i), v);
                    }
                }
                for (d, x) in buf[a..a + n]
                    .chunks_exact_mut(1024)
                    .zip(xs.chunks_exact(1024))
                {
                    unsafe { rowz(d, x, &b) };
                }
                continue;
            }
            for (d, x) in buf[a..a + n]
                .chunks_exact_mut(1024)
                .zip(xs.chunks_exact(1024))
            {
                if nt {
                    unsafe {
                        use std::arch::x86_64::*;
                        for i in (0..1024).step_by(4) {
                            let v = _mm_add_ps(
                                _mm_loadu_ps(x.as_ptr().add(i)),
                                _mm_loadu_ps(b.as_ptr().add(i)),
                            );
                            _mm_stream_ps(d.as_mut_ptr().add(i), v);
                        }
                    }
                } else {
                    for ((d, x), b) in d.iter_mut().zip(x).zip(&b) {
                        *d = x + b;
                    }
                }
            }
            unsafe { std::arch::x86_64::_mm_sfence() };
        }
        res[cases.len() + 1]
            .push(8.0 * n as f64 * 5.0 * scale as f64 / s.elapsed().as_secs_f64() / 1e9);
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    };
    let copy = med(&mut res[cases.len()]);
    println!("copy {copy:.2} GB/s (traffic)");
    let plain = med(&mut res[cases.len() + 1]);
    println!(
        "plain loop x+b rows 1k {plain:.2} GB/s {:.3} of copy",
        plain / copy
    );
    for (k, (name, ..)) in prepared.iter().enumerate() {
        let g = med(&mut res[k]);
        println!("{name:12} {g:6.2} GB/s  {:.3} of copy", g / copy);
    }
}
