// Probe: can a kernel get memcpy's no-RFO stores by computing into an L1 scratch and moving
// it out with `rep movsb`? x + b (b a 1024-row) over N f32, 1 and 2 threads.
use std::arch::x86_64::*;
use std::time::Instant;

#[target_feature(enable = "avx512f")]
unsafe fn add_rows(d: *mut f32, x: *const f32, b: *const f32, n: usize, row: usize) {
    add_rows_at(d, x, b, n, row, 0)
}
#[target_feature(enable = "avx512f")]
unsafe fn add_rows_at(d: *mut f32, x: *const f32, b: *const f32, n: usize, row: usize, phase: usize) {
    let mut i = 0;
    while i < n {
        let j = (phase + i) % row;
        let v = _mm512_add_ps(_mm512_loadu_ps(x.add(i)), _mm512_loadu_ps(b.add(j)));
        _mm512_storeu_ps(d.add(i), v);
        i += 16;
    }
}
#[target_feature(enable = "avx512f")]
unsafe fn add_rows_nt(d: *mut f32, x: *const f32, b: *const f32, n: usize, row: usize) {
    let mut i = 0;
    while i < n {
        let j = i % row;
        let v = _mm512_add_ps(_mm512_loadu_ps(x.add(i)), _mm512_loadu_ps(b.add(j)));
        _mm512_stream_ps(d.add(i), v);
        i += 16;
    }
    _mm_sfence();
}
unsafe fn rep_movsb(d: *mut u8, s: *const u8, n: usize) {
    std::arch::asm!("rep movsb", inout("rcx") n => _, inout("rdi") d => _, inout("rsi") s => _, options(nostack, preserves_flags));
}
#[target_feature(enable = "avx512f")]
unsafe fn add_scratch(d: *mut f32, x: *const f32, b: *const f32, n: usize, row: usize, blk: usize, mode: u8) {
    let mut scratch = [0f32; 8192];
    let mut i = 0;
    while i < n {
        let m = blk.min(n - i);
        add_rows_at(scratch.as_mut_ptr(), x.add(i), b, m, row, i % row);
        match mode {
            0 => rep_movsb(d.add(i) as *mut u8, scratch.as_ptr() as *const u8, m * 4),
            _ => std::ptr::copy_nonoverlapping(scratch.as_ptr(), d.add(i), m),
        }
        i += m;
    }
}
#[target_feature(enable = "avx512f")]
unsafe fn add_stos_then(d: *mut f32, x: *const f32, b: *const f32, n: usize, row: usize, blk: usize) {
    // zero each block with rep stosb (no-RFO) then compute into it
    let mut i = 0;
    while i < n {
        let m = blk.min(n - i);
        std::arch::asm!("rep stosb", inout("rcx") m*4 => _, inout("rdi") d.add(i) => _, in("al") 0u8, options(nostack, preserves_flags));
        add_rows_at(d.add(i), x.add(i), b, m, row, i % row);
        i += m;
    }
}

#[target_feature(enable = "avx512f")]
unsafe fn bn(d: *mut f32, x: *const f32, s: &[f32], b: &[f32], n: usize, row: usize, nt: bool) {
    // rows of `row`, channel = (row index) % 64
    let rows = n / row;
    let r0 = 0usize;
    for r in 0..rows {
        let c = (r0 + r) % 64;
        let vs = _mm512_set1_ps(s[c]);
        let vb = _mm512_set1_ps(b[c]);
        let base = r * row;
        let mut i = 0;
        while i + 16 <= row {
            let v = _mm512_fmadd_ps(_mm512_loadu_ps(x.add(base + i)), vs, vb);
            if nt { _mm512_stream_ps(d.add(base + i), v); } else { _mm512_storeu_ps(d.add(base + i), v); }
            i += 16;
        }
    }
    if nt { _mm_sfence(); }
}
#[target_feature(enable = "avx512f")]
unsafe fn bn_mul_add(d: *mut f32, x: *const f32, s: &[f32], b: &[f32], n: usize, row: usize) {
    let rows = n / row;
    for r in 0..rows {
        let c = r % 64;
        let vs = _mm512_set1_ps(s[c]);
        let vb = _mm512_set1_ps(b[c]);
        let base = r * row;
        let mut i = 0;
        while i + 64 <= row {
            for k in 0..4 {
                let v = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(x.add(base + i + 16 * k)), vs), vb);
                _mm512_storeu_ps(d.add(base + i + 16 * k), v);
            }
            i += 64;
        }
        while i + 16 <= row {
            let v = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(x.add(base + i)), vs), vb);
            _mm512_storeu_ps(d.add(base + i), v);
            i += 16;
        }
    }
}

