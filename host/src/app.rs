//! The assembled host: the unified registry over the built-in, plugin and MCP providers,
//! as the `maitool` binary and embedders start it from a configuration.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::Serialize;

use crate::builtin::{BuiltinToolProvider, EngineBridge, Store, StoreEngine, seed_store};
use crate::config::{ConfigError, HostConfig, LoadedConfig};
use crate::maibot_env::Mode;
use crate::mcp_client::{McpConfigError, McpServerStatus, McpToolProvider};
use crate::messages::{InvokerHooks, MessageFlow, SendEvents};
use crate::metrics::progress::{self, StartObserver, StartProgress};
use crate::metrics::{CallTotals, ToolCallStats};
use crate::plugin::{
    CapabilityService, MessageSink, PluginRuntime, PluginsSummary, RunnerStatus, RuntimeOptions,
    StoreSink,
};
use crate::provider::ToolProvider;
use crate::registry::ToolRegistry;
use crate::settle::SettleGate;
use crate::shared_state::{SharedState, WatchGuard};
use parking_lot::RwLock;

/// Why the host could not start.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The plugins' key-value store could not be opened.
    #[error("plugin key-value store")]
    KvStore(#[source] crate::plugin::KvError),
    /// The plugin runtime could not start.
    #[error(transparent)]
    Runtime(#[from] crate::plugin::RuntimeError),
    /// The built-in tools could not start: their store did not open, or its seeding failed.
    #[error("built-in tools")]
    Builtin(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The MCP configuration is invalid.
    #[error("mcp")]
    Mcp(#[source] McpConfigError),
    /// A runner pool could not start (its address, its plugin id).
    #[error(transparent)]
    Pool(#[from] crate::plugin::PoolStartError),
    /// `[store]` could not be set up (an unreachable database is not this: it is reported
    /// and the host serves without it).
    #[error("store")]
    SharedState(#[source] crate::shared_state::SharedStateError),
}

/// Why [`Host::reload`] changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum ReloadError {
    /// The host was started without a file.
    #[error("the host runs on built-in defaults: there is no configuration file to reload")]
    NoFile,
    /// The file did not load or validate.
    #[error("configuration rejected, nothing changed")]
    Config(#[source] ConfigError),
    /// The new `[mcp]` section could not start its provider.
    #[error("mcp configuration rejected, nothing changed")]
    Mcp(#[source] McpConfigError),
}

/// Everything `maitool status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct HostStatus {
    /// The configuration file in use.
    pub config: Option<String>,
    /// The runner socket.
    pub socket: String,
    /// How many plugins loaded, and why the others did not.
    pub plugins: PluginsSummary,
    /// Plugin runners.
    pub runners: Vec<RunnerStatus>,
    /// MCP servers.
    pub mcp_servers: Vec<McpServerStatus>,
    /// Runner pools and their connected members.
    pub pools: Vec<crate::plugin::PoolStatus>,
    /// Registered providers, in routing order.
    pub providers: Vec<String>,
    /// Call counts, failures, timeouts and latency percentiles per tool.
    pub tools: Vec<ToolCallStats>,
    /// Totals over every tool, unrouted calls and uptime.
    pub metrics: CallTotals,
    /// Whether a first tool listing made now would be complete: the tool sources present at
    /// start have come up or failed, or `[host] listing_wait_ms` passed (see
    /// [`Host::settled`]). What a balancer's readiness probe asks.
    pub ready: bool,
    /// While not ready: the sources the first listing waits for.
    pub waiting_for: Vec<String>,
}

/// A running host.
pub struct Host {
    /// The unified registry.
    pub registry: Arc<ToolRegistry>,
    /// The plugin runtime.
    pub plugins: Arc<PluginRuntime>,
    /// The built-in tools' store, when enabled.
    pub store: Option<Store>,
    messages: Arc<MessageFlow>,
    builtin: RwLock<Option<Arc<BuiltinToolProvider>>>,
    mcp: RwLock<Option<Arc<McpToolProvider>>>,
    config: RwLock<LoadedConfig>,
    /// Serialises reloads.
    reloading: tokio::sync::Mutex<()>,
    /// Open once the sources present at start have settled (see [`SettleGate`]).
    settled: SettleGate,
    /// Where shared state lives (`[store]`).
    shared: SharedState,
    /// Keeps this host's component toggles equal to the shared store's.
    _toggle_watch: Option<WatchGuard>,
}

/// How long [`Host`]'s start waits for its tool sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StartWait {
    /// Until each runner is ready or its first launch ended, and each MCP server's first
    /// connection attempt ended.
    Full,
    /// Until the settle gate opens: as `Full`, but no longer than `[host] listing_wait_ms`.
    Bounded,
    /// Not at all: the gate opens later, in the background.
    Background,
}

/// What [`Host::reload`] changed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReloadReport {
    /// Plugin runners added, removed, restarted, reconfigured, unchanged.
    pub plugins: crate::plugin::ApplyReport,
    /// Runner pools added, removed, restarted, reconfigured (new tokens, TLS files or
    /// settings), or that failed to start.
    pub pools: crate::plugin::PoolsReport,
    /// Whether the built-in tools were rebuilt with a changed `[builtin]` section.
    pub builtin_reloaded: bool,
    /// Whether the MCP servers were reconnected with a changed `[mcp]` section.
    pub mcp_reloaded: bool,
    /// Changed settings that only take effect when the host restarts.
    pub requires_restart: Vec<String>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("config", &self.config.read().path)
            .finish_non_exhaustive()
    }
}

impl Host {
    /// Starts every configured tool source and registers them in MaiBot's order: built-in,
    /// plugin, MCP (earlier providers win a tool-name clash). Waits until each runner is
    /// ready or its first launch failed (a runner being retried is not waited for: its
    /// handshake timeout bounds the wait) and each MCP server has connected or failed
    /// (bounded by its connect timeout).
    pub async fn start(config: LoadedConfig) -> Result<Host, HostError> {
        Self::start_with_progress(config, None).await
    }

    /// [`start`](Self::start), reporting to `observer` how many runners are ready and MCP
    /// servers connected while it waits for them (only when that takes a while).
    pub async fn start_with_progress(
        config: LoadedConfig,
        observer: Option<&dyn StartObserver>,
    ) -> Result<Host, HostError> {
        Self::start_erased(config, observer, StartWait::Full, Mode::Install).await
    }

    /// [`start_with_progress`](Self::start_with_progress) for a host that answers one command
    /// and stops: MaiBot runners' Python environments are checked, never installed (a missing
    /// one fails its runner with the `maitool prepare` command that makes it; a plugin whose
    /// dependencies are not installed yet is not loaded, with that command as its reason).
    /// With `bounded`, it waits for its tool sources no longer than `[host] listing_wait_ms`,
    /// as [`start_bounded_with_progress`](Self::start_bounded_with_progress) does.
    pub async fn start_for_one_command(
        config: LoadedConfig,
        observer: Option<&dyn StartObserver>,
        bounded: bool,
    ) -> Result<Host, HostError> {
        let wait = if bounded {
            StartWait::Bounded
        } else {
            StartWait::Full
        };
        Self::start_erased(config, observer, wait, Mode::CheckOnly).await
    }

    /// Starts the host and waits for its tool sources as [`start`](Self::start) does, but no
    /// longer than `[host] listing_wait_ms`: a hung runner or MCP server does not hold the
    /// caller for its whole handshake or connect timeout. For commands that list what the
    /// host has; what is not up by then shows in [`status`](Self::status).
    pub async fn start_bounded_with_progress(
        config: LoadedConfig,
        observer: Option<&dyn StartObserver>,
    ) -> Result<Host, HostError> {
        Self::start_erased(config, observer, StartWait::Bounded, Mode::Install).await
    }

    /// Starts the host without waiting for its tool sources: the registry has every
    /// provider at once, and runners and MCP servers that come up later add their tools
    /// (the tool-set version moves, so an MCP front tells its clients `tools/list_changed`).
    /// For serving a front whose clients must not wait on one slow or hung source.
    ///
    /// [`settled`](Self::settled) opens once the sources that are starting normally are up
    /// (or failed), or `[host] listing_wait_ms` has passed: a front lists through it, so that
    /// a client's first `tools/list` is complete.
    pub async fn start_without_waiting(config: LoadedConfig) -> Result<Host, HostError> {
        Self::start_erased(config, None, StartWait::Background, Mode::Install).await
    }

    /// The start-up behind `dyn Future`, built in this crate. An `async fn` is compiled in
    /// every crate that awaits it, with everything it awaits (the MCP client's services, the
    /// built-in store's seeding, Tokio's tasks): each binary built its own copy. Boxed here,
    /// it is compiled once, in the library.
    fn start_erased<'a>(
        config: LoadedConfig,
        observer: Option<&'a dyn StartObserver>,
        wait: StartWait,
        environments: Mode,
    ) -> BoxFuture<'a, Result<Host, HostError>> {
        Box::pin(Self::start_inner(config, observer, wait, environments))
    }

    async fn start_inner(
        config: LoadedConfig,
        observer: Option<&dyn StartObserver>,
        wait: StartWait,
        environments: Mode,
    ) -> Result<Host, HostError> {
        let settings = &config.config;
        let shared = SharedState::from_config(&settings.store).map_err(HostError::SharedState)?;
        if let Some(database) = shared.database() {
            // Reported now rather than at the first call that needs it; the host starts either
            // way, and the pool connects once the server is back.
            match database.check().await {
                Ok(()) => tracing::info!(target = %database.target(), "shared store on PostgreSQL"),
                Err(err) => tracing::error!(
                    "{}; the built-in store, plugin key-value data and chat-session state fail until it is reachable",
                    crate::error_text::chain(&err)
                ),
            }
        }
        let kv = shared
            .kv_store(&settings.host.data_dir)
            .await
            .map_err(HostError::KvStore)?;
        let (store, sink): (Option<Store>, Arc<dyn MessageSink>) = if settings.host.enable_builtin {
            let store = shared
                .builtin_store(&settings.builtin.database)
                .await
                .map_err(|err| HostError::Builtin(Box::new(err)))?;
            if !settings.builtin.seed.is_empty() {
                match seed_store(&store, &settings.builtin.seed).await {
                    Ok(report) => tracing::info!("seeded the built-in store: {report:?}"),
                    // A shared database that is down must not keep the host from starting;
                    // the seed is applied by the next start that reaches it.
                    Err(err) if shared.database().is_some() => tracing::error!(
                        "cannot seed the built-in store: {}",
                        crate::error_text::chain(&err)
                    ),
                    Err(err) => return Err(HostError::Builtin(Box::new(err))),
                }
            }
            (Some(store.clone()), Arc::new(StoreSink::new(store)))
        } else {
            (None, Arc::new(crate::plugin::MemorySink::default()))
        };
        // Plugins' messages pass the flow's send hooks and events before the sink.
        let sends = SendEvents::new(sink);
        let capabilities = Arc::new(CapabilityService::new(sends.clone(), kv));
        if let Some(store) = &store {
            capabilities.attach_store(store.clone());
        }
        capabilities.set_bot_config(settings.bot.clone());
        capabilities.set_llm_config(settings.llm.clone());
        capabilities.set_render_config(settings.render.clone());
        let plugins = PluginRuntime::start_with_options(
            settings.plugin_runtime.clone(),
            config.runners.clone(),
            capabilities.clone(),
            RuntimeOptions {
                socket_parent: settings.host.socket_dir.clone(),
                plugin_data: Some(settings.host.data_dir.join("plugins")),
                environments,
                toggles: shared.toggle_store(),
            },
        )?;
        plugins.start_pools(settings.pools.clone()).await?;
        let toggle_watch = shared.watch_toggles(&plugins);
        let mcp_total = if settings.mcp.enable {
            settings
                .mcp
                .effective_servers()
                .map(|servers| servers.iter().filter(|s| s.enabled).count())
                .unwrap_or(0)
        } else {
            0
        };
        let builtin = store.as_ref().map(|store| {
            let engine: Arc<dyn EngineBridge> = Arc::new(StoreEngine::with_session_states(
                store.clone(),
                shared.session_states(),
            ));
            BuiltinToolProvider::new(settings.builtin.clone(), engine, shared.discovery())
        });
        let mcp = if settings.mcp.enable && wait != StartWait::Full {
            Some(
                McpToolProvider::start_in_background(settings.mcp.clone())
                    .await
                    .map_err(HostError::Mcp)?,
            )
        } else if settings.mcp.enable {
            let connecting = McpToolProvider::start(settings.mcp.clone());
            let sample = || StartProgress::of(&plugins.status(), None, mcp_total);
            Some(
                progress::observe(connecting, observer, sample)
                    .await
                    .map_err(HostError::Mcp)?,
            )
        } else {
            None
        };
        let registry = Arc::new(ToolRegistry::new());
        if let Some(builtin) = &builtin {
            registry.register_provider(builtin.clone());
        }
        registry.register_provider(plugins.provider());
        if let Some(mcp) = &mcp {
            registry.register_provider(mcp.clone());
        }
        capabilities.attach_registry(&registry);
        capabilities.attach_runtime(&plugins);
        // The planner's request hook shapes what a session's listing offers.
        registry.attach_hooks(plugins.hooks().clone());
        // tool_search must see plugin and MCP tools, not only the built-ins.
        if let Some(builtin) = &builtin {
            builtin.discovery().attach_registry(&registry);
        }
        let limit = Duration::from_millis(
            settings.plugin_runtime.handshake_timeout_ms + settings.plugin_runtime.ready_timeout_ms,
        );
        let mcp_status = || mcp.as_ref().map(|mcp| mcp.status());
        let sample = || StartProgress::of(&plugins.status(), mcp_status().as_deref(), mcp_total);
        let settled = match wait {
            StartWait::Full => {
                if !progress::observe(plugins.wait_launched(limit), observer, sample).await {
                    tracing::warn!(
                        "some runners were not ready within {} ms",
                        limit.as_millis()
                    );
                }
                SettleGate::opened()
            }
            StartWait::Bounded | StartWait::Background => {
                let bound = Duration::from_millis(settings.host.listing_wait_ms);
                let gate = settle_gate(&plugins, mcp.as_ref(), limit, bound);
                if wait == StartWait::Bounded {
                    progress::observe(gate.wait(), observer, sample).await;
                }
                gate
            }
        };
        let messages = MessageFlow::new(plugins.clone(), store.clone(), &sends);
        // The plugins' hook handlers run at the flow's hook points too.
        messages.set_hooks(Arc::new(InvokerHooks::new(plugins.hooks().clone())));
        Ok(Host {
            registry,
            plugins,
            messages,
            store,
            builtin: RwLock::new(builtin),
            mcp: RwLock::new(mcp),
            config: RwLock::new(config),
            reloading: tokio::sync::Mutex::new(()),
            settled,
            shared,
            _toggle_watch: toggle_watch,
        })
    }

    /// Open once the tool sources present at start have come up or failed, or `[host]
    /// listing_wait_ms` passed; always open for a host started with [`start`](Self::start).
    /// Listings (the MCP front's `tools/list`, the control socket's `tools` and
    /// `definitions`) wait at it so that a client's first listing is complete.
    pub fn settled(&self) -> &SettleGate {
        &self.settled
    }

    /// The PostgreSQL database shared state lives in, when `[store]` chose it.
    pub fn shared_database(&self) -> Option<&crate::postgres::Database> {
        self.shared.database()
    }

    /// The configuration the host runs with.
    pub fn config(&self) -> LoadedConfig {
        self.config.read().clone()
    }

    /// The message flow: where the host learns of chat messages, runs the commands and event
    /// handlers they reach, and stores them ([`MessageFlow::receive`]); and where an engine
    /// emits the events the host does not fire itself ([`MessageFlow::emit_event`]).
    pub fn messages(&self) -> &Arc<MessageFlow> {
        &self.messages
    }

    /// The built-in tools provider, when enabled.
    pub fn builtin(&self) -> Option<Arc<BuiltinToolProvider>> {
        self.builtin.read().clone()
    }

    /// The MCP provider, when enabled.
    pub fn mcp(&self) -> Option<Arc<McpToolProvider>> {
        self.mcp.read().clone()
    }

    /// Re-reads the configuration file and applies it: plugin runners are added, removed,
    /// restarted or reconfigured (see [`PluginRuntime::apply`]); changed `[builtin]` and
    /// `[mcp]` sections rebuild those providers. A file that fails to load or validate is
    /// rejected as a whole and nothing changes.
    pub async fn reload(&self) -> Result<ReloadReport, ReloadError> {
        self.reload_erased().await
    }

    /// Boxed in this crate, as [`start_erased`](Self::start_erased) is.
    fn reload_erased(&self) -> BoxFuture<'_, Result<ReloadReport, ReloadError>> {
        Box::pin(self.reload_inner())
    }

    async fn reload_inner(&self) -> Result<ReloadReport, ReloadError> {
        let _guard = self.reloading.lock().await;
        let current = self.config();
        let Some(path) = current.path.clone() else {
            return Err(ReloadError::NoFile);
        };
        let next = HostConfig::load(&path).map_err(ReloadError::Config)?;
        let mut report = ReloadReport::default();
        let (old, new) = (&current.config, &next.config);
        if old.host != new.host {
            report.requires_restart.push("host".into());
        }
        if old.web != new.web {
            report.requires_restart.push("web".into());
        }
        if old.store != new.store {
            report.requires_restart.push("store".into());
        }
        if old.cluster != new.cluster {
            report.requires_restart.push("cluster".into());
        }
        if old.plugin_runtime != new.plugin_runtime {
            // Supervision limits are read per launch; new values apply to the next restarts.
            report
                .requires_restart
                .push("plugin_runtime (applies to runners started from now on)".into());
        }
        let mcp_changed = old.mcp != new.mcp;
        let next_mcp = if mcp_changed && new.mcp.enable {
            Some(
                McpToolProvider::start(new.mcp.clone())
                    .await
                    .map_err(ReloadError::Mcp)?,
            )
        } else {
            None
        };
        report.plugins = self.plugins.apply(next.runners.clone()).await;
        report.pools = self.plugins.apply_pools(new.pools.clone()).await;
        // `[bot]`, `[llm]` and `[render]` are read per call: the next capability call sees the new values.
        let capabilities = self.plugins.capabilities();
        capabilities.set_bot_config(new.bot.clone());
        capabilities.set_llm_config(new.llm.clone());
        capabilities.set_render_config(new.render.clone());
        if old.builtin != new.builtin
            && let Some(store) = &self.store
        {
            // Keep the engine (and its per-session wait, rest and focus state).
            let engine: Arc<dyn EngineBridge> = match self.builtin() {
                Some(current) => current.engine().clone(),
                None => Arc::new(StoreEngine::with_session_states(
                    store.clone(),
                    self.shared.session_states(),
                )),
            };
            let rebuilt =
                BuiltinToolProvider::new(new.builtin.clone(), engine, self.shared.discovery());
            rebuilt.discovery().attach_registry(&self.registry);
            *self.builtin.write() = Some(rebuilt);
            report.builtin_reloaded = true;
        }
        if mcp_changed {
            let retired = std::mem::replace(&mut *self.mcp.write(), next_mcp);
            if let Some(retired) = retired {
                self.registry.unregister_provider(retired.provider_name());
                if let Err(err) = retired.close().await {
                    tracing::warn!("closing the previous MCP provider: {err}");
                }
            }
            report.mcp_reloaded = true;
        }
        self.register_in_order();
        *self.config.write() = next;
        tracing::info!(?report, "configuration reloaded");
        Ok(report)
    }

    /// Registers the providers in MaiBot's order (built-in, plugin, MCP); registering again
    /// replaces a provider and moves it to the end, so all are re-registered in order.
    fn register_in_order(&self) {
        if let Some(builtin) = self.builtin() {
            self.registry.register_provider(builtin);
        }
        self.registry.register_provider(self.plugins.provider());
        if let Some(mcp) = self.mcp() {
            self.registry.register_provider(mcp);
        }
    }

    /// Runs the named hook `name` (one of MaiBot's, see [`crate::hook::CATALOG`]) with
    /// `kwargs` over the plugins' hook handlers, as MaiBot's host runs it: for an engine that
    /// runs a hook at its own point (its replyer, its message pipeline, ...). The kwargs are
    /// checked against the hook's parameter schema first; the outcome carries the kwargs as
    /// the handlers left them and whether one aborted the point.
    pub async fn invoke_hook(
        &self,
        name: &str,
        kwargs: maitool_protocol::JsonObject,
    ) -> Result<crate::hook::HookOutcome, crate::hook::HookError> {
        crate::hook::run_named(self.plugins.hooks().as_ref(), name, kwargs).await
    }

    /// Runners, MCP servers and providers.
    pub fn status(&self) -> HostStatus {
        let runners = self.plugins.status();
        HostStatus {
            config: self
                .config
                .read()
                .path
                .as_ref()
                .map(|p| p.display().to_string()),
            socket: self.plugins.socket_path().display().to_string(),
            plugins: PluginsSummary::of(&runners),
            runners,
            mcp_servers: self.mcp().map(|m| m.status()).unwrap_or_default(),
            pools: self.plugins.pool_statuses(),
            providers: self
                .registry
                .providers()
                .iter()
                .map(|p| p.provider_name().to_owned())
                .collect(),
            tools: self.registry.metrics().snapshot(),
            metrics: self.registry.metrics().totals(),
            ready: self.settled.is_open(),
            waiting_for: self.settled.waiting_for(),
        }
    }

    /// Stops runners gracefully, then closes every provider (MCP servers are terminated).
    pub async fn shutdown(&self) {
        self.shutdown_erased().await
    }

    /// Boxed in this crate, as [`start_erased`](Self::start_erased) is.
    fn shutdown_erased(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {
            self.plugins.shutdown().await;
            for failure in self.registry.close().await {
                tracing::warn!("{failure}");
            }
        })
    }
}

