// Exploration probe (not committed): a fused chain at 1 GiB on one thread beside memcpy and
// a plain streaming loop.
use bcast::{AutoBroadcast, Expression, Parallelism, Tensor};
use ndarray::{ArrayD, IxDyn};
use std::arch::x86_64::*;
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
#[target_feature(enable = "avx512f")]
unsafe fn bn_nt(d: *mut f32, x: *const f32, n: usize, row: usize, s: &[f32], b: &[f32]) {
    let mut r = 0;
    while r * row < n {
        let c = r % s.len();
        let vs = _mm512_set1_ps(s[c]);
        let vb = _mm512_set1_ps(b[c]);
        let mut i = r * row;
        while i < (r + 1) * row {
            let v = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(x.add(i)), vs), vb);
            _mm512_storeu_ps(d.add(i) as *mut f32, v);
            i += 16;
        }
        r += 1;
    }
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let shape = [1344usize, 64, 56, 56]; // 1.05 GiB of f32
    let n: usize = shape.iter().product();
    let ins = [t(&shape, 3), t(&[64, 1, 1], 5), t(&[64, 1, 1], 7)];
    let e = Expression::parse("x * s + b", AutoBroadcast::Numpy).unwrap();
    let v: Vec<_> = ins.iter().map(Tensor::view).collect();
    let mut out = t(&shape, 1);
    let mut plain = vec![0f32; n];
    let sl = |t: &Tensor| match t {
        Tensor::F32(a) => a.as_slice().unwrap().to_vec(),
        _ => panic!(),
    };
    let (x, s, b) = (sl(&ins[0]), sl(&ins[1]), sl(&ins[2]));
    let mut res = vec![vec![]; 3];
    for _ in 0..5 {
        if which != "plain" {
            let st = Instant::now();
            e.evaluate_into(&v, out.view_mut(), Parallelism::Serial)
                .unwrap();
            res[0].push(8.0 * n as f64 / st.elapsed().as_secs_f64() / 1e9);
        }
        let st = Instant::now();
        plain.copy_from_slice(&x);
        res[1].push(8.0 * n as f64 / st.elapsed().as_secs_f64() / 1e9);
        if which != "chain" {
            let st = Instant::now();
            unsafe { bn_nt(plain.as_mut_ptr(), x.as_ptr(), n, 3136, &s, &b) };
            res[2].push(8.0 * n as f64 / st.elapsed().as_secs_f64() / 1e9);
        }
    }
    let med: Vec<f64> = res
        .iter_mut()
        .map(|v| {
            if v.is_empty() {
                return 0.0;
            }
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            v[v.len() / 2]
        })
        .collect();
    println!(
        "chain {:.1} ({:.2})  memcpy {:.1}  plain-cached-stores {:.1} ({:.2})",
        med[0],
        med[0] / med[1],
        med[1],
        med[2],
        med[2] / med[1]
    );
}
