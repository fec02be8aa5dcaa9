//! One runner's identity and live state: its launch, its plugins' settings and statuses, its
//! connection and the state calls wait on while it restarts.

use std::collections::BTreeMap;

use maitool_protocol::rpc::RpcPeer;
use maitool_protocol::wire::methods::{RegisterComponentsPayload, RunnerReadyPayload};
use parking_lot::{Mutex, RwLock};
use tokio::sync::{oneshot, watch};

use super::components::ComponentRegistry;
use super::config::{PluginSettings, ResolvedRunner};
use super::executable::ExecutableId;
use super::live_peer::LivePeer;
use super::status::{
    EnvironmentState, EnvironmentStatus, PluginLoadState, PluginStatus, RegisteredConfig,
    RunnerState, RunnerStatus,
};
use crate::sandbox::SandboxStatus;

/// Mutable view of one runner.
#[derive(Debug)]
struct RunnerView {
    state: RunnerState,
    pid: Option<u32>,
    restart_count: u32,
    last_exit_reason: Option<String>,
    plugins: BTreeMap<String, PluginStatus>,
    environment: Option<EnvironmentStatus>,
    /// Plugins the runner was told not to load because of their Python dependencies, and why.
    dependency_blocks: BTreeMap<String, String>,
    sandbox: Option<SandboxStatus>,
    /// When the current process was spawned.
    started_at: Option<std::time::Instant>,
    /// Each registered plugin's configuration schema and defaults, as it reported them.
    config_schemas: BTreeMap<String, RegisteredConfig>,
}

/// One runner's identity and live state.
pub(crate) struct RunnerShared {
    pub name: String,
    pub launch: ResolvedRunner,
    settings: RwLock<BTreeMap<String, PluginSettings>>,
    view: RwLock<RunnerView>,
    peer: RwLock<Option<LivePeer>>,
    ready: Mutex<Option<oneshot::Sender<RunnerReadyPayload>>>,
    pub state_changes: watch::Sender<RunnerState>,
    /// The executable file of the latest launch, for `apply` to see a rebuild.
    executable: Mutex<Option<ExecutableId>>,
}

impl RunnerShared {
    pub(super) fn new(launch: ResolvedRunner) -> Self {
        let plugins = launch
            .plugins
            .keys()
            .map(|id| (id.clone(), pending(id)))
            .collect();
        let environment = launch.maibot.as_ref().map(|maibot| EnvironmentStatus {
            python: maibot.environment.python().display().to_string(),
            venv: match &maibot.environment.location {
                crate::maibot_env::EnvLocation::Managed { venv } => {
                    Some(venv.display().to_string())
                }
                crate::maibot_env::EnvLocation::Own { .. } => None,
            },
            state: EnvironmentState::Unchecked,
            detail: None,
            last_output: None,
            installed: Vec::new(),
        });
        Self {
            name: launch.name.clone(),
            settings: RwLock::new(launch.plugins.clone()),
            launch,
            view: RwLock::new(RunnerView {
                state: RunnerState::Starting,
                pid: None,
                restart_count: 0,
                last_exit_reason: None,
                plugins,
                environment,
                dependency_blocks: BTreeMap::new(),
                sandbox: None,
                started_at: None,
                config_schemas: BTreeMap::new(),
            }),
            peer: RwLock::new(None),
            ready: Mutex::new(None),
            state_changes: watch::Sender::new(RunnerState::Starting),
            executable: Mutex::new(None),
        }
    }

    /// Whether a launch of this runner has ended (it exited, or never connected).
    pub(super) fn has_ended_a_launch(&self) -> bool {
        self.view.read().last_exit_reason.is_some()
    }

    /// Records which file the executable is, right before a launch.
    pub(crate) fn note_executable(&self) {
        *self.executable.lock() = ExecutableId::of(&self.launch.executable);
    }

    /// Whether the executable is another file than at the latest launch (rebuilt or replaced
    /// at the same path). False before any launch.
    pub(super) fn executable_changed(&self) -> bool {
        self.executable
            .lock()
            .is_some_and(|launched| ExecutableId::of(&self.launch.executable) != Some(launched))
    }

    /// The operator's current settings of this runner's plugins.
    pub(crate) fn settings(&self) -> BTreeMap<String, PluginSettings> {
        self.settings.read().clone()
    }

    pub(crate) fn set_settings(&self, settings: BTreeMap<String, PluginSettings>) {
        *self.settings.write() = settings;
    }

    pub(crate) fn state(&self) -> RunnerState {
        self.view.read().state
    }

    pub(crate) fn set_state(&self, state: RunnerState) {
        self.view.write().state = state;
        self.state_changes.send_replace(state);
    }

