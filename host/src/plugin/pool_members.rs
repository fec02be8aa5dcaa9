//! The connected members of one runner pool, as the invoke path sees them: which member a
//! call goes to (the one with the fewest calls outstanding), and the wait of a call that
//! finds none (as calls wait for a restarting runner).
//!
//! Below `shared.rs` and above `live_peer.rs` only: `pool/` (the listener, the handshake,
//! the member's connection) adds and removes members here.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use foldhash::HashMap;
use parking_lot::RwLock;
use tokio::sync::watch;
use tokio::time::Instant;

use super::live_peer::LivePeer;
use super::pool_status::PoolMemberStatus;

/// A component's declaration as a member made it, reduced to a fingerprint: two members
/// serve a component alike when their fingerprints of it are equal.
pub(crate) type Declarations = HashMap<String, u64>;

/// One connected member.
#[derive(Debug)]
pub(crate) struct PoolMember {
    /// Unique among the pool's connections (names may repeat: one member, two hosts).
    pub id: u64,
    /// The member's name from its `runner.hello`.
    pub name: String,
    /// Set once the member announced `runner.draining`: no new call goes to it.
    draining: AtomicBool,
    /// What it declared when it registered the pool's plugin.
    declared: RwLock<Declarations>,
    /// Calls routed to it so far: among members with as few calls outstanding, the one
    /// given the fewest gets the next, so an idle pool spreads calls over its members.
    routed: AtomicU64,
    /// Where it connected from, and its build version, for `status`.
    address: String,
    runner_version: String,
    /// The plugin version it declared.
    plugin_version: RwLock<String>,
}

impl PoolMember {
    pub(crate) fn new(id: u64, name: String, address: String, runner_version: String) -> Self {
        Self {
            id,
            name,
            draining: AtomicBool::new(false),
            declared: RwLock::new(Declarations::default()),
            routed: AtomicU64::new(0),
            address,
            runner_version,
            plugin_version: RwLock::new(String::new()),
        }
    }

    /// Records what the member declares, as version `plugin_version` of the plugin.
    pub(crate) fn set_declared(&self, declared: Declarations, plugin_version: &str) {
        *self.declared.write() = declared;
        *self.plugin_version.write() = plugin_version.to_owned();
    }

    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }
}

/// A member with its connection.
#[derive(Clone)]
struct Routed {
    member: Arc<PoolMember>,
    live: LivePeer,
}

/// The members of one pool that serve calls.
pub(crate) struct PoolMembers {
    /// The pool's name.
    pub pool: String,
    members: RwLock<Vec<Routed>>,
    /// Bumped whenever a member joins, leaves or drains.
    changes: watch::Sender<u64>,
    /// The declarations in the component registry (the newest version a member registered):
    /// a call to a component goes only to members that declare it so.
    registered: RwLock<Declarations>,
}

impl std::fmt::Debug for PoolMembers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolMembers")
            .field("pool", &self.pool)
            .field("members", &self.members.read().len())
            .finish()
    }
}

impl PoolMembers {
    pub(crate) fn new(pool: String) -> Self {
        Self {
            pool,
            members: RwLock::new(Vec::new()),
            changes: watch::Sender::new(0),
            registered: RwLock::new(Declarations::default()),
        }
    }

    /// Starts routing calls to `member` over `live` (it reported `runner.ready`).
    pub(crate) fn add(&self, member: Arc<PoolMember>, live: LivePeer) {
        self.members.write().push(Routed { member, live });
        self.changes.send_modify(|n| *n += 1);
    }

    /// Stops routing calls to the member `id` (its connection ended).
    pub(crate) fn remove(&self, id: u64) {
        self.members.write().retain(|routed| routed.member.id != id);
        self.changes.send_modify(|n| *n += 1);
    }

    /// The member `member` takes no new calls.
    pub(crate) fn drain(&self, member: &PoolMember) {
        member.draining.store(true, Ordering::Release);
        self.changes.send_modify(|n| *n += 1);
    }

    /// Members that take calls now.
    pub(crate) fn available(&self) -> usize {
        self.members
            .read()
            .iter()
            .filter(|routed| Self::takes_calls(routed))
            .count()
    }

    /// The names of the members connected, draining or not.
    pub(crate) fn names(&self) -> Vec<String> {
        self.members
            .read()
            .iter()
            .map(|routed| routed.member.name.clone())
            .collect()
    }

    /// Each connected member as `status` shows it.
    pub(crate) fn statuses(&self) -> Vec<PoolMemberStatus> {
        self.members
            .read()
            .iter()
            .map(|routed| {
                let member = &routed.member;
                let state = if routed.live.peer.is_closed() {
                    "closed"
                } else if member.is_draining() {
                    "draining"
                } else {
                    "ready"
                };
                PoolMemberStatus {
                    name: member.name.clone(),
                    address: member.address.clone(),
                    state: state.to_owned(),
                    plugin_version: member.plugin_version.read().clone(),
                    runner_version: member.runner_version.clone(),
                    in_flight: routed.live.peer.in_flight(),
                    calls: member.routed.load(Ordering::Relaxed),
                }
            })
            .collect()
    }

    fn takes_calls(routed: &Routed) -> bool {
        !routed.member.is_draining() && !routed.live.peer.is_closed()
    }

    /// The registry now holds `declared` for the pool's plugin.
    pub(crate) fn set_registered(&self, declared: Declarations) {
        *self.registered.write() = declared;
        self.changes.send_modify(|n| *n += 1);
    }

    /// Whether `member` declares `component` as the registry holds it (a component the
    /// registry does not know, or no component at all, matches every member).
    fn serves(&self, member: &PoolMember, component: Option<&str>) -> bool {
        let Some(component) = component else {
            return true;
        };
        match self.registered.read().get(component) {
            None => true,
            Some(registered) => member.declared.read().get(component) == Some(registered),
        }
    }

    /// The member with the fewest calls outstanding that takes calls (for `component`: that
    /// declares it as the registry does); among equals, the one given the fewest calls.
    pub(crate) fn pick_for(&self, component: Option<&str>) -> Option<LivePeer> {
        let members = self.members.read();
        let chosen = members
            .iter()
            .filter(|routed| Self::takes_calls(routed) && self.serves(&routed.member, component))
            .min_by_key(|routed| {
                (
                    routed.live.peer.in_flight(),
                    routed.member.routed.load(Ordering::Relaxed),
                )
            })?;
        chosen.member.routed.fetch_add(1, Ordering::Relaxed);
        Some(chosen.live.clone())
    }

    /// Waits for a member that takes calls (for `component`), until `deadline`; `None` when
    /// none came.
    pub(crate) async fn wait_pick(
        &self,
        component: Option<&str>,
        deadline: Instant,
    ) -> Option<LivePeer> {
        let mut changes = self.changes.subscribe();
        loop {
            changes.borrow_and_update();
            if let Some(live) = self.pick_for(component) {
                return Some(live);
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests;
