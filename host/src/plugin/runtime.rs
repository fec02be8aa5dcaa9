//! The plugin runtime: the socket, every runner's supervisor, the component registry and
//! the state the provider reads on the invoke path.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use foldhash::{HashMap, HashMapExt};
use maitool_protocol::rpc::RpcPeer;
use maitool_protocol::wire::methods::{RegisterComponentsPayload, RunnerReadyPayload};
use parking_lot::{Mutex, RwLock};
use tokio::sync::{oneshot, watch};

use super::capabilities::CapabilityService;
use super::components::ComponentRegistry;
use super::config::{PluginSettings, ResolvedRunner, RuntimeConfig};
use super::executable::ExecutableId;
use super::listener::{Launches, SocketListener};
pub(crate) use super::live_peer::LivePeer;
use super::provider::PluginToolProvider;
use super::status::{PluginLoadState, PluginStatus, RunnerState, RunnerStatus};
use super::supervisor::Supervisor;
use crate::provider::ToolSetVersion;

/// Why the runtime could not start.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The socket could not be created.
    #[error("cannot create the plugin socket: {0}")]
    Socket(std::io::Error),
    /// Two runners share a name.
    #[error("duplicate runner name {0}")]
    DuplicateRunner(String),
    /// The configuration is invalid.
    #[error("{0}")]
    Config(String),
}

/// State shared by the supervisors, the connection handlers and the provider.
pub(crate) struct RuntimeShared {
    pub config: RuntimeConfig,
    pub components: ComponentRegistry,
    pub capabilities: Arc<CapabilityService>,
    pub version: ToolSetVersion,
    pub launches: Arc<Launches>,
    pub socket_path: PathBuf,
    /// Where each plugin's private data directory is made (`<root>/<plugin id>`); `None`:
    /// plugins get no data directory.
    pub plugin_data: Option<PathBuf>,
    /// Plugin id -> the runner that registered it.
    owners: RwLock<HashMap<String, String>>,
    /// The configured runners, for the plugin ids each is given: a runner may not announce
    /// an id configured for another (`check_announced_plugin_id`).
    configured: RwLock<Vec<ResolvedRunner>>,
    /// Plugin id -> the connection of its runner, for plugins that are loaded and whose
    /// runner is ready. The invoke path reads only this map.
    live: RwLock<HashMap<String, LivePeer>>,
    /// Runner name -> its state, for calls that wait for a restarting runner
    /// (`restart_wait.rs`).
    pub(super) states: RwLock<HashMap<String, watch::Receiver<RunnerState>>>,
}

impl RuntimeShared {
    /// Refuses a plugin id `runner` announces that is invalid or configured for another
    /// runner.
    pub(crate) fn check_announced(&self, runner: &str, plugin_id: &str) -> Result<(), String> {
        super::config::check_announced_plugin_id(&self.configured.read(), runner, plugin_id)
    }

    pub(crate) fn owner_of(&self, plugin_id: &str) -> Option<String> {
        self.owners.read().get(plugin_id).cloned()
    }

    pub(crate) fn live_peer(&self, plugin_id: &str) -> Option<LivePeer> {
        self.live.read().get(plugin_id).cloned()
    }

    pub(crate) fn is_live(&self, plugin_id: &str) -> bool {
        self.live.read().contains_key(plugin_id)
    }

    /// Makes `runner` the owner of `plugin_id` unless another runner owns it. Ok(true) when
    /// the claim is new, Ok(false) when the runner already owned it, Err(owner) otherwise.
    pub(crate) fn try_claim(&self, plugin_id: &str, runner: &str) -> Result<bool, String> {
        let mut owners = self.owners.write();
        match owners.get(plugin_id) {
            Some(owner) if owner == runner => Ok(false),
            Some(owner) => Err(owner.clone()),
            None => {
                owners.insert(plugin_id.to_owned(), runner.to_owned());
                Ok(true)
            }
        }
    }

