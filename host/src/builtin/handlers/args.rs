//! Reading tool arguments. Models are loose with JSON types, so numbers may come as numeric
//! strings and ids as numbers; anything else of the wrong kind is a clear error naming the
//! argument.

use maitool_protocol::JsonObject;
use serde_json::Value;

use super::ToolFailure;
use maitool_protocol::json_kind as kind;

/// A malformed argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("argument `{name}` {problem}")]
pub struct ArgError {
    name: String,
    problem: String,
}

impl ArgError {
    pub(crate) fn new(name: &str, problem: impl Into<String>) -> Self {
        Self {
            name: name.to_owned(),
            problem: problem.into(),
        }
    }
}

fn present<'a>(args: &'a JsonObject, name: &str) -> Option<&'a Value> {
    args.get(name).filter(|value| !value.is_null())
}

/// A trimmed string; `None` when absent, null or blank. Numbers are accepted as their text.
pub(crate) fn string(args: &JsonObject, name: &str) -> Result<Option<String>, ArgError> {
    let text = match present(args, name) {
        None => return Ok(None),
        Some(Value::String(text)) => text.trim().to_owned(),
        Some(Value::Number(number)) => number.to_string(),
        Some(other) => {
            return Err(ArgError::new(
                name,
                format!("must be a string, found {}", kind(other)),
            ));
        }
    };
    Ok((!text.is_empty()).then_some(text))
}

/// An integer; `None` when absent, null or a blank string.
pub(crate) fn integer(args: &JsonObject, name: &str) -> Result<Option<i64>, ArgError> {
    let not_integer =
        |found: String| ArgError::new(name, format!("must be an integer, found {found}"));
    match present(args, name) {
        None => Ok(None),
        Some(Value::Number(number)) => {
            if let Some(value) = number.as_i64() {
                return Ok(Some(value));
            }
            match number.as_f64() {
                Some(value) if value.fract() == 0.0 && value.abs() < 9.0e15 => {
                    Ok(Some(value as i64))
                }
                _ => Err(not_integer(number.to_string())),
            }
        }
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(Value::String(text)) => text
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| not_integer(format!("`{text}`"))),
        Some(other) => Err(not_integer(kind(other).to_owned())),
    }
}

/// A boolean; also `"true"` / `"false"`.
pub(crate) fn boolean(args: &JsonObject, name: &str) -> Result<Option<bool>, ArgError> {
    match present(args, name) {
        None => Ok(None),
        Some(Value::Bool(value)) => Ok(Some(*value)),
        Some(Value::String(text)) => match text.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            "" => Ok(None),
            _ => Err(ArgError::new(
                name,
                format!("must be true or false, found `{text}`"),
            )),
        },
        Some(other) => Err(ArgError::new(
            name,
            format!("must be a boolean, found {}", kind(other)),
        )),
    }
}

/// A list of non-blank strings; a single string counts as a list of one.
pub(crate) fn string_list(args: &JsonObject, name: &str) -> Result<Vec<String>, ArgError> {
    let items = match present(args, name) {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items.as_slice(),
        Some(single @ (Value::String(_) | Value::Number(_))) => std::slice::from_ref(single),
        Some(other) => {
            return Err(ArgError::new(
                name,
                format!("must be an array of strings, found {}", kind(other)),
            ));
        }
    };
    let mut list = Vec::with_capacity(items.len());
    for (position, item) in items.iter().enumerate() {
        match item {
            Value::String(text) if text.trim().is_empty() => {}
            Value::String(text) => list.push(text.trim().to_owned()),
            Value::Number(number) => list.push(number.to_string()),
            Value::Null => {}
            other => {
                return Err(ArgError::new(
                    name,
                    format!("item {position} must be a string, found {}", kind(other)),
                ));
            }
        }
    }
    Ok(list)
}

/// A list of non-negative integers.
pub(crate) fn index_list(args: &JsonObject, name: &str) -> Result<Vec<usize>, ArgError> {
    let items = match present(args, name) {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(ArgError::new(
                name,
                format!("must be an array of integers, found {}", kind(other)),
            ));
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(position, item)| {
            item.as_u64().map(|value| value as usize).ok_or_else(|| {
                ArgError::new(
                    name,
                    format!("item {position} must be an integer of at least 0, found {item}"),
                )
            })
        })
        .collect()
}

/// An object argument.
pub(crate) fn object<'a>(
    args: &'a JsonObject,
    name: &str,
) -> Result<Option<&'a JsonObject>, ArgError> {
    match present(args, name) {
        None => Ok(None),
        Some(Value::Object(object)) => Ok(Some(object)),
        Some(other) => Err(ArgError::new(
            name,
            format!("must be an object, found {}", kind(other)),
        )),
    }
}

/// A bad argument fails the call with the argument's problem as the model's message.
impl From<ArgError> for ToolFailure {
    fn from(error: ArgError) -> Self {
        ToolFailure::new(error.to_string())
    }
}
