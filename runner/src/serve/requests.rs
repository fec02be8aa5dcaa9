//! The runner's answers to the host's requests: invocations, health, configuration updates
//! and shutdown.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::rpc::{IncomingMessage, Payload, RequestHandler, RpcError, RpcPeer};
use maitool_protocol::wire::methods::{
    AckPayload, ConfigUpdatedPayload, ConfigUpdatedResponse, HealthPayload, ShutdownPayload, names,
};
use maitool_protocol::wire::{EncodedValue, ErrorCode};
use maitool_protocol::{NamedResult, ToolExecutionContext, ToolExecutionResult};

use super::RunnerState;

/// The conversation context of a call, and the `chat_id` argument if the host sent one. The
/// host's own context is taken as is (moved, not copied: this runs for every call); a
/// MaiBot-style host sends the values as arguments only.
pub(super) fn execution_context(
    args: &EncodedValue,
    context: Option<ToolExecutionContext>,
) -> (ToolExecutionContext, Option<String>) {
    let arg = |key: &str| args.str_entry(key).unwrap_or_default().to_owned();
    let execution = context.unwrap_or_else(|| ToolExecutionContext {
        stream_id: arg("stream_id"),
        group_id: arg("group_id"),
        user_id: arg("user_id"),
        platform: arg("platform"),
        reasoning: arg("reasoning"),
        ..ToolExecutionContext::default()
    });
    let chat_id = args
        .str_entry("chat_id")
        .filter(|id| !id.is_empty())
        .map(str::to_owned);
    (execution, chat_id)
}

/// The answer to an invocation of `tool_name`: `result`, under the tool's name if the handler
/// left it unnamed (the name is shared, not copied into every result).
pub(super) fn answer(tool_name: &str, result: &ToolExecutionResult) -> Result<Payload, RpcError> {
    let tool_result = NamedResult { tool_name, result };
    Payload::encode(&ToolAnswer {
        success: result.success,
        tool_result,
    })
}

/// An [`InvokeResultPayload`](maitool_protocol::wire::methods::InvokeResultPayload) with a
/// `tool_result`, by reference: the same map on the wire.
#[derive(serde::Serialize)]
struct ToolAnswer<'a> {
    success: bool,
    tool_result: NamedResult<'a>,
}

pub(super) struct InFlightGuard<'a>(pub(super) &'a AtomicU64);

impl Drop for InFlightGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl RunnerState {
    pub(super) fn peer(&self) -> &RpcPeer {
        // Set right after the peer starts, before any request can be dispatched to us.
        self.peer
            .get()
            .expect("peer is set before requests are served")
    }

    fn health(&self) -> Result<Payload, RpcError> {
        Payload::encode(&HealthPayload {
            healthy: true,
            loaded_plugins: self.loaded_ids.lock().clone(),
            uptime_ms: self.started.elapsed().as_millis() as u64,
            in_flight: self.in_flight.load(Ordering::Relaxed),
        })
    }

    fn prepare_shutdown(&self) -> Result<Payload, RpcError> {
        self.draining.store(true, Ordering::Release);
        Payload::encode(&AckPayload {
            acknowledged: true,
            in_flight: self.in_flight.load(Ordering::Relaxed),
        })
    }

