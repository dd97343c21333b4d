//! The `eltwise` and `select` ops: element-wise ops under auto-broadcast
//! ([`bcast::eltwise`]).
//!
//! Fields: `eltwise` (the op's snake-case name: `add`, `floor_mod`, `sum`, `fake_quantize`,
//! ...; `eltwise` op only), `auto_broadcast` (`none`, `numpy` or `pdpd`; required for
//! OpenVINO's ops, numpy when absent for the ops that broadcast by their own rule: ONNX's and
//! PRelu), `axis` (pdpd only, default -1), `pythondiv` (divide only, default true), `attrs`
//! (an object of the op's attributes: `levels` for fake_quantize, `direction` `"LEFT"` /
//! `"RIGHT"` for bit_shift, `fmod` 0 / 1 for onnx_mod), `ulp` (0 or 1, default 0: how many
//! units in the last place a float output may differ by). As many inputs as the op takes
//! (`select`: cond, then, else); one output.

use serde_json::{Map, Value};

use super::fields;
use super::{Case, Expectation, Ran};
use bcast::{AutoBroadcast, EltwiseOp, Tensor};

/// A parsed element-wise case.
pub(crate) struct Spec {
    op: EltwiseOp,
    spec: AutoBroadcast,
    /// Units in the last place a float output may differ by.
    pub(crate) ulp: u32,
}

/// Sets the op's attributes from a case's `attrs` object; any key the op does not have is
/// an error.
fn set_attributes(op: &mut EltwiseOp, attrs: &Map<String, Value>) -> Result<(), String> {
    let name = op.name();
    for (key, value) in attrs {
        match (&mut *op, key.as_str()) {
            (EltwiseOp::FakeQuantize { levels }, "levels") => {
                *levels = value.as_u64().ok_or_else(|| {
                    format!("\"levels\" must be a non-negative integer, not {value}")
                })?
            }
            (EltwiseOp::BitShift { direction }, "direction") => {
                let text = value
                    .as_str()
                    .ok_or_else(|| format!("\"direction\" must be a string, not {value}"))?;
                *direction = text
                    .parse()
                    .map_err(|_| format!("\"direction\" must be LEFT or RIGHT, not {text}"))?
            }
            (EltwiseOp::OnnxMod { fmod }, "fmod") => {
                *fmod = match value.as_i64() {
                    Some(0) => false,
                    Some(1) => true,
                    _ => return Err(format!("\"fmod\" must be 0 or 1, not {value}")),
                }
            }
            (EltwiseOp::Divide { pythondiv }, "pythondiv") => {
                *pythondiv = value
                    .as_bool()
                    .ok_or_else(|| format!("\"pythondiv\" must be a boolean, not {value}"))?
            }
            (_, other) => return Err(format!("\"{other}\" is not an attribute of {name}")),
        }
    }
    if let (EltwiseOp::FakeQuantize { .. }, false) = (&*op, attrs.contains_key("levels")) {
        return Err("fake_quantize needs \"attrs\": {\"levels\": N}".into());
    }
    Ok(())
}

impl Spec {
    /// Reads the element-wise fields of `case` (`select` when `select` is true).
    ///
    /// # Errors
    /// Why the case is malformed: an unknown op, attribute or auto_broadcast, a field of
    /// another op, or input/output counts the op cannot have.
    pub(crate) fn parse(case: &Case, select: bool) -> Result<Spec, String> {
        let f = &case.fields;
        let op = if select {
            fields::forbid(f, &["eltwise", "pythondiv", "attrs"], "select")?;
            EltwiseOp::Select
        } else {
            let name = fields::required_str(f, "eltwise")?;
            let mut op: EltwiseOp = name
                .parse()
                .map_err(|_| format!("unknown eltwise op '{name}'"))?;
            if op == EltwiseOp::Select {
                return Err("select is the \"select\" op, not an \"eltwise\" one".into());
            }
            match (&mut op, fields::optional_bool(f, "pythondiv")?) {
                (EltwiseOp::Divide { pythondiv }, Some(given)) => *pythondiv = given,
                (_, Some(_)) => {
                    return Err(format!("\"pythondiv\" is a field of divide, not {name}"))
                }
                _ => {}
            }
            match f.get("attrs") {
                None => set_attributes(&mut op, &Map::new())?,
                Some(Value::Object(attrs)) => set_attributes(&mut op, attrs)?,
                Some(other) => return Err(format!("\"attrs\" must be an object, not {other}")),
            }
            op
        };
        let rule = match fields::optional_str(f, "auto_broadcast")? {
            Some(rule) => rule,
            // The ops that broadcast by their own rule have no auto_broadcast attribute.
            None if !op.takes_auto_broadcast() => "numpy",
            None => fields::required_str(f, "auto_broadcast")?,
        };
        let mut spec: AutoBroadcast = rule.parse().map_err(|e| format!("{e}"))?;
        let axis = fields::optional_int(f, "axis")?;
        match (&mut spec, axis) {
            (AutoBroadcast::Pdpd { axis }, Some(given)) => {
                *axis = i64::try_from(given)
                    .map_err(|_| format!("\"axis\" {given} does not fit in i64"))?
            }
            (_, Some(_)) => return Err(format!("\"axis\" is a field of pdpd, not {rule}")),
            _ => {}
        }
        let ulp = match fields::optional_int(f, "ulp")? {
            None | Some(0) => 0,
            Some(1) => 1,
            Some(other) => return Err(format!("\"ulp\" must be 0 or 1, not {other}")),
        };
        // The operand count is the library's to check: a case may list a count the op
        // refuses and expect the rejection.
        if let Expectation::Outputs(outputs) = &case.expect {
            if outputs.len() != 1 {
                return Err(format!(
                    "an element-wise op has exactly one output, the case lists {}",
                    outputs.len()
                ));
            }
        }
        Ok(Spec { op, spec, ulp })
    }

    /// Runs the op; any rule broken, type refused or division by zero is a rejection.
    pub(crate) fn run(&self, inputs: &[Tensor]) -> Ran {
        match bcast::eltwise(self.op, &inputs.iter().collect::<Vec<_>>(), &self.spec) {
            Ok(t) => Ran::Outputs(vec![t]),
            Err(e) => Ran::Rejected(e.to_string()),
        }
    }
}
