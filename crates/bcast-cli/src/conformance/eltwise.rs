//! The `eltwise` and `select` ops: element-wise ops under auto-broadcast
//! ([`bcast::binary`], [`bcast::select_tensor`]).
//!
//! Fields: `eltwise` (the op's snake-case name: `add`, `floor_mod`, `logical_xor`, ...;
//! `eltwise` op only), `auto_broadcast` (`none`, `numpy` or `pdpd`, required), `axis` (pdpd
//! only, default -1), `pythondiv` (divide only, default true), `ulp` (0 or 1, default 0: how
//! many units in the last place a float output may differ by; the suite sets 1 on Power).
//! Two inputs (`a`, `b`) or, for `select`, three (`cond`, `then`, `else`); one output.

use super::fields;
use super::{Case, Expectation, Ran};
use bcast::{AutoBroadcast, BinaryOp, Tensor};

/// A parsed element-wise case.
pub(crate) struct Spec {
    /// `None` for `select`.
    op: Option<BinaryOp>,
    spec: AutoBroadcast,
    /// Units in the last place a float output may differ by.
    pub(crate) ulp: u32,
}

impl Spec {
    /// Reads the element-wise fields of `case` (`select` when `select` is true).
    ///
    /// # Errors
    /// Why the case is malformed: an unknown op or auto_broadcast, a field of another op,
    /// or input/output counts the op cannot have.
    pub(crate) fn parse(case: &Case, select: bool) -> Result<Spec, String> {
        let f = &case.fields;
        let op = if select {
            fields::forbid(f, &["eltwise", "pythondiv"], "select")?;
            None
        } else {
            let name = fields::required_str(f, "eltwise")?;
            let mut op: BinaryOp = name
                .parse()
                .map_err(|_| format!("unknown eltwise op '{name}'"))?;
            match (&mut op, fields::optional_bool(f, "pythondiv")?) {
                (BinaryOp::Divide { pythondiv }, Some(given)) => *pythondiv = given,
                (_, Some(_)) => {
                    return Err(format!("\"pythondiv\" is a field of divide, not {name}"))
                }
                _ => {}
            }
            Some(op)
        };
        let rule = fields::required_str(f, "auto_broadcast")?;
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
        let arity = if select { 3 } else { 2 };
        if case.inputs.len() != arity {
            return Err(format!(
                "{} takes exactly {arity} inputs, the case lists {}",
                if select { "select" } else { "eltwise" },
                case.inputs.len()
            ));
        }
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
        let out = match (self.op, inputs) {
            (Some(op), [a, b]) => bcast::binary(op, a, b, &self.spec),
            (None, [cond, then, else_]) => bcast::select_tensor(cond, then, else_, &self.spec),
            _ => return Ran::Rejected(format!("wrong number of inputs: {}", inputs.len())),
        };
        match out {
            Ok(t) => Ran::Outputs(vec![t]),
            Err(e) => Ran::Rejected(e.to_string()),
        }
    }
}
