//! The binary ops (OpenVINO's element-wise arithmetic, comparison and logical ops) and their
//! arithmetic, as OpenVINO's *reference* implementation (constant folding) computes it.
//!
//! - Integers wrap (u8 200 + 100 = 44); SquaredDifference is `(a-b)*(a-b)` wrapping.
//! - Divide: IEEE on floats; on integers floor (`pythondiv`, the default: -7/2 = -4) or
//!   truncate (-3); `MIN / -1` wraps to `MIN`. Mod is the truncated remainder (sign of the
//!   dividend; `fmod` on floats), FloorMod the floored one (sign of the divisor; on floats
//!   `x - y*floor(x/y)` computed in f64); `MIN mod -1 = 0`. Integer division or modulo by
//!   zero is [`BroadcastError::DivisionByZero`].
//! - Maximum is `a < b ? b : a`, Minimum `b < a ? b : a` (std::max/std::min): with a NaN the
//!   first operand wins, and max(-0.0, 0.0) = -0.0.
//! - Power: floats `powf` in their type; integers `pow` in f64, then cast back (truncating:
//!   2**-1 = 0, (-1)**-1 = -1; out-of-range results saturate, which OpenVINO leaves undefined).
//! - f16/bf16 are computed in f32 (converted a block at a time) and rounded once; FloorMod in
//!   f64; Maximum, Minimum and comparisons on the values themselves (NaN payloads survive).

use std::fmt;
use std::str::FromStr;

use half::{bf16, f16};
use ndarray::{ArrayD, ArrayViewD};

use super::exec::{run_binary, Dest, PerElement};
use super::half::ViaF32;
use crate::auto_broadcast::AutoBroadcast;
use crate::dtype::DType;
use crate::error::BroadcastError;
use crate::exec::Parallelism;

/// An element-wise binary op of OpenVINO's opset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a + b` (integers wrap).
    Add,
    /// `a - b` (integers wrap).
    Subtract,
    /// `a * b` (integers wrap).
    Multiply,
    /// `a / b`; integers floor when `pythondiv` (OpenVINO's default), else truncate.
    Divide {
        /// Floor (`true`) or truncate (`false`) integer quotients.
        pythondiv: bool,
    },
    /// `a < b ? b : a`.
    Maximum,
    /// `b < a ? b : a`.
    Minimum,
    /// `(a - b) * (a - b)`.
    SquaredDifference,
    /// `a ** b`.
    Power,
    /// Remainder with the divisor's sign.
    FloorMod,
    /// Remainder with the dividend's sign (C `%`, `fmod`).
    Mod,
    /// `a == b` (bool out).
    Equal,
    /// `a != b` (bool out).
    NotEqual,
    /// `a < b` (bool out).
    Less,
    /// `a <= b` (bool out).
    LessEqual,
    /// `a > b` (bool out).
    Greater,
    /// `a >= b` (bool out).
    GreaterEqual,
    /// `a && b` on bool.
    LogicalAnd,
    /// `a || b` on bool.
    LogicalOr,
    /// `a != b` on bool.
    LogicalXor,
}

/// What kind of op a [`BinaryOp`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// Numbers in, the same type out.
    Arith,
    /// Numbers (or bool) in, bool out.
    Compare,
    /// Bool in, bool out.
    Logical,
}

/// A name [`BinaryOp::from_str`] or [`BinaryOp::from_openvino_type`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown element-wise op '{0}'")]
pub struct ParseBinaryOpError(pub String);

