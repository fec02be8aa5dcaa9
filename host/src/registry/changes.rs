//! The registry-wide tool-set version: bumped when a provider is registered or unregistered
//! and whenever a provider's own version moves, so that a front (the MCP server's
//! `tools/list_changed`) can subscribe to one place.
//!
//! Provider bumps are folded in on demand (every read of the version, every routing-index
//! rebuild). Only a subscriber needs them pushed; for it a small forwarding task is spawned
//! lazily, the first time someone subscribes inside a Tokio runtime.

use std::sync::{Arc, Weak};

use futures::future::{Either, select, select_all};
use tokio::sync::watch;

use super::{Inner, ToolRegistry};
use crate::provider::ToolSetVersion;

impl ToolRegistry {
    /// The registry-wide tool-set version, with every provider bump seen so far folded in.
    ///
    /// Its value moves on `register_provider`, `unregister_provider` and whenever a provider's
    /// own [`ToolSetVersion`] moves. To be woken on provider bumps without polling, use
    /// [`subscribe_changes`](Self::subscribe_changes).
    pub fn tool_set_version(&self) -> ToolSetVersion {
        self.inner.sync_versions();
        self.inner.version.clone()
    }

    /// A receiver that wakes whenever the registry-wide version moves, including on provider
    /// bumps. The MCP front subscribes here to send `notifications/tools/list_changed`.
    ///
    /// Inside a Tokio runtime the first call spawns one forwarding task (ended when the
    /// registry is dropped); outside a runtime provider bumps are only folded in when the
    /// version is read or an invocation is routed.
    pub fn subscribe_changes(&self) -> watch::Receiver<u64> {
        let receiver = self.inner.version.subscribe();
        self.inner.ensure_forwarder();
        receiver
    }
}

impl Inner {
    /// Bumps the registry-wide version once if any provider's version moved since last seen.
    pub(super) fn sync_versions(&self) {
        let snapshot = self.snapshot();
        // Observe every slot (no short circuit), so one bump covers all moves seen now.
        let moved = snapshot
            .slots
            .iter()
            .fold(false, |moved, slot| slot.observe_version() | moved);
        if moved {
            self.version.bump();
        }
    }

    /// Marks the set of providers as changed.
    pub(super) fn providers_changed(&self) {
        self.version.bump();
        self.membership.send_modify(|generation| *generation += 1);
    }

    fn ensure_forwarder(self: &Arc<Self>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::debug!(
                "no Tokio runtime: provider tool-set bumps reach subscribers only when the version is read"
            );
            return;
        };
        let mut forwarder = self.forwarder.lock();
        // A task of a runtime that has since shut down is finished: start another.
        if forwarder.as_ref().is_some_and(|task| !task.is_finished()) {
            return;
        }
        let membership = self.membership.subscribe();
        *forwarder = Some(runtime.spawn(forward(Arc::downgrade(self), membership)));
    }
}

/// Folds provider bumps into the registry version until the registry is dropped.
async fn forward(inner: Weak<Inner>, mut membership: watch::Receiver<u64>) {
    loop {
        let (snapshot, mut receivers) = {
            let Some(inner) = inner.upgrade() else { return };
            let snapshot = inner.snapshot();
            let receivers: Vec<_> = snapshot
                .slots
                .iter()
                .filter_map(|slot| slot.version.as_ref().map(ToolSetVersion::subscribe))
                .collect();
            // Subscribe first, then sync: a bump in between is caught by one or the other.
            inner.sync_versions();
            (snapshot, receivers)
        };
        let provider_bump = async {
            if receivers.is_empty() {
                std::future::pending::<()>().await;
            }
            // The senders live in `snapshot`'s slots, so `changed()` cannot fail here.
            let _ = select_all(
                receivers
                    .iter_mut()
                    .map(|receiver| Box::pin(receiver.changed())),
            )
            .await;
        };
        let membership_change = Box::pin(membership.changed());
        match select(membership_change, Box::pin(provider_bump)).await {
            // The registry was dropped with its sender.
            Either::Left((Err(_), _)) => return,
            Either::Left((Ok(()), _)) | Either::Right(((), _)) => {}
        }
        drop(snapshot);
    }
}
