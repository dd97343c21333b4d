//! Element type names and (partial) shapes as OpenVINO IR writes them.

use std::fmt;

use crate::dtype::DType;

/// Maps an IR element type name (`element_type="f32"`) or port precision (`precision="FP32"`)
/// to a bcast element type. Case-insensitive; `None` for a type bcast does not have (`u4`,
/// `nf4`, `f8e4m3`, `dynamic`, ...).
///
/// ```
/// use bcast::{ir::dtype_from_ir, DType};
/// assert_eq!(dtype_from_ir("f32"), Some(DType::F32));
/// assert_eq!(dtype_from_ir("FP32"), Some(DType::F32));
/// assert_eq!(dtype_from_ir("BOOL"), Some(DType::Bool));
/// assert_eq!(dtype_from_ir("u4"), None);
/// ```
pub fn dtype_from_ir(name: &str) -> Option<DType> {
    Some(match name.to_ascii_lowercase().as_str() {
        "boolean" | "bool" => DType::Bool,
        "i8" => DType::I8,
        "i16" => DType::I16,
        "i32" => DType::I32,
        "i64" => DType::I64,
        "u8" => DType::U8,
        "u16" => DType::U16,
        "u32" => DType::U32,
        "u64" => DType::U64,
        "f16" | "fp16" => DType::F16,
        "bf16" => DType::BF16,
        "f32" | "fp32" => DType::F32,
        "f64" | "fp64" => DType::F64,
        "string" => DType::String,
        _ => return None,
    })
}

/// One dimension of a declared shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A known size.
    Fixed(usize),
    /// A size known only at run time, within `min..=max` (`max: None`: unbounded). OpenVINO
    /// writes `?` or `-1` for `Range { min: 0, max: None }`, `1..10` for a bounded one.
    Range {
        /// Smallest size allowed.
        min: usize,
        /// Largest size allowed, if bounded.
        max: Option<usize>,
    },
}

impl Dim {
    /// Whether a concrete size fits this dimension.
    pub fn accepts(self, d: usize) -> bool {
        match self {
            Dim::Fixed(f) => f == d,
            Dim::Range { min, max } => d >= min && max.is_none_or(|m| d <= m),
        }
    }

    /// Parses `3`, `?`, `-1`, `1..10`, `1..` or `..10`.
    fn parse(text: &str) -> Option<Dim> {
        let t = text.trim();
        if t == "?" || t == "-1" {
            return Some(Dim::Range { min: 0, max: None });
        }
        if let Some((lo, hi)) = t.split_once("..") {
            let min = if lo.is_empty() { 0 } else { lo.parse().ok()? };
            let max = if hi.is_empty() || hi == "-1" {
                None
            } else {
                Some(hi.parse().ok()?)
            };
            if max.is_some_and(|m| m < min) {
                return None;
            }
            return Some(Dim::Range { min, max });
        }
        t.parse().ok().map(Dim::Fixed)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Fixed(d) => write!(f, "{d}"),
            Dim::Range { min: 0, max: None } => f.write_str("?"),
            Dim::Range { min, max: None } => write!(f, "{min}.."),
            Dim::Range { min, max: Some(m) } => write!(f, "{min}..{m}"),
        }
    }
}

/// A shape as declared in the IR: static, with run-time dimensions, or of unknown rank.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IrShape {
    /// Any rank (OpenVINO writes `...`).
    AnyRank,
    /// This many dimensions, each fixed or a range.
    Dims(Vec<Dim>),
}

impl IrShape {
    /// A fully static shape.
    pub fn fixed(dims: &[usize]) -> IrShape {
        IrShape::Dims(dims.iter().map(|&d| Dim::Fixed(d)).collect())
    }

    /// The concrete dimensions, if every one is fixed.
    pub fn to_static(&self) -> Option<Vec<usize>> {
        match self {
            IrShape::AnyRank => None,
            IrShape::Dims(dims) => dims
                .iter()
                .map(|d| match d {
                    Dim::Fixed(v) => Some(*v),
                    Dim::Range { .. } => None,
                })
                .collect(),
        }
    }

    /// Whether a concrete shape fits this declaration.
    pub fn accepts(&self, shape: &[usize]) -> bool {
        match self {
            IrShape::AnyRank => true,
            IrShape::Dims(dims) => {
                dims.len() == shape.len() && dims.iter().zip(shape).all(|(d, &s)| d.accepts(s))
            }
        }
    }

    /// What a port's dims say when the shape is not known until run time: no `<dim>` is how
    /// OpenVINO writes "any rank" there.
    pub(crate) fn declared_dynamic(&self) -> IrShape {
        match self {
            IrShape::Dims(d) if d.is_empty() => IrShape::AnyRank,
            other => other.clone(),
        }
    }

