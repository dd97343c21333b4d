//! The gradient of a broadcast, checked against a naive sum written from each mode's rule,
//! the adjoint identity, numpy's sums in the conformance cases, and the CLI.

mod plan_space;

use std::path::{Path, PathBuf};

use approx::relative_eq;
use bcast::exec::{with_tuning, Tuning};
use bcast::{
    broadcast, reduce_to_input, reduce_to_input_tensor, reduce_to_input_with, reduce_to_inputs,
    reduce_to_inputs_tensor, BroadcastError, Mode, Parallelism, Tensor,
};
use half::{bf16, f16};
use ndarray::{array, Array, ArrayD, IxDyn, ShapeBuilder};
use plan_space::{any_case, unravel, Case};
use proptest::prelude::*;

/// The reduction as the rule says it: every output element added into the data element it
/// was read from, in f64, in index order.
fn naive_f64(case: &Case, grad: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; case.data_len()];
    for (i, g) in grad.iter().enumerate() {
        out[case.source_of(&unravel(i, &case.output_shape))] += g;
    }
    out
}

/// The same with wrapping integer adds.
fn naive_wrapping(case: &Case, grad: &[i32]) -> Vec<i32> {
    let mut out = vec![0i32; case.data_len()];
    for (i, &g) in grad.iter().enumerate() {
        let at = case.source_of(&unravel(i, &case.output_shape));
        out[at] = out[at].wrapping_add(g);
    }
    out
}

fn shaped<T>(shape: &[usize], values: Vec<T>) -> ArrayD<T> {
    Array::from_shape_vec(IxDyn(shape), values).unwrap()
}

/// Deterministic pseudo-random values in [-1, 1).
fn noise(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn float_reduce_matches_the_naive_sum_for_every_mode(case in any_case(), seed in any::<u64>()) {
        let g = noise(case.output_len(), seed);
        let grad = shaped(&case.output_shape, g.clone());
        let got = reduce_to_input(grad.view(), &case.data_shape, &case.target_shape, &case.mode).unwrap();
        prop_assert_eq!(got.shape(), case.data_shape.as_slice());
        let abs: Vec<f64> = naive_f64(&case, &g.iter().map(|v| v.abs()).collect::<Vec<_>>());
        for ((a, b), scale) in got.iter().zip(naive_f64(&case, &g)).zip(abs) {
            prop_assert!((a - b).abs() <= 1e-13 * scale.max(1.0), "{case:?}: {a} vs {b}");
        }
    }

    #[test]
    fn integer_reduce_wraps_exactly_like_the_naive_sum(case in any_case(), seed in any::<u64>()) {
        let g: Vec<i32> = noise(case.output_len(), seed).iter().map(|v| (v * 2.1e9) as i32).collect();
        let grad = shaped(&case.output_shape, g.clone());
        let got = reduce_to_input(grad.view(), &case.data_shape, &case.target_shape, &case.mode).unwrap();
        prop_assert_eq!(got.into_raw_vec_and_offset().0, naive_wrapping(&case, &g));
    }

    /// <reduce(g), x> == <g, broadcast(x)>: the reduction is the broadcast's adjoint.
    #[test]
    fn reduce_is_the_adjoint_of_broadcast(case in any_case(), seed in any::<u64>()) {
        let x = shaped(&case.data_shape, noise(case.data_len(), seed ^ 1));
        let g = shaped(&case.output_shape, noise(case.output_len(), seed ^ 2));
        let bx = broadcast(x.view(), &case.target_shape, &case.mode).unwrap();
        let rg = reduce_to_input(g.view(), &case.data_shape, &case.target_shape, &case.mode).unwrap();
        let lhs: f64 = rg.iter().zip(x.iter()).map(|(a, b)| a * b).sum();
        let rhs: f64 = g.iter().zip(bx.iter()).map(|(a, b)| a * b).sum();
        let scale: f64 = g.iter().zip(bx.iter()).map(|(a, b)| (a * b).abs()).sum();
        prop_assert!((lhs - rhs).abs() <= 1e-12 * scale.max(1.0), "{case:?}: {lhs} vs {rhs}");

        // Exact on small integers, with wrapping arithmetic on both sides.
        let xi = x.mapv(|v| (v * 100.0) as i64);
        let gi = g.mapv(|v| (v * 100.0) as i64);
        let bxi = broadcast(xi.view(), &case.target_shape, &case.mode).unwrap();
        let rgi = reduce_to_input(gi.view(), &case.data_shape, &case.target_shape, &case.mode).unwrap();
        let lhs = rgi.iter().zip(xi.iter()).fold(0i64, |s, (a, b)| s.wrapping_add(a.wrapping_mul(*b)));
        let rhs = gi.iter().zip(bxi.iter()).fold(0i64, |s, (a, b)| s.wrapping_add(a.wrapping_mul(*b)));
        prop_assert_eq!(lhs, rhs);
    }
}