    /// Undoes a claim whose registration failed.
    pub(crate) fn release_claim(&self, plugin_id: &str, runner: &str) {
        let mut owners = self.owners.write();
        if owners.get(plugin_id).map(String::as_str) == Some(runner) {
            owners.remove(plugin_id);
        }
    }

    /// Applies the operator's grants to a registered plugin and exposes it if its runner is
    /// already ready.
    pub(crate) fn claim_plugin(&self, runner: &RunnerShared, payload: &RegisterComponentsPayload) {
        let settings = runner
            .settings()
            .get(&payload.plugin_id)
            .cloned()
            .unwrap_or_default();
        self.capabilities.configure_plugin(
            &payload.plugin_id,
            settings.capabilities,
            settings.config,
        );
        runner.plugin_registered(payload, &self.components);
        if runner.state() == RunnerState::Ready
            && let Some(live) = runner.live()
        {
            self.live.write().insert(payload.plugin_id.clone(), live);
        }
        self.version.bump();
    }

    /// Withdraws a plugin its runner unloaded, and gives up the runner's claim on its id.
    pub(crate) fn unregister(&self, runner: &str, plugin_id: &str) {
        self.withdraw_plugin(plugin_id);
        self.release_claim(plugin_id, runner);
    }

    /// Removes a plugin's components (it failed or unloaded).
    pub(crate) fn withdraw_plugin(&self, plugin_id: &str) {
        self.live.write().remove(plugin_id);
        self.components.unregister_plugin(plugin_id);
        self.version.bump();
    }

    /// Exposes a ready runner's loaded plugins.
    pub(crate) fn expose(&self, runner: &str, plugins: &[String], peer: &LivePeer) {
        let owners = self.owners.read();
        let mut live = self.live.write();
        for plugin_id in plugins {
            if owners.get(plugin_id).map(String::as_str) == Some(runner) {
                live.insert(plugin_id.clone(), peer.clone());
            }
        }
        drop(live);
        drop(owners);
        self.version.bump();
    }

    /// Takes a runner that is about to be restarted off the invoke path, keeping its plugin
    /// claims and components: its tools leave listings, while calls to them wait for the
    /// restart (`restart_wait.rs`). The runner's state must already say it is restarting,
    /// so that a waiter never sees a ready runner without its plugins.
    pub(crate) fn park_runner(&self, runner: &str) {
        let plugins: Vec<String> = self
            .owners
            .read()
            .iter()
            .filter(|(_, r)| r.as_str() == runner)
            .map(|(p, _)| p.clone())
            .collect();
        {
            let mut live = self.live.write();
            for plugin in &plugins {
                live.remove(plugin);
            }
        }
        self.version.bump();
    }

    /// Withdraws everything a runner provided (it exited, hung or stopped).
    pub(crate) fn withdraw_runner(&self, runner: &str) {
        let plugins: Vec<String> = {
            let mut owners = self.owners.write();
            let plugins: Vec<String> = owners
                .iter()
                .filter(|(_, r)| r.as_str() == runner)
                .map(|(p, _)| p.clone())
                .collect();
            for plugin in &plugins {
                owners.remove(plugin);
            }
            plugins
        };
        {
            let mut live = self.live.write();
            for plugin in &plugins {
                live.remove(plugin);
            }
        }
        // Never take the component registry's lock while holding `live`: lookups hold the
        // registry's read lock while asking `is_live`, so that order deadlocks (found by the
        // chaos test: a runner exit during a call froze the supervisor and every caller).
        for plugin in &plugins {
            self.components.unregister_plugin(plugin);
        }
        self.version.bump();
    }
}

