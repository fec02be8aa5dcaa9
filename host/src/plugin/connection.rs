//! Serves a connected runner's requests: component registration, readiness, capability
//! calls and forwarded logs.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::rpc::{IncomingMessage, Payload, RequestHandler, RpcError};
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::wire::methods::{
    AckPayload, CapabilityRequestPayload, CapabilityResponsePayload, LogBatchPayload,
    RegisterComponentsPayload, RegisterComponentsResponse, RunnerReadyPayload, names,
};

use super::runtime::{RunnerShared, RuntimeShared};

/// The host's handler for one runner connection.
pub(crate) struct RunnerConnectionHandler {
    pub runtime: Arc<RuntimeShared>,
    pub runner: Arc<RunnerShared>,
}

impl RequestHandler for RunnerConnectionHandler {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        match request.method() {
            names::REGISTER_COMPONENTS | names::REGISTER_PLUGIN => {
                std::future::ready(self.register(&request)).boxed()
            }
            names::READY => std::future::ready(self.ready(&request)).boxed(),
            names::CAP_CALL => self.capability(request),
            other => std::future::ready(Err(RpcError::method_not_allowed(other))).boxed(),
        }
    }

    fn handle_broadcast(&self, message: IncomingMessage) {
        if message.method() == names::LOG_BATCH {
            match message.payload::<LogBatchPayload>() {
                Ok(batch) => {
                    for entry in batch.entries {
                        log_plugin_record(&self.runner.name, entry);
                    }
                }
                Err(err) => {
                    tracing::warn!(runner = %self.runner.name, "malformed runner.log_batch: {err}")
                }
            }
        }
    }
}

impl RunnerConnectionHandler {
    fn register(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        let payload: RegisterComponentsPayload = request.payload()?;
        let plugin_id = payload.plugin_id.clone();
        let refuse = |reason: String| {
            tracing::warn!(runner = %self.runner.name, plugin_id = %plugin_id, "components refused: {reason}");
            Payload::encode(&RegisterComponentsResponse {
                accepted: false,
                plugin_id: plugin_id.clone(),
                registered_components: Vec::new(),
                reason,
            })
        };
        if plugin_id.is_empty() {
            return refuse("plugin_id is empty".into());
        }
        if !request.plugin_id().is_empty() && request.plugin_id() != plugin_id {
            return refuse(format!(
                "envelope plugin_id {} does not match payload plugin_id",
                request.plugin_id()
            ));
        }
        // Claim ownership atomically, so two runners hosting the same plugin id cannot both
        // register it.
        let newly_claimed = match self.runtime.try_claim(&plugin_id, &self.runner.name) {
            Ok(newly) => newly,
            Err(owner) => {
                return refuse(format!(
                    "plugin {plugin_id} is already provided by runner {owner}"
                ));
            }
        };
        if payload.components.is_empty() {
            let _ = newly_claimed;
            self.runtime.withdraw_plugin(&plugin_id);
            self.runtime.release_claim(&plugin_id, &self.runner.name);
            return Payload::encode(&RegisterComponentsResponse {
                accepted: true,
                plugin_id,
                registered_components: Vec::new(),
                reason: String::new(),
            });
        }
        match self
            .runtime
            .components
            .register_plugin(&plugin_id, &payload.components)
        {
            Ok(names) => {
                self.runtime.claim_plugin(&self.runner, &payload);
                Payload::encode(&RegisterComponentsResponse {
                    accepted: true,
                    plugin_id,
                    registered_components: names,
                    reason: String::new(),
                })
            }
            Err(reason) => {
                if newly_claimed {
                    self.runtime.release_claim(&plugin_id, &self.runner.name);
                }
                refuse(reason)
            }
        }
    }

    fn ready(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        let ready: RunnerReadyPayload = request.payload()?;
        self.runner.report_ready(ready);
        Payload::encode(&AckPayload {
            acknowledged: true,
            in_flight: 0,
        })
    }

    fn capability(
        &self,
        request: IncomingMessage,
    ) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let runtime = self.runtime.clone();
        let runner = self.runner.name.clone();
        async move {
            let plugin_id = request.plugin_id().to_owned();
            // A plugin may only act as itself: the envelope's plugin id must be one this
            // runner registered. Spoofing another runner's plugin is refused and logged.
            if runtime.owner_of(&plugin_id).as_deref() != Some(runner.as_str()) {
                tracing::warn!(runner = %runner, plugin_id = %plugin_id, "capability call for a plugin this runner does not own");
                return Err(RpcError::new(
                    ErrorCode::Unauthorized,
                    format!("plugin {plugin_id:?} does not belong to runner {runner}"),
                ));
            }
            let call: CapabilityRequestPayload = request.payload()?;
            let result = runtime.capabilities.call(&plugin_id, &call.capability, &call.args).await;
            if let Err(err) = &result {
                tracing::debug!(runner = %runner, plugin_id = %plugin_id, capability = %call.capability, "capability refused or failed: {err}");
            }
            Payload::encode(&CapabilityResponsePayload { success: true, result: result? })
        }
        .boxed()
    }
}

/// Re-emits a forwarded record in the host's log, tagged with runner and plugin.
fn log_plugin_record(runner: &str, entry: maitool_protocol::wire::methods::LogEntry) {
    let plugin = &*entry.plugin_id;
    let logger = entry.logger_name.as_str();
    let message = entry.message.as_str();
    match entry.level {
        ..=5 => {
            tracing::trace!(target: "maitool::plugin", runner, plugin_id = plugin, logger, "{message}")
        }
        6..=10 => {
            tracing::debug!(target: "maitool::plugin", runner, plugin_id = plugin, logger, "{message}")
        }
        11..=20 => {
            tracing::info!(target: "maitool::plugin", runner, plugin_id = plugin, logger, "{message}")
        }
        21..=30 => {
            tracing::warn!(target: "maitool::plugin", runner, plugin_id = plugin, logger, "{message}")
        }
        _ => {
            tracing::error!(target: "maitool::plugin", runner, plugin_id = plugin, logger, "{message}")
        }
    }
}
