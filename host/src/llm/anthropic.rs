//! Anthropic Messages: tool definitions and `tool_use` blocks.

use serde_json::Value;

use super::decode::{arguments, item_object, optional_str, required_str};
use super::schema::{insert_description, object_schema};
use super::{ModelApi, ToolCallParseError};
use maitool_protocol::ToolDefinition;
use maitool_protocol::json_kind as kind;
use maitool_protocol::model::{JsonObject, ToolInvocation};

/// `[{"name","description","input_schema"}]`
pub(super) fn render(tools: &[ToolDefinition]) -> Value {
    tools
        .iter()
        .map(|tool| {
            let mut definition = JsonObject::new();
            definition.insert("name".into(), Value::from(tool.name.as_str()));
            insert_description(&mut definition, &tool.description);
            definition.insert("input_schema".into(), object_schema(tool));
            Value::Object(definition)
        })
        .collect()
}

const EXPECTED: &str = "a message with `content`, or its content-block array";

/// Accepts the message or its `content` array. Only `tool_use` blocks are calls: text,
/// thinking and server-side tool blocks (`server_tool_use`, `mcp_tool_use`) are skipped, as
/// the client does not run those.
pub(super) fn parse(raw: &Value) -> Result<Vec<ToolInvocation>, ToolCallParseError> {
    let shape_error = |found: String| ToolCallParseError::UnexpectedShape {
        api: ModelApi::Anthropic,
        expected: EXPECTED,
        found,
    };
    let blocks: &[Value] = match raw {
        Value::Array(blocks) => blocks,
        Value::Object(object) => match object.get("content") {
            Some(Value::Array(blocks)) => blocks,
            // A message whose content is a plain string has no tool calls.
            Some(Value::String(_) | Value::Null) => &[],
            Some(other) => return Err(shape_error(format!("`content` as {}", kind(other)))),
            None => return Err(shape_error("an object without `content`".to_owned())),
        },
        other => return Err(shape_error(kind(other).to_owned())),
    };
    let mut calls = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        let block = item_object(index, block)?;
        if optional_str(block, index, "type", "type")? != Some("tool_use") {
            continue;
        }
        let id = required_str(block, index, "id", "id")?;
        let name = required_str(block, index, "name", "name")?;
        // A string is tolerated because clients that accumulate streamed `input_json_delta`s end
        // up with the input as JSON text.
        let args = match block.get("input") {
            Some(value) => arguments(index, name, value)?,
            None => {
                return Err(ToolCallParseError::MissingField {
                    index,
                    field: "input",
                });
            }
        };
        calls.push(ToolInvocation::new(name, args).with_call_id(id));
    }
    Ok(calls)
}
