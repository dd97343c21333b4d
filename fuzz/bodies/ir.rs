//! Arbitrary IR text and weights through the IR reader and, when a model loads, through a
//! run on zero inputs of its Parameters' shapes: never a panic.
//!
//! Input layout: the XML text, a NUL byte, then the weights.

use std::collections::HashMap;

use bcast::ir::Model;
use bcast::{DType, Tensor};
use ndarray::{ArrayD, IxDyn};

fn zeros(dtype: DType, shape: &[usize]) -> Tensor {
    let s = IxDyn(shape);
    match dtype {
        DType::Bool => ArrayD::from_elem(s, false).into(),
        DType::I8 => ArrayD::<i8>::zeros(s).into(),
        DType::I16 => ArrayD::<i16>::zeros(s).into(),
        DType::I32 => ArrayD::<i32>::zeros(s).into(),
        DType::I64 => ArrayD::<i64>::zeros(s).into(),
        DType::U8 => ArrayD::<u8>::zeros(s).into(),
        DType::U16 => ArrayD::<u16>::zeros(s).into(),
        DType::U32 => ArrayD::<u32>::zeros(s).into(),
        DType::U64 => ArrayD::<u64>::zeros(s).into(),
        DType::F16 => ArrayD::from_elem(s, half::f16::ZERO).into(),
        DType::BF16 => ArrayD::from_elem(s, half::bf16::ZERO).into(),
        DType::F32 => ArrayD::<f32>::zeros(s).into(),
        DType::F64 => ArrayD::<f64>::zeros(s).into(),
        _ => ArrayD::from_elem(s, String::new()).into(),
    }
}

pub fn run(bytes: &[u8]) {
    let split = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let Ok(xml) = std::str::from_utf8(&bytes[..split]) else {
        return;
    };
    let weights = bytes.get(split + 1..).unwrap_or(&[]);
    let Ok(model) = Model::from_xml(xml, weights) else {
        return;
    };
    let _ = model.describe();
    let mut inputs = HashMap::new();
    for info in model.inputs() {
        let Some(shape) = info.shape.to_static() else {
            return;
        };
        if bcast::checked_len(&shape).is_ok_and(|n| n > 1 << 12)
            || bcast::checked_len(&shape).is_err()
        {
            return;
        }
        inputs.insert(info.name.clone(), zeros(info.dtype, &shape));
    }
    // Outputs too large to allocate come back as errors; anything else is fine but a panic.
    let _ = model.run(&inputs);
}
