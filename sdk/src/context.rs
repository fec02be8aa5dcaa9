//! What handlers and lifecycle hooks receive.

use std::path::Path;
use std::sync::Arc;

use maitool_protocol::JsonObject;
use maitool_runner::InvocationContext;

use crate::api::ApiClient;
use crate::config::ConfigSlot;
use crate::{HostClient, Kv, PluginConfig, Sender};

/// The context of one tool call: who called, in which chat, the plugin's configuration, and
/// the host's capabilities ([`kv`](Self::kv), [`send`](Self::send), [`host`](Self::host)).
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// #[maitool_sdk::args]
/// struct Empty {}
///
/// let whoami = Tool::new("whoami", "Who and where am I talking to?", |_: Empty, ctx: ToolContext| async move {
///     let place = match ctx.is_group_chat() {
///         Some(true) => format!("group {}", ctx.group_id()),
///         Some(false) => "a private chat".to_owned(),
///         None => "an unknown chat".to_owned(),
///     };
///     Ok(ToolOutput::text(format!("user {} on {} in {place}", ctx.user_id(), ctx.platform())))
/// });
/// # let _ = whoami;
/// ```
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

    /// The client for host capabilities (a cheap clone).
    pub fn host(&self) -> HostClient {
        HostClient::new(self.invocation.host.clone())
    }

    /// This plugin's key-value store on the host (`kv.*` capabilities).
    pub fn kv(&self) -> Kv {
        self.host().kv()
    }

    /// Other plugins' APIs (`api.*` capabilities).
    pub fn api(&self) -> ApiClient {
        self.host().api()
    }

    /// Messages to this call's chat stream ([`stream_id`](Self::stream_id)) through the
    /// `send.*` capabilities.
    pub fn send(&self) -> Sender<'_> {
        Sender::new(self.host(), self.stream_id())
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
}

/// What the lifecycle hooks ([`Plugin::on_load`], [`Plugin::on_config_update`]) receive: the
/// plugin's host capabilities, data directory and configuration.
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// let plugin = Plugin::new("examples.counter", "1.0.0")
///     .capability("kv.*")
///     .on_load(|ctx: PluginContext| async move {
///         // Runs before the tools are offered: a good place to prepare state.
///         let starts = ctx.kv().get::<u64>("starts").await?.unwrap_or(0);
///         ctx.kv().set("starts", &(starts + 1)).await?;
///         Ok(())
///     });
/// # let _ = plugin;
/// ```
///
/// [`Plugin::on_load`]: crate::Plugin::on_load
/// [`Plugin::on_config_update`]: crate::Plugin::on_config_update
#[derive(Clone)]
pub struct PluginContext {
    host: HostClient,
    config: Arc<ConfigSlot>,
    data_dir: Option<Arc<Path>>,
}

impl std::fmt::Debug for PluginContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginContext")
            .field("host", &self.host)
            .field("data_dir", &self.data_dir)
            .finish_non_exhaustive()
    }
}

impl PluginContext {
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

    /// This plugin's id.
    pub fn plugin_id(&self) -> &str {
        self.host.plugin_id()
    }

    /// The client for host capabilities.
    pub fn host(&self) -> &HostClient {
        &self.host
    }

    /// This plugin's key-value store on the host (`kv.*` capabilities).
    pub fn kv(&self) -> Kv {
        self.host.kv()
    }

    /// Other plugins' APIs (`api.*` capabilities).
    pub fn api(&self) -> ApiClient {
        self.host.api()
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
