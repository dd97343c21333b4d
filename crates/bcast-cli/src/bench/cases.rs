//! The case tables: the broadcast cases `bcast bench` runs, and the reduce cases made from
//! them.

use half::f16;
use ndarray::{ArrayD, IxDyn};

use bcast::{BroadcastError, DType, Mode, StridePlan, Tensor};

/// One benchmark case: data shape, target, element type and mode.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Name used by `--case`.
    pub name: &'static str,
    /// Shape of the data.
    pub data_shape: &'static [usize],
    /// Target shape (for bidirectional mode, the other operand's shape).
    pub target: &'static [usize],
    /// Element type.
    pub dtype: DType,
    /// The mode (a function because modes with arguments hold vectors).
    pub mode: fn() -> Mode,
}

/// The cases `bcast bench` runs, in order. A new group of cases is new rows here.
pub const CASES: &[Case] = &[
    Case {
        name: "channel_bias_f32",
        data_shape: &[64, 1, 1],
        target: &[1, 64, 512, 512],
        dtype: DType::F32,
        mode: || Mode::Numpy,
    },
    Case {
        name: "row_f32",
        data_shape: &[1000],
        target: &[8192, 1000],
        dtype: DType::F32,
        mode: || Mode::Numpy,
    },
    Case {
        name: "column_f32",
        data_shape: &[8192, 1],
        target: &[8192, 2048],
        dtype: DType::F32,
        mode: || Mode::Numpy,
    },
    Case {
        name: "scalar_f32",
        data_shape: &[],
        target: &[4096, 4096],
        dtype: DType::F32,
        mode: || Mode::Numpy,
    },
    Case {
        name: "explicit_c_f32",
        data_shape: &[64],
        target: &[1, 64, 512, 512],
        dtype: DType::F32,
        mode: || Mode::Explicit {
            axes_mapping: vec![1],
        },
    },
    Case {
        name: "bidir_f32",
        data_shape: &[64, 1, 1],
        target: &[4, 1, 256, 256],
        dtype: DType::F32,
        mode: || Mode::Bidirectional,
    },
    Case {
        name: "pixel_u8",
        data_shape: &[1, 1, 3],
        target: &[1, 2048, 2048, 3],
        dtype: DType::U8,
        mode: || Mode::Numpy,
    },
    Case {
        name: "mid_f16",
        data_shape: &[1, 512, 1],
        target: &[64, 512, 512],
        dtype: DType::F16,
        mode: || Mode::Numpy,
    },
    Case {
        name: "pdpd_f32",
        data_shape: &[512, 1],
        target: &[8, 512, 64, 64],
        dtype: DType::F32,
        mode: || Mode::Pdpd { axis: 1 },
    },
    Case {
        name: "axes_f64",
        data_shape: &[2048],
        target: &[2048, 2048],
        dtype: DType::F64,
        mode: || Mode::Axes {
            broadcast_axes: vec![1],
        },
    },
    Case {
        name: "tiny_f32",
        data_shape: &[3, 1],
        target: &[3, 4],
        dtype: DType::F32,
        mode: || Mode::Numpy,
    },
    Case {
        name: "strings",
        data_shape: &[1000],
        target: &[1000, 1000],
        dtype: DType::String,
        mode: || Mode::Numpy,
    },
];

/// The case called `name`.
pub fn find(name: &str) -> Option<&'static Case> {
    CASES.iter().find(|c| c.name == name)
}

impl Case {
    /// The case's plan.
    ///
    /// # Errors
    /// Whatever the planner says about the case's shapes.
    pub fn plan(&self) -> Result<StridePlan, BroadcastError> {
        bcast::plan(self.data_shape, self.target, &(self.mode)())
    }

    /// The same case with its output scaled to about `bytes` (at least one element), keeping
    /// its pattern: the largest output axis the data is broadcast along (not read) is scaled.
    /// A case with no such axis, or whose plan fails, is returned as it is. The new target
    /// is leaked (a bench process makes a handful).
    #[must_use]
    pub fn scaled(&self, bytes: usize) -> Case {
        let Ok(plan) = self.plan() else {
            return *self;
        };
        let out = plan.output_shape();
        let now = plan.len().saturating_mul(self.dtype.size()).max(1);
        if self.target.len() != out.len() {
            return *self;
        }
        let axis = (0..out.len())
            .filter(|&k| plan.source_axes()[k].is_none())
            .max_by_key(|&k| (out[k], std::cmp::Reverse(k)));
        let Some(k) = axis else {
            return *self;
        };
        let dim = ((out[k] as f64) * bytes as f64 / now as f64)
            .round()
            .max(1.0) as usize;
        let mut target = self.target.to_vec();
        target[k] = dim;
        Case {
            target: Box::leak(target.into_boxed_slice()),
            ..*self
        }
    }

