//! Per-session loop state of the [`StoreEngine`](super::StoreEngine): waits, rests, rounds and
//! focus. It lives in memory, like a chat runtime's state in MaiBot.

use std::collections::HashMap;

use parking_lot::Mutex;
use serde::Serialize;

use crate::builtin::engine::WaitOutcome;
use crate::builtin::store::now;

/// A pending wait.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaitState {
    /// How long the session waits.
    pub seconds: u64,
    /// The `wait` call that started it.
    pub call_id: String,
    /// When it started, Unix seconds.
    pub since: f64,
}

/// The loop state of one session.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
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

#[derive(Debug, Default)]
pub(super) struct Sessions {
    states: Mutex<HashMap<String, SessionState>>,
}

impl Sessions {
    pub(super) fn snapshot(&self, session_id: &str) -> SessionState {
        self.states
            .lock()
            .get(session_id)
            .cloned()
            .unwrap_or_default()
    }

    fn with<R>(&self, session_id: &str, change: impl FnOnce(&mut SessionState) -> R) -> R {
        change(self.states.lock().entry(session_id.to_owned()).or_default())
    }

    /// MaiBot's `_try_enter_wait_state`: at the limit the session rests instead, and resting
    /// (MaiBot's stop state) clears the streak.
    pub(super) fn enter_wait(
        &self,
        session_id: &str,
        seconds: u64,
        call_id: &str,
        max: u32,
    ) -> WaitOutcome {
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
    }

    /// Another tool ran: the streak ends and the session is active again.
    pub(super) fn reset_waits(&self, session_id: &str) {
        self.with(session_id, |state| {
            state.consecutive_waits = 0;
            state.waiting = None;
            state.resting = false;
        });
    }

    pub(super) fn end_round(&self, session_id: &str, reason: &str) {
        self.with(session_id, |state| {
            state.rounds_ended += 1;
            state.last_end_reason = reason.to_owned();
            state.waiting = None;
        });
    }

    pub(super) fn focus(&self, session_id: &str, stream_id: &str) {
        self.with(session_id, |state| {
            state.focused_stream = Some(stream_id.to_owned());
        });
    }
}