/// The gate of a host that did not wait at start: it opens when every runner is ready or has
/// ended its first launch (bounded by its handshake and ready timeouts, `launch_limit`) and
/// every MCP server's first attempt has ended, or after `bound`. When it opens with sources
/// not up, the log names each.
fn settle_gate(
    plugins: &Arc<PluginRuntime>,
    mcp: Option<&Arc<McpToolProvider>>,
    launch_limit: Duration,
    bound: Duration,
) -> SettleGate {
    let runners = plugins.clone();
    let servers = mcp.map(|mcp| mcp.first_attempts());
    let settled = async move {
        let runners = async move {
            runners.wait_launched(launch_limit).await;
        };
        match servers {
            Some(servers) => {
                futures::future::join(runners, servers).await;
            }
            None => runners.await,
        }
    };
    // Weak: the gate lives as long as the host, and must not keep a replaced MCP provider.
    let (runtime, servers) = (Arc::downgrade(plugins), mcp.map(Arc::downgrade));
    let pending = move || {
        let runners = runtime.upgrade().map(|r| r.status()).unwrap_or_default();
        let servers = servers
            .as_ref()
            .and_then(std::sync::Weak::upgrade)
            .map(|mcp| mcp.status())
            .unwrap_or_default();
        crate::settle::sources_not_up(&runners, &servers)
    };
    let (plugins, mcp) = (plugins.clone(), mcp.cloned());
    SettleGate::spawn(settled, bound, move |cut_short| {
        let runners = plugins.status();
        let servers = mcp.map(|mcp| mcp.status()).unwrap_or_default();
        let missing = crate::settle::sources_not_up(&runners, &servers);
        if missing.is_empty() {
            return;
        }
        if cut_short {
            tracing::warn!(
                "listing without sources not up after {} ms (they join through tools/list_changed when they come up): {}",
                bound.as_millis(),
                missing.join("; ")
            );
        } else {
            tracing::warn!(
                "listing without sources that failed to start: {}",
                missing.join("; ")
            );
        }
    })
    .describing(pending)
}
