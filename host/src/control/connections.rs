//! The control socket's live connections: how many may be open, and how long one may sit
//! idle.
//!
//! Every connection costs a file descriptor, and a peer can open connections and send
//! nothing, or half a frame, forever. Without a bound, a few hundred of them used up the
//! host's descriptors: `accept` failed, and `maitool status` could no longer reach a host
//! that was otherwise healthy. So a connection with no request being served is closed after
//! [`ControlLimits::idle_timeout`], and at most [`ControlLimits::max_connections`] are open:
//! a new one makes room by closing the connection idle the longest, and is refused only
//! when every open connection is serving a request.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use maitool_protocol::rpc::RpcPeer;
use parking_lot::Mutex;
use tokio::time::Instant;

/// Bounds on the control socket's connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlLimits {
    /// Most connections open at once.
    pub max_connections: usize,
    /// How long a connection may go without a request being served (counted from its
    /// opening or from its last answer) before it is closed. A connection waiting for a
    /// long tool call is not idle.
    pub idle_timeout: Duration,
}

impl Default for ControlLimits {
    fn default() -> Self {
        Self {
            max_connections: 64,
            idle_timeout: Duration::from_secs(30),
        }
    }
}

/// When a connection last started or finished a request.
#[derive(Debug)]
pub(super) struct Activity {
    last: Mutex<Instant>,
}

impl Activity {
    pub(super) fn new() -> Arc<Activity> {
        Arc::new(Activity {
            last: Mutex::new(Instant::now()),
        })
    }

    pub(super) fn touch(&self) {
        *self.last.lock() = Instant::now();
    }

    fn last(&self) -> Instant {
        *self.last.lock()
    }
}

/// Touches the activity when a request's handler ends, however it ends (answered, or
/// dropped when the connection closed).
pub(super) struct Serving(pub(super) Arc<Activity>);

impl Drop for Serving {
    fn drop(&mut self) {
        self.0.touch();
    }
}

#[derive(Debug)]
struct Live {
    peer: RpcPeer,
    activity: Arc<Activity>,
}

/// The open connections.
#[derive(Debug)]
pub(super) struct Connections {
    limits: ControlLimits,
    next_id: AtomicU64,
    live: Mutex<HashMap<u64, Live>>,
}

impl Connections {
    pub(super) fn new(limits: ControlLimits) -> Arc<Connections> {
        Arc::new(Connections {
            limits,
            next_id: AtomicU64::new(0),
            live: Mutex::new(HashMap::new()),
        })
    }

    /// Whether one more connection may open: below the cap, or at it after closing the
    /// connection that has been idle the longest. False when every connection is serving.
    pub(super) fn make_room(&self) -> bool {
        let mut live = self.live.lock();
        if live.len() < self.limits.max_connections.max(1) {
            return true;
        }
        let oldest_idle = live
            .iter()
            .filter(|(_, conn)| conn.peer.serving() == 0)
            .min_by_key(|(_, conn)| conn.activity.last())
            .map(|(id, _)| *id);
        match oldest_idle {
            Some(id) => {
                if let Some(conn) = live.remove(&id) {
                    tracing::debug!(
                        "control socket at {} connections: closing the one idle longest",
                        self.limits.max_connections
                    );
                    conn.peer.close();
                }
                true
            }
            None => false,
        }
    }

    /// Keeps `peer` open until it closes or sits idle past the limit.
    pub(super) fn admit(self: &Arc<Self>, peer: RpcPeer, activity: Arc<Activity>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.live.lock().insert(
            id,
            Live {
                peer: peer.clone(),
                activity: Arc::clone(&activity),
            },
        );
        let connections = Arc::clone(self);
        let idle_timeout = self.limits.idle_timeout;
        tokio::spawn(async move {
            loop {
                let now = Instant::now();
                let mut deadline = activity.last() + idle_timeout;
                if deadline <= now {
                    if peer.serving() == 0 {
                        tracing::debug!(
                            "closing a control connection idle for {} ms",
                            idle_timeout.as_millis()
                        );
                        peer.close();
                        break;
                    }
                    // Serving a long request: its end touches the activity.
                    deadline = now + idle_timeout;
                }
                tokio::select! {
                    _ = peer.closed() => break,
                    () = tokio::time::sleep_until(deadline) => {}
                }
            }
            connections.live.lock().remove(&id);
        });
    }

    /// Connections open now.
    #[cfg(test)]
    pub(super) fn open(&self) -> usize {
        self.live.lock().len()
    }
}
