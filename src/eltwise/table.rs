//! The op table: every element-wise op once, op first. From it come [`EltwiseOp`] (its
//! variants and attributes), the names (snake case, OpenVINO, ONNX), the stable C codes, the
//! arity, the broadcasting each op takes, the output-type rule, the element types each op
//! accepts (the kinds it has bodies for) and the kernels (`kernels.rs`).
//!
//! A row:
//!
//! ```text
//! [Variant { attribute: Type = default, .. }]   the enum variant (attributes optional)
//! ["snake", "OpenVinoType", "OnnxType"]         names ("" where the runtime has no such op)
//! [code, alt "name" => { attribute: value }]    C code; an attribute value with its own code
//! [Shape Broadcasting Output Lanes]             see below (`Lanes` optional)
//! only [DType, ..]                              optional: the types the op's definition lists
//! { kind: body, .. }                            one body per kind of element type
//! ```
//!
//! - Shape: `Binary` (2 operands of one type), `Mixed` (2 operands, the second of any numeric
//!   type), `Fold(start, finish)` (1 or more operands, a left fold: `start` First folds from
//!   operand 0, so a sum of -0.0s stays -0.0 as IEEE addition keeps it, where onnx.reference's
//!   Python `sum()` starts from the integer 0; `finish` Keep, or Mean dividing by the count), `Quantize` (5 operands), `Select` (bool condition, then, else of any type).
//! - Broadcasting: `Auto` (OpenVINO's `auto_broadcast`: none, numpy, pdpd), `Numpy` (the numpy
//!   rule over every operand; `none` asks for equal shapes), `Channel` (OpenVINO PRelu: a 1-D
//!   slope of x's channel count goes on axis 1, else numpy, the slope onto x), `Onto` (ONNX
//!   PRelu: the slope broadcast one way onto x).
//! - Output: `Same` (operand 0's type) or `Bool`.
//! - `Lanes`: the bodies are arithmetic a vector unit runs lane by lane, with no call or loop
//!   (so a fused chain keeps its running value in registers through the op, `chain.rs`); a
//!   row without it runs in chains block by block.
//! - Kinds: `int` (every integer), `int_div` (every integer, a zero divisor refused), `uint`
//!   (unsigned only), `float` (f32, f64), `half` (f16, bf16, the body computed in f32 and
//!   rounded once), `half_native` (f16, bf16, the body on the 16-bit values), `bool`, `ord`
//!   (every type but strings, through `PartialOrd`). A kind without a body refuses the type.
//!   Two more keys beside the bodies of a `Lanes` row: `f16x32` (beside `half` or
//!   `half_native`), the same op on 32 f16 lanes in an AVX512-FP16 register (`fp16.rs`, which
//!   says why the bits are the same), and `f32x16` (beside `float`), the same op on 16 f32
//!   lanes in an AVX-512 register (`fp32.rs`); register chains of that type run them on CPUs
//!   that have the instructions.
//!
//! Bodies are closures over the element type (`T`); attributes are in scope by name.

use std::fmt;
use std::str::FromStr;

use crate::dtype::DType;
use crate::error::BroadcastError;

