//! The `reduce` op: the gradient of a broadcast, summed back to the data's shape
//! ([`bcast::reduce_to_input_tensor`]).
//!
//! Fields: those of a single-target broadcast case (`mode`, `target_shape`, the mode's own
//! argument) plus `data_shape`; one input (the gradient, shaped as the broadcast output) and
//! one output. Floats compare within `rtol`/`atol` (both default 0), integers exactly.

use super::broadcast;
use super::fields;
use super::{Case, Ran};
use bcast::Tensor;

/// A parsed reduce case.
pub(crate) struct Spec {
    broadcast: broadcast::Spec,
    data_shape: Vec<i128>,
    /// Relative tolerance for floats.
    pub(crate) rtol: f64,
    /// Absolute tolerance for floats.
    pub(crate) atol: f64,
}

impl Spec {
    /// Reads the reduce fields of `case`.
    ///
    /// # Errors
    /// Why the case is malformed: the broadcast fields' reasons, `mode: multi` (a reduce case
    /// reduces one gradient), a missing `data_shape`, or a tolerance that is not a
    /// non-negative number.
    pub(crate) fn parse(case: &Case) -> Result<Spec, String> {
        let broadcast = broadcast::Spec::parse(case)?;
        if broadcast.is_multi() {
            return Err("op reduce takes one gradient: mode multi is not allowed".into());
        }
        let f = &case.fields;
        let tolerance = |key: &str| -> Result<f64, String> {
            match f.get(key) {
                None => Ok(0.0),
                Some(v) => v
                    .as_f64()
                    .filter(|t| *t >= 0.0 && t.is_finite())
                    .ok_or_else(|| format!("\"{key}\" must be a non-negative number")),
            }
        };
        Ok(Spec {
            broadcast,
            data_shape: fields::required_int_list(f, "data_shape")?,
            rtol: tolerance("rtol")?,
            atol: tolerance("atol")?,
        })
    }

    /// Reduces the gradient; any rule broken, value refused or type not summable is a
    /// rejection.
    pub(crate) fn run(&self, inputs: &[Tensor]) -> Ran {
        match self.output(inputs) {
            Ok(out) => Ran::Outputs(vec![out]),
            Err(why) => Ran::Rejected(why),
        }
    }

    fn output(&self, inputs: &[Tensor]) -> Result<Tensor, String> {
        let (mode, target_shape) = self.broadcast.mode_and_target()?;
        let data_shape =
            bcast::shape_from_ints(&self.data_shape).map_err(|e| format!("data_shape: {e}"))?;
        let [grad] = inputs else {
            return Err(format!("expected one input, got {}", inputs.len()));
        };
        bcast::reduce_to_input_tensor(grad, &data_shape, &target_shape, &mode)
            .map_err(|e| e.to_string())
    }
}
