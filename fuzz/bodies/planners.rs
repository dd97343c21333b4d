//! Arbitrary shapes, modes and axes through the planners and the executor, checked against
//! the naive SONNX reference of the test suite.

use bcast::{broadcast_with, Mode, Parallelism};
use ndarray::{ArrayD, IxDyn};

#[path = "../../tests/common/mod.rs"]
mod reference;

/// Reads a dim: mostly small, sometimes 0, sometimes huge.
fn dim(b: u8) -> usize {
    match b {
        0..=199 => (b % 6) as usize,
        200..=239 => (b as usize - 195) * 3,
        240..=249 => 1usize << (b - 200),
        _ => usize::MAX - (b as usize - 250),
    }
}

pub fn run(bytes: &[u8]) {
    let mut it = bytes.iter().copied();
    let mut next = || it.next().unwrap_or(0);
    // Ranks up to 11: plans keep their lists inline up to rank 8 and on the heap beyond.
    let rd = (next() % 12) as usize;
    let rt = (next() % 12) as usize;
    let data: Vec<usize> = (0..rd).map(|_| dim(next())).collect();
    let target: Vec<usize> = (0..rt).map(|_| dim(next())).collect();
    let na = (next() % 8) as usize;
    let axes: Vec<usize> = (0..na)
        .map(|_| match next() {
            255 => usize::MAX,
            b => (b % 13) as usize,
        })
        .collect();
    let axis = i64::from(next() as i8);
    let mode = match next() % 5 {
        0 => Mode::Numpy,
        1 => Mode::Bidirectional,
        2 => Mode::Explicit { axes_mapping: axes },
        3 => Mode::Pdpd { axis },
        _ => Mode::Axes {
            broadcast_axes: axes,
        },
    };
    let got = bcast::output_shape(&data, &target, &mode);
    let want = reference::aligned(&data, &target, &mode);
    match (&got, &want) {
        (Ok(g), Some((_, w))) => assert_eq!(g, w),
        (Err(_), None) => return,
        // The reference has no overflow rule: a shape too large to be an array is refused
        // by bcast and accepted by the rule.
        (Err(bcast::BroadcastError::ShapeOverflow { .. }), Some(_)) => return,
        _ => panic!("{data:?} -> {target:?} under {mode}: bcast {got:?}, rule {want:?}"),
    }
    let (aligned, out_shape) = want.expect("matched above");
    let n_out = bcast::checked_len(&out_shape).unwrap_or(usize::MAX);
    let n_in = bcast::checked_len(&data).unwrap_or(usize::MAX);
    // Below 2^16 source elements, so every one gets its own u16 value.
    if n_out > 1 << 16 || n_in >= 1 << 16 {
        return;
    }
    let src: Vec<u16> = (0..n_in as u16).collect();
    let x = ArrayD::from_shape_vec(IxDyn(&data), src.clone()).expect("checked length");
    let par = if next().is_multiple_of(2) {
        Parallelism::Serial
    } else {
        Parallelism::Auto
    };
    let out = broadcast_with(x.view(), &target, &mode, par).expect("planned above");
    let values: Vec<u16> = out.iter().copied().collect();
    assert_eq!(values, reference::expand(&src, &aligned, &out_shape));
}