#[target_feature(enable = "avx512f")]
unsafe fn sum4(d: *mut f32, x: *const f32, y: *const f32, z: *const f32, b: *const f32, n: usize, row: usize, nt: bool) {
    let mut i = 0;
    while i < n {
        let j = i % row;
        let v = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_loadu_ps(x.add(i)), _mm512_loadu_ps(y.add(i))), _mm512_loadu_ps(z.add(i))), _mm512_loadu_ps(b.add(j)));
        if nt { _mm512_stream_ps(d.add(i), v); } else { _mm512_storeu_ps(d.add(i), v); }
        i += 16;
    }
    if nt { _mm_sfence(); }
}

struct P(*mut f32);
unsafe impl Send for P {}
unsafe impl Sync for P {}

fn main() {
    let mib: usize = std::env::var("MIB").ok().map_or(32, |s| s.parse().unwrap());
    let n = 64 * 64 * 3136; let _ = mib;
    let row = 1024;
    let x: Vec<f32> = (0..n).map(|i| (i % 251) as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
    let z: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..row).map(|i| i as f32).collect();
    let sv: Vec<f32> = (0..64).map(|i| 1.0 + i as f32 / 64.0).collect();
    let bv: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let mut dv = vec![0f32; n + 16];
    let off = dv.as_ptr().align_offset(64);
    let d = &mut dv[off..off + n];
    let names = ["memcpy", "plain", "nt", "scr4k_movsb", "scr16k_movsb", "scr32k_movsb", "scr4k_memcpy", "scr16k_memcpy", "stos4k_then", "stos16k_then", "bn3136", "bn3136_nt", "bn3136_x4", "sum4", "sum4_nt", "copy3"];
    for threads in [1usize, 2] {
        let mut res = vec![vec![]; names.len()];
        for _round in 0..11 {
            for (k, _) in names.iter().enumerate() {
                let s = Instant::now();
                let reps = 5;
                for _ in 0..reps {
                    let per = n / threads;
                    let dp = P(d.as_mut_ptr());
                    std::thread::scope(|sc| {
                        for t in 0..threads {
                            let (x, b, dp, sv, bv, y, z) = (&x, &b, &dp, &sv, &bv, &y, &z);
                            sc.spawn(move || unsafe {
                                let dd = dp.0.add(t * per);
                                let xx = x.as_ptr().add(t * per);
                                let bb = b.as_ptr();
                                match k {
                                    0 => std::ptr::copy_nonoverlapping(xx, dd, per),
                                    1 => add_rows(dd, xx, bb, per, row),
                                    2 => add_rows_nt(dd, xx, bb, per, row),
                                    3 => add_scratch(dd, xx, bb, per, row, 1024, 0),
                                    4 => add_scratch(dd, xx, bb, per, row, 4096, 0),
                                    5 => add_scratch(dd, xx, bb, per, row, 8192, 0),
                                    6 => add_scratch(dd, xx, bb, per, row, 1024, 1),
                                    7 => add_scratch(dd, xx, bb, per, row, 4096, 1),
                                    8 => add_stos_then(dd, xx, bb, per, row, 1024),
                                    9 => add_stos_then(dd, xx, bb, per, row, 4096),
                                    10 => bn(dd, xx, &sv, &bv, per, 3136, false),
                                    11 => bn(dd, xx, &sv, &bv, per, 3136, true),
                                    12 => bn_mul_add(dd, xx, &sv, &bv, per, 3136),
                                    13 => sum4(dd, xx, y.as_ptr().add(t * per), z.as_ptr().add(t * per), bb, per, row, false),
                                    14 => sum4(dd, xx, y.as_ptr().add(t * per), z.as_ptr().add(t * per), bb, per, row, true),
                                    _ => { std::ptr::copy_nonoverlapping(xx, dd, per); std::ptr::copy_nonoverlapping(y.as_ptr().add(t * per), dd, per); std::ptr::copy_nonoverlapping(z.as_ptr().add(t * per), dd, per); }
                                }
                            });
                        }
                    });
                }
                res[k].push(8.0 * n as f64 * reps as f64 / s.elapsed().as_secs_f64() / 1e9);
            }
        }
        let mut med: Vec<f64> = res.iter_mut().map(|v| { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }).collect();
        let c = med[0];
        print!("{mib} MiB, {threads} thread(s):");
        for (k, nm) in names.iter().enumerate() { print!(" {nm} {:.1} ({:.2})", med[k], med[k] / c); }
        println!();
        med.clear();
    }
    assert!(d[n - 1] >= 0.0);
}
