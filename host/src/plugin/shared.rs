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
use super::pool_members::PoolMembers;
use super::runner_shared::RunnerShared;
use super::status::RunnerState;
use crate::circuit::CircuitBreakers;
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

/// Where a plugin's configuration error was found, for how a reload repairs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfigErrorOrigin {
    /// The runner registered the plugin with a `config_error` (it refused the configuration
    /// it loaded with).
    Registration,
    /// The host delivered a configuration the plugin found invalid (`plugin.config_updated`,
    /// or MaiBot's `plugin.inspect_config`).
    Update,
}

/// A plugin paused by an invalid configuration.
#[derive(Debug, Clone)]
pub(crate) struct ConfigError {
    /// What is wrong, in the plugin's words.
    pub problem: String,
    /// Where it was found.
    pub origin: ConfigErrorOrigin,
}

/// State shared by the supervisors, the connection handlers and the provider.
pub(crate) struct RuntimeShared {
    pub config: RuntimeConfig,
    /// A circuit breaker per plugin id, around its tool calls.
    pub breakers: CircuitBreakers,
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
    /// Whether MaiBot runners' Python environments are installed here or only checked.
    pub environments: crate::maibot_env::Mode,
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
    /// Plugins whose configuration is invalid: their tools are paused (MaiBot's
    /// `config_error`). Empty unless some plugin's configuration is broken.
    config_errors: RwLock<HashMap<String, ConfigError>>,
    /// Where chat messages plugins route (`host.route_message`) go.
    pub(crate) inbound: super::inbound::InboundSlot,
    /// Plugin id -> the members of the pool that serves it, for plugins served by a pool of
    /// runners that dial in (`pool/`) rather than by a child runner. Empty without pools.
    pools: RwLock<HashMap<String, Arc<PoolMembers>>>,
}

impl RuntimeShared {
    /// The state of a runtime configured with `runners`, before any of them starts.
    pub(super) fn new(
        config: RuntimeConfig,
        capabilities: Arc<CapabilityService>,
        launches: Arc<Launches>,
        socket_path: PathBuf,
        plugin_data: Option<PathBuf>,
        environments: crate::maibot_env::Mode,
        runners: Vec<ResolvedRunner>,
    ) -> Self {
        Self {
            breakers: CircuitBreakers::new(config.circuit()),
            config,
            components: ComponentRegistry::new(),
            hooks: HookRegistry::default(),
            apis: ApiRegistry::default(),
            capabilities,
            version: ToolSetVersion::new(),
            launches,
            socket_path,
            plugin_data,
            environments,
            owners: RwLock::new(HashMap::new()),
            configured: RwLock::new(runners),
            live: RwLock::new(HashMap::new()),
            states: RwLock::new(HashMap::new()),
            config_errors: RwLock::new(HashMap::new()),
            inbound: Default::default(),
            pools: RwLock::new(HashMap::new()),
        }
    }

    /// Replaces the configured runners (a reload applied a new configuration).
    pub(super) fn set_configured(&self, runners: Vec<ResolvedRunner>) {
        *self.configured.write() = runners;
    }

