//! Per-session loop state of the [`StoreEngine`](super::StoreEngine): waits, rests, rounds and
//! focus. The rules are here; where the state lives is a [`SessionStateStore`]: the host's
//! memory by default, like a chat runtime's state in MaiBot, or PostgreSQL when hosts share
//! sessions.

mod backend;
mod memory;
mod postgres;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use self::backend::SessionStateStore;
pub use self::memory::MemorySessionStates;
pub use self::postgres::PostgresSessionStates;
use crate::builtin::engine::{EngineError, WaitOutcome};
use crate::builtin::store::now;

/// A pending wait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitState {
    /// How long the session waits.
    pub seconds: u64,
    /// The `wait` call that started it.
    pub call_id: String,
    /// When it started, Unix seconds.
    pub since: f64,
}

/// The loop state of one session.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionState {
    /// Waits in a row without another tool in between.
    pub consecutive_waits: u32,
    /// The wait in progress, if any.
    pub waiting: Option<WaitState>,
    /// The session hit the consecutive-wait limit and rests until something else happens.
    pub resting: bool,
    /// How many rounds `finish` ended.
    pub rounds_ended: u64,
    /// Why the last round ended.
    pub last_end_reason: String,
    /// The stream the session switched to with `switch_chat`.
    pub focused_stream: Option<String>,
}

/// The rules of the loop state over where it is stored.
#[derive(Debug, Clone)]
pub(super) struct Sessions {
    store: Arc<dyn SessionStateStore>,
}

impl Default for Sessions {
    fn default() -> Self {
        Self::new(Arc::new(MemorySessionStates::default()))
    }
}

impl Sessions {
    pub(super) fn new(store: Arc<dyn SessionStateStore>) -> Self {
        Self { store }
    }

    pub(super) async fn snapshot(&self, session_id: &str) -> Result<SessionState, EngineError> {
        self.store.load(session_id).await
    }

    /// Applies `change` to the session's state as one atomic step of the store, and returns
    /// what it returned.
    async fn with<R: Send>(
        &self,
        session_id: &str,
        change: impl FnOnce(&mut SessionState) -> R + Send,
    ) -> Result<R, EngineError> {
        let mut change = Some(change);
        let mut result = None;
        self.store
            .update(session_id, &mut |state| {
                if let Some(change) = change.take() {
                    result = Some(change(state));
                }
            })
            .await?;
        result.ok_or_else(|| {
            EngineError::Failed(format!(
                "the session state store did not apply the change to session {session_id}"
            ))
        })
    }

    /// MaiBot's `_try_enter_wait_state`: at the limit the session rests instead, and resting
    /// (MaiBot's stop state) clears the streak.
    pub(super) async fn enter_wait(
        &self,
        session_id: &str,
        seconds: u64,
        call_id: &str,
        max: u32,
    ) -> Result<WaitOutcome, EngineError> {
        let max = max.max(1);
        self.with(session_id, |state| {
            if state.consecutive_waits >= max {
                let reached = state.consecutive_waits;
                state.consecutive_waits = 0;
                state.waiting = None;
                state.resting = true;
                return WaitOutcome {
                    entered: false,
                    consecutive: reached,
                    max,
                };
            }
            state.consecutive_waits += 1;
            state.resting = false;
            state.waiting = Some(WaitState {
                seconds,
                call_id: call_id.to_owned(),
                since: now(),
            });
            WaitOutcome {
                entered: true,
                consecutive: state.consecutive_waits,
                max,
            }
        })
        .await
    }

    /// Another tool ran: the streak ends and the session is active again.
    pub(super) async fn reset_waits(&self, session_id: &str) -> Result<(), EngineError> {
        self.with(session_id, |state| {
            state.consecutive_waits = 0;
            state.waiting = None;
            state.resting = false;
        })
        .await
    }

    pub(super) async fn end_round(
        &self,
        session_id: &str,
        reason: &str,
    ) -> Result<(), EngineError> {
        self.with(session_id, |state| {
            state.rounds_ended += 1;
            state.last_end_reason = reason.to_owned();
            state.waiting = None;
        })
        .await
    }

    pub(super) async fn focus(&self, session_id: &str, stream_id: &str) -> Result<(), EngineError> {
        self.with(session_id, |state| {
            state.focused_stream = Some(stream_id.to_owned());
        })
        .await
    }
}
