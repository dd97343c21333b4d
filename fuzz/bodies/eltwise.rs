//! Random op, element types, shapes and rule through the element-wise entry point: never a
//! panic, an error for whatever it refuses. Under the numpy rule, integer add, subtract,
//! multiply, maximum, minimum and the comparisons, and the logical ops on bool, are checked
//! against a naive reference: the output shape from the ONNX multidirectional rule, each
//! operand expanded to it by the SONNX index relation, the op per element in `i128`.

use bcast::ndarray::{ArrayD, IxDyn};
use bcast::{AutoBroadcast, DType, EltwiseOp, Tensor};

#[path = "../../tests/common/mod.rs"]
mod reference;

fn tensor(dtype: DType, shape: &[usize], next: &mut impl FnMut() -> u8) -> Tensor {
    let s = IxDyn(shape);
    macro_rules! make {
        ($variant:ident, $f:expr) => {
            Tensor::$variant(ArrayD::from_shape_fn(s, |_| $f(next())))
        };
    }
    // Small values mostly, the type's ends sometimes.
    let int = |b: u8| match b % 16 {
        0 => i64::MIN,
        1 => i64::MAX,
        _ => i64::from(b % 9) - 4,
    };
    match dtype {
        DType::Bool => make!(Bool, |b: u8| b % 2 == 1),
        DType::I8 => make!(I8, |b: u8| int(b) as i8),
        DType::I16 => make!(I16, |b: u8| int(b) as i16),
        DType::I32 => make!(I32, |b: u8| int(b) as i32),
        DType::I64 => make!(I64, |b: u8| int(b)),
        DType::U8 => make!(U8, |b: u8| int(b) as u8),
        DType::U16 => make!(U16, |b: u8| int(b) as u16),
        DType::U32 => make!(U32, |b: u8| int(b) as u32),
        DType::U64 => make!(U64, |b: u8| int(b) as u64),
        DType::F16 => make!(F16, |b: u8| bcast::half::f16::from_f64(int(b) as f64 / 2.0)),
        DType::BF16 => make!(BF16, |b: u8| bcast::half::bf16::from_f64(
            int(b) as f64 / 2.0
        )),
        DType::F32 => make!(F32, |b: u8| int(b) as f32 / 2.0),
        DType::F64 => make!(F64, |b: u8| int(b) as f64 / 2.0),
        _ => make!(String, |b: u8| char::from(b'a' + b % 3).to_string()),
    }
}

/// Row-major values as `i128` (bool as 0 and 1); `None` for float and string tensors.
fn ints(t: &Tensor) -> Option<Vec<i128>> {
    macro_rules! all {
        ($a:expr) => {
            Some($a.iter().map(|&x| i128::from(x)).collect())
        };
    }
    match t {
        Tensor::Bool(a) => all!(a),
        Tensor::I8(a) => all!(a),
        Tensor::I16(a) => all!(a),
        Tensor::I32(a) => all!(a),
        Tensor::I64(a) => all!(a),
        Tensor::U8(a) => all!(a),
        Tensor::U16(a) => all!(a),
        Tensor::U32(a) => all!(a),
        Tensor::U64(a) => all!(a),
        _ => None,
    }
}

