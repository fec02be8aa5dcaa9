//! Typed payloads of every RPC method of the plugin runtime, and their method names.
//!
//! Field names follow MaiBot's protocol 1.0.0 where a counterpart exists, so a runner written
//! against MaiBot's payload models can speak to the maitool host. Additions are optional
//! fields with defaults, so older peers ignore them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::{JsonObject, ToolExecutionContext, ToolExecutionResult};

/// The keys of the execution context that a host copies into an invocation's `args`
/// (MaiBot's convention: its plugins read them from there), in the order they are written:
/// the stream id, the chat id (the stream id, else the session id), the group id, the user id
/// and the platform. See [`HelloPayload::reads_context`] for which of them a runner gets.
pub const CONTEXT_ARG_KEYS: [&str; 5] = ["stream_id", "chat_id", "group_id", "user_id", "platform"];

/// Method names.
pub mod names {
    /// Runner → host, request: the first message on a connection.
    pub const HELLO: &str = "runner.hello";
    /// Runner → host, request: register (or replace) one plugin's components.
    pub const REGISTER_COMPONENTS: &str = "plugin.register_components";
    /// Runner → host, request: MaiBot's legacy alias of [`REGISTER_COMPONENTS`].
    pub const REGISTER_PLUGIN: &str = "plugin.register_plugin";
    /// Runner → host, request: a plugin's capability declaration, sent before it registers;
    /// an empty list withdraws it (MaiBot runners send it on unload).
    pub const BOOTSTRAP: &str = "plugin.bootstrap";
    /// Runner → host, request: withdraw one plugin's components (it unloaded).
    pub const UNREGISTER: &str = "plugin.unregister";
    /// Runner → host, request: initial load results.
    pub const READY: &str = "runner.ready";
    /// Runner → host, request (pool members): the member takes no new calls and finishes
    /// those in flight ([`DrainingPayload`](super::DrainingPayload)); the host stops routing
    /// calls to it before it answers.
    pub const DRAINING: &str = "runner.draining";
    /// Runner → host, broadcast: forwarded plugin logs.
    pub const LOG_BATCH: &str = "runner.log_batch";
    /// Runner → host, request: call a host capability.
    pub const CAP_CALL: &str = "cap.call";
    /// Runner → host, request (maitool): a plugin makes one of its tools available or
    /// unavailable at run time ([`SetToolAvailablePayload`](super::SetToolAvailablePayload)).
    pub const SET_TOOL_AVAILABLE: &str = "tool.set_available";
    /// Runner → host, request: a plugin hands the host a chat message it received from
    /// outside, through one of its receiving message gateways
    /// ([`RouteMessagePayload`](crate::wire::message_flow::RouteMessagePayload)).
    pub const ROUTE_MESSAGE: &str = "host.route_message";
    /// Runner → host, request: a message gateway's link is up or down
    /// ([`GatewayStatePayload`](crate::wire::message_flow::GatewayStatePayload)).
    pub const UPDATE_GATEWAY_STATE: &str = "host.update_message_gateway_state";
    /// Host → runner, request: run a tool.
    pub const INVOKE_TOOL: &str = "plugin.invoke_tool";
    /// Host → runner, request: run a legacy Action converted to a tool.
    pub const INVOKE_ACTION: &str = "plugin.invoke_action";
    /// Host → runner, request: run a hook handler with a hook's kwargs
    /// ([`InvokePayload`](super::InvokePayload) whose `args` are the kwargs plus
    /// `hook_name`); answered with a [`HookResponse`](crate::hook::HookResponse).
    pub const INVOKE_HOOK: &str = "plugin.invoke_hook";
    /// Host → runner, request: run a plugin API for another plugin's `api.call`
    /// ([`InvokePayload`](super::InvokePayload) naming the API's handler); answered with an
    /// [`InvokeResultPayload`](super::InvokeResultPayload) whose `result` is the API's value.
    pub const INVOKE_API: &str = "plugin.invoke_api";
    /// Host → runner, request: run a command a chat message matched
    /// ([`CommandArgs`](crate::wire::message_flow::CommandArgs) as the invocation's `args`,
    /// answered as a [`CommandReply`](crate::wire::message_flow::CommandReply)).
    pub const INVOKE_COMMAND: &str = "plugin.invoke_command";
    /// Host → runner, request: run an event handler
    /// ([`EventArgs`](crate::wire::message_flow::EventArgs) as the invocation's `args`,
    /// answered with an [`EventResultPayload`](crate::wire::message_flow::EventResultPayload)).
    pub const EMIT_EVENT: &str = "plugin.emit_event";
    /// Host → runner, request: liveness and load state.
    pub const HEALTH: &str = "plugin.health";
    /// Host → runner, request: stop accepting new work, report what is in flight.
    pub const PREPARE_SHUTDOWN: &str = "plugin.prepare_shutdown";
    /// Host → runner, request: unload every plugin and exit.
    pub const SHUTDOWN: &str = "plugin.shutdown";
    /// Host → runner, request: a plugin's configuration changed.
    pub const CONFIG_UPDATED: &str = "plugin.config_updated";
    /// Host → runner, request (MaiBot runners): unload some plugins without stopping the
    /// runner; each unloaded plugin is withdrawn with [`UNREGISTER`].
    pub const UNLOAD_BATCH: &str = "plugin.unload_batch";
    /// Host → runner, request (MaiBot runners): unload one plugin and load it again from its
    /// folder, without stopping the runner.
    pub const RELOAD: &str = "plugin.reload";
    /// Host → runner, request (MaiBot runners): check a configuration document against the
    /// plugin's configuration model without applying it
    /// ([`InspectConfigPayload`](super::InspectConfigPayload)).
    pub const INSPECT_CONFIG: &str = "plugin.inspect_config";
}