    /// Where the plugins of `runner` are listed: its place among the configured runners; a
    /// pool's (not among them) after every runner.
    pub(crate) fn plugin_rank(&self, runner: &str) -> super::components::Rank {
        let configured = self.configured.read();
        configured
            .iter()
            .position(|launch| launch.name == runner)
            .unwrap_or(configured.len())
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

    /// The connection a call to `plugin_id` goes to now: its runner's, or for a pooled
    /// plugin the member's with the fewest calls outstanding.
    pub(crate) fn live_peer(&self, plugin_id: &str) -> Option<LivePeer> {
        self.live_peer_for(plugin_id, None)
    }

    /// [`live_peer`](Self::live_peer) for a call to `component`: in a pool whose members
    /// declare it differently (a rollout), only a member that declares it as registered.
    pub(crate) fn live_peer_for(
        &self,
        plugin_id: &str,
        component: Option<&str>,
    ) -> Option<LivePeer> {
        if let Some(live) = self.live.read().get(plugin_id) {
            return Some(live.clone());
        }
        self.pool_of(plugin_id)
            .and_then(|pool| pool.pick_for(component))
    }

    pub(crate) fn is_live(&self, plugin_id: &str) -> bool {
        self.live.read().contains_key(plugin_id)
            || self
                .pool_of(plugin_id)
                .is_some_and(|pool| pool.available() > 0)
    }

    /// The pool serving `plugin_id`, if a pool does.
    pub(crate) fn pool_of(&self, plugin_id: &str) -> Option<Arc<PoolMembers>> {
        let pools = self.pools.read();
        if pools.is_empty() {
            return None;
        }
        pools.get(plugin_id).cloned()
    }

    /// Routes `plugin_id` to a pool's members from now on.
    pub(crate) fn add_pool(&self, plugin_id: &str, members: Arc<PoolMembers>) {
        self.pools.write().insert(plugin_id.to_owned(), members);
        self.version.bump();
    }

    /// Stops routing `plugin_id` to a pool (the pool was removed).
    pub(crate) fn remove_pool(&self, plugin_id: &str) {
        self.pools.write().remove(plugin_id);
        self.version.bump();
    }

    /// Whether a plugin's tools are listed: it is live and not paused by an invalid
    /// configuration.
    pub(crate) fn is_listed(&self, plugin_id: &str) -> bool {
        self.is_live(plugin_id) && !self.is_paused(plugin_id)
    }

    /// Whether an invalid configuration pauses the plugin's tools.
    pub(crate) fn is_paused(&self, plugin_id: &str) -> bool {
        let errors = self.config_errors.read();
        !errors.is_empty() && errors.contains_key(plugin_id)
    }

    /// The configuration error pausing the plugin, if any.
    pub(crate) fn config_error(&self, plugin_id: &str) -> Option<ConfigError> {
        let errors = self.config_errors.read();
        if errors.is_empty() {
            return None;
        }
        errors.get(plugin_id).cloned()
    }

    /// Pauses a plugin's tools for an invalid configuration (`problem`), and shows it in the
    /// `config_error` state of `runner`'s status.
    pub(crate) fn pause_plugin(
        &self,
        runner: &RunnerShared,
        plugin_id: &str,
        problem: &str,
        origin: ConfigErrorOrigin,
    ) {
        let error = ConfigError {
            problem: problem.to_owned(),
            origin,
        };
        self.config_errors
            .write()
            .insert(plugin_id.to_owned(), error);
        runner.plugin_config_error(plugin_id, Some(problem));
        tracing::warn!(runner = %runner.name, plugin_id, "invalid plugin configuration; its tools are paused until a valid one arrives: {problem}");
        self.version.bump();
    }

    /// Lifts a pause: the plugin's configuration is valid again. Returns whether it was
    /// paused.
    pub(crate) fn resume_plugin(&self, runner: &RunnerShared, plugin_id: &str) -> bool {
        let was_paused = self.config_errors.write().remove(plugin_id).is_some();
        if was_paused {
            runner.plugin_config_error(plugin_id, None);
            tracing::info!(runner = %runner.name, plugin_id, "valid configuration; the plugin's tools are offered again");
            self.version.bump();
        }
        was_paused
    }

    /// Forgets the pauses of a runner's plugins (it stopped: its next launch registers them
    /// again, with or without a configuration error).
    fn forget_pauses(&self, plugins: &[String]) {
        let mut errors = self.config_errors.write();
        if !errors.is_empty() {
            for plugin in plugins {
                errors.remove(plugin);
            }
        }
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
        self.forget_pauses(&[plugin_id.to_owned()]);
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
        self.forget_pauses(&plugins);
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
