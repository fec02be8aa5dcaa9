//! The per-plugin key-value store behind the `kv.*` capabilities: a [`KvStore`] handle over a
//! [`KvBackend`], SQLite by default (`sqlite`), PostgreSQL when hosts share state
//! (`postgres`).

mod backend;
mod postgres;
mod sqlite;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

pub use self::backend::{KvBackend, KvRecord};
use self::postgres::PostgresKv;
use self::sqlite::SqliteKv;
use crate::postgres::{Database, PgError};

/// Why the key-value store failed.
#[derive(Debug, thiserror::Error)]
pub enum KvError {
    /// The store's directory could not be created.
    #[error("cannot create {}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The store's file could not be opened.
    #[error("cannot open {}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: rusqlite::Error,
    },
    /// A statement failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The shared PostgreSQL store failed (unreachable, or a statement failed).
    #[error(transparent)]
    Postgres(#[from] PgError),
    /// A stored value is not JSON.
    #[error("corrupt value")]
    Corrupt(#[source] serde_json::Error),
    /// The blocking task running a statement panicked or was cancelled.
    #[error("store task failed")]
    Task(#[source] tokio::task::JoinError),
}

impl From<tokio_postgres::Error> for KvError {
    fn from(error: tokio_postgres::Error) -> Self {
        KvError::Postgres(PgError::Query(error))
    }
}

/// Key-value pairs namespaced by plugin id; values are JSON. Cheap to clone.
#[derive(Clone, Debug)]
pub struct KvStore {
    backend: Arc<dyn KvBackend>,
}

impl KvStore {
    /// Opens (creating) a SQLite store file.
    pub async fn open(path: &Path) -> Result<KvStore, KvError> {
        Ok(Self::with_backend(Arc::new(SqliteKv::open(path).await?)))
    }

    /// A SQLite store that lives in memory only.
    pub fn in_memory() -> Result<KvStore, KvError> {
        Ok(Self::with_backend(Arc::new(SqliteKv::in_memory()?)))
    }

    /// The store in a shared PostgreSQL database (nothing connects until the first call).
    pub fn postgres(database: Database) -> KvStore {
        Self::with_backend(Arc::new(PostgresKv::new(database)))
    }

    /// A store over any backend.
    pub fn with_backend(backend: Arc<dyn KvBackend>) -> KvStore {
        KvStore { backend }
    }

    /// The backend, for copying one store into another ([`KvBackend::dump`]).
    pub fn backend(&self) -> &Arc<dyn KvBackend> {
        &self.backend
    }

    /// The value of `key`, or `None`.
    pub async fn get(&self, plugin_id: &str, key: &str) -> Result<Option<Value>, KvError> {
        self.backend.get(plugin_id, key).await
    }

    /// Sets `key` to `value`.
    pub async fn set(&self, plugin_id: &str, key: &str, value: &Value) -> Result<(), KvError> {
        self.backend.set(plugin_id, key, value).await
    }

    /// Deletes `key`; true when it existed.
    pub async fn delete(&self, plugin_id: &str, key: &str) -> Result<bool, KvError> {
        self.backend.delete(plugin_id, key).await
    }

    /// Keys starting with `prefix` (taken literally, case-sensitive), sorted by their bytes.
    pub async fn list(&self, plugin_id: &str, prefix: &str) -> Result<Vec<String>, KvError> {
        self.backend.list(plugin_id, prefix).await
    }
}

#[cfg(test)]
mod tests;
