//! Shapes known only in part, as a runtime sees them when it compiles a model before any
//! data exists: a [`Dim`] may be known, bounded or unknown, and a [`PartialShape`] may not
//! even know its rank. [`TargetShape`] says how much of a Broadcast's `target_shape` input
//! is known. The text forms are OpenVINO's (`[?,3,1..8]`, `[...]`).
//!
//! Inference over them is in [`crate::infer_shape`] and [`crate::infer_eltwise_shape`].

use std::fmt;
use std::str::FromStr;

/// One dimension of a [`PartialShape`]: the closed interval `min..=max` of the values it may
/// take, `max` possibly unbounded.
///
/// A known dimension is the interval `n..=n`, an unknown one `0..` ([`Dim::ANY`]). The
/// representation is canonical: two `Dim`s are equal exactly when they allow the same values.
///
/// Text form (OpenVINO's `Dimension`): `n` when known, `lo..hi` for a bounded interval,
/// `lo..` when only a lower bound is known, `..hi` when the lower bound is 0, `?` when
/// nothing is known.
///
/// ```
/// use bcast::Dim;
///
/// let d: Dim = "1..8".parse()?;
/// assert_eq!((d.min(), d.max()), (1, Some(8)));
/// assert!(d.contains(3) && !d.contains(9));
/// assert_eq!(d.intersect(Dim::at_least(4)), Dim::interval(4, 8));
/// assert_eq!(Dim::ANY.to_string(), "?");
/// assert_eq!(Dim::at_least(2).to_string(), "2..");
/// assert_eq!("-1".parse::<Dim>()?, Dim::ANY);
/// assert_eq!(Dim::known(3).get(), Some(3));
/// # Ok::<(), bcast::ParseShapeError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dim {
    lo: usize,
    /// `None`: no upper bound.
    hi: Option<usize>,
}

impl Dim {
    /// A dimension about which nothing is known (`?`, OpenVINO's `Dimension::dynamic()`).
    pub const ANY: Dim = Dim { lo: 0, hi: None };

    /// The known dimension `n`.
    pub const fn known(n: usize) -> Dim {
        Dim { lo: n, hi: Some(n) }
    }

    /// The interval `lo..=hi`, or `None` if it is empty (`lo > hi`).
    pub const fn interval(lo: usize, hi: usize) -> Option<Dim> {
        if lo <= hi {
            Some(Dim::canonical(lo, Some(hi)))
        } else {
            None
        }
    }

    /// Any value from `lo` up (`lo..`).
    pub const fn at_least(lo: usize) -> Dim {
        Dim::canonical(lo, None)
    }

    /// One form per set of values: an upper bound of `usize::MAX` is no bound, except for
    /// the known dimension `usize::MAX` itself.
    const fn canonical(lo: usize, hi: Option<usize>) -> Dim {
        match hi {
            Some(usize::MAX) | None if lo == usize::MAX => Dim::known(usize::MAX),
            Some(usize::MAX) => Dim { lo, hi: None },
            _ => Dim { lo, hi },
        }
    }

    /// Any value up to `hi` (`..hi`).
    pub const fn at_most(hi: usize) -> Dim {
        Dim::canonical(0, Some(hi))
    }

    /// The smallest value the dimension may take.
    pub const fn min(self) -> usize {
        self.lo
    }

    /// The largest value the dimension may take; `None` if unbounded.
    pub const fn max(self) -> Option<usize> {
        self.hi
    }

    /// The value, if the dimension is known (static).
    pub const fn get(self) -> Option<usize> {
        match self.hi {
            Some(hi) if hi == self.lo => Some(hi),
            _ => None,
        }
    }

    /// Whether the dimension is known (a single value).
    pub const fn is_static(self) -> bool {
        self.get().is_some()
    }

    /// Whether nothing is known about the dimension (`?`).
    pub const fn is_any(self) -> bool {
        self.lo == 0 && self.hi.is_none()
    }

    /// Whether `n` is one of the values the dimension may take.
    pub const fn contains(self, n: usize) -> bool {
        n >= self.lo
            && match self.hi {
                Some(hi) => n <= hi,
                None => true,
            }
    }

