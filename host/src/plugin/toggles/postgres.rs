//! [`PostgresToggles`]: component toggles in the shared PostgreSQL store, table
//! `component_toggle` (a row disables; `session_id` '' means everywhere). Each change is
//! announced on [`TOGGLE_CHANNEL`] in the same transaction, so the other hosts reload theirs.

use async_trait::async_trait;

use super::{DisabledComponent, ToggleError, ToggleStore};
use crate::postgres::{Database, PgError};

/// The LISTEN/NOTIFY channel a toggle change is announced on (payload: the full name).
pub const TOGGLE_CHANNEL: &str = "maitool_component_toggle";

/// Toggles every host on the database obeys.
#[derive(Debug, Clone)]
pub struct PostgresToggles {
    database: Database,
}

impl PostgresToggles {
    /// The toggles in `database` (nothing connects until the first call).
    pub fn new(database: Database) -> Self {
        Self { database }
    }
}

fn failed(error: tokio_postgres::Error) -> ToggleError {
    ToggleError::Store(PgError::Query(error))
}

#[async_trait]
impl ToggleStore for PostgresToggles {
    async fn load(&self) -> Result<Option<Vec<DisabledComponent>>, ToggleError> {
        let client = self.database.client().await?;
        let rows = client
            .query(
                "SELECT full_name, session_id FROM component_toggle ORDER BY full_name, session_id",
                &[],
            )
            .await
            .map_err(failed)?;
        Ok(Some(
            rows.iter()
                .map(|row| {
                    let session: String = row.get(1);
                    DisabledComponent {
                        full_name: row.get(0),
                        session_id: (!session.is_empty()).then_some(session),
                    }
                })
                .collect(),
        ))
    }

    async fn save(
        &self,
        full_name: &str,
        session_id: Option<&str>,
        enabled: bool,
    ) -> Result<(), ToggleError> {
        let mut client = self.database.client().await?;
        let transaction = client.transaction().await.map_err(failed)?;
        let session = session_id.unwrap_or("");
        let statement = if enabled {
            "DELETE FROM component_toggle WHERE full_name = $1 AND session_id = $2"
        } else {
            "INSERT INTO component_toggle (full_name, session_id) VALUES ($1, $2)
             ON CONFLICT DO NOTHING"
        };
        transaction
            .execute(statement, &[&full_name, &session])
            .await
            .map_err(failed)?;
        // Delivered at commit, to every listening host (this one included).
        transaction
            .execute("SELECT pg_notify($1, $2)", &[&TOGGLE_CHANNEL, &full_name])
            .await
            .map_err(failed)?;
        transaction.commit().await.map_err(failed)?;
        Ok(())
    }
}
