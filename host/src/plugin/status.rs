//! What `maitool status` reports about runners and plugins.

use serde::{Deserialize, Serialize};

use crate::circuit::CircuitStatus;

/// A runner's lifecycle state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunnerState {
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
    /// The capabilities the plugin declares it needs (`plugin.bootstrap` or its
    /// registration). What it may call is `granted_capabilities`.
    #[serde(default)]
    pub declared_capabilities: Vec<String>,
    /// The operator's grants: exact names, `family.*` patterns or `*`.
    #[serde(default)]
    pub granted_capabilities: Vec<String>,
    /// The plugin's circuit breaker, once a call of it timed out or crashed (absent while
    /// it has never counted a failure, or with the breaker off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circuit: Option<CircuitStatus>,
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
    /// Lifecycle state.
    pub state: RunnerState,
    /// Restarts since the host started.
    pub restart_count: u32,
    /// Why the last process ended (exit status, signal, hang, handshake failure).
    pub last_exit_reason: Option<String>,
    /// The runner's plugins.
    pub plugins: Vec<PluginStatus>,
}
