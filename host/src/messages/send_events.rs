//! The send side of the flow: every message a plugin sends (`send.*`) passes the send hooks
//! and events before the host's sink delivers it, and whoever processes a message of the
//! same stream hears of it.
//!
//! In order: hook `send_service.before_send`, event `post_send_pre_process`, hook
//! `send_service.after_build_message`, event `post_send` (each may change the text or stop
//! the message: the plugin's `send.*` then answers `{success: false}`), the sink, hook
//! `send_service.after_send`, event `after_send`. A message sent by a handler of these
//! events to the same stream, while they run, skips them: otherwise a handler that answers
//! every message it sees would loop.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, Weak};

use async_trait::async_trait;
use maitool_protocol::wire::message_flow::EventType;
use maitool_protocol::{JsonObject, ToolExecutionContext};
use parking_lot::Mutex;
use serde_json::{Value, json};

use super::MessageFlow;
use super::hooks::names;
use super::outcome::SentMessage;
use crate::plugin::{MessageSink, OutgoingMessage, SinkError};

/// A [`MessageSink`] that runs the send hooks and events of a [`MessageFlow`] around the
/// sink it wraps. Until a flow is attached it only delivers.
pub struct SendEvents {
    inner: Arc<dyn MessageSink>,
    flow: OnceLock<Weak<MessageFlow>>,
    watchers: Arc<SendWatchers>,
    /// Streams whose send events are running now, with how many.
    busy: Mutex<HashMap<String, usize>>,
}

impl std::fmt::Debug for SendEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SendEvents").finish_non_exhaustive()
    }
}

impl SendEvents {
    /// Wraps `inner`, where messages are finally delivered.
    pub fn new(inner: Arc<dyn MessageSink>) -> Arc<SendEvents> {
        Arc::new(SendEvents {
            inner,
            flow: OnceLock::new(),
            watchers: Arc::new(SendWatchers::default()),
            busy: Mutex::new(HashMap::new()),
        })
    }

    pub(super) fn attach(&self, flow: &Arc<MessageFlow>) {
        let _ = self.flow.set(Arc::downgrade(flow));
    }

    pub(super) fn watchers(&self) -> Arc<SendWatchers> {
        Arc::clone(&self.watchers)
    }

    /// Marks `stream` busy; false when it already was (a nested send).
    fn enter(&self, stream: &str) -> bool {
        let mut busy = self.busy.lock();
        let count = busy.entry(stream.to_owned()).or_default();
        *count += 1;
        *count == 1
    }

    fn leave(&self, stream: &str) {
        let mut busy = self.busy.lock();
        if let Some(count) = busy.get_mut(stream) {
            *count -= 1;
            if *count == 0 {
                busy.remove(stream);
            }
        }
    }

    async fn deliver(&self, message: OutgoingMessage) -> Result<String, SinkError> {
        let summary = SentMessage {
            message_id: String::new(),
            plugin_id: message.plugin_id.clone(),
            kind: message.kind.clone(),
            text: message.text.clone(),
        };
        let stream = message.stream_id.clone();
        let id = self.inner.send(message).await?;
        self.watchers.heard(
            &stream,
            SentMessage {
                message_id: id.clone(),
                ..summary
            },
        );
        Ok(id)
    }
}

#[async_trait]
impl MessageSink for SendEvents {
    async fn send(&self, message: OutgoingMessage) -> Result<String, SinkError> {
        let Some(flow) = self.flow.get().and_then(Weak::upgrade) else {
            return self.deliver(message).await;
        };
        let stream = message.stream_id.clone();
        if !self.enter(&stream) {
            // A handler of these events sending to the same stream.
            let sent = self.deliver(message).await;
            self.leave(&stream);
            return sent;
        }
        let sent = flow.send_through_events(self, message).await;
        self.leave(&stream);
        sent
    }
}

impl MessageFlow {
    async fn send_through_events(
        &self,
        sink: &SendEvents,
        mut message: OutgoingMessage,
    ) -> Result<String, SinkError> {
        let context = self.send_context(&message.stream_id).await;
        let mut dict = outgoing_dict(&message, &context);
        let stream_id = message.stream_id.clone();
        let send_kwargs = || {
            let mut kwargs = JsonObject::new();
            kwargs.insert("stream_id".into(), stream_id.clone().into());
            kwargs.insert("typing".into(), false.into());
            kwargs.insert("set_reply".into(), false.into());
            kwargs.insert("reply_message_id".into(), Value::Null);
            kwargs.insert("storage_message".into(), true.into());
            kwargs.insert("show_log".into(), true.into());
            kwargs
        };
        self.send_hook(names::SEND_BEFORE_SEND, &mut dict, send_kwargs())
            .await?;
        self.send_event(EventType::PostSendPreProcess, &mut dict, &context)
            .await?;
        let mut built = send_kwargs();
        built.insert(
            "processed_plain_text".into(),
            super::dict::text_of(&dict).unwrap_or_default().into(),
        );
        self.send_hook(names::SEND_AFTER_BUILD_MESSAGE, &mut dict, built)
            .await?;
        self.send_event(EventType::PostSend, &mut dict, &context)
            .await?;
        if let Some(text) = super::dict::text_of(&dict) {
            message.text = text;
        }
        let sent = sink.deliver(message).await;
        let mut after = send_kwargs();
        after.insert("sent".into(), sent.is_ok().into());
        if let Ok(id) = &sent {
            dict.insert("message_id".into(), id.clone().into());
        }
        let _ = self
            .send_hook(names::SEND_AFTER_SEND, &mut dict, after)
            .await;
        if sent.is_ok() {
            let _ = self
                .events
                .emit(
                    &EventType::AfterSend,
                    Some(dict),
                    JsonObject::new(),
                    &context,
                )
                .await;
        }
        sent
    }