/// Mutable view of one runner.
#[derive(Debug)]
struct RunnerView {
    state: RunnerState,
    pid: Option<u32>,
    restart_count: u32,
    last_exit_reason: Option<String>,
    plugins: BTreeMap<String, PluginStatus>,
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
    fn new(launch: ResolvedRunner) -> Self {
        let plugins = launch
            .plugins
            .keys()
            .map(|id| (id.clone(), pending(id)))
            .collect();
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
            }),
            peer: RwLock::new(None),
            ready: Mutex::new(None),
            state_changes: watch::Sender::new(RunnerState::Starting),
            executable: Mutex::new(None),
        }
    }

    /// Records which file the executable is, right before a launch.
    pub(crate) fn note_executable(&self) {
        *self.executable.lock() = ExecutableId::of(&self.launch.executable);
    }

    /// Whether the executable is another file than at the latest launch (rebuilt or replaced
    /// at the same path). False before any launch.
    fn executable_changed(&self) -> bool {
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

    pub(crate) fn set_pid(&self, pid: Option<u32>) {
        self.view.write().pid = pid;
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
                PluginLoadState::Loaded | PluginLoadState::Pending | PluginLoadState::Unloaded
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
                status.state = PluginLoadState::Loaded;
                status.reason = None;
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
            for id in &ready.failed_plugins {
                let status = view
                    .plugins
                    .entry(id.clone())
                    .or_insert_with(|| pending(id));
                // A MaiBot runner reports a plugin the operator blocked as failed.
                if settings.get(id).is_some_and(|s| !s.enabled) {
                    status.state = PluginLoadState::Inactive;
                    status.reason = Some(super::maibot::DISABLED_REASON.into());
                } else {
                    status.state = PluginLoadState::Failed;
                    status.reason = ready.failed_plugin_reasons.get(id).cloned();
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

    fn plugin_registered(
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
        if !payload.capabilities_required.is_empty() {
            status.declared_capabilities = payload.capabilities_required.clone();
        }
        if status.state == PluginLoadState::Unloaded {
            status.state = PluginLoadState::Loaded;
            status.reason = None;
        }
        status.components = components
            .plugin_components(plugin_id)
            .iter()
            .map(|e| e.full_name.clone())
            .collect();
    }

    pub(crate) fn status(&self) -> RunnerStatus {
        let settings = self.settings.read();
        let view = self.view.read();
        RunnerStatus {
            name: self.name.clone(),
            executable: self.launch.executable.display().to_string(),
            pid: view.pid,
            state: view.state,
            restart_count: view.restart_count,
            last_exit_reason: view.last_exit_reason.clone(),
            plugins: view
                .plugins
                .values()
                .map(|plugin| PluginStatus {
                    granted_capabilities: settings
                        .get(&plugin.id)
                        .map(|s| s.capabilities.clone())
                        .unwrap_or_default(),
                    ..plugin.clone()
                })
                .collect(),
        }
    }
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
    }
}

/// One supervised runner: its state, its stop switch and its supervisor task.
struct RunnerSlot {
    shared: Arc<RunnerShared>,
    stop: watch::Sender<bool>,
    supervisor: Option<tokio::task::JoinHandle<()>>,
}

impl RunnerSlot {
    fn start(runtime: &Arc<RuntimeShared>, launch: ResolvedRunner) -> RunnerSlot {
        let shared = Arc::new(RunnerShared::new(launch));
        runtime
            .states
            .write()
            .insert(shared.name.clone(), shared.state_changes.subscribe());
        let (stop, stop_rx) = watch::channel(false);
        let supervisor = Supervisor::new(runtime.clone(), shared.clone(), stop_rx);
        RunnerSlot {
            shared,
            stop,
            supervisor: Some(tokio::spawn(supervisor.run())),
        }
    }

    /// Stops the runner gracefully and waits for its supervisor.
    async fn stop(mut self) {
        let _ = self.stop.send(true);
        if let Some(handle) = self.supervisor.take() {
            let _ = handle.await;
        }
    }
}

/// What [`PluginRuntime::apply`] did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ApplyReport {
    /// Runners started.
    pub added: Vec<String>,
    /// Runners stopped and removed.
    pub removed: Vec<String>,
    /// Runners restarted because their launch or plugin set changed.
    pub restarted: Vec<String>,
    /// Plugins whose configuration was delivered through `on_config_update`
    /// (`runner/plugin_id`), without a restart.
    pub reconfigured: Vec<String>,
    /// Plugins a MaiBot runner unloaded because the operator disabled them
    /// (`runner/plugin_id`), without a restart.
    pub unloaded: Vec<String>,
    /// Plugins that refused their new configuration or could not be unloaded
    /// (`runner/plugin_id: reason`); they keep the old settings.
    pub rejected: Vec<String>,
    /// Runners left running untouched.
    pub unchanged: Vec<String>,
}

/// The running plugin runtime.
pub struct PluginRuntime {
    shared: Arc<RuntimeShared>,
    runners: Mutex<Vec<RunnerSlot>>,
    /// Serialises `apply` and `shutdown`.
    changes: tokio::sync::Mutex<()>,
    _listener: SocketListener,
}

impl std::fmt::Debug for PluginRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginRuntime")
            .field("socket", &self.shared.socket_path)
            .finish_non_exhaustive()
    }
}

