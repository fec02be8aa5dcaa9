//! Event dispatch with MaiBot's semantics: the handlers of an event, highest weight first.
//! Those declared `intercept_message` run one after the other, each seeing the message as
//! the previous one left it, and any of them may stop it; the others start afterwards, only
//! if the message went on, each with a copy of the final message, and nobody waits for them.
//!
//! A handler that fails (raises, crashes, times out) is logged and skipped: the message goes
//! on, as in MaiBot.

use std::sync::Arc;
use std::time::Duration;

use maitool_protocol::JsonObject;
use maitool_protocol::ToolExecutionContext;
use maitool_protocol::wire::message_flow::{EventArgs, EventResultPayload, EventType};
use maitool_protocol::wire::methods::{InvokePayload, names};
use serde::Serialize;

use super::outcome::HandlerRun;
use crate::plugin::{ChatView, ComponentEntry, PluginRuntime, Trigger};

/// What the handlers of one event did.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct EventEmission {
    /// False when a handler stopped the event (`continue_processing: false`).
    pub continued: bool,
    /// The handler that stopped it (`plugin_id.name`).
    pub stopped_by: Option<String>,
    /// The message as the waited-for handlers left it (`None` when the event carried none).
    pub message: Option<JsonObject>,
    /// Whether a handler changed the message.
    pub modified: bool,
    /// Every handler reached, in the order started: the waited-for ones with their answers,
    /// then the ones started without waiting.
    pub handlers: Vec<HandlerRun>,
}

/// Runs the handlers of events on their runners.
pub(super) struct EventDispatcher {
    pub(super) plugins: Arc<PluginRuntime>,
    /// Handlers started without waiting, reaped as they finish; `settle` waits for the rest.
    pub(super) background: parking_lot::Mutex<tokio::task::JoinSet<()>>,
}

impl EventDispatcher {
    /// Runs the handlers of `event` enabled in the chat of `context`, about `message`.
    pub(super) async fn emit(
        &self,
        event: &EventType,
        message: Option<JsonObject>,
        extra: JsonObject,
        context: &ToolExecutionContext,
    ) -> EventEmission {
        let handlers =
            self.plugins
                .components()
                .event_handlers(event, ChatView::from(context), |plugin| {
                    self.plugins.is_routable(plugin)
                });
        let mut emission = EventEmission {
            continued: true,
            message,
            ..EventEmission::default()
        };
        let (waited, others): (Vec<_>, Vec<_>) = handlers
            .into_iter()
            .partition(|entry| matches!(&entry.trigger, Trigger::Event(t) if t.intercept_message));
        for entry in waited {
            let args = EventArgs {
                event_type: event.clone(),
                message: emission.message.clone(),
                extra: extra.clone(),
            };
            let (run, answer) = call_handler(&self.plugins, &entry, args, context).await;
            let answer = answer.unwrap_or_default();
            emission.handlers.push(run);
            if !answer.continue_processing {
                emission.continued = false;
                emission.stopped_by = Some(entry.full_name.clone());
                return emission;
            }
            if let Some(changed) = answer.modified_message.filter(|m| !m.is_empty()) {
                emission.message = Some(changed);
                emission.modified = true;
            }
        }
        for entry in others {
            emission.handlers.push(HandlerRun {
                event: event.clone(),
                handler: entry.full_name.clone(),
                weight: weight(&entry),
                waited: false,
                success: None,
                continued: true,
                modified: false,
                custom_result: None,
                error: None,
            });
            let args = EventArgs {
                event_type: event.clone(),
                message: emission.message.clone(),
                extra: extra.clone(),
            };
            let plugins = Arc::clone(&self.plugins);
            let context = context.clone();
            let mut background = self.background.lock();
            while background.try_join_next().is_some() {}
            background.spawn(async move {
                let _ = call_handler(&plugins, &entry, args, &context).await;
            });
        }
        emission
    }

    /// Waits up to `limit` for the handlers started without waiting.
    pub(super) async fn settle(&self, limit: Duration) {
        let mut pending = std::mem::take(&mut *self.background.lock());
        let all = async { while pending.join_next().await.is_some() {} };
        if tokio::time::timeout(limit, all).await.is_err() {
            tracing::warn!(
                "event handlers still running after {} ms were abandoned",
                limit.as_millis()
            );
        }
    }
}

/// Calls one handler; its account, and its answer when it gave one.
async fn call_handler(
    plugins: &PluginRuntime,
    entry: &Arc<ComponentEntry>,
    args: EventArgs,
    context: &ToolExecutionContext,
) -> (HandlerRun, Option<EventResultPayload>) {
    let waited = matches!(&entry.trigger, Trigger::Event(t) if t.intercept_message);
    let event = args.event_type.clone();
    let payload = InvokePayload {
        component_name: entry.name.clone(),
        args: args.into_object(),
        context: Some(context.clone()),
        call_id: String::new(),
    };
    let timeout = Duration::from_millis(if entry.timeout_ms > 0 {
        entry.timeout_ms
    } else {
        plugins.default_component_timeout_ms()
    });
    let answer = plugins
        .call_component::<EventResultPayload>(
            &entry.plugin_id,
            names::EMIT_EVENT,
            &payload,
            timeout,
        )
        .await;
    let mut run = HandlerRun {
        event,
        handler: entry.full_name.clone(),
        weight: weight(entry),
        waited,
        success: None,
        continued: true,
        modified: false,
        custom_result: None,
        error: None,
    };
    match answer {
        Ok(answer) => {
            if !answer.success {
                tracing::warn!(handler = %entry.full_name, event = %run.event, "event handler failed; the message goes on");
            }
            run.success = Some(answer.success);
            run.continued = answer.continue_processing;
            run.modified = answer
                .modified_message
                .as_ref()
                .is_some_and(|m| !m.is_empty());
            run.custom_result = answer.custom_result.clone().filter(|v| !v.is_null());
            (run, Some(answer))
        }
        Err(err) => {
            let error = format!(
                "event handler {} of plugin {} {err}",
                entry.name, entry.plugin_id
            );
            tracing::warn!(handler = %entry.full_name, event = %run.event, "{error}; the message goes on");
            run.error = Some(error);
            (run, None)
        }
    }
}

fn weight(entry: &ComponentEntry) -> i64 {
    match &entry.trigger {
        Trigger::Event(trigger) => trigger.weight,
        _ => 0,
    }
}
