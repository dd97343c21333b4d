//! Element-wise layers of an IR: the binary ops (Add ... LogicalXor), LogicalNot, Select and
//! Convert. At load time they give element types and shapes (checked against the ports); a
//! layer whose inputs are all known tensors (Consts, or a run) is computed.

use std::borrow::Cow;

use half::{bf16, f16};
use ndarray::ArrayD;

use crate::auto_broadcast::{eltwise_shape, AutoBroadcast};
use crate::dtype::DType;
use crate::error::BroadcastError;
use crate::exec::Parallelism;
use crate::infer::infer_eltwise_shape;
use crate::ir::error::{IrError, LayerRef};
use crate::ir::eval::Value;
use crate::mode::Rule;
use crate::partial_shape::PartialShape;
use crate::planners::common_shape;
use crate::tensor::Tensor;
use crate::{BinaryOp, PreparedOp, TensorView};

fn rule(layer: &LayerRef) -> impl Fn(BroadcastError) -> IrError + '_ {
    move |source| IrError::Broadcast {
        layer: layer.clone(),
        source: Box::new(source),
    }
}

fn types(layer: &LayerRef, problem: String) -> IrError {
    IrError::ElementTypes {
        layer: layer.clone(),
        problem,
    }
}

/// The output element type of `op` on operands of `dtype`, or why the types are refused.
fn binary_dtype(op: BinaryOp, dtype: DType) -> Result<DType, String> {
    op.output_dtype(dtype).map_err(|_| {
        let name = op.openvino_type().unwrap_or(op.name());
        match dtype {
            DType::String => format!("{name} does not take strings"),
            other if op.output_dtype(DType::Bool).is_ok() && other != DType::Bool => {
                format!("{name} takes boolean operands, not {other}")
            }
            other => format!("{name} takes numeric operands, not {other}"),
        }
    })
}

pub(crate) fn binary<'a>(
    layer: &LayerRef,
    op: BinaryOp,
    spec: &AutoBroadcast,
    inputs: &[&Value<'a>],
    materialise: bool,
    prepared: Option<&PreparedOp>,
) -> Result<Value<'a>, IrError> {
    let first = inputs[0];
    if let Some(other) = inputs.iter().find(|v| v.dtype() != first.dtype()) {
        return Err(types(
            layer,
            format!(
                "operands are {} and {}; an element-wise layer takes one element type",
                first.dtype(),
                other.dtype()
            ),
        ));
    }
    let dtype = binary_dtype(op, first.dtype()).map_err(|p| types(layer, p))?;
    let tensors: Option<Vec<&Tensor>> = inputs
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => Some(t.as_ref()),
            _ => None,
        })
        .collect();
    if let (Some(tensors), true) = (&tensors, materialise) {
        // The layer's op prepared at load time, where its operands' shapes were static then
        // and are these now.
        let as_prepared = prepared.filter(|p| {
            p.operands()
                .zip(tensors.iter())
                .all(|((d, s), t)| t.dtype() == d && t.shape() == s)
        });
        let out = match as_prepared {
            Some(p) => {
                let views: Vec<TensorView<'_>> = tensors.iter().map(|t| t.view()).collect();
                p.run_new(&views, Parallelism::Auto)
            }
            None => crate::eltwise(op, tensors, spec),
        };
        return Ok(Value::Tensor(Cow::Owned(out.map_err(rule(layer))?)));
    }
    // The output shape: each further operand folded in pairwise (numpy is associative; pdpd
    // and none keep operand 0's shape); PRelu's slope never changes x's shape.
    let shape = if op.takes_auto_broadcast() {
        let statics: Option<Vec<&[usize]>> = inputs.iter().map(|v| v.shape()).collect();
        match statics {
            Some(shapes) => {
                let mut out = shapes[0].to_vec();
                for s in &shapes[1..] {
                    out = eltwise_shape(&out, s, spec).map_err(rule(layer))?;
                }
                PartialShape::from_static(&out)
            }
            None => {
                let mut out = first.partial();
                for v in &inputs[1..] {
                    out = infer_eltwise_shape(&out, &v.partial(), spec).map_err(rule(layer))?;
                }
                out
            }
        }
    } else {
        if let (Some(x), Some(s)) = (first.shape(), inputs[1].shape()) {
            let slope = crate::eltwise::prelu_slope_shape(x, s);
            crate::planners::plan(&slope, x, &crate::Mode::Numpy).map_err(rule(layer))?;
        }
        first.partial()
    };
    Ok(Value::meta(dtype, shape))
}

