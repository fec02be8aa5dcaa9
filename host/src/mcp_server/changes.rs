//! `notifications/tools/list_changed` for every connected client, whenever the registry's
//! tool set moves (a runner restarted, an MCP server reconnected, a provider came or went).
//!
//! Both protocol eras are served: clients that connected with `initialize` (up to
//! 2025-11-25) get the notification unscoped on their connection; 2026-07-28 clients get it
//! on the `subscriptions/listen` streams they opened with `toolsListChanged`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use rmcp::Peer;
use rmcp::service::{RoleServer, SubscriptionSink};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The clients to tell about a change.
#[derive(Default)]
pub(super) struct Subscribers {
    /// Connections opened with `initialize`, keyed by a local id.
    legacy: Mutex<Vec<(u64, Peer<RoleServer>)>>,
    /// Open 2026-07-28 `subscriptions/listen` streams, keyed by a local id (request ids
    /// repeat across HTTP requests and sessions).
    sinks: Mutex<Vec<(u64, SubscriptionSink)>>,
    next_key: AtomicU64,
    /// Notifications sent, for diagnostics and tests.
    sent: AtomicU64,
}

impl std::fmt::Debug for Subscribers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscribers")
            .field("legacy", &self.legacy.lock().len())
            .field("sinks", &self.sinks.lock().len())
            .field("sent", &self.sent.load(Ordering::Relaxed))
            .finish()
    }
}

impl Subscribers {
    pub(super) fn add_legacy(&self, peer: Peer<RoleServer>) {
        let key = self.next_key.fetch_add(1, Ordering::Relaxed);
        let mut legacy = self.legacy.lock();
        legacy.retain(|(_, peer)| !peer.is_transport_closed());
        legacy.push((key, peer));
    }

    /// Registers a listen stream; returns the key to remove it with.
    pub(super) fn add_sink(&self, sink: SubscriptionSink) -> u64 {
        let key = self.next_key.fetch_add(1, Ordering::Relaxed);
        self.sinks.lock().push((key, sink));
        key
    }

    pub(super) fn remove_sink(&self, key: u64) {
        self.sinks.lock().retain(|(other, _)| *other != key);
    }

    /// How many clients would be told about a change now.
    pub(super) fn count(&self) -> usize {
        self.legacy.lock().len() + self.sinks.lock().len()
    }

    /// Tells every client; forgets legacy connections that are gone.
    async fn broadcast(&self) {
        let peers: Vec<_> = self.legacy.lock().clone();
        let mut gone = Vec::new();
        for (key, peer) in peers {
            if peer.is_transport_closed() {
                gone.push(key);
                continue;
            }
            match peer.notify_tool_list_changed().await {
                Ok(()) => {
                    self.sent.fetch_add(1, Ordering::Relaxed);
                }
                Err(err) => {
                    tracing::debug!("tools/list_changed to a client failed; forgetting it: {err}");
                    gone.push(key);
                }
            }
        }
        if !gone.is_empty() {
            self.legacy.lock().retain(|(key, _)| !gone.contains(key));
        }
        let sinks: Vec<_> = self
            .sinks
            .lock()
            .iter()
            .map(|(_, sink)| sink.clone())
            .collect();
        for sink in sinks {
            // A stream that failed ends on its own; `listen` then removes it.
            match sink.notify_tool_list_changed().await {
                Ok(()) => {
                    self.sent.fetch_add(1, Ordering::Relaxed);
                }
                Err(err) => tracing::debug!("tools/list_changed on a subscription failed: {err}"),
            }
        }
    }
}

/// Forwards registry changes to `subscribers` until the registry is dropped. Changes that
/// arrive while a broadcast is under way coalesce into one more broadcast.
pub(super) fn spawn_forwarder(
    mut changes: watch::Receiver<u64>,
    subscribers: Arc<Subscribers>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        changes.mark_unchanged();
        while changes.changed().await.is_ok() {
            let version = *changes.borrow_and_update();
            tracing::info!(
                version,
                clients = subscribers.count(),
                "tool set changed: sending tools/list_changed"
            );
            subscribers.broadcast().await;
        }
    })
}