/// Calls `$then!` with the rows (see the module documentation). Read whole by `define_ops!`
/// only; the kernel generators take `op_bodies!`, its projection of the rows.
macro_rules! op_table {
    ($($then:ident)::+ ! $(($($args:tt)*))?) => {
        $($then)::+! { $($($args)*)? ;
            [Add] ["add", "Add", "Add"] [0] [Binary Auto Same Lanes]
                {
                    int: |x, y| x.wrapping_add(y),
                    float: |x, y| x + y,
                    half: |x, y| x + y,
                    f16x32: fp16::add,
                    f32x16: fp32::add,
                }
            [Subtract] ["subtract", "Subtract", "Sub"] [1] [Binary Auto Same Lanes]
                {
                    int: |x, y| x.wrapping_sub(y),
                    float: |x, y| x - y,
                    half: |x, y| x - y,
                    f16x32: fp16::sub,
                    f32x16: fp32::sub,
                }
            [Multiply] ["multiply", "Multiply", "Mul"] [2] [Binary Auto Same Lanes]
                {
                    int: |x, y| x.wrapping_mul(y),
                    float: |x, y| x * y,
                    half: |x, y| x * y,
                    f16x32: fp16::mul,
                    f32x16: fp32::mul,
                }
            [Divide { pythondiv: bool = true }] ["divide", "Divide", ""]
                [3, 19 "divide_trunc" => { pythondiv: false }] [Binary Auto Same Lanes]
                {
                    int_div: |x, y| if pythondiv { floor_div(x, y) } else { x.wrapping_div(y) },
                    float: |x, y| x / y,
                    half: |x, y| x / y,
                    f16x32: fp16::div,
                    f32x16: fp32::div,
                }
            [Maximum] ["maximum", "Maximum", ""] [4] [Binary Auto Same Lanes]
                {
                    int: max_of,
                    float: max_of,
                    half_native: max_of,
                    f16x32: fp16::max_of,
                    f32x16: fp32::max_of,
                }
            [Minimum] ["minimum", "Minimum", ""] [5] [Binary Auto Same Lanes]
                {
                    int: min_of,
                    float: min_of,
                    half_native: min_of,
                    f16x32: fp16::min_of,
                    f32x16: fp32::min_of,
                }
            [SquaredDifference] ["squared_difference", "SquaredDifference", ""] [6]
                [Binary Auto Same Lanes]
                {
                    int: |x, y| x.wrapping_sub(y).wrapping_mul(x.wrapping_sub(y)),
                    float: |x, y| (x - y) * (x - y),
                    half: |x, y| (x - y) * (x - y),
                    f32x16: fp32::squared_difference,
                }
            [Power] ["power", "Power", ""] [7] [Binary Auto Same]
                {
                    int: |x, y| pow_via_f64(x, y.to_f64()),
                    float: |x, y| x.powf(y),
                    half: |x, y| x.powf(y),
                }
            [FloorMod] ["floor_mod", "FloorMod", ""] [8] [Binary Auto Same]
                {
                    int_div: floor_rem,
                    float: |x, y| T::from_f64(floor_mod_f64(x.to_f64(), y.to_f64())),
                    half_native: |x, y| T::from_f64(floor_mod_f64(x.to_f64(), y.to_f64())),
                }
            [Mod] ["mod", "Mod", ""] [9] [Binary Auto Same]
                { int_div: |x, y| x.wrapping_rem(y), float: |x, y| x % y, half: |x, y| x % y }
            [Equal] ["equal", "Equal", "Equal"] [10] [Binary Auto Bool] { ord: |x, y| x == y }
            [NotEqual] ["not_equal", "NotEqual", ""] [11] [Binary Auto Bool]
                { ord: |x, y| x != y }
            [Less] ["less", "Less", "Less"] [12] [Binary Auto Bool] { ord: |x, y| x < y }
            [LessEqual] ["less_equal", "LessEqual", "LessOrEqual"] [13] [Binary Auto Bool]
                { ord: |x, y| x <= y }
            [Greater] ["greater", "Greater", "Greater"] [14] [Binary Auto Bool]
                { ord: |x, y| x > y }
            [GreaterEqual] ["greater_equal", "GreaterEqual", "GreaterOrEqual"] [15]
                [Binary Auto Bool] { ord: |x, y| x >= y }
            [LogicalAnd] ["logical_and", "LogicalAnd", "And"] [16] [Binary Auto Bool]
                { bool: |x, y| x & y }
            [LogicalOr] ["logical_or", "LogicalOr", "Or"] [17] [Binary Auto Bool]
                { bool: |x, y| x | y }
            [LogicalXor] ["logical_xor", "LogicalXor", "Xor"] [18] [Binary Auto Bool]
                { bool: |x, y| x ^ y }
            [Select] ["select", "Select", "Where"] [20] [Select Auto Same] {}
            [Sum] ["sum", "", "Sum"] [21] [Fold(First, Keep) Numpy Same]
                { float: |a, x| a + x, half: |a, x| a + x }
            [Mean] ["mean", "", "Mean"] [22] [Fold(First, Mean) Numpy Same]
                { float: |a, x| a + x, half: |a, x| a + x }
            [Max] ["max", "", "Max"] [23] [Fold(First, Keep) Numpy Same]
                { int: max_of, float: numpy_max, half_native: numpy_max_half }
            [Min] ["min", "", "Min"] [24] [Fold(First, Keep) Numpy Same]
                { int: min_of, float: numpy_min, half_native: numpy_min_half }
            [BitwiseAnd] ["bitwise_and", "BitwiseAnd", "BitwiseAnd"] [25] [Binary Auto Same Lanes]
                { int: |x, y| x & y, bool: |x, y| x & y }
            [BitwiseOr] ["bitwise_or", "BitwiseOr", "BitwiseOr"] [26] [Binary Auto Same Lanes]
                { int: |x, y| x | y, bool: |x, y| x | y }
            [BitwiseXor] ["bitwise_xor", "BitwiseXor", "BitwiseXor"] [27] [Binary Auto Same Lanes]
                { int: |x, y| x ^ y, bool: |x, y| x ^ y }
            [BitwiseLeftShift] ["bitwise_left_shift", "BitwiseLeftShift", ""] [28]
                [Binary Auto Same] { int: ov_shift_left }
            [BitwiseRightShift] ["bitwise_right_shift", "BitwiseRightShift", ""] [29]
                [Binary Auto Same] { int: ov_shift_right }
            [BitShift { direction: ShiftDirection = ShiftDirection::Left }]
                ["bit_shift", "", "BitShift"]
                [30, 31 "bit_shift_right" => { direction: ShiftDirection::Right }] [Binary Numpy Same]
                { int: |x, y| onnx_shift(x, y, direction == ShiftDirection::Left) }
            [Prelu] ["prelu", "PRelu", ""] [32] [Binary Channel Same Lanes]
                {
                    int: |x, s| if x < T::default() { x.wrapping_mul(s) } else { x },
                    float: |x, s| if x < T::default() { x * s } else { x },
                    half: |x, s| if x < 0.0 { x * s } else { x },
                    f16x32: fp16::prelu,
                    f32x16: fp32::prelu,
                }
            [OnnxPrelu] ["onnx_prelu", "", "PRelu"] [33] [Binary Onto Same Lanes]
                only [I32, I64, U32, U64, F16, BF16, F32, F64]
                {
                    int: |x, s| if x < T::default() { x.wrapping_mul(s) } else { x },
                    float: |x, s| if x < T::default() { x * s } else { x },
                    half: |x, s| if x < 0.0 { x * s } else { x },
                    f16x32: fp16::prelu,
                    f32x16: fp32::prelu,
                }
            [FakeQuantize { levels: u64 = 256 }] ["fake_quantize", "FakeQuantize", ""] [34]
                [Quantize Auto Same]
                {
                    float: FakeQuantize::new(T::from_f64((levels - 1) as f64)),
                    half: FakeQuantize::new((levels - 1) as f32),
                }
            [OnnxMod { fmod: bool = false }] ["onnx_mod", "", "Mod"]
                [35, 36 "onnx_fmod" => { fmod: true }] [Binary Numpy Same]
                {
                    int_div: |x, y| if fmod { x.wrapping_rem(y) } else { floor_rem(x, y) },
                    float: |x, y| if fmod { x % y } else { numpy_mod(x, y) },
                    half: |x, y| if fmod { x % y } else { numpy_mod(x, y) },
                }
            [OnnxDiv] ["onnx_div", "", "Div"] [37] [Binary Numpy Same Lanes]
                {
                    int_div: |x, y| x.wrapping_div(y),
                    float: |x, y| x / y,
                    half: |x, y| x / y,
                    f16x32: fp16::div,
                    f32x16: fp32::div,
                }
            [OnnxPow] ["onnx_pow", "", "Pow"] [38] [Mixed Numpy Same]
                only [I32, I64, F16, BF16, F32, F64]
                {
                    int: |x, y| int_pow(x, y.to_i128()),
                    float: |x, y| x.powf(y),
                    half: |x, y| x.powf(y),
                }
        }
    };
}

