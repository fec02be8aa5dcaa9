//! The built-in store behind [`StoreEngine`](super::StoreEngine): chat history, long-term
//! memories with full-text search, person profiles, the emoji library, forwarded messages and
//! tool-result media.
//!
//! [`Store`] is the handle every part of the host uses; what holds the data is a
//! [`StoreBackend`] behind it, chosen by `[store] backend`: SQLite ([`Store::open`], one host,
//! the default) or PostgreSQL ([`Store::postgres`], hosts sharing one database). Both split
//! text for full-text search the same way (`fts.rs`), so a query finds the same memories on
//! either.

pub mod backend;
mod forwards;
mod fts;
mod handle;
mod images;
mod maibot_tables;
mod postgres;
mod snapshot;
mod sqlite;
mod time;
mod types;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::builtin::engine::EngineError;
use crate::postgres::{Database, PgError};

pub use backend::StoreBackend;
pub use maibot_tables::{Field, FieldKind, MaibotTable, TableQuery};
pub use snapshot::{
    EmojiRow, MemoryRow, MessageImageRow, MessageRow, PersonRow, StoreSnapshot, StreamRow,
    ToolCallRow, ToolMediaRow,
};
pub use types::{MemoryStats, MessageImage, MessageWindow, NewEmoji};

pub(crate) use images::{image_mime, sha256_hex};
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
    /// The PostgreSQL store failed: unreachable, a statement, or its schema.
    #[error("built-in store on PostgreSQL")]
    Postgres(#[source] PgError),
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

impl From<PgError> for StoreError {
    fn from(error: PgError) -> Self {
        StoreError::Postgres(error)
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(error: tokio_postgres::Error) -> Self {
        StoreError::Postgres(PgError::Query(error))
    }
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

/// A handle to the store; cheap to clone, every clone uses the same backend.
#[derive(Clone)]
pub struct Store {
    backend: Arc<dyn StoreBackend>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location())
            .finish()
    }
}

impl Store {
    /// Opens (creating if needed) the SQLite database at `path`, creating its parent
    /// directory, and brings the schema up to date. `:memory:` opens a private in-memory
    /// database.
    pub async fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        Ok(Store::with_backend(Arc::new(
            sqlite::SqliteStore::open(path.as_ref()).await?,
        )))
    }

    /// A private in-memory SQLite database with the schema in place.
    pub async fn in_memory() -> Result<Store, StoreError> {
        Ok(Store::with_backend(Arc::new(
            sqlite::SqliteStore::in_memory().await?,
        )))
    }

    /// The store in a PostgreSQL database other hosts may share. Does not connect: the first
    /// operation does, bringing the schema up to date, and fails naming the server when it is
    /// unreachable.
    pub fn postgres(database: Database) -> Store {
        Store::with_backend(Arc::new(postgres::PostgresStore::new(database)))
    }

    /// A store over any backend.
    pub fn with_backend(backend: Arc<dyn StoreBackend>) -> Store {
        Store { backend }
    }

    /// The backend, for what the handle does not forward (copying every row).
    pub fn backend(&self) -> &dyn StoreBackend {
        self.backend.as_ref()
    }

    /// Where the data lives: a path, `:memory:`, or the PostgreSQL server and database.
    pub fn location(&self) -> &str {
        self.backend.location()
    }
}
