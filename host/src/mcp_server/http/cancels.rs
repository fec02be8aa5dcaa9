//! [`RemoteCancels`]: a client of a revision before 2026-07-28 cancels a call with a
//! `notifications/cancelled` of its own, a separate POST that a balancer may send to another
//! host than the one running the call. rmcp cancels only the calls of its own process, so the
//! host that gets a cancel for a call it does not hold announces it on PostgreSQL
//! (`NOTIFY` on [`CANCEL_CHANNEL`]), and the host that holds the call cancels it.
//!
//! A call is known by its session id and its JSON-RPC request id, both the client's. A cancel
//! may overtake the call it names (the two POSTs race through the balancer): one heard for a
//! call not yet running is kept for [`EARLY_CANCEL_WINDOW`] and cancels that call when it
//! starts. 2026-07-28 clients cancel by closing the call's own stream, which reaches the host
//! running it, and never need this.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::Mutex;
use rmcp::model::{CancelledNotificationParam, Extensions, RequestId};
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::postgres::{Database, PgError};
use crate::shared_state::WatchGuard;

/// The PostgreSQL channel on which hosts announce cancels they cannot deliver themselves.
pub const CANCEL_CHANNEL: &str = "maitool_mcp_cancel";

/// How long a cancel heard for a call that is not running here is kept, in case the call
/// starts after it.
pub const EARLY_CANCEL_WINDOW: Duration = Duration::from_secs(30);

/// At most this many early cancels are kept: a client that floods cancels for calls that never
/// come costs memory up to here, and its later cancels are not kept.
const MAX_EARLY: usize = 10_000;

/// How long a host waits before listening again after its LISTEN connection failed.
const LISTEN_RETRY: Duration = Duration::from_secs(1);

/// `NOTIFY` payloads are limited to 8000 bytes; a cancel naming a longer id (no real client
/// makes one) is not announced.
const MAX_PAYLOAD: usize = 7900;

/// A call of a session: what a cancel names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CallKey {
    /// The `Mcp-Session-Id` of the session.
    pub session: String,
    /// The request id, as JSON text (`7` and `"7"` are different ids).
    pub request: String,
}

impl CallKey {
    /// The key of request `id` in `session`.
    pub fn new(session: &str, id: &RequestId) -> CallKey {
        CallKey {
            session: session.to_owned(),
            request: serde_json::to_string(id).unwrap_or_else(|_| id.to_string()),
        }
    }
}

/// The calls of earlier-revision sessions running on this host, and the cancels other hosts
/// announced: a `notifications/cancelled` that reaches a host without the call is announced on
/// [`CANCEL_CHANNEL`], and the host running the call cancels it. A cancel heard before its
/// call starts is kept for [`EARLY_CANCEL_WINDOW`].
#[derive(Debug)]
pub struct RemoteCancels {
    database: Database,
    running: Mutex<HashMap<CallKey, CancellationToken>>,
    early: Mutex<HashMap<CallKey, Instant>>,
    listening: Mutex<Option<WatchGuard>>,
}

/// A running call, tracked until dropped.
#[derive(Debug)]
pub struct TrackedCall {
    cancels: Weak<RemoteCancels>,
    key: CallKey,
}

impl Drop for TrackedCall {
    fn drop(&mut self) {
        if let Some(cancels) = self.cancels.upgrade() {
            cancels.running.lock().remove(&self.key);
        }
    }
}

impl RemoteCancels {
    /// Cancels through `database`; starts listening on [`CANCEL_CHANNEL`] (again a second
    /// after a lost connection) until the last handle is dropped. Must be called inside a
    /// Tokio runtime.
    pub fn start(database: Database) -> Arc<RemoteCancels> {
        let cancels = Arc::new(RemoteCancels {
            database: database.clone(),
            running: Mutex::default(),
            early: Mutex::default(),
            listening: Mutex::default(),
        });
        let weak = Arc::downgrade(&cancels);
        let task = tokio::spawn(async move {
            loop {
                match database.listen(&[CANCEL_CHANNEL]).await {
                    Ok(mut listener) => {
                        while let Some(notification) = listener.next().await {
                            let Some(cancels) = weak.upgrade() else {
                                return;
                            };
                            match serde_json::from_str::<CallKey>(&notification.payload) {
                                Ok(key) => cancels.heard(key),
                                Err(err) => tracing::warn!(
                                    payload = %notification.payload,
                                    "an MCP cancel announced by another host does not parse: {err}"
                                ),
                            }
                        }
                    }
                    Err(err) => tracing::warn!(
                        "MCP cancels that reach other hosts are not heard: {}",
                        crate::error_text::chain(&err)
                    ),
                }
                if weak.strong_count() == 0 {
                    return;
                }
                tokio::time::sleep(LISTEN_RETRY).await;
            }
        });
        *cancels.listening.lock() = Some(WatchGuard::new(task.abort_handle()));
        cancels
    }

    /// Tracks a call while it runs: a cancel another host announces for it cancels `token`,
    /// at once if the cancel came first.
    pub fn track(self: &Arc<Self>, key: CallKey, token: CancellationToken) -> TrackedCall {
        let came_first = self
            .early
            .lock()
            .remove(&key)
            .is_some_and(|heard| heard.elapsed() < EARLY_CANCEL_WINDOW);
        if came_first {
            tracing::info!(session = %key.session, request = %key.request, "MCP call cancelled before it started, by a cancel another host heard");
            token.cancel();
        } else {
            self.running.lock().insert(key.clone(), token);
        }
        TrackedCall {
            cancels: Arc::downgrade(self),
            key,
        }
    }

