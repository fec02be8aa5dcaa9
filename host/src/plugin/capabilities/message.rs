//! `message.*`: a stream's history from the store, in MaiBot's message dictionaries
//! (`message_id`, `timestamp` as text, `message_info.user_info`, `raw_message` segments,
//! `processed_plain_text`, `session_id`), so plugins written for MaiBot read them unchanged.

use maitool_protocol::rpc::RpcError;
use serde_json::{Value, json};

use super::CapabilityService;
use super::args::{Args, kind};
use super::message_dict::message_dicts;
use crate::builtin::datetime;
use crate::builtin::store::{MessageWindow, now};
use maitool_protocol::capability::Capability;

impl CapabilityService {
    pub(super) async fn message(&self, args: Args<'_>) -> Result<Value, RpcError> {
        let store = self.store(&args)?;
        let failed = |err: crate::builtin::StoreError| args.failed(err);
        let binary = args.flag("include_binary_data", false)?;
        match args.capability {
            Capability::MessageGetRecent => {
                let chat_id = args.required_str("chat_id")?;
                let hours = args.opt_f64("hours")?.unwrap_or(24.0);
                if hours < 0.0 {
                    return Err(args.bad("argument `hours` must not be negative"));
                }
                let mut window = window(&args, Some(chat_id), 100)?;
                window.start = now() - hours * 3600.0;
                window.end = None;
                let found = store.messages_in_window(window).await.map_err(failed)?;
                Ok(
                    json!({ "success": true, "messages": message_dicts(&store, found, binary).await.map_err(failed)? }),
                )
            }
            Capability::MessageGetByTime | Capability::MessageGetByTimeInChat => {
                let chat_id = if args.capability == Capability::MessageGetByTimeInChat {
                    Some(args.required_str("chat_id")?)
                } else {
                    None
                };
                let window = window(&args, chat_id, 0)?;
                let found = store.messages_in_window(window).await.map_err(failed)?;
                Ok(
                    json!({ "success": true, "messages": message_dicts(&store, found, binary).await.map_err(failed)? }),
                )
            }
            Capability::MessageGetById => {
                let message_id = args.first_str(&["message_id", "msg_id"])?;
                let chat_id = args.opt_str("chat_id")?.filter(|id| !id.is_empty());
                let chat_id = chat_id.or(args.opt_str("stream_id")?.filter(|id| !id.is_empty()));
                let found = store
                    .message(&message_id)
                    .await
                    .map_err(failed)?
                    .filter(|m| chat_id.as_ref().is_none_or(|chat| *chat == m.stream_id));
                let message = match found {
                    Some(found) => message_dicts(&store, vec![found], binary)
                        .await
                        .map_err(failed)?
                        .pop(),
                    None => None,
                };
                Ok(json!({ "success": true, "message": message }))
            }
            Capability::MessageCountNew => {
                let chat_id = args.required_str("chat_id")?;
                let since = match args.opt_f64("since")? {
                    Some(since) => since,
                    None => args.opt_f64("start_time")?.unwrap_or(0.0),
                };
                let count = store
                    .count_messages_since(&chat_id, since, args.opt_f64("end_time")?)
                    .await
                    .map_err(failed)?;
                Ok(json!({ "success": true, "count": count }))
            }
            Capability::MessageBuildReadable => {
                let lines = match args.value("messages") {
                    Some(Value::Array(items)) => items
                        .iter()
                        .enumerate()
                        .map(|(index, item)| readable_dict(&args, index, item))
                        .collect::<Result<Vec<_>, _>>()?,
                    Some(other) => {
                        return Err(args.bad(format!(
                            "argument `messages` must be a list of messages, not {}",
                            kind(other)
                        )));
                    }
                    None => {
                        let chat_id = args.first_str(&["messages", "chat_id"])?;
                        let window = window(&args, Some(chat_id), 0)?;
                        let found = store.messages_in_window(window).await.map_err(failed)?;
                        found
                            .iter()
                            .map(|m| line(m.time, &m.sender_name, &m.text))
                            .collect()
                    }
                };
                Ok(json!({ "success": true, "text": lines.join("\n") }))
            }
            _ => unreachable!("dispatch only routes message.* capabilities here"),
        }
    }
}

/// The window MaiBot's time arguments describe: `start_time`, `end_time` (no upper bound when
/// absent), `limit` (0: all), `limit_mode` (`latest` or `earliest`), `filter_mai`.
fn window(
    args: &Args<'_>,
    stream_id: Option<String>,
    default_limit: usize,
) -> Result<MessageWindow, RpcError> {
    let earliest = match args.str_or_empty("limit_mode")?.as_str() {
        "" | "latest" => false,
        "earliest" => true,
        other => {
            return Err(args.bad(format!(
                "argument `limit_mode` must be latest or earliest, not {other:?}"
            )));
        }
    };
    Ok(MessageWindow {
        stream_id,
        start: args.opt_f64("start_time")?.unwrap_or(0.0),
        end: args.opt_f64("end_time")?,
        limit: args.count("limit", default_limit)?,
        earliest,
        without_bot: args.flag("filter_mai", false)?,
    })
}

fn line(time: f64, sender: &str, text: &str) -> String {
    format!("[{}] {sender}: {text}", datetime(time))
}

/// One line of a message dictionary a plugin passed back (MaiBot's shape, as `dicts` writes
/// it): sender from `message_info.user_info`, text from `processed_plain_text` or the text
/// segments of `raw_message`.
fn readable_dict(args: &Args<'_>, index: usize, item: &Value) -> Result<String, RpcError> {
    let Value::Object(message) = item else {
        return Err(args.bad(format!(
            "`messages[{index}]` must be a message object, not {}",
            kind(item)
        )));
    };
    let user = &message
        .get("message_info")
        .and_then(|info| info.get("user_info"))
        .cloned()
        .unwrap_or(Value::Null);
    let sender = ["user_cardname", "user_nickname", "user_id"]
        .iter()
        .filter_map(|key| user.get(key).and_then(Value::as_str))
        .find(|name| !name.is_empty())
        .ok_or_else(|| {
            args.bad(format!(
                "`messages[{index}]` has no message_info.user_info.user_nickname"
            ))
        })?;
    let text = match message.get("processed_plain_text").and_then(Value::as_str) {
        Some(text) => text.to_owned(),
        None => message
            .get("raw_message")
            .and_then(Value::as_array)
            .map(|segments| {
                segments
                    .iter()
                    .map(|s| match s.get("type").and_then(Value::as_str) {
                        Some("text") => s.get("data").and_then(Value::as_str).unwrap_or("").into(),
                        Some(other) => format!("[{other}]"),
                        None => String::new(),
                    })
                    .collect::<String>()
            })
            .unwrap_or_default(),
    };
    let time = match message.get("timestamp") {
        Some(Value::String(text)) => text.parse().ok(),
        Some(value) => value.as_f64(),
        None => None,
    }
    .ok_or_else(|| args.bad(format!("`messages[{index}]` has no numeric `timestamp`")))?;
    Ok(line(time, sender, &text))
}
