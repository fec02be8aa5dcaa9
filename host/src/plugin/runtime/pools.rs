//! The runtime's runner pools: started with the host, reconfigured by a reload, stopped
//! with the host.

use std::net::SocketAddr;
use std::sync::Arc;

use super::PluginRuntime;
use crate::plugin::pool::{Pool, PoolConfig, PoolStartError};
use crate::plugin::pool_status::PoolStatus;

/// What [`PluginRuntime::apply_pools`] did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct PoolsReport {
    /// Pools started.
    pub added: Vec<String>,
    /// Pools stopped (their members disconnected).
    pub removed: Vec<String>,
    /// Pools whose tokens, TLS files or settings were replaced (members stay connected).
    pub reconfigured: Vec<String>,
    /// Pools restarted because their plugin or address changed.
    pub restarted: Vec<String>,
    /// Pools that could not start, with why.
    pub failed: Vec<String>,
}

impl PluginRuntime {
    /// Starts the configured pools: each binds its address and accepts members. The
    /// configuration was checked ([`check_pools`](crate::plugin::check_pools)).
    pub async fn start_pools(&self, pools: Vec<PoolConfig>) -> Result<(), PoolStartError> {
        for config in pools {
            let pool = Pool::start(&self.shared, config).await?;
            self.pools.lock().push(pool);
        }
        Ok(())
    }

    /// The address each pool listens on (the bound port when the configuration says 0).
    pub fn pool_addresses(&self) -> Vec<(String, SocketAddr)> {
        self.pools
            .lock()
            .iter()
            .map(|pool| (pool.name.clone(), pool.local_addr))
            .collect()
    }

    /// The members of pool `name` that take calls now, by name; `None` without such a pool.
    pub fn pool_members(&self, name: &str) -> Option<Vec<String>> {
        self.pools
            .lock()
            .iter()
            .find(|pool| pool.name == name)
            .map(|pool| pool.members.names())
    }

    /// Each pool and its connected members, for `maitool status`.
    pub fn pool_statuses(&self) -> Vec<PoolStatus> {
        self.pools
            .lock()
            .iter()
            .map(|pool| {
                let config = pool.config();
                PoolStatus {
                    name: pool.name.clone(),
                    plugin: pool.plugin.clone(),
                    listen: pool.local_addr.to_string(),
                    tls: config.tls.is_some(),
                    registered_version: pool.version.current().unwrap_or_default(),
                    members: pool.members.statuses(),
                }
            })
            .collect()
    }

    /// Brings the pools in line with a reloaded configuration: new tokens, TLS files and
    /// settings apply to the next connection without disconnecting anyone; a pool whose
    /// plugin or address changed is restarted; added pools start, removed ones stop.
    pub async fn apply_pools(&self, pools: Vec<PoolConfig>) -> PoolsReport {
        let mut report = PoolsReport::default();
        let mut current: Vec<Arc<Pool>> = std::mem::take(&mut *self.pools.lock());
        let mut next = Vec::new();
        for config in pools {
            let position = current.iter().position(|pool| pool.name == config.name);
            let existing = position.map(|at| current.remove(at));
            match existing {
                Some(pool) if same_place(&pool.config(), &config) => {
                    if pool.config() != config {
                        report.reconfigured.push(config.name.clone());
                        pool.reconfigure(config);
                    }
                    next.push(pool);
                    continue;
                }
                Some(pool) => {
                    pool.stop(&self.shared);
                    report.restarted.push(config.name.clone());
                }
                None => report.added.push(config.name.clone()),
            }
            let name = config.name.clone();
            match Pool::start(&self.shared, config).await {
                Ok(pool) => next.push(pool),
                Err(err) => {
                    tracing::error!("{}", crate::error_text::chain(&err));
                    report
                        .failed
                        .push(format!("{name}: {}", crate::error_text::chain(&err)));
                }
            }
        }
        for pool in current {
            pool.stop(&self.shared);
            report.removed.push(pool.name.clone());
        }
        *self.pools.lock() = next;
        report
    }

    /// Stops every pool: listeners closed, members disconnected.
    pub(super) fn stop_pools(&self) {
        for pool in std::mem::take(&mut *self.pools.lock()) {
            pool.stop(&self.shared);
        }
    }
}

/// Whether a reloaded pool keeps its plugin and address (else it is restarted).
fn same_place(old: &PoolConfig, new: &PoolConfig) -> bool {
    old.plugin == new.plugin && old.listen == new.listen
}
