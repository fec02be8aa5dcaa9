//! What handlers and lifecycle hooks receive.

use std::path::Path;
use std::sync::Arc;

use maitool_protocol::JsonObject;
use maitool_protocol::capability::Capability;
use maitool_protocol::rpc::RpcError;
use maitool_runner::{HostClient, InvocationContext};
use serde_json::{Value, json};

use crate::PluginConfig;
use crate::config::ConfigSlot;

/// The context of one tool call: who called, in which chat, and a client for host
/// capabilities.
#[derive(Clone)]
pub struct ToolContext {
    invocation: InvocationContext,
    config: Arc<ConfigSlot>,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("invocation", &self.invocation)
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    pub(crate) fn new(invocation: InvocationContext, config: Arc<ConfigSlot>) -> Self {
        Self { invocation, config }
    }

    /// The conversation session id.
    pub fn session_id(&self) -> &str {
        &self.invocation.execution.session_id
    }

    /// The chat stream id: where `send.*` capabilities deliver.
    pub fn stream_id(&self) -> &str {
        &self.invocation.execution.stream_id
    }

    /// MaiBot's chat id (the stream id, else the session id).
    pub fn chat_id(&self) -> &str {
        self.invocation.chat_id()
    }

    /// The group id in a group chat.
    pub fn group_id(&self) -> &str {
        &self.invocation.execution.group_id
    }

    /// The other party's user id.
    pub fn user_id(&self) -> &str {
        &self.invocation.execution.user_id
    }

    /// The platform, e.g. `qq`.
    pub fn platform(&self) -> &str {
        &self.invocation.execution.platform
    }

    /// `Some(true)` in a group chat, `Some(false)` in a private chat, `None` when unknown.
    pub fn is_group_chat(&self) -> Option<bool> {
        self.invocation.execution.is_group_chat
    }

    /// The model's reasoning for this call.
    pub fn reasoning(&self) -> &str {
        &self.invocation.execution.reasoning
    }

    /// The model's tool-call id.
    pub fn call_id(&self) -> &str {
        &self.invocation.call_id
    }

    /// This plugin's id.
    pub fn plugin_id(&self) -> &str {
        &self.invocation.plugin_id
    }

    /// Extension data of the execution context.
    pub fn metadata(&self) -> &JsonObject {
        &self.invocation.execution.metadata
    }

    /// The client for host capabilities.
    pub fn host(&self) -> &HostClient {
        &self.invocation.host
    }

    /// This plugin's private data directory: an absolute path the host created owner-only
    /// (`<host data_dir>/plugins/<plugin id>`) and keeps across restarts. `None` when the
    /// host gave none: the operator's configuration does not name this plugin, or the host
    /// runs without a data directory.
    pub fn data_dir(&self) -> Option<&Path> {
        self.invocation.data_dir.as_deref()
    }

    /// The plugin's current typed configuration, if it declared one of type `C`.
    pub fn config<C: PluginConfig>(&self) -> Option<Arc<C>> {
        self.config.get::<C>()
    }

    /// Sends a text message to this call's stream through the `send.text` capability.
    pub async fn send_text(&self, text: impl Into<String>) -> Result<Value, RpcError> {
        send_text(self.host(), self.stream_id(), text.into()).await
    }
}

pub(crate) async fn send_text(
    host: &HostClient,
    stream_id: &str,
    text: String,
) -> Result<Value, RpcError> {
    let args = json!({ "stream_id": stream_id, "text": text });
    let Value::Object(args) = args else {
        unreachable!("json! object literal")
    };
    host.call(Capability::SendText.name(), args).await
}

/// What `on_load` receives.
#[derive(Clone)]
pub struct LoadContext {
    host: HostClient,
    config: Arc<ConfigSlot>,
    data_dir: Option<Arc<Path>>,
}

impl std::fmt::Debug for LoadContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadContext")
            .field("host", &self.host)
            .field("data_dir", &self.data_dir)
            .finish_non_exhaustive()
    }
}

impl LoadContext {
    pub(crate) fn new(
        host: HostClient,
        config: Arc<ConfigSlot>,
        data_dir: Option<Arc<Path>>,
    ) -> Self {
        Self {
            host,
            config,
            data_dir,
        }
    }

    /// The client for host capabilities.
    pub fn host(&self) -> &HostClient {
        &self.host
    }

    /// This plugin's private data directory, as [`ToolContext::data_dir`]: the place to
    /// open a database or read state left by an earlier run.
    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }

    /// The plugin's typed configuration, if it declared one of type `C`.
    pub fn config<C: PluginConfig>(&self) -> Option<Arc<C>> {
        self.config.get::<C>()
    }
}
