//! The plugin runtime: the socket, every runner's supervisor, the component registry and
//! the state the provider reads on the invoke path.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use maitool_protocol::rpc::RpcPeer;
use maitool_protocol::wire::methods::{RegisterComponentsPayload, RunnerReadyPayload};
use parking_lot::{Mutex, RwLock};
use tokio::sync::{oneshot, watch};

use super::capabilities::CapabilityService;
use super::components::ComponentRegistry;
use super::config::{PluginSettings, ResolvedRunner, RuntimeConfig};
use super::listener::{Launches, SocketListener};
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
    /// Plugin id -> the runner that registered it.
    owners: RwLock<HashMap<String, String>>,
    /// Plugin id -> the connection of its runner, for plugins that are loaded and whose
    /// runner is ready. The invoke path reads only this map.
    live: RwLock<HashMap<String, RpcPeer>>,
}

impl RuntimeShared {
    pub(crate) fn owner_of(&self, plugin_id: &str) -> Option<String> {
        self.owners.read().get(plugin_id).cloned()
    }

    pub(crate) fn live_peer(&self, plugin_id: &str) -> Option<RpcPeer> {
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
        let settings = runner.settings.get(&payload.plugin_id).cloned().unwrap_or_default();
        self.capabilities.configure_plugin(&payload.plugin_id, settings.capabilities, settings.config);
        runner.plugin_registered(&payload.plugin_id, &payload.plugin_version, &self.components);
        if runner.state() == RunnerState::Ready {
            if let Some(peer) = runner.peer() {
                self.live.write().insert(payload.plugin_id.clone(), peer);
            }
        }
        self.version.bump();
    }

    /// Removes a plugin's components (it failed or unloaded).
    pub(crate) fn withdraw_plugin(&self, plugin_id: &str) {
        self.live.write().remove(plugin_id);
        self.components.unregister_plugin(plugin_id);
        self.version.bump();
    }

    /// Exposes a ready runner's loaded plugins.
    pub(crate) fn expose(&self, runner: &str, plugins: &[String], peer: &RpcPeer) {
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

    /// Withdraws everything a runner provided (it exited, hung or stopped).
    pub(crate) fn withdraw_runner(&self, runner: &str) {
        let plugins: Vec<String> = {
            let mut owners = self.owners.write();
            let plugins: Vec<String> = owners.iter().filter(|(_, r)| r.as_str() == runner).map(|(p, _)| p.clone()).collect();
            for plugin in &plugins {
                owners.remove(plugin);
            }
            plugins
        };
        let mut live = self.live.write();
        for plugin in &plugins {
            live.remove(plugin);
            self.components.unregister_plugin(plugin);
        }
        drop(live);
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
    pub settings: BTreeMap<String, PluginSettings>,
    view: RwLock<RunnerView>,
    peer: RwLock<Option<RpcPeer>>,
    ready: Mutex<Option<oneshot::Sender<RunnerReadyPayload>>>,
    pub state_changes: watch::Sender<RunnerState>,
}

impl RunnerShared {
    fn new(launch: ResolvedRunner) -> Self {
        let plugins = launch
            .plugins
            .keys()
            .map(|id| {
                (id.clone(), PluginStatus { id: id.clone(), version: String::new(), state: PluginLoadState::Pending, reason: None, components: Vec::new() })
            })
            .collect();
        Self {
            name: launch.name.clone(),
            settings: launch.plugins.clone(),
            launch,
            view: RwLock::new(RunnerView { state: RunnerState::Starting, pid: None, restart_count: 0, last_exit_reason: None, plugins }),
            peer: RwLock::new(None),
            ready: Mutex::new(None),
            state_changes: watch::Sender::new(RunnerState::Starting),
        }
    }

    pub(crate) fn state(&self) -> RunnerState {
        self.view.read().state
    }

    pub(crate) fn set_state(&self, state: RunnerState) {
        self.view.write().state = state;
        self.state_changes.send_replace(state);
    }

    pub(crate) fn peer(&self) -> Option<RpcPeer> {
        self.peer.read().clone()
    }

    pub(crate) fn set_peer(&self, peer: Option<RpcPeer>) {
        *self.peer.write() = peer;
    }

    pub(crate) fn set_pid(&self, pid: Option<u32>) {
        self.view.write().pid = pid;
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
                view.plugins.entry(id.clone()).or_insert_with(|| pending(id)).state = PluginLoadState::Loaded;
            }
            for id in &ready.inactive_plugins {
                let status = view.plugins.entry(id.clone()).or_insert_with(|| pending(id));
                status.state = PluginLoadState::Inactive;
                status.reason = Some("disabled by configuration".into());
            }
            for id in &ready.failed_plugins {
                let status = view.plugins.entry(id.clone()).or_insert_with(|| pending(id));
                status.state = PluginLoadState::Failed;
                status.reason = ready.failed_plugin_reasons.get(id).cloned();
                status.components.clear();
            }
        }
        if let Some(sender) = self.ready.lock().take() {
            let _ = sender.send(ready);
        }
    }

