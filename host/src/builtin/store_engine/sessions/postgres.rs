//! [`PostgresSessionStates`]: session loop state in the shared PostgreSQL store, table
//! `engine_session_state` (one JSON document per session).

use async_trait::async_trait;
use tokio_postgres::types::Json;

use super::SessionState;
use super::backend::SessionStateStore;
use crate::builtin::engine::EngineError;
use crate::postgres::{Database, PgError};

/// Session loop state every host on the database shares.
#[derive(Debug, Clone)]
pub struct PostgresSessionStates {
    database: Database,
}

impl PostgresSessionStates {
    /// The state in `database` (nothing connects until the first call).
    pub fn new(database: Database) -> Self {
        Self { database }
    }
}

fn failed(error: impl Into<PgError>) -> EngineError {
    EngineError::Backend(Box::new(error.into()))
}

#[async_trait]
impl SessionStateStore for PostgresSessionStates {
    async fn load(&self, session_id: &str) -> Result<SessionState, EngineError> {
        let client = self.database.client().await.map_err(failed)?;
        let row = client
            .query_opt(
                "SELECT state FROM engine_session_state WHERE session_id = $1",
                &[&session_id],
            )
            .await
            .map_err(failed)?;
        match row {
            Some(row) => Ok(row.try_get::<_, Json<SessionState>>(0).map_err(failed)?.0),
            None => Ok(SessionState::default()),
        }
    }

    async fn update(
        &self,
        session_id: &str,
        change: &mut (dyn for<'s> FnMut(&'s mut SessionState) + Send),
    ) -> Result<(), EngineError> {
        let mut client = self.database.client().await.map_err(failed)?;
        let transaction = client.transaction().await.map_err(failed)?;
        // The row exists before it is locked: FOR UPDATE cannot lock a row that is not there,
        // and two hosts creating one session's first state would both start from the default.
        let default = Json(SessionState::default());
        transaction
            .execute(
                "INSERT INTO engine_session_state (session_id, state) VALUES ($1, $2)
                 ON CONFLICT (session_id) DO NOTHING",
                &[&session_id, &default],
            )
            .await
            .map_err(failed)?;
        let row = transaction
            .query_one(
                "SELECT state FROM engine_session_state WHERE session_id = $1 FOR UPDATE",
                &[&session_id],
            )
            .await
            .map_err(failed)?;
        let mut state = row.try_get::<_, Json<SessionState>>(0).map_err(failed)?.0;
        change(&mut state);
        transaction
            .execute(
                "UPDATE engine_session_state SET state = $2, updated_at = now() WHERE session_id = $1",
                &[&session_id, &Json(&state)],
            )
            .await
            .map_err(failed)?;
        transaction.commit().await.map_err(failed)?;
        Ok(())
    }
}