/// `runner.hello` request: the runner introduces itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct HelloPayload {
    /// A unique id of this runner process instance.
    pub runner_id: String,
    /// Version of the SDK the runner was built with (semver).
    pub sdk_version: String,
    /// The one-time token the host passed to this launch through the environment.
    pub session_token: String,
    /// Wire protocol versions the runner speaks, most preferred first. Absent: `["1.0.0"]`.
    pub protocol_versions: Vec<String>,
    /// The runner's process id, for diagnostics.
    pub pid: u32,
    /// (maitool) The runner's components read the execution context from the invoke
    /// payload's `context`, so the host copies into `args` only the context keys a tool
    /// declares as parameters (all of them for a legacy Action). Absent, as from a MaiBot
    /// runner: every context key is copied, MaiBot's convention.
    pub reads_context: bool,
    /// (maitool, pool members) The pool the runner joins: it dialled in rather than being
    /// launched by the host, `session_token` is empty and `token_proof` proves it holds the
    /// pool's token. Absent (empty): a runner the host launched.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub pool: String,
    /// (maitool, pool members) The member's name in its pool, for logs and status (a host
    /// name, a Kubernetes pod name); several connections may share it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub member: String,
    /// (maitool) The version of the runner's own build as its operator names it (an image
    /// tag, a release), for logs during a rollout; `sdk_version` is the SDK's.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub runner_version: String,
    /// (maitool, pool members) The proof that the member holds one of the pool's tokens,
    /// bound to this connection ([`crate::pool_token`]); the token itself is never sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_proof: Option<crate::pool_token::TokenProof>,
}

/// Answer to `runner.hello`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct HelloResponsePayload {
    /// Whether the host accepted the runner. On `false` the host closes the connection.
    pub accepted: bool,
    /// Host version (semver).
    pub host_version: String,
    /// Why the runner was rejected.
    pub reason: String,
    /// The wire protocol version chosen for this connection.
    pub protocol_version: String,
    /// Per-plugin settings from the operator's configuration, keyed by plugin id. A plugin
    /// the runner hosts but that is absent here runs with its defaults.
    pub plugins: BTreeMap<String, PluginBootstrap>,
}

/// What the host tells a runner about one plugin before it loads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PluginBootstrap {
    /// False when the operator disabled the plugin: the runner reports it inactive.
    pub enabled: bool,
    /// The operator's configuration of the plugin (already parsed from TOML), merged by the
    /// plugin over its defaults.
    pub config: JsonObject,
    /// Version of that configuration, passed to `on_config_update`.
    pub config_version: String,
    /// Capabilities the operator granted (informational; the host enforces them).
    pub capabilities: Vec<String>,
    /// The plugin's private data directory: an absolute path the host created owner-only
    /// before the launch. Empty when the host offers none; runners refuse a relative path.
    pub data_dir: String,
}

impl Default for PluginBootstrap {
    fn default() -> Self {
        Self {
            enabled: true,
            config: JsonObject::new(),
            config_version: String::new(),
            capabilities: Vec::new(),
            data_dir: String::new(),
        }
    }
}

