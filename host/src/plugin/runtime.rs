//! The plugin runtime's facade, [`PluginRuntime`]: it assembles the socket, the shared state
//! (`shared.rs`, `runner_shared.rs`) and one supervisor per runner, and applies configuration
//! changes. Nothing else in `plugin/` depends on it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::watch;

mod control;
mod pools;

pub use pools::PoolsReport;

use super::apis::ApiRegistry;
use super::capabilities::CapabilityService;
use super::components::ComponentRegistry;
use super::config::{PluginSettings, ResolvedRunner, RuntimeConfig};
use super::config_update::ConfigUpdateError;
use super::hook_dispatch::HookDispatcher;
use super::hooks::HookRegistry;
use super::listener::{Launches, SocketListener};
use super::provider::PluginToolProvider;
use super::reconfigure::deliver;
use super::runner_shared::RunnerShared;
use super::runtime_error::{ReloadError, RestartError, RuntimeError};
use super::shared::{ConfigErrorOrigin, RuntimeShared};
use super::status::{RunnerState, RunnerStatus};
use super::supervisor::Supervisor;
use super::toggles::{LocalToggles, ToggleError, ToggleStore};
use crate::maibot_env::Mode;
use crate::provider::ToolSetVersion;

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
    /// Plugins whose new configuration is invalid (`runner/plugin_id: reason`): their tools
    /// are paused until a reload brings a valid one (the `config_error` state).
    pub paused: Vec<String>,
    /// Runners left running untouched.
    pub unchanged: Vec<String>,
}

/// How a [`PluginRuntime`] starts, besides its configuration.
#[derive(Debug, Clone)]
pub struct RuntimeOptions {
    /// The parent of the private runner-socket directory (the system's temporary directory
    /// unless set).
    pub socket_parent: Option<PathBuf>,
    /// Where plugins' private data directories are made; none unless set.
    pub plugin_data: Option<PathBuf>,
    /// Whether MaiBot runners' Python environments are installed or only checked.
    pub environments: Mode,
    /// Where component toggles are kept beyond this host (none by default).
    pub toggles: Arc<dyn ToggleStore>,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions {
            socket_parent: None,
            plugin_data: None,
            environments: Mode::Install,
            toggles: Arc::new(LocalToggles),
        }
    }
}

