//! Why an operation on the shared PostgreSQL store failed.

/// Why an operation on the shared PostgreSQL store failed.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    /// The connection string does not parse.
    #[error("invalid PostgreSQL connection string")]
    Url(#[source] tokio_postgres::Error),
    /// The pool could not be built from the connection string.
    #[error("cannot set up the PostgreSQL pool")]
    Pool(#[source] deadpool_postgres::CreatePoolError),
    /// No connection to the server could be had (down, refused, wrong credentials, timed out).
    #[error("PostgreSQL at {target} is unreachable")]
    Unreachable {
        /// The server, as the connection string names it (without a password).
        target: String,
        /// Why.
        #[source]
        source: deadpool_postgres::PoolError,
    },
    /// The listening connection could not be opened.
    #[error("cannot open a LISTEN connection to PostgreSQL at {target}")]
    Listen {
        /// The server.
        target: String,
        /// Why.
        #[source]
        source: tokio_postgres::Error,
    },
    /// A statement failed.
    #[error("PostgreSQL statement failed")]
    Query(#[from] tokio_postgres::Error),
    /// A migration failed; the database stays at the version before it.
    #[error("PostgreSQL migration {version} ({name}) failed")]
    Migration {
        /// Its version.
        version: i32,
        /// What it does.
        name: &'static str,
        /// Why.
        #[source]
        source: tokio_postgres::Error,
    },
    /// The database was migrated by a newer maitool; this one does not know its schema.
    #[error(
        "the PostgreSQL schema is at version {found}, newer than this maitool knows ({known}); upgrade maitool"
    )]
    NewerSchema {
        /// The database's version.
        found: i32,
        /// The newest this build knows.
        known: i32,
    },
    /// A stored value does not decode.
    #[error("corrupt {what} in PostgreSQL")]
    Corrupt {
        /// Which value.
        what: &'static str,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}
