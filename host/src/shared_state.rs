//! [`SharedState`]: where the state several hosts could share lives, as `[store]` chooses:
//! embedded (the plugins' key-value store in SQLite under the data directory, chat-session
//! state in memory) or one PostgreSQL database. Each state keeps its own seam (`plugin::kv`,
//! `builtin::store_engine` sessions, `builtin::discovery`); this only picks the backends.

use std::path::Path;
use std::sync::Arc;

use crate::builtin::{
    Discovery, MemorySessionStates, PostgresDiscoveries, PostgresSessionStates, SessionStateStore,
};
use crate::config::{StoreConfigError, StoreSection};
use crate::plugin::{KvError, KvStore};
use crate::postgres::{Database, PgError};

/// Why `[store]` could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SharedStateError {
    /// The section is invalid.
    #[error(transparent)]
    Config(#[from] StoreConfigError),
    /// The PostgreSQL pool could not be built.
    #[error(transparent)]
    Postgres(#[from] PgError),
}

/// The backends of the state hosts can share.
#[derive(Debug, Clone)]
pub enum SharedState {
    /// This host alone: SQLite and memory.
    Embedded,
    /// A PostgreSQL database other hosts may use too.
    Postgres(Database),
}

impl SharedState {
    /// The backends `[store]` names. Does not connect: an unreachable database fails the
    /// operations that need it, not the host.
    pub fn from_config(section: &StoreSection) -> Result<SharedState, SharedStateError> {
        Ok(match section.postgres_url()? {
            None => SharedState::Embedded,
            Some(url) => SharedState::Postgres(Database::new(&url, section.max_connections)?),
        })
    }

    /// The PostgreSQL database, when that is the backend.
    pub fn database(&self) -> Option<&Database> {
        match self {
            SharedState::Embedded => None,
            SharedState::Postgres(database) => Some(database),
        }
    }

    /// The plugins' key-value store (embedded: `data_dir/plugin_kv.sqlite3`).
    pub async fn kv_store(&self, data_dir: &Path) -> Result<KvStore, KvError> {
        match self {
            SharedState::Embedded => KvStore::open(&data_dir.join("plugin_kv.sqlite3")).await,
            SharedState::Postgres(database) => Ok(KvStore::postgres(database.clone())),
        }
    }

    /// The built-in engine's per-session loop state (waits, rests, rounds, focus).
    pub fn session_states(&self) -> Arc<dyn SessionStateStore> {
        match self {
            SharedState::Embedded => Arc::new(MemorySessionStates::default()),
            SharedState::Postgres(database) => {
                Arc::new(PostgresSessionStates::new(database.clone()))
            }
        }
    }

    /// A fresh `tool_search` discovery state over the backend (embedded: empty).
    pub fn discovery(&self) -> Arc<Discovery> {
        match self {
            SharedState::Embedded => Arc::new(Discovery::new()),
            SharedState::Postgres(database) => Arc::new(Discovery::with_store(Arc::new(
                PostgresDiscoveries::new(database.clone()),
            ))),
        }
    }
}
