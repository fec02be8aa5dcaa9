//! The message as plugins read it: MaiBot's message dict, rendered by the same code as
//! `message.*` answers with (`plugin::message_dict`), for a message not stored yet; and the
//! text a handler's changed dict gives back.

use base64::Engine as _;
use maitool_protocol::JsonObject;
use serde_json::{Value, json};

use super::incoming::ChatMessage;
use crate::builtin::engine::{HistoryMessage, StreamInfo};

/// `message` (with its final id and time) as a MaiBot message dict in `stream`. Image
/// segments carry the image's SHA-256 (`hash`) and description (`data`), and their bytes as
/// `binary_data_base64` when `with_bytes` (MaiBot gives event handlers the bytes, commands
/// not).
pub(super) fn render(
    message: &ChatMessage,
    message_id: &str,
    time: f64,
    stream: &StreamInfo,
    with_bytes: bool,
) -> JsonObject {
    let history = HistoryMessage {
        message_id: message_id.to_owned(),
        stream_id: message.stream_id.clone(),
        sender_id: message.user_id.clone(),
        sender_name: message.sender_name().to_owned(),
        is_bot: false,
        text: message.text.clone(),
        reply_to: message.reply_to.clone(),
        mentions: message.mentions.clone(),
        image_count: message.images.len(),
        is_forward: false,
        time,
    };
    let mut raw = Vec::new();
    if !message.text.is_empty() {
        raw.push(json!({ "type": "text", "data": message.text }));
    }
    for image in &message.images {
        let mut segment = json!({
            "type": "image",
            "data": image.description,
            "hash": crate::builtin::store::sha256_hex(&image.data),
        });
        if with_bytes {
            segment["binary_data_base64"] = base64::engine::general_purpose::STANDARD
                .encode(&image.data)
                .into();
        }
        raw.push(segment);
    }
    match crate::plugin::message_dict(&history, Some(stream), raw) {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// The text of a message dict a handler or hook handed back: its `processed_plain_text`,
/// else its text segments joined. `None` when it has neither.
pub(super) fn text_of(dict: &JsonObject) -> Option<String> {
    if let Some(text) = dict.get("processed_plain_text").and_then(Value::as_str) {
        return Some(text.to_owned());
    }
    let segments = dict.get("raw_message")?.as_array()?;
    Some(
        segments
            .iter()
            .filter(|s| s.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|s| s.get("data").and_then(Value::as_str))
            .collect(),
    )
}