    pub(crate) fn peer(&self) -> Option<RpcPeer> {
        self.peer.read().as_ref().map(|live| live.peer.clone())
    }

    pub(crate) fn live(&self) -> Option<LivePeer> {
        self.peer.read().clone()
    }

    pub(crate) fn set_peer(&self, peer: Option<LivePeer>) {
        *self.peer.write() = peer;
    }

    /// Records the sandbox of the launch being started.
    pub(crate) fn set_sandbox(&self, sandbox: SandboxStatus) {
        self.view.write().sandbox = Some(sandbox);
    }

    pub(crate) fn set_pid(&self, pid: Option<u32>) {
        let mut view = self.view.write();
        view.started_at = pid.map(|_| std::time::Instant::now());
        view.pid = pid;
    }

    /// The configuration schema and defaults `plugin_id` reported when it registered.
    pub(crate) fn registered_config(&self, plugin_id: &str) -> Option<RegisteredConfig> {
        self.view.read().config_schemas.get(plugin_id).cloned()
    }

    /// Updates the runner's environment status (a MaiBot runner's; others have none).
    pub(crate) fn update_environment(&self, update: impl FnOnce(&mut EnvironmentStatus)) {
        if let Some(environment) = self.view.write().environment.as_mut() {
            update(environment);
        }
    }

    /// Records the plugins blocked for their dependencies at this launch; while its
    /// environment is prepared, the others wait with `waiting`.
    pub(crate) fn set_dependency_blocks(&self, blocked: BTreeMap<String, String>) {
        self.view.write().dependency_blocks = blocked;
    }

    /// Counts a start after the runner was marked failed (its cool-down ended).
    pub(crate) fn count_restart(&self) {
        self.view.write().restart_count += 1;
    }

    /// Keeps plugin states in line with a runner that is not running: its loaded plugins
    /// become `state` (pending while it restarts, failed with it) with `reason`.
    pub(crate) fn plugins_down(&self, state: PluginLoadState, reason: &str) {
        let mut view = self.view.write();
        for plugin in view.plugins.values_mut() {
            if matches!(
                plugin.state,
                PluginLoadState::Loaded
                    | PluginLoadState::Pending
                    | PluginLoadState::Unloaded
                    | PluginLoadState::ConfigError
            ) {
                plugin.state = state;
                plugin.reason = Some(reason.to_owned());
            }
        }
    }

    pub(crate) fn record_exit(&self, reason: String, restarted: bool) {
        let mut view = self.view.write();
        view.last_exit_reason = Some(reason);
        view.pid = None;
        if restarted {
            view.restart_count += 1;
        }
    }

    /// Arms the `runner.ready` notification for the current launch.
    pub(crate) fn expect_ready(&self) -> oneshot::Receiver<RunnerReadyPayload> {
        let (sender, receiver) = oneshot::channel();
        *self.ready.lock() = Some(sender);
        receiver
    }

    pub(crate) fn report_ready(&self, ready: RunnerReadyPayload) {
        {
            let mut view = self.view.write();
            for id in &ready.loaded_plugins {
                let status = view
                    .plugins
                    .entry(id.clone())
                    .or_insert_with(|| pending(id));
                // Registered with an invalid configuration: loaded, but paused.
                if status.state != PluginLoadState::ConfigError {
                    status.state = PluginLoadState::Loaded;
                    status.reason = None;
                }
            }
            for id in &ready.inactive_plugins {
                let status = view
                    .plugins
                    .entry(id.clone())
                    .or_insert_with(|| pending(id));
                status.state = PluginLoadState::Inactive;
                status.reason = Some("disabled by configuration".into());
            }
            let settings = self.settings.read();
            let dependency_blocks = view.dependency_blocks.clone();
            for id in &ready.failed_plugins {
                let status = view
                    .plugins
                    .entry(id.clone())
                    .or_insert_with(|| pending(id));
                // A MaiBot runner reports a plugin the operator blocked as failed.
                if settings.get(id).is_some_and(|s| !s.enabled) {
                    status.state = PluginLoadState::Inactive;
                    status.reason = Some(super::config::DISABLED_REASON.into());
                } else {
                    status.state = PluginLoadState::Failed;
                    // A plugin blocked for its dependencies keeps the host's own words; the
                    // runner only echoes them.
                    status.reason = match dependency_blocks.get(id) {
                        Some(reason) => Some(reason.clone()),
                        None => ready.failed_plugin_reasons.get(id).map(|reason| {
                            super::failure_hint::with_hint(reason.clone(), &self.launch)
                        }),
                    };
                }
                status.components.clear();
            }
        }
        if let Some(sender) = self.ready.lock().take() {
            let _ = sender.send(ready);
        }
    }

