//! Mapping MCP call outcomes (results and errors) to [`ToolExecutionResult`].

use std::time::Duration;

use maitool_protocol::{
    BinaryData, ContentType, JsonObject, ToolAnnotation, ToolContentItem, ToolExecutionResult,
};
use rmcp::ServiceError;
use rmcp::model::{Annotations, CallToolResult, ContentBlock, ErrorCode, ResourceContents, Role};
use serde_json::Value;

/// Where a call went: added to every result's metadata.
#[derive(Debug, Clone)]
pub struct CallOrigin<'a> {
    /// The exposed tool name (the result's `tool_name`).
    pub tool_name: &'a str,
    /// The tool's name on the server.
    pub mcp_tool_name: &'a str,
    /// The configured server name.
    pub server_name: &'a str,
    /// The negotiated protocol version of the connection.
    pub protocol_version: &'a str,
}

impl CallOrigin<'_> {
    fn stamp(&self, mut result: ToolExecutionResult) -> ToolExecutionResult {
        result.tool_name = self.tool_name.to_owned();
        let metadata = &mut result.metadata;
        metadata.insert("server_name".to_owned(), Value::from(self.server_name));
        metadata.insert(
            "protocol_version".to_owned(),
            Value::from(self.protocol_version),
        );
        metadata.insert("mcp_tool_name".to_owned(), Value::from(self.mcp_tool_name));
        result
    }

    fn failure(&self, kind: &str, message: String) -> ToolExecutionResult {
        self.stamp(ToolExecutionResult::failure(self.tool_name, message))
            .with_metadata("error_kind", kind)
    }
}

/// Maps a `tools/call` result. Text blocks are joined (non-blank ones, by newlines) into
/// `content` on success or `error_message` when `isError` is set; every block, text
/// included, becomes a content item; `structuredContent` is kept as is; the result's
/// `_meta` goes to `metadata.mcp_meta` (not merged, so a server cannot set host flags
/// such as `pause_execution`).
pub fn map_call_result(origin: &CallOrigin<'_>, result: CallToolResult) -> ToolExecutionResult {
    let is_error = result.is_error.unwrap_or(false);
    let items: Vec<ToolContentItem> = result.content.into_iter().map(map_content).collect();
    let text = items
        .iter()
        .filter(|item| item.content_type == ContentType::Text && !item.text.trim().is_empty())
        .map(|item| item.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");

    let mut mapped = if is_error {
        let message = if text.is_empty() {
            match &result.structured_content {
                Some(value) if !value.is_null() => value.to_string(),
                _ => format!(
                    "MCP tool '{}' on server '{}' reported an error without a message",
                    origin.mcp_tool_name, origin.server_name
                ),
            }
        } else {
            text
        };
        let kind = if looks_like_unknown_tool(&message) {
            "unknown_tool"
        } else {
            "tool_error"
        };
        origin.failure(kind, message)
    } else {
        origin.stamp(ToolExecutionResult::success(origin.tool_name, text))
    };
    mapped.structured_content = result.structured_content;
    mapped.content_items = items;
    if let Some(meta) = result.meta {
        mapped
            .metadata
            .insert("mcp_meta".to_owned(), Value::Object(meta.0));
    }
    mapped
}

/// TS-SDK servers report an unknown tool as `isError` text such as
/// "MCP error -32602: Tool no-such-tool not found".
fn looks_like_unknown_tool(message: &str) -> bool {
    message.contains("-32602") && mentions_missing_tool(message)
}

fn mentions_missing_tool(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    ["not found", "unknown tool", "no such tool", "tool not"]
        .iter()
        .any(|phrase| lower.contains(phrase))
}

/// Maps a failed call (JSON-RPC error, timeout, closed transport) to a failed result.
pub fn map_call_error(
    origin: &CallOrigin<'_>,
    error: &ServiceError,
    idle: Duration,
    cap: Duration,
) -> ToolExecutionResult {
    let tool = origin.mcp_tool_name;
    let server = origin.server_name;
    match error {
        ServiceError::McpError(data) => {
            let unknown =
                data.code == ErrorCode::INVALID_PARAMS && mentions_missing_tool(&data.message);
            let too_large = data
                .data
                .as_ref()
                .is_some_and(|details| details.get(super::stdout_guard::TOO_LARGE_KEY).is_some());
            let (kind, message) = if too_large {
                (
                    "response_too_large",
                    format!(
                        "MCP tool '{tool}' on server '{server}' failed: {}",
                        data.message
                    ),
                )
            } else if unknown {
                (
                    "unknown_tool",
                    format!(
                        "MCP server '{server}' does not know tool '{tool}' (JSON-RPC error {}: {})",
                        data.code.0, data.message
                    ),
                )
            } else {
                (
                    "jsonrpc_error",
                    format!(
                        "MCP tool '{tool}' on server '{server}' failed with JSON-RPC error {}: {}",
                        data.code.0, data.message
                    ),
                )
            };
            let mut result = origin
                .failure(kind, message)
                .with_metadata("jsonrpc_code", data.code.0);
            if let Some(details) = &data.data {
                result
                    .metadata
                    .insert("jsonrpc_data".to_owned(), details.clone());
            }
            result
        }
        ServiceError::Timeout { timeout } => {
            let which = if *timeout >= cap {
                format!("its {} s limit", secs(cap))
            } else {
                format!("{} s without a result or progress", secs(idle))
            };
            origin.failure(
                "timeout",
                format!(
                    "MCP tool '{tool}' on server '{server}' timed out after {which}; the request was cancelled"
                ),
            )
        }
        ServiceError::TransportClosed => origin.failure(
            "transport_closed",
            format!("MCP server '{server}' connection was lost during '{tool}'"),
        ),
        ServiceError::TransportSend(cause) => origin.failure(
            "transport_closed",
            format!(
                "MCP server '{server}' could not be reached for '{tool}': {}",
                super::connect::describe_transport_error(cause)
            ),
        ),
        ServiceError::Cancelled { .. } => origin.failure(
            "cancelled",
            format!("MCP tool '{tool}' on server '{server}' was cancelled: {error}"),
        ),
        other => origin.failure(
            "protocol_error",
            format!("MCP tool '{tool}' on server '{server}' failed: {other}"),
        ),
    }
}

/// A failed result for a server that answered with something other than a final result
/// (an MRTR `input_required` or a task, which need client features maitool lacks).
pub fn unsupported_response(origin: &CallOrigin<'_>, what: &str) -> ToolExecutionResult {
    origin.failure(
        "unsupported_response",
        format!(
            "MCP tool '{}' on server '{}' answered with {what}, which maitool does not support",
            origin.mcp_tool_name, origin.server_name
        ),
    )
}

fn secs(duration: Duration) -> String {
    let value = duration.as_secs_f64();
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    }
}