pub(crate) fn logical_not<'a>(
    layer: &LayerRef,
    x: &Value<'a>,
    materialise: bool,
) -> Result<Value<'a>, IrError> {
    if x.dtype() != DType::Bool {
        return Err(types(
            layer,
            format!("LogicalNot takes a boolean operand, not {}", x.dtype()),
        ));
    }
    match x {
        Value::Tensor(t) if materialise => match t.as_ref() {
            Tensor::Bool(a) => Ok(Value::Tensor(Cow::Owned(Tensor::Bool(a.mapv(|v| !v))))),
            _ => unreachable!("the element type was checked above"),
        },
        _ => Ok(Value::meta(DType::Bool, x.partial())),
    }
}

/// Select's output shape: numpy broadcasts all three together; none wants three equal shapes;
/// pdpd gives then's shape, with else and then cond PDPD-broadcast onto it.
pub(crate) fn select_shape(
    cond: &[usize],
    then: &[usize],
    else_: &[usize],
    spec: &AutoBroadcast,
) -> Result<Vec<usize>, BroadcastError> {
    match spec {
        AutoBroadcast::Numpy => common_shape(&[cond, then, else_], Rule::EltwiseNumpy),
        AutoBroadcast::None => {
            eltwise_shape(then, else_, spec)?;
            eltwise_shape(then, cond, spec)
        }
        AutoBroadcast::Pdpd { .. } => {
            eltwise_shape(then, else_, spec)?;
            eltwise_shape(then, cond, spec)
        }
    }
}

/// [`select_shape`] on partial shapes: each step is [`infer_eltwise_shape`]'s.
fn infer_select_shape(
    cond: &PartialShape,
    then: &PartialShape,
    else_: &PartialShape,
    spec: &AutoBroadcast,
) -> Result<PartialShape, BroadcastError> {
    match spec {
        AutoBroadcast::Numpy => {
            let te = infer_eltwise_shape(then, else_, spec)?;
            infer_eltwise_shape(cond, &te, spec)
        }
        AutoBroadcast::None => {
            let te = infer_eltwise_shape(then, else_, spec)?;
            infer_eltwise_shape(&te, cond, spec)
        }
        AutoBroadcast::Pdpd { .. } => {
            let te = infer_eltwise_shape(then, else_, spec)?;
            infer_eltwise_shape(&te, cond, spec)
        }
    }
}

pub(crate) fn select<'a>(
    layer: &LayerRef,
    spec: &AutoBroadcast,
    inputs: &[&Value<'a>],
    materialise: bool,
) -> Result<Value<'a>, IrError> {
    let (cond, then, else_) = (inputs[0], inputs[1], inputs[2]);
    if cond.dtype() != DType::Bool {
        return Err(types(
            layer,
            format!("Select's cond must be boolean, not {}", cond.dtype()),
        ));
    }
    if then.dtype() != else_.dtype() {
        return Err(types(
            layer,
            format!(
                "Select's then and else must have one element type, not {} and {}",
                then.dtype(),
                else_.dtype()
            ),
        ));
    }
    let shape = match (cond.shape(), then.shape(), else_.shape()) {
        (Some(c), Some(t), Some(e)) => {
            PartialShape::from_static(&select_shape(c, t, e, spec).map_err(rule(layer))?)
        }
        _ => infer_select_shape(&cond.partial(), &then.partial(), &else_.partial(), spec)
            .map_err(rule(layer))?,
    };
    match (cond, then, else_) {
        (Value::Tensor(c), Value::Tensor(t), Value::Tensor(e)) if materialise => Ok(Value::Tensor(
            Cow::Owned(crate::select_tensor(c, t, e, spec).map_err(rule(layer))?),
        )),
        _ => Ok(Value::meta(then.dtype(), shape)),
    }
}