/// (op, snake-case name, OpenVINO type name)
const NAMES: [(BinaryOp, &str, &str); 19] = [
    (BinaryOp::Add, "add", "Add"),
    (BinaryOp::Subtract, "subtract", "Subtract"),
    (BinaryOp::Multiply, "multiply", "Multiply"),
    (BinaryOp::Divide { pythondiv: true }, "divide", "Divide"),
    (BinaryOp::Maximum, "maximum", "Maximum"),
    (BinaryOp::Minimum, "minimum", "Minimum"),
    (
        BinaryOp::SquaredDifference,
        "squared_difference",
        "SquaredDifference",
    ),
    (BinaryOp::Power, "power", "Power"),
    (BinaryOp::FloorMod, "floor_mod", "FloorMod"),
    (BinaryOp::Mod, "mod", "Mod"),
    (BinaryOp::Equal, "equal", "Equal"),
    (BinaryOp::NotEqual, "not_equal", "NotEqual"),
    (BinaryOp::Less, "less", "Less"),
    (BinaryOp::LessEqual, "less_equal", "LessEqual"),
    (BinaryOp::Greater, "greater", "Greater"),
    (BinaryOp::GreaterEqual, "greater_equal", "GreaterEqual"),
    (BinaryOp::LogicalAnd, "logical_and", "LogicalAnd"),
    (BinaryOp::LogicalOr, "logical_or", "LogicalOr"),
    (BinaryOp::LogicalXor, "logical_xor", "LogicalXor"),
];

impl BinaryOp {
    /// Every op (Divide once, with `pythondiv: true`), in a fixed order.
    pub const ALL: [BinaryOp; 19] = {
        let mut all = [BinaryOp::Add; 19];
        let mut i = 0;
        while i < 19 {
            all[i] = NAMES[i].0;
            i += 1;
        }
        all
    };

    fn entry(&self) -> &'static (BinaryOp, &'static str, &'static str) {
        let key = match self {
            BinaryOp::Divide { .. } => BinaryOp::Divide { pythondiv: true },
            op => *op,
        };
        NAMES
            .iter()
            .find(|e| e.0 == key)
            .expect("every op is in the table")
    }

    /// The snake-case name (`add`, `squared_difference`, `floor_mod`, `logical_xor`, ...).
    pub fn name(&self) -> &'static str {
        self.entry().1
    }

    /// OpenVINO's type name (`Add`, `SquaredDifference`, ...).
    pub fn openvino_type(&self) -> &'static str {
        self.entry().2
    }

    /// The op of an OpenVINO type name (`Divide` with `pythondiv: true`, its default).
    ///
    /// # Errors
    /// [`ParseBinaryOpError`] for any other name.
    pub fn from_openvino_type(s: &str) -> Result<Self, ParseBinaryOpError> {
        NAMES
            .iter()
            .find(|e| e.2 == s)
            .map(|e| e.0)
            .ok_or_else(|| ParseBinaryOpError(s.to_string()))
    }

    pub(crate) fn family(&self) -> Family {
        match self {
            BinaryOp::Equal
            | BinaryOp::NotEqual
            | BinaryOp::Less
            | BinaryOp::LessEqual
            | BinaryOp::Greater
            | BinaryOp::GreaterEqual => Family::Compare,
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::LogicalXor => Family::Logical,
            _ => Family::Arith,
        }
    }

    /// Whether integer operands refuse a zero divisor.
    fn divides(&self) -> bool {
        matches!(
            self,
            BinaryOp::Divide { .. } | BinaryOp::Mod | BinaryOp::FloorMod
        )
    }
}

impl fmt::Display for BinaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BinaryOp {
    type Err = ParseBinaryOpError;

    /// The snake-case names of [`BinaryOp::name`]; `divide` is `Divide { pythondiv: true }`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        NAMES
            .iter()
            .find(|e| e.1 == s)
            .map(|e| e.0)
            .ok_or_else(|| ParseBinaryOpError(s.to_string()))
    }
}

/// A number type the arithmetic ops run on.
pub(crate) trait Arith: Copy + Send + Sync + PartialOrd + 'static {
    /// Runs arithmetic `op` (of [`Family::Arith`]).
    fn arith(
        op: BinaryOp,
        a: ArrayViewD<'_, Self>,
        b: ArrayViewD<'_, Self>,
        spec: &AutoBroadcast,
        dest: Dest<'_, Self>,
        par: Parallelism<'_>,
    ) -> Result<Option<ArrayD<Self>>, BroadcastError>;
}

/// `a < b ? b : a`.
#[inline(always)]
fn max_of<T: PartialOrd>(a: T, b: T) -> T {
    if a < b {
        b
    } else {
        a
    }
}

/// `b < a ? b : a`.
#[inline(always)]
fn min_of<T: PartialOrd>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}

