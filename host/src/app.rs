//! The assembled host: the unified registry over the built-in, plugin and MCP providers,
//! as the `maitool` binary and embedders start it from a configuration.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::Serialize;

use crate::builtin::engine::{ImageData, NewMessage};
use crate::builtin::{Discovery, EngineBridge, MaisakaBuiltinToolProvider, Store, StoreEngine, seed_store};
use crate::config::LoadedConfig;
use crate::mcp::{McpServerStatus, McpToolProvider};
use crate::plugin::{CapabilityService, KvStore, MessageSink, OutgoingMessage, PluginRuntime, RunnerStatus};
use crate::registry::ToolRegistry;

/// Why the host could not start.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The plugins' key-value store could not be opened.
    #[error("plugin key-value store: {0}")]
    KvStore(String),
    /// The plugin runtime could not start.
    #[error(transparent)]
    Runtime(#[from] crate::plugin::RuntimeError),
    /// The built-in tools could not start.
    #[error("built-in tools: {0}")]
    Builtin(String),
    /// The MCP configuration is invalid.
    #[error("mcp: {0}")]
    Mcp(String),
}

/// Everything `maitool status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct HostStatus {
    /// The configuration file in use.
    pub config: Option<String>,
    /// The runner socket.
    pub socket: String,
    /// Plugin runners.
    pub runners: Vec<RunnerStatus>,
    /// MCP servers.
    pub mcp_servers: Vec<McpServerStatus>,
    /// Registered providers, in routing order.
    pub providers: Vec<String>,
}

/// A running host.
pub struct Host {
    /// The unified registry.
    pub registry: Arc<ToolRegistry>,
    /// The plugin runtime.
    pub plugins: Arc<PluginRuntime>,
    /// The built-in tools, when enabled.
    pub builtin: Option<Arc<MaisakaBuiltinToolProvider>>,
    /// The built-in tools' store, when enabled.
    pub store: Option<Store>,
    /// External MCP servers, when enabled.
    pub mcp: Option<Arc<McpToolProvider>>,
    config: LoadedConfig,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host").field("config", &self.config.path).finish_non_exhaustive()
    }
}

/// Delivers plugins' `send.*` messages into the built-in store's history, so the engine's
/// `fetch_history` sees what plugins said.
struct StoreSink {
    store: Store,
}

#[async_trait]
impl MessageSink for StoreSink {
    async fn send(&self, message: OutgoingMessage) -> Result<String, String> {
        let images = message
            .data
            .map(|data| vec![ImageData { mime_type: message.mime_type.clone(), data: data.0, description: String::new() }])
            .unwrap_or_default();
        let stored = self
            .store
            .append_message(NewMessage {
                stream_id: message.stream_id,
                sender_id: format!("plugin:{}", message.plugin_id),
                sender_name: message.plugin_id,
                is_bot: true,
                text: message.text,
                images,
                ..NewMessage::default()
            })
            .await
            .map_err(|err| err.to_string())?;
        Ok(stored.message_id)
    }
}

impl Host {
    /// Starts every configured tool source and registers them in MaiBot's order: built-in,
    /// plugin, MCP (earlier providers win a tool-name clash). Waits until the runners and MCP
    /// servers have connected or failed.
    pub async fn start(config: LoadedConfig) -> Result<Host, HostError> {
        let settings = &config.config;
        let kv = KvStore::open(&settings.host.data_dir.join("plugin_kv.sqlite3")).map_err(HostError::KvStore)?;
        let (store, sink): (Option<Store>, Arc<dyn MessageSink>) = if settings.host.enable_builtin {
            let store = Store::open(&settings.builtin.database).await.map_err(|err| HostError::Builtin(err.to_string()))?;
            if !settings.builtin.seed.is_empty() {
                let report = seed_store(&store, &settings.builtin.seed).await.map_err(|err| HostError::Builtin(err.to_string()))?;
                tracing::info!("seeded the built-in store: {report:?}");
            }
            (Some(store.clone()), Arc::new(StoreSink { store }))
        } else {
            (None, Arc::new(crate::plugin::MemorySink::default()))
        };
        let capabilities = Arc::new(CapabilityService::new(sink, kv));
        let plugins = PluginRuntime::start(
            settings.plugin_runtime.clone(),
            config.runners.clone(),
            capabilities.clone(),
            settings.host.socket_dir.clone(),
        )?;
        let builtin = store.as_ref().map(|store| {
            let engine: Arc<dyn EngineBridge> = Arc::new(StoreEngine::new(store.clone()));
            MaisakaBuiltinToolProvider::new(settings.builtin.clone(), engine, Arc::new(Discovery::new()))
        });
        let mcp = if settings.mcp.enable {
            Some(McpToolProvider::start(settings.mcp.clone()).await.map_err(|err| HostError::Mcp(err.to_string()))?)
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
        let limit = Duration::from_millis(settings.plugin_runtime.handshake_timeout_ms + settings.plugin_runtime.ready_timeout_ms);
        if !plugins.wait_settled(limit).await {
            tracing::warn!("some runners were not ready within {} ms", limit.as_millis());
        }
        Ok(Host { registry, plugins, builtin, store, mcp, config })
    }

    /// The configuration the host runs with.
    pub fn config(&self) -> &LoadedConfig {
        &self.config
    }

    /// Runners, MCP servers and providers.
    pub fn status(&self) -> HostStatus {
        HostStatus {
            config: self.config.path.as_ref().map(|p| p.display().to_string()),
            socket: self.plugins.socket_path().display().to_string(),
            runners: self.plugins.status(),
            mcp_servers: self.mcp.as_ref().map(|m| m.status()).unwrap_or_default(),
            providers: self.registry.providers().iter().map(|p| p.provider_name().to_owned()).collect(),
        }
    }

    /// Stops runners gracefully, then closes every provider (MCP servers are terminated).
    pub async fn shutdown(&self) {
        self.plugins.shutdown().await;
        for failure in self.registry.close().await {
            tracing::warn!("{failure}");
        }
    }
}