    fn plugin_registered(&self, plugin_id: &str, version: &str, components: &ComponentRegistry) {
        let mut view = self.view.write();
        let status = view.plugins.entry(plugin_id.to_owned()).or_insert_with(|| pending(plugin_id));
        status.version = version.to_owned();
        status.components = components.plugin_components(plugin_id).iter().map(|e| e.full_name.clone()).collect();
    }

    pub(crate) fn status(&self) -> RunnerStatus {
        let view = self.view.read();
        RunnerStatus {
            name: self.name.clone(),
            executable: self.launch.executable.display().to_string(),
            pid: view.pid,
            state: view.state,
            restart_count: view.restart_count,
            last_exit_reason: view.last_exit_reason.clone(),
            plugins: view.plugins.values().cloned().collect(),
        }
    }
}

fn pending(id: &str) -> PluginStatus {
    PluginStatus { id: id.to_owned(), version: String::new(), state: PluginLoadState::Pending, reason: None, components: Vec::new() }
}

/// The running plugin runtime.
pub struct PluginRuntime {
    shared: Arc<RuntimeShared>,
    runners: Vec<Arc<RunnerShared>>,
    supervisors: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    stop: watch::Sender<bool>,
    _listener: SocketListener,
}

impl std::fmt::Debug for PluginRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginRuntime").field("socket", &self.shared.socket_path).finish_non_exhaustive()
    }
}

impl PluginRuntime {
    /// Binds the socket and starts a supervisor per runner. Returns at once; use
    /// [`PluginRuntime::wait_settled`] to wait for runners to become ready or fail.
    pub fn start(
        config: RuntimeConfig,
        runners: Vec<ResolvedRunner>,
        capabilities: Arc<CapabilityService>,
        socket_parent: Option<PathBuf>,
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
            owners: RwLock::new(HashMap::new()),
            live: RwLock::new(HashMap::new()),
        });
        let (stop, stop_rx) = watch::channel(false);
        let runners: Vec<Arc<RunnerShared>> = runners.into_iter().map(|r| Arc::new(RunnerShared::new(r))).collect();
        let supervisors = runners
            .iter()
            .map(|runner| {
                let supervisor = Supervisor::new(shared.clone(), runner.clone(), stop_rx.clone());
                tokio::spawn(supervisor.run())
            })
            .collect();
        Ok(Arc::new(PluginRuntime { shared, runners, supervisors: Mutex::new(supervisors), stop, _listener: listener }))
    }

    /// Waits until every runner is ready, failed or stopped, or `limit` passes. Returns true
    /// when all settled.
    pub async fn wait_settled(&self, limit: Duration) -> bool {
        let all = async {
            for runner in &self.runners {
                let mut changes = runner.state_changes.subscribe();
                let _ = changes
                    .wait_for(|s| matches!(s, RunnerState::Ready | RunnerState::Failed | RunnerState::Stopped))
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
        self.runners.iter().map(|r| r.status()).collect()
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
    pub fn set_component_enabled(&self, name: &str, enabled: bool, session: Option<&str>) -> Result<String, String> {
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
        let _ = self.stop.send(true);
        let handles: Vec<_> = std::mem::take(&mut *self.supervisors.lock());
        for handle in handles {
            let _ = handle.await;
        }
    }
}

impl Drop for PluginRuntime {
    fn drop(&mut self) {
        // Supervisors kill their process groups when they see the stop signal; a runtime
        // dropped without `shutdown` still must not leave runners behind.
        let _ = self.stop.send(true);
    }
}