impl PluginRuntime {
    /// Binds the socket and starts a supervisor per runner. Returns at once; use
    /// [`PluginRuntime::wait_settled`] to wait for runners to become ready or fail.
    /// Plugins get no data directory; see [`PluginRuntime::start_with_data_dir`].
    pub fn start(
        config: RuntimeConfig,
        runners: Vec<ResolvedRunner>,
        capabilities: Arc<CapabilityService>,
        socket_parent: Option<PathBuf>,
    ) -> Result<Arc<PluginRuntime>, RuntimeError> {
        Self::start_with_data_dir(config, runners, capabilities, socket_parent, None)
    }

    /// [`PluginRuntime::start`], giving every enabled configured plugin a private (0700)
    /// data directory `<plugin_data>/<plugin id>`, created before each launch and sent in
    /// the plugin's bootstrap.
    pub fn start_with_data_dir(
        config: RuntimeConfig,
        runners: Vec<ResolvedRunner>,
        capabilities: Arc<CapabilityService>,
        socket_parent: Option<PathBuf>,
        plugin_data: Option<PathBuf>,
    ) -> Result<Arc<PluginRuntime>, RuntimeError> {
        config.validate().map_err(RuntimeError::Config)?;
        let mut names = std::collections::HashSet::new();
        for runner in &runners {
            if !names.insert(runner.name.clone()) {
                return Err(RuntimeError::DuplicateRunner(runner.name.clone()));
            }
        }
        let launches = Arc::new(Launches::default());
        let listener = SocketListener::start(
            socket_parent.as_deref(),
            launches.clone(),
            Duration::from_millis(config.handshake_timeout_ms),
        )
        .map_err(RuntimeError::Socket)?;
        let shared = Arc::new(RuntimeShared {
            config,
            components: ComponentRegistry::new(),
            capabilities,
            version: ToolSetVersion::new(),
            launches,
            socket_path: listener.path.clone(),
            plugin_data,
            owners: RwLock::new(HashMap::new()),
            configured: RwLock::new(runners.clone()),
            live: RwLock::new(HashMap::new()),
            states: RwLock::new(HashMap::new()),
        });
        let slots = runners
            .into_iter()
            .map(|launch| RunnerSlot::start(&shared, launch))
            .collect();
        Ok(Arc::new(PluginRuntime {
            shared,
            runners: Mutex::new(slots),
            changes: tokio::sync::Mutex::new(()),
            _listener: listener,
        }))
    }

    /// Waits until every runner is ready, failed or stopped, or `limit` passes. Returns true
    /// when all settled.
    pub async fn wait_settled(&self, limit: Duration) -> bool {
        self.wait_all(limit, |_| false).await
    }

    /// Waits until every runner is ready, failed or stopped, or has ended a launch (a runner
    /// that never connects, or exits at once, is restarted with backoff: its first failure is
    /// the answer a command that starts a host wants, not its retries), or `limit` passes.
    /// Returns true when all did.
    pub async fn wait_launched(&self, limit: Duration) -> bool {
        self.wait_all(limit, |runner| {
            runner.view.read().last_exit_reason.is_some()
        })
        .await
    }

