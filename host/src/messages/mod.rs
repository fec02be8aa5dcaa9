//! The message flow: how the host learns of a chat message and what plugins do with it.
//!
//! One entry point, [`MessageFlow::receive`], for every source: the embedding engine (this
//! API), the control socket (`maitool message`) and the runners (a plugin's receiving message
//! gateway, `host.route_message`, its MaiBot message dict read by `inbound.rs`). A message
//! goes through the
//! stages of MaiBot's receive path, in its order:
//!
//! 1. checked ([`ChatMessage`]: a stream, a sender, text or an image; a stream the store does
//!    not know needs the platform; an id already stored is refused) and its stream opened;
//! 2. hook `chat.receive.before_process` (may change or drop the message);
//! 3. event `on_message_pre_process` (handlers may change or stop it);
//! 4. hook `chat.receive.after_process` (may change or drop it);
//! 5. stored in the built-in store's history, with its text as changed so far, so
//!    `message.*`, `fetch_history` and the built-in tools see it, and what the command and
//!    the handlers send comes after it;
//! 6. the command its text calls (hooks around it, `plugin.invoke_command`);
//!    a command that intercepts ends the flow;
//! 7. event `on_message` (handlers may stop the message from going further, and change it).
//!
//! A message stopped at 2, 3 or 4 is not stored (a filter keeps it out of history); later
//! stages see a stored message, and what they change is in the outcome's text, not in the
//! history. The [`MessageOutcome`] says what happened at each stage. What
//! plugins send while the message is processed goes through [`SendEvents`], the send-side
//! events and hooks, and is listed in the outcome.
//!
//! Events the host has no place for (`on_plan`, `post_llm`, ...) are the engine's to emit
//! with [`MessageFlow::emit_event`]. Named hooks run through the [`MessageHooks`] the hook
//! dispatcher installs ([`MessageFlow::set_hooks`]).
//!
//! ```no_run
//! # async fn demo(host: &maitool_host::Host) -> Result<(), maitool_host::messages::MessageError> {
//! use maitool_host::messages::ChatMessage;
//!
//! let message = ChatMessage::new("qq-group-42", "u7", "/weather Paris")
//!     .in_group("42")
//!     .on_platform("qq")
//!     .from_user_named("Alice");
//! let outcome = host.messages().receive(message).await?;
//! if let Some(command) = &outcome.command {
//!     println!("{} answered {:?}", command.full_name, command.reply);
//! }
//! for sent in &outcome.sent {
//!     println!("{} said {}", sent.plugin_id, sent.text);
//! }
//! # Ok(())
//! # }
//! ```

mod commands;
mod dict;
mod error;
mod events;
mod hook_bridge;
mod hooks;
mod inbound;
mod incoming;
mod outcome;
mod permission;
mod send_events;

use std::sync::Arc;
use std::time::Duration;

use maitool_protocol::wire::message_flow::EventType;
use maitool_protocol::{JsonObject, ToolExecutionContext};
use parking_lot::RwLock;
use serde_json::Value;

pub use error::MessageError;
pub use events::EventEmission;
pub use hook_bridge::InvokerHooks;
pub use hooks::{HookOutcome, MessageHooks, NoHooks, names as hook_names};
pub use incoming::ChatMessage;
pub use outcome::{CommandRun, HandlerRun, HookRun, MessageOutcome, SentMessage, Stop};
pub use send_events::SendEvents;

use self::commands::CommandEffect;
use self::events::EventDispatcher;
use self::send_events::SendWatchers;
use crate::builtin::Store;
use crate::builtin::engine::{NewMessage, StreamInfo};
use crate::plugin::{ChatView, PluginRuntime};

/// The message flow of a host: see the [module documentation](self).
pub struct MessageFlow {
    plugins: Arc<PluginRuntime>,
    store: Option<Store>,
    hooks: RwLock<Arc<dyn MessageHooks>>,
    events: EventDispatcher,
    sent: Arc<SendWatchers>,
    /// What takes the messages plugins route (the runtime holds it weakly).
    inbound: parking_lot::Mutex<Option<Arc<inbound::Inbound>>>,
}

