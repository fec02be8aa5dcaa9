//! Chat messages plugins hand the host (`host.route_message`, through a receiving message
//! gateway): a MaiBot message dict read as a [`ChatMessage`] and taken through the flow.

use std::sync::Arc;

use base64::Engine as _;
use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::{JsonObject, json_kind};
use serde_json::Value;

use super::{ChatMessage, MessageFlow};
use crate::builtin::engine::ImageData;
use crate::plugin::InboundMessages;

/// The flow as the plugin runtime's taker of routed messages. Held weakly by the runtime.
pub(super) struct Inbound(pub(super) std::sync::Weak<MessageFlow>);

impl InboundMessages for Inbound {
    fn take(
        &self,
        plugin_id: String,
        message: JsonObject,
    ) -> BoxFuture<'static, Result<Value, String>> {
        let flow = self.0.upgrade();
        async move {
            let Some(flow) = flow else {
                return Err("the host is stopping".to_owned());
            };
            let message = chat_message(&message)
                .map_err(|why| format!("plugin {plugin_id} routed a malformed message: {why}"))?;
            let outcome = flow
                .receive(message)
                .await
                .map_err(|err| crate::error_text::chain(&err))?;
            serde_json::to_value(outcome).map_err(|err| err.to_string())
        }
        .boxed()
    }
}

impl MessageFlow {
    /// Lets plugins route chat messages into this flow (`host.route_message`).
    pub(super) fn take_routed_messages(self: &Arc<Self>) {
        let inbound = Arc::new(Inbound(Arc::downgrade(self)));
        self.plugins.attach_inbound(&inbound);
        // The runtime holds it weakly: the flow keeps it alive.
        *self.inbound.lock() = Some(inbound);
    }
}

/// A MaiBot message dict as a [`ChatMessage`]: the sender and group from `message_info`,
/// the text from `processed_plain_text` (else the text segments), images from image and
/// emoji segments' `binary_data_base64`, mentions from `at` segments, the quoted message
/// from a `reply` segment. The stream is `session_id`, else `platform:group:GROUP` or
/// `platform:private:USER`.
pub(super) fn chat_message(dict: &JsonObject) -> Result<ChatMessage, String> {
    let text_at = |path: &[&str]| -> Option<String> {
        let mut value = dict.get(path[0])?;
        for key in &path[1..] {
            value = value.get(key)?;
        }
        match value {
            Value::String(text) => Some(text.trim().to_owned()),
            Value::Number(number) => Some(number.to_string()),
            _ => None,
        }
        .filter(|text| !text.is_empty())
    };
    let platform = text_at(&["platform"]).ok_or("it has no `platform`")?;
    let user_id = text_at(&["message_info", "user_info", "user_id"])
        .ok_or("it has no `message_info.user_info.user_id`")?;
    let group_id = text_at(&["message_info", "group_info", "group_id"]).unwrap_or_default();
    let stream_id = text_at(&["session_id"]).unwrap_or_else(|| {
        if group_id.is_empty() {
            format!("{platform}:private:{user_id}")
        } else {
            format!("{platform}:group:{group_id}")
        }
    });
    let segments = match dict.get("raw_message") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(segments)) => segments.clone(),
        Some(other) => {
            return Err(format!(
                "`raw_message` must be a list of segments, not {}",
                json_kind(other)
            ));
        }
    };
    let mut message = ChatMessage {
        message_id: text_at(&["message_id"]).unwrap_or_default(),
        stream_id,
        platform,
        user_name: text_at(&["message_info", "user_info", "user_cardname"])
            .or_else(|| text_at(&["message_info", "user_info", "user_nickname"]))
            .unwrap_or_default(),
        user_id,
        group_name: text_at(&["message_info", "group_info", "group_name"]).unwrap_or_default(),
        group_id,
        reply_to: text_at(&["reply_to"]),
        time: text_at(&["timestamp"]).and_then(|t| t.parse::<f64>().ok()),
        ..ChatMessage::default()
    };
    let mut text = String::new();
    for (index, segment) in segments.iter().enumerate() {
        let kind = segment.get("type").and_then(Value::as_str).unwrap_or("");
        let data = segment.get("data");
        match kind {
            "text" => text.push_str(data.and_then(Value::as_str).unwrap_or_default()),
            "image" | "emoji" => {
                let Some(encoded) = segment.get("binary_data_base64").and_then(Value::as_str)
                else {
                    continue;
                };
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(encoded.trim())
                    .map_err(|err| {
                        format!("`raw_message[{index}].binary_data_base64` is not base64: {err}")
                    })?;
                message.images.push(ImageData {
                    mime_type: crate::builtin::store::image_mime(Some(&bytes), None)
                        .unwrap_or_default()
                        .to_owned(),
                    data: bytes,
                    description: data.and_then(Value::as_str).unwrap_or_default().to_owned(),
                });
            }
            "at" => {
                let target = data.and_then(|d| {
                    d.get("target_user_id")
                        .or_else(|| d.get("user_id"))
                        .and_then(Value::as_str)
                        .or_else(|| d.as_str())
                });
                if let Some(user) = target {
                    message.mentions.push(user.to_owned());
                }
            }
            "reply" => {
                let quoted = data.and_then(|d| {
                    d.get("target_message_id")
                        .or_else(|| d.get("message_id"))
                        .and_then(Value::as_str)
                        .or_else(|| d.as_str())
                });
                if let Some(quoted) = quoted {
                    message.reply_to = Some(quoted.to_owned());
                }
            }
            _ => {}
        }
    }
    message.text = match dict.get("processed_plain_text").and_then(Value::as_str) {
        Some(plain) if !plain.trim().is_empty() => plain.to_owned(),
        _ => text,
    };
    Ok(message)
}

#[cfg(test)]
mod tests;
