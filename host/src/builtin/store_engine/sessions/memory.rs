//! [`MemorySessionStates`]: session loop state in the host's memory (one host; the default).

use std::collections::HashMap;

use async_trait::async_trait;
use parking_lot::Mutex;

use super::SessionState;
use super::backend::SessionStateStore;
use crate::builtin::engine::EngineError;

/// Session loop state in a map in memory, lost when the host stops.
#[derive(Debug, Default)]
pub struct MemorySessionStates {
    states: Mutex<HashMap<String, SessionState>>,
}

#[async_trait]
impl SessionStateStore for MemorySessionStates {
    async fn load(&self, session_id: &str) -> Result<SessionState, EngineError> {
        Ok(self
            .states
            .lock()
            .get(session_id)
            .cloned()
            .unwrap_or_default())
    }

    async fn update(
        &self,
        session_id: &str,
        change: &mut (dyn for<'s> FnMut(&'s mut SessionState) + Send),
    ) -> Result<(), EngineError> {
        change(self.states.lock().entry(session_id.to_owned()).or_default());
        Ok(())
    }
}
