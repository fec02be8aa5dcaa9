//! [`SqliteStore`]: the store in one SQLite database, the embedded default.
//!
//! One connection serves every call. SQLite work is blocking, so each call moves to Tokio's
//! blocking pool ([`tokio::task::spawn_blocking`]) and never runs on the async executor; calls
//! are serialised by the connection's mutex, which SQLite would do for writes anyway. A file
//! database uses WAL journaling. `:memory:` gives a private in-memory database.

mod browse;
mod emojis;
mod forwards;
mod maibot;
mod memories;
mod messages;
mod persons;
mod schema;
mod snapshot;
mod time;
mod tool_records;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use rusqlite::Connection;

use super::backend::StoreBackend;
use super::{IN_MEMORY, StoreError};

/// The SQLite backend; cheap to clone, every clone uses the same connection.
#[derive(Clone)]
pub(super) struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    location: Arc<str>,
}

impl fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteStore")
            .field("location", &self.location)
            .finish()
    }
}

impl StoreBackend for SqliteStore {
    fn location(&self) -> &str {
        &self.location
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`, creating its parent directory, and
    /// brings the schema up to date. `:memory:` opens a private in-memory database.
    pub(super) async fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let path = path.to_path_buf();
        if path.as_os_str() == IN_MEMORY {
            return SqliteStore::in_memory().await;
        }
        let location: Arc<str> = path.display().to_string().into();
        let conn = tokio::task::spawn_blocking(move || open_file(&path))
            .await
            .map_err(|err| StoreError::Task(err.to_string()))??;
        Ok(SqliteStore {
            conn: Arc::new(Mutex::new(conn)),
            location,
        })
    }

    /// A private in-memory database with the schema in place.
    pub(super) async fn in_memory() -> Result<SqliteStore, StoreError> {
        let conn = tokio::task::spawn_blocking(|| {
            let mut conn = Connection::open_in_memory().map_err(|source| StoreError::Open {
                path: PathBuf::from(IN_MEMORY),
                source,
            })?;
            schema::migrate(&mut conn)?;
            Ok::<_, StoreError>(conn)
        })
        .await
        .map_err(|err| StoreError::Task(err.to_string()))??;
        Ok(SqliteStore {
            conn: Arc::new(Mutex::new(conn)),
            location: IN_MEMORY.into(),
        })
    }

    /// Runs `work` on the connection in the blocking pool.
    async fn call<R, F>(&self, work: F) -> Result<R, StoreError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
    {
        let conn = Arc::clone(&self.conn);
        tokio::task::spawn_blocking(move || {
            let mut conn = conn.lock();
            work(&mut conn)
        })
        .await
        .map_err(|err| StoreError::Task(err.to_string()))?
    }
}

fn open_file(path: &Path) -> Result<Connection, StoreError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| StoreError::Io {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    let open_error = |source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    };
    let mut conn = Connection::open(path).map_err(open_error)?;
    crate::sqlite::share_between_processes(&conn).map_err(open_error)?;
    schema::migrate(&mut conn)?;
    Ok(conn)
}
