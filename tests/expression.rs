//! Expressions run fused against the same ops run one by one: for every op of the op table
//! and every element type it takes, under each auto-broadcast rule it takes, with operands
//! of every layout, split over threads, results must be the same bits (the op-by-op path is
//! what every op's own tests check against OpenVINO's and ONNX's references). Each case also
//! checks that it did run fused, so a silent fallback cannot pass for the fused executor.
//! The chains' values are also checked once against formulas written here.

use std::sync::Arc;

use bcast::exec::{with_tuning, ArithmeticWidth, Context, Strategy, Tuning};
use bcast::ndarray::{ArrayD, Dimension, IxDyn, Slice};
use bcast::{
    AutoBroadcast, BroadcastError, DType, EltwiseOp, ExprLiteral, ExprValue, Expression,
    Parallelism, Tensor, TensorView,
};
use half::{bf16, f16};

const NP: AutoBroadcast = AutoBroadcast::Numpy;

/// Deterministic bits for element `n` of a tensor seeded `seed`.
fn bits(seed: u64, n: u64) -> u64 {
    let mut h = (seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= h >> 29;
    h.wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

/// A tensor of `dtype`: mostly small values (so arithmetic stays interesting), with the
/// type's edge values (NaN, infinities, -0.0, MIN, MAX) among them; `nonzero` keeps every
/// value away from 0 (integer divisors).
fn tensor(dtype: DType, shape: &[usize], seed: u64, nonzero: bool) -> Tensor {
    let mut n = 0u64;
    let mut next = || {
        n += 1;
        bits(seed, n)
    };
    macro_rules! make {
        ($v:ident, $f:expr) => {
            Tensor::$v(ArrayD::from_shape_fn(IxDyn(shape), |_| {
                let b = next();
                let small = ((b >> 33) % 19) as i64 - 9;
                let small = if nonzero && small == 0 { 3 } else { small };
                $f(b, small)
            }))
        };
    }
    macro_rules! int {
        ($v:ident, $t:ty) => {
            make!($v, |b: u64, small: i64| match b % 8 {
                0 if !nonzero || <$t>::MIN != 0 => <$t>::MIN,
                1 => <$t>::MAX,
                2 => b as $t | 1,
                _ => small as $t,
            })
        };
    }
    macro_rules! float {
        ($v:ident, $t:ty, $from:expr) => {
            make!($v, |b: u64, small: i64| match b % 16 {
                0 => $from(f64::NAN),
                1 => $from(f64::INFINITY),
                2 => $from(f64::NEG_INFINITY),
                3 if !nonzero => $from(-0.0),
                4 => $from(((b >> 20) % 10_000) as f64 / 7.0 - 700.0),
                _ => $from(small as f64 * 0.75),
            })
        };
    }
    match dtype {
        DType::Bool => make!(Bool, |b: u64, _| b.is_multiple_of(3)),
        DType::I8 => int!(I8, i8),
        DType::I16 => int!(I16, i16),
        DType::I32 => int!(I32, i32),
        DType::I64 => int!(I64, i64),
        DType::U8 => int!(U8, u8),
        DType::U16 => int!(U16, u16),
        DType::U32 => int!(U32, u32),
        DType::U64 => int!(U64, u64),
        DType::F16 => float!(F16, f16, f16::from_f64),
        DType::BF16 => float!(BF16, bf16, bf16::from_f64),
        DType::F32 => float!(F32, f32, |v: f64| v as f32),
        DType::F64 => float!(F64, f64, |v: f64| v),
        DType::String => panic!("no strings here"),
    }
}

fn views(ts: &[Tensor]) -> Vec<TensorView<'_>> {
    ts.iter().map(Tensor::view).collect()
}

/// Runs `e` fused (asserting it fuses) and op by op, serially and on 3 threads in small
/// chunks, and into a caller's output; every result must be the same bits.
fn check(e: &Expression, inputs: &[TensorView<'_>], what: &str) {
    check_with(e, inputs, what, Strategy::for_process());
}

/// [`check`], every run on a context of `strategy`.
fn check_with(e: &Expression, inputs: &[TensorView<'_>], what: &str, strategy: Strategy) {
    let serial = Context::serial().with_strategy(strategy);
    assert_eq!(e.fuses(inputs), Ok(true), "{what}: {e} must run fused");
    let unfused = e.evaluate_unfused(inputs, serial.parallelism());
    let fused = e.evaluate(inputs, serial.parallelism());
    match (&unfused, &fused) {
        (Ok(u), Ok(f)) => assert!(f.bit_equal(u), "{what}: {e}\nfused   {f:?}\nunfused {u:?}"),
        (Err(u), Err(f)) => assert_eq!(f, u, "{what}: {e}"),
        _ => panic!("{what}: {e}: fused {fused:?}, unfused {unfused:?}"),
    }
    let Ok(u) = unfused else { return };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let pool = Context::pool(Arc::new(pool)).with_strategy(strategy);
    let tuning = Tuning {
        serial_below_bytes: Some(0),
        chunk_elems: Some(7),
        ..Tuning::default()
    };
    let split = with_tuning(tuning, || e.evaluate(inputs, pool.parallelism())).unwrap();
    assert!(split.bit_equal(&u), "{what}: {e}: split over threads");
    let mut into = u.clone();
    scramble(&mut into);
    let default = Context::default().with_strategy(strategy);
    e.evaluate_into(inputs, into.view_mut(), default.parallelism())
        .unwrap();
    assert!(into.bit_equal(&u), "{what}: {e}: into");
}

/// Overwrites every element (so an `into` run that skips one is seen).
fn scramble(t: &mut Tensor) {
    macro_rules! fill {
        ($a:expr, $v:expr) => {
            $a.fill($v)
        };
    }
    match t {
        Tensor::Bool(a) => a.mapv_inplace(|x| !x),
        Tensor::I8(a) => fill!(a, 77),
        Tensor::I16(a) => fill!(a, 77),
        Tensor::I32(a) => fill!(a, 77),
        Tensor::I64(a) => fill!(a, 77),
        Tensor::U8(a) => fill!(a, 77),
        Tensor::U16(a) => fill!(a, 77),
        Tensor::U32(a) => fill!(a, 77),
        Tensor::U64(a) => fill!(a, 77),
        Tensor::F16(a) => fill!(a, f16::from_f32(77.0)),
        Tensor::BF16(a) => fill!(a, bf16::from_f32(77.0)),
        Tensor::F32(a) => fill!(a, 77.0),
        Tensor::F64(a) => fill!(a, 77.0),
        _ => {}
    }
}

/// Whether `op` refuses a zero second operand on integers (its divisor).
fn divides(op: EltwiseOp) -> bool {
    matches!(
        op,
        EltwiseOp::Divide { .. }
            | EltwiseOp::FloorMod
            | EltwiseOp::Mod
            | EltwiseOp::OnnxMod { .. }
            | EltwiseOp::OnnxDiv
    )
}

/// Whether `op`'s result is a condition (comparisons, logical ops), which the chains feed to
/// Select to get back to the operands' type.
fn feeds_select(op: EltwiseOp) -> bool {
    op.output_dtype(DType::F32) == Ok(DType::Bool)
        || op.output_dtype(DType::I32) == Ok(DType::Bool)
        || matches!(
            op,
            EltwiseOp::LogicalAnd | EltwiseOp::LogicalOr | EltwiseOp::LogicalXor
        )
}

/// A two-level chain of `op` (or, for a comparison, `op` feeding a Select) over inputs
/// `a`, `b`, `c`, each node under its own rule.
fn chain(op: EltwiseOp, rules: [AutoBroadcast; 2]) -> Expression {
    let mut e = Expression::new();
    let (a, b, c) = (e.input("a"), e.input("b"), e.input("c"));
    let bool_out = feeds_select(op);
    match op.arity() {
        bcast::Arity::Exactly(2) if bool_out => {
            let cond = e.apply(op, &[a, b], rules[0]).unwrap();
            e.apply(EltwiseOp::Select, &[cond, a, c], rules[1]).unwrap();
        }
        bcast::Arity::Exactly(2) => {
            let n = e.apply(op, &[a, b], rules[0]).unwrap();
            e.apply(op, &[n, c], rules[1]).unwrap();
        }
        bcast::Arity::AtLeast(_) => {
            let n = e.apply(op, &[b, c], rules[0]).unwrap();
            e.apply(op, &[a, n, a], rules[1]).unwrap();
        }
        other => panic!("{op}: {other:?}"),
    }
    e
}

#[test]
fn every_op_and_type_fused_equals_op_by_op() {
    let pdpd = |axis| AutoBroadcast::Pdpd { axis };
    let mut cases = 0;
    for op in EltwiseOp::ALL {
        if matches!(op, EltwiseOp::Select | EltwiseOp::FakeQuantize { .. }) {
            continue; // their own tests below
        }
        for dtype in DType::ALL {
            if dtype == DType::String || op.output_dtype(dtype).is_err() {
                continue;
            }
            // Logical ops feeding Select take bool operands: a, c of the op's type.
            let nz = divides(op);
            let t = |shape: &[usize], seed, nonzero| tensor(dtype, shape, seed, nonzero);
            // numpy: every operand broadcasts (PRelu's slopes only onto x).
            let one_way = matches!(op, EltwiseOp::Prelu | EltwiseOp::OnnxPrelu);
            let shapes_np: [&[usize]; 3] = if one_way {
                [&[2, 3, 4, 5], &[4, 1], &[5]]
            } else {
                [&[2, 3, 1, 5], &[3, 4, 1], &[5]]
            };
            let numpy = [
                t(shapes_np[0], 1, false),
                t(shapes_np[1], 2, nz),
                t(shapes_np[2], 3, nz),
            ];
            let e = chain(op, [NP, NP]);
            check(&e, &views(&numpy), &format!("{op} {dtype} numpy"));
            // The same with operand a transposed and reversed (strided reads).
            let reversed: Vec<usize> = shapes_np[0].iter().rev().copied().collect();
            let wide = transpose_any(t(&reversed, 4, false));
            let strided = [wide, numpy[1].clone(), numpy[2].clone()];
            check(&e, &views(&strided), &format!("{op} {dtype} strided"));
            // none: equal shapes.
            let none = [
                t(&[2, 3, 4], 5, false),
                t(&[2, 3, 4], 6, nz),
                t(&[2, 3, 4], 7, nz),
            ];
            let e = chain(op, [AutoBroadcast::None, AutoBroadcast::None]);
            check(&e, &views(&none), &format!("{op} {dtype} none"));
            cases += 3;
            // pdpd, for the ops that take it: b [3,4] at axis 1, then c [4,1] (trailing
            // 1 dropped) at axis 2; where a comparison feeds Select, Select's condition is
            // a's whole shape, so its rule is axis 0 and c is [2,3,1].
            if op.takes_auto_broadcast() {
                let (c_shape, second): (&[usize], _) = if feeds_select(op) {
                    (&[2, 3, 1], pdpd(0))
                } else {
                    (&[4, 1], pdpd(2))
                };
                let p = [
                    t(&[2, 3, 4, 5], 8, false),
                    t(&[3, 4], 9, nz),
                    t(c_shape, 10, nz),
                ];
                let e = chain(op, [pdpd(1), second]);
                check(&e, &views(&p), &format!("{op} {dtype} pdpd"));
                cases += 1;
            }
        }
    }
    // Every op but Select and FakeQuantize, with each of its types, three or four ways.
    assert!(cases > 300, "{cases} cases");
}

/// The transposed-and-reversed view of `x`, materialised as a non-standard-layout tensor
/// (its strides are not row-major).
fn reversed_t<T: Clone>(x: ArrayD<T>) -> ArrayD<T> {
    let mut x = x.reversed_axes();
    x.invert_axis(bcast::ndarray::Axis(0));
    x
}

fn transpose_any(t: Tensor) -> Tensor {
    macro_rules! each {
        ($($v:ident),*) => {
            match t {
                $(Tensor::$v(x) => Tensor::$v(reversed_t(x)),)*
                other => other,
            }
        };
    }
    each!(Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64)
}

#[test]
fn select_and_fake_quantize_fused_equal_op_by_op() {
    for dtype in DType::ALL {
        if dtype == DType::String {
            continue;
        }
        let c = tensor(DType::Bool, &[3, 1], 11, false);
        let x = tensor(dtype, &[2, 3, 4], 12, false);
        let y = tensor(dtype, &[4], 13, false);
        // A comparison feeding Select needs an ordered type; bool Select too.
        let text = if dtype == DType::Bool {
            "select(c, x, select(y, y, x))"
        } else {
            "select(c, select(x < y, x, y), x)"
        };
        let e = Expression::parse(text, NP).unwrap();
        let inputs = [c.clone(), x.clone(), y.clone()];
        check(&e, &views(&inputs), &format!("select {dtype}"));
        let pdpd = Expression::parse("select(c, x, y)", AutoBroadcast::Pdpd { axis: 1 }).unwrap();
        let y3 = tensor(dtype, &[3], 14, false);
        let c2 = tensor(DType::Bool, &[3, 4], 15, false);
        check(
            &pdpd,
            &views(&[c2, x.clone(), y3]),
            &format!("select {dtype} pdpd"),
        );
    }
    for dtype in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        for levels in [2, 255, 256] {
            let text = format!("fake_quantize(x + s, il, ih, ol, oh, levels={levels})");
            let e = Expression::parse(&text, NP).unwrap();
            let x = tensor(dtype, &[2, 3, 4, 4], 20, false);
            let s = tensor(dtype, &[4], 21, false);
            let lim = |seed, shift: f64| {
                let t = tensor(dtype, &[1, 3, 1, 1], seed, false);
                let Ok(shifted) = Expression::parse(&format!("a + {shift}"), NP)
                    .unwrap()
                    .evaluate(&[t.view()], Parallelism::Serial)
                else {
                    unreachable!()
                };
                shifted
            };
            let inputs = [
                x,
                s,
                lim(22, -5.0),
                lim(23, 5.0),
                lim(24, -1.0),
                lim(25, 1.0),
            ];
            check(
                &e,
                &views(&inputs),
                &format!("fake_quantize {dtype} {levels}"),
            );
        }
    }
}

#[test]
fn prelu_places_its_slope_as_alone_inside_a_chain() {
    for dtype in [DType::F32, DType::F16, DType::I32] {
        // OpenVINO's PRelu: a [C] slope on axis 1; then ONNX's onto the last axis.
        let e = Expression::parse("onnx_prelu(prelu(x + b, s), t)", NP).unwrap();
        let x = tensor(dtype, &[2, 3, 4, 5], 30, false);
        let b = tensor(dtype, &[5], 31, false);
        let s = tensor(dtype, &[3], 32, false);
        let t = tensor(dtype, &[5], 33, false);
        check(&e, &views(&[x, b, s, t]), &format!("prelu {dtype}"));
    }
}

#[test]
fn chains_compute_their_formulas() {
    // BatchNorm at inference and the LayerNorm tail, against the formula per element.
    let x = ArrayD::from_shape_fn(IxDyn(&[2, 3, 4, 5]), |i| {
        (i[0] * 60 + i[1] * 20 + i[2] * 5 + i[3]) as f32 * 0.37 - 20.0
    });
    let scale = ArrayD::from_shape_fn(IxDyn(&[3, 1, 1]), |i| 0.5 + i[0] as f32);
    let shift = ArrayD::from_shape_fn(IxDyn(&[3, 1, 1]), |i| i[0] as f32 - 1.0);
    let e = Expression::parse("maximum(x * s + b, 0)", NP).unwrap();
    let inputs = [
        Tensor::F32(x.clone()),
        Tensor::F32(scale.clone()),
        Tensor::F32(shift.clone()),
    ];
    let y = e.evaluate(&views(&inputs), Parallelism::Auto).unwrap();
    let expect = ArrayD::from_shape_fn(IxDyn(&[2, 3, 4, 5]), |i| {
        let c = i[1];
        let v = x[&i] * scale[[c, 0, 0]] + shift[[c, 0, 0]];
        if v > 0.0 {
            v
        } else {
            0.0
        }
    });
    assert_eq!(y, Tensor::F32(expect));

    let x = ArrayD::from_shape_fn(IxDyn(&[4, 6]), |i| (i[0] * 6 + i[1]) as f64 * 0.1);
    let m = ArrayD::from_shape_fn(IxDyn(&[4, 1]), |i| i[0] as f64);
    let r = ArrayD::from_shape_fn(IxDyn(&[4, 1]), |i| 1.0 / (1.0 + i[0] as f64));
    let g = ArrayD::from_shape_fn(IxDyn(&[6]), |i| 2.0 - i[0] as f64 * 0.25);
    let b = ArrayD::from_shape_fn(IxDyn(&[6]), |i| i[0] as f64);
    let e = Expression::parse("(x - m) * r * g + b", NP).unwrap();
    let inputs: Vec<Tensor> = [&x, &m, &r, &g, &b]
        .iter()
        .map(|a| Tensor::F64((*a).clone()))
        .collect();
    let y = e.evaluate(&views(&inputs), Parallelism::Auto).unwrap();
    let expect = ArrayD::from_shape_fn(IxDyn(&[4, 6]), |i| {
        (x[&i] - m[[i[0], 0]]) * r[[i[0], 0]] * g[[i[1]]] + b[[i[1]]]
    });
    assert_eq!(y, Tensor::F64(expect));
}

#[test]
fn literals_take_the_type_beside_them() {
    // f16: 0.1 rounds once to f16, as numpy converts a Python float for an f16 array.
    let x = tensor(DType::F16, &[3, 5], 40, false);
    let e = Expression::parse("x * 0.1 + 3", NP).unwrap();
    check(&e, &views(std::slice::from_ref(&x)), "f16 literals");
    let y = e.evaluate(&[x.view()], Parallelism::Serial).unwrap();
    let (Tensor::F16(x), Tensor::F16(y)) = (&x, &y) else {
        panic!("f16 in, f16 out")
    };
    for (x, y) in x.iter().zip(y) {
        let want =
            f16::from_f32(f16::from_f32(x.to_f32() * f16::from_f64(0.1).to_f32()).to_f32() + 3.0);
        assert_eq!(y.to_bits(), want.to_bits(), "{x}");
    }
    // A bool literal beside bool operands, a number beside floats, in one expression.
    let e = Expression::parse("select(logical_and(c, true), x, 0.5)", NP).unwrap();
    let c = tensor(DType::Bool, &[4], 41, false);
    let x = tensor(DType::F64, &[2, 4], 42, false);
    check(&e, &views(&[c, x]), "mixed literals");
}

#[test]
fn a_node_used_twice_is_placed_at_each_use() {
    // pdpd places the shared node [3] at axis 1 for one use and axis 2 for the other.
    let mut e = Expression::new();
    let (x, s) = (e.input("x"), e.input("s"));
    let two = e.literal(ExprLiteral::Int(2));
    let shared = e
        .apply(EltwiseOp::Multiply, &[s, two], AutoBroadcast::Numpy)
        .unwrap();
    let first = e
        .apply(
            EltwiseOp::Add,
            &[x, shared],
            AutoBroadcast::Pdpd { axis: 1 },
        )
        .unwrap();
    e.apply(
        EltwiseOp::Subtract,
        &[first, shared],
        AutoBroadcast::Pdpd { axis: 2 },
    )
    .unwrap();
    assert!(matches!(shared, ExprValue::Node(0)));
    let xs = tensor(DType::F32, &[2, 3, 3], 50, false);
    let ss = tensor(DType::F32, &[3], 51, false);
    check(&e, &views(&[xs, ss]), "shared node");
}

#[test]
fn a_zero_divisor_inside_the_chain_is_refused_as_alone() {
    let e = Expression::parse("x / (y - y) + 1", NP).unwrap();
    let x = tensor(DType::I32, &[4, 8], 60, false);
    let y = tensor(DType::I32, &[8], 61, true);
    let err = e.evaluate(&views(&[x.clone(), y.clone()]), Parallelism::Auto);
    assert!(
        matches!(
            err,
            Err(BroadcastError::DivisionByZero { op: "divide", .. })
        ),
        "{err:?}"
    );
    check(&e, &views(&[x.clone(), y]), "zero divisor");
    // One zero in a broadcast divisor is found whichever block holds it.
    let mut d = vec![5i32; 300];
    d[217] = 0;
    let d = Tensor::I32(ArrayD::from_shape_vec(IxDyn(&[300]), d).unwrap());
    let big = tensor(DType::I32, &[50, 300], 62, false);
    let e = Expression::parse("x % d * 3", NP).unwrap();
    check(&e, &views(&[big, d]), "one zero");
}

/// Found by the expr_text fuzz target (seed 1795928312): a zero divisor in the first node and
/// operands of incompatible shapes in a later one. The fused run plans the whole expression
/// before it runs, so the op-by-op run must report the shape error too, not the zero divisor.
#[test]
fn a_shape_error_anywhere_is_reported_before_a_zero_divisor() {
    let e = Expression::parse("x / y % 2 - divide_ ** f", NP).unwrap();
    let zeros = Tensor::I32(ArrayD::zeros(IxDyn(&[2, 3])));
    let x = Tensor::I32(ArrayD::from_elem(IxDyn(&[2, 3]), 7));
    let divide_ = Tensor::I32(ArrayD::zeros(IxDyn(&[0, 3])));
    let f = Tensor::I32(ArrayD::zeros(IxDyn(&[2, 1])));
    let inputs = [x.view(), zeros.view(), divide_.view(), f.view()];
    let fused = e.evaluate(&inputs, Parallelism::Serial);
    let unfused = e.evaluate_unfused(&inputs, Parallelism::Serial);
    for (way, got) in [("fused", &fused), ("op by op", &unfused)] {
        assert!(
            matches!(got, Err(BroadcastError::Incompatible { .. })),
            "{way}: {got:?}"
        );
    }
    assert_eq!(fused, unfused);
}

/// Found by the expr_nodes fuzz target (C node arrays): a node the result does not read
/// divides by zero. The fused run lowers from the result and never reaches it; the op-by-op
/// run must not run it either. Its shapes are still checked by both.
#[test]
fn a_node_the_result_does_not_read_is_checked_but_not_run() {
    let mut e = Expression::new();
    let x = e.input("x");
    let zero = e.input("zero");
    e.apply(EltwiseOp::Mod, &[x, zero], NP).unwrap();
    e.apply(EltwiseOp::Equal, &[x, x], NP).unwrap();
    let xs = Tensor::I64(ArrayD::from_elem(IxDyn(&[2, 3]), 5));
    let zeros = Tensor::I64(ArrayD::zeros(IxDyn(&[3])));
    let inputs = [xs.view(), zeros.view()];
    let want = Tensor::Bool(ArrayD::from_elem(IxDyn(&[2, 3]), true));
    assert_eq!(e.evaluate(&inputs, Parallelism::Serial).unwrap(), want);
    assert_eq!(
        e.evaluate_unfused(&inputs, Parallelism::Serial).unwrap(),
        want
    );
    // The unread node's shapes are still the expression's to check.
    let wrong = Tensor::I64(ArrayD::zeros(IxDyn(&[4])));
    let inputs = [xs.view(), wrong.view()];
    for got in [
        e.evaluate(&inputs, Parallelism::Serial),
        e.evaluate_unfused(&inputs, Parallelism::Serial),
    ] {
        assert!(
            matches!(got, Err(BroadcastError::Incompatible { .. })),
            "{got:?}"
        );
    }
}

#[test]
fn what_the_executor_does_not_take_runs_op_by_op() {
    // Strings (Select only), two non-bool element types, an empty output.
    let s =
        Tensor::String(ArrayD::from_shape_vec(IxDyn(&[2]), vec!["a".into(), "b".into()]).unwrap());
    let t = Tensor::String(ArrayD::from_shape_vec(IxDyn(&[1]), vec!["z".into()]).unwrap());
    let c = Tensor::Bool(ArrayD::from_shape_vec(IxDyn(&[2]), vec![true, false]).unwrap());
    let e = Expression::parse("select(c, s, t)", NP).unwrap();
    let inputs = [c, s, t];
    assert_eq!(e.fuses(&views(&inputs)), Ok(false));
    let y = e.evaluate(&views(&inputs), Parallelism::Auto).unwrap();
    let want =
        Tensor::String(ArrayD::from_shape_vec(IxDyn(&[2]), vec!["a".into(), "z".into()]).unwrap());
    assert_eq!(y, want);

    let e = Expression::parse("logical_and(a < b, x < y)", NP).unwrap();
    let inputs = [
        tensor(DType::I32, &[3], 70, false),
        tensor(DType::I32, &[3], 71, false),
        tensor(DType::F32, &[3], 72, false),
        tensor(DType::F32, &[3], 73, false),
    ];
    assert_eq!(e.fuses(&views(&inputs)), Ok(false));
    assert!(e
        .evaluate(&views(&inputs), Parallelism::Auto)
        .unwrap()
        .bit_equal(
            &e.evaluate_unfused(&views(&inputs), Parallelism::Auto)
                .unwrap()
        ));

    let e = Expression::parse("x / (y - y)", NP).unwrap();
    let inputs = [
        tensor(DType::I32, &[0, 3], 74, false),
        tensor(DType::I32, &[3], 75, false),
    ];
    assert_eq!(e.fuses(&views(&inputs)), Ok(false));
    // The division's output is empty, so the op alone checks no divisor, and neither does
    // the expression.
    let y = e.evaluate(&views(&inputs), Parallelism::Auto).unwrap();
    assert_eq!(y.shape(), &[0, 3]);
    assert!(y.bit_equal(
        &e.evaluate_unfused(&views(&inputs), Parallelism::Auto)
            .unwrap()
    ));
}

/// Expressions of 3, 6 and 12 leaves (the fused plan is 4, 8 or 16 operands wide), a bool
/// leaf among them, every leaf broadcast its own way.
#[test]
fn every_plan_width_reads_its_inputs_in_place() {
    let shapes: [&[usize]; 6] = [&[2, 5, 7], &[5, 1], &[7], &[], &[2, 1, 1], &[1, 5, 7]];
    for (text, names) in [
        ("(a + b) * d", "abd"),
        ("select(c, a + b * d, e) - f * g", "cabdefg"),
        (
            "select(c, a + b * d, e) - f * g + h / k + m - n * p",
            "cabdefghkmnp",
        ),
    ] {
        let e = Expression::parse(text, NP).unwrap();
        let inputs: Vec<Tensor> = names
            .chars()
            .enumerate()
            .map(|(k, name)| {
                let shape = shapes[k % shapes.len()];
                if name == 'c' {
                    tensor(DType::Bool, shape, 90 + k as u64, false)
                } else {
                    tensor(DType::F32, shape, 90 + k as u64, false)
                }
            })
            .collect();
        check(&e, &views(&inputs), text);
    }
}

#[test]
fn big_outputs_split_and_stream_identically() {
    // Long rows, a periodic operand ([3] under [.., 3]) and a column operand, on a pool.
    // Only `x` holds NaNs: where two NaNs meet, which one comes out is the compiled
    // instruction's operand order (`register_chains_take_runs_of_whole_rows` says more).
    let x = tensor(DType::F32, &[300, 513, 3], 80, false);
    let p = finite(tensor(DType::F32, &[3], 81, false));
    let col = finite(tensor(DType::F32, &[300, 1, 1], 82, false));
    let e = Expression::parse("(x + p) * col - x", NP).unwrap();
    let inputs = [x, p, col];
    let serial = e.evaluate(&views(&inputs), Parallelism::Serial).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let pooled = e
        .evaluate(&views(&inputs), Parallelism::Pool(&pool))
        .unwrap();
    let unfused = e
        .evaluate_unfused(&views(&inputs), Parallelism::Serial)
        .unwrap();
    assert!(serial.bit_equal(&unfused));
    assert!(pooled.bit_equal(&unfused));
    // A stepped view of x.
    let Tensor::F32(xa) = &inputs[0] else {
        unreachable!()
    };
    let stepped = xa.slice_each_axis(|ax| {
        if ax.axis.index() == 1 {
            Slice::new(0, None, 2)
        } else {
            Slice::from(..)
        }
    });
    let v = [
        TensorView::from(stepped),
        inputs[1].view(),
        inputs[2].view(),
    ];
    assert_eq!(e.fuses(&v), Ok(true));
    assert!(e
        .evaluate(&v, Parallelism::Auto)
        .unwrap()
        .bit_equal(&e.evaluate_unfused(&v, Parallelism::Auto).unwrap()));
}

/// `(x + y) * s` per element, for inputs of any layout: the formula, not bcast.
fn add_times(x: &ArrayD<f64>, y: &ArrayD<f64>, s: &ArrayD<f64>) -> ArrayD<f64> {
    ArrayD::from_shape_fn(x.raw_dim(), |i| (x[&i] + y[[i[1]]]) * s[[i[0], 0]])
}

#[test]
fn a_kept_lowering_serves_only_inputs_laid_out_alike() {
    // An expression keeps its last lowering for the next call on inputs of the same types,
    // shapes and strides; every other call must lower anew. Each call below changes one of
    // them, and each result is checked against the formula.
    let e = Expression::parse("(x + y) * s", NP).unwrap();
    let f = |shape: &[usize], k: f64| {
        ArrayD::from_shape_fn(IxDyn(shape), |i| {
            (0..i.ndim()).fold(k, |a, d| a * 3.0 + i[d] as f64)
        })
    };
    let run = |x: &ArrayD<f64>, y: &ArrayD<f64>, s: &ArrayD<f64>| {
        let inputs = [
            TensorView::F64(x.view()),
            TensorView::F64(y.view()),
            TensorView::F64(s.view()),
        ];
        e.evaluate(&inputs, Parallelism::Serial).unwrap()
    };
    let (x, y, s) = (f(&[2, 3], 1.0), f(&[3], 2.0), f(&[2, 1], 0.5));
    assert_eq!(run(&x, &y, &s), Tensor::F64(add_times(&x, &y, &s)));
    // Same shapes again (the kept lowering), then other shapes.
    assert_eq!(run(&x, &y, &s), Tensor::F64(add_times(&x, &y, &s)));
    let (x2, y2, s2) = (f(&[3, 4], 4.0), f(&[4], 5.0), f(&[3, 1], 0.25));
    assert_eq!(run(&x2, &y2, &s2), Tensor::F64(add_times(&x2, &y2, &s2)));
    // The shapes of the first call, x with other strides (a transposed [3, 2]).
    let xt = f(&[3, 2], 7.0).reversed_axes();
    assert_eq!(xt.shape(), x.shape());
    assert_ne!(xt.strides(), x.strides());
    assert_eq!(run(&xt, &y, &s), Tensor::F64(add_times(&xt, &y, &s)));
    assert_eq!(run(&x, &y, &s), Tensor::F64(add_times(&x, &y, &s)));
    // Another element type on the same shapes.
    let as_f32 = |a: &ArrayD<f64>| Tensor::F32(a.mapv(|v| v as f32));
    let inputs32 = [as_f32(&x), as_f32(&y), as_f32(&s)];
    let want32 = add_times(&x, &y, &s).mapv(|v| v as f32);
    assert_eq!(
        e.evaluate(&views(&inputs32), Parallelism::Serial).unwrap(),
        Tensor::F32(want32)
    );

    // A node added after a call is part of the next one; a clone computes the same.
    let mut b = Expression::new();
    let (xi, yi) = (b.input("x"), b.input("y"));
    let sum = b.apply(EltwiseOp::Add, &[xi, yi], NP).unwrap();
    let two = [Tensor::F64(x.clone()), Tensor::F64(y.clone())];
    let sum_only = ArrayD::from_shape_fn(x.raw_dim(), |i| x[&i] + y[[i[1]]]);
    assert_eq!(
        b.evaluate(&views(&two), Parallelism::Serial).unwrap(),
        Tensor::F64(sum_only.clone())
    );
    // (A new node on nodes and inputs already there: no new input or literal between.)
    let product = b.apply(EltwiseOp::Multiply, &[sum, yi], NP).unwrap();
    let times_y = ArrayD::from_shape_fn(x.raw_dim(), |i| sum_only[&i] * y[[i[1]]]);
    assert_eq!(
        b.evaluate(&views(&two), Parallelism::Serial).unwrap(),
        Tensor::F64(times_y)
    );
    let k = b.literal(ExprLiteral::Float(2.0));
    b.apply(EltwiseOp::Multiply, &[product, k], NP).unwrap();
    let doubled = ArrayD::from_shape_fn(x.raw_dim(), |i| sum_only[&i] * y[[i[1]]] * 2.0);
    assert_eq!(
        b.evaluate(&views(&two), Parallelism::Serial).unwrap(),
        Tensor::F64(doubled.clone())
    );
    assert_eq!(
        b.clone()
            .evaluate(&views(&two), Parallelism::Serial)
            .unwrap(),
        Tensor::F64(doubled)
    );
}

/// Whether this CPU converts f16 in hardware (what the f16 register chains need).
#[cfg(target_arch = "x86_64")]
fn f16c() -> bool {
    std::arch::is_x86_feature_detected!("f16c") && std::arch::is_x86_feature_detected!("avx2")
}

#[cfg(not(target_arch = "x86_64"))]
fn f16c() -> bool {
    false
}

/// Whether this build and CPU compute f16 chains in AVX512-FP16 registers (the build needs
/// Rust 1.89, `build.rs`).
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
fn avx512fp16() -> bool {
    use std::arch::is_x86_feature_detected as has;
    has!("avx512f") && has!("avx512bw") && has!("avx512vl") && has!("avx512fp16")
}

#[cfg(not(all(target_arch = "x86_64", bcast_avx512)))]
fn avx512fp16() -> bool {
    false
}

/// Whether this build and CPU compute f32 chains in AVX-512 registers (the build needs Rust
/// 1.89, `build.rs`).
#[cfg(all(target_arch = "x86_64", bcast_avx512))]
fn avx512() -> bool {
    use std::arch::is_x86_feature_detected as has;
    has!("avx2") && has!("avx512f") && has!("avx512bw") && has!("avx512vl") && has!("avx512dq")
}

#[cfg(not(all(target_arch = "x86_64", bcast_avx512)))]
fn avx512() -> bool {
    false
}

/// The arithmetic widths a chain may run at: the baseline, AVX2 (F16C's widening, the
/// vectoriser's lanes) and AVX-512 (f32 in 64-byte registers, `fp32.rs`).
const WIDTHS: [ArithmeticWidth; 3] = [
    ArithmeticWidth::Baseline,
    ArithmeticWidth::Avx2,
    ArithmeticWidth::Avx512,
];

/// Register chains on, at `width`, on f16 values where `native_f16`.
fn chain_strategy(width: ArithmeticWidth, native_f16: bool) -> Strategy {
    Strategy {
        register_chains: true,
        arithmetic: width,
        native_f16,
        ..Strategy::PLAIN
    }
}

/// Linear chains run with their running value in registers (`chain.rs`) where the strategy
/// says so, at every arithmetic width (f32 in AVX-512 registers where the CPU has them), and
/// f16 ones widened and native (AVX512-FP16, where the CPU has it): every two-operand op of
/// every type, the running value
/// as first and as second operand, beside a row broadcast along the output, one value per
/// row and a literal, over rows long enough for whole groups of lanes and starting at every
/// alignment (rows of an odd length). Each result must be the op-by-op bits (and `check`
/// runs it split in small chunks, where groups are cut short).
#[test]
fn register_chains_equal_op_by_op() {
    let f16c = f16c();
    let fp16 = avx512fp16();
    if !fp16 {
        eprintln!("this CPU or compiler has no AVX512-FP16: f16 chains checked widened only");
    }
    let zmm = avx512();
    if !zmm {
        eprintln!("this CPU or compiler has no AVX-512: f32 chains checked at AVX2 at most");
    }
    let mut in_registers = 0;
    let mut native = 0;
    let mut f32x16 = 0;
    for (width, native_f16) in WIDTHS.iter().flat_map(|&w| [(w, false), (w, true)]) {
        let wide = width >= ArithmeticWidth::Avx2;
        let strategy = chain_strategy(width, native_f16);
        for op in EltwiseOp::ALL {
            if op.arity() != bcast::Arity::Exactly(2) || feeds_select(op) {
                continue;
            }
            let one_way = matches!(op, EltwiseOp::Prelu | EltwiseOp::OnnxPrelu);
            for dtype in DType::ALL {
                if matches!(dtype, DType::String | DType::Bool) || op.output_dtype(dtype).is_err() {
                    continue;
                }
                let int = !matches!(dtype, DType::F16 | DType::BF16 | DType::F32 | DType::F64);
                let nz = divides(op);
                // ((x op b) op m), or (m op (x op b)), then op 3.
                let mut e = Expression::new();
                let (x, b, m) = (e.input("x"), e.input("b"), e.input("m"));
                let three = e.literal(ExprLiteral::Int(3));
                let n = e.apply(op, &[x, b], NP).unwrap();
                let n = if one_way {
                    e.apply(op, &[n, m], NP).unwrap()
                } else {
                    e.apply(op, &[m, n], NP).unwrap()
                };
                e.apply(op, &[n, three], NP).unwrap();
                let (x_shape, m_shape): (&[usize], &[usize]) = if one_way {
                    (&[3, 203], &[203])
                } else {
                    (&[3, 203], &[3, 1])
                };
                let inputs = [
                    tensor(dtype, x_shape, 50, false),
                    tensor(dtype, &[203], 51, nz),
                    tensor(dtype, m_shape, 52, nz),
                ];
                let what = format!("{op} {dtype} {width:?} native_f16={native_f16}");
                // The ops whose rows say `Lanes` (lane arithmetic, no call or loop), but
                // not integer division (its divisor is checked).
                let lanes = matches!(
                    op,
                    EltwiseOp::Add
                        | EltwiseOp::Subtract
                        | EltwiseOp::Multiply
                        | EltwiseOp::Divide { .. }
                        | EltwiseOp::Maximum
                        | EltwiseOp::Minimum
                        | EltwiseOp::SquaredDifference
                        | EltwiseOp::BitwiseAnd
                        | EltwiseOp::BitwiseOr
                        | EltwiseOp::BitwiseXor
                        | EltwiseOp::Prelu
                        | EltwiseOp::OnnxPrelu
                        | EltwiseOp::OnnxDiv
                );
                // Maximum and Minimum compare 16-bit floats natively: block by block, unless
                // f16 computes in AVX512-FP16 registers, which every 16-bit float op that
                // chains does there (SquaredDifference's two f32 roundings excepted).
                let half = matches!(dtype, DType::F16 | DType::BF16);
                let compares = half && matches!(op, EltwiseOp::Maximum | EltwiseOp::Minimum);
                let widened =
                    lanes && !(int && nz) && !compares && (dtype != DType::F16 || (wide && f16c));
                let f16x32 = dtype == DType::F16
                    && native_f16
                    && fp16
                    && lanes
                    && op != EltwiseOp::SquaredDifference;
                let chains = widened || f16x32;
                native += usize::from(f16x32);
                // Every f32 op that chains has a body on 16 lanes.
                f32x16 += usize::from(
                    dtype == DType::F32 && width == ArithmeticWidth::Avx512 && zmm && widened,
                );
                let on = Context::serial().with_strategy(strategy);
                assert_eq!(
                    e.in_registers(&views(&inputs), on.parallelism()),
                    Ok(chains),
                    "{what}: in registers"
                );
                check_with(&e, &views(&inputs), &what, strategy);
                if chains {
                    in_registers += 1;
                }
                // The block path still serves the chain where the strategy turns it off.
                let blocks = Strategy {
                    register_chains: false,
                    ..strategy
                };
                let on = Context::serial().with_strategy(blocks);
                assert_eq!(
                    e.in_registers(&views(&inputs), on.parallelism()),
                    Ok(false),
                    "{what}"
                );
            }
        }
    }
    assert!(in_registers > 300, "{in_registers} chains in registers");
    assert!(!fp16 || native == 27, "{native} f16 chains natively");
    assert!(
        !zmm || f32x16 == 20,
        "{f32x16} f32 chains in AVX-512 registers"
    );
}

/// `t` with its NaNs and infinities replaced by 1.5.
fn finite(t: Tensor) -> Tensor {
    macro_rules! each {
        ($($v:ident: $one:expr),*) => {
            match t {
                $(Tensor::$v(a) => Tensor::$v(a.mapv(|v| if v.is_finite() { v } else { $one })),)*
                other => other,
            }
        };
    }
    each!(F16: f16::from_f32(1.5), BF16: bf16::from_f32(1.5), F32: 1.5f32, F64: 1.5f64)
}

/// A register chain takes a run of whole rows in one call, each operand's next row one step
/// of the innermost outer axis further: a per-row value (`m`), a value constant along that
/// axis but changing at its carry (`r`), a row repeated (`g`), a row changing with that axis
/// (`c`), a literal, and `x` read forwards and with an outer axis reversed (a negative row
/// step). Rows of 37 (whole groups, then a tail) and of 150 (a streamed row's head to its
/// first line boundary, whole groups of the widest kernels, then a tail), chunks cut mid-row
/// and across carries: every result must be the op-by-op bits, with ordinary stores and with
/// streaming ones.
///
/// Only `x` holds NaNs and infinities: where two NaNs meet in one op (an input's 0x7fc00000
/// and the 0xffc00000 that `inf * 0` makes), which of them comes out is the compiled
/// instruction's operand order, which IEEE 754 leaves open and the compiler may swap, so
/// fused and op-by-op code may keep different ones. With one NaN source no two meet.
#[test]
fn register_chains_take_runs_of_whole_rows() {
    let f16c = f16c();
    let e = Expression::parse("((x - m) * r + g) * c - 2", NP).unwrap();
    for (width, row) in WIDTHS.into_iter().flat_map(|w| [(w, 37), (w, 150)]) {
        let wide = width >= ArithmeticWidth::Avx2;
        let strategy = chain_strategy(width, false);
        for dtype in [DType::F32, DType::F64, DType::I32, DType::BF16, DType::F16] {
            if dtype == DType::F16 && !(wide && f16c) {
                continue;
            }
            let x = tensor(dtype, &[2, 5, 3, row], 90, false);
            let others = [
                finite(tensor(dtype, &[2, 5, 3, 1], 91, false)),
                finite(tensor(dtype, &[5, 1, 1], 92, false)),
                finite(tensor(dtype, &[row], 93, false)),
                finite(tensor(dtype, &[3, row], 94, false)),
            ];
            let mut flipped = x.clone();
            macro_rules! flip {
                ($($v:ident),*) => {
                    match &mut flipped {
                        $(Tensor::$v(a) => a.invert_axis(bcast::ndarray::Axis(1)),)*
                        _ => unreachable!(),
                    }
                };
            }
            flip!(F32, F64, I32, BF16, F16);
            for first in [&x, &flipped] {
                let mut inputs = vec![first.view()];
                inputs.extend(others.iter().map(Tensor::view));
                let what = format!("{dtype} {width:?} rows of {row}");
                {
                    let serial = Context::serial().with_strategy(strategy);
                    assert_eq!(
                        e.in_registers(&inputs, serial.parallelism()),
                        Ok(true),
                        "{what}"
                    );
                    check_with(&e, &inputs, &what, strategy);
                    let unfused = e.evaluate_unfused(&inputs, Parallelism::Serial).unwrap();
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(3)
                        .build()
                        .unwrap();
                    let pool = Context::pool(Arc::new(pool)).with_strategy(strategy);
                    // Streaming stores (as for an output beyond the cache) and ordinary ones.
                    for stream in [false, true] {
                        for chunk in [2 * row + 5, 3 * row, 7 * row + 1, 15 * row, 1000] {
                            let tuning = Tuning {
                                serial_below_bytes: Some(0),
                                chunk_elems: Some(chunk),
                                stream_stores: Some(stream),
                                ..Tuning::default()
                            };
                            let split =
                                with_tuning(tuning, || e.evaluate(&inputs, pool.parallelism()))
                                    .unwrap();
                            assert!(
                                split.bit_equal(&unfused),
                                "{what}: chunks of {chunk}, streamed {stream}"
                            );
                        }
                        let whole = Tuning {
                            stream_stores: Some(stream),
                            ..Tuning::default()
                        };
                        let mut into = unfused.clone();
                        scramble(&mut into);
                        with_tuning(whole, || {
                            e.evaluate_into(&inputs, into.view_mut(), serial.parallelism())
                        })
                        .unwrap();
                        assert!(into.bit_equal(&unfused), "{what}: into, streamed {stream}");
                    }
                }
            }
        }
    }
}

// Expressions of any depth and length: a result or a typed error, never a stack overflow.
// Each expected value is computed here by a plain loop over the elements.

fn i64s(v: &[i64]) -> Tensor {
    Tensor::I64(ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).unwrap())
}

fn f64s(v: &[f64]) -> Tensor {
    Tensor::F64(ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).unwrap())
}