/// `x - y*floor(x/y)` in f64 (OpenVINO's reference FloorMod on floats).
#[inline(always)]
fn floor_mod_f64(x: f64, y: f64) -> f64 {
    x - y * (x / y).floor()
}

fn not_arith(op: BinaryOp, dtype: DType) -> BroadcastError {
    BroadcastError::UnsupportedType {
        op: op.name(),
        dtype: dtype.name(),
    }
}

/// The refusal of a zero integer divisor, when the output is not empty.
fn check_divisor<T: PartialEq + Default + Copy>(
    op: BinaryOp,
    dtype: DType,
    a: &ArrayViewD<'_, T>,
    b: &ArrayViewD<'_, T>,
    spec: &AutoBroadcast,
) -> Result<(), BroadcastError> {
    if !op.divides() {
        return Ok(());
    }
    let shape = crate::auto_broadcast::eltwise_shape(a.shape(), b.shape(), spec)?;
    let zero = T::default();
    if shape.iter().all(|&d| d > 0) && b.iter().any(|&x| x == zero) {
        return Err(BroadcastError::DivisionByZero {
            op: op.name(),
            dtype: dtype.name(),
        });
    }
    Ok(())
}

macro_rules! run {
    ($a:expr, $b:expr, $spec:expr, $dest:expr, $par:expr, $t:ty, |$x:ident, $y:ident| $body:expr) => {
        run_binary(
            $a,
            $b,
            $spec,
            &PerElement(|$x: $t, $y: $t| -> $t { $body }),
            $dest,
            $par,
        )
    };
}

macro_rules! int_arith {
    ($t:ty, $dtype:expr, $neg:expr) => {
        impl Arith for $t {
            fn arith(
                op: BinaryOp,
                a: ArrayViewD<'_, Self>,
                b: ArrayViewD<'_, Self>,
                spec: &AutoBroadcast,
                dest: Dest<'_, Self>,
                par: Parallelism<'_>,
            ) -> Result<Option<ArrayD<Self>>, BroadcastError> {
                let neg: fn($t) -> bool = $neg;
                check_divisor(op, $dtype, &a, &b, spec)?;
                match op {
                    BinaryOp::Add => run!(a, b, spec, dest, par, $t, |x, y| x.wrapping_add(y)),
                    BinaryOp::Subtract => {
                        run!(a, b, spec, dest, par, $t, |x, y| x.wrapping_sub(y))
                    }
                    BinaryOp::Multiply => {
                        run!(a, b, spec, dest, par, $t, |x, y| x.wrapping_mul(y))
                    }
                    BinaryOp::Divide { pythondiv: true } => {
                        run!(a, b, spec, dest, par, $t, |x, y| {
                            let q = x.wrapping_div(y);
                            if x.wrapping_rem(y) != 0 && neg(x) != neg(y) {
                                q.wrapping_sub(1)
                            } else {
                                q
                            }
                        })
                    }
                    BinaryOp::Divide { pythondiv: false } => {
                        run!(a, b, spec, dest, par, $t, |x, y| x.wrapping_div(y))
                    }
                    BinaryOp::Maximum => run!(a, b, spec, dest, par, $t, |x, y| max_of(x, y)),
                    BinaryOp::Minimum => run!(a, b, spec, dest, par, $t, |x, y| min_of(x, y)),
                    BinaryOp::SquaredDifference => {
                        run!(a, b, spec, dest, par, $t, |x, y| {
                            let d = x.wrapping_sub(y);
                            d.wrapping_mul(d)
                        })
                    }
                    BinaryOp::Power => {
                        run!(a, b, spec, dest, par, $t, |x, y| (x as f64).powf(y as f64)
                            as $t)
                    }
                    BinaryOp::FloorMod => run!(a, b, spec, dest, par, $t, |x, y| {
                        let r = x.wrapping_rem(y);
                        if r != 0 && neg(r) != neg(y) {
                            r.wrapping_add(y)
                        } else {
                            r
                        }
                    }),
                    BinaryOp::Mod => run!(a, b, spec, dest, par, $t, |x, y| x.wrapping_rem(y)),
                    _ => Err(not_arith(op, $dtype)),
                }
            }
        }
    };
}