/// The running plugin runtime.
pub struct PluginRuntime {
    shared: Arc<RuntimeShared>,
    hooks: Arc<HookDispatcher>,
    runners: Mutex<Vec<RunnerSlot>>,
    /// Serialises `apply` and `shutdown`.
    changes: tokio::sync::Mutex<()>,
    toggles: Arc<dyn ToggleStore>,
    _listener: SocketListener,
    /// The runner pools (`runtime/pools.rs`).
    pools: Mutex<Vec<Arc<super::pool::Pool>>>,
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
        Self::start_with_options(
            config,
            runners,
            capabilities,
            RuntimeOptions {
                socket_parent,
                plugin_data,
                environments: Mode::Install,
                toggles: Arc::new(LocalToggles),
            },
        )
    }

    /// [`PluginRuntime::start`] with every option: the socket's parent, the plugins' data
    /// directories, and whether MaiBot runners' Python environments are installed
    /// ([`Mode::Install`], as `serve` does) or only checked ([`Mode::CheckOnly`], as a
    /// one-shot command does: it must not spend minutes installing).
    pub fn start_with_options(
        config: RuntimeConfig,
        runners: Vec<ResolvedRunner>,
        capabilities: Arc<CapabilityService>,
        options: RuntimeOptions,
    ) -> Result<Arc<PluginRuntime>, RuntimeError> {
        let RuntimeOptions {
            socket_parent,
            plugin_data,
            environments,
            toggles,
        } = options;
        config.validate()?;
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
        let shared = Arc::new(RuntimeShared::new(
            config,
            capabilities,
            launches,
            listener.path.clone(),
            plugin_data,
            environments,
            runners.clone(),
        ));
        let slots = runners
            .into_iter()
            .map(|launch| RunnerSlot::start(&shared, launch))
            .collect();
        Ok(Arc::new(PluginRuntime {
            hooks: Arc::new(HookDispatcher::new(shared.clone())),
            shared,
            runners: Mutex::new(slots),
            changes: tokio::sync::Mutex::new(()),
            toggles,
            _listener: listener,
            pools: Mutex::new(Vec::new()),
        }))
    }

    /// Waits until every runner is ready, failed or stopped, or `limit` passes. Returns true
    /// when all settled.
    pub async fn wait_settled(&self, limit: Duration) -> bool {
        self.wait_all(limit, |_| false).await
    }

    /// Waits until every runner is ready, failed or stopped, or has ended a launch (a runner
    /// that never connects, or exits at once, is restarted with backoff: its first failure is
    /// the answer a command that starts a host wants, not its retries), or is preparing its
    /// Python environment (which may take minutes: the host serves meanwhile), or `limit`
    /// passes. Returns true when all did.
    pub async fn wait_launched(&self, limit: Duration) -> bool {
        self.wait_all(limit, |runner| {
            runner.has_ended_a_launch() || runner.state() == RunnerState::Preparing
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

    /// Status of every runner, in configuration order, with each plugin's circuit breaker.
    pub fn status(&self) -> Vec<RunnerStatus> {
        let mut statuses: Vec<RunnerStatus> = self
            .runners
            .lock()
            .iter()
            .map(|slot| slot.shared.status())
            .collect();
        for plugin in statuses.iter_mut().flat_map(|runner| &mut runner.plugins) {
            plugin.circuit = self.shared.breakers.status(&plugin.id);
        }
        statuses
    }

    /// The configuration schema and defaults `plugin_id` reported when it last registered;
    /// `None` when no runner of this runtime has registered it.
    pub fn registered_config(&self, plugin_id: &str) -> Option<super::RegisteredConfig> {
        self.runners
            .lock()
            .iter()
            .find_map(|slot| slot.shared.registered_config(plugin_id))
    }

    /// The component registry.
    pub fn components(&self) -> &ComponentRegistry {
        &self.shared.components
    }

    /// What runs the plugins' hook handlers: attach it to the registry
    /// ([`ToolRegistry::attach_hooks`](crate::ToolRegistry::attach_hooks)) and run named hooks
    /// with [`crate::hook::run_named`].
    pub fn hooks(&self) -> &Arc<HookDispatcher> {
        &self.hooks
    }

    /// The plugins' APIs.
    pub fn apis(&self) -> &ApiRegistry {
        &self.shared.apis
    }

    /// The plugins' hook handlers, runnable or not.
    pub fn hook_handlers(&self) -> &HookRegistry {
        &self.shared.hooks
    }

    /// The capability service.
    pub fn capabilities(&self) -> &Arc<CapabilityService> {
        &self.shared.capabilities
    }

    /// The tool-set version, bumped whenever plugin tools appear or disappear.
    pub fn tool_set_version(&self) -> ToolSetVersion {
        self.shared.version.clone()
    }

    /// Enables or disables a component globally or for one session. The toggle store
    /// records it first: when it cannot, nothing changes here either.
    pub async fn set_component_enabled(
        &self,
        name: &str,
        enabled: bool,
        session: Option<&str>,
    ) -> Result<String, ToggleError> {
        let full_name = self.shared.components.resolve_name(name)?;
        self.toggles.save(&full_name, session, enabled).await?;
        self.shared
            .components
            .set_enabled(&full_name, enabled, session)?;
        self.shared.version.bump();
        Ok(full_name)
    }

    /// Reads every toggle from the toggle store again (a shared store another host changed)
    /// and applies them; nothing to do for a store that keeps none.
    pub async fn reload_toggles(&self) -> Result<(), ToggleError> {
        if let Some(disabled) = self.toggles.load().await? {
            self.shared.components.replace_toggles(
                disabled
                    .into_iter()
                    .map(|toggle| (toggle.full_name, toggle.session_id)),
            );
            self.shared.version.bump();
        }
        Ok(())
    }

    /// Whether calls to `plugin_id` can be routed: its runner serves it, or is (re)starting
    /// and a call waits for it.
    pub fn is_routable(&self, plugin_id: &str) -> bool {
        self.shared.is_routable(plugin_id)
    }

    /// The limit of a component call whose declaration sets none
    /// (`plugin_runtime.default_tool_timeout_ms`).
    pub fn default_component_timeout_ms(&self) -> u64 {
        self.shared.config.default_tool_timeout_ms
    }

    /// Runs a component of `plugin_id` that is not a tool (`plugin.invoke_command`,
    /// `plugin.emit_event`, ...) with `payload`, and decodes its answer. A restarting runner
    /// is waited for within `timeout`, as a tool call waits.
    pub async fn call_component<T: serde::de::DeserializeOwned>(
        &self,
        plugin_id: &str,
        method: &str,
        payload: &maitool_protocol::wire::methods::InvokePayload,
        timeout: Duration,
    ) -> Result<T, super::ComponentCallError> {
        self.shared
            .call_component(plugin_id, method, payload, timeout)
            .await
    }

    /// Hands the chat messages plugins route (`host.route_message`) to `taker` from now on.
    pub fn attach_inbound<T: super::InboundMessages>(&self, taker: &Arc<T>) {
        let weak: std::sync::Weak<T> = Arc::downgrade(taker);
        self.shared.inbound.set(weak);
    }

    /// The socket runners connect to.
    pub fn socket_path(&self) -> &std::path::Path {
        &self.shared.socket_path
    }

    /// Stops every runner gracefully (`prepare_shutdown`, `shutdown`, SIGTERM, SIGKILL) and
    /// waits for the supervisors to finish.
    pub async fn shutdown(&self) {
        let _guard = self.changes.lock().await;
        self.stop_pools();
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
        self.shared.set_configured(runners.clone());
        let mut report = ApplyReport::default();
        // Runners stay listed while their changes are worked out and applied (unloads and
        // configuration updates take round trips), so that `status`, a plugin reload or a
        // configuration lookup during a reload still finds them; a runner leaves the list
        // only when it is stopped.
        let current: Vec<Arc<RunnerShared>> = self
            .runners
            .lock()
            .iter()
            .map(|slot| slot.shared.clone())
            .collect();
        let order: Vec<String> = runners.iter().map(|launch| launch.name.clone()).collect();
        let mut kept = Vec::new();
        let mut to_start = Vec::new();
        for launch in runners {
            let Some(shared) = current.iter().find(|shared| shared.name == launch.name) else {
                report.added.push(launch.name.clone());
                to_start.push(launch);
                continue;
            };
            let old = &shared.launch;
            let old_settings = shared.settings();
            let same_launch = old.executable == launch.executable
                && old.args == launch.args
                && old.env == launch.env
                && old.sandbox == launch.sandbox
                && old.plugin_dir == launch.plugin_dir
                && match (&old.maibot, &launch.maibot) {
                    (Some(old), Some(new)) => old.same_launch(new),
                    (None, None) => true,
                    _ => false,
                }
                && !shared.executable_changed();
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
                && shared.state() == RunnerState::Ready
                && toggled.iter().all(|(_, enabled)| !enabled);
            if !same_launch || !same_ids || (!toggled.is_empty() && !unload_in_place) {
                report.restarted.push(launch.name.clone());
                to_start.push(launch);
                continue;
            }
            let mut plugins = launch.plugins.clone();
            if !toggled.is_empty() {
                let disabled: Vec<String> = toggled.iter().map(|(id, _)| (*id).clone()).collect();
                let refused = self.unload(shared, &disabled, &mut report).await;
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
                self.reconfigure(shared, &old_settings, &plugins, &mut report)
                    .await;
            }
            kept.push(launch.name);
        }
        report.removed.extend(
            current
                .iter()
                .filter(|shared| !order.contains(&shared.name))
                .map(|shared| shared.name.clone()),
        );
        let to_stop: Vec<RunnerSlot> = {
            let mut listed = self.runners.lock();
            let (stay, go) = std::mem::take(&mut *listed)
                .into_iter()
                .partition(|slot| kept.contains(&slot.shared.name));
            *listed = stay;
            go
        };
        // A restarted runner's old process is gone (and its tools withdrawn) before its
        // replacement starts, so the two never compete for the same plugin ids.
        futures::future::join_all(to_stop.into_iter().map(RunnerSlot::stop)).await;
        let started: Vec<RunnerSlot> = to_start
            .into_iter()
            .map(|launch| RunnerSlot::start(&self.shared, launch))
            .collect();
        {
            // Kept runners first, in the configuration's order, then the started ones, in
            // theirs.
            let mut listed = self.runners.lock();
            listed.sort_by_key(|slot| order.iter().position(|name| *name == slot.shared.name));
            listed.extend(started);
        }
        self.shared.version.bump();
        report
    }

    /// Reloads one plugin. A MaiBot runner reloads it in place (`plugin.reload`: the runner
    /// unregisters it, imports its folder again and registers it anew); any other runner is
    /// restarted in the background, since a maitool runner loads its plugins once at start
    /// (the call returns before the restart, so a plugin may reload itself). Returns what
    /// happened, for the caller.
    pub async fn reload_plugin(self: &Arc<Self>, plugin_id: &str) -> Result<String, ReloadError> {
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
        let runner = runner.ok_or_else(|| ReloadError::NoRunner(plugin_id.to_owned()))?;
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
            .ok_or_else(|| ReloadError::NotConnected(runner.name.clone()))?;
        let answer = super::maibot::reload_plugin(&peer, plugin_id).await?;
        if answer.success && answer.reloaded_plugins.iter().any(|p| p == plugin_id) {
            Ok(format!("reloaded by runner {}", runner.name))
        } else {
            Err(match answer.failed_plugins.get(plugin_id) {
                Some(reason) => ReloadError::Failed(reason.clone()),
                None => ReloadError::NotReloaded(runner.name.clone()),
            })
        }
    }

    /// Stops runner `name` gracefully and starts it again with its current settings.
    pub async fn restart_runner(&self, name: &str) -> Result<(), RestartError> {
        let _guard = self.changes.lock().await;
        let (position, slot) = {
            let mut runners = self.runners.lock();
            let position = runners
                .iter()
                .position(|slot| slot.shared.name == name)
                .ok_or_else(|| RestartError::NoRunner(name.to_owned()))?;
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
            Some(peer) => super::maibot::unload_plugins(&peer, plugins)
                .await
                .map_err(|err| err.to_string()),
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
            let owned = self.shared.owner_of(plugin_id).as_deref() == Some(runner.name.as_str());
            let outcome = match runner.peer() {
                Some(peer) if owned => {
                    deliver(
                        &self.shared,
                        runner,
                        &peer,
                        plugin_id,
                        &settings.config,
                        config_changed,
                    )
                    .await
                }
                // The plugin is not running now: it gets the settings at its next launch.
                _ => Ok(()),
            };
            match outcome {
                Ok(()) => {
                    self.shared.capabilities.configure_plugin(
                        plugin_id,
                        settings.grants(),
                        settings.config.clone(),
                    );
                    self.shared.resume_plugin(runner, plugin_id);
                    accepted.insert(plugin_id.clone(), settings.clone());
                    report.reconfigured.push(label);
                }
                Err(ConfigUpdateError::Invalid(problem)) => {
                    // The operator's intent is recorded, so that going back to a valid
                    // document is a change the next reload delivers.
                    self.shared.pause_plugin(
                        runner,
                        plugin_id,
                        &problem,
                        ConfigErrorOrigin::Update,
                    );
                    accepted.insert(plugin_id.clone(), settings.clone());
                    report
                        .paused
                        .push(format!("{label}: invalid configuration: {problem}"));
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
