//! `send.*`: a plugin's message to a chat stream, delivered through the host's
//! [`MessageSink`](super::MessageSink). Arguments are MaiBot's (`image_base64`,
//! `emoji_base64`, `segments`, `messages`, `command`, `message_type`/`content`); maitool's
//! earlier `data` spelling of an image still works.

use maitool_protocol::BinaryData;
use maitool_protocol::capability::Capability;
use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::{Args, kind};
use super::sink::{OutgoingImage, OutgoingMessage};
use crate::builtin::engine::ForwardNode;
use crate::builtin::store::image_mime;

/// What MaiBot stores as the plain text of a forward message.
const FORWARD_TEXT: &str = "[转发消息]";

impl CapabilityService {
    pub(super) async fn send(&self, plugin_id: &str, args: Args<'_>) -> Result<Value, RpcError> {
        let stream_id = args.required_str("stream_id")?;
        // The message's kind is the action: `text` of `send.text`.
        let name = args.capability.name();
        let kind = name[args.capability.family().name().len() + 1..].to_owned();
        let plain = args.str_or_empty("processed_plain_text")?;
        let (text, images, forward) = match args.capability {
            Capability::SendText => (args.required_str("text")?, Vec::new(), Vec::new()),
            Capability::SendImage => (
                args.str_or_empty("text")?,
                vec![image(&args, &["image_base64", "data"])?],
                Vec::new(),
            ),
            Capability::SendEmoji => (
                args.str_or_empty("text")?,
                vec![image(&args, &["emoji_base64", "data"])?],
                Vec::new(),
            ),
            Capability::SendHybrid => {
                let list = args
                    .value("segments")
                    .or_else(|| args.value("parts"))
                    .ok_or_else(|| args.bad("argument `segments` is required"))?;
                let (text, images) = segments(&args, "segments", list)?;
                if text.is_empty() && images.is_empty() {
                    return Err(args.bad("argument `segments` has no text or image segment"));
                }
                (or(plain, text), images, Vec::new())
            }
            Capability::SendForward => (
                or(plain, FORWARD_TEXT.into()),
                Vec::new(),
                forward_nodes(&args)?,
            ),
            Capability::SendCommand => (
                or(plain, args.required_str("command")?),
                Vec::new(),
                Vec::new(),
            ),
            Capability::SendCustom => {
                let message_type = args.first_str(&["message_type", "custom_type"])?;
                let content = args
                    .value("content")
                    .or_else(|| args.value("data"))
                    .cloned()
                    .unwrap_or(Value::String(String::new()));
                let shown = match content {
                    Value::String(text) => text,
                    other => other.to_string(),
                };
                (
                    or(plain, format!("[{message_type}] {shown}")),
                    Vec::new(),
                    Vec::new(),
                )
            }
            _ => unreachable!("dispatch only routes send.* capabilities here"),
        };
        let message = OutgoingMessage {
            stream_id,
            kind,
            text,
            images,
            forward,
            plugin_id: plugin_id.to_owned(),
        };
        let sink = self.sink.clone();
        let message_id = match sink.send(message).await {
            Ok(id) => id,
            // Not sent, by design: answered as MaiBot answers a send its hooks stopped, so
            // the plugin's own fallback runs.
            Err(stopped @ super::SinkError::Stopped { .. }) => {
                return Ok(
                    json!({ "success": false, "sent": false, "error": stopped.to_string() }),
                );
            }
            Err(err) => return Err(args.failed(crate::error_text::chain(&err))),
        };
        Ok(json!({ "success": true, "sent": true, "message_id": message_id }))
    }
}

fn or(preferred: String, fallback: String) -> String {
    if preferred.trim().is_empty() {
        fallback
    } else {
        preferred
    }
}

