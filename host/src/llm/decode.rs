//! Field access shared by the tool-call parsers: every lookup reports which item and which field
//! went wrong instead of panicking or silently defaulting.

use serde_json::Value;

use maitool_protocol::json_kind as kind;

use super::ToolCallParseError;
use maitool_protocol::model::JsonObject;

/// The item at `index` as an object.
pub(super) fn item_object(index: usize, item: &Value) -> Result<&JsonObject, ToolCallParseError> {
    item.as_object().ok_or(ToolCallParseError::NotAnObject {
        index,
        found: kind(item),
    })
}

/// A field that must be a non-empty string. `path` names it in errors (it may be nested, like
/// `function.name`, while `key` is its key in `object`).
pub(super) fn required_str<'a>(
    object: &'a JsonObject,
    index: usize,
    key: &str,
    path: &'static str,
) -> Result<&'a str, ToolCallParseError> {
    optional_str(object, index, key, path)?
        .ok_or(ToolCallParseError::MissingField { index, field: path })
}

/// A field that may be absent, null or empty (all `None`) but, when present, must be a string.
pub(super) fn optional_str<'a>(
    object: &'a JsonObject,
    index: usize,
    key: &str,
    path: &'static str,
) -> Result<Option<&'a str>, ToolCallParseError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.is_empty() => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(ToolCallParseError::InvalidField {
            index,
            field: path,
            expected: "a string",
            found: kind(other),
        }),
    }
}

/// Arguments given as a value: an object is taken as is, a string is decoded as JSON text (the
/// OpenAI form), anything else is an error naming the tool.
pub(super) fn arguments(
    index: usize,
    tool: &str,
    value: &Value,
) -> Result<JsonObject, ToolCallParseError> {
    match value {
        Value::Object(object) => Ok(object.clone()),
        Value::String(text) => arguments_from_text(index, tool, text),
        other => Err(ToolCallParseError::ArgumentsNotObject {
            index,
            tool: tool.to_owned(),
            found: kind(other),
        }),
    }
}

/// Arguments encoded as JSON text. Blank text means no arguments: models send `""` for tools
/// that take none.
pub(super) fn arguments_from_text(
    index: usize,
    tool: &str,
    text: &str,
) -> Result<JsonObject, ToolCallParseError> {
    if text.trim().is_empty() {
        return Ok(JsonObject::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(ToolCallParseError::ArgumentsNotObject {
            index,
            tool: tool.to_owned(),
            found: kind(&other),
        }),
        Err(err) => Err(ToolCallParseError::MalformedArguments {
            index,
            tool: tool.to_owned(),
            reason: err.to_string(),
        }),
    }
}