int_arith!(i8, DType::I8, |x| x < 0);
int_arith!(i16, DType::I16, |x| x < 0);
int_arith!(i32, DType::I32, |x| x < 0);
int_arith!(i64, DType::I64, |x| x < 0);
int_arith!(u8, DType::U8, |_| false);
int_arith!(u16, DType::U16, |_| false);
int_arith!(u32, DType::U32, |_| false);
int_arith!(u64, DType::U64, |_| false);

macro_rules! float_arith {
    ($t:ty, $dtype:expr) => {
        impl Arith for $t {
            fn arith(
                op: BinaryOp,
                a: ArrayViewD<'_, Self>,
                b: ArrayViewD<'_, Self>,
                spec: &AutoBroadcast,
                dest: Dest<'_, Self>,
                par: Parallelism<'_>,
            ) -> Result<Option<ArrayD<Self>>, BroadcastError> {
                match op {
                    BinaryOp::Add => run!(a, b, spec, dest, par, $t, |x, y| x + y),
                    BinaryOp::Subtract => run!(a, b, spec, dest, par, $t, |x, y| x - y),
                    BinaryOp::Multiply => run!(a, b, spec, dest, par, $t, |x, y| x * y),
                    BinaryOp::Divide { .. } => run!(a, b, spec, dest, par, $t, |x, y| x / y),
                    BinaryOp::Maximum => run!(a, b, spec, dest, par, $t, |x, y| max_of(x, y)),
                    BinaryOp::Minimum => run!(a, b, spec, dest, par, $t, |x, y| min_of(x, y)),
                    BinaryOp::SquaredDifference => {
                        run!(a, b, spec, dest, par, $t, |x, y| (x - y) * (x - y))
                    }
                    BinaryOp::Power => run!(a, b, spec, dest, par, $t, |x, y| x.powf(y)),
                    BinaryOp::FloorMod => run!(a, b, spec, dest, par, $t, |x, y| {
                        floor_mod_f64(f64::from(x), f64::from(y)) as $t
                    }),
                    BinaryOp::Mod => run!(a, b, spec, dest, par, $t, |x, y| x % y),
                    _ => Err(not_arith(op, $dtype)),
                }
            }
        }
    };
}

float_arith!(f32, DType::F32);
float_arith!(f64, DType::F64);

macro_rules! half_arith {
    ($t:ty, $dtype:expr) => {
        impl Arith for $t {
            fn arith(
                op: BinaryOp,
                a: ArrayViewD<'_, Self>,
                b: ArrayViewD<'_, Self>,
                spec: &AutoBroadcast,
                dest: Dest<'_, Self>,
                par: Parallelism<'_>,
            ) -> Result<Option<ArrayD<Self>>, BroadcastError> {
                macro_rules! via {
                    (|$x:ident, $y:ident| $body:expr) => {
                        run_binary(
                            a,
                            b,
                            spec,
                            &ViaF32::new(|$x: f32, $y: f32| -> f32 { $body }),
                            dest,
                            par,
                        )
                    };
                }
                match op {
                    BinaryOp::Add => via!(|x, y| x + y),
                    BinaryOp::Subtract => via!(|x, y| x - y),
                    BinaryOp::Multiply => via!(|x, y| x * y),
                    BinaryOp::Divide { .. } => via!(|x, y| x / y),
                    BinaryOp::SquaredDifference => via!(|x, y| (x - y) * (x - y)),
                    BinaryOp::Power => via!(|x, y| x.powf(y)),
                    BinaryOp::Mod => via!(|x, y| x % y),
                    BinaryOp::Maximum => run!(a, b, spec, dest, par, $t, |x, y| max_of(x, y)),
                    BinaryOp::Minimum => run!(a, b, spec, dest, par, $t, |x, y| min_of(x, y)),
                    BinaryOp::FloorMod => run!(a, b, spec, dest, par, $t, |x, y| {
                        <$t>::from_f64(floor_mod_f64(x.to_f64(), y.to_f64()))
                    }),
                    _ => Err(not_arith(op, $dtype)),
                }
            }
        }
    };
}

half_arith!(f16, DType::F16);
half_arith!(bf16, DType::BF16);
