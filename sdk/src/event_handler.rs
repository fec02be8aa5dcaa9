//! Event handlers: what a plugin does at the events of MaiBot's event system, as MaiBot's
//! `@EventHandler`.
//!
//! The host fires `on_message_pre_process` and `on_message` for every chat message it
//! receives, `post_send_pre_process`, `post_send` and `after_send` for every message a plugin
//! sends, `on_start` and `on_stop` when `maitool serve` starts and stops; an engine emits the
//! others. Handlers run highest [`weight`](EventHandler::weight) first. A handler declared
//! [`intercept_message`](EventHandler::intercept_message) is waited for and may change the
//! message or stop it; the others run without anyone waiting, after those, with the final
//! message.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::wire::message_flow::{EventArgs, EventResultPayload, EventType};
use maitool_protocol::wire::methods::ComponentDeclaration;
use maitool_protocol::{ChatScope, JsonObject};
use maitool_runner::InvocationContext;
use serde_json::Value;

use crate::config::ConfigSlot;
use crate::{HostClient, Kv, PluginConfig, Sender, ToolError};

/// What an event handler receives: the event, the message it is about (if any), and the host.
#[derive(Clone)]
pub struct Event {
    args: EventArgs,
    invocation: InvocationContext,
    config: Arc<ConfigSlot>,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("event_type", &self.args.event_type)
            .field("message", &self.args.message)
            .finish_non_exhaustive()
    }
}

impl Event {
    /// The event.
    pub fn event_type(&self) -> &EventType {
        &self.args.event_type
    }

    /// The message the event is about, as MaiBot's message dict; `None` for events about
    /// none (`on_start`).
    pub fn message(&self) -> Option<&JsonObject> {
        self.args.message.as_ref()
    }

    /// The message's text (`processed_plain_text`), if the event is about a message.
    pub fn text(&self) -> Option<&str> {
        self.message()?
            .get("processed_plain_text")
            .and_then(Value::as_str)
    }

    /// The sender's user id, if the event is about a message.
    pub fn sender_id(&self) -> Option<&str> {
        self.message()?
            .get("message_info")?
            .get("user_info")?
            .get("user_id")?
            .as_str()
    }

    /// The message with its text replaced by `text` (plain text and text segments): what
    /// [`EventOutput::modified`] takes to change the message. `None` for events about none.
    pub fn message_with_text(&self, text: impl Into<String>) -> Option<JsonObject> {
        let text: String = text.into();
        let mut message = self.message()?.clone();
        message.insert("processed_plain_text".into(), text.clone().into());
        let mut segments: Vec<Value> = match message.remove("raw_message") {
            Some(Value::Array(segments)) => segments
                .into_iter()
                .filter(|s| s.get("type").and_then(Value::as_str) != Some("text"))
                .collect(),
            _ => Vec::new(),
        };
        segments.insert(0, serde_json::json!({ "type": "text", "data": text }));
        message.insert("raw_message".into(), Value::Array(segments));
        Some(message)
    }

    /// Further keyword arguments the emitter passed.
    pub fn extra(&self) -> &JsonObject {
        &self.args.extra
    }

    /// The chat stream of the event, when the host gave one.
    pub fn stream_id(&self) -> &str {
        &self.invocation.execution.stream_id
    }

    /// The plugin's typed configuration.
    pub fn config<C: PluginConfig>(&self) -> Option<Arc<C>> {
        self.config.get::<C>()
    }

    /// The client for host capabilities.
    pub fn host(&self) -> HostClient {
        HostClient::new(self.invocation.host.clone())
    }

    /// Messages to the event's chat stream (`send.*` capabilities).
    pub fn send(&self) -> Sender<'_> {
        Sender::new(self.host(), self.stream_id())
    }

    /// This plugin's key-value store on the host (`kv.*` capabilities).
    pub fn kv(&self) -> Kv {
        self.host().kv()
    }
}

/// What an event handler answers: whether the message goes on, the message changed, and any
/// other result. Only a handler declared [`EventHandler::intercept_message`] is waited for,
/// so only its answer can stop or change the message.
///
/// ```
/// use maitool_sdk::EventOutput;
///
/// let go_on = EventOutput::proceed();
/// let stop = EventOutput::stop().with_custom_result(maitool_sdk::json!({"reason": "spam"}));
/// # let _ = (go_on, stop);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct EventOutput {
    answer: EventResultPayload,
}

impl EventOutput {
    /// The message goes on unchanged.
    pub fn proceed() -> Self {
        EventOutput {
            answer: EventResultPayload::default(),
        }
    }

    /// The message stops here.
    pub fn stop() -> Self {
        EventOutput {
            answer: EventResultPayload {
                continue_processing: false,
                ..EventResultPayload::default()
            },
        }
    }

    /// The message goes on as `message` (a whole message dict, e.g. from
    /// [`Event::message_with_text`]); `None` leaves it unchanged.
    pub fn modified(message: Option<JsonObject>) -> Self {
        EventOutput {
            answer: EventResultPayload {
                modified_message: message,
                ..EventResultPayload::default()
            },
        }
    }