#[test]
fn bias_gradient_sums_the_batch_axis() {
    let g = array![[1.0f32, 2.0, 3.0], [10.0, 20.0, 30.0]].into_dyn();
    let r = reduce_to_input(g.view(), &[3], &[2, 3], &Mode::Numpy).unwrap();
    assert_eq!(r, array![11.0f32, 22.0, 33.0].into_dyn());
}

#[test]
fn channel_gradient_sums_each_plane() {
    // [16,1,1] -> [1,16,50,50]: each channel sums its 2500 values; value = channel index.
    let g = Array::from_shape_fn(IxDyn(&[1, 16, 50, 50]), |i| i[1] as f64 + 0.5);
    let r = reduce_to_input(g.view(), &[16, 1, 1], &[1, 16, 50, 50], &Mode::Numpy).unwrap();
    assert_eq!(r.shape(), &[16, 1, 1]);
    for c in 0..16 {
        assert_eq!(r[[c, 0, 0]], 2500.0 * (c as f64 + 0.5));
    }
}

#[test]
fn stretched_ones_and_new_axes_are_summed_and_a_one_meeting_a_one_is_kept() {
    // Bidirectional [3,1] with [2,1,6]: output [2,3,6]; the new axis 0 and stretched axis 2
    // are summed, axis 1 is read.
    let g = Array::from_shape_fn(IxDyn(&[2, 3, 6]), |i| {
        (i[0] * 100 + i[1] * 10 + i[2]) as i64
    });
    let r = reduce_to_input(g.view(), &[3, 1], &[2, 1, 6], &Mode::Bidirectional).unwrap();
    let expect = |c: i64| {
        (0..2)
            .flat_map(|a| (0..6).map(move |k| a * 100 + c * 10 + k))
            .sum::<i64>()
    };
    assert_eq!(r, array![[expect(0)], [expect(1)], [expect(2)]].into_dyn());
    // [1,3] -> [1,3]: nothing is summed.
    let g = array![[1u16, 2, 3]].into_dyn();
    assert_eq!(
        reduce_to_input(g.view(), &[1, 3], &[1, 3], &Mode::Numpy).unwrap(),
        g
    );
}

#[test]
fn every_mode_places_the_sum_where_it_reads() {
    let g = Array::from_shape_fn(IxDyn(&[2, 3, 4]), |i| (i[0] * 12 + i[1] * 4 + i[2]) as i32);
    let sum_over = |axes: &[usize]| {
        let mut a = g.clone();
        for &ax in axes.iter().rev() {
            a = a.sum_axis(ndarray::Axis(ax));
        }
        a
    };
    let explicit = Mode::Explicit {
        axes_mapping: vec![1],
    };
    assert_eq!(
        reduce_to_input(g.view(), &[3], &[2, 3, 4], &explicit).unwrap(),
        sum_over(&[0, 2])
    );
    let pdpd = Mode::Pdpd { axis: 1 };
    let r = reduce_to_input(g.view(), &[3, 1], &[2, 3, 4], &pdpd).unwrap();
    assert_eq!(
        r,
        sum_over(&[0, 2])
            .into_shape_with_order(IxDyn(&[3, 1]))
            .unwrap()
    );
    let axes = Mode::Axes {
        broadcast_axes: vec![2, 0],
    };
    assert_eq!(
        reduce_to_input(g.view(), &[3], &[2, 3, 4], &axes).unwrap(),
        sum_over(&[0, 2])
    );
    let r = reduce_to_input(g.view(), &[2, 1, 4], &[3, 1], &Mode::Bidirectional).unwrap();
    assert_eq!(r, sum_over(&[1]).insert_axis(ndarray::Axis(1)));
}