fn bools(v: &[bool]) -> Tensor {
    Tensor::Bool(ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).unwrap())
}

/// `e` on `inputs`, fused (where it takes it) and op by op: both must give `want`.
fn runs_to(e: &Expression, inputs: &[Tensor], want: &Tensor, what: &str) {
    let got = e.evaluate(&views(inputs), Parallelism::Auto).unwrap();
    assert!(got.bit_equal(want), "{what}: {got:?}, want {want:?}");
    let got = e
        .evaluate_unfused(&views(inputs), Parallelism::Auto)
        .unwrap();
    assert!(got.bit_equal(want), "{what} op by op: {got:?}");
}

#[test]
fn parentheses_nested_far_deeper_than_any_text_parse_and_run() {
    // The 20,000 and 60,000 aborted the CLI; 200,000 here.
    let depth = 200_000;
    let text = format!("{}x + 1{}", "(".repeat(depth), ")".repeat(depth));
    let e = Expression::parse(&text, NP).unwrap();
    assert_eq!(e.nodes().len(), 1);
    runs_to(&e, &[i64s(&[1, -7])], &i64s(&[2, -6]), "nested");
    // Unclosed at that depth: an error naming what is missing.
    let err = Expression::parse(&text[..text.len() - 1], NP).unwrap_err();
    assert!(err.to_string().contains("expected ')'"), "{err}");
}