    /// The values both dimensions may take, or `None` if there are none (OpenVINO's
    /// `Dimension::merge`).
    pub fn intersect(self, other: Dim) -> Option<Dim> {
        let lo = self.lo.max(other.lo);
        let hi = match (self.hi, other.hi) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, None) => a,
            (None, b) => b,
        };
        match hi {
            Some(hi) if hi < lo => None,
            _ => Some(Dim::canonical(lo, hi)),
        }
    }

    /// The smallest interval holding every value of both dimensions.
    pub fn hull(self, other: Dim) -> Dim {
        Dim::canonical(
            self.lo.min(other.lo),
            match (self.hi, other.hi) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            },
        )
    }

    /// Whether the two dimensions may take a common value.
    pub fn compatible(self, other: Dim) -> bool {
        self.intersect(other).is_some()
    }
}

impl Default for Dim {
    /// [`Dim::ANY`].
    fn default() -> Dim {
        Dim::ANY
    }
}

impl From<usize> for Dim {
    fn from(n: usize) -> Dim {
        Dim::known(n)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.lo, self.hi) {
            (lo, Some(hi)) if lo == hi => write!(f, "{lo}"),
            (0, Some(hi)) => write!(f, "..{hi}"),
            (0, None) => f.write_str("?"),
            (lo, Some(hi)) => write!(f, "{lo}..{hi}"),
            (lo, None) => write!(f, "{lo}.."),
        }
    }
}

impl fmt::Debug for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a [`Dim`] or [`PartialShape`] text did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse shape '{input}': {kind}")]
pub struct ParseShapeError {
    /// The whole text given.
    pub input: String,
    /// What is wrong with it.
    pub kind: ParseShapeErrorKind,
}

/// What is wrong with a shape text; part of [`ParseShapeError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseShapeErrorKind {
    /// A dimension is none of `n`, `?`, `-1`, `lo..hi`, `lo..`, `..hi`, `..`.
    #[error("dimension {index} ('{text}') is not n, ?, -1, lo..hi, lo.. or ..hi")]
    InvalidDim {
        /// Index of the dimension in the shape (0 for a lone dimension).
        index: usize,
        /// The dimension's text.
        text: String,
    },
    /// A number does not fit in `usize`.
    #[error("dimension {index} ('{text}') does not fit in usize")]
    TooLarge {
        /// Index of the dimension in the shape.
        index: usize,
        /// The dimension's text.
        text: String,
    },
    /// An interval whose lower bound exceeds its upper bound.
    #[error("dimension {index} ('{lo}..{hi}') is an empty interval")]
    EmptyInterval {
        /// Index of the dimension in the shape.
        index: usize,
        /// Lower bound given.
        lo: usize,
        /// Upper bound given.
        hi: usize,
    },
    /// Nothing between two commas, or a trailing comma.
    #[error("dimension {index} is empty")]
    EmptyDim {
        /// Index of the empty dimension.
        index: usize,
    },
    /// A `[` without its `]`, or the other way round, or a bracket inside the list.
    #[error("unbalanced or misplaced brackets")]
    Brackets,
}

fn parse_bound(text: &str, index: usize) -> Result<usize, ParseShapeErrorKind> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseShapeErrorKind::InvalidDim {
            index,
            text: text.to_string(),
        });
    }
    text.parse().map_err(|_| ParseShapeErrorKind::TooLarge {
        index,
        text: text.to_string(),
    })
}

fn parse_dim(text: &str, index: usize) -> Result<Dim, ParseShapeErrorKind> {
    let text = text.trim();
    if text == "?" || text == "-1" {
        return Ok(Dim::ANY);
    }
    let Some((lo, hi)) = text.split_once("..") else {
        return parse_bound(text, index).map(Dim::known);
    };
    let (lo, hi) = (lo.trim(), hi.trim());
    let lo = if lo.is_empty() {
        0
    } else {
        parse_bound(lo, index)?
    };
    if hi.is_empty() {
        return Ok(Dim::at_least(lo));
    }
    let hi = parse_bound(hi, index).map_err(|e| match e {
        // `1..2..3` and the like: name the whole dimension.
        ParseShapeErrorKind::InvalidDim { index, .. } => ParseShapeErrorKind::InvalidDim {
            index,
            text: text.to_string(),
        },
        other => other,
    })?;
    Dim::interval(lo, hi).ok_or(ParseShapeErrorKind::EmptyInterval { index, lo, hi })
}

impl FromStr for Dim {
    type Err = ParseShapeError;

