//! What `maitool status` reports about runners and plugins.

use serde::{Deserialize, Serialize};

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