    /// The same shape as a [`PartialShape`](crate::PartialShape).
    pub fn to_partial(&self) -> crate::PartialShape {
        use crate::Dim as P;
        match self {
            IrShape::AnyRank => crate::PartialShape::Dynamic,
            IrShape::Dims(dims) => crate::PartialShape::Ranked(
                dims.iter()
                    .map(|d| match *d {
                        Dim::Fixed(n) => P::known(n),
                        Dim::Range { min, max: None } => P::at_least(min),
                        Dim::Range { min, max: Some(m) } => {
                            P::interval(min, m).unwrap_or(P::known(min))
                        }
                    })
                    .collect(),
            ),
        }
    }

    /// A [`PartialShape`](crate::PartialShape) as the IR writes it.
    pub fn from_partial(shape: &crate::PartialShape) -> IrShape {
        match shape.dims() {
            None => IrShape::AnyRank,
            Some(dims) => IrShape::Dims(
                dims.iter()
                    .map(|d| match d.get() {
                        Some(n) => Dim::Fixed(n),
                        None => Dim::Range {
                            min: d.min(),
                            max: d.max(),
                        },
                    })
                    .collect(),
            ),
        }
    }

    /// Parses a `shape` attribute: `2,3`, `` (rank 0), `?,1..10,3`, `...` (any rank).
    pub(crate) fn parse_attribute(text: &str) -> Option<IrShape> {
        let t = text.trim();
        if t == "..." {
            return Some(IrShape::AnyRank);
        }
        if t.is_empty() {
            return Some(IrShape::Dims(Vec::new()));
        }
        t.split(',')
            .map(Dim::parse)
            .collect::<Option<Vec<_>>>()
            .map(IrShape::Dims)
    }

    /// Parses the `<dim>` texts of a port.
    pub(crate) fn parse_dims<'a>(texts: impl IntoIterator<Item = &'a str>) -> Option<IrShape> {
        texts
            .into_iter()
            .map(Dim::parse)
            .collect::<Option<Vec<_>>>()
            .map(IrShape::Dims)
    }
}

impl fmt::Display for IrShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IrShape::AnyRank => f.write_str("[...]"),
            IrShape::Dims(dims) => {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bcast_type_has_an_ir_name_that_maps_back() {
        for t in DType::ALL {
            assert_eq!(dtype_from_ir(t.name()), Some(t), "{t}");
        }
    }

    #[test]
    fn precision_strings_map_like_element_types() {
        for (p, t) in [
            ("FP16", DType::F16),
            ("BF16", DType::BF16),
            ("FP64", DType::F64),
            ("I64", DType::I64),
            ("U8", DType::U8),
            ("BOOL", DType::Bool),
            ("BOOLEAN", DType::Bool),
            ("STRING", DType::String),
        ] {
            assert_eq!(dtype_from_ir(p), Some(t), "{p}");
        }
        for p in ["u1", "i4", "nf4", "f8e4m3", "dynamic", "undefined", ""] {
            assert_eq!(dtype_from_ir(p), None, "{p}");
        }
    }

    #[test]
    fn shape_attributes_in_every_form_openvino_writes() {
        assert_eq!(
            IrShape::parse_attribute("3,1"),
            Some(IrShape::fixed(&[3, 1]))
        );
        assert_eq!(IrShape::parse_attribute(""), Some(IrShape::fixed(&[])));
        assert_eq!(IrShape::parse_attribute("..."), Some(IrShape::AnyRank));
        let s = IrShape::parse_attribute("?,1..10,3,-1,2..").unwrap();
        assert_eq!(s.to_string(), "[?,1..10,3,?,2..]");
        assert!(s.accepts(&[0, 10, 3, 7, 2]));
        assert!(!s.accepts(&[0, 11, 3, 7, 2]));
        assert!(!s.accepts(&[0, 1, 3, 7, 1]));
        assert!(!s.accepts(&[0, 1, 3, 7]));
        assert_eq!(s.to_static(), None);
    }

    #[test]
    fn malformed_shapes_are_refused() {
        for bad in ["2,,3", "x", "-2", "3..1", "1.5", "2, 3a"] {
            assert_eq!(IrShape::parse_attribute(bad), None, "{bad}");
        }
    }

    #[test]
    fn any_rank_accepts_scalars_and_tensors() {
        assert!(IrShape::AnyRank.accepts(&[]));
        assert!(IrShape::AnyRank.accepts(&[4, 0, 2]));
        assert_eq!(IrShape::AnyRank.to_string(), "[...]");
    }
}