    /// The chat of a stream, as the store knows it, for the handlers' chat filters.
    async fn send_context(&self, stream_id: &str) -> ToolExecutionContext {
        let known = match &self.store {
            Some(store) => store.stream(stream_id).await.ok().flatten(),
            None => None,
        };
        let known = known.unwrap_or_default();
        let is_group = known
            .chat_type
            .map(|kind| kind == crate::builtin::engine::ChatType::Group);
        ToolExecutionContext {
            session_id: stream_id.to_owned(),
            stream_id: stream_id.to_owned(),
            is_group_chat: is_group,
            group_id: if is_group == Some(true) {
                known.target_id
            } else {
                String::new()
            },
            platform: known.platform,
            ..ToolExecutionContext::default()
        }
    }

    async fn send_hook(
        &self,
        name: &str,
        dict: &mut JsonObject,
        kwargs: JsonObject,
    ) -> Result<(), SinkError> {
        let mut report = super::MessageOutcome::default();
        match self.hook(name, dict, kwargs, &mut report).await {
            Some(_) => Ok(()),
            None => Err(stopped(report)),
        }
    }

    async fn send_event(
        &self,
        event: EventType,
        dict: &mut JsonObject,
        context: &ToolExecutionContext,
    ) -> Result<(), SinkError> {
        let mut report = super::MessageOutcome::default();
        match self.message_event(event, dict, context, &mut report).await {
            false => Ok(()),
            true => Err(stopped(report)),
        }
    }
}

fn stopped(report: super::MessageOutcome) -> SinkError {
    match report.stopped {
        Some(stop) => SinkError::Stopped {
            by: stop.by,
            at: stop.at,
        },
        None => SinkError::Stopped {
            by: String::new(),
            at: String::new(),
        },
    }
}

/// An outgoing message as a MaiBot message dict, the bot its sender.
fn outgoing_dict(message: &OutgoingMessage, chat: &ToolExecutionContext) -> JsonObject {
    let mut raw = Vec::new();
    if !message.text.is_empty() {
        raw.push(json!({ "type": "text", "data": message.text }));
    }
    for _ in &message.images {
        raw.push(json!({ "type": "image", "data": "" }));
    }
    let dict = json!({
        "message_id": "",
        "timestamp": crate::builtin::store::now().to_string(),
        "platform": chat.platform,
        "message_info": {
            "user_info": {
                "user_id": format!("plugin:{}", message.plugin_id),
                "user_nickname": message.plugin_id,
                "user_cardname": null,
            },
            "group_info": (!chat.group_id.is_empty()).then(|| json!({ "group_id": chat.group_id })),
            "additional_config": {},
        },
        "raw_message": raw,
        "is_mentioned": false,
        "is_at": false,
        "is_emoji": message.kind == "emoji",
        "is_picture": message.kind == "image",
        "is_command": message.kind == "command",
        "is_notify": false,
        "session_id": message.stream_id,
        "reply_to": null,
        "processed_plain_text": message.text,
    });
    match dict {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// What one watch heard so far.
type Heard = Arc<Mutex<Vec<SentMessage>>>;

/// Who wants to hear of messages sent to a stream: the flows processing a message of it.
#[derive(Debug, Default)]
pub(super) struct SendWatchers {
    by_stream: Mutex<HashMap<String, Vec<Heard>>>,
}

impl SendWatchers {
    /// Starts collecting what is sent to `stream` until the returned watch is taken or
    /// dropped.
    pub(super) fn watch(self: &Arc<Self>, stream: &str) -> SendWatch {
        let heard = Arc::new(Mutex::new(Vec::new()));
        self.by_stream
            .lock()
            .entry(stream.to_owned())
            .or_default()
            .push(Arc::clone(&heard));
        SendWatch {
            watchers: Arc::clone(self),
            stream: stream.to_owned(),
            heard,
        }
    }

    fn heard(&self, stream: &str, message: SentMessage) {
        if let Some(list) = self.by_stream.lock().get(stream) {
            for heard in list {
                heard.lock().push(message.clone());
            }
        }
    }
}

/// A collection of sent messages in progress.
pub(super) struct SendWatch {
    watchers: Arc<SendWatchers>,
    stream: String,
    heard: Heard,
}

impl SendWatch {
    /// What was sent so far.
    pub(super) fn take(&self) -> Vec<SentMessage> {
        std::mem::take(&mut *self.heard.lock())
    }
}

impl Drop for SendWatch {
    fn drop(&mut self) {
        let mut by_stream = self.watchers.by_stream.lock();
        if let Some(list) = by_stream.get_mut(&self.stream) {
            list.retain(|heard| !Arc::ptr_eq(heard, &self.heard));
            if list.is_empty() {
                by_stream.remove(&self.stream);
            }
        }
    }
}
