// Probe: one thread's rate at DRAM sizes: memcpy against x*s+b with streaming stores,
// prefetch distances, and 4 interleaved streams (what glibc's large memcpy does).
use std::arch::x86_64::*;
use std::time::Instant;

#[target_feature(enable = "avx512f")]
unsafe fn bn_nt(d: *mut f32, x: *const f32, n: usize, pf: usize) {
    let vs = _mm512_set1_ps(1.5);
    let vb = _mm512_set1_ps(0.5);
    let mut i = 0;
    while i < n {
        if pf > 0 { _mm_prefetch::<_MM_HINT_T0>((x.add(i) as *const i8).add(pf)); }
        let v = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(x.add(i)), vs), vb);
        _mm512_stream_ps(d.add(i), v);
        i += 16;
    }
    _mm_sfence();
}
#[target_feature(enable = "avx512f")]
unsafe fn bn_nt4(d: *mut f32, x: *const f32, n: usize, pf: usize, seg: usize) {
    // 4 segments of `seg` floats at a time, a line from each in turn
    let vs = _mm512_set1_ps(1.5);
    let vb = _mm512_set1_ps(0.5);
    let mut base = 0;
    while base + 4 * seg <= n {
        let mut i = 0;
        while i < seg {
            for k in 0..4 {
                let o = base + k * seg + i;
                if pf > 0 { _mm_prefetch::<_MM_HINT_T0>((x.add(o) as *const i8).add(pf)); }
                let v = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(x.add(o)), vs), vb);
                _mm512_stream_ps(d.add(o), v);
            }
            i += 16;
        }
        base += 4 * seg;
    }
    _mm_sfence();
}

#[target_feature(enable = "avx512f")]
unsafe fn bn_nt16(d: *mut f32, x: *const f32, n: usize, pf: usize) {
    let vs = _mm_set1_ps(1.5);
    let vb = _mm_set1_ps(0.5);
    let mut i = 0;
    while i < n {
        if pf > 0 { _mm_prefetch::<_MM_HINT_T0>((x.add(i) as *const i8).add(pf)); }
        for k in 0..4 {
            let v = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(x.add(i + 4 * k)), vs), vb);
            _mm_stream_ps(d.add(i + 4 * k), v);
        }
        i += 16;
    }
    _mm_sfence();
}
#[target_feature(enable = "avx512f")]
unsafe fn bn_nt16_grouped(d: *mut f32, x: *const f32, n: usize, pf: usize) {
    // 32 lanes a group like the chain: 8 loads, 8 computes, then 8 stores
    let vs = _mm_set1_ps(1.5);
    let vb = _mm_set1_ps(0.5);
    let mut i = 0;
    while i < n {
        if pf > 0 { _mm_prefetch::<_MM_HINT_T0>((x.add(i) as *const i8).add(pf)); _mm_prefetch::<_MM_HINT_T0>((x.add(i + 16) as *const i8).add(pf)); }
        let mut acc = [_mm_setzero_ps(); 8];
        for k in 0..8 { acc[k] = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(x.add(i + 4 * k)), vs), vb); }
        for k in 0..8 { _mm_stream_ps(d.add(i + 4 * k), acc[k]); }
        i += 32;
    }
    _mm_sfence();
}

fn main() {
    let n: usize = 256 << 20; // 1 GiB of f32
    let mut xv = vec![0f32; n + 16];
    let xo = xv.as_ptr().align_offset(64);
    for (i, v) in xv.iter_mut().enumerate() { *v = (i % 251) as f32; }
    let mut dv = vec![0f32; n + 16];
    let doff = dv.as_ptr().align_offset(64);
    let x = &xv[xo..xo + n];
    let d = &mut dv[doff..doff + n];
    let names = ["memcpy", "nt", "nt_pf1k", "nt_pf4k", "nt_pf8k", "nt4x_4k", "nt4x_4k_pf1k", "nt4x_4k_pf4k", "nt16", "nt16_pf1k", "nt16g_pf1k"];
    let mut res = vec![vec![]; names.len()];
    for _ in 0..5 {
        for k in 0..names.len() {
            let s = Instant::now();
            unsafe {
                match k {
                    0 => std::ptr::copy_nonoverlapping(x.as_ptr(), d.as_mut_ptr(), n),
                    1 => bn_nt(d.as_mut_ptr(), x.as_ptr(), n, 0),
                    2 => bn_nt(d.as_mut_ptr(), x.as_ptr(), n, 1024),
                    3 => bn_nt(d.as_mut_ptr(), x.as_ptr(), n, 4096),
                    4 => bn_nt(d.as_mut_ptr(), x.as_ptr(), n, 8192),
                    5 => bn_nt4(d.as_mut_ptr(), x.as_ptr(), n, 0, 1024),
                    6 => bn_nt4(d.as_mut_ptr(), x.as_ptr(), n, 1024, 1024),
                    7 => bn_nt4(d.as_mut_ptr(), x.as_ptr(), n, 4096, 1024),
                    8 => bn_nt16(d.as_mut_ptr(), x.as_ptr(), n, 0),
                    9 => bn_nt16(d.as_mut_ptr(), x.as_ptr(), n, 1024),
                    _ => bn_nt16_grouped(d.as_mut_ptr(), x.as_ptr(), n, 1024),
                }
            }
            res[k].push(8.0 * n as f64 / s.elapsed().as_secs_f64() / 1e9);
        }
    }
    let med: Vec<f64> = res.iter_mut().map(|v| { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }).collect();
    for (k, nm) in names.iter().enumerate() { print!("{nm} {:.1} ({:.2})  ", med[k], med[k] / med[0]); }
    println!();
    assert!(d[n - 1] >= 0.0);
}
