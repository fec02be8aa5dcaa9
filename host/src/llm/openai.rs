//! OpenAI Chat Completions and Responses: tool definitions and function calls.
//!
//! Both APIs deliver arguments as a JSON *string* that the model wrote, so it may be truncated
//! or otherwise invalid; that is reported per call instead of being passed on.

use serde_json::{Value, json};

use super::decode::{arguments, item_object, optional_str, required_str};
use super::schema::{insert_description, object_schema};
use super::{ModelApi, ToolCallParseError};
use maitool_protocol::ToolDefinition;
use maitool_protocol::json_kind as kind;
use maitool_protocol::model::{JsonObject, ToolInvocation};

/// `[{"type":"function","function":{"name","description","parameters"}}]`
pub(super) fn render_chat(tools: &[ToolDefinition]) -> Value {
    tools
        .iter()
        .map(|tool| {
            let mut function = JsonObject::new();
            function.insert("name".into(), Value::from(tool.name.as_str()));
            insert_description(&mut function, &tool.description);
            function.insert("parameters".into(), object_schema(tool));
            json!({"type": "function", "function": function})
        })
        .collect()
}

/// `[{"type":"function","name","description","parameters","strict":false}]`
///
/// `strict` stays off: strict mode demands every property be required and
/// `additionalProperties: false`, which arbitrary plugin and MCP schemas do not satisfy.
pub(super) fn render_responses(tools: &[ToolDefinition]) -> Value {
    tools
        .iter()
        .map(|tool| {
            let mut function = JsonObject::new();
            function.insert("type".into(), Value::from("function"));
            function.insert("name".into(), Value::from(tool.name.as_str()));
            insert_description(&mut function, &tool.description);
            function.insert("parameters".into(), object_schema(tool));
            function.insert("strict".into(), Value::Bool(false));
            Value::Object(function)
        })
        .collect()
}

const CHAT_EXPECTED: &str = "a chat completion, an assistant message, or its `tool_calls` array";

/// Accepts a chat completion (first choice), an assistant message, or the `tool_calls` array.
pub(super) fn parse_chat(raw: &Value) -> Result<Vec<ToolInvocation>, ToolCallParseError> {
    chat_tool_calls(raw, true)?
        .iter()
        .enumerate()
        .map(|(index, call)| parse_chat_call(index, call))
        .collect()
}

// `choices` is only looked into at the top level, so nesting cannot drive the recursion deeper.
fn chat_tool_calls(raw: &Value, top_level: bool) -> Result<&[Value], ToolCallParseError> {
    let shape_error = |found: String| ToolCallParseError::UnexpectedShape {
        api: ModelApi::OpenAiChat,
        expected: CHAT_EXPECTED,
        found,
    };
    let object = match raw {
        Value::Array(calls) => return Ok(calls),
        Value::Object(object) => object,
        other => return Err(shape_error(kind(other).to_owned())),
    };
    if let Some(calls) = object.get("tool_calls") {
        return match calls {
            Value::Array(calls) => Ok(calls),
            Value::Null => Ok(&[]),
            other => Err(shape_error(format!("`tool_calls` as {}", kind(other)))),
        };
    }
    if let Some(choices) = object.get("choices").filter(|_| top_level) {
        let message = match choices {
            Value::Array(choices) if choices.is_empty() => return Ok(&[]),
            Value::Array(choices) => choices[0].get("message"),
            _ => None,
        };
        return match message {
            Some(message @ Value::Object(_)) => chat_tool_calls(message, false),
            _ => Err(shape_error("`choices` without a first message".to_owned())),
        };
    }
    // A message that answered in text only.
    if object.contains_key("role") || object.contains_key("content") {
        return Ok(&[]);
    }
    Err(shape_error(
        "an object without `tool_calls`, `choices` or `role`".to_owned(),
    ))
}

fn parse_chat_call(index: usize, call: &Value) -> Result<ToolInvocation, ToolCallParseError> {
    let call = item_object(index, call)?;
    if let Some(kind) = optional_str(call, index, "type", "type")?
        && kind != "function"
    {
        return Err(ToolCallParseError::UnsupportedCallType {
            index,
            kind: kind.to_owned(),
        });
    }
    let id = required_str(call, index, "id", "id")?;
    let function = match call.get("function") {
        Some(Value::Object(function)) => function,
        None | Some(Value::Null) => {
            return Err(ToolCallParseError::MissingField {
                index,
                field: "function",
            });
        }
        Some(other) => {
            return Err(ToolCallParseError::InvalidField {
                index,
                field: "function",
                expected: "an object",
                found: kind(other),
            });
        }
    };
    let name = required_str(function, index, "name", "function.name")?;
    let args = match function.get("arguments") {
        Some(value) => arguments(index, name, value)?,
        None => {
            return Err(ToolCallParseError::MissingField {
                index,
                field: "function.arguments",
            });
        }
    };
    Ok(ToolInvocation::new(name, args).with_call_id(id))
}

const RESPONSES_EXPECTED: &str = "a response object with `output`, or its `output` array";

/// Accepts the response object or its `output` array; only `function_call` items are calls.
pub(super) fn parse_responses(raw: &Value) -> Result<Vec<ToolInvocation>, ToolCallParseError> {
    let shape_error = |found: String| ToolCallParseError::UnexpectedShape {
        api: ModelApi::OpenAiResponses,
        expected: RESPONSES_EXPECTED,
        found,
    };
    let items: &[Value] = match raw {
        Value::Array(items) => items,
        Value::Object(object) => match object.get("output") {
            Some(Value::Array(items)) => items,
            Some(Value::Null) => &[],
            Some(other) => return Err(shape_error(format!("`output` as {}", kind(other)))),
            None => return Err(shape_error("an object without `output`".to_owned())),
        },
        other => return Err(shape_error(kind(other).to_owned())),
    };
    let mut calls = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let item = item_object(index, item)?;
        if optional_str(item, index, "type", "type")? != Some("function_call") {
            continue;
        }
        let name = required_str(item, index, "name", "name")?;
        let call_id = required_str(item, index, "call_id", "call_id")?;
        let args = match item.get("arguments") {
            Some(value) => arguments(index, name, value)?,
            None => {
                return Err(ToolCallParseError::MissingField {
                    index,
                    field: "arguments",
                });
            }
        };
        let mut invocation = ToolInvocation::new(name, args).with_call_id(call_id);
        // The item id (`fc_...`) differs from `call_id`; a host replaying the output item needs it.
        if let Some(Value::String(item_id)) = item.get("id") {
            invocation
                .metadata
                .insert("item_id".into(), Value::from(item_id.as_str()));
        }
        calls.push(invocation);
    }
    Ok(calls)
}
