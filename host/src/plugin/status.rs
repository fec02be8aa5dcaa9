//! What `maitool status` reports about runners and plugins.

use serde::{Deserialize, Serialize};

use crate::circuit::CircuitStatus;
use crate::sandbox::SandboxStatus;

/// A runner's lifecycle state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunnerState {
    /// Its Python environment is being installed (a MaiBot runner), before its spawn.
    Preparing,
    /// Spawned, not yet ready.
    Starting,
    /// Connected and serving.
    Ready,
    /// Exited or hung; waiting to be restarted.
    Restarting,
    /// Gave up: the restart-intensity limit was reached or it never started.
    Failed,
    /// Stopped on purpose.
    Stopped,
}

/// A plugin's load state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PluginLoadState {
    /// Not reported yet.
    Pending,
    /// Loaded and serving.
    Loaded,
    /// Failed to load; see the reason.
    Failed,
    /// Disabled by configuration.
    Inactive,
    /// Unloaded by its runner while the runner kept running; its components are withdrawn.
    Unloaded,
    /// Loaded, but its configuration is invalid (MaiBot's `config_error`): its tools are
    /// paused, neither listed nor callable, until a valid configuration arrives (`maitool
    /// reload`). The reason says what is wrong.
    ConfigError,
}

/// One plugin of a runner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PluginStatus {
    /// Plugin id.
    pub id: String,
    /// Version, once registered.
    pub version: String,
    /// Load state.
    pub state: PluginLoadState,
    /// Why it failed, if it did.
    pub reason: Option<String>,
    /// Registered components (full names).
    pub components: Vec<String>,
    /// The capabilities the plugin declares it needs: a MaiBot plugin's manifest, as the
    /// host read it (so also when the plugin failed to load), or what the plugin said in
    /// `plugin.bootstrap` or its registration. What it may call is `granted_capabilities`.
    #[serde(default)]
    pub declared_capabilities: Vec<String>,
    /// Everything the plugin may call: the operator's grants (exact names, `family.*`
    /// patterns or `*`), then, with `grant_declared`, the declared names this host serves.
    #[serde(default)]
    pub granted_capabilities: Vec<String>,
    /// Whether the operator granted what the manifest declares (`grant_declared`).
    #[serde(default)]
    pub grant_declared: bool,
    /// Declared names no capability of this host answers (`send.video`, `platform:wechat`):
    /// never granted; a call to one is refused.
    #[serde(default)]
    pub unserved_capabilities: Vec<String>,
    /// The plugin's circuit breaker, once a call of it timed out or crashed (absent while
    /// it has never counted a failure, or with the breaker off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circuit: Option<CircuitStatus>,
}

/// A plugin's configuration schema and defaults, as it reported them when it registered
/// (`plugin.register_components`): a maitool plugin's JSON Schema, or a MaiBot plugin's WebUI
/// schema (sections of fields).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RegisteredConfig {
    /// The schema, as reported.
    pub schema: maitool_protocol::JsonObject,
    /// The plugin's default configuration.
    pub default_config: maitool_protocol::JsonObject,
}

/// One runner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunnerStatus {
    /// Runner name.
    pub name: String,
    /// Executable path.
    pub executable: String,
    /// Current process id, while running.
    pub pid: Option<u32>,
    /// Seconds since the current process was spawned, while running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uptime_seconds: Option<u64>,
    /// Lifecycle state.
    pub state: RunnerState,
    /// Restarts since the host started.
    pub restart_count: u32,
    /// Why the last process ended (exit status, signal, hang, handshake failure).
    pub last_exit_reason: Option<String>,
    /// The sandbox of its latest launch (none before the first).
    #[serde(default)]
    pub sandbox: Option<SandboxStatus>,
    /// The runner's plugins.
    pub plugins: Vec<PluginStatus>,
    /// A MaiBot runner's Python environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<EnvironmentStatus>,
}

/// Where a MaiBot runner's Python environment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EnvironmentState {
    /// Not looked at yet.
    Unchecked,
    /// Being installed; `step` says what is being done.
    Preparing,
    /// Ready (what is not installable is in the plugins' reasons).
    Ready,
    /// It could not be prepared; `detail` says why.
    Failed,
}

/// A MaiBot runner's Python environment, in `status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvironmentStatus {
    /// The interpreter the runner runs.
    pub python: String,
    /// The venv maitool manages for it, if it does.
    pub venv: Option<String>,
    /// Where it stands.
    pub state: EnvironmentState,
    /// While preparing, the step under way; after a failure, why.
    pub detail: Option<String>,
    /// The installer's latest output line while preparing.
    pub last_output: Option<String>,
    /// What the latest preparation installed (empty when nothing had to be).
    #[serde(default)]
    pub installed: Vec<String>,
}

/// How many plugins loaded, and why each of the others did not: `maitool status`'s
/// `plugins`, over every runner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PluginsSummary {
    /// Every configured or reported plugin.
    pub total: usize,
    /// Those loaded and serving.
    pub loaded: usize,
    /// The others, in the runners' order.
    pub not_loaded: Vec<NotLoaded>,
}

/// A plugin that is not loaded, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotLoaded {
    /// Plugin id.
    pub id: String,
    /// Its runner.
    pub runner: String,
    /// Its state: pending, failed, inactive or unloaded.
    pub state: PluginLoadState,
    /// Why, when known.
    pub reason: Option<String>,
}

impl PluginsSummary {
    /// The summary of `runners`' plugins.
    pub fn of(runners: &[RunnerStatus]) -> PluginsSummary {
        let plugins = runners
            .iter()
            .flat_map(|runner| runner.plugins.iter().map(move |plugin| (runner, plugin)));
        let mut summary = PluginsSummary {
            total: 0,
            loaded: 0,
            not_loaded: Vec::new(),
        };
        for (runner, plugin) in plugins {
            summary.total += 1;
            if plugin.state == PluginLoadState::Loaded {
                summary.loaded += 1;
            } else {
                summary.not_loaded.push(NotLoaded {
                    id: plugin.id.clone(),
                    runner: runner.name.clone(),
                    state: plugin.state,
                    reason: plugin.reason.clone(),
                });
            }
        }
        summary
    }
}
