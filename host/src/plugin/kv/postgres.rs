//! [`PostgresKv`]: the plugins' key-value pairs in the shared PostgreSQL store, table
//! `plugin_kv` (see `postgres/migrations.rs`).

use async_trait::async_trait;
use serde_json::Value;

use super::KvError;
use super::backend::{KvBackend, KvRecord, now_ms};
use crate::postgres::Database;

/// The shared backend: every host on the database sees every pair at once.
#[derive(Debug, Clone)]
pub(super) struct PostgresKv {
    database: Database,
}

impl PostgresKv {
    pub(super) fn new(database: Database) -> Self {
        Self { database }
    }
}

#[async_trait]
impl KvBackend for PostgresKv {
    async fn get(&self, plugin_id: &str, key: &str) -> Result<Option<Value>, KvError> {
        let client = self.database.client().await?;
        let statement = client
            .prepare_cached("SELECT value FROM plugin_kv WHERE plugin_id = $1 AND key = $2")
            .await?;
        let row = client.query_opt(&statement, &[&plugin_id, &key]).await?;
        row.map(|row| serde_json::from_str(row.get(0)).map_err(KvError::Corrupt))
            .transpose()
    }

    async fn set(&self, plugin_id: &str, key: &str, value: &Value) -> Result<(), KvError> {
        let client = self.database.client().await?;
        let statement = client
            .prepare_cached(
                "INSERT INTO plugin_kv (plugin_id, key, value, updated_ms) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (plugin_id, key) DO UPDATE SET value = excluded.value, updated_ms = excluded.updated_ms",
            )
            .await?;
        client
            .execute(
                &statement,
                &[&plugin_id, &key, &value.to_string(), &now_ms()],
            )
            .await?;
        Ok(())
    }

    async fn delete(&self, plugin_id: &str, key: &str) -> Result<bool, KvError> {
        let client = self.database.client().await?;
        let statement = client
            .prepare_cached("DELETE FROM plugin_kv WHERE plugin_id = $1 AND key = $2")
            .await?;
        Ok(client.execute(&statement, &[&plugin_id, &key]).await? > 0)
    }

    async fn list(&self, plugin_id: &str, prefix: &str) -> Result<Vec<String>, KvError> {
        let client = self.database.client().await?;
        let statement = client
            .prepare_cached(
                "SELECT key FROM plugin_kv WHERE plugin_id = $1 AND starts_with(key, $2) ORDER BY key",
            )
            .await?;
        let rows = client.query(&statement, &[&plugin_id, &prefix]).await?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    async fn dump(&self) -> Result<Vec<KvRecord>, KvError> {
        let client = self.database.client().await?;
        let rows = client
            .query(
                "SELECT plugin_id, key, value, updated_ms FROM plugin_kv ORDER BY plugin_id, key",
                &[],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|row| KvRecord {
                plugin_id: row.get(0),
                key: row.get(1),
                value: row.get(2),
                updated_ms: row.get(3),
            })
            .collect())
    }

    async fn load(&self, records: Vec<KvRecord>) -> Result<(), KvError> {
        let mut client = self.database.client().await?;
        let transaction = client.transaction().await?;
        let statement = transaction
            .prepare(
                "INSERT INTO plugin_kv (plugin_id, key, value, updated_ms) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (plugin_id, key) DO UPDATE SET value = excluded.value, updated_ms = excluded.updated_ms",
            )
            .await?;
        for record in &records {
            transaction
                .execute(
                    &statement,
                    &[
                        &record.plugin_id,
                        &record.key,
                        &record.value,
                        &record.updated_ms,
                    ],
                )
                .await?;
        }
        transaction.commit().await?;
        Ok(())
    }
}
