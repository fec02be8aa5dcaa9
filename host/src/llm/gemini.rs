//! Gemini `generateContent`: function declarations and `functionCall` parts.

use serde_json::{Value, json};

use super::decode::{arguments, item_object, optional_str, required_str};
use super::gemini_schema::parameters;
use super::schema::insert_description;
use super::{ModelApi, ToolCallParseError};
use maitool_protocol::ToolDefinition;
use maitool_protocol::json_kind as kind;
use maitool_protocol::model::{JsonObject, ToolInvocation};

/// `[{"functionDeclarations":[{"name","description","parameters"}]}]`, or `[]` without tools
/// (Gemini rejects a tool with no declarations).
pub(super) fn render(tools: &[ToolDefinition]) -> Value {
    if tools.is_empty() {
        return Value::Array(Vec::new());
    }
    let declarations: Vec<Value> = tools
        .iter()
        .map(|tool| {
            let mut declaration = JsonObject::new();
            declaration.insert("name".into(), Value::from(tool.name.as_str()));
            insert_description(&mut declaration, &tool.description);
            if let Some(schema) = parameters(tool.parameters_schema.as_ref()) {
                declaration.insert("parameters".into(), Value::Object(schema));
            }
            Value::Object(declaration)
        })
        .collect();
    json!([{"functionDeclarations": declarations}])
}

const EXPECTED: &str = "a response with `candidates`, a content with `parts`, or a parts array";

/// Accepts a response (its first candidate), a content object, or a parts array. Parts without a
/// `functionCall` (text, thoughts) are skipped.
///
/// Gemini only sends call ids on some models and endpoints; without one the call id is
/// `"<name>-<index>"`, unique within the answer. A part's `thoughtSignature` is kept in the
/// invocation's metadata as `thought_signature`, because Gemini wants it echoed back with the
/// call when the conversation continues.
pub(super) fn parse(raw: &Value) -> Result<Vec<ToolInvocation>, ToolCallParseError> {
    let mut calls = Vec::new();
    for (index, part) in parts(raw)?.iter().enumerate() {
        let part = item_object(index, part)?;
        let call = match part.get("functionCall") {
            None | Some(Value::Null) => continue,
            Some(Value::Object(call)) => call,
            Some(other) => {
                return Err(ToolCallParseError::InvalidField {
                    index,
                    field: "functionCall",
                    expected: "an object",
                    found: kind(other),
                });
            }
        };
        let name = required_str(call, index, "name", "functionCall.name")?;
        // Gemini omits `args` for a call without arguments.
        let args = match call.get("args") {
            None | Some(Value::Null) => JsonObject::new(),
            Some(value) => arguments(index, name, value)?,
        };
        let call_id = match optional_str(call, index, "id", "functionCall.id")? {
            Some(id) => id.to_owned(),
            None => format!("{name}-{index}"),
        };
        let mut invocation = ToolInvocation::new(name, args).with_call_id(call_id);
        if let Some(Value::String(signature)) = part.get("thoughtSignature") {
            invocation
                .metadata
                .insert("thought_signature".into(), Value::from(signature.as_str()));
        }
        calls.push(invocation);
    }
    Ok(calls)
}

fn parts(raw: &Value) -> Result<&[Value], ToolCallParseError> {
    let shape_error = |found: String| ToolCallParseError::UnexpectedShape {
        api: ModelApi::Gemini,
        expected: EXPECTED,
        found,
    };
    let object = match raw {
        Value::Array(parts) => return Ok(parts),
        Value::Object(object) => object,
        other => return Err(shape_error(kind(other).to_owned())),
    };
    if let Some(candidates) = object.get("candidates") {
        // A blocked prompt has no candidates, a candidate stopped by safety has no content:
        // neither holds calls.
        let content = match candidates {
            Value::Array(candidates) if candidates.is_empty() => return Ok(&[]),
            Value::Array(candidates) => match candidates[0].get("content") {
                None | Some(Value::Null) => return Ok(&[]),
                Some(content) => content,
            },
            Value::Null => return Ok(&[]),
            other => return Err(shape_error(format!("`candidates` as {}", kind(other)))),
        };
        return match content {
            Value::Object(content) => content_parts(content, shape_error),
            other => Err(shape_error(format!(
                "candidate `content` as {}",
                kind(other)
            ))),
        };
    }
    content_parts(object, shape_error)
}

fn content_parts(
    object: &JsonObject,
    shape_error: impl Fn(String) -> ToolCallParseError,
) -> Result<&[Value], ToolCallParseError> {
    match object.get("parts") {
        Some(Value::Array(parts)) => Ok(parts),
        Some(Value::Null) => Ok(&[]),
        Some(other) => Err(shape_error(format!("`parts` as {}", kind(other)))),
        // A content object with a role but no parts (an empty model turn).
        None if object.contains_key("role") => Ok(&[]),
        None => Err(shape_error(
            "an object without `candidates`, `parts` or `role`".to_owned(),
        )),
    }
}