    /// Tracks call `id` while it runs, if it came over HTTP in a session (a 2026-07-28
    /// request has none: its client cancels by closing the call's stream).
    pub fn track_request(
        self: &Arc<Self>,
        extensions: &Extensions,
        id: &RequestId,
        token: CancellationToken,
    ) -> Option<TrackedCall> {
        let session = session_of(extensions)?;
        Some(self.track(CallKey::new(session, id), token))
    }

    /// A `notifications/cancelled` this host received over HTTP in a session: relayed as
    /// [`relay`](Self::relay) says. A failure to announce it is logged: the client has moved
    /// on, and the call runs to its end as it would with no cancel.
    pub async fn relay_notification(
        &self,
        cancelled: &CancelledNotificationParam,
        extensions: &Extensions,
    ) {
        let (Some(session), Some(id)) = (session_of(extensions), cancelled.request_id.as_ref())
        else {
            return;
        };
        if let Err(err) = self.relay(CallKey::new(session, id)).await {
            tracing::warn!(
                session,
                request = %id,
                "an MCP cancel could not be announced to other hosts: {}",
                crate::error_text::chain(&err)
            );
        }
    }

    /// A cancel this host received. A call running here was cancelled by rmcp already; any
    /// other is announced to the other hosts.
    pub async fn relay(&self, key: CallKey) -> Result<(), PgError> {
        if self.running.lock().contains_key(&key) {
            return Ok(());
        }
        let payload = serde_json::to_string(&key).unwrap_or_default();
        if payload.len() > MAX_PAYLOAD {
            tracing::warn!(
                bytes = payload.len(),
                "an MCP cancel names an id too long to announce to other hosts"
            );
            return Ok(());
        }
        let client = self.database.client().await?;
        client
            .execute("SELECT pg_notify($1, $2)", &[&CANCEL_CHANNEL, &payload])
            .await?;
        Ok(())
    }

    /// A cancel another host announced (or this one: its own announcements come back too).
    fn heard(&self, key: CallKey) {
        if let Some(token) = self.running.lock().remove(&key) {
            tracing::info!(session = %key.session, request = %key.request, "MCP call cancelled by a cancel another host heard");
            token.cancel();
            return;
        }
        let mut early = self.early.lock();
        early.retain(|_, heard| heard.elapsed() < EARLY_CANCEL_WINDOW);
        if early.len() < MAX_EARLY {
            early.insert(key, Instant::now());
        }
    }
}

/// The `Mcp-Session-Id` of a message that came over Streamable HTTP with one.
fn session_of(extensions: &Extensions) -> Option<&str> {
    extensions
        .get::<http::request::Parts>()?
        .headers
        .get(HEADER_SESSION_ID)?
        .to_str()
        .ok()
        .filter(|session| !session.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cancels on a database nobody serves: what these tests look at never reaches it.
    fn cancels() -> Arc<RemoteCancels> {
        let database =
            Database::new("host=/nonexistent/socket user=nobody dbname=none", 1).expect("a pool");
        RemoteCancels::start(database)
    }

    fn key(request: u32) -> CallKey {
        CallKey::new("session-1", &RequestId::Number(request.into()))
    }

    #[tokio::test]
    async fn a_cancel_heard_for_a_running_call_cancels_it_and_no_other() {
        let cancels = cancels();
        let (first, second) = (CancellationToken::new(), CancellationToken::new());
        let _a = cancels.track(key(1), first.clone());
        let _b = cancels.track(key(2), second.clone());
        cancels.heard(key(1));
        assert!(first.is_cancelled());
        assert!(!second.is_cancelled());
        // Another session's request 2 is another call.
        cancels.heard(CallKey::new("session-2", &RequestId::Number(2)));
        assert!(!second.is_cancelled());
    }

    #[tokio::test]
    async fn a_cancel_that_comes_first_cancels_the_call_when_it_starts() {
        let cancels = cancels();
        cancels.heard(key(3));
        let token = CancellationToken::new();
        let _call = cancels.track(key(3), token.clone());
        assert!(token.is_cancelled());
        // Used once: the same id later (a client reusing ids) is not cancelled again.
        let again = CancellationToken::new();
        let _call = cancels.track(key(3), again.clone());
        assert!(!again.is_cancelled());
    }

    #[tokio::test(start_paused = true)]
    async fn an_early_cancel_is_forgotten_after_its_window() {
        let cancels = cancels();
        cancels.heard(key(4));
        tokio::time::advance(EARLY_CANCEL_WINDOW + Duration::from_millis(1)).await;
        let token = CancellationToken::new();
        let _call = cancels.track(key(4), token.clone());
        assert!(!token.is_cancelled());
    }

    #[tokio::test]
    async fn a_finished_call_is_no_longer_tracked() {
        let cancels = cancels();
        let token = CancellationToken::new();
        drop(cancels.track(key(5), token.clone()));
        assert!(cancels.running.lock().is_empty());
        // Heard after the call ended: kept as early, cancels nothing that ran.
        cancels.heard(key(5));
        assert!(!token.is_cancelled());
    }

    #[tokio::test]
    async fn request_ids_of_both_kinds_are_distinct_keys() {
        let number = CallKey::new("s", &RequestId::Number(7));
        let string = CallKey::new("s", &RequestId::String("7".into()));
        assert_ne!(number, string);
        assert_eq!(number.request, "7");
        assert_eq!(string.request, "\"7\"");
    }

    #[tokio::test]
    async fn a_flood_of_cancels_for_calls_that_never_come_is_bounded() {
        let cancels = cancels();
        for request in 0..(MAX_EARLY as u32 + 100) {
            cancels.heard(key(request));
        }
        assert_eq!(cancels.early.lock().len(), MAX_EARLY);
    }
}