    /// Parses `n`, `?`, `-1` (how OpenVINO IR writes an unknown dimension), `lo..hi`, `lo..`,
    /// `..hi` or `..` (unknown, as OpenVINO's parser has it); spaces around the numbers are
    /// tolerated. Anything else (signs, other negative numbers, `lo > hi`) is an error.
    fn from_str(s: &str) -> Result<Dim, ParseShapeError> {
        parse_dim(s, 0).map_err(|kind| ParseShapeError {
            input: s.to_string(),
            kind,
        })
    }
}

/// A shape whose rank, or some of whose dimensions, may be unknown: OpenVINO's
/// `PartialShape`.
///
/// Text form: `[2,?,1..8]`, `[]` for a scalar, `[...]` for an unknown rank.
///
/// ```
/// use bcast::{Dim, PartialShape};
///
/// let s: PartialShape = "[?, 3, 1..8]".parse()?;
/// assert_eq!(s.rank(), Some(3));
/// assert_eq!(s.dims().unwrap()[1], Dim::known(3));
/// assert_eq!(s.to_string(), "[?,3,1..8]");
/// assert!(s.contains(&[7, 3, 8]) && !s.contains(&[7, 4, 8]));
/// assert_eq!("...".parse::<PartialShape>()?, PartialShape::Dynamic);
/// assert_eq!(PartialShape::from(vec![2, 3]).to_static(), Some(vec![2, 3]));
/// # Ok::<(), bcast::ParseShapeError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum PartialShape {
    /// The rank is known: one [`Dim`] per axis.
    Ranked(Vec<Dim>),
    /// Not even the rank is known (`[...]`).
    Dynamic,
}

impl PartialShape {
    /// A shape of known rank whose dimensions are all unknown (OpenVINO's
    /// `PartialShape::dynamic(rank)`).
    pub fn unknown_dims(rank: usize) -> PartialShape {
        PartialShape::Ranked(vec![Dim::ANY; rank])
    }

    /// The fully known shape `shape`.
    pub fn from_static(shape: &[usize]) -> PartialShape {
        PartialShape::Ranked(shape.iter().map(|&d| Dim::known(d)).collect())
    }

    /// The rank, if known.
    pub fn rank(&self) -> Option<usize> {
        self.dims().map(<[Dim]>::len)
    }

    /// The dimensions, if the rank is known.
    pub fn dims(&self) -> Option<&[Dim]> {
        match self {
            PartialShape::Ranked(dims) => Some(dims),
            PartialShape::Dynamic => None,
        }
    }

    /// The shape as plain numbers, if the rank and every dimension are known.
    pub fn to_static(&self) -> Option<Vec<usize>> {
        self.dims()?.iter().map(|d| d.get()).collect()
    }

    /// Whether the rank and every dimension are known.
    pub fn is_static(&self) -> bool {
        self.dims()
            .is_some_and(|dims| dims.iter().all(|d| d.is_static()))
    }

    /// Whether the concrete shape `shape` is one this partial shape allows.
    pub fn contains(&self, shape: &[usize]) -> bool {
        match self {
            PartialShape::Dynamic => true,
            PartialShape::Ranked(dims) => {
                dims.len() == shape.len() && dims.iter().zip(shape).all(|(d, &n)| d.contains(n))
            }
        }
    }
}

impl From<Vec<usize>> for PartialShape {
    fn from(shape: Vec<usize>) -> PartialShape {
        PartialShape::from_static(&shape)
    }
}

impl From<&[usize]> for PartialShape {
    fn from(shape: &[usize]) -> PartialShape {
        PartialShape::from_static(shape)
    }
}

impl<const N: usize> From<[usize; N]> for PartialShape {
    fn from(shape: [usize; N]) -> PartialShape {
        PartialShape::from_static(&shape)
    }
}

impl From<Vec<Dim>> for PartialShape {
    fn from(dims: Vec<Dim>) -> PartialShape {
        PartialShape::Ranked(dims)
    }
}

impl fmt::Display for PartialShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartialShape::Dynamic => f.write_str("[...]"),
            PartialShape::Ranked(dims) => {
                f.write_str("[")?;
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{d}")?;
                }
                f.write_str("]")
            }
        }
    }
}

impl fmt::Debug for PartialShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for PartialShape {
    type Err = ParseShapeError;

