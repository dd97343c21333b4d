//! Property tests: every mode, ranks 0..6, dims 0..5, every element size, contiguous,
//! transposed and negative-stride inputs, against the naive SONNX reference in
//! `common/mod.rs`; random invalid and huge specs must error, never panic.

mod common;

use bcast::{
    broadcast, broadcast_all, broadcast_into, broadcast_with, output_shape, BroadcastError,
    Element, Mode, Parallelism,
};
use half::{bf16, f16};
use ndarray::{ArrayD, ArrayViewD, IxDyn, ShapeBuilder, Slice};
use proptest::prelude::*;

/// A small deterministic generator so one proptest seed drives many choices.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A spec that is valid by construction, then broken at random about a third of the time.
fn derive_spec(target: Vec<usize>, seed: u64) -> (Vec<usize>, Vec<usize>, Mode) {
    let mut r = Rng(seed);
    let rt = target.len();
    let stretch = |r: &mut Rng, d: usize| if r.chance(35) { 1 } else { d };
    let (mut data, mut mode) = match r.below(5) {
        0 => {
            let rd = r.below(rt as u64 + 1) as usize;
            let data = target[rt - rd..]
                .iter()
                .map(|&d| stretch(&mut r, d))
                .collect();
            (data, Mode::Numpy)
        }
        1 => {
            // Bidirectional: either side may hold the 1s, and either rank may be larger.
            let rd = r.below(rt as u64 + 3) as usize;
            let mut data: Vec<usize> = (0..rd).map(|_| r.below(5) as usize).collect();
            for k in 0..rd.min(rt) {
                data[rd - 1 - k] = if r.chance(30) { 1 } else { target[rt - 1 - k] };
            }
            (data, Mode::Bidirectional)
        }
        2 => {
            let axes: Vec<usize> = (0..rt).filter(|_| r.chance(50)).collect();
            let data = axes.iter().map(|&a| stretch(&mut r, target[a])).collect();
            (data, Mode::Explicit { axes_mapping: axes })
        }
        3 => {
            let start = r.below(rt as u64 + 1) as usize;
            let len = r.below((rt - start) as u64 + 1) as usize;
            let mut data: Vec<usize> = target[start..start + len]
                .iter()
                .map(|&d| stretch(&mut r, d))
                .collect();
            let trailing = r.below(3) as usize;
            data.extend(std::iter::repeat_n(1, trailing));
            let axis = if start + data.len() == rt && r.chance(50) {
                -1
            } else {
                start as i64
            };
            (data, Mode::Pdpd { axis })
        }
        _ => {
            let mut axes: Vec<usize> = (0..rt).filter(|_| r.chance(40)).collect();
            let data = (0..rt)
                .filter(|k| !axes.contains(k))
                .map(|k| target[k])
                .collect();
            // The axes are a set: any order is valid.
            if r.chance(30) {
                axes.reverse();
            }
            (
                data,
                Mode::Axes {
                    broadcast_axes: axes,
                },
            )
        }
    };
    if r.chance(35) {
        match r.below(4) {
            0 if !data.is_empty() => {
                let k = r.below(data.len() as u64) as usize;
                data[k] = r.below(6) as usize;
            }
            1 => data.insert(0, r.below(4) as usize),
            2 => {
                mode = match mode {
                    Mode::Explicit { mut axes_mapping } => {
                        match axes_mapping.len() {
                            0 => axes_mapping.push(r.below(rt as u64 + 2) as usize),
                            n => {
                                axes_mapping[r.below(n as u64) as usize] =
                                    r.below(rt as u64 + 2) as usize
                            }
                        }
                        Mode::Explicit { axes_mapping }
                    }
                    Mode::Pdpd { .. } => Mode::Pdpd {
                        axis: r.below(rt as u64 + 3) as i64 - 3,
                    },
                    Mode::Axes { mut broadcast_axes } => {
                        broadcast_axes.push(r.below(rt as u64 + 2) as usize);
                        Mode::Axes { broadcast_axes }
                    }
                    m => m,
                }
            }
            _ => {
                data.pop();
            }
        }
    }
    (data, target, mode)
}

