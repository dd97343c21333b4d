//! Arbitrary text through the expression parser; when it parses, its text form read back,
//! and a run on small operands fused and op by op. Never a panic or an abort, whatever the
//! nesting or length; the text form parses back to the same expression; the fused run gives
//! the op-by-op run's bits, or its error.
//!
//! Input layout: one byte choosing the rule and the operands' element type, then the text.
//! An operand whose name starts with `c` is bool (a Select condition), the others of the
//! chosen type; each operand's shape comes from its name.

use bcast::ndarray::{ArrayD, Dimension, IxDyn};
use bcast::{AutoBroadcast, DType, Expression, Parallelism, Tensor};

const RULES: [AutoBroadcast; 4] = [
    AutoBroadcast::Numpy,
    AutoBroadcast::None,
    AutoBroadcast::Pdpd { axis: -1 },
    AutoBroadcast::Pdpd { axis: 1 },
];

const TYPES: [DType; 6] = [
    DType::F32,
    DType::I32,
    DType::F16,
    DType::I64,
    DType::U8,
    DType::F64,
];

const SHAPES: [&[usize]; 7] = [&[], &[1], &[3], &[2, 3], &[2, 1], &[1, 3], &[0, 3]];

/// Small values, zero among them (integer division by zero is an error both ways).
fn operand(dtype: DType, shape: &[usize], salt: usize) -> Tensor {
    let v = |i: usize| ((i * 7 + salt * 3) % 9) as i64 - 3;
    let s = IxDyn(shape);
    macro_rules! make {
        ($variant:ident, $f:expr) => {
            Tensor::$variant(ArrayD::from_shape_fn(s, |ix| {
                let i = ix.as_array_view().iter().fold(0, |a, &k| a * 5 + k);
                $f(v(i))
            }))
        };
    }
    match dtype {
        DType::Bool => make!(Bool, |x: i64| x > 0),
        DType::I32 => make!(I32, |x: i64| x as i32),
        DType::I64 => make!(I64, |x: i64| x),
        DType::U8 => make!(U8, |x: i64| x as u8),
        DType::F16 => make!(F16, |x: i64| bcast::half::f16::from_f64(x as f64 * 0.75)),
        DType::F64 => make!(F64, |x: i64| x as f64 * 0.75),
        _ => make!(F32, |x: i64| x as f32 * 0.75),
    }
}

pub fn run(bytes: &[u8]) {
    let Some((&first, text)) = bytes.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let rule = RULES[first as usize % RULES.len()];
    let Ok(e) = Expression::parse(text, rule) else {
        return;
    };
    let again = Expression::parse(&e.to_string(), rule).expect("the text form parses back");
    assert_eq!(again, e, "the text form reads back to the same expression");
    let value = TYPES[first as usize / RULES.len() % TYPES.len()];
    let inputs: Vec<Tensor> = e
        .inputs()
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let dtype = if name.starts_with('c') {
                DType::Bool
            } else {
                value
            };
            let h = name
                .bytes()
                .fold(0usize, |h, b| h.wrapping_mul(31) ^ b as usize);
            operand(dtype, SHAPES[h % SHAPES.len()], k)
        })
        .collect();
    let views: Vec<_> = inputs.iter().map(Tensor::view).collect();
    let fused = e.evaluate(&views, Parallelism::Serial);
    let unfused = e.evaluate_unfused(&views, Parallelism::Serial);
    match (&fused, &unfused) {
        (Ok(f), Ok(u)) => assert!(f.bit_equal(u), "{e}: fused {f:?}, op by op {u:?}"),
        (Err(f), Err(u)) => assert_eq!(f, u, "{e}"),
        _ => panic!("{e}: fused {fused:?}, op by op {unfused:?}"),
    }
}