#[test]
fn a_flat_chain_of_thirty_thousand_terms_runs() {
    let n = 30_000;
    let text = vec!["x"; n].join("+");
    let e = Expression::parse(&text, NP).unwrap();
    assert_eq!(e.nodes().len(), n - 1);
    let x = [3i64, -5, 1 << 40];
    let want: Vec<i64> = x.iter().map(|v| v.wrapping_mul(n as i64)).collect();
    runs_to(&e, &[i64s(&x)], &i64s(&want), "x+x+...");
    // Its text form is as deep as it is long, and reads back to the same expression.
    assert_eq!(Expression::parse(&e.to_string(), NP).unwrap(), e);
}

#[test]
fn right_grouping_powers_and_deep_calls_run() {
    // x ** x ** ... groups to the right: 40,000 levels deep as the grammar reads it.
    let n = 40_000;
    let e = Expression::parse(&vec!["x"; n].join(" ** "), NP).unwrap();
    assert_eq!(e.nodes().len(), n - 1);
    runs_to(&e, &[f64s(&[1.0])], &f64s(&[1.0]), "x ** x ** ...");
    // maximum(maximum(...maximum(x, 1)..., 2), n): each level's own bound.
    let depth = 30_000;
    let mut text = "x".to_string();
    for k in 1..=depth {
        text = format!("maximum({text}, {k})");
    }
    let e = Expression::parse(&text, NP).unwrap();
    assert_eq!(e.nodes().len(), depth);
    let x = [5i64, 40_000, -3];
    let want: Vec<i64> = x.iter().map(|&v| v.max(depth as i64)).collect();
    runs_to(&e, &[i64s(&x)], &i64s(&want), "maximum(maximum(...))");
    assert_eq!(Expression::parse(&e.to_string(), NP).unwrap(), e);
}

