//! Scalar coercion of call arguments: a string where the schema asks for an integer, a number
//! or a boolean is converted before validation when the conversion is unambiguous.
//!
//! Models and MCP clients often send `{"n": "3"}` for an integer parameter (form-based UIs
//! and some SDKs send every value as a string). Refusing that costs a model round-trip for no
//! gain, so a string is replaced by the value it spells when:
//!
//! * its schema has a `type` that does not allow `"string"` (a schema without `type`, or one
//!   that takes strings, leaves the value alone: the string may be what the tool wants);
//! * it spells exactly one value of an allowed type: an integer (`"3"`, `"-7"`), a finite
//!   number (`"2.5"`, `"1e3"`), or `"true"`/`"false"`. Whitespace, `"3.0"` for an integer,
//!   `"yes"` or `"1"` for a boolean are not coerced, and validation then names the field.
//!
//! Coercion follows `properties` of objects and `items` of arrays (a single schema, not a
//! tuple); schemas behind `$ref`, `anyOf`, `oneOf` or `allOf` are not followed.

use serde_json::{Map, Number, Value};

/// Coerces the strings of `value` that `schema` wants as scalars. Returns whether anything
/// changed.
pub(super) fn coerce(schema: &Map<String, Value>, value: &mut Value) -> bool {
    match value {
        Value::String(text) => match scalar_for(schema, text) {
            Some(scalar) => {
                *value = scalar;
                true
            }
            None => false,
        },
        Value::Object(fields) => {
            let Some(Value::Object(properties)) = schema.get("properties") else {
                return false;
            };
            let mut changed = false;
            for (name, field) in fields.iter_mut() {
                if let Some(Value::Object(field_schema)) = properties.get(name) {
                    changed |= coerce(field_schema, field);
                }
            }
            changed
        }
        Value::Array(items) => {
            let Some(Value::Object(item_schema)) = schema.get("items") else {
                return false;
            };
            let mut changed = false;
            for item in items {
                changed |= coerce(item_schema, item);
            }
            changed
        }
        _ => false,
    }
}

/// The scalar `text` spells for a schema whose `type` excludes strings.
fn scalar_for(schema: &Map<String, Value>, text: &str) -> Option<Value> {
    let types: Vec<&str> = match schema.get("type")? {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    if types.contains(&"string") {
        return None;
    }
    let integer = || {
        if let Ok(n) = text.parse::<i64>() {
            Some(Value::Number(n.into()))
        } else {
            text.parse::<u64>().ok().map(|n| Value::Number(n.into()))
        }
    };
    for kind in types {
        let found = match kind {
            "integer" => integer(),
            // An integer spelling stays an integer, as a JSON number `3` would be.
            "number" => integer().or_else(|| {
                text.parse::<f64>()
                    .ok()
                    .filter(|_| looks_numeric(text))
                    .and_then(Number::from_f64)
                    .map(Value::Number)
            }),
            "boolean" => match text {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Rust parses `"inf"`, `"NaN"` and `"+1"`; only JSON-like spellings count as numbers here.
fn looks_numeric(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    digits.starts_with(|c: char| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
}

#[cfg(test)]
mod tests;
