//! Bringing a database up to [`SCHEMA_VERSION`](super::SCHEMA_VERSION), safely when several
//! hosts start at once against one database.

use tokio_postgres::Client;

use super::error::PgError;
use super::migrations::{MIGRATIONS, Migration, SCHEMA_VERSION};

/// The advisory lock key every maitool host takes while it migrates (the bytes "maitool\0").
/// A transaction-scoped lock: PostgreSQL releases it at commit or rollback, and when a host
/// dies mid-migration with its connection.
const MIGRATION_LOCK: i64 = 0x6d61_6974_6f6f_6c00;

/// Applies every migration the database lacks, each recorded in `maitool_schema_migrations`,
/// all in one transaction under [`MIGRATION_LOCK`]: a second host that starts meanwhile waits
/// for the lock, then finds the work done. DDL is transactional in PostgreSQL, so a failed
/// migration leaves the database as it was.
pub(super) async fn migrate(client: &mut Client) -> Result<(), PgError> {
    let transaction = client.transaction().await?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    transaction
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS maitool_schema_migrations (
                 version INTEGER PRIMARY KEY,
                 name TEXT NOT NULL,
                 applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
             )",
        )
        .await?;
    let found: i32 = transaction
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM maitool_schema_migrations",
            &[],
        )
        .await?
        .get(0);
    if found > SCHEMA_VERSION {
        return Err(PgError::NewerSchema {
            found,
            known: SCHEMA_VERSION,
        });
    }
    for Migration { version, name, sql } in MIGRATIONS.iter().filter(|m| m.version > found) {
        let failed = |source| PgError::Migration {
            version: *version,
            name,
            source,
        };
        transaction.batch_execute(sql).await.map_err(failed)?;
        transaction
            .execute(
                "INSERT INTO maitool_schema_migrations (version, name) VALUES ($1, $2)",
                &[version, name],
            )
            .await
            .map_err(failed)?;
        tracing::info!(version, name, "applied PostgreSQL migration");
    }
    transaction.commit().await?;
    Ok(())
}