    fn shutdown(
        self: &Arc<Self>,
        request: IncomingMessage,
    ) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = self.clone();
        async move {
            let payload: ShutdownPayload = request.payload().unwrap_or_default();
            state.draining.store(true, Ordering::Release);
            let drain = Duration::from_millis(payload.drain_timeout_ms.max(1));
            let deadline = Instant::now() + drain;
            while state.in_flight.load(Ordering::Relaxed) > 0 && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            state.unload_all().await;
            let ack = AckPayload {
                acknowledged: true,
                in_flight: state.in_flight.load(Ordering::Relaxed),
            };
            // Stop after the acknowledgement has been queued.
            let stopper = state.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                stopper.stop.notify_one();
            });
            Payload::encode(&ack)
        }
        .boxed()
    }

    fn config_updated(
        self: &Arc<Self>,
        request: IncomingMessage,
    ) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = self.clone();
        async move {
            let update: ConfigUpdatedPayload = request.payload()?;
            let plugin_id = if update.plugin_id.is_empty() {
                request.plugin_id().to_owned()
            } else {
                update.plugin_id.clone()
            };
            let Some(plugin) = state.plugin(&plugin_id) else {
                return Err(RpcError::new(
                    ErrorCode::PluginNotFound,
                    format!("plugin {plugin_id} is not in this runner"),
                ));
            };
            let hooks = plugin.spec.hooks.clone();
            let tag = plugin.tag.clone();
            let own_config = update.config_scope == "self" || update.config_scope.is_empty();
            if own_config
                && let Err(problem) = crate::log_forward::in_plugin_sync(tag.clone(), || {
                    hooks.configure(&update.config_data)
                })
            {
                // The plugin keeps what it ran with; the host pauses its tools until a valid
                // configuration arrives.
                return Payload::encode(&ConfigUpdatedResponse {
                    accepted: false,
                    reason: format!("invalid configuration: {problem}"),
                    config_error: problem,
                    ..ConfigUpdatedResponse::default()
                });
            }
            if own_config && plugin.awaiting_config.lock().is_some() {
                // Its first valid configuration: the load its invalid one held back.
                let data_dir = plugin.data_dir.get().cloned();
                let outcome = super::load::activate(plugin, state.peer(), data_dir).await;
                let response = match outcome {
                    Ok(()) => {
                        *plugin.awaiting_config.lock() = None;
                        plugin.loaded.store(true, Ordering::Release);
                        tracing::info!(plugin_id = %plugin_id, "valid configuration received; the plugin is loaded");
                        ConfigUpdatedResponse {
                            accepted: true,
                            ..ConfigUpdatedResponse::default()
                        }
                    }
                    Err(reason) => ConfigUpdatedResponse {
                        accepted: false,
                        reason: reason.to_string(),
                        ..ConfigUpdatedResponse::default()
                    },
                };
                return Payload::encode(&response);
            }
            let scope = if update.config_scope.is_empty() {
                "self".to_owned()
            } else {
                update.config_scope
            };
            let outcome = crate::log_forward::in_plugin(
                tag,
                hooks.on_config_update(scope, update.config_data, update.config_version),
            )
            .await;
            let response = match outcome {
                Ok(()) => ConfigUpdatedResponse {
                    accepted: true,
                    reason: String::new(),
                    ..ConfigUpdatedResponse::default()
                },
                Err(reason) => ConfigUpdatedResponse {
                    accepted: false,
                    reason,
                    ..ConfigUpdatedResponse::default()
                },
            };
            Payload::encode(&response)
        }
        .boxed()
    }
}

/// The peer's request handler; a thin handle so handlers can own the state in their tasks.
pub(super) struct RunnerHandler(pub(super) Arc<RunnerState>);

impl RequestHandler for RunnerHandler {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = &self.0;
        match request.method() {
            names::INVOKE_TOOL | names::INVOKE_ACTION => state.invoke(request),
            names::INVOKE_HOOK => state.invoke_hook(request),
            names::INVOKE_API => state.invoke_api(request),
            names::INVOKE_COMMAND => state.invoke_command(request),
            names::EMIT_EVENT => state.emit_event(request),
            names::HEALTH => std::future::ready(state.health()).boxed(),
            names::PREPARE_SHUTDOWN => std::future::ready(state.prepare_shutdown()).boxed(),
            names::SHUTDOWN => state.shutdown(request),
            names::CONFIG_UPDATED => state.config_updated(request),
            other => std::future::ready(Err(RpcError::method_not_allowed(other))).boxed(),
        }
    }
}
