//! The `broadcast` op: every [`Mode`] plus `multi` (N-ary broadcast to the common shape).

use super::fields;
use super::{Case, Expectation, Ran};
use bcast::Parallelism;
use bcast::Tensor;
use bcast::{Mode, Rule};

/// The mode of a case, with its arguments exactly as the file gives them: whether a value is
/// acceptable (a negative axis, say) is the op's call at run time, not the parser's.
#[derive(Debug, Clone, PartialEq)]
enum ModeArgs {
    Numpy,
    Bidirectional,
    Explicit { axes_mapping: Vec<i128> },
    Pdpd { axis: i128 },
    Axes { broadcast_axes: Vec<i128> },
    Multi,
}

/// A parsed broadcast case.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spec {
    mode: ModeArgs,
    /// `None` for `multi` only.
    target_shape: Option<Vec<i128>>,
}

const MODE_ARGS: [&str; 3] = ["axes_mapping", "axis", "broadcast_axes"];

impl Spec {
    /// Reads the broadcast fields of `case`.
    ///
    /// # Errors
    /// Why the case is malformed: an unknown mode, a missing or mistyped field, an argument of
    /// another mode, or input/output counts the mode cannot have.
    pub(crate) fn parse(case: &Case) -> Result<Spec, String> {
        let f = &case.fields;
        let name = fields::required_str(f, "mode")?;
        let lower = name.to_ascii_lowercase();
        let others = |keep: &str| -> Vec<&str> {
            MODE_ARGS.iter().copied().filter(|k| *k != keep).collect()
        };
        let mode = match Rule::from_mode_name(name) {
            Some(Rule::Multi) => {
                fields::forbid(f, &MODE_ARGS, "multi")?;
                fields::forbid(f, &["target_shape"], "multi")?;
                if let Expectation::Outputs(outputs) = &case.expect {
                    if outputs.len() != case.inputs.len() {
                        return Err(format!(
                            "mode multi has one output per input, but the case lists {} input(s) and {} output(s)",
                            case.inputs.len(),
                            outputs.len()
                        ));
                    }
                }
                return Ok(Spec {
                    mode: ModeArgs::Multi,
                    target_shape: None,
                });
            }
            Some(Rule::Numpy) => {
                fields::forbid(f, &MODE_ARGS, "numpy")?;
                ModeArgs::Numpy
            }
            Some(Rule::Bidirectional) => {
                fields::forbid(f, &MODE_ARGS, "bidirectional")?;
                ModeArgs::Bidirectional
            }
            Some(Rule::Explicit) => {
                fields::forbid(f, &others("axes_mapping"), "explicit")?;
                ModeArgs::Explicit {
                    axes_mapping: fields::required_int_list(f, "axes_mapping")?,
                }
            }
            Some(Rule::Pdpd) => {
                fields::forbid(f, &others("axis"), "pdpd")?;
                ModeArgs::Pdpd {
                    axis: fields::optional_int(f, "axis")?.unwrap_or(-1),
                }
            }
            Some(Rule::Axes) => {
                fields::forbid(f, &others("broadcast_axes"), "axes")?;
                ModeArgs::Axes {
                    broadcast_axes: fields::required_int_list(f, "broadcast_axes")?,
                }
            }
            _ => {
                return Err(format!(
                "unknown mode '{name}' (expected numpy, bidirectional, explicit, none, pdpd, axes or multi)"
            ))
            }
        };
        if case.inputs.len() != 1 {
            return Err(format!(
                "mode {lower} takes exactly one input, the case lists {}",
                case.inputs.len()
            ));
        }
        if let Expectation::Outputs(outputs) = &case.expect {
            if outputs.len() != 1 {
                return Err(format!(
                    "mode {lower} has exactly one output, the case lists {}",
                    outputs.len()
                ));
            }
        }
        Ok(Spec {
            mode,
            target_shape: Some(fields::required_int_list(f, "target_shape")?),
        })
    }

    /// Broadcasts the inputs; any rule broken, value refused or allocation failed is a rejection.
    pub(crate) fn run(&self, inputs: &[Tensor]) -> Ran {
        match self.outputs(inputs) {
            Ok(outputs) => Ran::Outputs(outputs),
            Err(why) => Ran::Rejected(why),
        }
    }

    /// Whether this is the N-ary `multi` mode (which has no single target).
    pub(crate) fn is_multi(&self) -> bool {
        self.mode == ModeArgs::Multi
    }

    fn outputs(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
        if self.is_multi() {
            return multi(inputs);
        }
        let (mode, target_shape) = self.mode_and_target()?;
        let [data] = inputs else {
            return Err(format!("expected one input, got {}", inputs.len()));
        };
        let plan = bcast::plan(data.shape(), &target_shape, &mode).map_err(|e| e.to_string())?;
        let out = data
            .run_plan(&plan, Parallelism::Auto)
            .map_err(|e| e.to_string())?;
        Ok(vec![out])
    }

    /// The library's mode and target shape; a value no valid op accepts is a rejection.
    pub(crate) fn mode_and_target(&self) -> Result<(Mode, Vec<usize>), String> {
        let mode = match &self.mode {
            ModeArgs::Multi => return Err("mode multi has no single target".into()),
            ModeArgs::Numpy => Mode::Numpy,
            ModeArgs::Bidirectional => Mode::Bidirectional,
            ModeArgs::Explicit { axes_mapping } => Mode::Explicit {
                axes_mapping: bcast::axes_from_ints(axes_mapping)
                    .map_err(|e| format!("axes_mapping: {e}"))?,
            },
            ModeArgs::Pdpd { axis } => Mode::Pdpd {
                // Beyond i64 an axis is below -1 or past any target's end: both rejected by
                // the rule, so saturating keeps the verdict and the planner names the rule.
                axis: i64::try_from(*axis).unwrap_or(if *axis < 0 { i64::MIN } else { i64::MAX }),
            },
            ModeArgs::Axes { broadcast_axes } => Mode::Axes {
                broadcast_axes: bcast::axes_from_ints(broadcast_axes)
                    .map_err(|e| format!("broadcast_axes: {e}"))?,
            },
        };
        // `parse` gives every mode but multi a target shape.
        let target = self.target_shape.as_deref().ok_or("no target_shape")?;
        let target_shape =
            bcast::shape_from_ints(target).map_err(|e| format!("target_shape: {e}"))?;
        Ok((mode, target_shape))
    }
}

/// N-ary broadcast: each input to the common shape, each keeping its own element type.
fn multi(inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
    let shapes: Vec<&[usize]> = inputs.iter().map(Tensor::shape).collect();
    let plans = bcast::planners::plan_multi(&shapes).map_err(|e| e.to_string())?;
    plans
        .iter()
        .zip(inputs)
        .map(|(plan, t)| {
            t.run_plan(plan, Parallelism::Auto)
                .map_err(|e| e.to_string())
        })
        .collect()
}