impl std::fmt::Debug for MessageFlow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageFlow")
            .field("store", &self.store.is_some())
            .finish_non_exhaustive()
    }
}

impl MessageFlow {
    /// The flow over `plugins`, storing into `store` (none: messages are not stored), with
    /// the send side `sends` (the sink wrapper the capability service delivers through; it
    /// runs the send events of this flow from now on). Messages plugins route
    /// (`host.route_message`) come through it too.
    pub fn new(
        plugins: Arc<PluginRuntime>,
        store: Option<Store>,
        sends: &Arc<SendEvents>,
    ) -> Arc<MessageFlow> {
        let flow = Arc::new(MessageFlow {
            events: EventDispatcher {
                plugins: Arc::clone(&plugins),
                background: Default::default(),
            },
            plugins,
            store,
            hooks: RwLock::new(Arc::new(NoHooks)),
            sent: sends.watchers(),
            inbound: parking_lot::Mutex::new(None),
        });
        sends.attach(&flow);
        flow.take_routed_messages();
        flow
    }

    /// Installs what runs the named hooks of the flow (see [`MessageHooks`]).
    pub fn set_hooks(&self, hooks: Arc<dyn MessageHooks>) {
        *self.hooks.write() = hooks;
    }

    /// Takes a chat message through the flow; what happened to it. Refused before anything
    /// runs, with nothing stored, when it is malformed ([`MessageError`]).
    pub async fn receive(&self, message: ChatMessage) -> Result<MessageOutcome, MessageError> {
        let (mut message, stream, message_id, time) = self.admit(message).await?;
        let context = ToolExecutionContext {
            session_id: message.stream_id.clone(),
            stream_id: message.stream_id.clone(),
            is_group_chat: Some(message.is_group()),
            group_id: message.group_id.clone(),
            user_id: message.user_id.clone(),
            platform: message.platform.clone(),
            ..ToolExecutionContext::default()
        };
        let mut outcome = MessageOutcome {
            message_id: message_id.clone(),
            stream_id: message.stream_id.clone(),
            ..MessageOutcome::default()
        };
        let watch = self.sent.watch(&message.stream_id);
        let mut dict = dict::render(&message, &message_id, time, &stream, true);

        if self
            .admission_stages(&mut dict, &context, &mut outcome)
            .await
        {
            outcome.text = dict::text_of(&dict).unwrap_or(message.text);
            outcome.not_stored_because = Some(match &outcome.stopped {
                Some(stop) => format!("stopped by {} at {}", stop.by, stop.at),
                None => "stopped".to_owned(),
            });
            outcome.sent = watch.take();
            return Ok(outcome);
        }
        if let Some(text) = dict::text_of(&dict) {
            message.text = text;
        }
        // Stored before the command runs: what the command and the handlers send comes after
        // it in the history, as it happened (MaiBot stores a command's message after the
        // command, below its own reply).
        self.store_message(message, message_id, time, &mut outcome)
            .await;
        self.command_and_on_message(&mut dict, &context, &mut outcome)
            .await;
        outcome.text = dict::text_of(&dict).unwrap_or_default();
        outcome.sent = watch.take();
        Ok(outcome)
    }

    /// Stages 2 to 4; true when the message was dropped (not to be stored).
    async fn admission_stages(
        &self,
        dict: &mut JsonObject,
        context: &ToolExecutionContext,
        outcome: &mut MessageOutcome,
    ) -> bool {
        if self
            .hook(
                hooks::names::RECEIVE_BEFORE_PROCESS,
                dict,
                JsonObject::new(),
                outcome,
            )
            .await
            .is_none()
        {
            return true;
        }
        if self
            .message_event(EventType::OnMessagePreProcess, dict, context, outcome)
            .await
        {
            return true;
        }
        self.hook(
            hooks::names::RECEIVE_AFTER_PROCESS,
            dict,
            JsonObject::new(),
            outcome,
        )
        .await
        .is_none()
    }

