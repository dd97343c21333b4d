//! Element-wise ops under auto-broadcast, against a naive reference written from the rules:
//! operand index = output index right-aligned (numpy) or placed from the PDPD axis, 0 where
//! the operand's dim is 1.

use bcast::exec::{with_tuning, Tuning};
use bcast::{
    binary, binary_into, eltwise_shape, select, select_tensor, zip_with, zip_with_into,
    AutoBroadcast, BinaryOp, BroadcastError, Tensor,
};
use half::{bf16, f16};
use ndarray::{arr0, array, ArrayD, ArrayViewD, IxDyn, Slice};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// The reference
// ---------------------------------------------------------------------------------------

/// Where operand `shape` sits in an output of rank `out_rank`: its axis 0's output axis.
fn start_axis(shape: &[usize], out: &[usize], spec: &AutoBroadcast, is_target: bool) -> usize {
    match *spec {
        AutoBroadcast::Pdpd { axis } if !is_target => {
            if axis == -1 {
                out.len() - shape.len()
            } else {
                axis as usize
            }
        }
        AutoBroadcast::Pdpd { .. } | AutoBroadcast::None => 0,
        AutoBroadcast::Numpy => out.len() - shape.len(),
    }
}

/// The operand element an output index reads.
fn operand_index(out_idx: &[usize], shape: &[usize], start: usize) -> Vec<usize> {
    (0..shape.len())
        .map(|j| if shape[j] == 1 { 0 } else { out_idx[start + j] })
        .collect()
}

fn all_indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    (0..n)
        .map(|mut p| {
            let mut idx = vec![0; shape.len()];
            for k in (0..shape.len()).rev() {
                idx[k] = p % shape[k];
                p /= shape[k];
            }
            idx
        })
        .collect()
}

/// The naive binary op: output shape from the rule, each element by indexing.
fn naive<A: Copy, B: Copy, C>(
    a: &ArrayViewD<'_, A>,
    b: &ArrayViewD<'_, B>,
    spec: &AutoBroadcast,
    f: impl Fn(A, B) -> C,
) -> Result<ArrayD<C>, BroadcastError> {
    if matches!(spec, AutoBroadcast::Pdpd { .. }) && b.ndim() > a.ndim() {
        return Err(BroadcastError::NoInputs); // any error: rule 1, rank(B) <= rank(A)
    }
    let out = eltwise_shape(a.shape(), b.shape(), spec)?;
    let sa = start_axis(a.shape(), &out, spec, true);
    let sb = start_axis(b.shape(), &out, spec, false);
    let v = all_indices(&out)
        .iter()
        .map(|i| {
            f(
                a[IxDyn(&operand_index(i, a.shape(), sa))],
                b[IxDyn(&operand_index(i, b.shape(), sb))],
            )
        })
        .collect();
    Ok(ArrayD::from_shape_vec(IxDyn(&out), v).unwrap())
}

// ---------------------------------------------------------------------------------------
// Inputs in every layout
// ---------------------------------------------------------------------------------------

/// An owned array whose view (`view()`) has logical shape `shape` and values `value(flat)`,
/// laid out as `layout` says: 0 row-major, 1 transposed (column-major), 2 every other
/// element of a larger array, 3 every axis reversed.
struct Laid<T> {
    data: ArrayD<T>,
    layout: u8,
}