/// ONNX BitShift's `direction` attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShiftDirection {
    /// `LEFT`.
    Left,
    /// `RIGHT`.
    Right,
}

impl ShiftDirection {
    /// ONNX's spelling (`LEFT`, `RIGHT`).
    pub fn name(self) -> &'static str {
        match self {
            ShiftDirection::Left => "LEFT",
            ShiftDirection::Right => "RIGHT",
        }
    }
}

impl FromStr for ShiftDirection {
    type Err = ParseBinaryOpError;

    /// `LEFT` or `RIGHT` (ONNX's spelling; lower case accepted).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "LEFT" | "left" => Ok(ShiftDirection::Left),
            "RIGHT" | "right" => Ok(ShiftDirection::Right),
            _ => Err(ParseBinaryOpError(format!("direction {s}"))),
        }
    }
}

/// How many operands an op takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many.
    Exactly(usize),
    /// This many or more.
    AtLeast(usize),
}

impl Arity {
    /// Whether `n` operands fit.
    pub fn admits(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == k,
            Arity::AtLeast(k) => n >= k,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Arity::Exactly(2) => "2",
            Arity::Exactly(3) => "3",
            Arity::Exactly(5) => "5",
            Arity::AtLeast(1) => "1 or more",
            _ => "another number of",
        }
    }
}

