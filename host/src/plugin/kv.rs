//! A per-plugin key-value store in SQLite, behind the `kv.*` capabilities.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

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
    /// A stored value is not JSON.
    #[error("corrupt value")]
    Corrupt(#[source] serde_json::Error),
    /// The blocking task running a statement panicked or was cancelled.
    #[error("store task failed")]
    Task(#[source] tokio::task::JoinError),
}

/// Key-value pairs namespaced by plugin id; values are JSON.
#[derive(Clone)]
pub struct KvStore {
    connection: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for KvStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KvStore").finish_non_exhaustive()
    }
}

impl KvStore {
    /// Opens (creating) a store file. Runs on the blocking pool, like every statement: waiting
    /// for another process's lock may take seconds, and the host's runtime may have one thread.
    pub async fn open(path: &Path) -> Result<KvStore, KvError> {
        let path = path.to_path_buf();
        tokio::task::spawn_blocking(move || Self::open_file(&path))
            .await
            .map_err(KvError::Task)?
    }

    fn open_file(path: &Path) -> Result<KvStore, KvError> {
        // The data directory, and any missing parent, is private like the plugins' own
        // directories in it: a parent it shares with the control socket must not be left
        // world-readable because the store happened to create it first.
        if let Some(parent) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(parent)
                .map_err(|source| KvError::CreateDir {
                    path: parent.to_path_buf(),
                    source,
                })?;
        }
        let connection = Connection::open(path)
            .and_then(|connection| {
                crate::sqlite::share_between_processes(&connection)?;
                Ok(connection)
            })
            .map_err(|source| KvError::Open {
                path: path.to_path_buf(),
                source,
            })?;
        Self::init(connection)
    }

    /// A store that lives in memory only.
    pub fn in_memory() -> Result<KvStore, KvError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(connection: Connection) -> Result<KvStore, KvError> {
        connection.execute_batch(
            "CREATE TABLE IF NOT EXISTS plugin_kv (
                     plugin_id TEXT NOT NULL,
                     key TEXT NOT NULL,
                     value TEXT NOT NULL,
                     updated_ms INTEGER NOT NULL,
                     PRIMARY KEY (plugin_id, key)
                 );",
        )?;
        Ok(KvStore {
            connection: Arc::new(Mutex::new(connection)),
        })
    }

    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, KvError> {
        let connection = self.connection.clone();
        tokio::task::spawn_blocking(move || work(&connection.lock()))
            .await
            .map_err(KvError::Task)?
            .map_err(KvError::Sqlite)
    }

    /// The value of `key`, or `None`.
    pub async fn get(&self, plugin_id: &str, key: &str) -> Result<Option<Value>, KvError> {
        let (plugin_id, key) = (plugin_id.to_owned(), key.to_owned());
        let text: Option<String> = self
            .blocking(move |c| {
                c.query_row(
                    "SELECT value FROM plugin_kv WHERE plugin_id = ?1 AND key = ?2",
                    params![plugin_id, key],
                    |row| row.get(0),
                )
                .optional()
            })
            .await?;
        text.map(|t| serde_json::from_str(&t).map_err(KvError::Corrupt))
            .transpose()
    }

    /// Sets `key` to `value`.
    pub async fn set(&self, plugin_id: &str, key: &str, value: &Value) -> Result<(), KvError> {
        let (plugin_id, key, text) = (plugin_id.to_owned(), key.to_owned(), value.to_string());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        self.blocking(move |c| {
            c.execute(
                "INSERT INTO plugin_kv (plugin_id, key, value, updated_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(plugin_id, key) DO UPDATE SET value = excluded.value, updated_ms = excluded.updated_ms",
                params![plugin_id, key, text, now],
            )
        })
        .await
        .map(|_| ())
    }

    /// Deletes `key`; true when it existed.
    pub async fn delete(&self, plugin_id: &str, key: &str) -> Result<bool, KvError> {
        let (plugin_id, key) = (plugin_id.to_owned(), key.to_owned());
        self.blocking(move |c| {
            c.execute(
                "DELETE FROM plugin_kv WHERE plugin_id = ?1 AND key = ?2",
                params![plugin_id, key],
            )
        })
        .await
        .map(|n| n > 0)
    }

    /// Keys starting with `prefix`, sorted.
    pub async fn list(&self, plugin_id: &str, prefix: &str) -> Result<Vec<String>, KvError> {
        let (plugin_id, pattern) = (
            plugin_id.to_owned(),
            format!(
                "{}%",
                prefix
                    .replace('\\', "\\\\")
                    .replace('%', "\\%")
                    .replace('_', "\\_")
            ),
        );
        self.blocking(move |c| {
            let mut statement =
                c.prepare("SELECT key FROM plugin_kv WHERE plugin_id = ?1 AND key LIKE ?2 ESCAPE '\\' ORDER BY key")?;
            let rows = statement.query_map(params![plugin_id, pattern], |row| row.get::<_, String>(0))?;
            rows.collect()
        })
        .await
    }
}

#[cfg(test)]
mod tests;