#[test]
fn a_zero_size_output_axis_gives_zeros_of_the_data_shape() {
    let g = ArrayD::<f32>::zeros(IxDyn(&[0, 3]));
    let r = reduce_to_input(g.view(), &[1, 3], &[0, 3], &Mode::Numpy).unwrap();
    assert_eq!(r, ArrayD::<f32>::zeros(IxDyn(&[1, 3])));
    assert!(r.iter().all(|v| v.to_bits() == 0));
    let g = ArrayD::<u8>::zeros(IxDyn(&[2, 0, 3]));
    let r = reduce_to_input(g.view(), &[0, 3], &[2, 0, 3], &Mode::Numpy).unwrap();
    assert_eq!(r.shape(), &[0, 3]);
    let g = ArrayD::<i64>::zeros(IxDyn(&[4, 0]));
    let r = reduce_to_input(g.view(), &[], &[4, 0], &Mode::Numpy).unwrap();
    assert_eq!(r, array![0i64].into_shape_with_order(IxDyn(&[])).unwrap());
}

#[test]
fn scalars_sum_everything_or_pass_through() {
    let g = Array::from_shape_fn(IxDyn(&[4, 5]), |i| (i[0] * 5 + i[1]) as u32);
    let r = reduce_to_input(g.view(), &[], &[4, 5], &Mode::Numpy).unwrap();
    assert_eq!(r.shape(), &[] as &[usize]);
    assert_eq!(r[IxDyn(&[])], 190);
    let s = array![2.5f64].into_shape_with_order(IxDyn(&[])).unwrap();
    assert_eq!(
        reduce_to_input(s.view(), &[], &[], &Mode::Numpy).unwrap(),
        s
    );
}

#[test]
fn integers_wrap_in_their_own_type() {
    let g = ArrayD::from_elem(IxDyn(&[3, 2]), 100i8);
    let r = reduce_to_input(g.view(), &[2], &[3, 2], &Mode::Numpy).unwrap();
    assert_eq!(r, array![44i8, 44].into_dyn());
    let g = array![u64::MAX, 2].into_dyn();
    let r = reduce_to_input(g.view(), &[], &[2], &Mode::Numpy).unwrap();
    assert_eq!(r[IxDyn(&[])], 1);
    let g = array![i64::MIN, -1].into_dyn();
    assert_eq!(
        reduce_to_input(g.view(), &[], &[2], &Mode::Numpy).unwrap()[IxDyn(&[])],
        i64::MAX
    );
}

#[test]
fn half_floats_accumulate_in_f32_and_round_once() {
    // 2048 then 1000 ones: in f16 steps each +1 rounds back to 2048 (spacing 2 there).
    let mut v = vec![f16::from_f32(2048.0)];
    v.extend(std::iter::repeat_n(f16::ONE, 1000));
    let g = shaped(&[1001], v);
    let r = reduce_to_input(g.view(), &[], &[1001], &Mode::Numpy).unwrap();
    assert_eq!(r[IxDyn(&[])], f16::from_f32(3048.0));
    // bf16 rows added: 256 + 100 ones = 356 (bf16 spacing at 256 is 2).
    let mut v = vec![bf16::from_f32(256.0); 3];
    v.extend(std::iter::repeat_n(bf16::ONE, 300));
    let g = shaped(&[101, 3], v);
    let r = reduce_to_input(g.view(), &[3], &[101, 3], &Mode::Numpy).unwrap();
    assert_eq!(r, ArrayD::from_elem(IxDyn(&[3]), bf16::from_f32(356.0)));
}

#[test]
fn f32_sums_are_carried_in_f64() {
    // 2^24 + 1 is not an f32: an f32 accumulator would drop every one.
    let mut v = vec![16_777_216f32];
    v.extend(std::iter::repeat_n(1.0f32, 64));
    let g = shaped(&[65], v);
    let r = reduce_to_input(g.view(), &[], &[65], &Mode::Numpy).unwrap();
    assert_eq!(r[IxDyn(&[])], 16_777_280.0);
}