/// The shape of an op (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Binary,
    Mixed,
    Fold,
    Quantize,
    Select,
}

/// How an op broadcasts (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Broadcasting {
    Auto,
    Numpy,
    Channel,
    Onto,
}

/// An op's output element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Out {
    Same,
    Bool,
}

/// The kinds of element type an op's bodies are written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KernelKind {
    Signed,
    Unsigned,
    Float,
    Half,
    Bool,
    Text,
}

impl KernelKind {
    /// The kind of `dtype`: from its table row (a 16-bit float computes through f32).
    pub(crate) fn of(dtype: DType) -> KernelKind {
        use crate::dtype::DTypeKind;
        match dtype.kind() {
            DTypeKind::Int => KernelKind::Signed,
            DTypeKind::Uint => KernelKind::Unsigned,
            DTypeKind::Float if dtype.size() == 2 => KernelKind::Half,
            DTypeKind::Float => KernelKind::Float,
            DTypeKind::Bool => KernelKind::Bool,
            DTypeKind::Text => KernelKind::Text,
        }
    }
}

/// The kinds a body key covers.
macro_rules! key_kinds {
    (int) => {
        KernelKind::Signed | KernelKind::Unsigned
    };
    (int_div) => {
        KernelKind::Signed | KernelKind::Unsigned
    };
    (uint) => {
        KernelKind::Unsigned
    };
    (float) => {
        KernelKind::Float
    };
    (half) => {
        KernelKind::Half
    };
    (half_native) => {
        KernelKind::Half
    };
    // Only with a `half` or `half_native` body beside it, which the types' acceptance and
    // the block kernels follow.
    (f16x32) => {
        KernelKind::Half
    };
    // Only with a `float` body beside it, likewise.
    (f32x16) => {
        KernelKind::Float
    };
    (bool) => {
        KernelKind::Bool
    };
    (ord) => {
        KernelKind::Signed
            | KernelKind::Unsigned
            | KernelKind::Float
            | KernelKind::Half
            | KernelKind::Bool
    };
}

macro_rules! shape_of {
    (Fold) => {
        Shape::Fold
    };
    ($s:ident) => {
        Shape::$s
    };
}

/// A row's `only [..]` list, if it has one.
macro_rules! listed_types {
    () => {
        None
    };
    ($($t:ident),+) => {
        Some(&[$(DType::$t),+][..])
    };
}

