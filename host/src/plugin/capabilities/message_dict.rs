//! Stored messages as MaiBot's message dictionaries, the shape every MaiBot capability and
//! payload that carries a message uses: `message_id`, `timestamp` as text,
//! `message_info.user_info`, `raw_message` segments, `processed_plain_text`, `session_id`.
//!
//! An image segment is MaiBot's: `{type: "image", data: <description>, hash: <SHA-256>}`, and
//! `binary_data_base64` with the bytes when the caller asks (`include_binary_data`), so a
//! plugin recognising images by hash, or reading their description, works unchanged.

use std::collections::HashMap;

use base64::Engine as _;
use serde_json::{Value, json};

use crate::builtin::engine::{ChatType, HistoryMessage, StreamInfo};
use crate::builtin::{Store, StoreError};

/// Messages as MaiBot's dictionaries, in the order given; group streams carry `group_info`.
/// With `include_binary_data`, image segments carry their bytes.
pub(crate) async fn message_dicts(
    store: &Store,
    messages: Vec<HistoryMessage>,
    include_binary_data: bool,
) -> Result<Vec<Value>, StoreError> {
    let mut streams: HashMap<String, Option<StreamInfo>> = HashMap::new();
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        if !streams.contains_key(&message.stream_id) {
            let info = store.stream(&message.stream_id).await?;
            streams.insert(message.stream_id.clone(), info);
        }
        let stream = streams.get(&message.stream_id).cloned().flatten();
        let mut raw = Vec::new();
        if !message.text.is_empty() {
            raw.push(json!({ "type": "text", "data": message.text }));
        }
        if message.image_count > 0 {
            for image in store
                .message_images(&message.message_id, include_binary_data)
                .await?
            {
                let mut segment = json!({
                    "type": "image",
                    "data": image.description,
                    "hash": image.hash,
                });
                if include_binary_data {
                    segment["binary_data_base64"] = base64::engine::general_purpose::STANDARD
                        .encode(&image.data)
                        .into();
                }
                raw.push(segment);
            }
        }
        out.push(message_dict(&message, stream.as_ref(), raw));
    }
    Ok(out)
}

/// One message with its segments already built. The message flow renders a message it has
/// not stored yet with it too.
pub(crate) fn message_dict(
    message: &HistoryMessage,
    stream: Option<&StreamInfo>,
    raw: Vec<Value>,
) -> Value {
    let group_info = stream
        .filter(|s| s.chat_type == Some(ChatType::Group))
        .map(|s| json!({ "group_id": s.target_id, "group_name": s.name }));
    json!({
        "message_id": message.message_id,
        "timestamp": message.time.to_string(),
        "platform": stream.map(|s| s.platform.clone()).unwrap_or_default(),
        "account_id": null,
        "scope": null,
        "message_info": {
            "user_info": {
                "user_id": message.sender_id,
                "user_nickname": message.sender_name,
                "user_cardname": null,
            },
            "group_info": group_info,
            "additional_config": {},
        },
        "raw_message": raw,
        "is_mentioned": false,
        "is_at": !message.mentions.is_empty(),
        "is_emoji": false,
        "is_picture": message.image_count > 0 && message.text.is_empty(),
        "is_command": false,
        "is_notify": false,
        "session_id": message.stream_id,
        "reply_to": message.reply_to,
        "processed_plain_text": message.text,
    })
}
