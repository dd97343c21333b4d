// Probe: which part of sum4's kernel shape costs: vector width, per-row calls, hints.
use std::arch::x86_64::*;
use std::time::Instant;

#[target_feature(enable = "avx512f")]
unsafe fn one_loop512(d: *mut f32, s: [*const f32; 4], n: usize, row: usize, pf: usize) {
    let mut i = 0;
    while i < n {
        if pf > 0 && i % 16 == 0 {
            for k in 0..3 { _mm_prefetch::<_MM_HINT_T0>(s[k].add(i + pf) as *const i8); }
        }
        let j = i % row;
        let v = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_loadu_ps(s[0].add(i)), _mm512_loadu_ps(s[1].add(i))), _mm512_loadu_ps(s[2].add(i))), _mm512_loadu_ps(s[3].add(j)));
        _mm512_storeu_ps(d.add(i), v);
        i += 16;
    }
}
#[inline(never)]
unsafe fn row_sse(d: *mut f32, s: [*const f32; 4], m: usize, pf: usize) {
    let mut i = 0;
    while i < m {
        if pf > 0 && i % 16 == 0 {
            for k in 0..3 { _mm_prefetch::<_MM_HINT_T0>(s[k].add(i + pf) as *const i8); }
        }
        let v = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_loadu_ps(s[0].add(i)), _mm_loadu_ps(s[1].add(i))), _mm_loadu_ps(s[2].add(i))), _mm_loadu_ps(s[3].add(i)));
        _mm_storeu_ps(d.add(i), v);
        i += 4;
    }
}
#[inline(never)]
#[target_feature(enable = "avx512f")]
unsafe fn row_512(d: *mut f32, s: [*const f32; 4], m: usize, pf: usize) {
    let mut i = 0;
    while i < m {
        if pf > 0 {
            for k in 0..3 { _mm_prefetch::<_MM_HINT_T0>(s[k].add(i + pf) as *const i8); }
        }
        let v = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_loadu_ps(s[0].add(i)), _mm512_loadu_ps(s[1].add(i))), _mm512_loadu_ps(s[2].add(i))), _mm512_loadu_ps(s[3].add(i)));
        _mm512_storeu_ps(d.add(i), v);
        i += 16;
    }
}
unsafe fn per_row(d: *mut f32, s: [*const f32; 4], n: usize, row: usize, pf: usize, wide: bool) {
    let mut i = 0;
    while i < n {
        let ss = [s[0].add(i), s[1].add(i), s[2].add(i), s[3]];
        if wide { row_512(d.add(i), ss, row, pf) } else { row_sse(d.add(i), ss, row, pf) }
        i += row;
    }
}

struct P(*mut f32);
unsafe impl Send for P {}
unsafe impl Sync for P {}

fn main() {
    let n = 16 * 512 * 512;
    let row = 512;
    let mk = |m: usize, k: usize| -> Vec<f32> { (0..m).map(|i| ((i * k) % 251) as f32).collect() };
    let (x, y, z, b) = (mk(n, 3), mk(n, 5), mk(n, 7), mk(row, 11));
    let mut d = vec![0f32; n];
    let mut c = vec![0f32; n];
    let names = ["copy", "one512", "one512_pf", "row512", "row512_pf", "rowsse", "rowsse_pf"];
    for threads in [1usize, 2] {
        let mut res = vec![vec![]; names.len()];
        for _round in 0..15 {
            for (k, _) in names.iter().enumerate() {
                let reps = 10;
                let s = Instant::now();
                for _ in 0..reps {
                    let per = n / threads;
                    let dp = P(d.as_mut_ptr());
                    let cp = P(c.as_mut_ptr());
                    std::thread::scope(|sc| {
                        for t in 0..threads {
                            let (x, y, z, b, dp, cp) = (&x, &y, &z, &b, &dp, &cp);
                            sc.spawn(move || unsafe {
                                let o = t * per;
                                let dd = dp.0.add(o);
                                let s = [x.as_ptr().add(o), y.as_ptr().add(o), z.as_ptr().add(o), b.as_ptr()];
                                match k {
                                    0 => std::ptr::copy_nonoverlapping(x.as_ptr().add(o), cp.0.add(o), per),
                                    1 => one_loop512(dd, s, per, row, 0),
                                    2 => one_loop512(dd, s, per, row, 256),
                                    3 => per_row(dd, s, per, row, 0, true),
                                    4 => per_row(dd, s, per, row, 256, true),
                                    5 => per_row(dd, s, per, row, 0, false),
                                    _ => per_row(dd, s, per, row, 256, false),
                                }
                            });
                        }
                    });
                }
                let bytes = if k == 0 { 8.0 } else { 16.0 } * n as f64;
                res[k].push(bytes * reps as f64 / s.elapsed().as_secs_f64() / 1e9);
            }
        }
        let med: Vec<f64> = res.iter_mut().map(|v| { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }).collect();
        print!("{threads}t:");
        for (k, nm) in names.iter().enumerate() { print!(" {nm} {:.1} ({:.2})", med[k], med[k] / med[0]); }
        println!();
    }
    assert!(d[n - 1] >= 0.0 && c[1] >= 0.0);
}