macro_rules! define_ops {
    ($d:tt ; $(
        [$v:ident $({ $($f:ident : $fty:ty = $fdef:expr),+ })?]
        [$name:literal, $ov:literal, $onnx:literal]
        [$code:literal $(, $alt:literal $alt_name:literal => { $($af:ident : $av:expr),+ })?]
        [$shape:ident $(($start:ident, $finish:ident))? $bc:ident $out:ident $($lanes:ident)?]
        $(only [$($only:ident),+])?
        { $($key:ident : $body:expr),* $(,)? }
    )*) => {
        /// An element-wise op: OpenVINO's and ONNX's ops that broadcast, each with its
        /// attributes. Where the two runtimes mean different things by one name (Mod, Div,
        /// PRelu, Max/Min), both are here, each named and matching its own reference.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum EltwiseOp {
            $(
                #[doc = concat!("`", $name, "`",
                    " (OpenVINO `", $ov, "`, ONNX `", $onnx, "`; an empty name: none).")]
                $v $({ $(
                    #[doc = concat!("The `", stringify!($f), "` attribute.")]
                    $f: $fty
                ),+ })?,
            )*
        }

        impl EltwiseOp {
            /// Every op with its default attributes, in the table's order.
            pub const ALL: [EltwiseOp; [$($code),*].len()] = [
                $(EltwiseOp::$v $({ $($f: $fdef),+ })?),*
            ];

            /// The snake-case name (`add`, `floor_mod`, `fake_quantize`, `onnx_mod`, ...).
            pub fn name(&self) -> &'static str {
                match self { $(EltwiseOp::$v { .. } => $name,)* }
            }

            /// OpenVINO's type name (`Add`, `FakeQuantize`, ...), if OpenVINO has the op.
            pub fn openvino_type(&self) -> Option<&'static str> {
                let name = match self { $(EltwiseOp::$v { .. } => $ov,)* };
                (!name.is_empty()).then_some(name)
            }

            /// ONNX's op type (`Add`, `Sum`, `PRelu`, ...), if ONNX has the op.
            pub fn onnx_type(&self) -> Option<&'static str> {
                let name = match self { $(EltwiseOp::$v { .. } => $onnx,)* };
                (!name.is_empty()).then_some(name)
            }

            /// The stable C code (`bcast_eltwise_op`): written in the table, never a position.
            /// An attribute value with a code of its own (Divide without `pythondiv`, BitShift
            /// right, ONNX Mod with `fmod`) has that code.
            #[allow(clippy::bool_comparison, clippy::nonminimal_bool)]
            pub fn c_code(&self) -> u32 {
                match self {
                    $(
                        $(EltwiseOp::$v { $($af,)+ .. } if true $(&& *$af == $av)+ => $alt,)?
                        EltwiseOp::$v { .. } => $code,
                    )*
                }
            }

            /// The snake-case name of the op's C code: [`EltwiseOp::name`], or the name of an
            /// attribute value with a code of its own (`divide_trunc`, `bit_shift_right`,
            /// `onnx_fmod`). The C header's `BCAST_OP_*` names are these, upper case.
            #[allow(clippy::bool_comparison, clippy::nonminimal_bool)]
            pub fn c_name(&self) -> &'static str {
                match self {
                    $(
                        $(EltwiseOp::$v { $($af,)+ .. } if true $(&& *$af == $av)+ => $alt_name,)?
                        EltwiseOp::$v { .. } => $name,
                    )*
                }
            }

            /// The op of a C code, with the attributes the code stands for (defaults for the
            /// rest).
            #[inline]
            pub fn from_c_code(code: u32) -> Option<EltwiseOp> {
                // One `match` (a jump table), as every one-shot C call decodes its op.
                match code {
                    $(
                        $code => Some(EltwiseOp::$v $({ $($f: $fdef),+ })?),
                        $($alt => Some(EltwiseOp::$v { $($af: $av),+ }),)?
                    )*
                    _ => None,
                }
            }

            /// How many operands the op takes.
            #[inline]
            pub fn arity(&self) -> Arity {
                match self.shape() {
                    Shape::Binary | Shape::Mixed => Arity::Exactly(2),
                    Shape::Select => Arity::Exactly(3),
                    Shape::Quantize => Arity::Exactly(5),
                    Shape::Fold => Arity::AtLeast(1),
                }
            }

            #[inline]
            pub(crate) fn shape(&self) -> Shape {
                match self { $(EltwiseOp::$v { .. } => shape_of!($shape),)* }
            }

            #[inline]
            pub(crate) fn broadcasting(&self) -> Broadcasting {
                match self { $(EltwiseOp::$v { .. } => Broadcasting::$bc,)* }
            }

            #[inline]
            pub(crate) fn out(&self) -> Out {
                match self { $(EltwiseOp::$v { .. } => Out::$out,)* }
            }

            /// Whether the op has a body for element types of `kind`.
            pub(crate) fn accepts(&self, kind: KernelKind) -> bool {
                match self {
                    $(EltwiseOp::$v { .. } => {
                        shape_of!($shape) == Shape::Select
                            $(|| matches!(kind, key_kinds!($key)))*
                    })*
                }
            }

            /// The element types the op's definition lists, where it lists fewer than its
            /// bodies take (ONNX's type constraints: PRelu's `T`, Pow's base).
            pub(crate) fn type_constraint(&self) -> Option<&'static [DType]> {
                match self {
                    $(EltwiseOp::$v { .. } => listed_types!($($($only),+)?),)*
                }
            }

            /// The op of a snake-case name, with its default attributes.
            fn from_name(s: &str) -> Option<EltwiseOp> {
                EltwiseOp::ALL.iter().copied().find(|op| op.name() == s)
            }
        }

        /// Calls `$then!` with the rows as the kernel generators read them, one line each:
        /// `Variant [attribute names] [Shape (start, finish)] Output [Lanes] { kind: body, .. }`.
        /// `define_ops!` above is the one reader of the table's full rows; this is its
        /// projection for everything that generates code from the bodies (`kernels.rs`,
        /// `chain.rs`).
        macro_rules! op_bodies {
            ($d($d then:ident)::+ ! $d(($d($d args:tt)*))?) => {
                $d($d then)::+! { $d($d($d args)*)? ; $(
                    $v [$($($f),+)?] [$shape $(($start, $finish))?] $out [$($lanes)?]
                    { $($key : $body),* }
                )* }
            };
        }
    };
}
op_table!(define_ops!($));
// The path `kernels.rs` and `chain.rs` import the macro by (clippy counts the re-export of a
// macro that an expansion defined as redundant; without it they cannot name it).
#[allow(clippy::single_component_path_imports)]
pub(crate) use op_bodies;