fn spec() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Mode)> {
    (proptest::collection::vec(0usize..=5, 0..=6), any::<u64>())
        .prop_map(|(target, seed)| derive_spec(target, seed))
}

/// The three layouts of the same logical array: row-major, transposed storage, and
/// negative strides.
fn layouts<T: Clone>(shape: &[usize], values: &[T]) -> Vec<ArrayD<T>> {
    let a = ArrayD::from_shape_vec(IxDyn(shape), values.to_vec()).unwrap();
    let f = {
        let mut f = ArrayD::from_shape_vec(IxDyn(shape).f(), values.to_vec()).unwrap();
        f.assign(&a);
        f
    };
    let reversed = {
        let mut r = a.clone();
        r.slice_each_axis_inplace(|_| Slice::new(0, None, -1));
        let mut owned = r.to_owned();
        owned.slice_each_axis_inplace(|_| Slice::new(0, None, -1));
        owned
    };
    vec![a, f, reversed]
}

fn check_values<T: Element + std::fmt::Debug>(
    data: &[usize],
    target: &[usize],
    mode: &Mode,
    make: impl Fn(usize) -> T,
) -> Result<(), TestCaseError> {
    let (al, out_shape) = common::aligned(data, target, mode).expect("valid spec");
    let n: usize = data.iter().product();
    let values: Vec<T> = (0..n).map(&make).collect();
    let want = common::expand(&values, &al, &out_shape);
    for input in layouts(data, &values) {
        for par in [Parallelism::Serial, Parallelism::Auto] {
            let got = broadcast_with(input.view(), target, mode, par)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(got.shape(), &out_shape[..]);
            let got: Vec<T> = got.iter().cloned().collect();
            prop_assert!(
                same_bits(&got, &want),
                "{:?} -> {:?} under {}: {:?} != {:?}",
                data,
                target,
                mode,
                got,
                want
            );
        }
    }
    Ok(())
}

/// Equality that treats floats by bits (NaN payloads, -0.0).
fn same_bits<T: Element + std::fmt::Debug>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && format!("{a:?}") == format!("{b:?}") && bits(a) == bits(b)
}

fn bits<T: Element>(v: &[T]) -> Vec<u64> {
    use std::any::Any;
    v.iter()
        .map(|x| {
            let x = x as &dyn Any;
            if let Some(f) = x.downcast_ref::<f32>() {
                f.to_bits() as u64
            } else if let Some(f) = x.downcast_ref::<f64>() {
                f.to_bits()
            } else if let Some(f) = x.downcast_ref::<f16>() {
                f.to_bits() as u64
            } else if let Some(f) = x.downcast_ref::<bf16>() {
                f.to_bits() as u64
            } else {
                0
            }
        })
        .collect()
}

