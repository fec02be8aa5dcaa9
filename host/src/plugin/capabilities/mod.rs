//! Host capabilities a plugin can call (`cap.call`), each granted per plugin by the operator.
//!
//! Names, arguments and results are MaiBot's (as `maibot_sdk` sends and reads them), so MaiBot
//! plugins run unchanged; one file per family. The chat world (`send.*` into history,
//! `message.*`, `person.*`, `emoji.*`, `chat.*`, `knowledge.search`) is the built-in store,
//! attached with [`CapabilityService::attach_store`]; without it those families fail with an
//! error that says so. What MaiBot serves and maitool does not is refused at once
//! (`refused.rs`). `api.*` routes to other plugins' APIs through the runtime
//! ([`PluginControl`]). docs/MAIBOT_CAPABILITIES.md lists every capability and its state.

mod api;
mod args;
mod chat;
mod component;
mod config;
mod config_editor;
mod database;
mod emoji;
mod knowledge;
mod llm;
mod local;
mod maisaka;
mod message;
mod message_dict;
mod person;
mod plugin_control;
mod refused;
mod render;
mod send;
mod sink;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, Weak};

use maitool_protocol::JsonObject;
use maitool_protocol::capability::{Capability, CapabilityFamily};
use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use parking_lot::RwLock;
use serde_json::Value;

use self::args::Args;
use super::grant::grants_admit;
use super::kv::KvStore;
use crate::builtin::Store;
use crate::registry::ToolRegistry;
use crate::render::RenderConfig;

/// Browsers rendering at once for `render.html2png`; more renders wait.
const MAX_RENDERS: usize = 2;

pub use config::BotConfig;
pub use config_editor::ConfigEditor;
pub use llm::{LlmConfig, LlmConfigError};
pub(crate) use message_dict::message_dict;
pub use plugin_control::PluginControl;
pub use sink::{MemorySink, MessageSink, OutgoingImage, OutgoingMessage, SinkError, StoreSink};

/// The grants and backends behind `cap.call`.
pub struct CapabilityService {
    grants: RwLock<HashMap<String, Vec<String>>>,
    configs: RwLock<HashMap<String, JsonObject>>,
    sink: Arc<dyn MessageSink>,
    kv: KvStore,
    registry: OnceLock<Weak<ToolRegistry>>,
    runtime: OnceLock<Weak<dyn PluginControl>>,
    config_editor: OnceLock<Weak<dyn ConfigEditor>>,
    store: RwLock<Option<Store>>,
    bot: RwLock<BotConfig>,
    llm: RwLock<Option<LlmConfig>>,
    render: RwLock<RenderConfig>,
    /// Renders under way at once (each is a browser process).
    renders: tokio::sync::Semaphore,
}

impl std::fmt::Debug for CapabilityService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CapabilityService")
            .field("grants", &self.grants)
            .finish_non_exhaustive()
    }
}

impl CapabilityService {
    /// A service with no grants, delivering to `sink`, storing key-values in `kv`, with the
    /// default `[bot]`, no `[llm]` and no store.
    pub fn new(sink: Arc<dyn MessageSink>, kv: KvStore) -> Self {
        Self {
            grants: RwLock::new(HashMap::new()),
            configs: RwLock::new(HashMap::new()),
            sink,
            kv,
            registry: OnceLock::new(),
            runtime: OnceLock::new(),
            config_editor: OnceLock::new(),
            store: RwLock::new(None),
            bot: RwLock::new(BotConfig::default()),
            llm: RwLock::new(None),
            render: RwLock::new(RenderConfig::default()),
            renders: tokio::sync::Semaphore::new(MAX_RENDERS),
        }
    }

    /// Lets `tool.get_definitions` see the unified registry.
    pub fn attach_registry(&self, registry: &Arc<ToolRegistry>) {
        let _ = self.registry.set(Arc::downgrade(registry));
    }

    /// Who saves plugin configurations for `component.update_plugin_config` (held weakly:
    /// it holds the host that holds this service).
    pub fn attach_config_editor(&self, editor: &Arc<dyn ConfigEditor>) {
        let _ = self.config_editor.set(Arc::downgrade(editor));
    }

