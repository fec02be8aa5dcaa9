//! The embedded store behind [`StoreEngine`](super::StoreEngine): chat history,
//! long-term memories with full-text search, person profiles, the emoji library, forwarded
//! messages and tool-result media, in one SQLite database.
//!
//! One connection serves every call. SQLite work is blocking, so each call moves to Tokio's
//! blocking pool ([`tokio::task::spawn_blocking`]) and never runs on the async executor; calls
//! are serialised by the connection's mutex, which SQLite would do for writes anyway. A file
//! database uses WAL journaling. `:memory:` gives a private in-memory database.

mod browse;
mod emojis;
mod forwards;
mod fts;
mod maibot_tables;
mod memories;
mod messages;
mod persons;
mod schema;
mod time;
mod tool_records;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use rusqlite::Connection;

use crate::builtin::engine::EngineError;

pub use browse::MessageWindow;
pub use emojis::NewEmoji;
pub use maibot_tables::{Field, FieldKind, MaibotTable, TableQuery};
pub use memories::MemoryStats;
pub use messages::MessageImage;

pub(crate) use emojis::image_mime;
pub(crate) use schema::sha256_hex;
pub(crate) use time::now;

/// The path that opens an in-memory database.
pub const IN_MEMORY: &str = ":memory:";

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database file could not be opened or prepared.
    #[error("cannot open store {path}: {source}")]
    Open {
        /// The database path.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// A file next to the database (its directory, a seed file, an emoji) could not be used.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A statement failed.
    #[error("store query failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Stored JSON could not be decoded (a corrupted row).
    #[error("corrupted store data: {0}")]
    Corrupted(String),
    /// The request itself is invalid; the text says why.
    #[error("{0}")]
    Invalid(String),
    /// A message with this id is already stored (ids are unique).
    #[error("message id {0} already exists")]
    MessageExists(String),
    /// The blocking task running the statement panicked or was cancelled.
    #[error("store task failed: {0}")]
    Task(String),
}

/// What a tool reads when the store refuses or fails: a refusal is the request's fault
/// ([`EngineError::Invalid`]); anything else is the backend's, kept as the source.
impl From<StoreError> for EngineError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Invalid(message) => EngineError::Invalid(message),
            exists @ StoreError::MessageExists(_) => EngineError::Invalid(exists.to_string()),
            other => EngineError::Backend(Box::new(other)),
        }
    }
}

/// A handle to the store; cheap to clone, every clone uses the same connection.
#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
    location: Arc<str>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location)
            .finish()
    }
}

impl Store {
    /// Opens (creating if needed) the database at `path`, creating its parent directory, and
    /// brings the schema up to date. `:memory:` opens a private in-memory database.
    pub async fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref().to_path_buf();
        if path.as_os_str() == IN_MEMORY {
            return Store::in_memory().await;
        }
        let location: Arc<str> = path.display().to_string().into();
        let conn = tokio::task::spawn_blocking(move || open_file(&path))
            .await
            .map_err(|err| StoreError::Task(err.to_string()))??;
        Ok(Store {
            conn: Arc::new(Mutex::new(conn)),
            location,
        })
    }

    /// A private in-memory database with the schema in place.
    pub async fn in_memory() -> Result<Store, StoreError> {
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
        Ok(Store {
            conn: Arc::new(Mutex::new(conn)),
            location: IN_MEMORY.into(),
        })
    }

    /// Where the database lives: its path, or `:memory:`.
    pub fn location(&self) -> &str {
        &self.location
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
