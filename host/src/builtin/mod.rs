//! Built-in engine tools: the reasoning engine's own tools, deferred-tool discovery, the
//! tool-call executor, and the embedded store that backs them by default.
//!
//! * [`BuiltinToolProvider`] (`maisaka_builtin`): the [`catalog`] (`reply`,
//!   `wait`, `finish`, `send_emoji`, `send_image`, `query_memory`, `query_person_profile`,
//!   `fetch_history`, `view_forward_message`, `switch_chat`, `tool_search`) filtered by
//!   [config](BuiltinConfig), chat scope and stage.
//! * [`EngineBridge`]: what the handlers need from the engine; [`StoreEngine`] implements it
//!   over the SQLite [`Store`], so the tools work with nothing else running.
//! * [`Discovery`] and [`build_exposure`]: which tools the model sees, and `tool_search`.
//! * [`ToolCallExecutor`]: runs a model turn's raw tool calls and returns the history messages.
//! * [`seed_store`]: imports memories, profiles, history and emojis from files.
//!
//! The operator's guide is `docs/BUILTIN.md`.

pub mod catalog;
mod classify;
mod config;
mod discovery;
pub mod engine;
mod entry;
mod executor;
mod exposure;
mod handler;
mod handlers;
mod history;
mod media;
mod provider;
mod seed;
mod stage;
pub mod store;
mod store_engine;

#[cfg(test)]
mod tests;

use std::sync::Arc;

pub use classify::{Classified, classify};
pub use config::{BuiltinConfig, ConfigError, ExpressionSelectionMode};
pub use discovery::{
    ContextSearchResult, DEFAULT_SEARCH_LIMIT, DeferredTool, Discovery, DiscoveryError,
    DiscoveryStore, MemoryDiscoveries, PostgresDiscoveries, ScoredTool, SessionDiscovery, score,
    search,
};
pub use engine::{EngineBridge, EngineCapabilities, EngineError};
pub use entry::{BuiltinEntry, ConfigGate, SpecBuilder, SpecContext};
pub use executor::{
    CallStatus, ExecutorError, NOT_EXPOSED_HINT, STOP_AFTER_EXECUTION_REASON, ToolCallExecutor,
    ToolResultMessage, TurnOutcome,
};
pub use exposure::{ToolExposure, build_exposure};
pub use handler::{Handler, HandlerContext, HandlerResult, OwnSpecs, ToolFailure};
pub(crate) use handlers::datetime;
pub use media::{media_id, media_list_block, split_media};
pub use provider::BuiltinToolProvider;
pub use seed::{SeedConfig, SeedError, SeedReport, seed_store};
pub use stage::Stage;
pub use store::{Store, StoreError};
pub use store_engine::{
    MemorySessionStates, PostgresSessionStates, SessionState, SessionStateStore, StoreEngine,
    WaitState,
};

/// The provider name of the built-ins, as in MaiBot.
pub const PROVIDER_NAME: &str = "maisaka_builtin";

/// The metadata key of a [`ToolExecutionContext`](maitool_protocol::ToolExecutionContext)
/// listing the msg_ids already in the model's context (read by `fetch_history`).
pub const CONTEXT_MESSAGE_IDS: &str = "context_message_ids";

/// Why the built-in provider could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum BuiltinError {
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The store could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Seeding failed.
    #[error("seeding the built-in store: {0}")]
    Seed(#[from] SeedError),
}

/// The provider as the `maitool` binary runs it: validates `config`, opens the store at
/// `config.database` (`:memory:` allowed), seeds it from `config.seed`, and serves the tools
/// through a [`StoreEngine`] with a fresh [`Discovery`]. Call
/// [`Discovery::attach_registry`] on `provider.discovery()` once the provider is registered,
/// so `tool_search` sees plugin and MCP tools too.
pub async fn default_provider(
    config: &BuiltinConfig,
) -> Result<Arc<BuiltinToolProvider>, BuiltinError> {
    config.validate()?;
    let store = Store::open(&config.database).await?;
    if !config.seed.is_empty() {
        seed_store(&store, &config.seed).await?;
    }
    let engine: Arc<dyn EngineBridge> = Arc::new(StoreEngine::new(store));
    Ok(BuiltinToolProvider::new(
        config.clone(),
        engine,
        Arc::new(Discovery::new()),
    ))
}
