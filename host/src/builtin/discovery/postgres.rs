//! [`PostgresDiscoveries`]: discoveries in the shared PostgreSQL store, table
//! `tool_discovery` (one JSON document per session).

use async_trait::async_trait;
use tokio_postgres::types::Json;

use super::SessionDiscovery;
use super::backend::{DiscoveryError, DiscoveryStore};
use crate::postgres::{Database, PgError};

/// Discoveries every host on the database shares: a search made through one host exposes
/// its tools through all of them.
#[derive(Debug, Clone)]
pub struct PostgresDiscoveries {
    database: Database,
}

impl PostgresDiscoveries {
    /// The discoveries in `database` (nothing connects until the first call).
    pub fn new(database: Database) -> Self {
        Self { database }
    }
}

fn failed(error: tokio_postgres::Error) -> DiscoveryError {
    DiscoveryError::Postgres(PgError::Query(error))
}

#[async_trait]
impl DiscoveryStore for PostgresDiscoveries {
    async fn load(&self, session_id: &str) -> Result<SessionDiscovery, DiscoveryError> {
        let client = self.database.client().await?;
        let row = client
            .query_opt(
                "SELECT state FROM tool_discovery WHERE session_id = $1",
                &[&session_id],
            )
            .await
            .map_err(failed)?;
        match row {
            Some(row) => Ok(row
                .try_get::<_, Json<SessionDiscovery>>(0)
                .map_err(failed)?
                .0),
            None => Ok(SessionDiscovery::default()),
        }
    }

    async fn update(
        &self,
        session_id: &str,
        change: &mut (dyn for<'s> FnMut(&'s mut SessionDiscovery) + Send),
    ) -> Result<(), DiscoveryError> {
        let mut client = self.database.client().await?;
        let transaction = client.transaction().await.map_err(failed)?;
        // Created before it is locked, so that two hosts' first changes to a session queue
        // on one row instead of both starting from nothing.
        transaction
            .execute(
                "INSERT INTO tool_discovery (session_id, state) VALUES ($1, $2)
                 ON CONFLICT (session_id) DO NOTHING",
                &[&session_id, &Json(SessionDiscovery::default())],
            )
            .await
            .map_err(failed)?;
        let row = transaction
            .query_one(
                "SELECT state FROM tool_discovery WHERE session_id = $1 FOR UPDATE",
                &[&session_id],
            )
            .await
            .map_err(failed)?;
        let mut session = row
            .try_get::<_, Json<SessionDiscovery>>(0)
            .map_err(failed)?
            .0;
        change(&mut session);
        transaction
            .execute(
                "UPDATE tool_discovery SET state = $2, updated_at = now() WHERE session_id = $1",
                &[&session_id, &Json(&session)],
            )
            .await
            .map_err(failed)?;
        transaction.commit().await.map_err(failed)?;
        Ok(())
    }

    async fn remove(&self, session_id: &str) -> Result<(), DiscoveryError> {
        let client = self.database.client().await?;
        client
            .execute(
                "DELETE FROM tool_discovery WHERE session_id = $1",
                &[&session_id],
            )
            .await
            .map_err(failed)?;
        Ok(())
    }
}
