//! A `tools/call` result that rmcp's model refuses as a whole, read block by block: one
//! content block of a type rmcp 3.11 does not know (a newer spec's, or a server's own) must
//! not cost the caller the rest of the result.
//!
//! rmcp parses a result as a whole; when one block fails to parse, the result arrives as a
//! `CustomResult` with the raw JSON. Here the blocks that parse are mapped as usual, and each
//! other block becomes an `unknown` content item, in its place, whose text is the block's
//! JSON and whose metadata names its type (`mcp_content_type`) and why it was not read
//! (`mcp_parse_error`).

use maitool_protocol::{ContentType, ToolContentItem, ToolExecutionResult};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use super::result::{CallOrigin, map_call_result, unsupported_response};

/// Maps a raw result object. Anything that is not a `tools/call` result is unsupported.
pub fn map_raw_call_result(origin: &CallOrigin<'_>, raw: Value) -> ToolExecutionResult {
    let Value::Object(mut fields) = raw else {
        return unsupported_response(origin, "a result that is not an object");
    };
    let blocks = match fields.remove("content") {
        Some(Value::Array(blocks)) => blocks,
        None | Some(Value::Null) => Vec::new(),
        Some(_) => return unsupported_response(origin, "a result whose content is not an array"),
    };
    fields.insert("content".to_owned(), Value::Array(Vec::new()));
    let mut shell: CallToolResult = match serde_json::from_value(Value::Object(fields)) {
        Ok(shell) => shell,
        Err(err) => {
            return unsupported_response(origin, &format!("a result that does not parse ({err})"));
        }
    };
    // Each block's place: `None` for a block that parsed (taken from the mapped items in
    // order), or the `unknown` item that stands in for it.
    let mut places = Vec::with_capacity(blocks.len());
    for block in blocks {
        match serde_json::from_value::<ContentBlock>(block.clone()) {
            Ok(parsed) => {
                shell.content.push(parsed);
                places.push(None);
            }
            Err(err) => {
                let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
                tracing::warn!(
                    server = origin.server_name,
                    tool = origin.mcp_tool_name,
                    kind,
                    "MCP content block kept as `unknown`: {err}"
                );
                places.push(Some(unknown_block(kind, &block, &err.to_string())));
            }
        }
    }
    let mut mapped = map_call_result(origin, shell);
    let mut parsed = std::mem::take(&mut mapped.content_items).into_iter();
    mapped.content_items = places
        .into_iter()
        .filter_map(|place| place.or_else(|| parsed.next()))
        .collect();
    mapped
}

fn unknown_block(kind: &str, block: &Value, error: &str) -> ToolContentItem {
    let mut item = ToolContentItem {
        content_type: ContentType::Unknown,
        text: block.to_string(),
        ..ToolContentItem::default()
    };
    item.metadata
        .insert("mcp_content_type".to_owned(), Value::from(kind));
    item.metadata
        .insert("mcp_parse_error".to_owned(), Value::from(error));
    item
}

#[cfg(test)]
mod tests;
