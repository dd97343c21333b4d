//! Random graphs of element-wise ops through the expression builder and, the same graph, the
//! C ABI's node arrays (`bcast_expr_shape`, `bcast_expr_dtype`, `bcast_expr_eval`): op
//! codes (unknown ones too), `levels`, operand counts and indices (forward and out of range
//! too), element types, shapes, rules, and now and then a chain past the node limit. Never
//! a panic or an abort: the C calls fail exactly where the builder or the run fails, and
//! where both run, the C result, the fused run and the op-by-op run are the same bits.
//!
//! Input layout: bytes read in order (missing bytes read as 0).

use std::ffi::{c_int, c_void};

use bcast::ndarray::{ArrayD, IxDyn};
use bcast::{AutoBroadcast, DType, EltwiseOp, ExprValue, Expression, Parallelism, Tensor};
use bcast_c::{
    bcast_expr_dtype, bcast_expr_eval, bcast_expr_node, bcast_expr_shape, dtype_code,
    BCAST_EXPR_MAX_NODES,
};

const SHAPES: [&[usize]; 6] = [&[], &[1], &[3], &[2, 3], &[2, 1], &[0]];

fn tensor(dtype: DType, shape: &[usize], next: &mut impl FnMut() -> u8) -> Tensor {
    let s = IxDyn(shape);
    macro_rules! make {
        ($variant:ident, $f:expr) => {
            Tensor::$variant(ArrayD::from_shape_fn(s, |_| $f(i64::from(next() % 9) - 4)))
        };
    }
    match dtype {
        DType::Bool => make!(Bool, |x: i64| x > 0),
        DType::I8 => make!(I8, |x: i64| x as i8),
        DType::I16 => make!(I16, |x: i64| x as i16),
        DType::I32 => make!(I32, |x: i64| x as i32),
        DType::I64 => make!(I64, |x: i64| x),
        DType::U8 => make!(U8, |x: i64| x as u8),
        DType::U16 => make!(U16, |x: i64| x as u16),
        DType::U32 => make!(U32, |x: i64| x as u32),
        DType::U64 => make!(U64, |x: i64| x as u64),
        DType::F16 => make!(F16, |x: i64| bcast::half::f16::from_f64(x as f64 / 2.0)),
        DType::BF16 => make!(BF16, |x: i64| bcast::half::bf16::from_f64(x as f64 / 2.0)),
        DType::F64 => make!(F64, |x: i64| x as f64 / 2.0),
        _ => make!(F32, |x: i64| x as f32 / 2.0),
    }
}

/// A tensor's elements, row-major, as the C ABI lays them out (bool as one byte 0 or 1).
fn bytes_of(t: &Tensor) -> Vec<u8> {
    macro_rules! each {
        ($a:expr) => {
            $a.iter().flat_map(|x| x.to_ne_bytes()).collect()
        };
    }
    match t {
        Tensor::Bool(a) => a.iter().map(|&b| u8::from(b)).collect(),
        Tensor::I8(a) => each!(a),
        Tensor::I16(a) => each!(a),
        Tensor::I32(a) => each!(a),
        Tensor::I64(a) => each!(a),
        Tensor::U8(a) => each!(a),
        Tensor::U16(a) => each!(a),
        Tensor::U32(a) => each!(a),
        Tensor::U64(a) => each!(a),
        Tensor::F16(a) => each!(a),
        Tensor::BF16(a) => each!(a),
        Tensor::F32(a) => each!(a),
        Tensor::F64(a) => each!(a),
        _ => unreachable!("no strings here"),
    }
}

/// `bytes` in a buffer aligned for any element type.
fn aligned(bytes: &[u8]) -> Vec<u64> {
    let mut v = vec![0u64; bytes.len().div_ceil(8).max(1)];
    for (i, b) in bytes.iter().enumerate() {
        v[i / 8] |= u64::from(*b) << (8 * (i % 8));
    }
    v
}