    /// Adds a result for whoever emitted the event (`custom_result`).
    pub fn with_custom_result(mut self, value: Value) -> Self {
        self.answer.custom_result = Some(value);
        self
    }
}

type ErasedHandle =
    dyn Fn(Event) -> BoxFuture<'static, Result<EventOutput, ToolError>> + Send + Sync;

/// An event handler: runs at every event of its type.
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// let no_spam = EventHandler::new("no_spam", EventType::OnMessagePreProcess, |event: Event| async move {
///     if event.text().is_some_and(|text| text.contains("buy now")) {
///         return Ok(EventOutput::stop());
///     }
///     Ok(EventOutput::proceed())
/// })
/// .weight(100)
/// .intercept_message();
/// let plugin = Plugin::new("examples.filter", "1.0.0").event_handler(no_spam);
/// # let _ = plugin;
/// ```
pub struct EventHandler {
    pub(crate) name: String,
    description: String,
    event_type: EventType,
    weight: i64,
    intercept_message: bool,
    chat_scope: ChatScope,
    allowed_sessions: Vec<String>,
    enabled: bool,
    timeout: Option<Duration>,
    handle: Arc<ErasedHandle>,
}

impl std::fmt::Debug for EventHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventHandler")
            .field("name", &self.name)
            .field("event_type", &self.event_type)
            .field("weight", &self.weight)
            .finish_non_exhaustive()
    }
}

impl EventHandler {
    /// A handler named `name` (unique in the plugin) of `event_type`, run by `handler`.
    pub fn new<F, Fut>(name: impl Into<String>, event_type: EventType, handler: F) -> Self
    where
        F: Fn(Event) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<EventOutput, ToolError>> + Send + 'static,
    {
        EventHandler {
            name: name.into(),
            description: String::new(),
            event_type,
            weight: 0,
            intercept_message: false,
            chat_scope: ChatScope::All,
            allowed_sessions: Vec::new(),
            enabled: true,
            timeout: None,
            handle: Arc::new(move |event| handler(event).boxed()),
        }
    }

    /// A description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Where the handler stands among the event's handlers: higher runs first (default 0).
    pub fn weight(mut self, weight: i64) -> Self {
        self.weight = weight;
        self
    }

    /// The host waits for the handler, in weight order, and its answer may change or stop
    /// the message (MaiBot's `intercept_message=True`). Otherwise the handler runs without
    /// anyone waiting, and its answer changes nothing.
    pub fn intercept_message(mut self) -> Self {
        self.intercept_message = true;
        self
    }

    /// In which chats the handler runs (default: all).
    pub fn chat_scope(mut self, scope: ChatScope) -> Self {
        self.chat_scope = scope;
        self
    }

    /// Runs only in these sessions (stream id, group id or `platform:group_id`).
    pub fn allowed_sessions<I, S>(mut self, sessions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_sessions = sessions.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the handler is enabled (default true).
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// How long the host waits for the handler (default: the host's component timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    pub(crate) fn declaration(&self, plugin_id: &str) -> ComponentDeclaration {
        let mut metadata = JsonObject::new();
        metadata.insert("description".into(), self.description.clone().into());
        metadata.insert(
            "event_type".into(),
            self.event_type.as_str().to_owned().into(),
        );
        metadata.insert("weight".into(), self.weight.into());
        metadata.insert("intercept_message".into(), self.intercept_message.into());
        metadata.insert("enabled".into(), self.enabled.into());
        metadata.insert("handler_name".into(), self.name.clone().into());
        if let Some(timeout) = self.timeout {
            metadata.insert("timeout_ms".into(), (timeout.as_millis() as u64).into());
        }
        ComponentDeclaration {
            name: self.name.clone(),
            component_type: "EVENT_HANDLER".into(),
            plugin_id: plugin_id.to_owned(),
            chat_scope: self.chat_scope.as_str().into(),
            allowed_session: self.allowed_sessions.clone(),
            metadata,
        }
    }

    pub(crate) fn into_handler(
        self,
        config: Arc<ConfigSlot>,
    ) -> Arc<dyn maitool_runner::EventHandler> {
        Arc::new(HandleEvent {
            handle: self.handle,
            config,
        })
    }
}

struct HandleEvent {
    handle: Arc<ErasedHandle>,
    config: Arc<ConfigSlot>,
}

impl maitool_runner::EventHandler for HandleEvent {
    fn call(
        &self,
        args: EventArgs,
        ctx: InvocationContext,
    ) -> BoxFuture<'static, Result<EventResultPayload, String>> {
        let event = Event {
            args,
            invocation: ctx,
            config: self.config.clone(),
        };
        (self.handle)(event)
            .map(|outcome| match outcome {
                Ok(output) => Ok(output.answer),
                Err(err) => Err(err.message().to_owned()),
            })
            .boxed()
    }
}

#[cfg(test)]
mod tests;
