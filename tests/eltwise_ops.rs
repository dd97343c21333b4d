//! The op table's ops beyond OpenVINO's two-operand ones: variadic Sum/Mean/Max/Min,
//! bitwise ops and shifts, both PRelus, FakeQuantize, ONNX Mod/Div/Pow. Expected values come
//! from naive references written here (numpy's broadcasting by index, each op's rule
//! restated) and from spot values the runtimes computed themselves
//! (`tests/data/eltwise_op_spots.json`, written by `conformance/generate_op_spots.py`).

use bcast::exec::{with_tuning, Context, Strategy, Tuning};
use bcast::{
    eltwise, eltwise_into, eltwise_view, AutoBroadcast, BroadcastError, EltwiseOp, Parallelism,
    ShiftDirection, Tensor, TensorView,
};
use half::f16;
use ndarray::{ArrayD, Dimension, IxDyn, Slice};

const NP: AutoBroadcast = AutoBroadcast::Numpy;

// ---------------------------------------------------------------------------------------
// Spot values from OpenVINO's and ONNX's references
// ---------------------------------------------------------------------------------------

fn decode(v: &serde_json::Value) -> Tensor {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let bits: Vec<u64> = v["bits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .collect();
    macro_rules! arr {
        ($f:expr) => {
            ArrayD::from_shape_vec(IxDyn(&shape), bits.iter().map(|&b| $f(b)).collect())
                .unwrap()
                .into()
        };
    }
    match v["dtype"].as_str().unwrap() {
        "f16" => arr!(|b| f16::from_bits(b as u16)),
        "f32" => arr!(|b| f32::from_bits(b as u32)),
        "f64" => arr!(f64::from_bits),
        "i8" => arr!(|b| b as u8 as i8),
        "i16" => arr!(|b| b as u16 as i16),
        "i32" => arr!(|b| b as u32 as i32),
        "i64" => arr!(|b| b as i64),
        "u8" => arr!(|b| b as u8),
        "u16" => arr!(|b| b as u16),
        "u32" => arr!(|b| b as u32),
        "u64" => arr!(|b: u64| b),
        "boolean" => arr!(|b| b != 0),
        other => panic!("dtype {other}"),
    }
}

fn op_of(name: &str, attrs: &serde_json::Value) -> EltwiseOp {
    let mut op: EltwiseOp = name.parse().unwrap();
    match &mut op {
        EltwiseOp::FakeQuantize { levels } => *levels = attrs["levels"].as_u64().unwrap(),
        EltwiseOp::OnnxMod { fmod } => *fmod = attrs["fmod"].as_u64().unwrap() == 1,
        EltwiseOp::BitShift { direction } => {
            *direction = attrs["direction"].as_str().unwrap().parse().unwrap()
        }
        _ => {}
    }
    op
}

/// Same type and shape, every float within one unit in the last place.
fn within_one_ulp(a: &Tensor, b: &Tensor) -> bool {
    fn close(x: i64, y: i64) -> bool {
        (x - y).abs() <= 1
    }
    match (a, b) {
        (Tensor::F32(x), Tensor::F32(y)) => {
            x.shape() == y.shape()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| close(i64::from(p.to_bits()), i64::from(q.to_bits())))
        }
        (Tensor::F64(x), Tensor::F64(y)) => {
            x.shape() == y.shape()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| (p.to_bits() as i128 - q.to_bits() as i128).abs() <= 1)
        }
        (Tensor::F16(x), Tensor::F16(y)) => {
            x.shape() == y.shape()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| close(i64::from(p.to_bits()), i64::from(q.to_bits())))
        }
        _ => false,
    }
}