/// One component a plugin declares. MaiBot's `ComponentDeclaration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ComponentDeclaration {
    /// Component name, unique within the plugin.
    pub name: String,
    /// `TOOL` or `ACTION` (other MaiBot types are accepted and stored, not exposed as tools).
    pub component_type: String,
    /// Owning plugin.
    pub plugin_id: String,
    /// `all`, `group` or `private`.
    pub chat_scope: String,
    /// When non-empty, the component is only offered in these sessions (session id, group id
    /// or `platform:group_id`).
    pub allowed_session: Vec<String>,
    /// Type-specific fields. For tools: `description`, `parameters_raw` (a JSON Schema object),
    /// `output_schema`, `title`, `invoke_method`, `visibility`, `core_tool`, `timeout_ms`,
    /// `enabled`, `annotation`, `icons`; for legacy Actions also `legacy_action`,
    /// `action_parameters`, `action_require`, `activation_type`, ... See docs/PROTOCOL.md.
    pub metadata: JsonObject,
}

/// `plugin.register_components` request: the whole component set of one plugin, replacing
/// any earlier set atomically.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct RegisterComponentsPayload {
    /// The plugin.
    pub plugin_id: String,
    /// Its version.
    pub plugin_version: String,
    /// `extension` (default) or `adapter`.
    pub plugin_type: String,
    /// Its components.
    pub components: Vec<ComponentDeclaration>,
    /// Capabilities the plugin says it needs (the operator's grants decide).
    pub capabilities_required: Vec<String>,
    /// Human-readable name.
    pub name: String,
    /// Description.
    pub description: String,
    /// The plugin's default configuration.
    pub default_config: JsonObject,
    /// JSON Schema of the configuration.
    pub config_schema: JsonObject,
    /// Why the plugin's configuration is invalid (MaiBot's `config_error`); empty when it is
    /// valid. A plugin registered with a configuration error is loaded but paused: it
    /// registers no components, and the host shows it in the `config_error` state with this
    /// reason until a valid configuration arrives.
    pub config_error: String,
}

/// Answer to `plugin.register_components`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct RegisterComponentsResponse {
    /// Whether the set was accepted. A rejected set leaves the previous one in place.
    pub accepted: bool,
    /// The plugin.
    pub plugin_id: String,
    /// Full names (`plugin_id.name`) now registered.
    pub registered_components: Vec<String>,
    /// Why the set was rejected.
    pub reason: String,
}

/// `plugin.bootstrap` request: what a plugin declares before it registers. MaiBot's
/// `BootstrapPluginPayload`. The declaration is informational: the operator's grants decide
/// what the plugin may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct BootstrapPayload {
    /// The plugin.
    pub plugin_id: String,
    /// Its version.
    pub plugin_version: String,
    /// `extension` (default) or `adapter`.
    pub plugin_type: String,
    /// Capabilities the plugin's manifest asks for; empty withdraws the declaration.
    pub capabilities_required: Vec<String>,
}

/// `plugin.unregister` request: the runner unloaded a plugin. MaiBot's
/// `UnregisterPluginPayload`. Answered with [`AckPayload`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct UnregisterPayload {
    /// The plugin.
    pub plugin_id: String,
    /// Why (`manual`, `shutdown`, `reload`, ...).
    pub reason: String,
}

/// `plugin.unload_batch` request. MaiBot's `UnloadPluginsPayload`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct UnloadPluginsPayload {
    /// The plugins to unload.
    pub plugin_ids: Vec<String>,
    /// Why.
    pub reason: String,
}

/// Answer to `plugin.unload_batch`. MaiBot's `UnloadPluginsResultPayload`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct UnloadPluginsResponse {
    /// Whether every requested plugin was unloaded.
    pub success: bool,
    /// The plugins asked for.
    pub requested_plugin_ids: Vec<String>,
    /// The plugins unloaded (dependents included).
    pub unloaded_plugins: Vec<String>,
    /// Why each plugin that could not be unloaded could not.
    pub failed_plugins: BTreeMap<String, String>,
}

/// `plugin.reload` request. MaiBot's `ReloadPluginPayload`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ReloadPluginPayload {
    /// The plugin.
    pub plugin_id: String,
    /// Why.
    pub reason: String,
    /// Dependencies satisfied outside the runner, `{plugin_id: version}`.
    pub external_available_plugins: BTreeMap<String, String>,
}

