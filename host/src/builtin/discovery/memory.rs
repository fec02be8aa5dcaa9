//! [`MemoryDiscoveries`]: discoveries in the host's memory (one host; the default).

use std::collections::HashMap;

use async_trait::async_trait;
use parking_lot::Mutex;

use super::SessionDiscovery;
use super::backend::{DiscoveryError, DiscoveryStore};

/// Discoveries in a map in memory, lost when the host stops.
#[derive(Debug, Default)]
pub struct MemoryDiscoveries {
    sessions: Mutex<HashMap<String, SessionDiscovery>>,
}

#[async_trait]
impl DiscoveryStore for MemoryDiscoveries {
    async fn load(&self, session_id: &str) -> Result<SessionDiscovery, DiscoveryError> {
        Ok(self
            .sessions
            .lock()
            .get(session_id)
            .cloned()
            .unwrap_or_default())
    }

    async fn update(
        &self,
        session_id: &str,
        change: &mut (dyn for<'s> FnMut(&'s mut SessionDiscovery) + Send),
    ) -> Result<(), DiscoveryError> {
        change(
            self.sessions
                .lock()
                .entry(session_id.to_owned())
                .or_default(),
        );
        Ok(())
    }

    async fn remove(&self, session_id: &str) -> Result<(), DiscoveryError> {
        self.sessions.lock().remove(session_id);
        Ok(())
    }
}