/// The former name of [`EltwiseOp`], from when every op took two operands. New code names
/// `EltwiseOp`.
pub type BinaryOp = EltwiseOp;

/// A name [`EltwiseOp::from_str`], [`EltwiseOp::from_openvino_type`] or
/// [`EltwiseOp::from_onnx_type`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown element-wise op '{0}'")]
pub struct ParseBinaryOpError(pub String);

/// [`EltwiseOp::relative_cost`] of a dear op. At one thread on a 64 KiB output (in the core's
/// cache) the dear ops took from 3.7-4.4 (f32 floor_mod) to 88-97 (i32 power) times as long
/// as `add` of their type, every other op at most 2.4 times (the `op_cost` example, two runs
/// on an Intel Xeon; benches/RESULTS.md). About the least of them is used, so that no dear
/// op is given threads its work does not pay for.
pub(crate) const DEAR_OP_COST: usize = 4;

impl EltwiseOp {
    /// The op of an OpenVINO type name, with its default attributes (`Divide` with
    /// `pythondiv: true`).
    ///
    /// # Errors
    /// [`ParseBinaryOpError`] for any other name.
    pub fn from_openvino_type(s: &str) -> Result<Self, ParseBinaryOpError> {
        EltwiseOp::ALL
            .iter()
            .copied()
            .find(|op| op.openvino_type() == Some(s))
            .ok_or_else(|| ParseBinaryOpError(s.to_string()))
    }

    /// The op of an ONNX op type, with its default attributes.
    ///
    /// # Errors
    /// [`ParseBinaryOpError`] for any other name.
    pub fn from_onnx_type(s: &str) -> Result<Self, ParseBinaryOpError> {
        EltwiseOp::ALL
            .iter()
            .copied()
            .find(|op| op.onnx_type() == Some(s))
            .ok_or_else(|| ParseBinaryOpError(s.to_string()))
    }

