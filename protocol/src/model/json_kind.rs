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

/// Python's truth value of a JSON value (`bool(value)`): false for `null`, `false`, zero, and
/// empty strings, arrays and objects. How MaiBot's host reads flags plugins send loosely typed
/// (a command's `intercept_message_level`, the third item of its answer).
///
/// ```
/// use maitool_protocol::python_truth;
/// use serde_json::json;
///
/// assert!(python_truth(&json!(1)) && python_truth(&json!("x")));
/// assert!(!python_truth(&json!(0)) && !python_truth(&json!([])) && !python_truth(&json!(null)));
/// ```
pub fn python_truth(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}