/// Answer to `plugin.reload`. MaiBot's `ReloadPluginResultPayload`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ReloadPluginResponse {
    /// Whether the plugin was reloaded.
    pub success: bool,
    /// The plugin asked for.
    pub requested_plugin_id: String,
    /// The plugins reloaded (dependents included).
    pub reloaded_plugins: Vec<String>,
    /// The plugins unloaded on the way.
    pub unloaded_plugins: Vec<String>,
    /// The plugins left inactive (disabled by their own configuration).
    pub inactive_plugins: Vec<String>,
    /// Why each plugin that failed to reload failed.
    pub failed_plugins: BTreeMap<String, String>,
}

/// `runner.ready` request: the outcome of loading every plugin the runner hosts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct RunnerReadyPayload {
    /// Plugins loaded and registered.
    pub loaded_plugins: Vec<String>,
    /// Plugins that failed to load.
    pub failed_plugins: Vec<String>,
    /// Why each failed plugin failed.
    pub failed_plugin_reasons: BTreeMap<String, String>,
    /// Plugins disabled by configuration.
    pub inactive_plugins: Vec<String>,
}

/// `plugin.invoke_tool` / `plugin.invoke_action` request. The target plugin is the
/// envelope's `plugin_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct InvokePayload {
    /// Component (tool) name within the plugin.
    pub component_name: String,
    /// Arguments: the model's arguments plus context keys (`stream_id`, `chat_id`,
    /// `group_id`, `user_id`, `platform`; for Actions also `reasoning` and `action_data`).
    pub args: JsonObject,
    /// The full execution context (session, chat type, reasoning, ...). A maitool addition:
    /// MaiBot runners ignore it and read the context keys from `args`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<ToolExecutionContext>,
    /// The model's tool-call id, for logs.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub call_id: String,
}

/// Answer to an invocation.
///
/// A maitool runner fills `tool_result` (binary content items travel as MessagePack `bin`).
/// A MaiBot-style runner fills `result` with a dict `{success, content|message, error,
/// content_items}`, a `[bool, message]` pair, or any plain value; the host normalises it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct InvokeResultPayload {
    /// Whether the handler ran without raising.
    pub success: bool,
    /// MaiBot-style result value. Not written when absent or null (a float NaN reads as
    /// null: JSON has no NaN), as PROTOCOL.md says of `nil` results.
    #[serde(skip_serializing_if = "no_result")]
    pub result: Option<serde_json::Value>,
    /// A complete result, preferred over `result` when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_result: Option<ToolExecutionResult>,
}

/// Whether an invoke answer's `result` is left out: absent or null.
fn no_result(result: &Option<serde_json::Value>) -> bool {
    matches!(result, None | Some(serde_json::Value::Null))
}

/// `plugin.health` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct HealthPayload {
    /// False when the runner knows it is broken.
    pub healthy: bool,
    /// Plugins currently loaded.
    pub loaded_plugins: Vec<String>,
    /// Milliseconds since the runner started.
    pub uptime_ms: u64,
    /// Invocations currently running.
    pub in_flight: u64,
}

/// `plugin.prepare_shutdown` and `plugin.shutdown` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ShutdownPayload {
    /// Why (`normal`, `restart`, `reload`, ...).
    pub reason: String,
    /// How long the runner may take to drain in-flight work.
    pub drain_timeout_ms: u64,
}

impl Default for ShutdownPayload {
    fn default() -> Self {
        Self {
            reason: "normal".to_owned(),
            drain_timeout_ms: 5000,
        }
    }
}

/// `tool.set_available` request (maitool): the plugin named in the envelope decides, from
/// its own run-time state, whether its tool `tool` is offered. An unavailable tool is left
/// out of every listing and a call to it fails with `reason`, until the plugin makes it
/// available again or registers anew (a restart or reload starts every tool available).
///
/// ```
/// use maitool_protocol::wire::methods::SetToolAvailablePayload;
///
/// let payload = SetToolAvailablePayload {
///     tool: "radar".into(),
///     available: false,
///     reason: "the radar is offline".into(),
/// };
/// let bytes = rmp_serde::to_vec_named(&payload).unwrap();
/// let back: SetToolAvailablePayload = rmp_serde::from_slice(&bytes).unwrap();
/// assert_eq!(back, payload);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SetToolAvailablePayload {
    /// The tool's name within the plugin.
    pub tool: String,
    /// Whether the tool is offered.
    pub available: bool,
    /// Why it is not, shown to whoever calls it meanwhile (ignored when available).
    pub reason: String,
}

