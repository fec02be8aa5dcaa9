//! [`SqliteKv`]: the plugins' key-value pairs in one SQLite file (or memory).

use std::os::unix::fs::DirBuilderExt;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use parking_lot::Mutex;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use super::KvError;
use super::backend::{KvBackend, KvRecord, now_ms};

/// The embedded backend: one connection, every statement on the blocking pool.
#[derive(Clone)]
pub(super) struct SqliteKv {
    connection: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for SqliteKv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteKv").finish_non_exhaustive()
    }
}

impl SqliteKv {
    /// Opens (creating) a store file. Runs on the blocking pool, like every statement: waiting
    /// for another process's lock may take seconds, and the host's runtime may have one thread.
    pub(super) async fn open(path: &Path) -> Result<SqliteKv, KvError> {
        let path = path.to_path_buf();
        tokio::task::spawn_blocking(move || Self::open_file(&path))
            .await
            .map_err(KvError::Task)?
    }

    fn open_file(path: &Path) -> Result<SqliteKv, KvError> {
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
    pub(super) fn in_memory() -> Result<SqliteKv, KvError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(connection: Connection) -> Result<SqliteKv, KvError> {
        connection.execute_batch(
            "CREATE TABLE IF NOT EXISTS plugin_kv (
                     plugin_id TEXT NOT NULL,
                     key TEXT NOT NULL,
                     value TEXT NOT NULL,
                     updated_ms INTEGER NOT NULL,
                     PRIMARY KEY (plugin_id, key)
                 );",
        )?;
        Ok(SqliteKv {
            connection: Arc::new(Mutex::new(connection)),
        })
    }

    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, KvError> {
        let connection = self.connection.clone();
        tokio::task::spawn_blocking(move || work(&mut connection.lock()))
            .await
            .map_err(KvError::Task)?
            .map_err(KvError::Sqlite)
    }
}

#[async_trait]
impl KvBackend for SqliteKv {
    async fn get(&self, plugin_id: &str, key: &str) -> Result<Option<Value>, KvError> {
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

    async fn set(&self, plugin_id: &str, key: &str, value: &Value) -> Result<(), KvError> {
        let (plugin_id, key, text) = (plugin_id.to_owned(), key.to_owned(), value.to_string());
        let now = now_ms();
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

    async fn delete(&self, plugin_id: &str, key: &str) -> Result<bool, KvError> {
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

    async fn list(&self, plugin_id: &str, prefix: &str) -> Result<Vec<String>, KvError> {
        let (plugin_id, prefix) = (plugin_id.to_owned(), prefix.to_owned());
        // Not LIKE: SQLite's LIKE ignores ASCII case, and a prefix is taken literally.
        self.blocking(move |c| {
            let mut statement = c.prepare(
                "SELECT key FROM plugin_kv WHERE plugin_id = ?1 AND substr(key, 1, length(?2)) = ?2 ORDER BY key",
            )?;
            let rows = statement.query_map(params![plugin_id, prefix], |row| row.get::<_, String>(0))?;
            rows.collect()
        })
        .await
    }

    async fn dump(&self) -> Result<Vec<KvRecord>, KvError> {
        self.blocking(|c| {
            let mut statement = c.prepare(
                "SELECT plugin_id, key, value, updated_ms FROM plugin_kv ORDER BY plugin_id, key",
            )?;
            let rows = statement.query_map([], |row| {
                Ok(KvRecord {
                    plugin_id: row.get(0)?,
                    key: row.get(1)?,
                    value: row.get(2)?,
                    updated_ms: row.get(3)?,
                })
            })?;
            rows.collect()
        })
        .await
    }

    async fn load(&self, records: Vec<KvRecord>) -> Result<(), KvError> {
        self.blocking(move |c| {
            let transaction = c.transaction()?;
            for record in &records {
                transaction.execute(
                    "INSERT INTO plugin_kv (plugin_id, key, value, updated_ms) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT(plugin_id, key) DO UPDATE SET value = excluded.value, updated_ms = excluded.updated_ms",
                    params![record.plugin_id, record.key, record.value, record.updated_ms],
                )?;
            }
            transaction.commit()
        })
        .await
    }
}