    /// What one output element of the op costs on operands of `dtype`, next to `add` of the
    /// same type, for the cost model: 1 for an op whose body is vector arithmetic (bound by
    /// its memory traffic), more for one whose body calls a function (`powf`, `fmod`, the
    /// floor modulo), divides integers (no vector instruction on x86) or shifts by checked
    /// amounts (BitShift). The cost model
    /// counts an op's output bytes times this, so an op its arithmetic bounds takes a second
    /// thread at a smaller output. Which ops are dear is measured (the `op_cost` example).
    #[must_use]
    pub fn relative_cost(&self, dtype: DType) -> usize {
        let int = matches!(
            KernelKind::of(dtype),
            KernelKind::Signed | KernelKind::Unsigned
        );
        let dear = match self {
            EltwiseOp::Power
            | EltwiseOp::OnnxPow
            | EltwiseOp::FloorMod
            | EltwiseOp::Mod
            | EltwiseOp::OnnxMod { .. }
            | EltwiseOp::BitShift { .. } => true,
            EltwiseOp::Divide { .. } | EltwiseOp::OnnxDiv => int,
            _ => false,
        };
        if dear {
            DEAR_OP_COST
        } else {
            1
        }
    }

    /// The element type `self` produces from operands of type `dtype` (operand 0's, for an op
    /// whose operands may differ): bool for comparisons and logical ops, else `dtype`.
    ///
    /// # Errors
    /// [`BroadcastError::UnsupportedType`] for a type the op has no body for (arithmetic on
    /// bool or strings, comparisons on strings, logical ops on anything but bool, BitShift on
    /// signed integers, FakeQuantize on integers, ...).
    #[inline]
    pub fn output_dtype(&self, dtype: DType) -> Result<DType, BroadcastError> {
        let listed = self
            .type_constraint()
            .is_none_or(|types| types.contains(&dtype));
        if !listed || !self.accepts(KernelKind::of(dtype)) {
            return Err(BroadcastError::UnsupportedType {
                op: self.name(),
                dtype: dtype.name(),
            });
        }
        Ok(match self.out() {
            Out::Same => dtype,
            Out::Bool => DType::Bool,
        })
    }

    /// Whether the op takes OpenVINO's `auto_broadcast` (none, numpy, pdpd); the others
    /// broadcast by their own rule (numpy's over every operand, or PRelu's), and take `none`
    /// as "equal shapes" and refuse pdpd.
    pub fn takes_auto_broadcast(&self) -> bool {
        self.broadcasting() == Broadcasting::Auto
    }

    /// Refuses attribute values the op is not defined for (FakeQuantize's `levels` below 2).
    #[inline]
    pub(crate) fn check_attributes(&self) -> Result<(), BroadcastError> {
        if let EltwiseOp::FakeQuantize { levels } = *self {
            if levels < 2 {
                return Err(BroadcastError::InvalidAttribute {
                    op: self.name(),
                    reason: format!("levels must be 2 or more, not {levels}"),
                });
            }
        }
        Ok(())
    }

    /// An error for `n` operands when the op takes another number.
    #[inline]
    pub(crate) fn check_arity(&self, n: usize) -> Result<(), BroadcastError> {
        let arity = self.arity();
        if arity.admits(n) {
            return Ok(());
        }
        Err(BroadcastError::Arity {
            op: self.name(),
            expected: arity.describe(),
            got: n,
        })
    }
}

impl fmt::Display for EltwiseOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EltwiseOp {
    type Err = ParseBinaryOpError;

