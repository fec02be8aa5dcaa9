//! Serves a connected runner's requests: component registration, readiness, capability
//! calls and forwarded logs.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::rpc::{IncomingMessage, Payload, RequestHandler, RpcError};
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::wire::methods::{
    AckPayload, BootstrapPayload, CapabilityRequestPayload, CapabilityResponsePayload,
    LogBatchPayload, RegisterComponentsPayload, RegisterComponentsResponse, RunnerReadyPayload,
    UnregisterPayload, names,
};

use std::collections::BTreeMap;

use maitool_protocol::wire::message_flow::{
    GatewayStatePayload, GatewayStateResponse, RouteMessagePayload, RouteMessageResponse,
};

use super::config::PluginSettings;
use super::grant::{grants_admit, unserved};
use super::runner_shared::RunnerShared;
use super::shared::{ConfigErrorOrigin, RuntimeShared};

/// The host's handler for one runner connection.
pub(crate) struct RunnerConnectionHandler {
    pub runtime: Arc<RuntimeShared>,
    pub runner: Arc<RunnerShared>,
}

impl RequestHandler for RunnerConnectionHandler {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let answer = match request.method() {
            names::REGISTER_COMPONENTS | names::REGISTER_PLUGIN => {
                std::future::ready(self.register(&request)).boxed()
            }
            names::BOOTSTRAP => std::future::ready(self.bootstrap(&request)).boxed(),
            names::UNREGISTER => std::future::ready(self.unregister(&request)).boxed(),
            names::READY => std::future::ready(self.ready(&request)).boxed(),
            names::CAP_CALL => self.capability(request),
            names::SET_TOOL_AVAILABLE => {
                std::future::ready(self.set_tool_available(&request)).boxed()
            }
            names::ROUTE_MESSAGE => self.route_message(request),
            names::UPDATE_GATEWAY_STATE => std::future::ready(self.gateway_state(&request)).boxed(),
            other => std::future::ready(Err(RpcError::method_not_allowed(other))).boxed(),
        };
        if self.runner.launch.maibot.is_some() {
            // MaiBot's runner raises inside its receive loop on a code its enum lacks.
            answer.map(|result| result.map_err(for_maibot)).boxed()
        } else {
            answer
        }
    }

    fn handle_broadcast(&self, message: IncomingMessage) {
        if message.method() == names::LOG_BATCH {
            match message.payload::<LogBatchPayload>() {
                Ok(batch) => {
                    // The launch's plugin ids, not a copy of the settings per batch: a reload
                    // that changes the ids restarts the runner with a new launch.
                    let plugins = &self.runner.launch.plugins;
                    for entry in batch.entries {
                        log_plugin_record(&self.runner.name, plugins, entry);
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
    pub(super) fn register(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
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
        if let Err(problem) = self.runtime.check_announced(&self.runner.name, &plugin_id) {
            return refuse(problem.to_string());
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
            Err(claimed) => return refuse(claimed.to_string()),
        };
        let config_error = payload.config_error.trim();
        if payload.components.is_empty() && !config_error.is_empty() {
            // MaiBot's runner registers a plugin whose configuration is invalid without its
            // components: it is loaded but paused. Components it registered before (a reload
            // that found the configuration broken) stay, paused, so that a call to one of
            // them says why it is refused.
            self.runtime.pause_plugin(
                &self.runner,
                &plugin_id,
                config_error,
                ConfigErrorOrigin::Registration,
            );
            self.runtime.claim_plugin(&self.runner, &payload);
            return Payload::encode(&RegisterComponentsResponse {
                accepted: true,
                plugin_id: plugin_id.clone(),
                registered_components: self
                    .runtime
                    .components
                    .plugin_components(&plugin_id)
                    .iter()
                    .map(|entry| entry.full_name.clone())
                    .collect(),
                reason: String::new(),
            });
        }
        if payload.components.is_empty() {
            let _ = newly_claimed;
            self.runtime.resume_plugin(&self.runner, &plugin_id);
            self.runtime.withdraw_plugin(&plugin_id);
            self.runtime.release_claim(&plugin_id, &self.runner.name);
            return Payload::encode(&RegisterComponentsResponse {
                accepted: true,
                plugin_id,
                registered_components: Vec::new(),
                reason: String::new(),
            });
        }
        // APIs are keyed by name and version, so one plugin may declare an API twice (two
        // versions) or under a tool's name: they go to the API registry alone.
        let components: Vec<_> = payload
            .components
            .iter()
            .filter(|decl| !super::apis::ApiEntry::is_api(&decl.component_type))
            .cloned()
            .collect();
        let rank = self.runtime.plugin_rank(&self.runner.name);
        match self
            .runtime
            .components
            .register_ranked(&plugin_id, rank, &components)
        {
            Ok(names) => {
                // Paused before the tools are exposed, so no listing shows them in between.
                if config_error.is_empty() {
                    self.runtime.resume_plugin(&self.runner, &plugin_id);
                } else {
                    self.runtime.pause_plugin(
                        &self.runner,
                        &plugin_id,
                        config_error,
                        ConfigErrorOrigin::Registration,
                    );
                }
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
                refuse(reason.to_string())
            }
        }
    }

    /// A plugin's capability declaration, before it registers. Only recorded: the operator's
    /// grants decide what it may call.
    fn bootstrap(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        let payload: BootstrapPayload = request.payload()?;
        let plugin_id = self.own_plugin_id(request, &payload.plugin_id)?;
        self.runner.plugin_declared(
            &plugin_id,
            &payload.plugin_version,
            &payload.capabilities_required,
        );
        let granted = self
            .runner
            .settings()
            .get(&plugin_id)
            .map(|s| s.grants())
            .unwrap_or_default();
        let unserved = unserved(&payload.capabilities_required);
        if !unserved.is_empty() {
            tracing::warn!(runner = %self.runner.name, plugin_id = %plugin_id, "the plugin declares capabilities maitool does not serve; calls to them will be refused: {unserved:?}");
        }
        let denied: Vec<&String> = payload
            .capabilities_required
            .iter()
            .filter(|cap| !unserved.contains(cap) && !grants_admit(&granted, cap))
            .collect();
        if !denied.is_empty() {
            tracing::info!(runner = %self.runner.name, plugin_id = %plugin_id, "the plugin declares capabilities the operator did not grant; calls to them will be refused: {denied:?}");
        }
        Payload::encode(&AckPayload {
            acknowledged: true,
            in_flight: 0,
        })
    }

    /// The runner unloaded a plugin: its components go at once, in one step.
    fn unregister(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        let payload: UnregisterPayload = request.payload()?;
        let plugin_id = self.own_plugin_id(request, &payload.plugin_id)?;
        match self.runtime.owner_of(&plugin_id) {
            Some(owner) if owner != self.runner.name => {
                return Err(RpcError::new(
                    ErrorCode::Unauthorized,
                    format!("plugin {plugin_id} belongs to runner {owner}"),
                ));
            }
            Some(_) => {
                self.runtime.unregister(&self.runner.name, &plugin_id);
                self.runner.plugin_unloaded(&plugin_id, &payload.reason);
                tracing::info!(runner = %self.runner.name, plugin_id = %plugin_id, reason = %payload.reason, "plugin unloaded; its components are withdrawn");
            }
            // Never registered (it failed before that): nothing to withdraw.
            None => {}
        }
        Payload::encode(&AckPayload {
            acknowledged: true,
            in_flight: 0,
        })
    }

    /// The plugin id a runner's request is about: the payload's, which must agree with the
    /// envelope's when that is set, and be a valid id.
    fn own_plugin_id(
        &self,
        request: &IncomingMessage,
        payload_id: &str,
    ) -> Result<String, RpcError> {
        let plugin_id = if payload_id.is_empty() {
            request.plugin_id()
        } else {
            payload_id
        };
        if !request.plugin_id().is_empty() && request.plugin_id() != plugin_id {
            return Err(RpcError::bad_payload(format!(
                "envelope plugin_id {:?} does not match payload plugin_id {plugin_id:?}",
                request.plugin_id()
            )));
        }
        super::data_dir::check_plugin_id(plugin_id)
            .map_err(|err| RpcError::bad_payload(err.to_string()))?;
        Ok(plugin_id.to_owned())
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

impl RunnerConnectionHandler {
    /// The plugin an envelope names, if this runner owns it.
    fn owned_plugin(&self, request: &IncomingMessage) -> Result<String, RpcError> {
        let plugin_id = request.plugin_id();
        if self.runtime.owner_of(plugin_id).as_deref() != Some(self.runner.name.as_str()) {
            tracing::warn!(runner = %self.runner.name, plugin_id = %plugin_id, "request for a plugin this runner does not own");
            return Err(RpcError::new(
                ErrorCode::Unauthorized,
                format!(
                    "plugin {plugin_id:?} does not belong to runner {}",
                    self.runner.name
                ),
            ));
        }
        Ok(plugin_id.to_owned())
    }

    /// Refuses a gateway the plugin did not declare as receiving (MaiBot's rule: a plugin
    /// injects messages through its own receiving gateways only).
    fn receiving_gateway(&self, plugin_id: &str, gateway: &str) -> Result<(), RpcError> {
        let declared = self
            .runtime
            .components
            .plugin_components(plugin_id)
            .iter()
            .any(|entry| entry.name == gateway && entry.receives_messages());
        if declared {
            Ok(())
        } else {
            Err(RpcError::new(
                ErrorCode::MethodNotAllowed,
                format!(
                    "plugin {plugin_id} declares no message gateway {gateway:?} that receives (route_type receive or duplex)"
                ),
            ))
        }
    }

    fn route_message(
        &self,
        request: IncomingMessage,
    ) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let checked = self.owned_plugin(&request).and_then(|plugin_id| {
            let payload: RouteMessagePayload = request.payload()?;
            self.receiving_gateway(&plugin_id, &payload.gateway_name)?;
            Ok((plugin_id, payload))
        });
        let taker = self.runtime.inbound.get();
        async move {
            let (plugin_id, payload) = checked?;
            let Some(taker) = taker else {
                return Err(RpcError::new(
                    ErrorCode::MethodNotAllowed,
                    "this host takes in no chat messages",
                ));
            };
            let outcome = taker
                .take(plugin_id, payload.message)
                .await
                .map_err(RpcError::bad_payload)?;
            let mut route_key = maitool_protocol::JsonObject::new();
            for key in ["stream_id"] {
                if let Some(value) = outcome.get(key) {
                    route_key.insert(key.into(), value.clone());
                }
            }
            Payload::encode(&RouteMessageResponse {
                accepted: true,
                route_key,
                reason: String::new(),
                outcome: Some(outcome),
            })
        }
        .boxed()
    }

    fn gateway_state(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        let plugin_id = self.owned_plugin(request)?;
        let state: GatewayStatePayload = request.payload()?;
        let accepted = self
            .receiving_gateway(&plugin_id, &state.gateway_name)
            .is_ok()
            || self
                .runtime
                .components
                .plugin_components(&plugin_id)
                .iter()
                .any(|entry| {
                    entry.component_type == "MESSAGE_GATEWAY" && entry.name == state.gateway_name
                });
        tracing::info!(runner = %self.runner.name, plugin_id = %plugin_id, gateway = %state.gateway_name, ready = state.ready, platform = %state.platform, "message gateway state");
        Payload::encode(&GatewayStateResponse { accepted })
    }
}

/// An error for a MaiBot runner: the nearest code it knows, the original kept in the
/// details as `maitool_code`.
fn for_maibot(mut err: RpcError) -> RpcError {
    if !err.code.is_maibot_code() {
        err.details
            .insert("maitool_code".into(), err.code.as_str().into());
        err.code = err.code.to_maibot();
    }
    err
}

/// The plugin a forwarded record belongs to: the record's own id, else the one its logger's
/// name gives: `plugin.<id>` (a MaiBot plugin's `ctx.logger`), or the module MaiBot's loader
/// imported one of `plugins` as (`_maibot_plugin_<id with [^A-Za-z0-9_] as _>`, the logger of
/// `logging.getLogger(__name__)` in plugin code). `None` for the runner's own records.
fn record_plugin_id<'a>(
    entry: &'a maitool_protocol::wire::methods::LogEntry,
    plugins: impl IntoIterator<Item = &'a String>,
) -> Option<&'a str> {
    if !entry.plugin_id.is_empty() {
        return Some(&entry.plugin_id);
    }
    if let Some(id) = entry.logger_name.strip_prefix("plugin.")
        && !id.is_empty()
    {
        return Some(id);
    }
    let module = entry.logger_name.strip_prefix("_maibot_plugin_")?;
    let module = module.split('.').next().unwrap_or(module);
    plugins
        .into_iter()
        .find(|id| maibot_module_name(id) == module)
        .map(String::as_str)
}

/// The module name MaiBot's loader gives a plugin, less its `_maibot_plugin_` prefix.
fn maibot_module_name(plugin_id: &str) -> String {
    let mut name: String = plugin_id
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    name
}

/// Re-emits a forwarded record in the host's log, tagged with runner and plugin (or as the
/// runner's own record when it names no plugin).
fn log_plugin_record(
    runner: &str,
    plugins: &BTreeMap<String, PluginSettings>,
    entry: maitool_protocol::wire::methods::LogEntry,
) {
    let Some(plugin) = record_plugin_id(&entry, plugins.keys()).map(str::to_owned) else {
        log_runner_record(runner, &entry);
        return;
    };
    let plugin = plugin.as_str();
    let logger = entry.logger_name.as_str();
    let message = entry.message.as_str();
    // A backtrace or Python traceback: one field of the record, not lines of its own.
    let exception = Some(entry.exception_text.trim_end()).filter(|text| !text.is_empty());
    match entry.level {
        ..=5 => {
            tracing::trace!(target: "maitool::plugin", runner, plugin_id = plugin, logger, exception, "{message}")
        }
        6..=10 => {
            tracing::debug!(target: "maitool::plugin", runner, plugin_id = plugin, logger, exception, "{message}")
        }
        11..=20 => {
            tracing::info!(target: "maitool::plugin", runner, plugin_id = plugin, logger, exception, "{message}")
        }
        21..=30 => {
            tracing::warn!(target: "maitool::plugin", runner, plugin_id = plugin, logger, exception, "{message}")
        }
        _ => {
            tracing::error!(target: "maitool::plugin", runner, plugin_id = plugin, logger, exception, "{message}")
        }
    }
}

/// A forwarded record of the runner itself (no plugin): tagged with the runner alone.
fn log_runner_record(runner: &str, entry: &maitool_protocol::wire::methods::LogEntry) {
    let logger = entry.logger_name.as_str();
    let message = entry.message.as_str();
    let exception = Some(entry.exception_text.trim_end()).filter(|text| !text.is_empty());
    match entry.level {
        ..=10 => tracing::debug!(target: "maitool::runner", runner, logger, exception, "{message}"),
        11..=20 => {
            tracing::info!(target: "maitool::runner", runner, logger, exception, "{message}")
        }
        21..=30 => {
            tracing::warn!(target: "maitool::runner", runner, logger, exception, "{message}")
        }
        _ => tracing::error!(target: "maitool::runner", runner, logger, exception, "{message}"),
    }
}

#[cfg(test)]
mod tests;