pub(crate) fn convert<'a>(
    layer: &LayerRef,
    to: DType,
    x: &Value<'a>,
    materialise: bool,
) -> Result<Value<'a>, IrError> {
    if (x.dtype() == DType::String) != (to == DType::String) {
        return Err(types(
            layer,
            format!("Convert from {} to {to} is not defined", x.dtype()),
        ));
    }
    match x {
        Value::Tensor(t) if materialise => Ok(Value::Tensor(Cow::Owned(convert_tensor(t, to)))),
        _ => Ok(Value::meta(to, x.partial())),
    }
}

/// One element on its way through Convert: integers (and bool) exactly, floats as the
/// widest float that holds them exactly.
#[derive(Clone, Copy)]
enum Scalar {
    Int(i128),
    F32(f32),
    F64(f64),
}

/// Converts like OpenVINO's reference `Convert` (a C++ `static_cast` per element): integers
/// wrap to a narrower integer type; floats round to nearest-even into a narrower float type;
/// a float becomes an integer by truncation toward zero, **saturating** at the target's range
/// with NaN giving 0 (Rust's `as`: C++ leaves out-of-range values undefined, so no value is
/// "right"; saturation is what the CPU plugin does); anything becomes boolean as `!= 0`
/// (NaN is true). String converts only to string.
pub(crate) fn convert_tensor(t: &Tensor, to: DType) -> Tensor {
    fn collect<T>(t: &Tensor) -> ArrayD<T>
    where
        T: FromScalar,
    {
        macro_rules! each {
            ($a:expr, $f:expr) => {
                $a.mapv(|v| T::from_scalar($f(v)))
            };
        }
        match t {
            Tensor::Bool(a) => each!(a, |v: bool| Scalar::Int(i128::from(v))),
            Tensor::I8(a) => each!(a, |v| Scalar::Int(i128::from(v))),
            Tensor::I16(a) => each!(a, |v| Scalar::Int(i128::from(v))),
            Tensor::I32(a) => each!(a, |v| Scalar::Int(i128::from(v))),
            Tensor::I64(a) => each!(a, |v| Scalar::Int(i128::from(v))),
            Tensor::U8(a) => each!(a, |v| Scalar::Int(i128::from(v))),
            Tensor::U16(a) => each!(a, |v| Scalar::Int(i128::from(v))),
            Tensor::U32(a) => each!(a, |v| Scalar::Int(i128::from(v))),
            Tensor::U64(a) => each!(a, |v| Scalar::Int(i128::from(v))),
            Tensor::F16(a) => each!(a, |v: f16| Scalar::F32(v.to_f32())),
            Tensor::BF16(a) => each!(a, |v: bf16| Scalar::F32(v.to_f32())),
            Tensor::F32(a) => each!(a, Scalar::F32),
            Tensor::F64(a) => each!(a, Scalar::F64),
            Tensor::String(_) => unreachable!("strings convert only to strings"),
        }
    }
    if let Tensor::String(_) = t {
        return t.clone();
    }
    match to {
        DType::Bool => Tensor::Bool(collect(t)),
        DType::I8 => Tensor::I8(collect(t)),
        DType::I16 => Tensor::I16(collect(t)),
        DType::I32 => Tensor::I32(collect(t)),
        DType::I64 => Tensor::I64(collect(t)),
        DType::U8 => Tensor::U8(collect(t)),
        DType::U16 => Tensor::U16(collect(t)),
        DType::U32 => Tensor::U32(collect(t)),
        DType::U64 => Tensor::U64(collect(t)),
        DType::F16 => Tensor::F16(collect(t)),
        DType::BF16 => Tensor::BF16(collect(t)),
        DType::F32 => Tensor::F32(collect(t)),
        DType::F64 => Tensor::F64(collect(t)),
        DType::String => unreachable!("only strings convert to strings"),
    }
}