    /// Stages 6 and 7: the command the text calls, then, unless it intercepted, `on_message`.
    async fn command_and_on_message(
        &self,
        dict: &mut JsonObject,
        context: &ToolExecutionContext,
        outcome: &mut MessageOutcome,
    ) {
        let text = dict::text_of(dict).unwrap_or_default();
        if !text.trim().is_empty() {
            let hit =
                self.plugins
                    .components()
                    .match_command(&text, ChatView::from(context), |plugin| {
                        self.plugins.is_routable(plugin)
                    });
            if let Some((entry, hit)) = hit {
                let full_name = entry.full_name.clone();
                if let CommandEffect::Intercepted =
                    self.run_command(entry, hit, dict, context, outcome).await
                {
                    if outcome.stopped.is_none() {
                        outcome.stopped = Some(Stop {
                            at: "command".to_owned(),
                            by: full_name,
                        });
                    }
                    return;
                }
            }
        }
        self.message_event(EventType::OnMessage, dict, context, outcome)
            .await;
    }

    /// Runs a message event's handlers on `dict`; true when one stopped the message.
    async fn message_event(
        &self,
        event: EventType,
        dict: &mut JsonObject,
        context: &ToolExecutionContext,
        outcome: &mut MessageOutcome,
    ) -> bool {
        let emission = self
            .events
            .emit(&event, Some(dict.clone()), JsonObject::new(), context)
            .await;
        outcome.handlers.extend(emission.handlers);
        if let Some(changed) = emission.message {
            *dict = changed;
        }
        match emission.stopped_by {
            Some(by) => {
                outcome.stopped = Some(Stop {
                    at: event.to_string(),
                    by,
                });
                true
            }
            None => false,
        }
    }

    /// Runs hook `name` with the message and `kwargs`; the kwargs the hooks handed back
    /// (without the message, which replaces `dict`), or `None` when one aborted.
    async fn hook(
        &self,
        name: &str,
        dict: &mut JsonObject,
        mut kwargs: JsonObject,
        outcome: &mut MessageOutcome,
    ) -> Option<JsonObject> {
        kwargs.insert("message".into(), Value::Object(dict.clone()));
        let hooks = Arc::clone(&*self.hooks.read());
        let mut result = hooks.run(name, kwargs).await;
        let before = dict::text_of(dict);
        if let Some(Value::Object(changed)) = result.kwargs.remove("message") {
            *dict = changed;
        }
        let modified = dict::text_of(dict) != before;
        if result.aborted_by.is_some() || modified || !result.errors.is_empty() {
            outcome.hooks.push(HookRun {
                hook: name.to_owned(),
                aborted_by: result.aborted_by.clone(),
                modified,
                errors: result.errors,
            });
        }
        match result.aborted_by {
            Some(by) => {
                outcome.stopped = Some(Stop {
                    at: name.to_owned(),
                    by,
                });
                None
            }
            None => Some(result.kwargs),
        }
    }

    /// Emits `event` about `message` (a MaiBot message dict, if the event is about one),
    /// with `extra` keyword arguments, to the handlers enabled in the chat of `context`:
    /// for the events the host does not fire itself (`on_plan`, `post_llm`, `after_llm`,
    /// `on_start`, `on_stop`, an engine's own names), at the engine's own points. The
    /// handlers declared `intercept_message` are waited for and may change or stop it.
    pub async fn emit_event(
        &self,
        event: EventType,
        message: Option<JsonObject>,
        extra: JsonObject,
        context: &ToolExecutionContext,
    ) -> EventEmission {
        self.events.emit(&event, message, extra, context).await
    }

    /// Waits up to `limit` for the event handlers started without waiting (a one-shot host
    /// does before it stops, so that they finish).
    pub async fn settle(&self, limit: Duration) {
        self.events.settle(limit).await
    }