/// Pairwise sums keep the error at O(log n): 2^20 copies of 0.1, summed three ways (one
/// long run, rows added, narrow rows widened), stay within 1e-14 relative of the exact
/// 0.1 * 2^20 (a power of two: exact in f64). In order, the error is about 1e-11.
#[test]
fn f64_sums_are_pairwise() {
    let n = 1usize << 20;
    let exact = 0.1f64 * n as f64;
    let sequential: f64 = std::iter::repeat_n(0.1f64, n).sum();
    assert!(
        ((sequential - exact) / exact).abs() > 1e-13,
        "the test must be able to fail"
    );
    let g = ArrayD::from_elem(IxDyn(&[n]), 0.1f64);
    let r = reduce_to_input(g.view(), &[], &[n], &Mode::Numpy).unwrap();
    assert!(((r[IxDyn(&[])] - exact) / exact).abs() < 1e-14);
    for width in [64usize, 3] {
        let g = ArrayD::from_elem(IxDyn(&[n, width]), 0.1f64);
        let r = reduce_to_input(g.view(), &[width], &[n, width], &Mode::Numpy).unwrap();
        for v in r.iter() {
            assert!(((v - exact) / exact).abs() < 1e-14, "width {width}: {v}");
        }
    }
    // Runs under a summed axis: [1024, 2, 1024] -> [2, 1]: 2^20 terms per element.
    let g = ArrayD::from_elem(IxDyn(&[1024, 2, 1024]), 0.1f64);
    let r = reduce_to_input(g.view(), &[2, 1], &[1024, 2, 1024], &Mode::Numpy).unwrap();
    for v in r.iter() {
        assert!(((v - exact) / exact).abs() < 1e-14, "runs: {v}");
    }
}

/// Gradients whose shape walks every path of the executor: runs, added rows, tiles wider
/// than one pass, narrow rows widened with a remainder, several axes of each kind, short
/// runs read slab by slab over more units than one slab holds.
#[test]
fn every_executor_path_matches_the_naive_sum() {
    let cases: &[(&[usize], &[usize])] = &[
        (&[5000], &[64, 5000]),
        (&[1, 20000, 1], &[3, 20000, 4]),
        (&[3], &[1001, 3]),
        (&[2, 1, 3], &[7, 2, 999, 3]),
        (&[1, 1], &[300, 700]),
        (&[1, 4, 1, 2], &[3, 1, 4, 129, 2]),
        (&[6, 1], &[2, 6, 200]),
        (&[2], &[5, 3, 2]),
        (&[1, 1, 1], &[1, 1, 1]),
    ];
    for &(data, target) in cases {
        let case = Case {
            data_shape: data.to_vec(),
            target_shape: target.to_vec(),
            mode: Mode::Numpy,
            output_shape: target.to_vec(),
            aligned: std::iter::repeat_n(1, target.len() - data.len())
                .chain(data.iter().copied())
                .collect(),
        };
        let g = noise(case.output_len(), target.len() as u64);
        let grad = shaped(target, g.clone());
        let want = naive_f64(&case, &g);
        for par in [Parallelism::Serial, Parallelism::Auto] {
            let got = reduce_to_input_with(grad.view(), data, target, &Mode::Numpy, par).unwrap();
            for (a, b) in got.iter().zip(&want) {
                assert!(
                    relative_eq!(*a, *b, epsilon = 1e-12, max_relative = 1e-12),
                    "{data:?} {target:?}: {a} vs {b}"
                );
            }
        }
        let gi: Vec<u8> = g.iter().map(|v| (v * 1000.0) as i64 as u8).collect();
        let want: Vec<u8> = {
            let mut out = vec![0u8; case.data_len()];
            for (i, &v) in gi.iter().enumerate() {
                let at = case.source_of(&unravel(i, target));
                out[at] = out[at].wrapping_add(v);
            }
            out
        };
        let got = reduce_to_input(shaped(target, gi).view(), data, target, &Mode::Numpy).unwrap();
        assert_eq!(got.into_raw_vec_and_offset().0, want, "{data:?} {target:?}");
    }
}