/// Answer to `tool.set_available`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct SetToolAvailableResponse {
    /// False when the tool already was in that state (with that reason).
    pub changed: bool,
}

/// `runner.draining` request: a pool member is going away (it got SIGTERM). It serves what
/// it already received, and closes its connection once nothing is in flight; the host routes
/// no call to it after answering.
///
/// ```
/// use maitool_protocol::wire::methods::DrainingPayload;
///
/// let draining = DrainingPayload { reason: "SIGTERM".into(), in_flight: 2 };
/// assert_eq!(draining.in_flight, 2);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct DrainingPayload {
    /// Why the member drains, for the host's log.
    pub reason: String,
    /// Calls the member was running when it began to drain.
    pub in_flight: u64,
}

/// A plain acknowledgement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct AckPayload {
    /// Always true when sent.
    pub acknowledged: bool,
    /// Work still in flight when acknowledged.
    pub in_flight: u64,
}

/// `plugin.config_updated` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ConfigUpdatedPayload {
    /// The plugin.
    pub plugin_id: String,
    /// `self` for the plugin's own configuration; `bot` or `model` for host sections.
    pub config_scope: String,
    /// Version label of the new configuration.
    pub config_version: String,
    /// The new configuration.
    pub config_data: JsonObject,
}

/// Answer to `plugin.config_updated`. A maitool runner answers `accepted`; a MaiBot runner
/// answers `acknowledged: true`, and a refusal as an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ConfigUpdatedResponse {
    /// Whether the plugin applied it.
    pub accepted: bool,
    /// MaiBot's word for `accepted`.
    pub acknowledged: bool,
    /// Why not.
    pub reason: String,
    /// Set when the refusal is because the configuration itself is invalid (it breaks the
    /// plugin's configuration schema), as opposed to the plugin declining a valid one: the
    /// host then pauses the plugin's tools until a valid configuration arrives.
    pub config_error: String,
}

impl ConfigUpdatedResponse {
    /// Whether the plugin applied the configuration, in either runner's words.
    ///
    /// ```
    /// use maitool_protocol::wire::methods::ConfigUpdatedResponse;
    ///
    /// let maibot = ConfigUpdatedResponse { acknowledged: true, ..Default::default() };
    /// assert!(maibot.applied());
    /// assert!(!ConfigUpdatedResponse::default().applied());
    /// ```
    pub fn applied(&self) -> bool {
        self.accepted || self.acknowledged
    }
}

/// `plugin.inspect_config` request (MaiBot runners): check `config_data` against the
/// plugin's configuration model. MaiBot's `InspectPluginConfigPayload`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct InspectConfigPayload {
    /// The document to check.
    pub config_data: JsonObject,
    /// True: check `config_data` rather than the plugin's file.
    pub use_provided_config: bool,
}

/// Answer to `plugin.inspect_config`. MaiBot's `InspectPluginConfigResultPayload`; the
/// fields maitool reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct InspectConfigResponse {
    /// Whether the inspection ran.
    pub success: bool,
    /// Why the document is invalid; empty when it is valid.
    pub config_error: String,
    /// Whether the plugin counts as enabled under the document.
    pub enabled: bool,
}

/// `cap.call` request: the plugin (envelope `plugin_id`) asks the host to do something.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct CapabilityRequestPayload {
    /// Capability name, e.g. `send.text`, `config.get`, `kv.set`.
    pub capability: String,
    /// Its arguments.
    pub args: JsonObject,
}

/// Answer to `cap.call`. Denials and failures are error responses (`E_CAPABILITY_DENIED`,
/// `E_CAPABILITY_FAILED`, `E_METHOD_NOT_ALLOWED`), not `success: false`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct CapabilityResponsePayload {
    /// True when the capability ran.
    pub success: bool,
    /// What it returned.
    pub result: serde_json::Value,
}

/// One forwarded log record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct LogEntry {
    /// When it was logged.
    pub timestamp_ms: u64,
    /// Python `logging` levels: 10 debug, 20 info, 30 warning, 40 error (5 for trace).
    pub level: i32,
    /// Logger (tracing target); `plugin.<id>` for plugin code.
    pub logger_name: String,
    /// The formatted message with its fields.
    pub message: String,
    /// Exception or error chain, if any.
    pub exception_text: String,
    /// The plugin that logged it, when known.
    pub plugin_id: String,
}

/// `runner.log_batch` broadcast.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct LogBatchPayload {
    /// Records in order.
    pub entries: Vec<LogEntry>,
}
