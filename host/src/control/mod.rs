//! The control socket of `maitool serve`: the other verbs (`tools`, `call`, `message`,
//! `status`, `plugins`, `definitions`, `hook`, `enable`, `disable`, `reload`) and the
//! `--metrics` endpoint talk to a running host through it, with the same framing and RPC peer
//! as runners use.

mod client;
mod connections;
mod server;
mod socket_path;
pub mod views;

pub use client::{ControlClient, ControlError};
pub use connections::ControlLimits;
pub use server::ControlServer;
pub use socket_path::{ControlSocketError, absolute as absolute_socket_path};

use maitool_protocol::{ToolAvailabilityContext, ToolExecutionContext, ToolInvocation};
use serde::{Deserialize, Serialize};

/// Method names of the control protocol.
pub mod methods {
    /// List tools: [`super::ToolsRequest`] → `{tools: [ToolSpec]}`.
    pub const TOOLS: &str = "control.tools";
    /// Call a tool: [`super::CallRequest`] → `ToolExecutionResult`.
    pub const CALL: &str = "control.call";
    /// Host status: `{}` → `HostStatus`.
    pub const STATUS: &str = "control.status";
    /// Enable or disable a component: [`super::ToggleRequest`] → `{full_name}`.
    pub const TOGGLE: &str = "control.toggle";
    /// Re-read and apply the configuration file: `{}` → `ReloadReport`.
    pub const RELOAD: &str = "control.reload";
    /// Plugins with their components: `{}` → `[views::PluginView]`.
    pub const PLUGINS: &str = "control.plugins";
    /// Model definitions for a context: [`super::DefinitionsRequest`] → `views::Definitions`.
    pub const DEFINITIONS: &str = "control.definitions";
    /// The Prometheus text exposition: `{}` → `{text}`.
    pub const METRICS: &str = "control.metrics";
    /// Stop a runner and start it again, also one marked failed: [`super::RestartRequest`]
    /// → `{}`.
    pub const RESTART: &str = "control.restart";
    /// Run a named hook over the plugins' handlers: [`super::HookRequest`] →
    /// `hook::HookOutcome`; an unknown hook or invalid kwargs is `E_BAD_PAYLOAD`.
    pub const HOOK: &str = "control.hook";
    /// MaiBot's hooks with who runs them and their handlers: `{}` → `[views::HookView]`.
    pub const HOOKS: &str = "control.hooks";
    /// A chat message for the message flow: [`super::MessageRequest`] →
    /// [`MessageOutcome`](crate::messages::MessageOutcome); a malformed message is an
    /// `E_BAD_PAYLOAD` error naming the problem.
    pub const MESSAGE: &str = "control.message";
}

/// `control.hook` request.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct HookRequest {
    /// The hook's name.
    pub name: String,
    /// Its kwargs.
    pub kwargs: maitool_protocol::JsonObject,
}

/// `control.message` request.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MessageRequest {
    /// The message.
    pub message: crate::messages::ChatMessage,
}

/// `control.restart` request.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RestartRequest {
    /// The runner's name.
    pub runner: String,
}

/// `control.tools` request.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolsRequest {
    /// The chat context to list for.
    pub context: ToolAvailabilityContext,
}

/// `control.tools` answer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolsResponse {
    /// Enabled tools in routing order.
    pub tools: Vec<std::sync::Arc<maitool_protocol::ToolSpec>>,
}

/// `control.call` request.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CallRequest {
    /// The call.
    pub invocation: ToolInvocation,
    /// Its context.
    pub context: ToolExecutionContext,
}

/// `control.toggle` request.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToggleRequest {
    /// `plugin_id.name` or a unique tool name.
    pub name: String,
    /// Enable (true) or disable (false).
    pub enabled: bool,
    /// Only for this session.
    pub session_id: Option<String>,
}

/// `control.toggle` answer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ToggleResponse {
    /// The component affected.
    pub full_name: String,
}

/// `control.definitions` request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DefinitionsRequest {
    /// The chat context to build the tool set for.
    #[serde(default)]
    pub context: ToolAvailabilityContext,
    /// The model API shape.
    pub format: views::DefinitionFormat,
    /// The engine stage (`timing`, `action` or `both`).
    pub stage: crate::builtin::Stage,
}

/// `control.metrics` answer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MetricsResponse {
    /// The Prometheus text exposition.
    pub text: String,
}
