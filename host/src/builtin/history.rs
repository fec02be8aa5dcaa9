//! A turn's outcome as history messages in the shape of each model API: the tool results
//! answering the calls, then the media items as user content (images inline as base64), then
//! the tools' post-history messages unchanged.

use crate::llm::ModelApi;
use maitool_protocol::{ContentType, ToolContentItem};
use serde_json::{Value, json};

use super::engine::ToolMedia;
use super::executor::{CallStatus, TurnOutcome};

/// An inline image of a media item: its MIME type and base64 data.
fn inline_image(item: &ToolContentItem) -> Option<(&str, String)> {
    let is_image = item.content_type == ContentType::Image
        || (item.content_type == ContentType::Binary && item.mime_type.starts_with("image/"));
    (is_image && !item.data.is_empty()).then(|| {
        let mime = if item.mime_type.is_empty() {
            "image/png"
        } else {
            item.mime_type.as_str()
        };
        (mime, item.data.to_base64())
    })
}

/// The text label standing before (or for) a media item.
fn media_label(media: &ToolMedia) -> String {
    let text = media.item.history_text();
    let uri = if media.item.uri.is_empty() || text.contains(&media.item.uri) {
        String::new()
    } else {
        format!(" {}", media.item.uri)
    };
    format!("[{}] {text}{uri}", media.media_id)
}

impl TurnOutcome {
    /// The turn's history messages in `api`'s shape, in order: results, media, post-history.
    /// Skipped calls are answered too, since the APIs require a result for every call.
    pub fn to_messages(&self, api: ModelApi) -> Vec<Value> {
        let mut messages = match api {
            ModelApi::OpenAiChat => self.openai_chat(),
            ModelApi::OpenAiResponses => self.openai_responses(),
            ModelApi::Anthropic => vec![self.anthropic()],
            ModelApi::Gemini => vec![self.gemini()],
        };
        messages.extend(self.post_history.iter().cloned());
        messages
    }

    fn openai_chat(&self) -> Vec<Value> {
        let mut messages: Vec<Value> = self
            .messages
            .iter()
            .map(|message| {
                json!({"role": "tool", "tool_call_id": message.call_id, "content": message.content})
            })
            .collect();
        for media in &self.media {
            let mut parts = vec![json!({"type": "text", "text": media_label(media)})];
            if let Some((mime, data)) = inline_image(&media.item) {
                parts.push(json!({
                    "type": "image_url",
                    "image_url": {"url": format!("data:{mime};base64,{data}")},
                }));
            }
            messages.push(json!({"role": "user", "content": parts}));
        }
        messages
    }

    fn openai_responses(&self) -> Vec<Value> {
        let mut messages: Vec<Value> = self
            .messages
            .iter()
            .map(|message| {
                json!({
                    "type": "function_call_output",
                    "call_id": message.call_id,
                    "output": message.content,
                })
            })
            .collect();
        for media in &self.media {
            let mut parts = vec![json!({"type": "input_text", "text": media_label(media)})];
            if let Some((mime, data)) = inline_image(&media.item) {
                parts.push(json!({
                    "type": "input_image",
                    "image_url": format!("data:{mime};base64,{data}"),
                }));
            }
            messages.push(json!({"role": "user", "content": parts}));
        }
        messages
    }

    fn anthropic(&self) -> Value {
        // Tool results must open the user message; media blocks may follow them.
        let mut blocks: Vec<Value> = self
            .messages
            .iter()
            .map(|message| {
                json!({
                    "type": "tool_result",
                    "tool_use_id": message.call_id,
                    "content": message.content,
                    "is_error": message.status != CallStatus::Succeeded,
                })
            })
            .collect();
        for media in &self.media {
            blocks.push(json!({"type": "text", "text": media_label(media)}));
            if let Some((mime, data)) = inline_image(&media.item) {
                blocks.push(json!({
                    "type": "image",
                    "source": {"type": "base64", "media_type": mime, "data": data},
                }));
            }
        }
        json!({"role": "user", "content": blocks})
    }

    fn gemini(&self) -> Value {
        let mut parts: Vec<Value> = self
            .messages
            .iter()
            .map(|message| {
                let key = if message.status == CallStatus::Succeeded {
                    "output"
                } else {
                    "error"
                };
                json!({"functionResponse": {
                    "name": message.tool_name,
                    "response": {key: message.content},
                }})
            })
            .collect();
        for media in &self.media {
            parts.push(json!({"text": media_label(media)}));
            if let Some((mime, data)) = inline_image(&media.item) {
                parts.push(json!({"inlineData": {"mimeType": mime, "data": data}}));
            }
        }
        json!({"role": "user", "parts": parts})
    }
}
