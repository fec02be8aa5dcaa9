//! What a handler can see and call while it runs.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use maitool_protocol::rpc::{RpcError, RpcPeer};
use maitool_protocol::wire::methods::{CapabilityRequestPayload, CapabilityResponsePayload, names};
use maitool_protocol::{JsonObject, ToolExecutionContext};
use serde_json::Value;

/// Default limit of a capability call; `rpc_timeout_ms` in the arguments overrides it.
const DEFAULT_CAPABILITY_TIMEOUT: Duration = Duration::from_secs(30);

/// A plugin's handle on the host's capabilities (`cap.call`). Every call carries this
/// plugin's id; the host checks it against the runner's own plugins and the operator's grants.
#[derive(Clone)]
pub struct HostClient {
    pub(crate) peer: RpcPeer,
    pub(crate) plugin_id: Arc<str>,
}

impl std::fmt::Debug for HostClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostClient")
            .field("plugin_id", &self.plugin_id)
            .finish_non_exhaustive()
    }
}

impl HostClient {
    pub(crate) fn new(peer: RpcPeer, plugin_id: Arc<str>) -> Self {
        Self { peer, plugin_id }
    }

    /// The plugin this client acts for.
    pub fn plugin_id(&self) -> &str {
        &self.plugin_id
    }

    /// Calls a host capability, e.g. `send.text` or `kv.get`, and returns its result.
    ///
    /// The call times out after 30 s unless `args` contains `rpc_timeout_ms` (removed before
    /// sending). Denied capabilities fail with `E_CAPABILITY_DENIED`.
    pub async fn call(&self, capability: &str, mut args: JsonObject) -> Result<Value, RpcError> {
        let timeout = args
            .remove("rpc_timeout_ms")
            .and_then(|v| v.as_u64())
            .filter(|ms| *ms > 0)
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_CAPABILITY_TIMEOUT);
        let request = CapabilityRequestPayload {
            capability: capability.to_owned(),
            args,
        };
        let response: CapabilityResponsePayload = self
            .peer
            .call(names::CAP_CALL, &self.plugin_id, &request, timeout)
            .await?;
        Ok(response.result)
    }
}

/// The context of one invocation, as the host sent it.
#[derive(Debug, Clone)]
pub struct InvocationContext {
    /// The plugin being invoked.
    pub plugin_id: Arc<str>,
    /// The component being invoked.
    pub component_name: Arc<str>,
    /// The model's tool-call id.
    pub call_id: String,
    /// The conversation context (session, stream, chat type, group, user, platform,
    /// reasoning, metadata).
    pub execution: ToolExecutionContext,
    /// Host capabilities for this plugin.
    pub host: HostClient,
    /// The plugin's private data directory (absolute), when the host gave it one.
    pub data_dir: Option<Arc<Path>>,
    /// A non-empty `chat_id` the host sent among the arguments (a MaiBot-style host does).
    pub(crate) chat_id_argument: Option<String>,
}

impl InvocationContext {
    /// The chat id (MaiBot's `chat_id`): the one the host sent among the arguments, else the
    /// stream id, else the session id.
    ///
    /// Derived when asked: a copy of the stream id for every call, as a field, cost the
    /// runner an allocation per call that few tools use.
    pub fn chat_id(&self) -> &str {
        chat_id_of(self.chat_id_argument.as_deref(), &self.execution)
    }
}

fn chat_id_of<'a>(argument: Option<&'a str>, execution: &'a ToolExecutionContext) -> &'a str {
    match argument {
        Some(id) if !id.is_empty() => id,
        _ if !execution.stream_id.is_empty() => &execution.stream_id,
        _ => &execution.session_id,
    }
}

#[cfg(test)]
mod tests;