trait FromScalar: Clone {
    fn from_scalar(s: Scalar) -> Self;
}

macro_rules! int_from_scalar {
    ($($t:ty),*) => {$(
        impl FromScalar for $t {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            fn from_scalar(s: Scalar) -> Self {
                match s {
                    Scalar::Int(i) => i as $t,
                    Scalar::F32(f) => f as $t,
                    Scalar::F64(f) => f as $t,
                }
            }
        }
    )*};
}
int_from_scalar!(i8, i16, i32, i64, u8, u16, u32, u64);

impl FromScalar for bool {
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Int(i) => i != 0,
            Scalar::F32(f) => f != 0.0,
            Scalar::F64(f) => f != 0.0,
        }
    }
}

impl FromScalar for f32 {
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Int(i) => i as f32,
            Scalar::F32(f) => f,
            Scalar::F64(f) => f as f32,
        }
    }
}

impl FromScalar for f64 {
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Int(i) => i as f64,
            Scalar::F32(f) => f64::from(f),
            Scalar::F64(f) => f,
        }
    }
}

impl FromScalar for f16 {
    fn from_scalar(s: Scalar) -> Self {
        match s {
            // Exact in f64 up to 2**53, far past f16's range (65504).
            Scalar::Int(i) => f16::from_f64(i as f64),
            Scalar::F32(f) => f16::from_f32(f),
            Scalar::F64(f) => f16::from_f64(f),
        }
    }
}

impl FromScalar for bf16 {
    fn from_scalar(s: Scalar) -> Self {
        match s {
            Scalar::Int(i) => bf16::from_f32(i as f32),
            Scalar::F32(f) => bf16::from_f32(f),
            Scalar::F64(f) => bf16::from_f64(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn convert_truncates_saturates_and_wraps() {
        let f = Tensor::F32(array![2.9f32, -2.9, 300.0, -1.0, f32::NAN].into_dyn());
        assert_eq!(
            convert_tensor(&f, DType::U8),
            Tensor::U8(array![2u8, 0, 255, 0, 0].into_dyn())
        );
        assert_eq!(
            convert_tensor(&f, DType::I32),
            Tensor::I32(array![2, -2, 300, -1, 0].into_dyn())
        );
        let i = Tensor::I32(array![300, -1, 0].into_dyn());
        assert_eq!(
            convert_tensor(&i, DType::U8),
            Tensor::U8(array![44u8, 255, 0].into_dyn())
        );
        assert_eq!(
            convert_tensor(&i, DType::Bool),
            Tensor::Bool(array![true, true, false].into_dyn())
        );
        let h = Tensor::F16(array![f16::from_f32(0.5), f16::from_f32(-1.5)].into_dyn());
        assert_eq!(
            convert_tensor(&h, DType::F32),
            Tensor::F32(array![0.5f32, -1.5].into_dyn())
        );
    }

    #[test]
    fn select_shapes_follow_each_rule() {
        let pdpd = AutoBroadcast::Pdpd { axis: 1 };
        assert_eq!(
            select_shape(&[3], &[2, 3, 4], &[3], &pdpd).unwrap(),
            vec![2, 3, 4]
        );
        assert!(select_shape(&[3], &[2, 3], &[3], &AutoBroadcast::Pdpd { axis: 0 }).is_err());
        assert_eq!(
            select_shape(&[2, 1, 1, 2], &[1, 1, 4, 1], &[2], &AutoBroadcast::Numpy).unwrap(),
            vec![2, 1, 4, 2]
        );
        assert!(select_shape(&[2], &[2], &[3], &AutoBroadcast::None).is_err());
    }
}