    /// Waits until each runner is ready, failed or stopped, or `also` holds for it, or
    /// `limit` passes.
    async fn wait_all(&self, limit: Duration, also: impl Fn(&RunnerShared) -> bool) -> bool {
        let runners: Vec<Arc<RunnerShared>> = self
            .runners
            .lock()
            .iter()
            .map(|slot| slot.shared.clone())
            .collect();
        let all = async {
            for runner in &runners {
                let mut changes = runner.state_changes.subscribe();
                let _ = changes
                    .wait_for(|s| {
                        matches!(
                            s,
                            RunnerState::Ready | RunnerState::Failed | RunnerState::Stopped
                        ) || also(runner)
                    })
                    .await;
            }
        };
        tokio::time::timeout(limit, all).await.is_ok()
    }

    /// The tool provider over this runtime.
    pub fn provider(self: &Arc<Self>) -> Arc<PluginToolProvider> {
        Arc::new(PluginToolProvider::new(self.shared.clone()))
    }

    /// Status of every runner, in configuration order.
    pub fn status(&self) -> Vec<RunnerStatus> {
        self.runners
            .lock()
            .iter()
            .map(|slot| slot.shared.status())
            .collect()
    }

    /// The component registry.
    pub fn components(&self) -> &ComponentRegistry {
        &self.shared.components
    }

    /// The capability service.
    pub fn capabilities(&self) -> &Arc<CapabilityService> {
        &self.shared.capabilities
    }

    /// The tool-set version, bumped whenever plugin tools appear or disappear.
    pub fn tool_set_version(&self) -> ToolSetVersion {
        self.shared.version.clone()
    }

    /// Enables or disables a component globally or for one session.
    pub fn set_component_enabled(
        &self,
        name: &str,
        enabled: bool,
        session: Option<&str>,
    ) -> Result<String, String> {
        let full_name = self.shared.components.set_enabled(name, enabled, session)?;
        self.shared.version.bump();
        Ok(full_name)
    }

    /// The socket runners connect to.
    pub fn socket_path(&self) -> &std::path::Path {
        &self.shared.socket_path
    }

    /// Stops every runner gracefully (`prepare_shutdown`, `shutdown`, SIGTERM, SIGKILL) and
    /// waits for the supervisors to finish.
    pub async fn shutdown(&self) {
        let _guard = self.changes.lock().await;
        let slots: Vec<RunnerSlot> = std::mem::take(&mut *self.runners.lock());
        futures::future::join_all(slots.into_iter().map(RunnerSlot::stop)).await;
    }