#[test]
fn long_select_chains_run() {
    // select(c, select(c, ... x ..., y), y): where c, x, else y, at any depth.
    let depth = 20_000;
    let mut text = "x".to_string();
    for _ in 0..depth {
        text = format!("select(c, {text}, y)");
    }
    let e = Expression::parse(&text, NP).unwrap();
    let c = [true, false, true];
    let (x, y) = ([1.5, 2.5, 3.5], [-1.0, -2.0, -3.0]);
    let want: Vec<f64> = (0..3).map(|i| if c[i] { x[i] } else { y[i] }).collect();
    runs_to(
        &e,
        &[bools(&c), f64s(&x), f64s(&y)],
        &f64s(&want),
        "select chain",
    );
    // And the other way round, each select's else the one before: y where c, else x.
    let mut text = "x".to_string();
    for _ in 0..depth {
        text = format!("select(c, y, {text})");
    }
    let e = Expression::parse(&text, NP).unwrap();
    assert_eq!(e.inputs(), ["c", "y", "x"]);
    let want: Vec<f64> = (0..3).map(|i| if c[i] { y[i] } else { x[i] }).collect();
    runs_to(
        &e,
        &[bools(&c), f64s(&y), f64s(&x)],
        &f64s(&want),
        "else chain",
    );
}