pub fn run(bytes: &[u8]) {
    let mut it = bytes.iter().copied();
    let mut next = || it.next().unwrap_or(0);
    let n_inputs = 1 + next() as usize % 4;
    let types: Vec<DType> = DType::ALL
        .into_iter()
        .filter(|d| dtype_code(*d).is_some())
        .collect();
    let value = types[next() as usize % types.len()];
    let (ab, rule) = match next() % 4 {
        0 => (0u32, AutoBroadcast::None),
        3 => (2, AutoBroadcast::Pdpd { axis: -1 }),
        _ => (1, AutoBroadcast::Numpy),
    };
    let inputs: Vec<Tensor> = (0..n_inputs)
        .map(|_| {
            let dtype = if next().is_multiple_of(4) {
                DType::Bool
            } else {
                value
            };
            let shape = SHAPES[next() as usize % SHAPES.len()];
            tensor(dtype, shape, &mut next)
        })
        .collect();
    // The nodes as the C ABI takes them, and the same graph through the builder.
    let mut args: Vec<Vec<usize>> = Vec::new();
    let mut nodes: Vec<(u32, i64)> = Vec::new();
    let n_nodes = 1 + next() as usize % 12;
    for k in 0..n_nodes {
        let code = u32::from(next()) % 40;
        let op = EltwiseOp::from_c_code(code);
        let n_args = match (next(), op.map(|o| o.arity())) {
            (b, _) if b.is_multiple_of(32) => (b / 32) as usize,
            (_, Some(bcast::Arity::Exactly(n))) => n,
            (b, Some(bcast::Arity::AtLeast(n))) => n + b as usize % 3,
            (b, None) => b as usize % 4,
        };
        let levels = match (next(), op) {
            (b, _) if b.is_multiple_of(32) => i64::from(b as i8),
            (b, Some(EltwiseOp::FakeQuantize { .. })) => 2 + i64::from(b % 8),
            _ => 0,
        };
        // Operands: mostly inputs and earlier nodes, sometimes an index past them.
        let list: Vec<usize> = (0..n_args)
            .map(|_| next() as usize % (n_inputs + k + 1))
            .collect();
        nodes.push((code, levels));
        args.push(list);
    }
    if next() == 255 {
        // A chain: each node adds input 0 to the one before, up to past the node limit.
        let tail = usize::from(next()) << 9 | usize::from(next());
        for _ in 0..tail {
            let prev = n_inputs + nodes.len() - 1;
            nodes.push((0, 0));
            args.push(vec![prev, 0]);
        }
    }
    let c_nodes: Vec<bcast_expr_node> = nodes
        .iter()
        .zip(&args)
        .map(|(&(op, levels), a)| bcast_expr_node {
            op,
            levels,
            n_args: a.len(),
            args: if a.is_empty() {
                std::ptr::null()
            } else {
                a.as_ptr()
            },
        })
        .collect();
    let mut e = Expression::new();
    for i in 0..n_inputs {
        e.input(&format!("inputs[{i}]"));
    }
    let built = nodes
        .iter()
        .zip(&args)
        .enumerate()
        .try_for_each(|(k, (&(code, levels), a))| {
            let mut op = EltwiseOp::from_c_code(code).ok_or(())?;
            match &mut op {
                EltwiseOp::FakeQuantize { levels: l } => {
                    *l = u64::try_from(levels).map_err(|_| ())?
                }
                _ if levels != 0 => return Err(()),
                _ => {}
            }
            let values: Vec<ExprValue> = a
                .iter()
                .map(|&j| match j.checked_sub(n_inputs) {
                    None => ExprValue::Input(j),
                    // A forward index is the builder's error too (it is not defined yet).
                    Some(m) if m < k => ExprValue::Node(m),
                    Some(_) => ExprValue::Node(usize::MAX),
                })
                .collect();
            e.apply(op, &values, rule).map(|_| ()).map_err(|_| ())
        });
    let views: Vec<_> = inputs.iter().map(Tensor::view).collect();
    let rust = built.ok().map(|()| {
        let fused = e.evaluate(&views, Parallelism::Serial);
        let unfused = e.evaluate_unfused(&views, Parallelism::Serial);
        match (&fused, &unfused) {
            (Ok(f), Ok(u)) => assert!(f.bit_equal(u), "fused {f:?}, op by op {u:?}"),
            (Err(f), Err(u)) => assert_eq!(f, u),
            _ => panic!("{e}: fused {fused:?}, op by op {unfused:?}"),
        }
        fused
    });
    // The same through the C ABI.
    let codes: Vec<u32> = inputs
        .iter()
        .map(|t| dtype_code(t.dtype()).expect("a C type"))
        .collect();
    let buffers: Vec<Vec<u64>> = inputs.iter().map(|t| aligned(&bytes_of(t))).collect();
    let pointers: Vec<*const c_void> = buffers.iter().map(|b| b.as_ptr().cast()).collect();
    let shapes: Vec<*const usize> = inputs.iter().map(|t| t.shape().as_ptr()).collect();
    let ranks: Vec<usize> = inputs.iter().map(|t| t.shape().len()).collect();
    let mut shape = [0usize; 64];
    let mut rank = 0usize;
    let mut dtype = 0u32;
    // SAFETY: every array holds the count passed with it; the nodes' `args` live in `args`.
    let (s, d) = unsafe {
        (
            bcast_expr_shape(
                c_nodes.as_ptr(),
                c_nodes.len(),
                n_inputs,
                shapes.as_ptr(),
                ranks.as_ptr(),
                ab,
                -1,
                shape.as_mut_ptr(),
                shape.len(),
                &mut rank,
            ),
            bcast_expr_dtype(
                c_nodes.as_ptr(),
                c_nodes.len(),
                n_inputs,
                codes.as_ptr(),
                &mut dtype,
            ),
        )
    };
    for status in [s, d] {
        assert_ne!(status, 6, "a caught panic");
    }
    if c_nodes.len() > BCAST_EXPR_MAX_NODES {
        assert!(s != 0 && d != 0 && rust.is_none(), "past the node limit");
    }
    let Some(rust) = rust else {
        assert!(
            s != 0 && d != 0,
            "the builder refused the graph, the C ABI took it"
        );
        return;
    };
    if s != 0 || d != 0 {
        assert!(
            rust.is_err(),
            "C refused what Rust ran: shape {s}, dtype {d}"
        );
        return;
    }
    let len: usize = shape[..rank].iter().product();
    let mut out = vec![0u64; (len * 8).div_ceil(8).max(1)];
    // SAFETY: as above; `out` holds `len` elements of any type.
    let status: c_int = unsafe {
        bcast_expr_eval(
            c_nodes.as_ptr(),
            c_nodes.len(),
            n_inputs,
            codes.as_ptr(),
            pointers.as_ptr(),
            shapes.as_ptr(),
            ranks.as_ptr(),
            ab,
            -1,
            out.as_mut_ptr().cast(),
            len,
            1,
        )
    };
    match rust {
        Ok(t) => {
            assert_eq!(status, 0, "C failed where Rust ran");
            assert_eq!(t.shape(), &shape[..rank]);
            assert_eq!(dtype_code(t.dtype()), Some(dtype));
            let want = bytes_of(&t);
            let got: Vec<u8> = out
                .iter()
                .flat_map(|w| w.to_ne_bytes())
                .take(want.len())
                .collect();
            assert_eq!(got, want, "C's bits");
        }
        Err(e) => assert_ne!(status, 0, "C ran where Rust failed with {e}"),
    }
}