    /// Parses OpenVINO's text form: comma-separated [`Dim`]s, with or without the enclosing
    /// brackets, spaces tolerated; `...` is an unknown rank; an empty list (`[]` or ``) is a
    /// scalar. Empty dimensions (`1,,2`, a trailing comma) and stray brackets are errors.
    fn from_str(s: &str) -> Result<PartialShape, ParseShapeError> {
        let fail = |kind| ParseShapeError {
            input: s.to_string(),
            kind,
        };
        let trimmed = s.trim();
        let inner = match (trimmed.strip_prefix('['), trimmed.ends_with(']')) {
            (Some(rest), true) => &rest[..rest.len() - 1],
            (None, false) => trimmed,
            _ => return Err(fail(ParseShapeErrorKind::Brackets)),
        };
        if inner.contains(['[', ']']) {
            return Err(fail(ParseShapeErrorKind::Brackets));
        }
        let inner = inner.trim();
        if inner == "..." {
            return Ok(PartialShape::Dynamic);
        }
        if inner.is_empty() {
            return Ok(PartialShape::Ranked(Vec::new()));
        }
        inner
            .split(',')
            .enumerate()
            .map(|(index, text)| {
                if text.trim().is_empty() {
                    Err(ParseShapeErrorKind::EmptyDim { index })
                } else {
                    parse_dim(text, index)
                }
            })
            .collect::<Result<Vec<_>, _>>()
            .map(PartialShape::Ranked)
            .map_err(fail)
    }
}

/// What is known of a Broadcast's `target_shape` input when the shape is inferred.
///
/// ```
/// use bcast::{Dim, TargetShape};
/// // A Constant [2,3]; a Parameter of static shape [4] (four values, none known); a
/// // Concat of a Parameter of shape [1] and a Constant 16 (ShapeOf of a partial tensor
/// // gives the same kind of knowledge).
/// let _ = TargetShape::Known(vec![2, 3]);
/// let _ = TargetShape::Rank(4);
/// let t = TargetShape::Partial(vec![Dim::ANY, Dim::known(16)]);
/// assert_eq!(t.rank(), Some(2));
/// assert_eq!(TargetShape::Unknown.rank(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TargetShape {
    /// Every value is known: the input is a Constant (or folds to one).
    Known(Vec<usize>),
    /// Only the number of values is known: a Parameter (or any tensor) of static shape `[N]`.
    Rank(usize),
    /// Some values are known, some bounded, some unknown: a Concat of Constants and other
    /// tensors, or the ShapeOf of a partially known tensor. Covers the other variants:
    /// `Partial` of known dims is `Known`, of [`Dim::ANY`]s is `Rank`.
    Partial(Vec<Dim>),
    /// Not even the number of values is known: a tensor of shape `[?]` or of unknown rank.
    Unknown,
}

impl TargetShape {
    /// The number of values (the output rank of most modes), if known.
    pub fn rank(&self) -> Option<usize> {
        match self {
            TargetShape::Known(v) => Some(v.len()),
            TargetShape::Rank(n) => Some(*n),
            TargetShape::Partial(dims) => Some(dims.len()),
            TargetShape::Unknown => None,
        }
    }

    /// The values as a [`PartialShape`]: what the target says the shape is.
    pub fn to_partial_shape(&self) -> PartialShape {
        match self {
            TargetShape::Known(v) => PartialShape::from_static(v),
            TargetShape::Rank(n) => PartialShape::unknown_dims(*n),
            TargetShape::Partial(dims) => PartialShape::Ranked(dims.clone()),
            TargetShape::Unknown => PartialShape::Dynamic,
        }
    }
}

