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
        prepared.push((name, expr, inputs, out, traffic));
    }
    let src = vec![1.0f32; n];
    let mut dst = vec![0.0f32; n];
    let mut res: Vec<Vec<f64>> = vec![vec![]; cases.len() + 1];
    for _round in 0..15 {
        for (k, (_, expr, inputs, out, traffic)) in prepared.iter_mut().enumerate() {
            let views: Vec<_> = inputs.iter().map(Tensor::view).collect();
            let s = Instant::now();
            for _ in 0..5 * scale {
                expr.evaluate_into(&views, out.view_mut(), par).unwrap();
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
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    };
    let copy = med(&mut res[cases.len()]);
    println!("copy {copy:.2} GB/s (traffic)");
    for (k, (name, ..)) in prepared.iter().enumerate() {
        let g = med(&mut res[k]);
        println!("{name:12} {g:6.2} GB/s  {:.3} of copy", g / copy);
    }
}
