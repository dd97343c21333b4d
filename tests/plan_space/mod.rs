//! A random broadcast in any mode, built backwards from its output shape, with the
//! "aligned" data shape that says where each data element lands: shared by the reduce and
//! view tests. The rules below are each mode's rule written again from the spec, not taken
//! from the planners.
#![allow(dead_code)]

use bcast::Mode;
use proptest::prelude::*;

/// A valid broadcast and where its data lands.
#[derive(Debug, Clone)]
pub struct Case {
    pub data_shape: Vec<usize>,
    pub target_shape: Vec<usize>,
    pub mode: Mode,
    pub output_shape: Vec<usize>,
    /// The data shape with 1s inserted where the output has axes the data does not move
    /// along: same rank as the output, same row-major element order as the data.
    pub aligned: Vec<usize>,
}

impl Case {
    /// The data element (row-major index) that output element `index` reads.
    pub fn source_of(&self, index: &[usize]) -> usize {
        let mut flat = 0;
        for (k, &i) in index.iter().enumerate() {
            let d = self.aligned[k];
            flat = flat * d + if d == 1 { 0 } else { i };
        }
        flat
    }

    pub fn data_len(&self) -> usize {
        self.data_shape.iter().product()
    }

    pub fn output_len(&self) -> usize {
        self.output_shape.iter().product()
    }
}

/// Per-axis choices: (is the axis read from the data, is the data's dim 1 there, target 1).
type Choice = (bool, bool, bool);

fn dim() -> impl Strategy<Value = usize> {
    prop_oneof![1 => Just(0usize), 2 => Just(1usize), 6 => 2usize..5]
}

/// Any valid broadcast of rank 0 to 5.
pub fn any_case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((dim(), any::<Choice>()), 0..=5),
        0usize..6,
        any::<(u8, u8, u8, bool)>(),
    )
        .prop_map(|(axes, mode, knobs)| build(&axes, mode, knobs))
}

fn build(axes: &[(usize, Choice)], mode: usize, (k1, k2, k3, flag): (u8, u8, u8, bool)) -> Case {
    let out: Vec<usize> = axes.iter().map(|a| a.0).collect();
    let r = out.len();
    let read: Vec<bool> = axes.iter().map(|a| a.1 .0).collect();
    let one: Vec<bool> = axes.iter().map(|a| a.1 .1).collect();
    let t_one: Vec<bool> = axes.iter().map(|a| a.1 .2).collect();
    // The data dim on an axis it is read on: the output's, or 1 (stretched) if chosen.
    let data_dim = |k: usize| if one[k] { 1 } else { out[k] };
    let lead = usize::from(k1) % (r + 1);
    match mode {
        // numpy (and multi): right-aligned, the first `lead` axes new.
        0 | 5 => {
            let aligned: Vec<usize> = (0..r)
                .map(|k| if k < lead { 1 } else { data_dim(k) })
                .collect();
            let data_shape = aligned[lead..].to_vec();
            Case {
                data_shape,
                target_shape: out.clone(),
                mode: Mode::Numpy,
                output_shape: out,
                aligned,
            }
        }
        // bidirectional: one side has the full rank; on each axis one of them has the
        // output's dim and the other that dim or 1.
        1 => {
            let data_full = flag;
            let (d_lead, t_lead) = if data_full { (0, lead) } else { (lead, 0) };
            let mut aligned = vec![1; r];
            let mut target = vec![1; r];
            for k in 0..r {
                if k < d_lead {
                    target[k] = out[k];
                } else if k < t_lead {
                    aligned[k] = out[k];
                } else {
                    aligned[k] = data_dim(k);
                    target[k] = if aligned[k] == out[k] && t_one[k] {
                        1
                    } else {
                        out[k]
                    };
                }
            }
            Case {
                data_shape: aligned[d_lead..].to_vec(),
                target_shape: target[t_lead..].to_vec(),
                mode: Mode::Bidirectional,
                output_shape: out,
                aligned,
            }
        }
        // explicit: the read axes, in order, are the mapping.
        2 => {
            let mapping: Vec<usize> = (0..r).filter(|&k| read[k]).collect();
            let aligned: Vec<usize> = (0..r)
                .map(|k| if read[k] { data_dim(k) } else { 1 })
                .collect();
            Case {
                data_shape: mapping.iter().map(|&k| aligned[k]).collect(),
                target_shape: out.clone(),
                mode: Mode::Explicit {
                    axes_mapping: mapping,
                },
                output_shape: out,
                aligned,
            }
        }
        // pdpd: a run from `start`, then up to two trailing 1s the rule drops.
        3 => {
            let start = lead;
            let fit = usize::from(k2) % (r - start + 1);
            let mut aligned = vec![1; r];
            for (k, a) in aligned.iter_mut().enumerate().skip(start).take(fit) {
                *a = data_dim(k);
            }
            let mut data_shape = aligned[start..start + fit].to_vec();
            data_shape.extend(std::iter::repeat_n(1, usize::from(k3) % 3));
            let axis = if flag && data_shape.len() <= r && r - data_shape.len() == start {
                -1
            } else {
                start as i64
            };
            Case {
                data_shape,
                target_shape: out.clone(),
                mode: Mode::Pdpd { axis },
                output_shape: out,
                aligned,
            }
        }
        // nGraph axes: the unread axes are new, the read ones exactly the data's.
        _ => {
            let mut new_axes: Vec<usize> = (0..r).filter(|&k| !read[k]).collect();
            if flag {
                new_axes.reverse();
            }
            let aligned: Vec<usize> = (0..r).map(|k| if read[k] { out[k] } else { 1 }).collect();
            Case {
                data_shape: (0..r).filter(|&k| read[k]).map(|k| out[k]).collect(),
                target_shape: out.clone(),
                mode: Mode::Axes {
                    broadcast_axes: new_axes,
                },
                output_shape: out,
                aligned,
            }
        }
    }
}

/// Row-major multi-index of `flat` in `shape`.
pub fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        index[k] = flat % shape[k];
        flat /= shape[k];
    }
    index
}