#[test]
fn more_ops_than_the_limit_are_refused_at_once_naming_it() {
    // 100,000 ops of text: refused while parsing, without building the rest.
    let start = std::time::Instant::now();
    let text = vec!["x"; 100_001].join("+");
    let err = Expression::parse(&text, NP).unwrap_err();
    assert!(
        matches!(err, BroadcastError::InvalidExpression { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("Expression::MAX_OPS"), "{err}");
    assert!(
        err.to_string().contains(&Expression::MAX_OPS.to_string()),
        "{err}"
    );
    // A loose bound: a walk quadratic in the length would take minutes.
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
    // The limit itself: MAX_OPS ops are an expression, one more is not.
    let at_limit = vec!["x"; Expression::MAX_OPS + 1].join("+");
    assert_eq!(
        Expression::parse(&at_limit, NP).unwrap().nodes().len(),
        Expression::MAX_OPS
    );
    let past = format!("{at_limit}+x");
    assert!(Expression::parse(&past, NP).is_err());
    // The builder refuses the node past the limit the same way.
    let mut e = Expression::new();
    let mut v = e.input("x");
    for _ in 0..Expression::MAX_OPS {
        v = e.apply(EltwiseOp::Add, &[v, v], NP).unwrap();
    }
    let err = e.apply(EltwiseOp::Add, &[v, v], NP).unwrap_err();
    assert!(err.to_string().contains("Expression::MAX_OPS"), "{err}");
}

#[test]
fn a_node_read_twice_at_every_level_runs_op_by_op() {
    // node k = node k-1 + node k-1: as a tree, 2^n uses. The fused executor gives up at its
    // step limit (counting each use); op by op it is n ops.
    for n in [40, 5_000] {
        let mut e = Expression::new();
        let mut v = e.input("x");
        for _ in 0..n {
            v = e.apply(EltwiseOp::Add, &[v, v], NP).unwrap();
        }
        let x = [1i64, 3, -1];
        let want: Vec<i64> = x
            .iter()
            .map(|&v| (0..n).fold(v, |a, _| a.wrapping_add(a)))
            .collect();
        let inputs = [i64s(&x)];
        assert_eq!(e.fuses(&views(&inputs)), Ok(false));
        runs_to(&e, &inputs, &i64s(&want), "doubling");
    }
}
