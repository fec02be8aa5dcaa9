//! [`PostgresStore`]: the store in the shared PostgreSQL database (`[store] backend =
//! "postgres"`), so that every host on it sees the same chat history, memories, persons,
//! emojis and tool records. The tables are migration 3 of `crate::postgres`.
//!
//! The SQL follows the SQLite backend's statement for statement; where the two databases
//! differ the file says how this one keeps the SQLite backend's results (case-insensitive names,
//! byte-ordered text, NULLs first, times read as UTC). Work that may block (reading an emoji's
//! file) runs in Tokio's blocking pool.

mod browse;
mod emojis;
mod maibot;
mod memories;
mod messages;
mod persons;
mod snapshot;
mod time;
mod tool_records;

use deadpool_postgres::Object;

use super::StoreError;
use super::backend::StoreBackend;
use crate::postgres::Database;

/// The PostgreSQL backend: a handle on the host's pool.
#[derive(Debug, Clone)]
pub(super) struct PostgresStore {
    database: Database,
    location: String,
}

impl PostgresStore {
    pub(super) fn new(database: Database) -> PostgresStore {
        let location = format!("PostgreSQL at {}", database.target());
        PostgresStore { database, location }
    }

    /// A pooled connection, the schema brought up to date first.
    async fn client(&self) -> Result<Object, StoreError> {
        Ok(self.database.client().await?)
    }
}

impl StoreBackend for PostgresStore {
    fn location(&self) -> &str {
        &self.location
    }
}

/// Runs blocking work (file reads) in the blocking pool.
async fn blocking<R: Send + 'static>(
    work: impl FnOnce() -> Result<R, StoreError> + Send + 'static,
) -> Result<R, StoreError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| StoreError::Task(err.to_string()))?
}
