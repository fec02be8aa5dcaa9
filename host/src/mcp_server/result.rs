//! Mapping a [`ToolExecutionResult`] to an MCP `CallToolResult`.
//!
//! Content blocks, in order:
//! 1. the result's text: `content` on success; on failure the `error_message` (or, when it is
//!    empty, `tool NAME failed`), then `content` if it says something else. The text is left
//!    out when the text items below already say exactly it (a result that came from an MCP
//!    server carries its text both ways);
//! 2. every content item: text, image, audio, resource link, embedded resource (text or
//!    blob); a `binary` item becomes an embedded blob resource. Each keeps its annotations
//!    (audience, priority, `last_modified`) and its metadata as `_meta`;
//! 3. when no block is text and there is structured content, its JSON as text, as the spec
//!    asks for clients that do not read `structuredContent`.
//!
//! `structuredContent`: any JSON value on 2026-07-28 connections; on older ones (where it
//! must be an object) an object as is and anything else wrapped as `{"result": value}`.
//! `isError` is set for a failed result. The result's metadata becomes `_meta`, with
//! `maitool/post_history_messages` when there are any and `maitool/stop_after_execution:
//! true` when a successful result asks to end the planner round.

use maitool_protocol::{
    ContentType, JsonObject, ToolAnnotation, ToolContentItem, ToolExecutionResult,
};
use rmcp::model::{
    Annotations, AudioContent, CallToolResult, ContentBlock, EmbeddedResource, Icon, ImageContent,
    MetaObject, Resource, ResourceContents, Role, TextContent,
};
use serde_json::Value;

/// `_meta` key of a call result: messages the engine appends to history after the turn.
pub const META_POST_HISTORY: &str = "maitool/post_history_messages";

/// `_meta` key of a call result: `true` when the tool asks the engine to end the planner
/// round after the turn's calls (`stop_after_execution`).
pub const META_STOP_AFTER_EXECUTION: &str = "maitool/stop_after_execution";

/// Which `structuredContent` values the connection's protocol version allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StructuredRule {
    /// Up to 2025-11-25: an object only; other values are wrapped as `{"result": value}`.
    ObjectOnly,
    /// From 2026-07-28 (SEP-2106): any JSON value.
    AnyJson,
}

/// The MCP result for `result`. See the [module documentation](self).
pub fn to_call_result(result: ToolExecutionResult, rule: StructuredRule) -> CallToolResult {
    let ToolExecutionResult {
        tool_name,
        success,
        content,
        error_message,
        structured_content,
        content_items,
        post_history_messages,
        mut metadata,
        stop_after_execution,
    } = result;

    let item_text = content_items
        .iter()
        .filter(|item| item.content_type == ContentType::Text && !item.text.trim().is_empty())
        .map(|item| item.text.trim())
        .collect::<Vec<_>>()
        .join("\n");
    let mut texts: Vec<String> = Vec::new();
    if success {
        texts.push(content);
    } else {
        let error = error_message.trim();
        let error = if error.is_empty() {
            format!("tool {tool_name} failed")
        } else {
            error.to_owned()
        };
        let extra = (!content.trim().is_empty() && content.trim() != error).then_some(content);
        texts.push(error);
        texts.extend(extra);
    }
    let mut blocks: Vec<ContentBlock> = texts
        .into_iter()
        .filter(|text| !text.trim().is_empty() && text.trim() != item_text)
        .map(ContentBlock::text)
        .collect();
    blocks.extend(
        content_items
            .into_iter()
            .enumerate()
            .map(|(index, item)| content_block(&tool_name, index, item)),
    );

    let structured = structured_content
        .filter(|value| !value.is_null())
        .map(|value| match (rule, value) {
            (StructuredRule::ObjectOnly, value) if !value.is_object() => {
                let mut wrapper = JsonObject::new();
                wrapper.insert("result".to_owned(), value);
                Value::Object(wrapper)
            }
            (_, value) => value,
        });
    if let Some(value) = &structured
        && !blocks.iter().any(|block| block.as_text().is_some())
    {
        blocks.push(ContentBlock::text(value.to_string()));
    }

    let mut mapped = if success {
        CallToolResult::success(blocks)
    } else {
        CallToolResult::error(blocks)
    };
    mapped.structured_content = structured;
    if !post_history_messages.is_empty() {
        metadata.insert(
            META_POST_HISTORY.to_owned(),
            Value::Array(post_history_messages),
        );
    }
    if success && stop_after_execution {
        metadata.insert(META_STOP_AFTER_EXECUTION.to_owned(), Value::Bool(true));
    }
    if !metadata.is_empty() {
        mapped.meta = Some(MetaObject(metadata));
    }
    mapped
}

