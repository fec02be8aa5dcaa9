//! [`PostgresSessions`]: the MCP sessions of clients of protocol revisions before 2026-07-28
//! (which carry `Mcp-Session-Id`), kept in the shared PostgreSQL store, table `mcp_sessions`
//! (see `postgres/migrations.rs`), so that any host behind a balancer can restore a session
//! another host opened: rmcp saves a session's `initialize` parameters after the handshake,
//! and a host that gets a request for a session it does not hold loads them and replays the
//! handshake. 2026-07-28 clients are stateless and never reach this.
//!
//! A host that dies never deletes its sessions, so a stored session is forgotten
//! [`SESSION_RETENTION_DAYS`] after it was opened: clients hold sessions for minutes or hours,
//! and one older than that is restored by no host (its client initializes again).

use async_trait::async_trait;
use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};

use crate::postgres::Database;

/// Days after which a stored session is forgotten.
pub const SESSION_RETENTION_DAYS: i32 = 7;

/// MCP sessions in the shared PostgreSQL store.
#[derive(Debug, Clone)]
pub struct PostgresSessions {
    database: Database,
}

impl PostgresSessions {
    /// Sessions in `database`.
    pub fn new(database: Database) -> Self {
        PostgresSessions { database }
    }
}

#[async_trait]
impl SessionStore for PostgresSessions {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let client = self.database.client().await?;
        let statement = client
            .prepare_cached(
                "SELECT state FROM mcp_sessions WHERE session_id = $1
                 AND created_at > now() - make_interval(days => $2)",
            )
            .await?;
        let row = client
            .query_opt(&statement, &[&session_id, &SESSION_RETENTION_DAYS])
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let state: serde_json::Value = row.get(0);
        Ok(Some(serde_json::from_value(state)?))
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let client = self.database.client().await?;
        let state = serde_json::to_value(state)?;
        let statement = client
            .prepare_cached(
                "INSERT INTO mcp_sessions (session_id, state) VALUES ($1, $2)
                 ON CONFLICT (session_id) DO UPDATE SET state = excluded.state",
            )
            .await?;
        client.execute(&statement, &[&session_id, &state]).await?;
        // Sessions of hosts that died are never deleted by them: forget the expired ones.
        let expired = client
            .prepare_cached(
                "DELETE FROM mcp_sessions WHERE created_at < now() - make_interval(days => $1)",
            )
            .await?;
        client.execute(&expired, &[&SESSION_RETENTION_DAYS]).await?;
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        let client = self.database.client().await?;
        let statement = client
            .prepare_cached("DELETE FROM mcp_sessions WHERE session_id = $1")
            .await?;
        client.execute(&statement, &[&session_id]).await?;
        Ok(())
    }
}