    /// Checks a message, fills what its stream already knows, and opens its stream; the
    /// message, its stream, its id and its time.
    async fn admit(
        &self,
        mut message: ChatMessage,
    ) -> Result<(ChatMessage, StreamInfo, String, f64), MessageError> {
        message.stream_id = message.stream_id.trim().to_owned();
        message.user_id = message.user_id.trim().to_owned();
        message.group_id = message.group_id.trim().to_owned();
        message.platform = message.platform.trim().to_owned();
        if message.stream_id.is_empty() {
            return Err(MessageError::NoStream);
        }
        if message.user_id.is_empty() {
            return Err(MessageError::NoUser);
        }
        if message.text.trim().is_empty() && message.images.is_empty() {
            return Err(MessageError::Empty);
        }
        let time = message.time.unwrap_or_else(crate::builtin::store::now);
        let message_id = match message.message_id.trim() {
            "" => fresh_message_id(),
            given => given.to_owned(),
        };
        let Some(store) = &self.store else {
            return Ok((message.clone(), message.new_stream(), message_id, time));
        };
        if !message.message_id.trim().is_empty()
            && store
                .message(&message_id)
                .await
                .map_err(MessageError::Store)?
                .is_some()
        {
            return Err(MessageError::Duplicate(message_id));
        }
        let known = store
            .stream(&message.stream_id)
            .await
            .map_err(MessageError::Store)?
            .filter(|known| !known.platform.is_empty() || known.chat_type.is_some());
        let stream = match known {
            Some(known) => {
                reconcile(&mut message, &known)?;
                known
            }
            None if message.platform.is_empty() => {
                return Err(MessageError::UnknownStream(message.stream_id));
            }
            None => {
                let stream = message.new_stream();
                store
                    .upsert_stream(stream.clone())
                    .await
                    .map_err(MessageError::Store)?;
                stream
            }
        };
        Ok((message, stream, message_id, time))
    }

    /// Stage 5: the message into the store's history.
    async fn store_message(
        &self,
        message: ChatMessage,
        message_id: String,
        time: f64,
        outcome: &mut MessageOutcome,
    ) {
        let Some(store) = &self.store else {
            outcome.not_stored_because =
                Some("the host has no chat store ([host] enable_builtin = false)".to_owned());
            return;
        };
        let stored = store
            .append_message(NewMessage {
                message_id,
                stream_id: message.stream_id.clone(),
                sender_name: message.sender_name().to_owned(),
                sender_id: message.user_id,
                is_bot: false,
                text: message.text,
                reply_to: message.reply_to,
                mentions: message.mentions,
                images: message.images,
                forward: Vec::new(),
                time: Some(time),
            })
            .await;
        match stored {
            Ok(_) => outcome.stored = true,
            Err(err) => {
                let why = crate::error_text::chain(&err);
                tracing::error!(stream_id = %outcome.stream_id, "a received message was not stored: {why}");
                outcome.not_stored_because = Some(format!("the store failed: {why}"));
            }
        }
    }
}

/// Fills what the message left out from its known stream; refuses a contradiction.
fn reconcile(message: &mut ChatMessage, known: &StreamInfo) -> Result<(), MessageError> {
    use crate::builtin::engine::ChatType;
    let mismatch = |known: String, given: String| MessageError::StreamMismatch {
        stream_id: message.stream_id.clone(),
        known,
        given,
    };
    if !known.platform.is_empty() {
        if !message.platform.is_empty() && message.platform != known.platform {
            return Err(mismatch(
                format!("on platform {}", known.platform),
                format!("platform {}", message.platform),
            ));
        }
        message.platform = known.platform.clone();
    }
    match known.chat_type {
        Some(ChatType::Group) => {
            if message.group_id.is_empty() {
                message.group_id = known.target_id.clone();
            } else if message.group_id != known.target_id {
                return Err(mismatch(
                    format!("the chat of group {}", known.target_id),
                    format!("group {}", message.group_id),
                ));
            }
        }
        Some(ChatType::Private) if !message.group_id.is_empty() => {
            return Err(mismatch(
                "a private chat".to_owned(),
                format!("group {}", message.group_id),
            ));
        }
        _ => {}
    }
    Ok(())
}

/// A fresh id for a message its sender gave none.
fn fresh_message_id() -> String {
    let mut bytes = [0u8; 8];
    // A failing OS generator is exceptional; the clock still makes the id unique enough.
    if getrandom::fill(&mut bytes).is_err() {
        bytes = crate::builtin::store::now().to_bits().to_le_bytes();
    }
    format!("in-{:016x}", u64::from_le_bytes(bytes))
}

#[cfg(test)]
mod tests;
