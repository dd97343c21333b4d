// Build: rustc --edition 2021 -O --crate-type=lib --emit=asm vectorise_probe.rs; w0 (loads and stores
// interleaved per element, no overlap proof) compiles to scalar vaddss/vmovss, w1 (each line read
// into an array first) to vaddps/vmovups.
use std::mem::MaybeUninit;
#[inline(always)]
fn hint(p: *const f32, ahead: usize) { if ahead == 0 { return; } unsafe { std::arch::x86_64::_mm_prefetch::<{std::arch::x86_64::_MM_HINT_T0}>(p.cast::<i8>().wrapping_add(ahead)) } }
#[inline(always)]
fn lines<const L: usize>(x: f32, y: &[f32], out: &mut [MaybeUninit<f32>], ahead: usize, f: impl Fn(f32,f32)->f32, v: u8) {
    let n = out.len(); let y = &y[..n];
    let full = n - n % L;
    let (body, tail) = out.split_at_mut(full);
    for (o, y) in body.chunks_exact_mut(L).zip(y.chunks_exact(L)) {
        hint(y.as_ptr(), ahead);
        if v == 1 {
            let y: [f32; L] = *y.first_chunk::<L>().expect("line");
            for (o, &y) in o.iter_mut().zip(&y) { o.write(f(x, y)); }
        } else {
            for (o, &y) in o.iter_mut().zip(y) { o.write(f(x, y)); }
        }
    }
    for (o, &y) in tail.iter_mut().zip(&y[full..]) { o.write(f(x, y)); }
}
// out and y both from raw pointers: no alias info at all.
#[no_mangle]
#[target_feature(enable = "avx2")]
pub unsafe fn w0(x: f32, yp: *const f32, op: *mut f32, n: usize, ahead: usize) {
    let y = std::slice::from_raw_parts(yp, n); let out = std::slice::from_raw_parts_mut(op.cast::<MaybeUninit<f32>>(), n);
    lines::<16>(x, y, out, ahead, |a,b| a+b, 0) }
#[no_mangle]
#[target_feature(enable = "avx2")]
pub unsafe fn w1(x: f32, yp: *const f32, op: *mut f32, n: usize, ahead: usize) {
    let y = std::slice::from_raw_parts(yp, n); let out = std::slice::from_raw_parts_mut(op.cast::<MaybeUninit<f32>>(), n);
    lines::<16>(x, y, out, ahead, |a,b| a+b, 1) }
