//! The client for host capabilities, and the error of a capability call.

use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::{JsonObject, json_kind};
use serde::Serialize;
use serde_json::Value;

use crate::kv::Kv;
use crate::send::Sender;

/// Calls the host's capabilities for one plugin: its key-value store ([`kv`](Self::kv)),
/// messages to a chat ([`send`](Self::send)), and any other capability by name
/// ([`call`](Self::call)).
///
/// A plugin may call only the capabilities the operator granted in the host's configuration;
/// any other call fails with [`HostError::Denied`]. Declare what the plugin calls with its
/// [`Plugin::capability`], which `maitool plugins` shows the operator beside the grants; a
/// declared name the host does not serve is reported when the plugin loads. Handlers get a
/// client from [`ToolContext::host`], lifecycle hooks from [`PluginContext::host`]. Cloning
/// is cheap (two reference counts).
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// async fn count_visit(host: &HostClient) -> Result<u64, HostError> {
///     let visits = host.kv().get::<u64>("visits").await?.unwrap_or(0) + 1;
///     host.kv().set("visits", &visits).await?;
///     // Any capability, with arguments from any serializable value:
///     host.call("send.text", json!({ "stream_id": "s1", "text": format!("visit {visits}") }))
///         .await?;
///     Ok(visits)
/// }
/// ```
///
/// [`Plugin::capability`]: crate::Plugin::capability
/// [`ToolContext::host`]: crate::ToolContext::host
/// [`PluginContext::host`]: crate::PluginContext::host
#[derive(Clone)]
pub struct HostClient {
    inner: maitool_runner::HostClient,
}

impl std::fmt::Debug for HostClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostClient")
            .field("plugin_id", &self.plugin_id())
            .finish_non_exhaustive()
    }
}

impl HostClient {
    pub(crate) fn new(inner: maitool_runner::HostClient) -> Self {
        Self { inner }
    }

    pub(crate) fn runner_client(&self) -> &maitool_runner::HostClient {
        &self.inner
    }

    /// The plugin this client acts for.
    pub fn plugin_id(&self) -> &str {
        self.inner.plugin_id()
    }

    /// Calls the capability `capability` (for example `send.text`, `kv.get`, `llm.chat`) with
    /// `args`, any value that serializes to a JSON object (a struct, a map, `json!({...})`),
    /// and returns the host's result as JSON. docs/PROTOCOL.md lists every capability with
    /// its arguments and result.
    ///
    /// The call times out after 30 s unless `args` has an `rpc_timeout_ms` entry (removed
    /// before sending).
    ///
    /// # Errors
    ///
    /// * [`HostError::Arguments`]: `args` does not serialize to a JSON object.
    /// * [`HostError::Denied`]: the operator did not grant the capability.
    /// * [`HostError::Failed`]: anything else the host answered (bad arguments, the
    ///   capability failed, unknown capability, timeout, the host went away).
    pub async fn call(&self, capability: &str, args: impl Serialize) -> Result<Value, HostError> {
        let args = match serde_json::to_value(args) {
            Ok(Value::Object(args)) => args,
            Ok(other) => {
                return Err(HostError::Arguments {
                    capability: capability.to_owned(),
                    reason: format!("expected a JSON object, got {}", json_kind(&other)),
                });
            }
            Err(err) => {
                return Err(HostError::Arguments {
                    capability: capability.to_owned(),
                    reason: err.to_string(),
                });
            }
        };
        self.call_object(capability, args).await
    }

    pub(crate) async fn call_object(
        &self,
        capability: &str,
        args: JsonObject,
    ) -> Result<Value, HostError> {
        self.inner
            .call(capability, args)
            .await
            .map_err(|source| HostError::from_rpc(capability, source))
    }

    /// Withdraws one of this plugin's tools from the model (`available = false`, with a
    /// `reason` a refused call reports) or offers it again: availability decided from the
    /// plugin's run-time state. Returns whether the state changed. Every tool starts
    /// available, and is again after the runner restarts.
    ///
    /// ```no_run
    /// # async fn demo(host: maitool_sdk::HostClient) -> Result<(), maitool_sdk::HostError> {
    /// host.set_tool_available("radar", false, "the radar is offline").await?;
    /// // ... later, when it is back:
    /// host.set_tool_available("radar", true, "").await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`HostError::Failed`] with code `E_TOOL_NOT_FOUND` if the plugin has no such tool or
    /// its tools are not registered yet (an `on_load` hook runs after registration, so it may
    /// call this), or if the host went away.
    pub async fn set_tool_available(
        &self,
        tool: &str,
        available: bool,
        reason: &str,
    ) -> Result<bool, HostError> {
        self.inner
            .set_tool_available(tool, available, reason)
            .await
            .map_err(|source| HostError::from_rpc("tool.set_available", source))
    }

    /// This plugin's key-value store on the host (`kv.*` capabilities).
    pub fn kv(&self) -> Kv {
        Kv::new(self.clone())
    }

    /// Other plugins' APIs (`api.*` capabilities).
    pub fn api(&self) -> crate::api::ApiClient {
        crate::api::ApiClient::new(self.clone())
    }

    /// Messages to the chat stream `stream_id` (`send.*` capabilities). In a handler,
    /// [`ToolContext::send`](crate::ToolContext::send) picks the call's own stream.
    pub fn send<'a>(&self, stream_id: &'a str) -> Sender<'a> {
        Sender::new(self.clone(), stream_id)
    }
}

/// Why a host capability call failed.
///
/// Displayed as one line that names the capability and keeps the host's error code, e.g.
/// `[E_CAPABILITY_DENIED] plugin examples.notes is not granted capability kv.set`.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The operator did not grant the capability.
    #[error("{source}")]
    Denied {
        /// The capability called.
        capability: String,
        /// The host's answer (code `E_CAPABILITY_DENIED`).
        #[source]
        source: RpcError,
    },
    /// The host refused or could not complete the call: bad arguments (`E_BAD_PAYLOAD`), the
    /// capability failed (`E_CAPABILITY_FAILED`), unknown capability, timeout, or the
    /// connection to the host is gone.
    #[error("capability {capability}: {source}")]
    Failed {
        /// The capability called.
        capability: String,
        /// The host's answer.
        #[source]
        source: RpcError,
    },
    /// The arguments do not serialize to a JSON object.
    #[error("capability {capability}: invalid arguments: {reason}")]
    Arguments {
        /// The capability called.
        capability: String,
        /// What was wrong.
        reason: String,
    },
    /// The host's result does not deserialize into the type asked for (for example
    /// [`Kv::get::<T>`](crate::Kv::get) of a value stored with another type).
    #[error("capability {capability}: unexpected result: {reason}")]
    Result {
        /// The capability called.
        capability: String,
        /// What did not fit.
        reason: String,
    },
}

impl HostError {
    fn from_rpc(capability: &str, source: RpcError) -> Self {
        let capability = capability.to_owned();
        if source.code == ErrorCode::CapabilityDenied {
            HostError::Denied { capability, source }
        } else {
            HostError::Failed { capability, source }
        }
    }

    /// True when the plugin may not use the capability ([`HostError::Denied`]).
    pub fn is_denied(&self) -> bool {
        matches!(self, HostError::Denied { .. })
    }

    /// The capability that was called.
    pub fn capability(&self) -> &str {
        match self {
            HostError::Denied { capability, .. }
            | HostError::Failed { capability, .. }
            | HostError::Arguments { capability, .. }
            | HostError::Result { capability, .. } => capability,
        }
    }
}
