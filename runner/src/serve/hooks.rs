//! `plugin.invoke_hook`: one hook handler run with a hook's kwargs.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::ToolExecutionContext;
use maitool_protocol::hook::{HOOK_NAME_ARG, HookResponse};
use maitool_protocol::rpc::{IncomingMessage, Payload, RpcError};
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::wire::methods::InvokePayload;

use super::requests::InFlightGuard;
use super::{LoadedPlugin, RunnerState, panic_message};
use crate::{HostClient, InvocationContext};

impl RunnerState {
    /// The loaded plugin a request of the host is for.
    pub(super) fn loaded_plugin(
        &self,
        request: &IncomingMessage,
    ) -> Result<&LoadedPlugin, RpcError> {
        if self.draining.load(Ordering::Acquire) {
            return Err(RpcError::shutting_down("runner is shutting down"));
        }
        self.plugin(request.plugin_id())
            .filter(|p| p.loaded.load(Ordering::Acquire))
            .ok_or_else(|| {
                RpcError::new(
                    ErrorCode::PluginNotFound,
                    format!("plugin {} is not loaded", request.plugin_id()),
                )
            })
    }

    /// The context of a component call the host sent without one (hooks and APIs).
    pub(super) fn component_context(
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

    pub(super) fn invoke_hook(
        self: &Arc<Self>,
        request: IncomingMessage,
    ) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = self.clone();
        async move {
            let plugin = state.loaded_plugin(&request)?;
            let InvokePayload {
                component_name,
                mut args,
                ..
            } = request.payload()?;
            let Some(handler) = plugin.hook_handlers.get(component_name.as_str()).cloned() else {
                return Err(RpcError::new(
                    ErrorCode::ToolNotFound,
                    format!(
                        "plugin {} has no hook handler {component_name}",
                        plugin.spec.id
                    ),
                ));
            };
            let hook = match args.remove(HOOK_NAME_ARG) {
                Some(serde_json::Value::String(name)) => name,
                _ => String::new(),
            };
            // The session the kwargs are about, for handlers that read the context.
            let session = ["session_id", "stream_id"]
                .into_iter()
                .find_map(|key| args.get(key).and_then(|v| v.as_str()))
                .unwrap_or_default()
                .to_owned();
            let execution = ToolExecutionContext {
                session_id: session.clone(),
                stream_id: args
                    .get("stream_id")
                    .and_then(|v| v.as_str())
                    .unwrap_or(&session)
                    .to_owned(),
                ..ToolExecutionContext::default()
            };
            let ctx = state.component_context(plugin, &component_name, execution);
            state.in_flight.fetch_add(1, Ordering::Relaxed);
            let _guard = InFlightGuard(&state.in_flight);
            let call =
                crate::log_forward::in_plugin(plugin.tag.clone(), handler.call(hook, args, ctx));
            let response = match std::panic::AssertUnwindSafe(call).catch_unwind().await {
                Ok(response) => response,
                Err(panic) => HookResponse {
                    success: false,
                    error_message: format!(
                        "hook handler {component_name} panicked: {}",
                        panic_message(panic.as_ref())
                    ),
                    ..HookResponse::default()
                },
            };
            Payload::encode(&response)
        }
        .boxed()
    }
}