impl From<PartialShape> for TargetShape {
    /// A ranked shape becomes [`TargetShape::Partial`] (or [`TargetShape::Known`] if every
    /// dimension is known); an unknown rank becomes [`TargetShape::Unknown`].
    fn from(shape: PartialShape) -> TargetShape {
        match shape.to_static() {
            Some(v) => TargetShape::Known(v),
            None => match shape {
                PartialShape::Ranked(dims) => TargetShape::Partial(dims),
                PartialShape::Dynamic => TargetShape::Unknown,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> PartialShape {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn openvino_text_forms() {
        assert_eq!(Dim::known(5).to_string(), "5");
        assert_eq!(Dim::interval(1, 8).unwrap().to_string(), "1..8");
        assert_eq!(Dim::at_least(2).to_string(), "2..");
        assert_eq!(Dim::at_most(6).to_string(), "..6");
        assert_eq!(Dim::interval(0, 6).unwrap().to_string(), "..6");
        assert_eq!(Dim::ANY.to_string(), "?");
        assert_eq!(Dim::at_least(0).to_string(), "?");
        assert_eq!(PartialShape::Dynamic.to_string(), "[...]");
        assert_eq!(PartialShape::Ranked(vec![]).to_string(), "[]");
    }

    #[test]
    fn parses_every_dim_form() {
        assert_eq!(
            parse("[?, -1, 3, 1..8, 2.., ..6, .., 4 .. 9]")
                .dims()
                .unwrap(),
            &[
                Dim::ANY,
                Dim::ANY,
                Dim::known(3),
                Dim::interval(1, 8).unwrap(),
                Dim::at_least(2),
                Dim::at_most(6),
                Dim::ANY,
                Dim::interval(4, 9).unwrap(),
            ]
        );
        assert_eq!(parse("2,3"), PartialShape::from([2, 3]));
        assert_eq!(parse(" [ ... ] "), PartialShape::Dynamic);
        assert_eq!(parse("[]"), PartialShape::Ranked(vec![]));
        assert_eq!(parse(""), PartialShape::Ranked(vec![]));
        assert_eq!(parse("3..3"), PartialShape::from([3]));
    }

    #[test]
    fn strict_otherwise() {
        for bad in [
            "[1,,2]",
            "[1,]",
            "[1",
            "1]",
            "[[1]]",
            "[-2]",
            "[+3]",
            "[1.5]",
            "[x]",
            "[5..2]",
            "[1..2..3]",
            "[-1..4]",
            "[...,1]",
            "[99999999999999999999999]",
        ] {
            assert!(bad.parse::<PartialShape>().is_err(), "{bad} parsed");
        }
        assert!(matches!(
            "[1,5..2]".parse::<PartialShape>().unwrap_err().kind,
            ParseShapeErrorKind::EmptyInterval {
                index: 1,
                lo: 5,
                hi: 2
            }
        ));
        assert!(matches!(
            "[1,,2]".parse::<PartialShape>().unwrap_err().kind,
            ParseShapeErrorKind::EmptyDim { index: 1 }
        ));
        assert!("".parse::<Dim>().is_err());
        assert!("[3]".parse::<Dim>().is_err());
    }

    #[test]
    fn error_message_names_the_dim() {
        let e = "[1,x]".parse::<PartialShape>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot parse shape '[1,x]': dimension 1 ('x') is not n, ?, -1, lo..hi, lo.. or ..hi"
        );
    }

    #[test]
    fn interval_algebra() {
        let a = Dim::interval(1, 4).unwrap();
        assert_eq!(a.intersect(Dim::known(3)), Some(Dim::known(3)));
        assert_eq!(a.intersect(Dim::known(5)), None);
        assert_eq!(a.hull(Dim::at_least(6)), Dim::at_least(1));
        assert_eq!(Dim::ANY.intersect(a), Some(a));
        assert!(!a.compatible(Dim::at_least(5)));
        assert!(Dim::at_least(5).contains(usize::MAX));
    }

    #[test]
    fn one_form_per_set_of_values() {
        let max = usize::MAX;
        assert_eq!(Dim::interval(5, max), Some(Dim::at_least(5)));
        assert_eq!(Dim::at_least(max), Dim::known(max));
        assert_eq!(Dim::known(max).hull(Dim::known(0)), Dim::ANY);
        assert_eq!(Dim::known(max).intersect(Dim::ANY), Some(Dim::known(max)));
        assert_eq!(
            format!("5..{max}").parse::<Dim>().unwrap(),
            Dim::at_least(5)
        );
    }

    #[test]
    fn target_from_partial_shape() {
        assert_eq!(
            TargetShape::from(PartialShape::from([2, 3])),
            TargetShape::Known(vec![2, 3])
        );
        assert_eq!(
            TargetShape::from(PartialShape::Dynamic),
            TargetShape::Unknown
        );
        assert_eq!(
            TargetShape::Rank(2).to_partial_shape(),
            PartialShape::unknown_dims(2)
        );
    }
}
