//! The shared store on PostgreSQL (`[store] backend = "postgres"`): one connection pool for the
//! whole host, the versioned schema every state's `postgres` backend writes to, and the
//! migrations that bring a database up to it.
//!
//! Each shared state has its own seam beside its embedded default (the plugins' key-value
//! store in `plugin/kv`, the built-in engine's wait streaks in `builtin/store_engine/sessions`,
//! `tool_search` discoveries in `builtin/discovery`); their PostgreSQL backends hold a
//! [`Database`] and nothing here knows about them.
//!
//! A database that cannot be reached does not stop the host: the pool connects on first use,
//! and every operation that needs it fails with [`PgError::Unreachable`], naming the server,
//! while everything else keeps serving. The schema is brought up to date on the first
//! connection that succeeds.

mod database;
mod error;
mod listen;
mod migrate;
mod migrations;

pub use database::Database;
pub use error::PgError;
pub use listen::{Listener, Notification};
pub use migrations::SCHEMA_VERSION;

#[cfg(test)]
mod tests;