/// Maps one content block with its annotations and `_meta`.
pub fn map_content(block: ContentBlock) -> ToolContentItem {
    let (mut item, annotations, meta) = match block {
        ContentBlock::Text(text) => (
            ToolContentItem::text(text.text),
            text.annotations,
            text.meta,
        ),
        ContentBlock::Image(image) => (
            media(ContentType::Image, &image.data, image.mime_type),
            image.annotations,
            image.meta,
        ),
        ContentBlock::Audio(audio) => (
            media(ContentType::Audio, &audio.data, audio.mime_type),
            audio.annotations,
            audio.meta,
        ),
        ContentBlock::ResourceLink(link) => {
            let mut item = ToolContentItem::resource_link(link.uri, link.name)
                .with_description(link.description.unwrap_or_default())
                .with_mime_type(link.mime_type.unwrap_or_default());
            if let Some(title) = link.title {
                item.metadata.insert("title".to_owned(), Value::from(title));
            }
            if let Some(size) = link.size {
                item.metadata.insert("size".to_owned(), Value::from(size));
            }
            if let Some(icons) = link.icons
                && let Ok(icons) = serde_json::to_value(icons)
            {
                item.metadata.insert("icons".to_owned(), icons);
            }
            (item, link.annotations, link.meta)
        }
        ContentBlock::Resource(embedded) => {
            let (item, resource_meta) = match embedded.resource {
                ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text,
                    meta,
                } => (
                    ToolContentItem::resource_text(uri, text)
                        .with_mime_type(mime_type.unwrap_or_default()),
                    meta,
                ),
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    meta,
                } => {
                    let mut item =
                        media(ContentType::Resource, &blob, mime_type.unwrap_or_default());
                    item.uri = uri;
                    (item, meta)
                }
                other => (unknown_content(&other), None),
            };
            let mut meta = embedded.meta.map(|meta| meta.0).unwrap_or_default();
            if let Some(resource_meta) = resource_meta {
                meta.extend(resource_meta.0);
            }
            let meta = (!meta.is_empty()).then_some(rmcp::model::MetaObject(meta));
            (item, embedded.annotations, meta)
        }
        other => (unknown_content(&other), None, None),
    };
    item.annotation = annotations.map(map_annotations);
    if let Some(meta) = meta {
        for (key, value) in meta.0 {
            item.metadata.entry(key).or_insert(value);
        }
    }
    item
}

/// A kind newer than rmcp 3.11's model: kept as its JSON text.
fn unknown_content(value: &impl serde::Serialize) -> ToolContentItem {
    ToolContentItem {
        content_type: ContentType::Unknown,
        text: serde_json::to_string(value).unwrap_or_default(),
        ..ToolContentItem::default()
    }
}

/// Media bytes arrive base64-encoded; undecodable data becomes an `unknown` item that says
/// so instead of failing the whole result.
fn media(kind: ContentType, data: &str, mime_type: String) -> ToolContentItem {
    match BinaryData::from_base64(data) {
        Ok(bytes) => ToolContentItem {
            content_type: kind,
            data: bytes,
            mime_type,
            ..ToolContentItem::default()
        },
        Err(err) => ToolContentItem {
            content_type: ContentType::Unknown,
            text: format!("undecodable {} data: {err}", kind.as_str()),
            mime_type,
            ..ToolContentItem::default()
        },
    }
}

fn map_annotations(annotations: Annotations) -> ToolAnnotation {
    let mut metadata = JsonObject::new();
    if let Some(last_modified) = annotations.last_modified {
        metadata.insert("last_modified".to_owned(), Value::from(last_modified));
    }
    ToolAnnotation {
        audience: annotations
            .audience
            .unwrap_or_default()
            .into_iter()
            .map(|role| match role {
                Role::User => "user".to_owned(),
                Role::Assistant => "assistant".to_owned(),
            })
            .collect(),
        priority: annotations.priority.map(f64::from),
        metadata,
        ..ToolAnnotation::default()
    }
}

#[cfg(test)]
mod tests;
