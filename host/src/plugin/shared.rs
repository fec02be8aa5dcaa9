//! The runtime's state shared by the supervisors, the connection handlers and the provider:
//! which runner owns each plugin, the live connection of each ready plugin, and each runner's
//! state for calls that wait for a restart.

use std::path::PathBuf;
use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};
use maitool_protocol::wire::methods::RegisterComponentsPayload;
use parking_lot::RwLock;
use tokio::sync::watch;

use super::apis::ApiRegistry;
use super::capabilities::CapabilityService;
use super::components::ComponentRegistry;
use super::config::{AnnouncedIdError, ResolvedRunner, RuntimeConfig};
use super::hooks::HookRegistry;
use super::listener::Launches;
use super::live_peer::LivePeer;
use super::runner_shared::RunnerShared;
use super::status::RunnerState;
use crate::provider::ToolSetVersion;

/// A plugin id another runner has already registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("plugin {plugin_id} is already provided by runner {owner}")]
pub(crate) struct ClaimedElsewhere {
    /// The plugin id.
    pub plugin_id: String,
    /// The runner that registered it.
    pub owner: String,
}

/// State shared by the supervisors, the connection handlers and the provider.
pub(crate) struct RuntimeShared {
    pub config: RuntimeConfig,
    pub components: ComponentRegistry,
    /// Every plugin's hook handlers, by hook.
    pub hooks: HookRegistry,
    /// Every plugin's APIs, for other plugins' `api.call`.
    pub apis: ApiRegistry,
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
    /// The state of a runtime configured with `runners`, before any of them starts.
    pub(super) fn new(
        config: RuntimeConfig,
        capabilities: Arc<CapabilityService>,
        launches: Arc<Launches>,
        socket_path: PathBuf,
        plugin_data: Option<PathBuf>,
        runners: Vec<ResolvedRunner>,
    ) -> Self {
        Self {
            config,
            components: ComponentRegistry::new(),
            hooks: HookRegistry::default(),
            apis: ApiRegistry::default(),
            capabilities,
            version: ToolSetVersion::new(),
            launches,
            socket_path,
            plugin_data,
            owners: RwLock::new(HashMap::new()),
            configured: RwLock::new(runners),
            live: RwLock::new(HashMap::new()),
            states: RwLock::new(HashMap::new()),
        }
    }

    /// Replaces the configured runners (a reload applied a new configuration).
    pub(super) fn set_configured(&self, runners: Vec<ResolvedRunner>) {
        *self.configured.write() = runners;
    }

    /// Refuses a plugin id `runner` announces that is invalid or configured for another
    /// runner.
    pub(crate) fn check_announced(
        &self,
        runner: &str,
        plugin_id: &str,
    ) -> Result<(), AnnouncedIdError> {
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
    /// the claim is new, Ok(false) when the runner already owned it, an error naming the
    /// owner otherwise.
    pub(crate) fn try_claim(
        &self,
        plugin_id: &str,
        runner: &str,
    ) -> Result<bool, ClaimedElsewhere> {
        let mut owners = self.owners.write();
        match owners.get(plugin_id) {
            Some(owner) if owner == runner => Ok(false),
            Some(owner) => Err(ClaimedElsewhere {
                plugin_id: plugin_id.to_owned(),
                owner: owner.clone(),
            }),
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
        self.capabilities
            .configure_plugin(&payload.plugin_id, settings.grants(), settings.config);
        runner.plugin_registered(payload, &self.components);
        self.hooks
            .register_plugin(&payload.plugin_id, &payload.components);
        self.apis
            .register_plugin(&payload.plugin_id, &payload.components);
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
        self.hooks.unregister_plugin(plugin_id);
        self.apis.unregister_plugin(plugin_id);
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
            self.hooks.unregister_plugin(plugin);
            self.apis.unregister_plugin(plugin);
        }
        self.version.bump();
    }

    /// The `data_dir` of a plugin's bootstrap: its prepared directory, or empty when the
    /// runtime has no data root, the plugin is disabled, or the directory cannot be made
    /// (logged; the plugin then runs without one rather than the runner not at all).
    pub(crate) fn plugin_data_dir(&self, plugin_id: &str, enabled: bool) -> String {
        let Some(root) = self.plugin_data.as_deref().filter(|_| enabled) else {
            return String::new();
        };
        // The wire field is a string: a path that is not UTF-8 cannot be sent faithfully.
        let prepared = super::data_dir::prepare(root, plugin_id).and_then(|dir| {
            dir.into_os_string()
                .into_string()
                .map_err(|dir| super::data_dir::DataDirError::NotUtf8 { path: dir.into() })
        });
        match prepared {
            Ok(dir) => dir,
            Err(reason) => {
                tracing::error!(
                    plugin_id,
                    "no data directory for the plugin: {}",
                    crate::error_text::chain(&reason)
                );
                String::new()
            }
        }
    }
}
