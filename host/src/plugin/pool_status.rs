//! A runner pool as `maitool status` shows it: where it listens and who is connected.

use serde::{Deserialize, Serialize};

/// One pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolStatus {
    /// The pool's name.
    pub name: String,
    /// The plugin id it serves.
    pub plugin: String,
    /// The address it listens on (the bound port when the configuration says 0).
    pub listen: String,
    /// Whether members connect over TLS.
    pub tls: bool,
    /// The plugin version whose declarations the registry holds; empty before a member
    /// registered.
    pub registered_version: String,
    /// The members connected now, draining ones included.
    pub members: Vec<PoolMemberStatus>,
}

/// One connected member.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolMemberStatus {
    /// Its name from `runner.hello`.
    pub name: String,
    /// The address it connected from.
    pub address: String,
    /// `ready` (takes calls), `draining` (finishes its calls, takes no new one) or
    /// `closed` (its connection ended, about to be removed).
    pub state: String,
    /// The plugin version it declared.
    pub plugin_version: String,
    /// Its build version from `runner.hello`, if it gave one.
    pub runner_version: String,
    /// Calls sent to it and not answered yet.
    pub in_flight: usize,
    /// Calls routed to it since it connected.
    pub calls: u64,
}
