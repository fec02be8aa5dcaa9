//! Turns a runner's answer into a [`ToolExecutionResult`].

use maitool_protocol::wire::methods::InvokeResultPayload;
use maitool_protocol::{ContentType, ToolContentItem, ToolExecutionResult};
use serde_json::Value;

/// Normalises an invocation answer. A maitool runner's `tool_result` is taken as is; a
/// MaiBot-style `result` is normalised: a dict `{success, content|message, error,
/// content_items, post_history_messages, stop_after_execution}`, a `[bool, message]` pair, or
/// any other value as text. A dict whose `stop_after_execution` is not a boolean fails, as
/// in MaiBot.
pub(crate) fn normalize(
    tool_name: &str,
    plugin_id: &str,
    answer: InvokeResultPayload,
) -> ToolExecutionResult {
    let mut result = match answer.tool_result {
        Some(result) => result,
        None => from_value(
            tool_name,
            answer.success,
            answer.result.unwrap_or(Value::Null),
        ),
    };
    if result.tool_name.is_empty() {
        result.tool_name = tool_name.to_owned();
    }
    result.metadata.insert("plugin_id".into(), plugin_id.into());
    result
}

fn from_value(tool_name: &str, call_succeeded: bool, value: Value) -> ToolExecutionResult {
    if !call_succeeded {
        // MaiBot runners report a raising handler as `{success: false, result: "<error>"}`.
        let message = match &value {
            Value::String(text) => text.clone(),
            Value::Null => format!("tool {tool_name} failed"),
            other => other.to_string(),
        };
        let mut result = ToolExecutionResult::failure(tool_name, message);
        result.structured_content = Some(value).filter(|v| !v.is_null());
        return result;
    }
    match value {
        Value::Object(ref dict) => {
            let stop_after_execution = match dict.get("stop_after_execution") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(flag)) => *flag,
                Some(other) => {
                    let message = format!(
                        "tool {tool_name} returned stop_after_execution as {}; it must be a boolean",
                        maitool_protocol::json_kind(other)
                    );
                    let mut result = ToolExecutionResult::failure(tool_name, message);
                    result.structured_content = Some(value);
                    return result;
                }
            };
            // Borrowed: only the text the result keeps is copied (this runs for every call
            // to a MaiBot plugin).
            let text = |key: &str| {
                dict.get(key)
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .unwrap_or_default()
            };
            let success = dict.get("success").and_then(Value::as_bool).unwrap_or(true);
            let content = [text("content"), text("message")]
                .into_iter()
                .find(|t| !t.is_empty())
                .unwrap_or_default();
            let content_items = dict
                .get("content_items")
                .and_then(Value::as_array)
                .map(|items| items.iter().map(content_item).collect())
                .unwrap_or_default();
            let post_history_messages = dict
                .get("post_history_messages")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let mut result = ToolExecutionResult {
                tool_name: tool_name.to_owned(),
                success,
                content_items,
                post_history_messages,
                stop_after_execution,
                ..ToolExecutionResult::default()
            };
            if success {
                result.content = content.to_owned();
            } else {
                result.error_message =
                    match [text("error"), content].into_iter().find(|t| !t.is_empty()) {
                        Some(message) => message.to_owned(),
                        None => format!("tool {tool_name} failed"),
                    };
            }
            result.structured_content = Some(value);
            result
        }
        Value::Array(ref items) if matches!(items.first(), Some(Value::Bool(_))) => {
            let success = items[0].as_bool().unwrap_or(false);
            let message = match items.get(1) {
                Some(Value::String(text)) => text.trim().to_owned(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            let mut result = if success {
                ToolExecutionResult::success(tool_name, message)
            } else {
                ToolExecutionResult::failure(tool_name, message)
            };
            result.structured_content = Some(value);
            result
        }
        Value::Null => ToolExecutionResult::success(tool_name, ""),
        Value::String(ref text) => {
            let mut result = ToolExecutionResult::success(tool_name, text.trim());
            result.structured_content = Some(value);
            result
        }
        other => {
            let mut result = ToolExecutionResult::success(tool_name, other.to_string());
            result.structured_content = Some(other);
            result
        }
    }
}

/// A MaiBot content item dict: `{content_type|type, text, data|base64, mime_type, uri, name,
/// description, metadata}`; unknown types become `unknown`.
fn content_item(value: &Value) -> ToolContentItem {
    match serde_json::from_value::<ToolContentItem>(value.clone()) {
        Ok(item) => item,
        Err(_) => {
            let mut item = ToolContentItem {
                content_type: ContentType::Unknown,
                ..ToolContentItem::default()
            };
            if let Some(dict) = value.as_object() {
                let text = |key: &str| {
                    dict.get(key)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                item.text = text("text");
                item.mime_type = text("mime_type");
                item.uri = text("uri");
                item.name = text("name");
                item.description = text("description");
                let data = [text("data"), text("base64")]
                    .into_iter()
                    .find(|d| !d.is_empty())
                    .unwrap_or_default();
                if let Ok(bytes) = maitool_protocol::BinaryData::from_base64(&data) {
                    item.data = bytes;
                }
            } else {
                item.text = value.to_string();
            }
            item
        }
    }
}

#[cfg(test)]
mod tests;