/// `v` wrapped to `dtype`'s bits, as the type's two's-complement arithmetic does.
fn wrap(v: i128, dtype: DType) -> i128 {
    let bits = 8 * dtype.size() as u32;
    let m = v.rem_euclid(1i128 << bits);
    let signed = matches!(dtype, DType::I8 | DType::I16 | DType::I32 | DType::I64);
    if signed && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

fn naive(op: EltwiseOp, dtype: DType, x: i128, y: i128) -> Option<i128> {
    let b = |c: bool| Some(i128::from(c));
    let logical = matches!(
        op,
        EltwiseOp::LogicalAnd | EltwiseOp::LogicalOr | EltwiseOp::LogicalXor
    );
    if logical != (dtype == DType::Bool) {
        return None;
    }
    match op {
        EltwiseOp::Add => Some(wrap(x + y, dtype)),
        EltwiseOp::Subtract => Some(wrap(x - y, dtype)),
        EltwiseOp::Multiply => Some(wrap(x.wrapping_mul(y), dtype)),
        EltwiseOp::Maximum => Some(x.max(y)),
        EltwiseOp::Minimum => Some(x.min(y)),
        EltwiseOp::Equal => b(x == y),
        EltwiseOp::NotEqual => b(x != y),
        EltwiseOp::Less => b(x < y),
        EltwiseOp::LessEqual => b(x <= y),
        EltwiseOp::Greater => b(x > y),
        EltwiseOp::GreaterEqual => b(x >= y),
        EltwiseOp::LogicalAnd => b(x != 0 && y != 0),
        EltwiseOp::LogicalOr => b(x != 0 || y != 0),
        EltwiseOp::LogicalXor => b((x != 0) != (y != 0)),
        _ => None,
    }
}

pub fn run(bytes: &[u8]) {
    let mut it = bytes.iter().copied();
    let mut next = || it.next().unwrap_or(0);
    let mut op = EltwiseOp::ALL[next() as usize % EltwiseOp::ALL.len()];
    if let EltwiseOp::FakeQuantize { levels } = &mut op {
        *levels = u64::from(next());
    }
    let dtype = DType::ALL[next() as usize % DType::ALL.len()];
    let n = match (next(), op.arity()) {
        (b, _) if b.is_multiple_of(16) => (b / 16) as usize % 7,
        (_, bcast::Arity::Exactly(k)) => k,
        (b, bcast::Arity::AtLeast(k)) => k + (b / 16) as usize % 4,
    };
    let rule = match next() % 4 {
        0 => AutoBroadcast::None,
        1 | 2 => AutoBroadcast::Numpy,
        _ => AutoBroadcast::Pdpd {
            axis: i64::from(next() as i8),
        },
    };
    let mut shapes = Vec::with_capacity(n);
    for _ in 0..n {
        let rank = next() as usize % 5;
        let shape: Vec<usize> = (0..rank)
            .map(|_| match next() % 8 {
                0 => 0,
                1..=4 => 1,
                b => b as usize - 3,
            })
            .collect();
        shapes.push(shape);
    }
    let types: Vec<DType> = (0..n)
        .map(|j| match next() % 16 {
            // Select's condition is bool; now and then an operand of another type.
            _ if j == 0 && op == EltwiseOp::Select => DType::Bool,
            0 => DType::ALL[next() as usize % DType::ALL.len()],
            _ => dtype,
        })
        .collect();
    // No output of more than 4,096 elements: the values are what is checked, not speed.
    let big = shapes
        .iter()
        .map(|s| bcast::checked_len(s).unwrap_or(usize::MAX))
        .fold(1usize, |a, l| a.saturating_mul(l.max(1)));
    if big > 1 << 12 {
        return;
    }
    let tensors: Vec<Tensor> = shapes
        .iter()
        .zip(&types)
        .map(|(s, &d)| tensor(d, s, &mut next))
        .collect();
    let refs: Vec<&Tensor> = tensors.iter().collect();
    let got = bcast::eltwise(op, &refs, &rule);
    if rule != AutoBroadcast::Numpy || n != 2 || types[1] != dtype || types[0] != dtype {
        return;
    }
    let (Some(x), Some(y)) = (ints(&tensors[0]), ints(&tensors[1])) else {
        return;
    };
    if naive(op, dtype, 0, 0).is_none() {
        return;
    }
    let Some(out) = reference::common_shape(&shapes) else {
        assert!(
            got.is_err(),
            "{op} {shapes:?}: the rule refuses them, bcast gave {got:?}"
        );
        return;
    };
    let padded = |s: &[usize]| {
        let mut p = vec![1; out.len() - s.len()];
        p.extend_from_slice(s);
        p
    };
    let xs = reference::expand(&x, &padded(&shapes[0]), &out);
    let ys = reference::expand(&y, &padded(&shapes[1]), &out);
    let want: Vec<i128> = xs
        .iter()
        .zip(&ys)
        .map(|(&a, &b)| naive(op, dtype, a, b).expect("checked above"))
        .collect();
    let got = got.unwrap_or_else(|e| panic!("{op} {dtype:?} {shapes:?}: {e}"));
    assert_eq!(got.shape(), out.as_slice(), "{op} {shapes:?}");
    assert_eq!(
        ints(&got).expect("an integer or bool output"),
        want,
        "{op} {dtype:?} {shapes:?}"
    );
}
