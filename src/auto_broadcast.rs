//! The element-wise auto-broadcast rules (OpenVINO "Broadcast Rules For Elementwise
//! Operations"): how the operands of Add, Multiply, Select and every other element-wise op
//! meet. The Broadcast modes are in [`crate::Mode`]; these are a separate vocabulary, because
//! `none` means "shapes must be equal" here and "explicit axes" there.

use std::fmt;
use std::str::FromStr;

use crate::error::{BroadcastError, Dims};
use crate::mode::Rule;
use crate::planners::{common_shape, plan_pdpd};
use crate::shape::checked_len;

/// An element-wise op's `auto_broadcast` attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AutoBroadcast {
    /// **Rule** (spec, "None broadcast"): "Input tensors dimensions must match. No implicit
    /// broadcast rule is applied." Equal shapes, rank included.
    None,
    /// **Rule** (spec, "Numpy broadcast"): shapes are right-aligned, the shorter one
    /// left-padded with 1s; per axis the dims are equal or one of them is 1, and the output
    /// takes the other (1 against 0 gives 0). Both operands may stretch. Two scalars give a
    /// scalar. This is the N-ary rule of [`crate::broadcast_shapes`] for two operands.
    #[default]
    Numpy,
    /// **Rule** (spec, "PDPD broadcast"): B is broadcast onto A's shape by the PDPD rule of
    /// [`crate::planners::plan_pdpd`] (B's trailing 1s dropped; `axis == -1` means
    /// `rank(A) - rank(B)`; no other negative axis); A is never broadcast, and the output
    /// shape is A's.
    Pdpd {
        /// Start axis of B within A; `-1` aligns B's end with A's.
        axis: i64,
    },
}

impl AutoBroadcast {
    /// The name OpenVINO writes in IR (`none`, `numpy`, `pdpd`).
    pub fn name(&self) -> &'static str {
        match self {
            AutoBroadcast::None => "none",
            AutoBroadcast::Numpy => "numpy",
            AutoBroadcast::Pdpd { .. } => "pdpd",
        }
    }

    /// The rule an error under this spec names.
    pub fn rule(&self) -> Rule {
        match self {
            AutoBroadcast::None => Rule::EltwiseNone,
            AutoBroadcast::Numpy => Rule::EltwiseNumpy,
            AutoBroadcast::Pdpd { .. } => Rule::EltwisePdpd,
        }
    }
}

impl fmt::Display for AutoBroadcast {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AutoBroadcast::Pdpd { axis } => write!(f, "pdpd(axis={axis})"),
            other => f.write_str(other.name()),
        }
    }
}

/// An `auto_broadcast` name that [`AutoBroadcast::from_str`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown auto_broadcast '{0}' (expected none, explicit, numpy or pdpd)")]
pub struct ParseAutoBroadcastError(pub String);

impl FromStr for AutoBroadcast {
    type Err = ParseAutoBroadcastError;

    /// OpenVINO's names, case-insensitively: `none` (and `explicit`, which OpenVINO's
    /// `AutoBroadcastType` defines as the same value), `numpy`, `pdpd` (axis -1, for the
    /// caller to change).
    ///
    /// ```
    /// use bcast::AutoBroadcast;
    /// assert_eq!("pdpd".parse::<AutoBroadcast>().unwrap(), AutoBroadcast::Pdpd { axis: -1 });
    /// assert_eq!("NUMPY".parse::<AutoBroadcast>().unwrap(), AutoBroadcast::Numpy);
    /// assert!("bidirectional".parse::<AutoBroadcast>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "none" | "explicit" => Ok(AutoBroadcast::None),
            "numpy" => Ok(AutoBroadcast::Numpy),
            "pdpd" => Ok(AutoBroadcast::Pdpd { axis: -1 }),
            _ => Err(ParseAutoBroadcastError(s.to_string())),
        }
    }
}

/// The output shape of an element-wise op on operands of shapes `a` and `b` under `spec`.
///
/// # Errors
/// [`BroadcastError::ShapesDiffer`] (none), [`BroadcastError::Incompatible`] (numpy),
/// [`BroadcastError::PdpdAxis`] or [`BroadcastError::DimMismatch`] (pdpd, with B as the data
/// and A as the target), [`BroadcastError::ShapeOverflow`].
///
/// ```
/// use bcast::{eltwise_shape, AutoBroadcast};
/// assert_eq!(eltwise_shape(&[2, 1, 5], &[4, 1], &AutoBroadcast::Numpy).unwrap(), vec![2, 4, 5]);
/// assert_eq!(
///     eltwise_shape(&[2, 3, 4, 5], &[3, 1], &AutoBroadcast::Pdpd { axis: 1 }).unwrap(),
///     vec![2, 3, 4, 5]
/// );
/// assert!(eltwise_shape(&[2, 3], &[3], &AutoBroadcast::None).is_err());
/// ```
pub fn eltwise_shape(
    a: &[usize],
    b: &[usize],
    spec: &AutoBroadcast,
) -> Result<Vec<usize>, BroadcastError> {
    match *spec {
        AutoBroadcast::None => {
            if a != b {
                return Err(BroadcastError::ShapesDiffer {
                    mode: Rule::EltwiseNone,
                    left_shape: Dims(a.to_vec()),
                    right_shape: Dims(b.to_vec()),
                });
            }
            checked_len(a)?;
            Ok(a.to_vec())
        }
        AutoBroadcast::Numpy => common_shape(&[a, b], Rule::EltwiseNumpy),
        AutoBroadcast::Pdpd { axis } => {
            plan_pdpd(b, a, axis).map_err(|e| e.with_rule(Rule::EltwisePdpd))?;
            Ok(a.to_vec())
        }
    }
}
