//! The kind of a JSON value, phrased for error messages ("must be a string, not an array"),
//! so that the host and the SDK word a wrong value the same way.

use serde_json::Value;

/// `null`, `a boolean`, `a number`, `a string`, `an array` or `an object`.
///
/// ```
/// use maitool_protocol::json_kind;
/// use serde_json::json;
///
/// assert_eq!(json_kind(&json!([1, 2])), "an array");
/// assert_eq!(
///     format!("expected a JSON object, got {}", json_kind(&json!("hi"))),
///     "expected a JSON object, got a string"
/// );
/// ```
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