fn mix(i: usize) -> u64 {
    (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x7ff8_0000_0000_0001
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn planner_accepts_exactly_what_the_rule_accepts((data, target, mode) in spec()) {
        let got = output_shape(&data, &target, &mode);
        let want = common::aligned(&data, &target, &mode).map(|(_, out)| out);
        match (&got, &want) {
            (Ok(g), Some(w)) => prop_assert_eq!(g, w),
            (Err(_), None) => {}
            _ => prop_assert!(false, "{:?} -> {:?} under {}: bcast {:?}, rule {:?}", data, target, mode, got, want),
        }
    }

    #[test]
    fn values_match_the_sonnx_index_relation_for_every_element_size((data, target, mode) in spec(), kind in 0usize..10) {
        prop_assume!(common::aligned(&data, &target, &mode).is_some());
        match kind {
            0 => check_values(&data, &target, &mode, |i| i % 3 == 1)?,
            1 => check_values(&data, &target, &mode, |i| (i as i8).wrapping_mul(37))?,
            2 => check_values(&data, &target, &mode, |i| (i as u16).wrapping_mul(4099))?,
            3 => check_values(&data, &target, &mode, |i| f16::from_bits(mix(i) as u16))?,
            4 => check_values(&data, &target, &mode, |i| bf16::from_bits((mix(i) >> 16) as u16))?,
            5 => check_values(&data, &target, &mode, |i| f32::from_bits(mix(i) as u32))?,
            6 => check_values(&data, &target, &mode, |i| i64::MIN + i as i64)?,
            7 => check_values(&data, &target, &mode, |i| f64::from_bits(mix(i)))?,
            8 => check_values(&data, &target, &mode, |i| u64::MAX - i as u64)?,
            _ => check_values(&data, &target, &mode, |i| format!("s{i}"))?,
        }
    }

    #[test]
    fn broadcast_into_a_fortran_order_output_matches_broadcast((data, target, mode) in spec()) {
        prop_assume!(common::aligned(&data, &target, &mode).is_some());
        let n: usize = data.iter().product();
        let x = ArrayD::from_shape_vec(IxDyn(&data), (0..n as u32).collect()).unwrap();
        let want = broadcast(x.view(), &target, &mode).unwrap();
        let mut out = ArrayD::<u32>::zeros(IxDyn(want.shape()).f());
        broadcast_into(x.view(), &target, &mode, out.view_mut()).unwrap();
        prop_assert_eq!(out, want);
    }

    #[test]
    fn nary_matches_the_common_shape_and_the_index_relation(
        shapes in proptest::collection::vec(proptest::collection::vec(0usize..=3, 0..=4), 1..=4)
    ) {
        let arrays: Vec<ArrayD<i32>> = shapes.iter().map(|s| {
            let n: usize = s.iter().product();
            ArrayD::from_shape_vec(IxDyn(s), (0..n as i32).collect()).unwrap()
        }).collect();
        let views: Vec<ArrayViewD<i32>> = arrays.iter().map(|a| a.view()).collect();
        let got = broadcast_all(&views);
        match common::common_shape(&shapes) {
            None => prop_assert!(got.is_err()),
            Some(out) => {
                let got = got.unwrap();
                for (s, (g, a)) in shapes.iter().zip(got.iter().zip(&arrays)) {
                    let mut al = vec![1; out.len() - s.len()];
                    al.extend_from_slice(s);
                    let want = common::expand(a.as_slice().unwrap(), &al, &out);
                    prop_assert_eq!(g.shape(), &out[..]);
                    prop_assert_eq!(g.iter().copied().collect::<Vec<_>>(), want);
                }
            }
        }
    }

    #[test]
    fn huge_and_random_specs_never_panic(
        data in proptest::collection::vec(prop_oneof![0usize..4, Just(usize::MAX), Just(1usize << 33)], 0..8),
        target in proptest::collection::vec(prop_oneof![0usize..4, Just(usize::MAX), Just(1usize << 33)], 0..8),
        axes in proptest::collection::vec(prop_oneof![0usize..8, Just(usize::MAX)], 0..8),
        axis in any::<i64>(),
    ) {
        for mode in [
            Mode::Numpy,
            Mode::Bidirectional,
            Mode::Explicit { axes_mapping: axes.clone() },
            Mode::Pdpd { axis },
            Mode::Axes { broadcast_axes: axes.clone() },
        ] {
            match output_shape(&data, &target, &mode) {
                Ok(shape) => prop_assert!(bcast::checked_len(&shape).is_ok()),
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
        }
    }
}

#[test]
fn output_too_large_for_memory_is_an_allocation_error_not_an_abort() {
    let x = ArrayD::from_elem(IxDyn(&[]), 1.0f64);
    // 2^60 bytes: representable as a shape, impossible to allocate.
    let e = broadcast(x.view(), &[1 << 30, 1 << 27], &Mode::Numpy).unwrap_err();
    assert!(matches!(e, BroadcastError::Allocation { .. }), "{e}");
}

#[test]
fn rank_64_and_beyond_plans_and_runs() {
    let x = ArrayD::from_elem(IxDyn(&[1; 70]), 3u8);
    let mut target = vec![1; 70];
    target[0] = 2;
    target[69] = 3;
    let out = broadcast(x.view(), &target, &Mode::Numpy).unwrap();
    assert_eq!(out.len(), 6);
    assert!(out.iter().all(|&v| v == 3));
}