/// One content item as a block. Items without what their kind needs (a link without a URI,
/// an unknown kind) become a text block with their one-line rendering rather than being lost.
fn content_block(tool: &str, index: usize, item: ToolContentItem) -> ContentBlock {
    let annotations = item.annotation.as_ref().and_then(annotations);
    let generated_uri = || format!("maitool://result/{tool}/{index}");
    let ToolContentItem {
        content_type,
        text,
        data,
        mime_type,
        uri,
        name,
        description,
        annotation: _,
        mut metadata,
    } = item;
    let mime = (!mime_type.is_empty()).then_some(mime_type);
    let block = match content_type {
        ContentType::Text => {
            let mut block = TextContent::new(text);
            block.annotations = annotations;
            ContentBlock::Text(block)
        }
        ContentType::Image | ContentType::Audio => {
            let mime = mime.unwrap_or_else(|| "application/octet-stream".to_owned());
            if content_type == ContentType::Image {
                let mut block = ImageContent::new(data.to_base64(), mime);
                block.annotations = annotations;
                ContentBlock::Image(block)
            } else {
                let mut block = AudioContent::new(data.to_base64(), mime);
                block.annotations = annotations;
                ContentBlock::Audio(block)
            }
        }
        ContentType::ResourceLink if !uri.is_empty() => {
            let label = if name.is_empty() { uri.clone() } else { name };
            let mut link = Resource::new(uri, label);
            link.description = (!description.is_empty()).then_some(description);
            link.mime_type = mime;
            // The MCP client side keeps these link fields in metadata; give them back.
            link.title = take_string(&mut metadata, "title");
            link.size = metadata.remove("size").and_then(|size| size.as_u64());
            link.icons = metadata
                .remove("icons")
                .and_then(|icons| serde_json::from_value::<Vec<Icon>>(icons).ok());
            link.annotations = annotations;
            ContentBlock::ResourceLink(link)
        }
        ContentType::Resource | ContentType::Binary => {
            let uri = if uri.is_empty() { generated_uri() } else { uri };
            let mut contents = if data.is_empty() && content_type == ContentType::Resource {
                ResourceContents::text(text, uri)
            } else {
                ResourceContents::blob(data.to_base64(), uri)
            };
            if let Some(mime) = mime {
                contents = contents.with_mime_type(mime);
            }
            let mut block = EmbeddedResource::new(contents);
            block.annotations = annotations;
            ContentBlock::Resource(block)
        }
        ContentType::ResourceLink | ContentType::Unknown => {
            let rendered = ToolContentItem {
                content_type,
                text,
                uri,
                name,
                ..ToolContentItem::default()
            };
            let text = match content_type {
                ContentType::Unknown if !rendered.text.trim().is_empty() => rendered.text,
                _ => rendered.history_text(),
            };
            let mut block = TextContent::new(text);
            block.annotations = annotations;
            ContentBlock::Text(block)
        }
    };
    with_meta(block, metadata)
}

fn take_string(metadata: &mut JsonObject, key: &str) -> Option<String> {
    match metadata.remove(key) {
        Some(Value::String(text)) => Some(text),
        Some(other) => {
            metadata.insert(key.to_owned(), other);
            None
        }
        None => None,
    }
}

fn with_meta(block: ContentBlock, metadata: JsonObject) -> ContentBlock {
    if metadata.is_empty() {
        return block;
    }
    let meta = Some(MetaObject(metadata));
    match block {
        ContentBlock::Text(mut b) => {
            b.meta = meta;
            ContentBlock::Text(b)
        }
        ContentBlock::Image(mut b) => {
            b.meta = meta;
            ContentBlock::Image(b)
        }
        ContentBlock::Audio(mut b) => {
            b.meta = meta;
            ContentBlock::Audio(b)
        }
        ContentBlock::Resource(mut b) => {
            b.meta = meta;
            ContentBlock::Resource(b)
        }
        ContentBlock::ResourceLink(mut b) => {
            b.meta = meta;
            ContentBlock::ResourceLink(b)
        }
        other => other,
    }
}

/// Content annotations: the audience (`user`/`assistant`; other names have no MCP form),
/// the priority clamped to MCP's 0..1, and `last_modified` from the annotation's metadata.
fn annotations(annotation: &ToolAnnotation) -> Option<Annotations> {
    let mut mapped = Annotations::default();
    let audience: Vec<Role> = annotation
        .audience
        .iter()
        .filter_map(|who| match who.trim().to_ascii_lowercase().as_str() {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            _ => None,
        })
        .collect();
    if !audience.is_empty() {
        mapped.audience = Some(audience);
    }
    mapped.priority = annotation
        .priority
        .filter(|p| p.is_finite())
        .map(|p| p.clamp(0.0, 1.0) as f32);
    mapped.last_modified = annotation
        .metadata
        .get("last_modified")
        .and_then(Value::as_str)
        .map(str::to_owned);
    (mapped != Annotations::default()).then_some(mapped)
}