#[test]
fn spot_values_from_the_references_match_bit_for_bit() {
    let text = include_str!("data/eltwise_op_spots.json");
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 100, "only {} spot cases", cases.len());
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let op = op_of(case["op"].as_str().unwrap(), &case["attrs"]);
        let inputs: Vec<Tensor> = case["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(decode)
            .collect();
        let refs: Vec<&Tensor> = inputs.iter().collect();
        let expect = decode(&case["output"]);
        // Float Pow: numpy's own f32 `pow` and the C library's differ in the last bit, as
        // for OpenVINO's Power in the conformance suite (`ulp` 1 there).
        let ulp = matches!(op, EltwiseOp::OnnxPow)
            && !case["output"]["dtype"]
                .as_str()
                .unwrap()
                .starts_with(['i', 'u']);
        match eltwise(op, &refs, &NP) {
            Ok(got) if got.bit_equal(&expect) => {}
            Ok(got) if ulp && within_one_ulp(&got, &expect) => {}
            Ok(got) => failures.push(format!(
                "case {i} {op:?} ({}):\n got {got:?}\nwant {expect:?}",
                case["source"]
            )),
            Err(e) => failures.push(format!("case {i} {op:?}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Naive references
// ---------------------------------------------------------------------------------------

/// numpy's output shape of `shapes`.
fn numpy_shape(shapes: &[Vec<usize>]) -> Vec<usize> {
    let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = vec![1; rank];
    for s in shapes {
        for (i, &d) in s.iter().enumerate() {
            let o = &mut out[rank - s.len() + i];
            if *o == 1 {
                *o = d;
            }
        }
    }
    out
}

/// The element of `a` that output index `idx` reads under numpy's rule.
fn at<T: Copy>(a: &ArrayD<T>, idx: &[usize]) -> T {
    let pad = idx.len() - a.ndim();
    let i: Vec<usize> = a
        .shape()
        .iter()
        .enumerate()
        .map(|(k, &d)| if d == 1 { 0 } else { idx[pad + k] })
        .collect();
    a[IxDyn(&i)]
}

/// `fold` over the operands at every output index.
fn naive_fold<T: Copy>(ops: &[ArrayD<T>], f: impl Fn(&[T]) -> T) -> ArrayD<T> {
    let shape = numpy_shape(&ops.iter().map(|a| a.shape().to_vec()).collect::<Vec<_>>());
    ArrayD::from_shape_fn(IxDyn(&shape), |idx| {
        let vals: Vec<T> = ops.iter().map(|a| at(a, idx.slice())).collect();
        f(&vals)
    })
}

fn filled<T>(shape: &[usize], seed: u64, f: impl Fn(i64) -> T) -> ArrayD<T> {
    let mut n = 0u64;
    ArrayD::from_shape_fn(IxDyn(shape), |_| {
        n += 1;
        let h = (seed ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        f(((h >> 40) % 41) as i64 - 20)
    })
}

fn tensors<T>(arrays: &[ArrayD<T>]) -> Vec<Tensor>
where
    T: Clone,
    Tensor: From<ArrayD<T>>,
{
    arrays.iter().cloned().map(Tensor::from).collect()
}

fn run(op: EltwiseOp, ts: &[Tensor]) -> Result<Tensor, BroadcastError> {
    eltwise(op, &ts.iter().collect::<Vec<_>>(), &NP)
}

const SHAPE_SETS: &[&[&[usize]]] = &[
    &[&[5]],
    &[&[2, 3], &[3]],
    &[&[4, 1, 3], &[2, 1], &[3], &[]],
    &[&[1, 300], &[7, 1], &[300], &[7, 300], &[1]],
    &[&[0, 3], &[3]],
];

#[test]
fn variadic_folds_match_the_reference_for_any_count_and_shape() {
    for (k, set) in SHAPE_SETS.iter().enumerate() {
        let f32s: Vec<ArrayD<f32>> = set
            .iter()
            .enumerate()
            .map(|(j, s)| filled(s, (k * 10 + j) as u64, |v| v as f32 * 0.37))
            .collect();
        let n = f32s.len();
        // Left to right from operand 0 (IEEE: a sum of -0.0s is -0.0).
        let sum = naive_fold(&f32s, |v| v.iter().skip(1).fold(v[0], |a, &x| a + x));
        let mean = naive_fold(&f32s, |v| {
            v.iter().skip(1).fold(v[0], |a, &x| a + x) / n as f32
        });
        let max = naive_fold(&f32s, |v| {
            v.iter()
                .skip(1)
                .fold(v[0], |a, &x| if a.is_nan() || a > x { a } else { x })
        });
        let ts = tensors(&f32s);
        assert_eq!(
            run(EltwiseOp::Sum, &ts).unwrap(),
            Tensor::F32(sum),
            "sum {set:?}"
        );
        assert_eq!(
            run(EltwiseOp::Mean, &ts).unwrap(),
            Tensor::F32(mean),
            "mean {set:?}"
        );
        assert_eq!(
            run(EltwiseOp::Max, &ts).unwrap(),
            Tensor::F32(max),
            "max {set:?}"
        );
        let i8s: Vec<ArrayD<i8>> = set
            .iter()
            .enumerate()
            .map(|(j, s)| filled(s, (k * 10 + j) as u64, |v| (v * 6) as i8))
            .collect();
        let min = naive_fold(&i8s, |v| *v.iter().min().unwrap());
        let ts = tensors(&i8s);
        // ONNX's Sum and Mean list float types only; Max and Min every number.
        for op in [EltwiseOp::Sum, EltwiseOp::Mean] {
            assert!(
                matches!(run(op, &ts), Err(BroadcastError::UnsupportedType { .. })),
                "{op} on i8"
            );
        }
        assert_eq!(run(EltwiseOp::Min, &ts).unwrap(), Tensor::I8(min));
        // f16: each step rounded to f16, as the reference adds in the element type.
        let h: Vec<ArrayD<f16>> = f32s.iter().map(|a| a.mapv(f16::from_f32)).collect();
        let hsum = naive_fold(&h, |v| {
            v.iter()
                .skip(1)
                .fold(v[0], |a, &x| f16::from_f32(a.to_f32() + x.to_f32()))
        });
        assert!(run(EltwiseOp::Sum, &tensors(&h))
            .unwrap()
            .bit_equal(&Tensor::F16(hsum)));
    }
}

#[test]
fn more_operands_than_one_pass_takes_fold_in_groups_in_order() {
    // 40 operands (past the one-pass limit), with a rounding-sensitive order of additions.
    let ops: Vec<ArrayD<f32>> = (0..40)
        .map(|j| {
            filled(&[3, 70], j, |v| {
                (v as f32) * 1e-3 + if j == 0 { 1e7 } else { 0.0 }
            })
        })
        .collect();
    let expect = naive_fold(&ops, |v| v.iter().skip(1).fold(v[0], |a, &x| a + x));
    assert_eq!(
        run(EltwiseOp::Sum, &tensors(&ops)).unwrap(),
        Tensor::F32(expect)
    );
    let means = naive_fold(&ops, |v| v.iter().skip(1).fold(v[0], |a, &x| a + x) / 40.0);
    assert_eq!(
        run(EltwiseOp::Mean, &tensors(&ops)).unwrap(),
        Tensor::F32(means)
    );
}

#[test]
fn a_few_long_operands_fold_in_order() {
    // Two to four operands (the one-loop path), rows longer than a block, additions whose
    // order changes the rounding; Mean's division after the last addition.
    for count in 1..=4u64 {
        let ops: Vec<ArrayD<f32>> = (0..count)
            .map(|j| {
                filled(&[3, 700], j, |v| {
                    (v as f32) * 1.1e-3 + if j == 0 { 1e4 } else { 0.0 }
                })
            })
            .collect();
        let expect = naive_fold(&ops, |v| v.iter().skip(1).fold(v[0], |a, &x| a + x));
        assert_eq!(
            run(EltwiseOp::Sum, &tensors(&ops)).unwrap(),
            Tensor::F32(expect),
            "sum of {count}"
        );
        let means = naive_fold(&ops, |v| {
            v.iter().skip(1).fold(v[0], |a, &x| a + x) / count as f32
        });
        assert_eq!(
            run(EltwiseOp::Mean, &tensors(&ops)).unwrap(),
            Tensor::F32(means),
            "mean of {count}"
        );
    }
}

/// A pool of `threads` and the tuning that hands it chunks of 1,000 elements, even for a
/// small output (so a chunk starts and ends inside a row).
fn split_in_chunks_of_1000(threads: usize) -> (rayon::ThreadPool, Tuning) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let tuning = Tuning {
        serial_below_bytes: Some(0),
        chunk_elems: Some(1000),
        ..Tuning::default()
    };
    (pool, tuning)
}

#[test]
fn runs_of_whole_rows_fold_like_the_reference_serial_and_split_mid_row() {
    // Operands that are contiguous along the row but step differently from row to row (a
    // [300] row read again for every row, a [33, 300] plane for every leading index): the
    // fold takes runs of whole rows in one call. Split into chunks of 1000 elements, a chunk
    // starts and ends inside a row.
    let big = |seed| filled(&[7, 33, 300], seed, |v| v as f32 * 0.37 + 1e3);
    let row = filled(&[300], 11, |v| v as f32 * 1.3e-3);
    let plane = filled(&[33, 300], 12, |v| v as f32 * 0.011);
    let sets: Vec<Vec<ArrayD<f32>>> = vec![
        vec![big(1), row.clone()],
        vec![row.clone(), big(2), plane.clone()],
        vec![big(3), big(4), big(5), row.clone()],
        vec![plane.clone(), row.clone(), big(6), plane.clone()],
    ];
    let (pool, tuning) = split_in_chunks_of_1000(3);
    for arrays in &sets {
        let n = arrays.len() as f32;
        let sum = naive_fold(arrays, |v| v.iter().skip(1).fold(v[0], |a, &x| a + x));
        let mean = naive_fold(arrays, |v| v.iter().skip(1).fold(v[0], |a, &x| a + x) / n);
        let min = naive_fold(arrays, |v| {
            v.iter()
                .skip(1)
                .fold(v[0], |a, &x| if a.is_nan() || a < x { a } else { x })
        });
        let views: Vec<TensorView<'_>> = arrays.iter().map(|a| a.view().into()).collect();
        for (op, expect) in [
            (EltwiseOp::Sum, sum),
            (EltwiseOp::Mean, mean),
            (EltwiseOp::Min, min),
        ] {
            let shapes: Vec<_> = arrays.iter().map(|a| a.shape().to_vec()).collect();
            let serial = eltwise_view(op, &views, &NP, Parallelism::Serial).unwrap();
            assert_eq!(serial, Tensor::F32(expect), "{op} {shapes:?}");
            let split = with_tuning(tuning, || {
                eltwise_view(op, &views, &NP, Parallelism::Pool(&pool))
            })
            .unwrap();
            assert!(split.bit_equal(&serial), "{op} {shapes:?} split");
        }
    }
}

#[test]
fn folds_read_every_layout_and_split_over_threads_identically() {
    let base = filled(&[64, 4096], 7, |v| v as f32);
    let transposed = base.t().to_owned();
    let stepped = base.slice_each_axis(|ax| {
        if ax.axis.index() == 1 {
            Slice::new(0, None, 2)
        } else {
            Slice::from(..)
        }
    });
    let row = filled(&[2048], 3, |v| v as f32 * 0.5);
    let col = filled(&[64, 1], 4, |v| v as f32 * 0.25);
    let arrays = [stepped.to_owned(), row.clone(), col.clone()];
    let expect = naive_fold(&arrays, |v| v.iter().fold(0.0f32, |a, &x| a + x));
    let views = [
        TensorView::from(stepped.view()),
        TensorView::from(row.view()),
        TensorView::from(col.view()),
    ];
    let serial = eltwise_view(EltwiseOp::Sum, &views, &NP, Parallelism::Serial).unwrap();
    assert_eq!(serial, Tensor::F32(expect));
    let (pool, tuning) = split_in_chunks_of_1000(4);
    let parallel = with_tuning(tuning, || {
        eltwise_view(EltwiseOp::Sum, &views, &NP, Parallelism::Pool(&pool))
    })
    .unwrap();
    assert!(parallel.bit_equal(&serial));
    // A transposed operand (strided rows).
    let t = [transposed.clone(), transposed.clone()];
    let expect = naive_fold(&t, |v| if v[0] > v[1] { v[0] } else { v[1] });
    assert_eq!(
        run(EltwiseOp::Max, &tensors(&t)).unwrap(),
        Tensor::F32(expect)
    );
}

#[test]
fn bitwise_ops_and_shifts_match_their_rules() {
    let a = filled(&[3, 5], 1, |v| (v * 7) as i16);
    let b = filled(&[5], 2, |v| (v * 13) as i16);
    let ts = [Tensor::I16(a.clone()), Tensor::I16(b.clone())];
    let pair = |f: fn(i16, i16) -> i16| naive_fold(&[a.clone(), b.clone()], |v| f(v[0], v[1]));
    assert_eq!(
        run(EltwiseOp::BitwiseAnd, &ts).unwrap(),
        Tensor::I16(pair(|x, y| x & y))
    );
    assert_eq!(
        run(EltwiseOp::BitwiseOr, &ts).unwrap(),
        Tensor::I16(pair(|x, y| x | y))
    );
    assert_eq!(
        run(EltwiseOp::BitwiseXor, &ts).unwrap(),
        Tensor::I16(pair(|x, y| x ^ y))
    );
    // OpenVINO's shifts: the count modulo the promoted width (32 for i16).
    let counts = ArrayD::from_shape_vec(IxDyn(&[5]), vec![0i16, 1, 15, 16, 33]).unwrap();
    let ones = ArrayD::from_elem(IxDyn(&[5]), -3i16);
    let got = run(
        EltwiseOp::BitwiseLeftShift,
        &[Tensor::I16(ones.clone()), Tensor::I16(counts.clone())],
    )
    .unwrap();
    let want = [-3i16, -6, i16::MIN, 0, -6];
    assert_eq!(got.as_array::<i16>().unwrap().as_slice().unwrap(), &want);
    let got = run(
        EltwiseOp::BitwiseRightShift,
        &[Tensor::I16(ones), Tensor::I16(counts)],
    )
    .unwrap();
    assert_eq!(
        got.as_array::<i16>().unwrap().as_slice().unwrap(),
        &[-3i16, -2, -1, -1, -2]
    );
    let bools = Tensor::Bool(ArrayD::from_shape_vec(IxDyn(&[2]), vec![true, false]).unwrap());
    assert_eq!(
        run(EltwiseOp::BitwiseXor, &[bools.clone(), bools.clone()]).unwrap(),
        Tensor::Bool(ArrayD::from_elem(IxDyn(&[2]), false))
    );
    // ONNX BitShift (opset 28): every integer type, the right shift arithmetic, an amount
    // out of range leaving the sign fill; floats refused.
    let right = EltwiseOp::BitShift {
        direction: ShiftDirection::Right,
    };
    let left = EltwiseOp::BitShift {
        direction: ShiftDirection::Left,
    };
    let x = Tensor::I8(ArrayD::from_shape_vec(IxDyn(&[4]), vec![-128i8, -5, 5, -1]).unwrap());
    let by = Tensor::I8(ArrayD::from_shape_vec(IxDyn(&[4]), vec![7i8, 8, -1, 1]).unwrap());
    let want = |v: Vec<i8>| Tensor::I8(ArrayD::from_shape_vec(IxDyn(&[4]), v).unwrap());
    assert_eq!(
        run(right, &[x.clone(), by.clone()]).unwrap(),
        want(vec![-1, -1, 0, -1])
    );
    assert_eq!(run(left, &[x, by]).unwrap(), want(vec![0, 0, 0, -2]));
    let f = Tensor::F32(ArrayD::from_elem(IxDyn(&[1]), 1.0f32));
    assert!(matches!(
        run(right, &[f.clone(), f]),
        Err(BroadcastError::UnsupportedType { .. })
    ));
}

#[test]
fn prelu_places_the_slope_by_each_runtimes_rule() {
    let x = filled(&[2, 3, 4, 3], 5, |v| v as f32 * 0.5);
    let slope = ArrayD::from_shape_vec(IxDyn(&[3]), vec![0.5f32, -2.0, 0.25]).unwrap();
    let ts = [Tensor::F32(x.clone()), Tensor::F32(slope.clone())];
    // OpenVINO: a slope of C = x.shape[1] goes on axis 1, though it also fits the last axis.
    let on_channel = ArrayD::from_shape_fn(x.raw_dim(), |i| {
        let v = x[&i];
        if v < 0.0 {
            v * slope[i[1]]
        } else {
            v
        }
    });
    assert_eq!(run(EltwiseOp::Prelu, &ts).unwrap(), Tensor::F32(on_channel));
    // ONNX: numpy's rule, the slope on the last axis.
    let on_last = ArrayD::from_shape_fn(x.raw_dim(), |i| {
        let v = x[&i];
        if v > 0.0 {
            v
        } else {
            v * slope[i[3]]
        }
    });
    assert_eq!(
        run(EltwiseOp::OnnxPrelu, &ts).unwrap(),
        Tensor::F32(on_last)
    );
    // The slope never stretches x.
    let big = Tensor::F32(ArrayD::zeros(IxDyn(&[4, 2, 3, 4, 3])));
    for op in [EltwiseOp::Prelu, EltwiseOp::OnnxPrelu] {
        assert!(run(op, &[Tensor::F32(x.clone()), big.clone()]).is_err());
    }
    // PRelu takes no pdpd.
    let refs = [&ts[0], &ts[1]];
    assert!(matches!(
        eltwise(EltwiseOp::Prelu, &refs, &AutoBroadcast::Pdpd { axis: 1 }),
        Err(BroadcastError::RuleNotTaken { .. })
    ));
}

/// OpenVINO's reference formula, restated.
fn fq(x: f32, il: f32, ih: f32, ol: f32, oh: f32, levels: u64) -> f32 {
    let l = (levels - 1) as f32;
    if x <= il.min(ih) {
        ol
    } else if x > il.max(ih) {
        oh
    } else {
        ((x - il) / (ih - il) * l).round_ties_even() / l * (oh - ol) + ol
    }
}

#[test]
fn fake_quantize_per_channel_and_pdpd_match_the_formula() {
    let x = filled(&[2, 4, 3, 5], 9, |v| v as f32 * 0.13);
    let il = filled(&[1, 4, 1, 1], 1, |v| -1.0 - (v.abs() as f32) * 0.01);
    let ih = filled(&[1, 4, 1, 1], 2, |v| 1.0 + (v.abs() as f32) * 0.01);
    let ol = filled(&[1, 4, 1, 1], 3, |v| -0.5 + v as f32 * 0.001);
    let oh = filled(&[1, 4, 1, 1], 4, |v| 0.5 + v as f32 * 0.001);
    let arrays = [x.clone(), il.clone(), ih.clone(), ol.clone(), oh.clone()];
    let op = EltwiseOp::FakeQuantize { levels: 255 };
    let expect = naive_fold(&arrays, |v| fq(v[0], v[1], v[2], v[3], v[4], 255));
    let ts = tensors(&arrays);
    assert_eq!(run(op, &ts).unwrap(), Tensor::F32(expect.clone()));
    // The same bounds under pdpd at axis 1, written as [4, 1, 1].
    let pd: Vec<Tensor> = std::iter::once(Tensor::F32(x.clone()))
        .chain(
            [il, ih, ol, oh]
                .iter()
                .map(|a| Tensor::F32(a.clone().into_shape_with_order(vec![4, 1, 1]).unwrap())),
        )
        .collect();
    let got = eltwise(
        op,
        &pd.iter().collect::<Vec<_>>(),
        &AutoBroadcast::Pdpd { axis: 1 },
    )
    .unwrap();
    assert_eq!(got, Tensor::F32(expect));
    // Into a caller's output, and levels below 2 refused.
    let mut out = Tensor::F32(ArrayD::zeros(IxDyn(&[2, 4, 3, 5])));
    eltwise_into(op, &ts.iter().collect::<Vec<_>>(), &NP, &mut out).unwrap();
    assert_eq!(out, run(op, &ts).unwrap());
    assert!(matches!(
        run(EltwiseOp::FakeQuantize { levels: 1 }, &ts),
        Err(BroadcastError::InvalidAttribute { .. })
    ));
    let ints: Vec<Tensor> = (0..5)
        .map(|_| Tensor::I32(ArrayD::zeros(IxDyn(&[1]))))
        .collect();
    assert!(matches!(
        run(op, &ints),
        Err(BroadcastError::UnsupportedType { .. })
    ));
}

/// FakeQuantize over rows long enough for the vector loop, at the baseline width, AVX2's and
/// AVX-512's (`arithmetic=`; each loop runs where the CPU has it): every other value lands
/// exactly on a tie between two levels (the rounding must go to even), bounds given in either
/// order, NaN and signed zeros in the input; f32, f64 and f16 (computed in f32, rounded once).
#[test]
fn fake_quantize_rounds_ties_to_even_on_long_rows() {
    for width in [
        "arithmetic=baseline",
        "arithmetic=avx2",
        "arithmetic=avx512",
    ] {
        let strategy = Strategy::INTEL.with_overrides(width).unwrap();
        fake_quantize_long_rows(&Context::serial().with_strategy(strategy));
    }
}

fn fake_quantize_long_rows(ctx: &Context) {
    let run = |op: EltwiseOp, ts: &[Tensor]| {
        let views: Vec<TensorView<'_>> = ts.iter().map(Tensor::view).collect();
        eltwise_view(op, &views, &NP, ctx.parallelism())
    };
    // levels 257 and bounds 0..1: the level of x is x * 256, exact, so x = (2k+1)/512 is a
    // tie.
    let x = ArrayD::from_shape_fn(IxDyn(&[1, 4, 9, 70]), |i| {
        let n = (i[1] * 630 + i[2] * 70 + i[3]) as f64;
        match (i[2] * 70 + i[3]) % 97 {
            0 => f64::NAN,
            1 => -0.0,
            2 => 0.0,
            _ => n % 700.0 / 512.0 - 0.25,
        }
    });
    let per_channel =
        |v: [f64; 4]| ArrayD::from_shape_vec(IxDyn(&[1, 4, 1, 1]), v.to_vec()).unwrap();
    let il = per_channel([0.0, 1.0, -0.05, 0.25]);
    let ih = per_channel([1.0, 0.0, 0.9, 0.75]);
    let ol = per_channel([-1.0, 2.0, 0.0, -0.5]);
    let oh = per_channel([1.0, -2.0, 3.0, 0.5]);
    let op = EltwiseOp::FakeQuantize { levels: 257 };
    let reference = |v: &[f64], ty: &str| -> f64 {
        let (x, il, ih, ol, oh) = (v[0], v[1], v[2], v[3], v[4]);
        match ty {
            "f64" => {
                let l = 256.0f64;
                if x <= il.min(ih) {
                    ol
                } else if x > il.max(ih) {
                    oh
                } else {
                    ((x - il) / (ih - il) * l).round_ties_even() / l * (oh - ol) + ol
                }
            }
            _ => f64::from(fq(
                x as f32, il as f32, ih as f32, ol as f32, oh as f32, 257,
            )),
        }
    };
    let arrays = [x, il, ih, ol, oh];
    // Every value of the three types is exactly an f64, so comparing as f64 bits compares
    // their bits (NaN: any NaN).
    let same_values = |got: Vec<f64>, want: Vec<f64>, ty: &str| {
        assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "{ty} element {k}: {g:e} against {w:e}"
            );
        }
    };
    let values = |t: &Tensor| -> Vec<f64> {
        match t {
            Tensor::F64(a) => a.iter().copied().collect(),
            Tensor::F32(a) => a.iter().map(|&v| f64::from(v)).collect(),
            Tensor::F16(a) => a.iter().map(|v| v.to_f64()).collect(),
            other => panic!("not a float tensor: {:?}", other.dtype()),
        }
    };
    let want = naive_fold(&arrays, |v| reference(v, "f64"));
    let got = run(op, &tensors(&arrays)).unwrap();
    same_values(values(&got), values(&Tensor::F64(want)), "f64");
    let f32s: Vec<ArrayD<f32>> = arrays.iter().map(|a| a.mapv(|v| v as f32)).collect();
    let want = naive_fold(&f32s, |v| fq(v[0], v[1], v[2], v[3], v[4], 257));
    let got = run(op, &tensors(&f32s)).unwrap();
    same_values(values(&got), values(&Tensor::F32(want)), "f32");
    // f16: the formula in f32 on the widened values, rounded to f16 once.
    let h: Vec<ArrayD<f16>> = f32s.iter().map(|a| a.mapv(f16::from_f32)).collect();
    let want = naive_fold(&h, |v| {
        let w: Vec<f32> = v.iter().map(|x| x.to_f32()).collect();
        f16::from_f32(fq(w[0], w[1], w[2], w[3], w[4], 257))
    });
    let got = run(op, &tensors(&h)).unwrap();
    same_values(values(&got), values(&Tensor::F16(want)), "f16");
}

#[test]
fn onnx_mod_div_and_pow_follow_numpy() {
    // fmod=0: numpy's floored remainder, the sign of zero from the divisor.
    let a = ArrayD::from_shape_vec(IxDyn(&[4]), vec![-0.0f64, 3.0, -1.0, 7.5]).unwrap();
    let b = ArrayD::from_shape_vec(IxDyn(&[4]), vec![3.0f64, -3.0, 3.0, -2.0]).unwrap();
    let got = run(
        EltwiseOp::OnnxMod { fmod: false },
        &[Tensor::F64(a.clone()), Tensor::F64(b.clone())],
    )
    .unwrap();
    let bits: Vec<u64> = got
        .as_array::<f64>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(
        bits,
        [0.0f64, -0.0, 2.0, -0.5]
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>()
    );
    let got = run(
        EltwiseOp::OnnxMod { fmod: true },
        &[Tensor::F64(a), Tensor::F64(b)],
    )
    .unwrap();
    assert_eq!(
        got.as_array::<f64>().unwrap().as_slice().unwrap(),
        &[-0.0, 0.0, -1.0, 1.5]
    );
    // Integers: ONNX Div truncates, Mod floors unless fmod; zero divisors refused.
    let x = Tensor::I32(ArrayD::from_shape_vec(IxDyn(&[2]), vec![-7, 7]).unwrap());
    let y = Tensor::I32(ArrayD::from_shape_vec(IxDyn(&[2]), vec![2, -2]).unwrap());
    let div = run(EltwiseOp::OnnxDiv, &[x.clone(), y.clone()]).unwrap();
    assert_eq!(
        div.as_array::<i32>().unwrap().as_slice().unwrap(),
        &[-3, -3]
    );
    let m = run(EltwiseOp::OnnxMod { fmod: false }, &[x.clone(), y.clone()]).unwrap();
    assert_eq!(m.as_array::<i32>().unwrap().as_slice().unwrap(), &[1, -1]);
    let zero = Tensor::I32(ArrayD::zeros(IxDyn(&[1])));
    assert!(matches!(
        run(EltwiseOp::OnnxDiv, &[x.clone(), zero]),
        Err(BroadcastError::DivisionByZero { .. })
    ));
    // Integer power: exact and wrapping (numpy), not through f64.
    let base = Tensor::I64(ArrayD::from_elem(IxDyn(&[1]), 3i64));
    let exp = Tensor::I64(ArrayD::from_elem(IxDyn(&[1]), 40i64));
    let p = run(EltwiseOp::OnnxPow, &[base, exp]).unwrap();
    assert_eq!(
        p.as_array::<i64>().unwrap()[[0]],
        (0..40).fold(1i64, |a, _| a.wrapping_mul(3))
    );
}

#[test]
fn operand_counts_and_rules_are_checked() {
    let one = Tensor::F32(ArrayD::zeros(IxDyn(&[2])));
    assert!(matches!(
        run(EltwiseOp::Add, std::slice::from_ref(&one)),
        Err(BroadcastError::Arity { got: 1, .. })
    ));
    assert!(matches!(
        run(EltwiseOp::Sum, &[]),
        Err(BroadcastError::Arity { got: 0, .. })
    ));
    assert!(matches!(
        eltwise(
            EltwiseOp::Sum,
            &[&one, &one],
            &AutoBroadcast::Pdpd { axis: -1 }
        ),
        Err(BroadcastError::RuleNotTaken { .. })
    ));
    let three = Tensor::F32(ArrayD::zeros(IxDyn(&[3])));
    assert!(matches!(
        eltwise(EltwiseOp::Sum, &[&one, &three], &AutoBroadcast::None),
        Err(BroadcastError::ShapesDiffer { .. })
    ));
    assert!(matches!(
        run(EltwiseOp::Sum, &[one.clone(), three]),
        Err(BroadcastError::Incompatible { .. })
    ));
    let int = Tensor::I32(ArrayD::zeros(IxDyn(&[2])));
    assert!(matches!(
        run(EltwiseOp::Sum, &[one, int]),
        Err(BroadcastError::DTypeMismatch { .. })
    ));
}

// ---------------------------------------------------------------------------------------
// IR layers as OpenVINO writes them
// ---------------------------------------------------------------------------------------

fn dims(shape: &[usize]) -> String {
    shape.iter().map(|d| format!("<dim>{d}</dim>")).collect()
}

/// A model of Parameters `p0..` (f32, the given shapes) feeding one layer of `kind` with
/// `data`, and a Result.
fn one_layer(kind: &str, data: &str, shapes: &[&[usize]], out: &[usize]) -> String {
    let mut xml = String::from(r#"<net name="m" version="11"><layers>"#);
    for (i, s) in shapes.iter().enumerate() {
        xml += &format!(
            r#"<layer id="{i}" name="p{i}" type="Parameter" version="opset1"><data shape="{}" element_type="f32"/><output><port id="0" precision="FP32">{}</port></output></layer>"#,
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(","),
            dims(s)
        );
    }
    let n = shapes.len();
    let ins: String = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| format!(r#"<port id="{i}" precision="FP32">{}</port>"#, dims(s)))
        .collect();
    xml += &format!(
        r#"<layer id="{n}" name="op" type="{kind}" version="opset1"><data {data}/><input>{ins}</input><output><port id="{n}" precision="FP32">{}</port></output></layer>"#,
        dims(out)
    );
    xml += &format!(
        r#"<layer id="{}" name="y" type="Result" version="opset1"><input><port id="0" precision="FP32">{}</port></input></layer></layers><edges>"#,
        n + 1,
        dims(out)
    );
    for i in 0..n {
        xml += &format!(r#"<edge from-layer="{i}" from-port="0" to-layer="{n}" to-port="{i}"/>"#);
    }
    xml += &format!(
        r#"<edge from-layer="{n}" from-port="{n}" to-layer="{}" to-port="0"/></edges></net>"#,
        n + 1
    );
    xml
}

fn run_ir(xml: &str, inputs: &[Tensor]) -> Result<Tensor, String> {
    let model = bcast::ir::Model::from_xml(xml, &[]).map_err(|e| e.to_string())?;
    let feed = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("p{i}"), t.clone()))
        .collect();
    let mut out = model.run(&feed).map_err(|e| e.to_string())?;
    Ok(out.remove(0).1)
}

#[test]
fn ir_prelu_and_fake_quantize_layers_run_the_table_ops() {
    let x = Tensor::F32(filled(&[2, 3, 4], 1, |v| v as f32 * 0.3));
    let slope = Tensor::F32(filled(&[3], 2, |v| v as f32 * 0.1));
    let xml = one_layer("PRelu", "", &[&[2, 3, 4], &[3]], &[2, 3, 4]);
    let got = run_ir(&xml, &[x.clone(), slope.clone()]).unwrap();
    assert_eq!(got, run(EltwiseOp::Prelu, &[x.clone(), slope]).unwrap());
    // A slope that would stretch x is refused at load time.
    let bad = one_layer("PRelu", "", &[&[2, 3, 4], &[5]], &[2, 3, 4]);
    assert!(bcast::ir::Model::from_xml(&bad, &[]).is_err());

    let b =
        |seed, base: f32| Tensor::F32(filled(&[1, 3, 1], seed, move |v| base + v as f32 * 0.01));
    let bounds = [b(3, -2.0), b(4, 2.0), b(5, -1.0), b(6, 1.0)];
    let mut ins = vec![x.clone()];
    ins.extend(bounds.iter().cloned());
    let xml = one_layer(
        "FakeQuantize",
        r#"levels="17" auto_broadcast="numpy""#,
        &[&[2, 3, 4], &[1, 3, 1], &[1, 3, 1], &[1, 3, 1], &[1, 3, 1]],
        &[2, 3, 4],
    );
    let got = run_ir(&xml, &ins).unwrap();
    assert_eq!(
        got,
        run(EltwiseOp::FakeQuantize { levels: 17 }, &ins).unwrap()
    );
    let no_levels = one_layer(
        "FakeQuantize",
        r#"auto_broadcast="numpy""#,
        &[&[2, 3, 4], &[1, 3, 1], &[1, 3, 1], &[1, 3, 1], &[1, 3, 1]],
        &[2, 3, 4],
    );
    assert!(bcast::ir::Model::from_xml(&no_levels, &[]).is_err());
}