#[test]
fn results_do_not_depend_on_threads() {
    let shapes: &[(&[usize], &[usize])] = &[
        (&[64, 1, 1], &[2, 64, 70, 70]),
        (&[700], &[900, 700]),
        (&[3], &[100_000, 3]),
        (&[], &[300, 1000]),
        (&[1, 5000], &[3, 80, 5000]),
        (&[2, 1], &[2, 300_000]),
    ];
    let pools: Vec<rayon::ThreadPool> = [1, 2, 3, 5]
        .iter()
        .map(|&n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        })
        .collect();
    // Most of these gradients are below the machine's serial threshold; the second pass
    // lowers it to zero so that every one of them also runs on every pool's threads.
    let everything_parallel = Tuning {
        serial_below_bytes: Some(0),
        ..Tuning::default()
    };
    for tuning in [Tuning::default(), everything_parallel] {
        with_tuning(tuning, || same_bits_on_every_pool(shapes, &pools));
    }
}

fn same_bits_on_every_pool(shapes: &[(&[usize], &[usize])], pools: &[rayon::ThreadPool]) {
    for &(data, target) in shapes {
        let n: usize = target.iter().product();
        let g: Vec<f32> = noise(n, 7).iter().map(|&v| v as f32 * 1000.0).collect();
        let g = shaped(target, g);
        let serial =
            reduce_to_input_with(g.view(), data, target, &Mode::Numpy, Parallelism::Serial)
                .unwrap();
        let auto =
            reduce_to_input_with(g.view(), data, target, &Mode::Numpy, Parallelism::Auto).unwrap();
        assert!(serial
            .iter()
            .zip(auto.iter())
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        for pool in pools {
            let p = reduce_to_input_with(
                g.view(),
                data,
                target,
                &Mode::Numpy,
                Parallelism::Pool(pool),
            )
            .unwrap();
            assert!(
                serial
                    .iter()
                    .zip(p.iter())
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{data:?} {target:?}"
            );
        }
    }
}

#[test]
fn any_gradient_layout_is_accepted() {
    let g = Array::from_shape_fn(IxDyn(&[4, 6]), |i| (i[0] * 6 + i[1]) as i64);
    let mut f = ArrayD::<i64>::zeros(IxDyn(&[4, 6]).f());
    f.assign(&g);
    let want = reduce_to_input(g.view(), &[6], &[4, 6], &Mode::Numpy).unwrap();
    assert_eq!(
        reduce_to_input(f.view(), &[6], &[4, 6], &Mode::Numpy).unwrap(),
        want
    );
    let big = Array::from_shape_fn(IxDyn(&[8, 12]), |i| ((i[0] / 2) * 6 + i[1] / 2) as i64);
    let strided = big.slice_each_axis(|_| ndarray::Slice::new(0, None, 2));
    assert_eq!(
        reduce_to_input(strided, &[6], &[4, 6], &Mode::Numpy).unwrap(),
        want
    );
}

#[test]
fn shape_errors_name_the_rule() {
    let g = ArrayD::<f32>::zeros(IxDyn(&[2, 4]));
    assert!(matches!(
        reduce_to_input(g.view(), &[3], &[2, 4], &Mode::Numpy),
        Err(BroadcastError::DimMismatch { .. })
    ));
    let e = reduce_to_input(g.view(), &[3], &[2, 3], &Mode::Numpy).unwrap_err();
    assert_eq!(
        e,
        BroadcastError::OutputShape {
            expected: bcast::Dims(vec![2, 3]),
            actual: bcast::Dims(vec![2, 4])
        }
    );
    assert!(reduce_to_inputs(g.view(), &[&[2, 1], &[3]]).is_err());
    assert!(reduce_to_inputs(g.view(), &[&[2, 1], &[5]]).is_err());
}

#[test]
fn n_ary_gradients_reduce_once_per_input() {
    let g = Array::from_shape_fn(IxDyn(&[2, 4, 3]), |i| (i[0] * 12 + i[1] * 3 + i[2]) as f64);
    let out = reduce_to_inputs(g.view(), &[&[2, 1, 3], &[4, 1], &[]]).unwrap();
    assert_eq!(
        out[0],
        g.sum_axis(ndarray::Axis(1)).insert_axis(ndarray::Axis(1))
    );
    assert_eq!(
        out[1],
        g.sum_axis(ndarray::Axis(2))
            .sum_axis(ndarray::Axis(0))
            .insert_axis(ndarray::Axis(1))
    );
    assert_eq!(out[2].sum(), g.sum());
    let t = reduce_to_inputs_tensor(&Tensor::F64(g.clone()), &[&[4, 1], &[3], &[2, 1, 1]]).unwrap();
    assert_eq!(
        t[1],
        Tensor::F64(g.sum_axis(ndarray::Axis(0)).sum_axis(ndarray::Axis(0)))
    );
}

#[test]
fn tensors_of_every_numeric_type_reduce_and_bool_and_string_do_not() {
    let g = Array::from_shape_fn(IxDyn(&[3, 2]), |i| (i[0] * 2 + i[1]) as u8);
    let tensors = [
        Tensor::I8(g.mapv(|v| v as i8)),
        Tensor::I16(g.mapv(|v| v as i16)),
        Tensor::I32(g.mapv(|v| v as i32)),
        Tensor::I64(g.mapv(|v| v as i64)),
        Tensor::U8(g.clone()),
        Tensor::U16(g.mapv(|v| v as u16)),
        Tensor::U32(g.mapv(|v| v as u32)),
        Tensor::U64(g.mapv(|v| v as u64)),
        Tensor::F16(g.mapv(|v| f16::from_f32(v as f32))),
        Tensor::BF16(g.mapv(|v| bf16::from_f32(v as f32))),
        Tensor::F32(g.mapv(|v| v as f32)),
        Tensor::F64(g.mapv(|v| v as f64)),
    ];
    /// The numbers of a numeric tensor, through their printed form (so every type reads the
    /// same way, without the library's own conversions).
    fn numbers_as_f64(t: &Tensor) -> Vec<f64> {
        fn printed<T: std::fmt::Debug>(a: &ArrayD<T>) -> Vec<f64> {
            a.iter()
                .map(|v| format!("{v:?}").parse::<f64>().unwrap_or(f64::NAN))
                .collect()
        }
        match t {
            Tensor::I8(a) => printed(a),
            Tensor::I16(a) => printed(a),
            Tensor::I32(a) => printed(a),
            Tensor::I64(a) => printed(a),
            Tensor::U8(a) => printed(a),
            Tensor::U16(a) => printed(a),
            Tensor::U32(a) => printed(a),
            Tensor::U64(a) => printed(a),
            Tensor::F16(a) => printed(a),
            Tensor::BF16(a) => printed(a),
            Tensor::F32(a) => printed(a),
            Tensor::F64(a) => printed(a),
            other => panic!("not a number tensor: {:?}", other.dtype()),
        }
    }
    for t in &tensors {
        let r = reduce_to_input_tensor(t, &[2], &[3, 2], &Mode::Numpy).unwrap();
        assert_eq!(r.dtype(), t.dtype());
        assert_eq!(r.shape(), &[2]);
        let values = numbers_as_f64(&r);
        assert_eq!(values, vec![6.0, 9.0], "{:?}", t.dtype());
    }
    for t in [
        Tensor::Bool(array![true, false].into_dyn()),
        Tensor::String(array!["a".to_string(), "b".into()].into_dyn()),
    ] {
        let e = reduce_to_input_tensor(&t, &[2], &[2], &Mode::Numpy).unwrap_err();
        assert!(
            matches!(e, BroadcastError::UnsupportedType { op: "reduce", .. }),
            "{e}"
        );
    }
}

// --- the conformance cases under conformance/reduce (numpy float64 sums, then cast) ---

fn case_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/reduce");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn mode_of(case: &serde_json::Value) -> Mode {
    let ints = |key: &str| -> Vec<usize> {
        case[key].as_array().map_or(Vec::new(), |a| {
            a.iter().map(|v| v.as_u64().unwrap() as usize).collect()
        })
    };
    match case["mode"].as_str().unwrap() {
        "numpy" => Mode::Numpy,
        "bidirectional" => Mode::Bidirectional,
        "explicit" => Mode::Explicit {
            axes_mapping: ints("axes_mapping"),
        },
        "pdpd" => Mode::Pdpd {
            axis: case["axis"].as_i64().unwrap_or(-1),
        },
        "axes" => Mode::Axes {
            broadcast_axes: ints("broadcast_axes"),
        },
        m => panic!("unknown mode {m}"),
    }
}