impl<T: Clone + Default> Laid<T> {
    fn new(shape: &[usize], layout: u8, value: impl Fn(usize) -> T) -> Self {
        let n: usize = shape.iter().product();
        let logical = ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(&value).collect()).unwrap();
        let data = match layout {
            1 => {
                let rev: Vec<usize> = shape.iter().rev().copied().collect();
                let mut d = ArrayD::<T>::default(IxDyn(&rev));
                d.view_mut().reversed_axes().assign(&logical);
                d
            }
            2 => {
                let big: Vec<usize> = shape.iter().map(|&d| 2 * d).collect();
                let mut d = ArrayD::<T>::default(IxDyn(&big));
                d.slice_each_axis_mut(|_| Slice::new(0, None, 2))
                    .assign(&logical);
                d
            }
            3 => {
                let mut d = ArrayD::<T>::default(IxDyn(shape));
                let mut v = d.view_mut();
                for ax in 0..shape.len() {
                    v.invert_axis(ndarray::Axis(ax));
                }
                v.assign(&logical);
                d
            }
            _ => logical,
        };
        Laid { data, layout }
    }

    fn view(&self) -> ArrayViewD<'_, T> {
        match self.layout {
            1 => self.data.view().reversed_axes(),
            2 => self.data.slice_each_axis(|_| Slice::new(0, None, 2)),
            3 => {
                let mut v = self.data.view();
                for ax in 0..v.ndim() {
                    v.invert_axis(ndarray::Axis(ax));
                }
                v
            }
            _ => self.data.view(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Shape strategies
// ---------------------------------------------------------------------------------------

/// An output-ish shape (ranks 0-6, dims 0-5, at most a few hundred elements) and a second
/// shape derived from it that usually fits under `spec` (and sometimes does not).
fn shapes_and_spec() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, AutoBroadcast)> {
    (
        prop::collection::vec(0usize..=5, 0..=6),
        prop::collection::vec(0u8..4, 6),
        0usize..=6,
        0u8..3,
        -1i64..=6,
        any::<bool>(),
    )
        .prop_map(|(mut a, ones, drop, mode, axis, break_it)| {
            // Keep outputs small.
            while a.iter().product::<usize>() > 400 {
                let k = a.iter().position(|&d| d > 1).unwrap();
                a[k] -= 1;
            }
            let mut b: Vec<usize> = a
                .iter()
                .zip(&ones)
                .map(|(&d, &o)| if o == 0 { 1 } else { d })
                .collect();
            let spec = match mode {
                0 => {
                    b = a.clone();
                    AutoBroadcast::None
                }
                1 => {
                    b.drain(..drop.min(b.len()));
                    AutoBroadcast::Numpy
                }
                _ => {
                    // PDPD: B is a run of A starting at `start` (dims equal or 1).
                    let start = if axis >= 0 {
                        (axis as usize).min(a.len())
                    } else {
                        a.len() - drop.min(a.len())
                    };
                    let len = if axis >= 0 {
                        (a.len() - start).min(drop)
                    } else {
                        a.len() - start
                    };
                    b = b[start..start + len].to_vec();
                    AutoBroadcast::Pdpd {
                        axis: if axis >= 0 { start as i64 } else { -1 },
                    }
                }
            };
            if break_it {
                if let Some(d) = b.first_mut() {
                    *d += 2;
                }
            }
            (a, b, spec)
        })
}

fn check_zip(a: &[usize], b: &[usize], spec: &AutoBroadcast, la: u8, lb: u8, swap: bool) {
    let (a, b) = if swap && !matches!(spec, AutoBroadcast::Pdpd { .. }) {
        (b, a)
    } else {
        (a, b)
    };
    let xa = Laid::new(a, la, |i| i as i64 + 1);
    let xb = Laid::new(b, lb, |i| (i as i64 + 1) * 1000);
    let f = |x: i64, y: i64| x * 7 + y;
    let want = naive(&xa.view(), &xb.view(), spec, f);
    let got = zip_with(xa.view(), xb.view(), spec, f);
    match (&want, &got) {
        (Ok(w), Ok(g)) => assert_eq!(w, g, "{a:?} {b:?} {spec} layouts {la} {lb}"),
        (Err(_), Err(_)) => {}
        _ => panic!("{a:?} {b:?} {spec}: reference {want:?}, got {got:?}"),
    }
    // Into a caller's buffer, row-major and column-major.
    if let Ok(w) = want {
        let mut out = ArrayD::<i64>::zeros(w.raw_dim());
        zip_with_into(xa.view(), xb.view(), spec, out.view_mut(), f).unwrap();
        assert_eq!(out, w);
        let rev: Vec<usize> = w.shape().iter().rev().copied().collect();
        let mut t = ArrayD::<i64>::zeros(IxDyn(&rev));
        zip_with_into(xa.view(), xb.view(), spec, t.view_mut().reversed_axes(), f).unwrap();
        assert_eq!(t.view().reversed_axes(), w.view());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn zip_with_matches_the_reference_in_every_layout(
        (a, b, spec) in shapes_and_spec(),
        la in 0u8..4,
        lb in 0u8..4,
        swap in any::<bool>(),
    ) {
        check_zip(&a, &b, &spec, la, lb, swap);
    }

    #[test]
    fn every_op_and_dtype_matches_the_reference(
        (a, b, spec) in shapes_and_spec(),
        op in 0usize..openvino_binary_ops().len(),
        pythondiv in any::<bool>(),
        dtype in 0usize..13,
        la in 0u8..4,
        seed in any::<u64>(),
    ) {
        let mut op = openvino_binary_ops()[op];
        if op == (BinaryOp::Divide { pythondiv: true }) {
            op = BinaryOp::Divide { pythondiv };
        }
        check_op(op, dtype, &a, &b, &spec, la, seed);
    }

    #[test]
    fn select_matches_the_reference(
        (a, b, spec) in shapes_and_spec(),
        which in 0u8..3,
        lc in 0u8..4,
        seed in any::<u64>(),
    ) {
        // Shapes: then = a; cond and else take b or a.
        let (cs, es) = match which { 0 => (&b, &a), 1 => (&a, &b), _ => (&b, &b) };
        let c = Laid::new(cs, lc, |i| (i as u64 ^ seed).is_multiple_of(3));
        let t = Laid::new(&a, 1, |i| format!("t{i}"));
        let e = Laid::new(es, 3, |i| format!("e{i}"));
        let got = select(c.view(), t.view(), e.view(), &spec);
        let want = naive_select(&c.view(), &t.view(), &e.view(), &spec);
        match (&want, &got) {
            (Ok(w), Ok(g)) => prop_assert_eq!(w, g),
            (Err(_), Err(_)) => {}
            _ => prop_assert!(false, "{:?} {:?} {}: reference {:?}, got {:?}", a, b, spec, want, got),
        }
    }
}

fn naive_select<T: Clone>(
    c: &ArrayViewD<'_, bool>,
    t: &ArrayViewD<'_, T>,
    e: &ArrayViewD<'_, T>,
    spec: &AutoBroadcast,
) -> Result<ArrayD<T>, BroadcastError> {
    let out = match spec {
        AutoBroadcast::Numpy => bcast::broadcast_shapes(&[c.shape(), t.shape(), e.shape()])?,
        _ => {
            if matches!(spec, AutoBroadcast::Pdpd { .. })
                && (c.ndim() > t.ndim() || e.ndim() > t.ndim())
            {
                return Err(BroadcastError::NoInputs);
            }
            eltwise_shape(t.shape(), c.shape(), spec)?;
            eltwise_shape(t.shape(), e.shape(), spec)?
        }
    };
    let s = |shape: &[usize], target| start_axis(shape, &out, spec, target);
    let (sc, st, se) = (s(c.shape(), false), s(t.shape(), true), s(e.shape(), false));
    let (sc, st, se) = if *spec == AutoBroadcast::Numpy {
        (
            out.len() - c.ndim(),
            out.len() - t.ndim(),
            out.len() - e.ndim(),
        )
    } else {
        (sc, st, se)
    };
    let v = all_indices(&out)
        .iter()
        .map(|i| {
            if c[IxDyn(&operand_index(i, c.shape(), sc))] {
                t[IxDyn(&operand_index(i, t.shape(), st))].clone()
            } else {
                e[IxDyn(&operand_index(i, e.shape(), se))].clone()
            }
        })
        .collect();
    Ok(ArrayD::from_shape_vec(IxDyn(&out), v).unwrap())
}

// ---------------------------------------------------------------------------------------
// Every op on every dtype: the scalar rules, written out
// ---------------------------------------------------------------------------------------

/// OpenVINO's two-operand ops this file's references cover (the new ops have their own
/// tests in `eltwise_ops.rs`): Add to LogicalXor, by the C codes they have always had.
fn openvino_binary_ops() -> Vec<BinaryOp> {
    BinaryOp::ALL
        .into_iter()
        .filter(|op| op.c_code() <= 18)
        .collect()
}

/// The integer rule in i128, wrapped back into the type by the caller's `as` cast.
fn int_ref(op: BinaryOp, x: i128, y: i128, bits: u32, signed: bool) -> Option<i128> {
    let wrap = |v: i128| -> i128 {
        let m = 1i128 << bits;
        let r = v.rem_euclid(m);
        if signed && r >= m / 2 {
            r - m
        } else {
            r
        }
    };
    let floor_div = |x: i128, y: i128| {
        let q = x / y;
        if x % y != 0 && ((x < 0) != (y < 0)) {
            q - 1
        } else {
            q
        }
    };
    Some(wrap(match op {
        BinaryOp::Add => x + y,
        BinaryOp::Subtract => x - y,
        BinaryOp::Multiply => x * y,
        BinaryOp::Divide { pythondiv: true } => floor_div(x, y),
        BinaryOp::Divide { pythondiv: false } => x / y,
        BinaryOp::Maximum => x.max(y),
        BinaryOp::Minimum => x.min(y),
        BinaryOp::SquaredDifference => {
            let d = wrap(x - y);
            d.wrapping_mul(d)
        }
        BinaryOp::Power => (x as f64).powf(y as f64) as i128,
        BinaryOp::FloorMod => x - y * floor_div(x, y),
        BinaryOp::Mod => x % y,
        _ => return None,
    }))
}

fn cmp_ref<T: PartialOrd>(op: BinaryOp, x: T, y: T) -> bool {
    match op {
        BinaryOp::Equal => x == y,
        BinaryOp::NotEqual => x != y,
        BinaryOp::Less => x < y,
        BinaryOp::LessEqual => x <= y,
        BinaryOp::Greater => x > y,
        BinaryOp::GreaterEqual => x >= y,
        _ => unreachable!(),
    }
}

fn float_ref(op: BinaryOp, x: f64, y: f64) -> f64 {
    match op {
        BinaryOp::Add => x + y,
        BinaryOp::Subtract => x - y,
        BinaryOp::Multiply => x * y,
        BinaryOp::Divide { .. } => x / y,
        BinaryOp::Maximum => {
            if x < y {
                y
            } else {
                x
            }
        }
        BinaryOp::Minimum => {
            if y < x {
                y
            } else {
                x
            }
        }
        BinaryOp::SquaredDifference => (x - y) * (x - y),
        BinaryOp::Power => x.powf(y),
        BinaryOp::FloorMod => x - y * (x / y).floor(),
        BinaryOp::Mod => x % y,
        _ => unreachable!(),
    }
}

/// Small values from a seed: divisors never 0, exponents small.
fn value(seed: u64, i: usize, salt: u64) -> i64 {
    let h = (seed ^ salt)
        .wrapping_add(i as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((h >> 40) % 9) as i64 - 3
}

fn check_op(
    op: BinaryOp,
    dtype: usize,
    a: &[usize],
    b: &[usize],
    spec: &AutoBroadcast,
    layout: u8,
    seed: u64,
) {
    let divides = matches!(
        op,
        BinaryOp::Divide { .. } | BinaryOp::Mod | BinaryOp::FloorMod
    );
    let is_cmp = matches!(
        op,
        BinaryOp::Equal
            | BinaryOp::NotEqual
            | BinaryOp::Less
            | BinaryOp::LessEqual
            | BinaryOp::Greater
            | BinaryOp::GreaterEqual
    );
    let logical = matches!(
        op,
        BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::LogicalXor
    );
    let va = |i: usize| value(seed, i, 1);
    let vb = |i: usize| {
        let v = value(seed, i, 2);
        if v == 0 && divides {
            2
        } else if op == BinaryOp::Power {
            v.rem_euclid(3)
        } else {
            v
        }
    };

    macro_rules! case {
        ($t:ty, $var:ident, $conv:expr, $reference:expr) => {{
            let conv = $conv;
            let xa = Laid::new(a, layout, |i| conv(va(i)));
            let xb = Laid::new(b, 3 - layout, |i| conv(vb(i)));
            let ta = Tensor::$var(xa.view().to_owned());
            let tb = Tensor::$var(xb.view().to_owned());
            let got_view = binary(op, &ta, &tb, spec);
            if logical {
                assert!(matches!(
                    got_view,
                    Err(BroadcastError::UnsupportedType { .. })
                ));
                return;
            }
            if is_cmp {
                let want = naive(&xa.view(), &xb.view(), spec, |x: $t, y: $t| {
                    cmp_ref(op, x, y)
                });
                match (want, got_view) {
                    (Ok(w), Ok(g)) => assert_eq!(Tensor::Bool(w), g, "{op} {a:?} {b:?} {spec}"),
                    (Err(_), Err(_)) => {}
                    (w, g) => panic!("{op} {a:?} {b:?} {spec}: {w:?} vs {g:?}"),
                }
                return;
            }
            let reference = $reference;
            let want = naive(&xa.view(), &xb.view(), spec, |x: $t, y: $t| reference(x, y));
            // Also run the generic path on the laid-out views (not the owned copies).
            match (want, got_view) {
                (Ok(w), Ok(Tensor::$var(g))) => {
                    let same = w
                        .iter()
                        .zip(g.iter())
                        .all(|(x, y)| format!("{x:?}") == format!("{y:?}"));
                    assert!(same, "{op} {a:?} {b:?} {spec}: {w:?} vs {g:?}");
                }
                (Err(_), Err(_)) => {}
                (w, g) => panic!("{op} {a:?} {b:?} {spec}: {w:?} vs {g:?}"),
            }
        }};
    }
    macro_rules! int_case {
        ($t:ty, $var:ident, $signed:expr) => {
            case!(
                $t,
                $var,
                |v: i64| if $signed {
                    v as $t
                } else {
                    v.rem_euclid(7) as $t
                },
                |x: $t, y: $t| int_ref(op, x as i128, y as i128, <$t>::BITS, $signed).unwrap()
                    as $t
            )
        };
    }
    match dtype {
        0 => int_case!(i8, I8, true),
        1 => int_case!(i16, I16, true),
        2 => int_case!(i32, I32, true),
        3 => int_case!(i64, I64, true),
        4 => int_case!(u8, U8, false),
        5 => int_case!(u16, U16, false),
        6 => int_case!(u32, U32, false),
        7 => int_case!(u64, U64, false),
        8 => case!(f32, F32, |v: i64| v as f32 * 0.75, |x: f32, y: f32| {
            if op == BinaryOp::FloorMod {
                float_ref(op, x as f64, y as f64) as f32
            } else if op == BinaryOp::Power {
                x.powf(y)
            } else {
                float_ref(op, x as f64, y as f64) as f32
            }
        }),
        9 => case!(f64, F64, |v: i64| v as f64 * 0.75, |x: f64, y: f64| {
            float_ref(op, x, y)
        }),
        10 => case!(
            f16,
            F16,
            |v: i64| f16::from_f32(v as f32 * 0.75),
            |x: f16, y: f16| {
                match op {
                    BinaryOp::FloorMod => f16::from_f64(float_ref(op, x.to_f64(), y.to_f64())),
                    BinaryOp::Maximum | BinaryOp::Minimum => {
                        f16::from_f64(float_ref(op, x.to_f64(), y.to_f64()))
                    }
                    BinaryOp::Power => f16::from_f32(x.to_f32().powf(y.to_f32())),
                    _ => f16::from_f32(float_ref(op, x.to_f64(), y.to_f64()) as f32),
                }
            }
        ),
        11 => case!(
            bf16,
            BF16,
            |v: i64| bf16::from_f32(v as f32 * 0.75),
            |x: bf16, y: bf16| {
                match op {
                    BinaryOp::FloorMod => bf16::from_f64(float_ref(op, x.to_f64(), y.to_f64())),
                    BinaryOp::Power => bf16::from_f32(x.to_f32().powf(y.to_f32())),
                    _ => bf16::from_f32(float_ref(op, x.to_f64(), y.to_f64()) as f32),
                }
            }
        ),
        _ => {
            // bool: logical ops and comparisons; arithmetic refused.
            let xa = Laid::new(a, layout, |i| va(i) > 0);
            let xb = Laid::new(b, 3 - layout, |i| vb(i) > 0);
            let ta = Tensor::Bool(xa.view().to_owned());
            let tb = Tensor::Bool(xb.view().to_owned());
            let got = binary(op, &ta, &tb, spec);
            let f = |x: bool, y: bool| match op {
                BinaryOp::LogicalAnd => x && y,
                BinaryOp::LogicalOr => x || y,
                BinaryOp::LogicalXor => x != y,
                _ => cmp_ref(op, x, y),
            };
            if !(logical || is_cmp) {
                assert!(matches!(got, Err(BroadcastError::UnsupportedType { .. })));
                return;
            }
            match (naive(&xa.view(), &xb.view(), spec, f), got) {
                (Ok(w), Ok(g)) => assert_eq!(Tensor::Bool(w), g),
                (Err(_), Err(_)) => {}
                (w, g) => panic!("{op} {a:?} {b:?} {spec}: {w:?} vs {g:?}"),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The spec's examples
// ---------------------------------------------------------------------------------------

#[test]
fn spec_numpy_examples() {
    let ok: &[(&[usize], &[usize], &[usize])] = &[
        (&[], &[], &[]),
        (&[2, 3], &[1], &[2, 3]),
        (&[3], &[2, 3], &[2, 3]),
        (&[2, 3, 5], &[], &[2, 3, 5]),
        (&[2, 1, 5], &[1, 4, 5], &[2, 4, 5]),
        (&[6, 5], &[2, 1, 5], &[2, 6, 5]),
        (&[2, 1, 5], &[4, 1], &[2, 4, 5]),
        (&[3, 2, 1, 4], &[5, 4], &[3, 2, 5, 4]),
        (&[1, 5, 3], &[5, 2, 1, 3], &[5, 2, 5, 3]),
    ];
    for &(a, b, out) in ok {
        let xa = Laid::new(a, 0, |i| i as f32 + 0.5);
        let xb = Laid::new(b, 1, |i| i as f32 * 10.0);
        let got = zip_with(xa.view(), xb.view(), &AutoBroadcast::Numpy, |x, y| x + y).unwrap();
        assert_eq!(got.shape(), out, "{a:?} + {b:?}");
        let want = naive(&xa.view(), &xb.view(), &AutoBroadcast::Numpy, |x, y| x + y).unwrap();
        assert_eq!(got, want);
    }
    for (a, b) in [(&[3usize][..], &[2usize][..]), (&[3, 1, 5], &[4, 4, 5])] {
        let xa = ArrayD::<f32>::zeros(IxDyn(a));
        let xb = ArrayD::<f32>::zeros(IxDyn(b));
        assert!(matches!(
            zip_with(xa.view(), xb.view(), &AutoBroadcast::Numpy, |x, y| x + y),
            Err(BroadcastError::Incompatible { .. })
        ));
    }
}

#[test]
fn spec_pdpd_examples() {
    let a = [2usize, 3, 4, 5];
    let ok: &[(&[usize], i64)] = &[
        (&[3, 4], 1),
        (&[3, 1], 1),
        (&[4, 5], -1),
        (&[4, 5], 2),
        (&[1, 3], 0),
        (&[], -1),
        (&[5], -1),
        (&[5], 3),
    ];
    let xa = Laid::new(&a, 2, |i| i as i32);
    for &(b, axis) in ok {
        let spec = AutoBroadcast::Pdpd { axis };
        let xb = Laid::new(b, 3, |i| 1000 * (i as i32 + 1));
        let got = zip_with(xa.view(), xb.view(), &spec, |x, y| x + y).unwrap();
        assert_eq!(got.shape(), &[2, 3, 4, 5], "{b:?} axis {axis}");
        let want = naive(&xa.view(), &xb.view(), &spec, |x, y| x + y).unwrap();
        assert_eq!(got, want, "{b:?} axis {axis}");
    }
    let a = ArrayD::<f32>::zeros(IxDyn(&[8, 1, 6, 1]));
    let b = ArrayD::<f32>::zeros(IxDyn(&[7, 1, 5]));
    let err = zip_with(
        a.view(),
        b.view(),
        &AutoBroadcast::Pdpd { axis: 1 },
        |x, y| x * y,
    );
    assert!(
        matches!(err, Err(BroadcastError::DimMismatch { .. })),
        "{err:?}"
    );
    // Trailing 1s of B past A's end are dropped (the spec's rule 5; OpenVINO refuses this).
    let b = ArrayD::<f32>::ones(IxDyn(&[5, 1]));
    let a = ArrayD::<f32>::ones(IxDyn(&[2, 3, 4, 5]));
    let got = zip_with(
        a.view(),
        b.view(),
        &AutoBroadcast::Pdpd { axis: 3 },
        |x, y| x + y,
    );
    assert_eq!(got.unwrap().shape(), &[2, 3, 4, 5]);
}

// ---------------------------------------------------------------------------------------
// Chunking and threads
// ---------------------------------------------------------------------------------------

#[test]
fn results_are_identical_for_any_chunking_and_pool() {
    let cases: &[(&[usize], &[usize], AutoBroadcast)] = &[
        (&[5, 7, 3], &[3], AutoBroadcast::Numpy),
        (&[4, 9, 11], &[9, 1], AutoBroadcast::Numpy),
        (&[3, 1], &[4], AutoBroadcast::Numpy),
        (&[6, 5, 4], &[5], AutoBroadcast::Pdpd { axis: 1 }),
        (&[2, 3, 40], &[2, 3, 40], AutoBroadcast::None),
        (&[1, 600, 3], &[600, 1], AutoBroadcast::Numpy),
        (&[50, 3], &[50, 3], AutoBroadcast::Numpy),
    ];
    let pools: Vec<rayon::ThreadPool> = (1..=3)
        .map(|n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        })
        .collect();
    for (a, b, spec) in cases {
        for layout in 0..4 {
            let xa = Laid::new(a, layout, |i| (i % 13) as u8);
            let xb = Laid::new(b, 3 - layout, |i| (i * 7 % 251) as u8);
            let fa = Laid::new(a, layout, |i| f16::from_f32(i as f32 * 0.37));
            let fb = Laid::new(b, layout, |i| f16::from_f32(i as f32 * -1.25));
            let serial = zip_with(xa.view(), xb.view(), spec, |x, y| x.wrapping_mul(y)).unwrap();
            let ta = Tensor::F16(fa.view().to_owned());
            let tb = Tensor::F16(fb.view().to_owned());
            let serial_f16 = binary(BinaryOp::Multiply, &ta, &tb, spec).unwrap();
            let cond = Laid::new(a, layout, |i| i % 3 == 1);
            let serial_sel = select(cond.view(), fa.view(), fb.view(), &AutoBroadcast::Numpy);
            for pool in &pools {
                for chunk in [1, 7, 1001] {
                    let tuning = Tuning {
                        chunk_elems: Some(chunk),
                        ..Tuning::default()
                    };
                    let (p, pf, ps) = pool.install(|| {
                        with_tuning(tuning, || {
                            (
                                zip_with(xa.view(), xb.view(), spec, |x, y| x.wrapping_mul(y))
                                    .unwrap(),
                                binary(BinaryOp::Multiply, &ta, &tb, spec).unwrap(),
                                select(cond.view(), fa.view(), fb.view(), &AutoBroadcast::Numpy),
                            )
                        })
                    });
                    assert_eq!(p, serial, "{a:?} {b:?} chunk {chunk}");
                    assert_eq!(pf, serial_f16);
                    assert_eq!(ps, serial_sel);
                }
            }
        }
    }
}

#[test]
fn a_worker_panic_is_an_error() {
    let a = ArrayD::<f32>::zeros(IxDyn(&[100, 10]));
    let b = ArrayD::<f32>::zeros(IxDyn(&[10]));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let tuning = Tuning {
        chunk_elems: Some(64),
        panic_in_chunk: Some(3),
        ..Tuning::default()
    };
    let r = pool.install(|| {
        with_tuning(tuning, || {
            zip_with(a.view(), b.view(), &AutoBroadcast::Numpy, |x, y| x + y)
        })
    });
    assert!(matches!(r, Err(BroadcastError::WorkerPanicked { .. })));
    // A panicking closure, too.
    let r = zip_with(
        a.view(),
        b.view(),
        &AutoBroadcast::Numpy,
        |x: f32, _y: f32| {
            assert!(x > 1.0, "closure refused");
            x
        },
    );
    assert!(matches!(r, Err(BroadcastError::WorkerPanicked { .. })));
}

// ---------------------------------------------------------------------------------------
// Semantics with literal answers
// ---------------------------------------------------------------------------------------

fn t<T: Clone>(v: &[T]) -> ArrayD<T> {
    ArrayD::from_shape_vec(IxDyn(&[v.len()]), v.to_vec()).unwrap()
}

#[test]
fn integer_division_and_modulo_by_zero_are_errors() {
    for op in [
        BinaryOp::Divide { pythondiv: true },
        BinaryOp::Divide { pythondiv: false },
        BinaryOp::Mod,
        BinaryOp::FloorMod,
    ] {
        let a = Tensor::I32(t(&[1, 2, 3]));
        let b = Tensor::I32(t(&[1, 0, 3]));
        assert!(
            matches!(binary(op, &a, &b, &AutoBroadcast::Numpy), Err(BroadcastError::DivisionByZero { op: o, .. }) if o == op.name()),
            "{op}"
        );
        let a = Tensor::U8(t(&[1]));
        let b = Tensor::U8(arr0(0u8).into_dyn());
        assert!(matches!(
            binary(op, &a, &b, &AutoBroadcast::Numpy),
            Err(BroadcastError::DivisionByZero { .. })
        ));
        // Floats divide by zero the IEEE way.
        let a = Tensor::F32(t(&[1.0, -1.0]));
        let b = Tensor::F32(t(&[0.0]));
        assert!(binary(op, &a, &b, &AutoBroadcast::Numpy).is_ok());
    }
}

#[test]
fn integer_rules_wrap_floor_and_truncate() {
    let run = |op, a: Tensor, b: Tensor| binary(op, &a, &b, &AutoBroadcast::Numpy).unwrap();
    assert_eq!(
        run(BinaryOp::Add, Tensor::U8(t(&[200])), Tensor::U8(t(&[100]))),
        Tensor::U8(t(&[44]))
    );
    assert_eq!(
        run(
            BinaryOp::Subtract,
            Tensor::U8(t(&[100])),
            Tensor::U8(t(&[200]))
        ),
        Tensor::U8(t(&[156]))
    );
    let div = |pythondiv, a: &[i32], b: &[i32]| {
        run(
            BinaryOp::Divide { pythondiv },
            Tensor::I32(t(a)),
            Tensor::I32(t(b)),
        )
    };
    assert_eq!(
        div(true, &[-7, 7, 1, i32::MIN], &[2, -2, -3, -1]),
        Tensor::I32(t(&[-4, -4, -1, i32::MIN]))
    );
    assert_eq!(
        div(false, &[-7, 7, 1, i32::MIN], &[2, -2, -3, -1]),
        Tensor::I32(t(&[-3, -3, 0, i32::MIN]))
    );
    let i8s = |op, a: &[i8], b: &[i8]| run(op, Tensor::I8(t(a)), Tensor::I8(t(b)));
    assert_eq!(
        i8s(BinaryOp::Mod, &[-7, 7, -128], &[2, -2, -1]),
        Tensor::I8(t(&[-1, 1, 0]))
    );
    assert_eq!(
        i8s(BinaryOp::FloorMod, &[-7, 7, -128], &[2, -2, -1]),
        Tensor::I8(t(&[1, -1, 0]))
    );
    assert_eq!(
        i8s(BinaryOp::SquaredDifference, &[127], &[-1]),
        Tensor::I8(t(&[0]))
    );
    assert_eq!(
        i8s(BinaryOp::Multiply, &[-128], &[-1]),
        Tensor::I8(t(&[-128]))
    );
    assert_eq!(
        i8s(BinaryOp::Power, &[2, -1, 3], &[-1, -1, 3]),
        Tensor::I8(t(&[0, -1, 27]))
    );
}

#[test]
fn maximum_and_minimum_keep_the_first_operand_on_nan_and_signed_zeros() {
    let bits = |x: &Tensor| match x {
        Tensor::F32(a) => a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        _ => unreachable!(),
    };
    let nan = f32::from_bits(0x7fc0_1234);
    let a = Tensor::F32(t(&[nan, 1.0, -0.0, 0.0]));
    let b = Tensor::F32(t(&[1.0, nan, 0.0, -0.0]));
    let max = binary(BinaryOp::Maximum, &a, &b, &AutoBroadcast::None).unwrap();
    let min = binary(BinaryOp::Minimum, &a, &b, &AutoBroadcast::None).unwrap();
    assert_eq!(
        bits(&max),
        vec![0x7fc0_1234, 0x3f80_0000, 0x8000_0000, 0x0000_0000]
    );
    assert_eq!(
        bits(&min),
        vec![0x7fc0_1234, 0x3f80_0000, 0x8000_0000, 0x0000_0000]
    );
    // f16 payloads survive too.
    let h = f16::from_bits(0x7e01);
    let a = Tensor::F16(t(&[h, f16::ONE]));
    let b = Tensor::F16(t(&[f16::ONE, h]));
    match binary(BinaryOp::Maximum, &a, &b, &AutoBroadcast::Numpy).unwrap() {
        Tensor::F16(m) => {
            assert_eq!(
                m.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                vec![0x7e01, 0x3c00]
            )
        }
        _ => unreachable!(),
    }
}

#[test]
fn comparisons_with_nan_are_false_except_not_equal() {
    let a = Tensor::F32(t(&[f32::NAN, -0.0]));
    let b = Tensor::F32(t(&[f32::NAN, 0.0]));
    let run = |op| binary(op, &a, &b, &AutoBroadcast::None).unwrap();
    assert_eq!(run(BinaryOp::Equal), Tensor::Bool(t(&[false, true])));
    assert_eq!(run(BinaryOp::NotEqual), Tensor::Bool(t(&[true, false])));
    assert_eq!(run(BinaryOp::Less), Tensor::Bool(t(&[false, false])));
    assert_eq!(run(BinaryOp::GreaterEqual), Tensor::Bool(t(&[false, true])));
}

#[test]
fn float_floor_mod_is_computed_in_f64() {
    let a = Tensor::F32(t(&[5.5, 0.0, -0.0, 3e38]));
    let b = Tensor::F32(t(&[f32::INFINITY, -3.0, 3.0, 7.0]));
    match binary(BinaryOp::FloorMod, &a, &b, &AutoBroadcast::None).unwrap() {
        Tensor::F32(r) => {
            assert!(r[0].is_nan());
            assert_eq!(r[1].to_bits(), 0.0f32.to_bits());
            assert_eq!(r[2].to_bits(), 0.0f32.to_bits());
            // OpenVINO's reference: 3e38 mod 7 in f32 is -3.78e22 (the f64 formula, rounded).
            let x = f64::from(3e38f32);
            assert_eq!(r[3], (x - 7.0 * (x / 7.0).floor()) as f32);
            assert!((r[3] + 3.7778932e22).abs() < 1e16);
        }
        _ => unreachable!(),
    }
}

#[test]
fn types_are_checked() {
    let f = Tensor::F32(t(&[1.0]));
    let i = Tensor::I32(t(&[1]));
    let b = Tensor::Bool(t(&[true]));
    let s = Tensor::String(t(&["x".to_string()]));
    let np = AutoBroadcast::Numpy;
    assert!(matches!(
        binary(BinaryOp::Add, &f, &i, &np),
        Err(BroadcastError::DTypeMismatch {
            op: "add",
            left: "f32",
            right: "i32"
        })
    ));
    assert!(matches!(
        binary(BinaryOp::Add, &b, &b, &np),
        Err(BroadcastError::UnsupportedType { .. })
    ));
    assert!(matches!(
        binary(BinaryOp::Add, &s, &s, &np),
        Err(BroadcastError::UnsupportedType { .. })
    ));
    assert!(matches!(
        binary(BinaryOp::LogicalAnd, &f, &f, &np),
        Err(BroadcastError::UnsupportedType { .. })
    ));
    assert!(matches!(
        binary(BinaryOp::Less, &s, &s, &np),
        Err(BroadcastError::UnsupportedType { .. })
    ));
    assert_eq!(
        binary(BinaryOp::LogicalXor, &b, &b, &np).unwrap(),
        Tensor::Bool(t(&[false]))
    );
    assert!(matches!(
        select_tensor(&f, &f, &f, &np),
        Err(BroadcastError::UnsupportedType { .. })
    ));
    assert!(matches!(
        select_tensor(&b, &f, &i, &np),
        Err(BroadcastError::DTypeMismatch { .. })
    ));
    // binary_into checks the output's type and shape.
    let mut out = Tensor::F32(t(&[0.0]));
    assert!(matches!(
        binary_into(BinaryOp::Less, &f, &f, &np, &mut out),
        Err(BroadcastError::DTypeMismatch { .. })
    ));
    let mut out = Tensor::F32(t(&[0.0, 0.0]));
    assert!(matches!(
        binary_into(BinaryOp::Add, &f, &f, &np, &mut out),
        Err(BroadcastError::OutputShape { .. })
    ));
    let mut out = Tensor::Bool(t(&[true]));
    binary_into(BinaryOp::Less, &f, &f, &np, &mut out).unwrap();
    assert_eq!(out, Tensor::Bool(t(&[false])));
    let mut out = Tensor::F32(t(&[0.0]));
    binary_into(BinaryOp::Add, &f, &f, &np, &mut out).unwrap();
    assert_eq!(out, Tensor::F32(t(&[2.0])));
}

#[test]
fn op_names_round_trip() {
    for op in BinaryOp::ALL {
        assert_eq!(op.name().parse::<BinaryOp>().unwrap(), op);
        if let Some(ov) = op.openvino_type() {
            assert_eq!(BinaryOp::from_openvino_type(ov).unwrap(), op);
        }
        if let Some(onnx) = op.onnx_type() {
            assert_eq!(BinaryOp::from_onnx_type(onnx).unwrap(), op);
        }
    }
    assert_eq!(BinaryOp::SquaredDifference.name(), "squared_difference");
    assert_eq!(BinaryOp::FloorMod.name(), "floor_mod");
    assert_eq!(
        "divide".parse::<BinaryOp>().unwrap(),
        BinaryOp::Divide { pythondiv: true }
    );
    assert_eq!(BinaryOp::Divide { pythondiv: false }.name(), "divide");
    assert!("Add".parse::<BinaryOp>().is_err());
    assert!(BinaryOp::from_openvino_type("add").is_err());
}

#[test]
fn select_rules() {
    // numpy: all three broadcast together (OpenVINO 2026.4).
    let cond = ArrayD::from_shape_fn(IxDyn(&[2, 1, 1, 2]), |i| i[0] == i[3]);
    let then = ArrayD::from_shape_fn(IxDyn(&[1, 1, 4, 1]), |i| i[2] as i32);
    let else_ = t(&[-1, -2]);
    let out = select(
        cond.view(),
        then.view(),
        else_.view(),
        &AutoBroadcast::Numpy,
    )
    .unwrap();
    assert_eq!(out.shape(), &[2, 1, 4, 2]);
    assert_eq!(out[IxDyn(&[0, 0, 3, 0])], 3);
    assert_eq!(out[IxDyn(&[0, 0, 3, 1])], -2);
    // none: all equal.
    let c = t(&[true, false]);
    let x = t(&[1.0f32, 2.0]);
    assert!(matches!(
        select(
            c.view(),
            x.view(),
            t(&[1.0f32]).view(),
            &AutoBroadcast::None
        ),
        Err(BroadcastError::ShapesDiffer { .. })
    ));
    // pdpd: cond and else onto then, same axis.
    let then = ArrayD::from_shape_fn(IxDyn(&[2, 3, 4]), |i| {
        (i[0] * 100 + i[1] * 10 + i[2]) as i64
    });
    let cond = t(&[true, false, true]);
    let else_ = t(&[-1i64, -2, -3]);
    let out = select(
        cond.view(),
        then.view(),
        else_.view(),
        &AutoBroadcast::Pdpd { axis: 1 },
    )
    .unwrap();
    assert_eq!(out[IxDyn(&[1, 1, 2])], -2);
    assert_eq!(out[IxDyn(&[1, 2, 2])], 122);
    let then2 = ArrayD::<i64>::zeros(IxDyn(&[2, 3]));
    assert!(select(
        cond.view(),
        then2.view(),
        else_.view(),
        &AutoBroadcast::Pdpd { axis: 0 }
    )
    .is_err());
    // Strings.
    let s = select(
        t(&[true, false]).view(),
        t(&["a".to_string(), "b".to_string()]).view(),
        arr0("z".to_string()).into_dyn().view(),
        &AutoBroadcast::Numpy,
    )
    .unwrap();
    assert_eq!(s, t(&["a".to_string(), "z".to_string()]));
}

#[test]
fn invalid_shapes_are_errors_not_panics() {
    let a = ArrayD::<f32>::zeros(IxDyn(&[2, 3]));
    let b = ArrayD::<f32>::zeros(IxDyn(&[4]));
    for spec in [
        AutoBroadcast::None,
        AutoBroadcast::Numpy,
        AutoBroadcast::Pdpd { axis: -1 },
        AutoBroadcast::Pdpd { axis: -2 },
        AutoBroadcast::Pdpd { axis: 5 },
        AutoBroadcast::Pdpd { axis: i64::MAX },
    ] {
        assert!(
            zip_with(a.view(), b.view(), &spec, |x, y| x + y).is_err(),
            "{spec}"
        );
    }
    // PDPD: B of higher rank than A.
    assert!(zip_with(
        b.view(),
        a.view(),
        &AutoBroadcast::Pdpd { axis: -1 },
        |x, y| x + y
    )
    .is_err());
    // zip_with_into with the wrong output shape.
    let mut out = ArrayD::<f32>::zeros(IxDyn(&[3, 2]));
    let c = ArrayD::<f32>::zeros(IxDyn(&[3]));
    assert!(matches!(
        zip_with_into(
            a.view(),
            c.view(),
            &AutoBroadcast::Numpy,
            out.view_mut(),
            |x, y| x + y
        ),
        Err(BroadcastError::OutputShape { .. })
    ));
}

#[test]
fn large_outputs_run_in_parallel_and_match() {
    // Above the serial threshold, every special-cased row kind.
    let a = ArrayD::from_shape_fn(IxDyn(&[1, 256, 256, 3]), |i| (i[1] * 3 + i[3]) as u8);
    let b = t(&[1u8, 2, 3]);
    let got = zip_with(a.view(), b.view(), &AutoBroadcast::Numpy, |x, y| {
        x.wrapping_add(y)
    })
    .unwrap();
    let want = naive(
        &a.view(),
        &b.view(),
        &AutoBroadcast::Numpy,
        |x: u8, y: u8| x.wrapping_add(y),
    )
    .unwrap();
    assert_eq!(got, want);
    let a = ArrayD::from_shape_fn(IxDyn(&[64, 128, 256]), |i| {
        f16::from_f32((i[0] + i[2]) as f32 * 0.5)
    });
    let b = ArrayD::from_shape_fn(IxDyn(&[128, 1]), |i| f16::from_f32(i[0] as f32 * 0.25));
    let got = binary(
        BinaryOp::Multiply,
        &Tensor::F16(a.clone()),
        &Tensor::F16(b.clone()),
        &AutoBroadcast::Numpy,
    )
    .unwrap();
    let want = naive(
        &a.view(),
        &b.view(),
        &AutoBroadcast::Numpy,
        |x: f16, y: f16| f16::from_f32(x.to_f32() * y.to_f32()),
    )
    .unwrap();
    assert_eq!(got, Tensor::F16(want));
    let c = array![[true, false]].into_dyn();
    let x = ArrayD::from_shape_fn(IxDyn(&[2048, 2]), |i| i[0] as f32);
    let s = select(
        c.view(),
        x.view(),
        arr0(-1.0f32).into_dyn().view(),
        &AutoBroadcast::Numpy,
    )
    .unwrap();
    assert_eq!(s[IxDyn(&[2047, 0])], 2047.0);
    assert_eq!(s[IxDyn(&[2047, 1])], -1.0);
}

// ---------------------------------------------------------------------------------------
// Streaming stores
// ---------------------------------------------------------------------------------------

/// A caller's output for `expected`'s shape and type, its memory starting one element into
/// a larger buffer (so off every line boundary), every element set to `fill`.
fn misaligned_out<T: Clone>(shape: &[usize], fill: T) -> Vec<T> {
    vec![fill; shape.iter().product::<usize>() + 1]
}

/// Runs `op` into a caller's array `(buf[1..] as shape)` and hands back the array.
fn run_into_misaligned<T: Clone + bcast::Element>(
    op: bcast::EltwiseOp,
    inputs: &[bcast::TensorView<'_>],
    spec: &AutoBroadcast,
    shape: &[usize],
    fill: T,
    par: bcast::Parallelism<'_>,
) -> ArrayD<T>
where
    for<'a> bcast::TensorViewMut<'a>: From<ndarray::ArrayViewMutD<'a, T>>,
{
    let mut buf = misaligned_out(shape, fill);
    let view = ndarray::ArrayViewMutD::from_shape(IxDyn(shape), &mut buf[1..]).unwrap();
    bcast::eltwise_view_into(op, inputs, spec, view.into(), par).unwrap();
    ArrayD::from_shape_vec(IxDyn(shape), buf[1..].to_vec()).unwrap()
}

/// From the streaming threshold on, the element-wise writers compute each chunk a window at
/// a time into an L1 buffer and stream it out. Forced on outputs of a few windows, with
/// chunks cut mid-row and mid-window, every writer (binary op, comparison, variadic fold,
/// Select; FakeQuantize and strings, which store the ordinary way, beside them) gives what
/// ordinary stores give, bit for bit: into a fresh output, a caller's, a caller's off every
/// line boundary, and a caller's reversed view.
#[test]
fn element_wise_outputs_stream_bit_for_bit() {
    fn f32s(shape: &[usize], salt: usize) -> Tensor {
        let n: usize = shape.iter().product();
        let v = (0..n)
            .map(|i| ((i * 37 + salt) % 1013) as f32 / 7.0 - 70.0)
            .collect();
        Tensor::F32(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap())
    }
    let f16s = |shape: &[usize], salt: usize| match f32s(shape, salt) {
        Tensor::F32(a) => Tensor::F16(a.mapv(f16::from_f32)),
        _ => unreachable!(),
    };
    let bools = |shape: &[usize]| {
        let n: usize = shape.iter().product();
        Tensor::Bool(
            ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|i| i % 3 == 1).collect()).unwrap(),
        )
    };
    let strings = |shape: &[usize], salt: usize| {
        let n: usize = shape.iter().product();
        let v = (0..n).map(|i| format!("s{}", i * 7 + salt)).collect();
        Tensor::String(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap())
    };
    use bcast::EltwiseOp as Op;
    let quantize = Op::FakeQuantize { levels: 256 };
    let cases: Vec<(&str, Op, Vec<Tensor>)> = vec![
        (
            "row add",
            Op::Add,
            vec![f32s(&[9, 1100], 1), f32s(&[1100], 2)],
        ),
        (
            "periodic add",
            Op::Add,
            vec![f32s(&[3300, 3], 1), f32s(&[3], 2)],
        ),
        (
            "column greater",
            Op::Greater,
            vec![f32s(&[40, 1100], 1), f32s(&[40, 1], 2)],
        ),
        (
            "f16 multiply",
            Op::Multiply,
            vec![f16s(&[5, 2100], 1), f16s(&[2100], 2)],
        ),
        (
            "sum of four",
            Op::Sum,
            vec![
                f32s(&[3, 40, 97], 1),
                f32s(&[3, 40, 97], 2),
                f32s(&[40, 1], 3),
                f32s(&[97], 4),
            ],
        ),
        (
            "mean of five",
            Op::Mean,
            vec![
                f32s(&[3, 40, 97], 1),
                f32s(&[3, 40, 97], 2),
                f32s(&[40, 1], 3),
                f32s(&[97], 4),
                f32s(&[1], 5),
            ],
        ),
        (
            "fake quantize",
            quantize,
            vec![
                f32s(&[2, 6, 40, 41], 1),
                f32s(&[1, 6, 1, 1], 2),
                f32s(&[1, 6, 1, 1], 900),
                f32s(&[1, 6, 1, 1], 3),
                f32s(&[1, 6, 1, 1], 800),
            ],
        ),
        (
            "select",
            Op::Select,
            vec![bools(&[30, 700]), f32s(&[30, 700], 1), f32s(&[700], 2)],
        ),
        (
            "select strings",
            Op::Select,
            vec![bools(&[30, 70]), strings(&[30, 70], 1), strings(&[70], 2)],
        ),
    ];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let spec = AutoBroadcast::Numpy;
    for (name, op, inputs) in &cases {
        let views: Vec<_> = inputs.iter().map(Tensor::view).collect();
        // The policy streams only beyond twice the last-level cache: these are stored the
        // ordinary way.
        let expected = bcast::eltwise_view(*op, &views, &spec, bcast::Parallelism::Serial).unwrap();
        let shape = expected.shape().to_vec();
        for chunk in [None, Some(1000), Some(4097), Some(20_011)] {
            let tuning = Tuning {
                chunk_elems: chunk,
                stream_stores: Some(true),
                ..Tuning::default()
            };
            let (fresh, into, misaligned, reversed) = pool.install(|| {
                with_tuning(tuning, || {
                    let par = bcast::Parallelism::Pool(&pool);
                    let fresh = bcast::eltwise_view(*op, &views, &spec, par).unwrap();
                    let mut into = expected.clone();
                    match &mut into {
                        Tensor::F32(a) => a.fill(0.5),
                        Tensor::F16(a) => a.fill(f16::ONE),
                        Tensor::Bool(a) => a.fill(true),
                        Tensor::String(a) => a.fill("old".to_string()),
                        _ => unreachable!(),
                    }
                    bcast::eltwise_into_with(
                        *op,
                        &inputs.iter().collect::<Vec<_>>(),
                        &spec,
                        &mut into,
                        par,
                    )
                    .unwrap();
                    let misaligned: Tensor = match &expected {
                        Tensor::F32(_) => Tensor::F32(run_into_misaligned(
                            *op, &views, &spec, &shape, 0.25f32, par,
                        )),
                        Tensor::F16(_) => Tensor::F16(run_into_misaligned(
                            *op,
                            &views,
                            &spec,
                            &shape,
                            f16::ONE,
                            par,
                        )),
                        Tensor::Bool(_) => {
                            Tensor::Bool(run_into_misaligned(*op, &views, &spec, &shape, true, par))
                        }
                        Tensor::String(_) => Tensor::String(run_into_misaligned(
                            *op,
                            &views,
                            &spec,
                            &shape,
                            "old".to_string(),
                            par,
                        )),
                        _ => unreachable!(),
                    };
                    // A reversed caller view (negative strides): written through the sink's
                    // own path for a layout it cannot write in place.
                    let mut reversed = expected.clone();
                    let reversed = match &mut reversed {
                        Tensor::F32(a) => {
                            let mut v = a.view_mut();
                            v.invert_axis(ndarray::Axis(0));
                            bcast::eltwise_view_into(*op, &views, &spec, v.into(), par).unwrap();
                            reversed
                        }
                        _ => reversed,
                    };
                    (fresh, into, misaligned, reversed)
                })
            });
            assert_eq!(fresh, expected, "{name}: fresh, chunks {chunk:?}");
            assert_eq!(into, expected, "{name}: into, chunks {chunk:?}");
            assert_eq!(misaligned, expected, "{name}: misaligned, chunks {chunk:?}");
            // Element [i, ..] of the output lies at [n - 1 - i, ..] of the reversed array.
            if let (Tensor::F32(r), Tensor::F32(e)) = (&reversed, &expected) {
                let mut e = e.view();
                e.invert_axis(ndarray::Axis(0));
                assert_eq!(r.view(), e, "{name}: reversed, chunks {chunk:?}");
            }
        }
    }
}
