//! Media items of tool results: split out of the result text, given stable ids
//! `tool_result:<call_id>:<n>` (`n` is the item's 1-based position in `content_items`), and
//! listed in a `<tool_result_media_list>` block so the model can refer to them (`send_image`,
//! `reply.attach_pic`).

use maitool_protocol::{ContentType, ToolContentItem};

use super::engine::ToolMedia;

/// The id of the `n`-th (1-based) content item of call `call_id`.
pub fn media_id(call_id: &str, n: usize) -> String {
    format!("tool_result:{call_id}:{n}")
}

/// Whether an item travels as media rather than as text: images, audio, links, resources and
/// binaries that carry anything at all (bytes, a URI, a name, a description or a MIME type).
pub fn is_media(item: &ToolContentItem) -> bool {
    matches!(
        item.content_type,
        ContentType::Image
            | ContentType::Audio
            | ContentType::ResourceLink
            | ContentType::Resource
            | ContentType::Binary
    ) && (!item.data.is_empty()
        || !item.uri.is_empty()
        || !item.name.is_empty()
        || !item.description.is_empty()
        || !item.mime_type.is_empty())
}

/// The media items of one result, with their ids.
pub fn split_media(call_id: &str, items: &[ToolContentItem]) -> Vec<ToolMedia> {
    items
        .iter()
        .enumerate()
        .filter(|(_, item)| is_media(item))
        .map(|(position, item)| ToolMedia {
            media_id: media_id(call_id, position + 1),
            item: item.clone(),
        })
        .collect()
}

fn escape_attribute(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '"' => escaped.push_str("&quot;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '\n' | '\r' => escaped.push(' '),
            other => escaped.push(other),
        }
    }
    escaped
}

/// The `<tool_result_media_list>` block naming each media item, or an empty string.
pub fn media_list_block(media: &[ToolMedia]) -> String {
    if media.is_empty() {
        return String::new();
    }
    let mut block = String::from("<tool_result_media_list>");
    for entry in media {
        let item = &entry.item;
        let meta = |key: &str| {
            item.metadata
                .get(key)
                .and_then(|value| value.as_str())
                .unwrap_or_default()
                .to_owned()
        };
        let attributes = [
            ("msg_id", entry.media_id.clone()),
            ("type", item.content_type.as_str().to_owned()),
            ("mime", item.mime_type.clone()),
            ("name", item.name.clone()),
            ("uri", item.uri.clone()),
            ("context_key", meta("context_key")),
            ("source_url", meta("source_url")),
        ];
        block.push_str("\n<media");
        for (key, value) in attributes.iter().filter(|(_, value)| !value.is_empty()) {
            block.push_str(&format!(" {key}=\"{}\"", escape_attribute(value)));
        }
        block.push_str("/>");
    }
    block.push_str("\n</tool_result_media_list>");
    block
}
