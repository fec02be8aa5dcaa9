//! [`SessionStateStore`]: where the engine's per-session loop state lives.

use async_trait::async_trait;

use super::SessionState;
use crate::builtin::engine::EngineError;

/// Storage of [`SessionState`] by session id. A session never seen has the default state.
#[async_trait]
pub trait SessionStateStore: Send + Sync + std::fmt::Debug {
    /// The session's state.
    async fn load(&self, session_id: &str) -> Result<SessionState, EngineError>;

    /// Reads the session's state, applies `change` once, and stores the result, as one
    /// atomic step: two hosts changing one session at once each see the other's change.
    async fn update(
        &self,
        session_id: &str,
        change: &mut (dyn for<'s> FnMut(&'s mut SessionState) + Send),
    ) -> Result<(), EngineError>;
}
