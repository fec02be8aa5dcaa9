//! The runner's answers to `plugin.invoke_command` and `plugin.emit_event`: the plugin's
//! command or event handler, run with the plugin's log tag, its panics caught, answered in
//! the shapes MaiBot's runner answers with.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::ToolExecutionContext;
use maitool_protocol::rpc::{IncomingMessage, Payload, RpcError};
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::wire::message_flow::{CommandArgs, EventArgs, EventResultPayload};
use maitool_protocol::wire::methods::{InvokePayload, InvokeResultPayload};
use serde_json::Value;

use super::requests::InFlightGuard;
use super::{LoadedPlugin, RunnerState, panic_message};
use crate::{CommandHandler, EventHandler, Handler, HostClient, InvocationContext, PluginSpec};

/// A plugin's commands and event handlers by name.
#[derive(Default)]
pub(super) struct MessageHandlers {
    commands: foldhash::HashMap<String, Arc<dyn CommandHandler>>,
    events: foldhash::HashMap<String, Arc<dyn EventHandler>>,
}

impl MessageHandlers {
    pub(super) fn of(spec: &PluginSpec) -> Self {
        let mut handlers = MessageHandlers::default();
        for component in &spec.components {
            let name = component.declaration.name.clone();
            match &component.handler {
                Handler::Command(command) => {
                    handlers.commands.insert(name, command.clone());
                }
                Handler::Event(event) => {
                    handlers.events.insert(name, event.clone());
                }
                Handler::Tool(_) | Handler::None => {}
            }
        }
        handlers
    }
}

impl RunnerState {
    /// The loaded plugin a request is for, and the invocation it carries; refused while the
    /// runner drains.
    fn target(
        &self,
        request: &IncomingMessage,
    ) -> Result<(&LoadedPlugin, InvokePayload), RpcError> {
        if self.draining.load(Ordering::Acquire) {
            return Err(RpcError::shutting_down("runner is shutting down"));
        }
        let plugin = self
            .plugin(request.plugin_id())
            .filter(|p| p.loaded.load(Ordering::Acquire))
            .ok_or_else(|| {
                RpcError::new(
                    ErrorCode::PluginNotFound,
                    format!("plugin {} is not loaded", request.plugin_id()),
                )
            })?;
        Ok((plugin, request.payload()?))
    }

    fn context(
        &self,
        plugin: &LoadedPlugin,
        component: &str,
        execution: ToolExecutionContext,
    ) -> InvocationContext {
        InvocationContext {
            host: HostClient::new(self.peer().clone(), Arc::clone(&plugin.tag)),
            plugin_id: Arc::clone(&plugin.tag),
            component_name: Arc::from(component),
            call_id: String::new(),
            execution,
            data_dir: plugin.data_dir.get().cloned(),
            chat_id_argument: None,
        }
    }

    pub(super) fn invoke_command(
        self: &Arc<Self>,
        request: IncomingMessage,
    ) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = self.clone();
        async move {
            let (plugin, invoke) = state.target(&request)?;
            let name = invoke.component_name;
            let handler = plugin
                .message_handlers
                .commands
                .get(&name)
                .cloned()
                .ok_or_else(|| no_component(&plugin.spec.id, "command", &name))?;
            let args: CommandArgs = serde_json::from_value(Value::Object(invoke.args))
                .map_err(|err| RpcError::bad_payload(format!("command {name}: {err}")))?;
            let execution = invoke.context.unwrap_or_else(|| ToolExecutionContext {
                session_id: args.stream_id.clone(),
                stream_id: args.stream_id.clone(),
                group_id: args.group_id.clone(),
                user_id: args.user_id.clone(),
                platform: args.platform.clone(),
                is_group_chat: Some(!args.group_id.is_empty()),
                ..ToolExecutionContext::default()
            });
            let ctx = state.context(plugin, &name, execution);
            state.in_flight.fetch_add(1, Ordering::Relaxed);
            let _guard = InFlightGuard(&state.in_flight);
            let run = crate::log_forward::in_plugin(plugin.tag.clone(), handler.call(args, ctx));
            let answer = match std::panic::AssertUnwindSafe(run).catch_unwind().await {
                Ok(Ok(reply)) => reply.into_answer(),
                // MaiBot's runner answers a raised command so: not an error envelope.
                Ok(Err(message)) => failed_command(message),
                Err(panic) => failed_command(format!(
                    "command {name} panicked: {}",
                    panic_message(panic.as_ref())
                )),
            };
            Payload::encode(&answer)
        }
        .boxed()
    }

    pub(super) fn emit_event(
        self: &Arc<Self>,
        request: IncomingMessage,
    ) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = self.clone();
        async move {
            let (plugin, invoke) = state.target(&request)?;
            let name = invoke.component_name;
            let handler = plugin
                .message_handlers
                .events
                .get(&name)
                .cloned()
                .ok_or_else(|| no_component(&plugin.spec.id, "event handler", &name))?;
            let args: EventArgs = serde_json::from_value(Value::Object(invoke.args))
                .map_err(|err| RpcError::bad_payload(format!("event handler {name}: {err}")))?;
            let execution = invoke.context.unwrap_or_default();
            let ctx = state.context(plugin, &name, execution);
            state.in_flight.fetch_add(1, Ordering::Relaxed);
            let _guard = InFlightGuard(&state.in_flight);
            let run = crate::log_forward::in_plugin(plugin.tag.clone(), handler.call(args, ctx));
            let answer = match std::panic::AssertUnwindSafe(run).catch_unwind().await {
                Ok(Ok(answer)) => answer,
                Ok(Err(message)) => {
                    tracing::error!(handler = %name, "event handler failed: {message}");
                    failed_event()
                }
                // The panic hook has logged it, with its location.
                Err(_) => failed_event(),
            };
            Payload::encode(&answer)
        }
        .boxed()
    }
}

fn no_component(plugin_id: &str, kind: &str, name: &str) -> RpcError {
    RpcError::new(
        ErrorCode::MethodNotAllowed,
        format!("plugin {plugin_id} has no {kind} {name}"),
    )
}

fn failed_command(message: String) -> InvokeResultPayload {
    InvokeResultPayload {
        success: false,
        result: Some(Value::String(message)),
        tool_result: None,
    }
}

/// A handler that failed lets the message go on, as MaiBot's runner answers.
fn failed_event() -> EventResultPayload {
    EventResultPayload {
        success: false,
        ..EventResultPayload::default()
    }
}
