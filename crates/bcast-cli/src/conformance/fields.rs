//! Typed reads of `case.json` fields: every wrong type or missing key becomes a reason, never a
//! panic.

use serde_json::{Map, Value};

/// A JSON type name for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn required_str<'a>(
    fields: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a str, String> {
    optional_str(fields, key)?.ok_or_else(|| format!("missing \"{key}\""))
}

pub(crate) fn optional_str<'a>(
    fields: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a str>, String> {
    match fields.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(format!("\"{key}\" must be a string, not {}", kind(v))),
    }
}

pub(crate) fn optional_bool(
    fields: &Map<String, Value>,
    key: &str,
) -> Result<Option<bool>, String> {
    match fields.get(key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(format!("\"{key}\" must be true or false, not {}", kind(v))),
    }
}

pub(crate) fn str_list(fields: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    let list = match fields.get(key) {
        None => return Err(format!("missing \"{key}\"")),
        Some(Value::Array(list)) => list,
        Some(v) => {
            return Err(format!(
                "\"{key}\" must be a list of strings, not {}",
                kind(v)
            ))
        }
    };
    list.iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s.clone()),
            v => Err(format!(
                "\"{key}\" entry {i} must be a string, not {}",
                kind(v)
            )),
        })
        .collect()
}

/// An integer of any sign and size JSON can write (`i64` or `u64`), widened so that nothing is
/// lost before the op decides whether it accepts the value.
fn int(v: &Value) -> Option<i128> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from)),
        _ => None,
    }
}

pub(crate) fn optional_int(fields: &Map<String, Value>, key: &str) -> Result<Option<i128>, String> {
    match fields.get(key) {
        None => Ok(None),
        Some(v) => int(v)
            .map(Some)
            .ok_or_else(|| format!("\"{key}\" must be an integer, not {}", describe(v))),
    }
}

pub(crate) fn required_int_list(
    fields: &Map<String, Value>,
    key: &str,
) -> Result<Vec<i128>, String> {
    let list = match fields.get(key) {
        None => return Err(format!("missing \"{key}\"")),
        Some(Value::Array(list)) => list,
        Some(v) => {
            return Err(format!(
                "\"{key}\" must be a list of integers, not {}",
                kind(v)
            ))
        }
    };
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            int(v).ok_or_else(|| {
                format!(
                    "\"{key}\" entry {i} must be an integer, not {}",
                    describe(v)
                )
            })
        })
        .collect()
}

/// The kind of a value, with the value itself for a number that is not an integer.
fn describe(v: &Value) -> String {
    match v {
        Value::Number(n) => format!("{n}"),
        v => kind(v).to_string(),
    }
}

/// Refuses each of `keys` present in `fields`: they belong to another mode.
pub(crate) fn forbid(fields: &Map<String, Value>, keys: &[&str], mode: &str) -> Result<(), String> {
    match keys.iter().find(|k| fields.contains_key(**k)) {
        Some(k) => Err(format!("\"{k}\" is not an argument of mode {mode}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn integers_of_every_sign_and_size_are_read() {
        let f = obj(json!({"a": [-1, 0, 18446744073709551615u64]}));
        assert_eq!(
            required_int_list(&f, "a").unwrap(),
            vec![-1, 0, u64::MAX as i128]
        );
    }

    #[test]
    fn non_integers_are_named() {
        let f = obj(json!({"a": [1, 2.5], "b": "x", "c": 1.0}));
        assert_eq!(
            required_int_list(&f, "a").unwrap_err(),
            "\"a\" entry 1 must be an integer, not 2.5"
        );
        assert!(required_int_list(&f, "b").is_err());
        assert!(optional_int(&f, "c").is_err());
        assert_eq!(required_int_list(&f, "z").unwrap_err(), "missing \"z\"");
    }

    #[test]
    fn forbidden_keys_name_the_mode() {
        let f = obj(json!({"axis": 1}));
        assert_eq!(
            forbid(&f, &["axes_mapping", "axis"], "numpy").unwrap_err(),
            "\"axis\" is not an argument of mode numpy"
        );
    }
}