fn as_f64(t: &Tensor) -> Vec<f64> {
    match t {
        Tensor::F16(a) => a.iter().map(|v| v.to_f64()).collect(),
        Tensor::F32(a) => a.iter().map(|&v| v as f64).collect(),
        Tensor::F64(a) => a.iter().copied().collect(),
        _ => panic!("not a float tensor"),
    }
}

fn check_conformance_case(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("case.json")).map_err(|e| e.to_string())?;
    let case: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if case["op"] != "reduce" {
        return Err("op is not reduce".into());
    }
    let shape = |key: &str| -> Vec<usize> {
        case[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect()
    };
    let input = case["inputs"][0].as_str().unwrap();
    let grad = bcast::npy::read(dir.join(input)).map_err(|e| e.to_string())?;
    let result = reduce_to_input_tensor(
        &grad,
        &shape("data_shape"),
        &shape("target_shape"),
        &mode_of(&case),
    );
    if case["error"] == true {
        return match result {
            Err(_) => Ok(()),
            Ok(_) => Err("accepted a case that must be rejected".into()),
        };
    }
    let got = result.map_err(|e| format!("rejected: {e}"))?;
    let output = case["outputs"][0].as_str().unwrap();
    let want = bcast::npy::read(dir.join(output)).map_err(|e| e.to_string())?;
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return Err(format!(
            "got {} {:?}, want {} {:?}",
            got.dtype(),
            got.shape(),
            want.dtype(),
            want.shape()
        ));
    }
    if matches!(want, Tensor::F16(_) | Tensor::F32(_) | Tensor::F64(_)) {
        let rtol = case["rtol"].as_f64().ok_or("float case without rtol")?;
        let atol = case["atol"].as_f64().ok_or("float case without atol")?;
        for (i, (a, b)) in as_f64(&got).iter().zip(as_f64(&want)).enumerate() {
            if !relative_eq!(*a, b, epsilon = atol, max_relative = rtol) {
                return Err(format!(
                    "element {i}: got {a}, want {b} (rtol {rtol}, atol {atol})"
                ));
            }
        }
        Ok(())
    } else if got == want {
        Ok(())
    } else {
        Err(format!("got {got:?}, want {want:?}"))
    }
}