    /// Records what a plugin declares it needs (`plugin.bootstrap`); empty withdraws it.
    pub(crate) fn plugin_declared(&self, plugin_id: &str, version: &str, capabilities: &[String]) {
        let mut view = self.view.write();
        let status = view
            .plugins
            .entry(plugin_id.to_owned())
            .or_insert_with(|| pending(plugin_id));
        if !version.is_empty() {
            status.version = version.to_owned();
        }
        status.declared_capabilities = capabilities.to_vec();
    }

    /// Marks a plugin its runner unloaded while it kept running.
    pub(crate) fn plugin_unloaded(&self, plugin_id: &str, reason: &str) {
        let mut view = self.view.write();
        let status = view
            .plugins
            .entry(plugin_id.to_owned())
            .or_insert_with(|| pending(plugin_id));
        status.state = PluginLoadState::Unloaded;
        status.reason = Some(format!("unloaded by its runner ({reason})"));
        status.components.clear();
    }

    pub(super) fn plugin_registered(
        &self,
        payload: &RegisterComponentsPayload,
        components: &ComponentRegistry,
    ) {
        let plugin_id = payload.plugin_id.as_str();
        let mut view = self.view.write();
        let status = view
            .plugins
            .entry(plugin_id.to_owned())
            .or_insert_with(|| pending(plugin_id));
        status.version = payload.plugin_version.clone();
        view.config_schemas.insert(
            plugin_id.to_owned(),
            RegisteredConfig {
                schema: payload.config_schema.clone(),
                default_config: payload.default_config.clone(),
            },
        );
        let status = view.plugins.get_mut(plugin_id).expect("inserted above");
        if !payload.capabilities_required.is_empty() {
            status.declared_capabilities = payload.capabilities_required.clone();
        }
        if !payload.config_error.is_empty() {
            status.state = PluginLoadState::ConfigError;
            status.reason = Some(config_error_reason(&payload.config_error));
        } else if matches!(
            status.state,
            PluginLoadState::Unloaded | PluginLoadState::ConfigError
        ) {
            status.state = PluginLoadState::Loaded;
            status.reason = None;
        }
        status.components = components
            .plugin_components(plugin_id)
            .iter()
            .map(|e| e.full_name.clone())
            .collect();
    }

    /// Shows a plugin in the `config_error` state with `problem`, or, with `None`, takes it
    /// out of that state (loaded again).
    pub(crate) fn plugin_config_error(&self, plugin_id: &str, problem: Option<&str>) {
        let mut view = self.view.write();
        let status = view
            .plugins
            .entry(plugin_id.to_owned())
            .or_insert_with(|| pending(plugin_id));
        match problem {
            Some(problem) => {
                status.state = PluginLoadState::ConfigError;
                status.reason = Some(config_error_reason(problem));
            }
            None if status.state == PluginLoadState::ConfigError => {
                status.state = PluginLoadState::Loaded;
                status.reason = None;
            }
            None => {}
        }
    }

    pub(crate) fn status(&self) -> RunnerStatus {
        let settings = self.settings.read();
        let view = self.view.read();
        RunnerStatus {
            name: self.name.clone(),
            executable: self.launch.executable.display().to_string(),
            pid: view.pid,
            uptime_seconds: view.started_at.map(|at| at.elapsed().as_secs()),
            state: view.state,
            restart_count: view.restart_count,
            last_exit_reason: view.last_exit_reason.clone(),
            environment: view.environment.clone(),
            sandbox: view.sandbox.clone(),
            plugins: view
                .plugins
                .values()
                .map(|plugin| {
                    let settings = settings.get(&plugin.id);
                    // Until the plugin says what it declares (it may fail before), the
                    // manifest the host read.
                    let declared = match settings {
                        Some(s) if plugin.declared_capabilities.is_empty() => s.declared.clone(),
                        _ => plugin.declared_capabilities.clone(),
                    };
                    PluginStatus {
                        granted_capabilities: settings.map(|s| s.grants()).unwrap_or_default(),
                        grant_declared: settings.is_some_and(|s| s.grants_declared()),
                        unserved_capabilities: super::grant::unserved(&declared),
                        declared_capabilities: declared,
                        ..plugin.clone()
                    }
                })
                .collect(),
        }
    }
}

/// The status reason of a plugin paused by an invalid configuration.
fn config_error_reason(problem: &str) -> String {
    format!("invalid configuration, its tools are paused until it is fixed: {problem}")
}

fn pending(id: &str) -> PluginStatus {
    PluginStatus {
        id: id.to_owned(),
        version: String::new(),
        state: PluginLoadState::Pending,
        reason: None,
        components: Vec::new(),
        declared_capabilities: Vec::new(),
        granted_capabilities: Vec::new(),
        grant_declared: false,
        unserved_capabilities: Vec::new(),
        circuit: None,
    }
}
