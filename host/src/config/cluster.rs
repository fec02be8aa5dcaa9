//! `[cluster]`: how a `maitool serve` on the PostgreSQL store lists itself in the shared
//! `hosts` table, and when `maitool status` calls a silent host stale and forgets it. Read only
//! with `[store] backend = "postgres"`: an embedded store has one host and no table.

use serde::{Deserialize, Serialize};

/// `[cluster]`: heartbeat and staleness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClusterSection {
    /// How often a serving host writes its row (its readiness, tool and plugin counts).
    pub heartbeat_ms: u64,
    /// A row not written for this long is shown as stale: its host is dead, hung or cut off
    /// from the database. At least two heartbeats, so that one slow write is not an alarm.
    pub stale_after_ms: u64,
    /// A row not written for this long is deleted by the next host's heartbeat.
    pub forget_after_ms: u64,
    /// The MCP address other hosts and operators reach this one at (`10.0.0.7:8080`, or
    /// `${POD_IP}:8080` in Kubernetes); default: the address `serve --mcp-http` bound, none
    /// without it.
    pub advertise: Option<String>,
}

impl Default for ClusterSection {
    fn default() -> Self {
        Self {
            heartbeat_ms: 5_000,
            stale_after_ms: 15_000,
            forget_after_ms: 3_600_000,
            advertise: None,
        }
    }
}

/// Why `[cluster]` is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClusterConfigError {
    /// A heartbeat of zero would write in a busy loop.
    #[error("cluster.heartbeat_ms must be at least 1")]
    NoHeartbeat,
    /// A host would be stale between two of its own heartbeats.
    #[error(
        "cluster.stale_after_ms ({stale_after_ms}) must be at least twice cluster.heartbeat_ms ({heartbeat_ms})"
    )]
    StaleTooSoon {
        /// As configured.
        stale_after_ms: u64,
        /// As configured.
        heartbeat_ms: u64,
    },
    /// A live host's row could be deleted before it is even stale.
    #[error(
        "cluster.forget_after_ms ({forget_after_ms}) must be at least cluster.stale_after_ms ({stale_after_ms})"
    )]
    ForgetTooSoon {
        /// As configured.
        forget_after_ms: u64,
        /// As configured.
        stale_after_ms: u64,
    },
}

impl ClusterSection {
    /// Checks the three durations against each other.
    pub fn validate(&self) -> Result<(), ClusterConfigError> {
        if self.heartbeat_ms == 0 {
            return Err(ClusterConfigError::NoHeartbeat);
        }
        if self.stale_after_ms < self.heartbeat_ms.saturating_mul(2) {
            return Err(ClusterConfigError::StaleTooSoon {
                stale_after_ms: self.stale_after_ms,
                heartbeat_ms: self.heartbeat_ms,
            });
        }
        if self.forget_after_ms < self.stale_after_ms {
            return Err(ClusterConfigError::ForgetTooSoon {
                forget_after_ms: self.forget_after_ms,
                stale_after_ms: self.stale_after_ms,
            });
        }
        Ok(())
    }
}