#[test]
fn conformance_cases_pass() {
    let dirs = case_dirs();
    assert!(dirs.len() >= 40, "only {} reduce cases found", dirs.len());
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            check_conformance_case(d)
                .err()
                .map(|e| format!("{}: {e}", d.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// --- the command line ---

/// A gradient with axes of stride 0 is reduced like its row-major copy.
#[test]
fn a_stride_0_gradient_reduces_like_its_copy() {
    let base = ArrayD::from_shape_vec(IxDyn(&[1, 70]), (0..70).map(f64::from).collect()).unwrap();
    let g = base.broadcast(IxDyn(&[300, 70])).unwrap();
    let copy = g.to_owned();
    let a = reduce_to_inputs(g.view(), &[&[300, 1], &[70]]).unwrap();
    let b = reduce_to_inputs(copy.view(), &[&[300, 1], &[70]]).unwrap();
    assert_eq!(a, b);
    let a = reduce_to_input(g.view(), &[70], &[300, 70], &Mode::Numpy).unwrap();
    assert_eq!(a, b[1]);
}

/// Issue 14: a `[2^24, 2^24]` gradient of one value used to abort in `as_standard_layout`
/// (a PiB of copy). The row-major copy is now allocated fallibly.
#[test]
fn a_huge_stride_0_gradient_is_an_allocation_error_not_an_abort() {
    let one = ArrayD::from_elem(IxDyn(&[1]), 0.5f32);
    let n = 1usize << 24;
    let g = one.broadcast(IxDyn(&[n, n])).unwrap();
    let r = reduce_to_inputs(g.view(), &[&[n, 1], &[1, n]]);
    assert!(matches!(r, Err(BroadcastError::Allocation { .. })), "{r:?}");
    let r = reduce_to_input(g.view(), &[n], &[n, n], &Mode::Numpy);
    assert!(matches!(r, Err(BroadcastError::Allocation { .. })), "{r:?}");
}
