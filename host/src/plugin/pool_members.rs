//! The connected members of one runner pool, as the invoke path sees them: which member a
//! call goes to (the one with the fewest calls outstanding), and the wait of a call that
//! finds none (as calls wait for a restarting runner).
//!
//! Below `shared.rs` and above `live_peer.rs` only: `pool/` (the listener, the handshake,
//! the member's connection) adds and removes members here.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parking_lot::RwLock;
use tokio::sync::watch;
use tokio::time::Instant;

use super::live_peer::LivePeer;

/// One connected member.
#[derive(Debug)]
pub(crate) struct PoolMember {
    /// Unique among the pool's connections (names may repeat: one member, two hosts).
    pub id: u64,
    /// The member's name from its `runner.hello`.
    pub name: String,
    /// Set once the member announced `runner.draining`: no new call goes to it.
    draining: AtomicBool,
}

impl PoolMember {
    pub(crate) fn new(id: u64, name: String) -> Self {
        Self {
            id,
            name,
            draining: AtomicBool::new(false),
        }
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
    /// Where ties start, so that an idle pool spreads calls over its members.
    next: AtomicUsize,
    /// Bumped whenever a member joins, leaves or drains.
    changes: watch::Sender<u64>,
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
            next: AtomicUsize::new(0),
            changes: watch::Sender::new(0),
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

    fn takes_calls(routed: &Routed) -> bool {
        !routed.member.is_draining() && !routed.live.peer.is_closed()
    }

    /// The member with the fewest calls outstanding that takes calls, ties broken in turn.
    pub(crate) fn pick(&self) -> Option<LivePeer> {
        let members = self.members.read();
        let count = members.len();
        if count == 0 {
            return None;
        }
        let start = self.next.fetch_add(1, Ordering::Relaxed) % count;
        let mut best: Option<(&Routed, usize)> = None;
        for offset in 0..count {
            let routed = &members[(start + offset) % count];
            if !Self::takes_calls(routed) {
                continue;
            }
            let load = routed.live.peer.in_flight();
            if best.is_none_or(|(_, least)| load < least) {
                best = Some((routed, load));
            }
        }
        best.map(|(routed, _)| routed.live.clone())
    }

    /// Waits for a member that takes calls, until `deadline`; `None` when none came.
    pub(crate) async fn wait_pick(&self, deadline: Instant) -> Option<LivePeer> {
        let mut changes = self.changes.subscribe();
        loop {
            changes.borrow_and_update();
            if let Some(live) = self.pick() {
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