    /// The case's input: non-zero values that differ along every axis (strings are 8-byte
    /// words), so no store can be elided and every source element is distinguishable.
    ///
    /// # Errors
    /// [`BroadcastError::ShapeOverflow`] for a data shape too large to allocate.
    pub fn input(&self) -> Result<Tensor, BroadcastError> {
        let n = bcast::checked_len(self.data_shape)?;
        let shape = IxDyn(self.data_shape);
        let small = |i: usize| (i % 251 + 1) as u8;
        macro_rules! array {
            ($f:expr) => {
                ArrayD::from_shape_vec(shape, (0..n).map($f).collect())
                    .expect("length is the shape's product")
                    .into()
            };
        }
        Ok(match self.dtype {
            DType::Bool => array!(|_| true),
            DType::I8 => array!(|i| small(i) as i8 & 0x7f),
            DType::I16 => array!(|i| i16::from(small(i))),
            DType::I32 => array!(|i| i32::from(small(i))),
            DType::I64 => array!(|i| i64::from(small(i))),
            DType::U8 => array!(small),
            DType::U16 => array!(|i| u16::from(small(i))),
            DType::U32 => array!(|i| u32::from(small(i))),
            DType::U64 => array!(|i| u64::from(small(i))),
            DType::F16 => array!(|i| f16::from_f32(f32::from(small(i)) * 0.5)),
            DType::BF16 => array!(|i| half::bf16::from_f32(f32::from(small(i)) * 0.5)),
            DType::F32 => array!(|i| f32::from(small(i)) * 0.5),
            DType::F64 => array!(|i| f64::from(small(i)) * 0.5),
            DType::String => array!(|i| format!("w{:07}", i % 10_000_000)),
        })
    }
}

/// The reduce group: every broadcast case with an output of 1 MiB or more and a summable
/// element type, run in reverse (a gradient of the output shape summed back to the data
/// shape). Named `reduce_<case>`.
pub fn reduce_cases() -> Vec<ReduceCase> {
    reduce_cases_of(CASES)
}

/// [`reduce_cases`] of the given broadcast cases (scaled ones, say).
pub fn reduce_cases_of(cases: &[Case]) -> Vec<ReduceCase> {
    cases
        .iter()
        .filter(|c| c.dtype != DType::String && c.dtype != DType::Bool)
        .filter(|c| {
            c.plan()
                .map(|p| p.len() * c.dtype.size() >= 1 << 20)
                .unwrap_or(false)
        })
        .map(|c| ReduceCase {
            name: format!("reduce_{}", c.name),
            case: *c,
        })
        .collect()
}

/// A broadcast case run in reverse by [`bcast::reduce_with_plan`].
#[derive(Debug, Clone)]
pub struct ReduceCase {
    /// `reduce_<broadcast case name>`.
    pub name: String,
    /// The broadcast case whose output shape is the gradient's.
    pub case: Case,
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn every_case_plans_and_names_are_unique() {
        for (i, c) in CASES.iter().enumerate() {
            assert!(c.plan().is_ok(), "{}", c.name);
            assert!(CASES[..i].iter().all(|o| o.name != c.name), "{}", c.name);
        }
        let bidir = find("bidir_f32").unwrap().plan().unwrap();
        assert_eq!(bidir.output_shape(), &[4, 64, 256, 256]);
    }

    #[test]
    fn scaled_cases_keep_their_pattern() {
        let row = find("row_f32").unwrap().scaled(1 << 20);
        assert_eq!(row.target, &[262, 1000]);
        let pixel = find("pixel_u8").unwrap().scaled(6 << 20);
        assert_eq!(pixel.target, &[1, 1024, 2048, 3]);
        let column = find("column_f32").unwrap().scaled(128 << 20);
        assert_eq!(column.target, &[8192, 4096]);
        let tiny = find("tiny_f32").unwrap().scaled(1);
        assert_eq!(tiny.target, &[3, 1]);
    }
}
