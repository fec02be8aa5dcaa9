//! [`Beat`]: what a host reports of itself at each heartbeat.

use crate::Host;
use crate::plugin::PluginsSummary;

/// A host's state as its row shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Beat {
    /// Whether a first tool listing made now would be complete (the host's settle gate is
    /// open): what a balancer's readiness probe asks.
    pub ready: bool,
    /// While not ready, the sources the first listing waits for.
    pub waiting_for: Vec<String>,
    /// Tools the host lists (before any per-session hook).
    pub tools: usize,
    /// Plugins loaded.
    pub plugins_loaded: usize,
    /// Plugins configured or reported.
    pub plugins_total: usize,
}

impl Beat {
    /// `host` now.
    pub async fn of(host: &Host) -> Beat {
        let plugins = PluginsSummary::of(&host.plugins.status());
        let settled = host.settled();
        Beat {
            ready: settled.is_open(),
            waiting_for: settled.waiting_for(),
            tools: host
                .registry
                .list_tools_unhooked(&Default::default())
                .await
                .len(),
            plugins_loaded: plugins.loaded,
            plugins_total: plugins.total,
        }
    }
}
