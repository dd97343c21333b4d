//! The broadcast modes and their names in OpenVINO IR.

use std::fmt;
use std::str::FromStr;

/// How a data shape is placed inside a target shape.
///
/// Each variant's rule lives in its planner (see [`crate::planners`]); this enum only names
/// the mode and carries its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Mode {
    /// One-directional numpy rule (OpenVINO `numpy`): see [`crate::planners::plan_numpy`].
    Numpy,
    /// Bidirectional rule (OpenVINO v3 `bidirectional`, ONNX Expand): see
    /// [`crate::planners::plan_bidirectional`].
    Bidirectional,
    /// Explicit placement of each data axis (OpenVINO `explicit`, IR alias `none`): see
    /// [`crate::planners::plan_explicit`].
    Explicit {
        /// Output axis of each data axis, strictly increasing.
        axes_mapping: Vec<usize>,
    },
    /// PaddlePaddle rule with a start axis (`-1`: right-aligned): see [`crate::planners::plan_pdpd`].
    Pdpd {
        /// First target axis the data is laid on; `-1` means `rank(target) - rank(data)`.
        axis: i64,
    },
    /// nGraph v0 rule: the listed target axes are new: see [`crate::planners::plan_axes`].
    Axes {
        /// The output axes that do not come from the data.
        broadcast_axes: Vec<usize>,
    },
}

impl Mode {
    /// The mode's name as OpenVINO writes it (`explicit` for [`Mode::Explicit`], `axes` for
    /// the nGraph mode, which has no IR name).
    pub fn name(&self) -> &'static str {
        match self {
            Mode::Numpy => "numpy",
            Mode::Bidirectional => "bidirectional",
            Mode::Explicit { .. } => "explicit",
            Mode::Pdpd { .. } => "pdpd",
            Mode::Axes { .. } => "axes",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mode::Numpy | Mode::Bidirectional => f.write_str(self.name()),
            Mode::Explicit { axes_mapping } => write!(f, "explicit(axes_mapping={axes_mapping:?})"),
            Mode::Pdpd { axis } => write!(f, "pdpd(axis={axis})"),
            Mode::Axes { broadcast_axes } => write!(f, "axes(broadcast_axes={broadcast_axes:?})"),
        }
    }
}

/// The rule an error is about: one of the Broadcast modes, N-ary broadcast, or an element-wise
/// auto-broadcast rule. Errors carry it as a value, so a caller can match on it; its
/// `Display` is the name the messages print (`numpy`, `explicit`, `element-wise pdpd`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// [`Mode::Numpy`].
    Numpy,
    /// [`Mode::Bidirectional`].
    Bidirectional,
    /// [`Mode::Explicit`].
    Explicit,
    /// [`Mode::Pdpd`].
    Pdpd,
    /// [`Mode::Axes`].
    Axes,
    /// N-ary broadcast of several tensors to their common shape.
    Multi,
    /// Element-wise [`crate::AutoBroadcast::None`]: shapes must be equal.
    EltwiseNone,
    /// Element-wise [`crate::AutoBroadcast::Numpy`]: the two-directional rule.
    EltwiseNumpy,
    /// Element-wise [`crate::AutoBroadcast::Pdpd`]: B onto A's shape.
    EltwisePdpd,
}

/// The one table of Broadcast mode names. Every parser of a mode name reads it: the
/// library's [`Mode::from_str`] (and through it the command line), the conformance runner
/// and the IR reader. `none` is OpenVINO IR's name for explicit; `multi` (N-ary) names no
/// [`Mode`] and is for readers of case files.
pub const MODE_NAMES: &[(&str, Rule)] = &[
    ("numpy", Rule::Numpy),
    ("bidirectional", Rule::Bidirectional),
    ("explicit", Rule::Explicit),
    ("none", Rule::Explicit),
    ("pdpd", Rule::Pdpd),
    ("axes", Rule::Axes),
    ("multi", Rule::Multi),
];

impl Rule {
    /// The Broadcast rule a mode name means ([`MODE_NAMES`], case-insensitive).
    ///
    /// ```
    /// use bcast::Rule;
    /// assert_eq!(Rule::from_mode_name("NONE"), Some(Rule::Explicit));
    /// assert_eq!(Rule::from_mode_name("max"), None);
    /// ```
    pub fn from_mode_name(name: &str) -> Option<Rule> {
        MODE_NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, rule)| rule)
    }

    /// The name the error messages print.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Numpy => "numpy",
            Rule::Bidirectional => "bidirectional",
            Rule::Explicit => "explicit",
            Rule::Pdpd => "pdpd",
            Rule::Axes => "axes",
            Rule::Multi => "multi",
            Rule::EltwiseNone => "element-wise none",
            Rule::EltwiseNumpy => "element-wise numpy",
            Rule::EltwisePdpd => "element-wise pdpd",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<&Mode> for Rule {
    fn from(mode: &Mode) -> Rule {
        match mode {
            Mode::Numpy => Rule::Numpy,
            Mode::Bidirectional => Rule::Bidirectional,
            Mode::Explicit { .. } => Rule::Explicit,
            Mode::Pdpd { .. } => Rule::Pdpd,
            Mode::Axes { .. } => Rule::Axes,
        }
    }
}

/// A mode name that [`Mode::from_str`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown broadcast mode '{0}' (expected numpy, bidirectional, explicit, none, pdpd or axes)"
)]
pub struct ParseModeError(pub String);

impl FromStr for Mode {
    type Err = ParseModeError;

    /// Parses OpenVINO's mode names, case-insensitively. Modes that take arguments come back
    /// with empty ones (`explicit` with no axes, `pdpd` with axis -1, `axes` with none) for
    /// the caller to fill in.
    ///
    /// ```
    /// use bcast::Mode;
    /// assert_eq!("numpy".parse::<Mode>().unwrap(), Mode::Numpy);
    /// assert_eq!("none".parse::<Mode>().unwrap(), Mode::Explicit { axes_mapping: vec![] });
    /// assert!("max".parse::<Mode>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match Rule::from_mode_name(s) {
            Some(Rule::Numpy) => Ok(Mode::Numpy),
            Some(Rule::Bidirectional) => Ok(Mode::Bidirectional),
            Some(Rule::Explicit) => Ok(Mode::Explicit {
                axes_mapping: Vec::new(),
            }),
            Some(Rule::Pdpd) => Ok(Mode::Pdpd { axis: -1 }),
            Some(Rule::Axes) => Ok(Mode::Axes {
                broadcast_axes: Vec::new(),
            }),
            _ => Err(ParseModeError(s.to_string())),
        }
    }
}
