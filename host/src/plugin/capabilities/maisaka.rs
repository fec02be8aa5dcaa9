//! `maisaka.context.append`: a plugin's note into a stream's context, the one Maisaka
//! capability that maps onto maitool's model. MaiBot keeps such a note in its chat loop's
//! in-memory context; maitool has no chat loop of its own, and what the model reads of a stream
//! is its history in the store (`fetch_history`, `wait`), so the note is stored there, at the
//! end of the history: sent by the note's source (`source_kind`, `plugin:<id>` by default),
//! with the segments' text (else `visible_text`) and images. With `replyable`, MaiBot files the
//! note as a message of its real author, which the model can reply to; maitool stores it so
//! too, under the given `message_id` and `user_info`. Nothing is sent to a platform and no
//! reply is triggered.
//!
//! Failures answer MaiBot's `{success: false, error}`. The other `maisaka.*` capabilities are
//! refused (`refused.rs`).

use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::Args;
use super::refused::unsuccessful_value;
use super::send::segments;
use crate::builtin::StoreError;
use crate::builtin::engine::{ImageData, NewMessage};

/// What MaiBot shows for a note with neither text nor a visible summary.
const PLACEHOLDER: &str = "[插件上下文消息]";

impl CapabilityService {
    pub(super) async fn maisaka(&self, plugin_id: &str, args: Args<'_>) -> Result<Value, RpcError> {
        let store = self.store(&args)?;
        let failure = |problem: String| {
            Ok(unsuccessful_value(format!(
                "maisaka.context.append: {problem}"
            )))
        };
        let stream_id = args
            .opt_str("stream_id")?
            .or(args.opt_str("chat_id")?)
            .unwrap_or_default()
            .trim()
            .to_owned();
        if stream_id.is_empty() {
            return failure("argument `stream_id` (or `chat_id`) is required".into());
        }
        let Some(list) = args.value("segments") else {
            return failure("argument `segments` is required".into());
        };
        let (text, images) = match segments(&args, "segments", list) {
            Ok(parts) => parts,
            Err(err) => return failure(err.message),
        };
        if text.trim().is_empty() && images.is_empty() {
            return failure("`segments` has no text or image segment".into());
        }
        let replyable = match args.value("replyable") {
            None => false,
            Some(Value::Bool(flag)) => *flag,
            Some(other) => {
                return failure(format!("`replyable` must be true or false, not {other}"));
            }
        };
        let visible = args.str_or_empty("visible_text")?.trim().to_owned();
        let source_kind = Some(args.str_or_empty("source_kind")?.trim().to_owned())
            .filter(|kind| !kind.is_empty())
            .unwrap_or_else(|| format!("plugin:{plugin_id}"));
        let message_id = args.str_or_empty("message_id")?.trim().to_owned();
        let (sender_id, sender_name) = if replyable {
            let author = args.value("user_info");
            let field = |key: &str| {
                author
                    .and_then(|info| info.get(key))
                    .and_then(|value| match value {
                        Value::String(text) => Some(text.trim().to_owned()),
                        Value::Number(number) => Some(number.to_string()),
                        _ => None,
                    })
                    .filter(|text| !text.is_empty())
            };
            let (Some(user_id), false) = (field("user_id"), message_id.is_empty()) else {
                return failure(
                    "a replyable note needs `message_id` and `user_info.user_id` (its real author)"
                        .into(),
                );
            };
            let name = field("user_nickname").unwrap_or_else(|| user_id.clone());
            (user_id, name)
        } else {
            (source_kind.clone(), source_kind.clone())
        };
        let shown = [text.trim(), visible.as_str(), PLACEHOLDER]
            .into_iter()
            .find(|candidate| !candidate.is_empty())
            .unwrap_or(PLACEHOLDER)
            .to_owned();
        let note = NewMessage {
            message_id,
            stream_id: stream_id.clone(),
            sender_id,
            sender_name,
            is_bot: false,
            text: shown.clone(),
            images: images
                .into_iter()
                .map(|image| ImageData {
                    mime_type: image.mime_type,
                    data: image.data.0,
                    description: String::new(),
                })
                .collect(),
            ..NewMessage::default()
        };
        let stored = match store.append_message(note).await {
            Ok(stored) => stored,
            Err(exists @ StoreError::MessageExists(_)) => return failure(exists.to_string()),
            Err(StoreError::Invalid(problem)) => return failure(problem),
            Err(other) => return Err(args.failed(other)),
        };
        let index = store
            .count_messages_since(&stream_id, f64::MIN, None)
            .await
            .map_err(|err| args.failed(err))?
            .saturating_sub(1);
        Ok(json!({
            "success": true,
            "index": index,
            "stream_id": stream_id,
            "visible_text": if visible.is_empty() { shown } else { visible },
            "source_kind": source_kind,
            "replyable": replyable,
            "message_id": stored.message_id,
        }))
    }
}