    /// The snake-case names of [`EltwiseOp::name`], with default attributes (`divide` is
    /// `Divide { pythondiv: true }`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EltwiseOp::from_name(s).ok_or_else(|| ParseBinaryOpError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_round_trip_and_codes_are_unique() {
        let mut codes = std::collections::HashSet::new();
        for op in EltwiseOp::ALL {
            assert_eq!(op.name().parse::<EltwiseOp>().unwrap(), op);
            assert_eq!(EltwiseOp::from_c_code(op.c_code()), Some(op), "{op}");
            assert!(codes.insert(op.c_code()), "{op}: code used twice");
        }
        // The C ABI's numbers before the table: Add 0 ... LogicalXor 18, Divide truncating 19.
        assert_eq!(EltwiseOp::Add.c_code(), 0);
        assert_eq!(EltwiseOp::LogicalXor.c_code(), 18);
        assert_eq!(EltwiseOp::Divide { pythondiv: false }.c_code(), 19);
        assert_eq!(
            EltwiseOp::from_c_code(19),
            Some(EltwiseOp::Divide { pythondiv: false })
        );
        assert_eq!(
            EltwiseOp::from_c_code(31),
            Some(EltwiseOp::BitShift {
                direction: ShiftDirection::Right
            })
        );
        assert_eq!(EltwiseOp::from_c_code(1000), None);
        assert_eq!(
            EltwiseOp::from_onnx_type("PRelu").unwrap(),
            EltwiseOp::OnnxPrelu
        );
        assert_eq!(
            EltwiseOp::from_openvino_type("PRelu").unwrap(),
            EltwiseOp::Prelu
        );
    }

    #[test]
    fn accepted_types_come_from_the_bodies() {
        let bit_shift = EltwiseOp::BitShift {
            direction: ShiftDirection::Left,
        };
        assert!(bit_shift.output_dtype(DType::U8).is_ok());
        assert!(bit_shift.output_dtype(DType::I8).is_ok());
        assert!(bit_shift.output_dtype(DType::F32).is_err());
        // ONNX's type lists: Sum floats only, PRelu 32/64-bit integers, Pow's base.
        assert!(EltwiseOp::Sum.output_dtype(DType::I32).is_err());
        assert!(EltwiseOp::OnnxPrelu.output_dtype(DType::I8).is_err());
        assert!(EltwiseOp::OnnxPrelu.output_dtype(DType::I32).is_ok());
        assert!(EltwiseOp::OnnxPow.output_dtype(DType::U8).is_err());
        assert!(EltwiseOp::Prelu.output_dtype(DType::I8).is_ok());
        assert!(EltwiseOp::FakeQuantize { levels: 256 }
            .output_dtype(DType::I32)
            .is_err());
        assert_eq!(
            EltwiseOp::Less.output_dtype(DType::F16).unwrap(),
            DType::Bool
        );
        assert!(EltwiseOp::Less.output_dtype(DType::String).is_err());
        assert!(EltwiseOp::BitwiseAnd.output_dtype(DType::Bool).is_ok());
        assert!(EltwiseOp::Select.output_dtype(DType::String).is_ok());
    }
}

#[cfg(test)]
mod cost_tests {
    use super::*;

    /// Written out here, not derived from the rows: the memory-bound ops cost 1, the ops that
    /// call a function or divide integers cost more.
    #[test]
    fn ops_that_call_or_divide_integers_cost_more_than_add() {
        let cheap = [
            (EltwiseOp::Add, DType::F32),
            (EltwiseOp::Multiply, DType::F16),
            (EltwiseOp::Divide { pythondiv: true }, DType::F32),
            (EltwiseOp::Maximum, DType::I32),
            (EltwiseOp::Add, DType::I64),
            (EltwiseOp::Less, DType::F64),
        ];
        for (op, dtype) in cheap {
            assert_eq!(op.relative_cost(dtype), 1, "{op:?} {dtype}");
        }
        let dear = [
            (EltwiseOp::Power, DType::F32),
            (EltwiseOp::Divide { pythondiv: true }, DType::I32),
            (EltwiseOp::Divide { pythondiv: false }, DType::U8),
            (EltwiseOp::FloorMod, DType::I64),
            (EltwiseOp::OnnxDiv, DType::I32),
            (
                EltwiseOp::BitShift {
                    direction: ShiftDirection::Right,
                },
                DType::U32,
            ),
        ];
        assert_eq!(EltwiseOp::OnnxDiv.relative_cost(DType::F32), 1);
        for (op, dtype) in dear {
            assert!(op.relative_cost(dtype) > 1, "{op:?} {dtype}");
        }
    }
}