    /// Lets `component.*` see and switch the plugin runtime's components.
    pub fn attach_runtime<R: PluginControl + 'static>(&self, runtime: &Arc<R>) {
        let weak: Weak<R> = Arc::downgrade(runtime);
        let _ = self.runtime.set(weak as Weak<dyn PluginControl>);
    }

    /// The chat world `message.*`, `person.*`, `emoji.*`, `chat.*` and `knowledge.search`
    /// read.
    pub fn attach_store(&self, store: Store) {
        *self.store.write() = Some(store);
    }

    /// What `config.get` answers (`[bot]`).
    pub fn set_bot_config(&self, bot: BotConfig) {
        *self.bot.write() = bot;
    }

    /// The `[bot]` section `config.get` answers from.
    pub fn bot_config(&self) -> BotConfig {
        self.bot.read().clone()
    }

    /// Where `llm.*` go (`[llm]`); `None` refuses them.
    pub fn set_llm_config(&self, llm: Option<LlmConfig>) {
        *self.llm.write() = llm;
    }

    /// Which browser renders `render.html2png` (`[render]`).
    pub fn set_render_config(&self, render: RenderConfig) {
        *self.render.write() = render;
    }

    /// Sets a plugin's grants and configuration (as the operator configured them).
    pub fn configure_plugin(&self, plugin_id: &str, grants: Vec<String>, config: JsonObject) {
        self.grants.write().insert(plugin_id.to_owned(), grants);
        self.configs.write().insert(plugin_id.to_owned(), config);
    }

    /// Whether `plugin_id` may call `capability` (see [`grants_admit`]).
    pub fn is_granted(&self, plugin_id: &str, capability: &str) -> bool {
        self.grants
            .read()
            .get(plugin_id)
            .is_some_and(|grants| grants_admit(grants, capability))
    }

    /// Runs a capability for `plugin_id` (already verified to belong to the calling runner).
    pub async fn call(
        &self,
        plugin_id: &str,
        capability: &str,
        args: &JsonObject,
    ) -> Result<Value, RpcError> {
        // A refusal needs no grant: it does nothing, and a capability maitool does not serve
        // cannot be granted by name, so a plugin granted what its manifest declares
        // (`grant_declared`) still gets MaiBot's answer and runs its own fallback.
        if let Some(refusal) = refused::lookup(capability) {
            return refusal.answer(capability);
        }
        let Ok(served) = capability.parse::<Capability>() else {
            return Err(RpcError::new(
                ErrorCode::MethodNotAllowed,
                format!("unknown capability {capability}"),
            ));
        };
        // A plugin's own dynamic APIs need no grant (MaiBot always allows it).
        if served != Capability::ApiReplaceDynamic {
            self.check_granted(plugin_id, capability)?;
        }
        let args = Args::new(served, args);
        match served.family() {
            CapabilityFamily::Send => self.send(plugin_id, args).await,
            CapabilityFamily::Config => self.config(plugin_id, args),
            CapabilityFamily::Tool => self.tool_definitions(args).await,
            CapabilityFamily::Kv => self.kv(plugin_id, args).await,
            CapabilityFamily::Message => self.message(args).await,
            CapabilityFamily::Person => self.person(args).await,
            CapabilityFamily::Emoji => self.emoji(plugin_id, args).await,
            CapabilityFamily::Chat => self.chat(args).await,
            CapabilityFamily::Knowledge => self.knowledge(args).await,
            CapabilityFamily::Component if served == Capability::ComponentReloadPlugin => {
                self.reload_plugin(plugin_id, args).await
            }
            CapabilityFamily::Component if served == Capability::ComponentUpdatePluginConfig => {
                self.update_plugin_config(plugin_id, args).await
            }
            CapabilityFamily::Component => self.component(plugin_id, args).await,
            CapabilityFamily::Llm => self.llm(args).await,
            CapabilityFamily::Api => self.api(plugin_id, args).await,
            CapabilityFamily::Database => self.database(args).await,
            CapabilityFamily::Render => self.render(args).await,
            CapabilityFamily::Maisaka => self.maisaka(plugin_id, args).await,
        }
    }

    /// `E_CAPABILITY_DENIED` unless the operator granted `capability` to `plugin_id`.
    fn check_granted(&self, plugin_id: &str, capability: &str) -> Result<(), RpcError> {
        if self.is_granted(plugin_id, capability) {
            return Ok(());
        }
        Err(RpcError::new(
            ErrorCode::CapabilityDenied,
            format!("plugin {plugin_id} is not granted capability {capability}"),
        ))
    }

    /// The store, or the error of a host that runs without one.
    fn store(&self, args: &Args<'_>) -> Result<Store, RpcError> {
        self.store.read().clone().ok_or_else(|| {
            args.failed(
                "this host has no chat store (the built-in store is off: [host] enable_builtin = false)",
            )
        })
    }
}
