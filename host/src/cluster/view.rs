//! [`ClusterView`]: the hosts on one PostgreSQL store, as `maitool status` shows them.

use serde::{Deserialize, Serialize};

use crate::config::ClusterSection;
use crate::postgres::{Database, PgError};

/// Every host in the `hosts` table, with what its row last said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterView {
    /// The database (`user@host/dbname`, never a password).
    pub database: String,
    /// How long a row may go unwritten before its host is shown stale.
    pub stale_after_ms: u64,
    /// The hosts, by host name and start.
    pub hosts: Vec<ClusterHost>,
}

/// One host's row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterHost {
    /// `HOSTNAME:PID:RANDOM`.
    pub host_id: String,
    /// Its machine's host name.
    pub hostname: String,
    /// Its process id.
    pub pid: i32,
    /// Its maitool version.
    pub version: String,
    /// Where MCP clients reach it, if it serves MCP over HTTP or advertises an address.
    pub mcp_address: Option<String>,
    /// When it started (Unix milliseconds, its own clock).
    pub started_at_ms: i64,
    /// When it last wrote its row (Unix milliseconds, the database's clock).
    pub last_seen_ms: i64,
    /// How long ago that was, by the database's clock.
    pub last_seen_ago_ms: i64,
    /// Ready, starting, or stale.
    pub state: HostState,
    /// While starting, what its first listing waits for (`; `-separated).
    pub waiting_for: String,
    /// Tools it lists.
    pub tools: i32,
    /// Plugins loaded.
    pub plugins_loaded: i32,
    /// Plugins configured or reported.
    pub plugins_total: i32,
}

/// What a host's row says of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostState {
    /// Its first tool listing would be complete: a balancer may send it clients.
    Ready,
    /// Its tool sources are still starting.
    Starting,
    /// Its row was not written for `stale_after_ms`: dead, hung, or cut off from the
    /// database. Forgotten after `forget_after_ms`.
    Stale,
}

impl HostState {
    /// The state of a row last written `ago_ms` ago, with its `ready` flag.
    pub fn of(ready: bool, ago_ms: i64, stale_after_ms: u64) -> HostState {
        if ago_ms > i64::try_from(stale_after_ms).unwrap_or(i64::MAX) {
            HostState::Stale
        } else if ready {
            HostState::Ready
        } else {
            HostState::Starting
        }
    }

    /// `ready`, `starting` or `stale`.
    pub fn as_str(self) -> &'static str {
        match self {
            HostState::Ready => "ready",
            HostState::Starting => "starting",
            HostState::Stale => "stale",
        }
    }
}

const SELECT: &str = "
    SELECT host_id, hostname, pid, version, mcp_address,
           (EXTRACT(EPOCH FROM started_at) * 1000)::BIGINT,
           (EXTRACT(EPOCH FROM last_seen) * 1000)::BIGINT,
           (EXTRACT(EPOCH FROM now() - last_seen) * 1000)::BIGINT,
           ready, waiting_for, tools, plugins_loaded, plugins_total
    FROM hosts
    ORDER BY hostname, started_at, host_id";

impl ClusterView {
    /// Reads the table (bringing the schema up to date first, as any use does).
    pub async fn read(
        database: &Database,
        section: &ClusterSection,
    ) -> Result<ClusterView, PgError> {
        let client = database.client().await?;
        let rows = client.query(SELECT, &[]).await?;
        let hosts = rows
            .iter()
            .map(|row| {
                let ago: i64 = row.get(7);
                ClusterHost {
                    host_id: row.get(0),
                    hostname: row.get(1),
                    pid: row.get(2),
                    version: row.get(3),
                    mcp_address: row.get(4),
                    started_at_ms: row.get(5),
                    last_seen_ms: row.get(6),
                    last_seen_ago_ms: ago,
                    state: HostState::of(row.get(8), ago, section.stale_after_ms),
                    waiting_for: row.get(9),
                    tools: row.get(10),
                    plugins_loaded: row.get(11),
                    plugins_total: row.get(12),
                }
            })
            .collect();
        Ok(ClusterView {
            database: database.target().to_owned(),
            stale_after_ms: section.stale_after_ms,
            hosts,
        })
    }
}