    /// Brings the runner set in line with `runners` (a reloaded configuration): starts added
    /// runners, stops removed ones, restarts those whose launch (executable, arguments,
    /// environment), executable file (rebuilt or replaced at the same path since its launch)
    /// or plugin set or enabled flags changed, delivers changed plugin
    /// configurations and grants to running plugins through `plugin.config_updated` without a
    /// restart, and leaves the rest running.
    pub async fn apply(&self, runners: Vec<ResolvedRunner>) -> ApplyReport {
        let _guard = self.changes.lock().await;
        *self.shared.configured.write() = runners.clone();
        let mut report = ApplyReport::default();
        let mut current: Vec<RunnerSlot> = std::mem::take(&mut *self.runners.lock());
        let mut next = Vec::with_capacity(runners.len());
        let mut to_stop = Vec::new();
        let mut to_start = Vec::new();
        for launch in runners {
            let Some(position) = current
                .iter()
                .position(|slot| slot.shared.name == launch.name)
            else {
                report.added.push(launch.name.clone());
                to_start.push(launch);
                continue;
            };
            let slot = current.remove(position);
            let old = &slot.shared.launch;
            let old_settings = slot.shared.settings();
            let same_launch = old.executable == launch.executable
                && old.args == launch.args
                && old.env == launch.env
                && match (&old.maibot, &launch.maibot) {
                    (Some(old), Some(new)) => old.same_launch(new),
                    (None, None) => true,
                    _ => false,
                }
                && !slot.shared.executable_changed();
            let same_ids = old_settings.len() == launch.plugins.len()
                && old_settings
                    .keys()
                    .all(|id| launch.plugins.contains_key(id));
            let toggled: Vec<(&String, bool)> = old_settings
                .iter()
                .filter_map(|(id, s)| {
                    let now = launch.plugins.get(id)?.enabled;
                    (now != s.enabled).then_some((id, now))
                })
                .collect();
            // A MaiBot runner unloads a plugin the operator disabled in place; enabling one
            // needs a restart, since the runner's blocked list is fixed at its launch.
            let unload_in_place = launch.maibot.is_some()
                && slot.shared.state() == RunnerState::Ready
                && toggled.iter().all(|(_, enabled)| !enabled);
            if !same_launch || !same_ids || (!toggled.is_empty() && !unload_in_place) {
                report.restarted.push(launch.name.clone());
                to_stop.push(slot);
                to_start.push(launch);
                continue;
            }
            let mut plugins = launch.plugins.clone();
            if !toggled.is_empty() {
                let disabled: Vec<String> = toggled.iter().map(|(id, _)| (*id).clone()).collect();
                let refused = self.unload(&slot.shared, &disabled, &mut report).await;
                // A plugin that could not be unloaded keeps its old settings, so the next
                // reload tries again.
                for id in refused {
                    if let Some(old) = old_settings.get(&id) {
                        plugins.insert(id, old.clone());
                    }
                }
            }
            if old_settings == plugins {
                report.unchanged.push(launch.name.clone());
            } else {
                self.reconfigure(&slot.shared, &old_settings, &plugins, &mut report)
                    .await;
            }
            next.push(slot);
        }
        for slot in current {
            report.removed.push(slot.shared.name.clone());
            to_stop.push(slot);
        }
        // A restarted runner's old process is gone (and its tools withdrawn) before its
        // replacement starts, so the two never compete for the same plugin ids.
        futures::future::join_all(to_stop.into_iter().map(RunnerSlot::stop)).await;
        next.extend(
            to_start
                .into_iter()
                .map(|launch| RunnerSlot::start(&self.shared, launch)),
        );
        *self.runners.lock() = next;
        self.shared.version.bump();
        report
    }

    /// Reloads one plugin. A MaiBot runner reloads it in place (`plugin.reload`: the runner
    /// unregisters it, imports its folder again and registers it anew); any other runner is
    /// restarted in the background, since a maitool runner loads its plugins once at start
    /// (the call returns before the restart, so a plugin may reload itself). Returns what
    /// happened, for the caller.
    pub async fn reload_plugin(self: &Arc<Self>, plugin_id: &str) -> Result<String, String> {
        let owner = self.shared.owner_of(plugin_id);
        let runner = self
            .runners
            .lock()
            .iter()
            .find(|slot| {
                owner.as_deref() == Some(slot.shared.name.as_str())
                    || slot.shared.settings().contains_key(plugin_id)
            })
            .map(|slot| slot.shared.clone());
        let runner = runner.ok_or_else(|| format!("no runner hosts plugin {plugin_id}"))?;
        if runner.launch.maibot.is_none() {
            let this = self.clone();
            let name = runner.name.clone();
            tokio::spawn(async move {
                if let Err(err) = this.restart_runner(&name).await {
                    tracing::warn!(runner = %name, "restart for a plugin reload failed: {err}");
                }
            });
            return Ok(format!("runner {} is restarting", runner.name));
        }
        let peer = runner
            .peer()
            .ok_or_else(|| format!("runner {} is not connected", runner.name))?;
        let answer = super::maibot::reload_plugin(&peer, plugin_id).await?;
        if answer.success && answer.reloaded_plugins.iter().any(|p| p == plugin_id) {
            Ok(format!("reloaded by runner {}", runner.name))
        } else {
            Err(answer
                .failed_plugins
                .get(plugin_id)
                .cloned()
                .unwrap_or_else(|| format!("runner {} did not reload it", runner.name)))
        }
    }

