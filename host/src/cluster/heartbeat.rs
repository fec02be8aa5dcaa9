//! [`Heartbeat`]: a serving host's row in the `hosts` table, kept fresh by a background task.

use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::task::JoinHandle;

use super::beat::Beat;
use super::identity::HostIdentity;
use crate::Host;
use crate::config::ClusterSection;
use crate::postgres::{Database, PgError};

/// How long a clean stop waits to delete the host's row: a database that is down must not
/// hold the shutdown (the row turns stale instead).
const DELETE_LIMIT: Duration = Duration::from_secs(2);
/// The least time one write may take before it counts as failed, for short heartbeats.
const MIN_WRITE_LIMIT: Duration = Duration::from_secs(5);

const UPSERT: &str = "
    INSERT INTO hosts (host_id, hostname, pid, version, mcp_address, started_at, last_seen,
                       ready, waiting_for, tools, plugins_loaded, plugins_total)
    VALUES ($1, $2, $3, $4, $5, to_timestamp($6::BIGINT / 1000.0::DOUBLE PRECISION), now(),
            $7, $8, $9, $10, $11)
    ON CONFLICT (host_id) DO UPDATE SET
        mcp_address = EXCLUDED.mcp_address,
        last_seen = now(),
        ready = EXCLUDED.ready,
        waiting_for = EXCLUDED.waiting_for,
        tools = EXCLUDED.tools,
        plugins_loaded = EXCLUDED.plugins_loaded,
        plugins_total = EXCLUDED.plugins_total";

const PRUNE: &str = "DELETE FROM hosts WHERE last_seen < now() - make_interval(secs => $1::BIGINT / 1000.0::DOUBLE PRECISION)";

/// A serving host's heartbeat. Dropping it stops the task and leaves the row to turn stale;
/// [`stop`](Self::stop) deletes the row, as a clean shutdown should.
#[derive(Debug)]
pub struct Heartbeat {
    task: JoinHandle<()>,
    database: Database,
    id: String,
}

impl Heartbeat {
    /// Starts writing `identity`'s row for `host` on `database`, as `section` says. Ends by
    /// itself when the host is gone.
    pub fn start(
        database: Database,
        identity: HostIdentity,
        section: &ClusterSection,
        host: &Arc<Host>,
    ) -> Heartbeat {
        let id = identity.id.clone();
        let task = tokio::spawn(beat_forever(
            database.clone(),
            identity,
            section.clone(),
            Arc::downgrade(host),
        ));
        Heartbeat { task, database, id }
    }

    /// This host's id in the table.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Stops beating and deletes this host's row (waiting at most two seconds for the
    /// database; on failure the row turns stale and is forgotten later).
    pub async fn stop(self) {
        self.task.abort();
        let deleted = tokio::time::timeout(DELETE_LIMIT, delete(&self.database, &self.id)).await;
        match deleted {
            Ok(Ok(())) => tracing::info!(host = %self.id, "left the cluster's host list"),
            Ok(Err(err)) => tracing::warn!(
                "cannot remove this host from the cluster's host list (it turns stale instead): {}",
                crate::error_text::chain(&err)
            ),
            Err(_) => tracing::warn!(
                "removing this host from the cluster's host list took over {} s (it turns stale instead)",
                DELETE_LIMIT.as_secs()
            ),
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Writes the row every heartbeat, and at once when the host becomes ready, until the host is
/// gone. Failures are logged when they start and when they end, not at every beat.
async fn beat_forever(
    database: Database,
    identity: HostIdentity,
    section: ClusterSection,
    host: Weak<Host>,
) {
    let interval = Duration::from_millis(section.heartbeat_ms);
    let write_limit = interval.max(MIN_WRITE_LIMIT);
    let mut failing = false;
    loop {
        let Some(current) = host.upgrade() else {
            return;
        };
        let beat = Beat::of(&current).await;
        let settled = current.settled().clone();
        drop(current);
        let written = tokio::time::timeout(
            write_limit,
            write(&database, &identity, &beat, section.forget_after_ms),
        )
        .await;
        match written {
            Ok(Ok(())) if failing => {
                failing = false;
                tracing::info!(host = %identity.id, "heartbeat written again");
            }
            Ok(Ok(())) => {}
            Ok(Err(err)) => {
                if !failing {
                    tracing::warn!(
                        "cannot write this host's heartbeat (other hosts will see it stale; retrying every {} ms): {}",
                        section.heartbeat_ms,
                        crate::error_text::chain(&err)
                    );
                }
                failing = true;
            }
            Err(_) => {
                if !failing {
                    tracing::warn!(
                        "this host's heartbeat took over {} ms (other hosts will see it stale; retrying every {} ms)",
                        write_limit.as_millis(),
                        section.heartbeat_ms
                    );
                }
                failing = true;
            }
        }
        if beat.ready {
            tokio::time::sleep(interval).await;
        } else {
            // Readiness is news: written as soon as the first listing would be complete.
            tokio::select! {
                () = tokio::time::sleep(interval) => {}
                () = settled.wait() => {}
            }
        }
    }
}

async fn write(
    database: &Database,
    identity: &HostIdentity,
    beat: &Beat,
    forget_after_ms: u64,
) -> Result<(), PgError> {
    let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    let client = database.client().await?;
    client
        .execute(
            UPSERT,
            &[
                &identity.id,
                &identity.hostname,
                &(identity.pid as i32),
                &identity.version,
                &identity.mcp_address,
                &identity.started_at_ms,
                &beat.ready,
                &beat.waiting_for.join("; "),
                &count(beat.tools),
                &count(beat.plugins_loaded),
                &count(beat.plugins_total),
            ],
        )
        .await?;
    let forget_after_ms = i64::try_from(forget_after_ms).unwrap_or(i64::MAX);
    client.execute(PRUNE, &[&forget_after_ms]).await?;
    Ok(())
}

async fn delete(database: &Database, id: &str) -> Result<(), PgError> {
    let client = database.client().await?;
    client
        .execute("DELETE FROM hosts WHERE host_id = $1", &[&id])
        .await?;
    Ok(())
}
