//! [`DiscoveryStore`]: where each session's `tool_search` discoveries live.

use async_trait::async_trait;

use super::SessionDiscovery;
use crate::postgres::PgError;

/// Why a session's discoveries could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    /// The shared PostgreSQL store failed.
    #[error("tool_search discoveries are unavailable")]
    Postgres(#[from] PgError),
    /// The store returned without applying a change (a bug in the store).
    #[error("the discovery store did not apply a change")]
    NotApplied,
}

/// Storage of [`SessionDiscovery`] by session id. A session never seen has discovered
/// nothing.
#[async_trait]
pub trait DiscoveryStore: Send + Sync + std::fmt::Debug {
    /// The session's discoveries.
    async fn load(&self, session_id: &str) -> Result<SessionDiscovery, DiscoveryError>;

    /// Reads the session's discoveries, applies `change` once, and stores the result, as
    /// one atomic step.
    async fn update(
        &self,
        session_id: &str,
        change: &mut (dyn for<'s> FnMut(&'s mut SessionDiscovery) + Send),
    ) -> Result<(), DiscoveryError>;

    /// Forgets the session.
    async fn remove(&self, session_id: &str) -> Result<(), DiscoveryError>;
}