    /// Stops runner `name` gracefully and starts it again with its current settings.
    pub async fn restart_runner(&self, name: &str) -> Result<(), String> {
        let _guard = self.changes.lock().await;
        let (position, slot) = {
            let mut runners = self.runners.lock();
            let position = runners
                .iter()
                .position(|slot| slot.shared.name == name)
                .ok_or_else(|| format!("no runner {name}"))?;
            (position, runners.remove(position))
        };
        let launch = ResolvedRunner {
            plugins: slot.shared.settings(),
            ..slot.shared.launch.clone()
        };
        slot.stop().await;
        let restarted = RunnerSlot::start(&self.shared, launch);
        let mut runners = self.runners.lock();
        let position = position.min(runners.len());
        runners.insert(position, restarted);
        drop(runners);
        self.shared.version.bump();
        tracing::info!(runner = %name, "runner restarted on request");
        Ok(())
    }

    /// Asks a MaiBot runner to unload `plugins` (`plugin.unload_batch`); it withdraws each
    /// through `plugin.unregister`. Returns the plugins that stayed loaded.
    async fn unload(
        &self,
        runner: &Arc<RunnerShared>,
        plugins: &[String],
        report: &mut ApplyReport,
    ) -> Vec<String> {
        let outcome = match runner.peer() {
            Some(peer) => super::maibot::unload_plugins(&peer, plugins).await,
            None => Err("the runner is not connected".to_owned()),
        };
        let mut refused = Vec::new();
        for plugin_id in plugins {
            let label = format!("{}/{plugin_id}", runner.name);
            let failure = match &outcome {
                Ok(answer) if answer.unloaded_plugins.contains(plugin_id) => None,
                Ok(answer) => Some(
                    answer
                        .failed_plugins
                        .get(plugin_id)
                        .cloned()
                        .unwrap_or_else(|| "the runner did not unload it".to_owned()),
                ),
                Err(reason) => Some(reason.clone()),
            };
            match failure {
                None => report.unloaded.push(label),
                Some(reason) => {
                    tracing::warn!(runner = %runner.name, plugin_id = %plugin_id, "could not unload the disabled plugin: {reason}");
                    report.rejected.push(format!("{label}: {reason}"));
                    refused.push(plugin_id.clone());
                }
            }
        }
        refused
    }

    async fn reconfigure(
        &self,
        runner: &Arc<RunnerShared>,
        old: &BTreeMap<String, PluginSettings>,
        new: &BTreeMap<String, PluginSettings>,
        report: &mut ApplyReport,
    ) {
        let mut accepted = old.clone();
        for (plugin_id, settings) in new {
            if old.get(plugin_id) == Some(settings) {
                continue;
            }
            if !settings.enabled {
                // Disabled (and unloaded): it gets its settings if it is enabled again.
                accepted.insert(plugin_id.clone(), settings.clone());
                continue;
            }
            let label = format!("{}/{plugin_id}", runner.name);
            let config_changed = settings.config
                != old
                    .get(plugin_id)
                    .map(|s| s.config.clone())
                    .unwrap_or_default();
            let outcome = match (
                runner.peer(),
                self.shared.owner_of(plugin_id).as_deref() == Some(runner.name.as_str()),
            ) {
                (Some(peer), true) if config_changed => {
                    super::config_update::update_config(&peer, plugin_id, &settings.config).await
                }
                // Grants only, or the plugin is not running now: it gets the settings at its
                // next launch.
                _ => Ok(()),
            };
            match outcome {
                Ok(()) => {
                    self.shared.capabilities.configure_plugin(
                        plugin_id,
                        settings.capabilities.clone(),
                        settings.config.clone(),
                    );
                    accepted.insert(plugin_id.clone(), settings.clone());
                    report.reconfigured.push(label);
                }
                Err(reason) => {
                    tracing::warn!(runner = %runner.name, plugin_id = %plugin_id, "new configuration rejected: {reason}");
                    report.rejected.push(format!("{label}: {reason}"));
                }
            }
        }
        runner.set_settings(accepted);
    }
}

impl Drop for PluginRuntime {
    fn drop(&mut self) {
        // Supervisors kill their process groups when they see the stop signal; a runtime
        // dropped without `shutdown` still must not leave runners behind.
        for slot in self.runners.lock().iter() {
            let _ = slot.stop.send(true);
        }
    }
}
