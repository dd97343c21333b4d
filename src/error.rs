//! The one error type of the library.
//!
//! Every message names the mode, the shapes involved and the axis at fault, so that a
//! caller who only prints the error still knows which rule was broken and where.

use std::fmt;

use crate::mode::Rule;

/// A shape written as `[2,3,4]` in error messages.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Dims(pub Vec<usize>);

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

impl fmt::Debug for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<&[usize]> for Dims {
    fn from(v: &[usize]) -> Self {
        Dims(v.to_vec())
    }
}

/// Why a broadcast was refused.
///
/// Each variant names the rule ([`Rule`]), the shapes and the axis at fault, so the message
/// alone says what to fix; callers that react to the kind match on the variant.
///
/// ```
/// use bcast::{output_shape, BroadcastError, Mode, Rule};
///
/// let err = output_shape(&[2, 3], &[2, 4], &Mode::Numpy).unwrap_err();
/// assert!(matches!(
///     err,
///     BroadcastError::DimMismatch { mode: Rule::Numpy, axis: 1, data_dim: 3, target_dim: 4, .. }
/// ));
/// assert_eq!(
///     err.to_string(),
///     "numpy broadcast: data dim 3 at axis 1 cannot become 4 (must be 1 or 4); \
///      data shape [2,3], target shape [2,4]"
/// );
/// ```
///
/// The enum is `#[non_exhaustive]`: new rules may add variants without a breaking change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BroadcastError {
    /// A data dimension cannot be stretched to the target dimension it is aligned with.
    #[error("{mode} broadcast: data dim {data_dim} at axis {axis} cannot become {target_dim} ({}); data shape {data_shape}, target shape {target_shape}", if *.target_dim == 1 { "only a data dim of 1 can".to_string() } else { format!("must be 1 or {}", .target_dim) })]
    DimMismatch {
        /// The mode whose rule was broken.
        mode: Rule,
        /// Axis of the data shape at fault.
        axis: usize,
        /// The data dimension.
        data_dim: usize,
        /// The target (or other operand's) dimension it was aligned with.
        target_dim: usize,
        /// The whole data shape.
        data_shape: Dims,
        /// The whole target shape.
        target_shape: Dims,
    },

    /// Two dimensions neither equal nor 1 met on one aligned axis (bidirectional, N-ary).
    #[error("{mode} broadcast: dims {left} and {right} at output axis {axis} are incompatible (must be equal or one of them 1); shapes {left_shape} and {right_shape}")]
    Incompatible {
        /// The mode whose rule was broken.
        mode: Rule,
        /// Output axis (after left-padding) at fault.
        axis: usize,
        /// Dimension of the first shape.
        left: usize,
        /// Dimension of the second shape.
        right: usize,
        /// First shape.
        left_shape: Dims,
        /// Second shape.
        right_shape: Dims,
    },

    /// The element-wise `none` rule: the operands' shapes must be equal.
    #[error("{mode} broadcast: shapes {left_shape} and {right_shape} must be equal")]
    ShapesDiffer {
        /// The rule that was broken.
        mode: Rule,
        /// First operand's shape.
        left_shape: Dims,
        /// Second operand's shape.
        right_shape: Dims,
    },

    /// The target has fewer axes than the data where the mode needs at least as many.
    #[error("{mode} broadcast: target rank {target_rank} is smaller than data rank {data_rank}; data shape {data_shape}, target shape {target_shape}")]
    TargetRankTooSmall {
        /// The mode whose rule was broken.
        mode: Rule,
        /// Rank of the data.
        data_rank: usize,
        /// Rank of the target.
        target_rank: usize,
        /// The data shape.
        data_shape: Dims,
        /// The target shape.
        target_shape: Dims,
    },

    /// Explicit mode: `axes_mapping` must have one entry per data axis.
    #[error("explicit broadcast: axes_mapping {} has {got} entries but the data shape {data_shape} has rank {expected}", Dims(.axes.clone()))]
    AxesMappingLength {
        /// The axes given.
        axes: Vec<usize>,
        /// Number of entries given.
        got: usize,
        /// Rank of the data.
        expected: usize,
        /// The data shape.
        data_shape: Dims,
    },

    /// An axis list must be strictly increasing (no duplicates, no transposes).
    #[error("{mode} broadcast: axes {} must be strictly increasing, but entry {position} ({axis}) does not exceed the one before it", Dims(.axes.clone()))]
    AxesNotIncreasing {
        /// The mode whose rule was broken.
        mode: Rule,
        /// The axes given.
        axes: Vec<usize>,
        /// Index in `axes` of the offending entry.
        position: usize,
        /// The offending axis.
        axis: usize,
    },

    /// An axis list names one axis twice.
    #[error("{mode} broadcast: axis {axis} appears more than once in {}", Dims(.axes.clone()))]
    DuplicateAxis {
        /// The mode whose rule was broken.
        mode: Rule,
        /// The axes given.
        axes: Vec<usize>,
        /// The repeated axis.
        axis: usize,
    },

    /// An axis is not below the target rank.
    #[error("{mode} broadcast: axis {axis} (entry {position} of {}) is out of range for target shape {target_shape} of rank {rank}", Dims(.axes.clone()))]
    AxisOutOfRange {
        /// The mode whose rule was broken.
        mode: Rule,
        /// The axes given.
        axes: Vec<usize>,
        /// Index in `axes` of the offending entry.
        position: usize,
        /// The offending axis.
        axis: usize,
        /// Rank of the target.
        rank: usize,
        /// The target shape.
        target_shape: Dims,
    },

    /// nGraph axes mode: the target with the broadcast axes removed must equal the data shape.
    #[error("axes broadcast: target shape {target_shape} without broadcast_axes {} is {remaining}, which is not the data shape {data_shape}", Dims(.axes.clone()))]
    AxesShapeMismatch {
        /// The broadcast axes given.
        axes: Vec<usize>,
        /// What is left of the target once those axes are removed.
        remaining: Dims,
        /// The data shape.
        data_shape: Dims,
        /// The target shape.
        target_shape: Dims,
    },

    /// PDPD: the axis is below -1, or the resolved start axis is past the target's end.
    #[error("pdpd broadcast: axis {axis} is invalid for data shape {data_shape} and target shape {target_shape}: {reason}")]
    PdpdAxis {
        /// The axis given.
        axis: i64,
        /// Why it is invalid.
        reason: String,
        /// The data shape.
        data_shape: Dims,
        /// The target shape.
        target_shape: Dims,
    },

    /// N-ary broadcast of zero tensors.
    #[error("multi broadcast: needs at least one input, got none")]
    NoInputs,

    /// The product of a shape's non-zero dimensions exceeds `isize::MAX`.
    #[error("shape {shape} is too large: the product of its non-zero dims exceeds isize::MAX")]
    ShapeOverflow {
        /// The shape whose product overflowed.
        shape: Dims,
    },

    /// A shape or axis value given as a signed integer is negative.
    #[error("{what} value {value} at index {index} is negative")]
    NegativeValue {
        /// What the values describe ("shape", "axes").
        what: &'static str,
        /// Index of the offending value.
        index: usize,
        /// The value, printed.
        value: String,
    },

    /// A shape or axis value does not fit in `usize`.
    #[error("{what} value {value} at index {index} does not fit in usize")]
    ValueTooLarge {
        /// What the values describe ("shape", "axes").
        what: &'static str,
        /// Index of the offending value.
        index: usize,
        /// The value, printed.
        value: String,
    },

    /// `broadcast_into` was given an output of the wrong shape.
    #[error("output array has shape {actual}, but the broadcast produces {expected}")]
    OutputShape {
        /// The shape the broadcast produces.
        expected: Dims,
        /// The shape of the array given.
        actual: Dims,
    },

    /// A plan was run on data of another shape than the one it was made for.
    #[error("data array has shape {actual}, but the plan was made for {expected}")]
    SourceShape {
        /// The shape the plan reads.
        expected: Dims,
        /// The shape of the array given.
        actual: Dims,
    },

    /// The output could not be allocated.
    #[error("cannot allocate the output: {bytes} bytes for shape {shape}")]
    Allocation {
        /// Bytes requested (saturated at `usize::MAX`).
        bytes: usize,
        /// The output shape.
        shape: Dims,
    },

    /// A worker panicked while writing the output; nothing was returned.
    #[error("broadcast aborted: a worker failed while writing the output ({reason})")]
    WorkerPanicked {
        /// The panic message, if it was a string.
        reason: String,
    },

    /// The operation is not defined for this element type.
    #[error("{op} is not defined for element type {dtype}")]
    UnsupportedType {
        /// The operation.
        op: &'static str,
        /// The element type's name.
        dtype: &'static str,
    },

    /// Two operands (or an operand and the output) of an element-wise op have different
    /// element types.
    #[error("{op}: element types {left} and {right} differ")]
    DTypeMismatch {
        /// The operation.
        op: &'static str,
        /// The first (or expected) element type's name.
        left: &'static str,
        /// The second (or given) element type's name.
        right: &'static str,
    },

    /// An integer Divide, Mod or FloorMod met a zero divisor.
    #[error("{op}: integer division by zero (the {dtype} divisor holds a 0)")]
    DivisionByZero {
        /// The operation.
        op: &'static str,
        /// The element type's name.
        dtype: &'static str,
    },

    /// An element-wise op was given a number of operands it does not take.
    #[error("{op} takes {expected} operand(s), got {got}")]
    Arity {
        /// The operation.
        op: &'static str,
        /// How many it takes (`2`, `5`, `1 or more`).
        expected: &'static str,
        /// How many it was given.
        got: usize,
    },

    /// A prepared op was run on an operand of another shape than it was prepared for.
    #[error("{op}: operand {operand} has shape {actual}, but the op was prepared for {expected}")]
    PreparedShape {
        /// The operation.
        op: &'static str,
        /// Which operand (0 is the first).
        operand: usize,
        /// The shape it was prepared for.
        expected: Dims,
        /// The shape given.
        actual: Dims,
    },

    /// An element-wise op's attribute has a value the op is not defined for.
    #[error("{op}: {reason}")]
    InvalidAttribute {
        /// The operation.
        op: &'static str,
        /// What is wrong with the value.
        reason: String,
    },

    /// An element-wise expression is malformed (text that does not parse, an operand not
    /// defined yet, a wrong number of inputs, a literal its element type cannot hold).
    #[error("expression: {reason}")]
    InvalidExpression {
        /// What is wrong, with the character position for text.
        reason: String,
    },

    /// An element-wise op was given an auto-broadcast rule it does not take (the ONNX ops
    /// broadcast by the numpy rule only; PRelu by its own rule).
    #[error("{op} broadcasts by {takes}, not by auto_broadcast {given}")]
    RuleNotTaken {
        /// The operation.
        op: &'static str,
        /// The rule it takes.
        takes: &'static str,
        /// The rule it was given.
        given: &'static str,
    },
}

impl BroadcastError {
    /// The same error, naming `rule` where it names a rule: a planner reused under another
    /// rule (the PDPD planner under element-wise PDPD) reports the rule the caller asked for.
    pub(crate) fn with_rule(mut self, rule: Rule) -> Self {
        match &mut self {
            BroadcastError::DimMismatch { mode, .. }
            | BroadcastError::Incompatible { mode, .. }
            | BroadcastError::ShapesDiffer { mode, .. }
            | BroadcastError::TargetRankTooSmall { mode, .. }
            | BroadcastError::AxesNotIncreasing { mode, .. }
            | BroadcastError::DuplicateAxis { mode, .. }
            | BroadcastError::AxisOutOfRange { mode, .. } => *mode = rule,
            _ => {}
        }
        self
    }
}