/// A base64 image from the first of `keys` given, its MIME type from `mime_type` or sniffed.
fn image(args: &Args<'_>, keys: &[&str]) -> Result<OutgoingImage, RpcError> {
    let encoded = args.first_str(keys)?;
    // Name the spelling the plugin used when its data is not base64.
    let used = keys
        .iter()
        .find(|key| {
            args.opt_str(key)
                .ok()
                .flatten()
                .is_some_and(|v| !v.trim().is_empty())
        })
        .copied()
        .unwrap_or(keys[0]);
    decode(args, used, &encoded, args.str_or_empty("mime_type")?)
}

fn decode(
    args: &Args<'_>,
    what: &str,
    encoded: &str,
    mime_type: String,
) -> Result<OutgoingImage, RpcError> {
    let data = BinaryData::from_base64(encoded)
        .map_err(|err| args.bad(format!("`{what}` is not base64: {err}")))?;
    let mime_type = if mime_type.is_empty() {
        image_mime(Some(&data.0), None)
            .unwrap_or_default()
            .to_owned()
    } else {
        mime_type
    };
    Ok(OutgoingImage { mime_type, data })
}

/// The text and images of MaiBot message segments (`{type, content}` or `{type, data}`;
/// images may carry `binary_data_base64`). Other segment types are shown as `[type]`.
pub(super) fn segments(
    args: &Args<'_>,
    what: &str,
    list: &Value,
) -> Result<(String, Vec<OutgoingImage>), RpcError> {
    let Value::Array(items) = list else {
        return Err(args.bad(format!(
            "argument `{what}` must be a list, not {}",
            kind(list)
        )));
    };
    let mut text = String::new();
    let mut images = Vec::new();
    for (index, segment) in items.iter().enumerate() {
        let at = format!("{what}[{index}]");
        let Value::Object(segment) = segment else {
            return Err(args.bad(format!("`{at}` must be an object, not {}", kind(segment))));
        };
        let field = |key: &str| segment.get(key).and_then(Value::as_str).unwrap_or_default();
        let kind = field("type").trim().to_ascii_lowercase();
        match kind.as_str() {
            "text" => text.push_str(or(field("content").into(), field("data").into()).as_str()),
            "image" | "emoji" => {
                let encoded = [field("binary_data_base64"), field("content"), field("data")]
                    .into_iter()
                    .find(|value| !value.trim().is_empty())
                    .ok_or_else(|| args.bad(format!("`{at}` has no image data")))?;
                images.push(decode(args, &at, encoded, String::new())?);
                text.push_str(if kind == "emoji" {
                    "[表情包]"
                } else {
                    "[图片]"
                });
            }
            "" => return Err(args.bad(format!("`{at}` has no `type`"))),
            other => text.push_str(&format!("[{other}]")),
        }
    }
    Ok((text, images))
}

/// MaiBot's forward nodes (`{user_id, nickname|user_nickname, segments|content}`).
fn forward_nodes(args: &Args<'_>) -> Result<Vec<ForwardNode>, RpcError> {
    let list = args
        .value("messages")
        .ok_or_else(|| args.bad("argument `messages` is required"))?;
    let Value::Array(items) = list else {
        return Err(args.bad(format!(
            "argument `messages` must be a list, not {}",
            kind(list)
        )));
    };
    let mut nodes = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let at = format!("messages[{index}]");
        let Value::Object(message) = item else {
            return Err(args.bad(format!("`{at}` must be an object, not {}", kind(item))));
        };
        let field = |key: &str| message.get(key).and_then(Value::as_str).unwrap_or_default();
        let segments_value = message
            .get("segments")
            .or_else(|| message.get("content"))
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        let (text, images) = segments(args, &format!("{at}.segments"), &segments_value)?;
        let sender_name = [field("nickname"), field("user_nickname")]
            .into_iter()
            .find(|name| !name.is_empty())
            .unwrap_or("插件消息");
        nodes.push(ForwardNode {
            sender_name: sender_name.to_owned(),
            sender_id: field("user_id").to_owned(),
            time: None,
            text,
            image_count: images.len(),
            forward: Vec::new(),
        });
    }
    if nodes.is_empty() {
        return Err(args.bad("argument `messages` is empty"));
    }
    Ok(nodes)
}
