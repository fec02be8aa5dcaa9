use std::fmt;
use std::time::Duration;

use futures::future::BoxFuture;

use super::{IncomingMessage, Payload, RpcError};

/// Serves the peer's requests and broadcasts.
///
/// `handle` runs in its own task for each request. Dropping the returned future is the
/// cancellation: it happens when the caller sends the cancel message, when the request's
/// `timeout_ms` passes, and when the connection ends. A panic inside `handle` (or its future)
/// is answered with `E_UNKNOWN` and the peer keeps serving.
pub trait RequestHandler: Send + Sync + 'static {
    /// Answers one request: `Ok` becomes the response payload, `Err` an error response with
    /// its code. Unknown methods should answer [`RpcError::method_not_allowed`].
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>>;

    /// Receives one broadcast (never the cancel message, which the peer handles itself).
    ///
    /// Called inline on the connection's reader, in arrival order, so it must return quickly:
    /// spawn a task or push to a channel for any real work.
    fn handle_broadcast(&self, message: IncomingMessage) {
        let _ = message;
    }
}

/// The settings of one [`RpcPeer`](super::RpcPeer).
#[derive(Debug, Clone)]
pub struct PeerConfig {
    /// A name for logs, such as the runner id.
    pub name: String,
    /// Frames that may wait for the writer; beyond this, calls and broadcasts fail with
    /// `E_BACK_PRESSURE`.
    pub send_queue_capacity: usize,
    /// The peer's requests served at once. A request beyond this is answered with
    /// `E_BACK_PRESSURE` straight away instead of getting a task: reading goes on (responses
    /// to our own calls keep arriving), and a flood cannot pile up tasks without bound.
    pub max_incoming: usize,
    /// The timeout of a call made with `Duration::ZERO`.
    pub default_timeout: Duration,
    /// The plugin id stamped on outgoing envelopes whose caller passes an empty one.
    pub plugin_id: String,
    /// Whether the deadline sweeper drops its timer when the last outgoing call ends.
    ///
    /// Off, the sweeper keeps its timer until the earliest deadline it knew of passes, even if
    /// every call was answered long before: re-arming it for each call costs two wake-ups of
    /// the sweeper, which a peer that calls out all the time (the host) would pay per call.
    /// On, a peer whose calls out are rare (a runner: registration, the odd host call) waits
    /// for requests without a timer pending, and a runtime with a pending timer pays for it at
    /// every wait (in the benchmark's `invoke_p50_ratio`, on its one-vCPU placement).
    pub release_idle_timer: bool,
    /// What to do with a frame that cannot be decoded and names no request to answer (not
    /// MessagePack, or no readable `request_id`). Off, it is logged and skipped, and the
    /// connection goes on. On, the peer answers it with an error response whose
    /// `request_id` is 0 (`E_BAD_PAYLOAD`, "undecodable frame: ...") and closes the
    /// connection: a client that sent it learns at once why, instead of waiting for an answer
    /// that never comes. The control socket sets it; runner connections keep going.
    pub close_on_unanswerable: bool,
}

impl PeerConfig {
    /// The defaults with `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }
}

impl Default for PeerConfig {
    fn default() -> Self {
        Self {
            name: "peer".to_owned(),
            send_queue_capacity: 4096,
            max_incoming: 1024,
            default_timeout: Duration::from_secs(30),
            plugin_id: String::new(),
            release_idle_timer: false,
            close_on_unanswerable: false,
        }
    }
}

/// Why a connection ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DisconnectReason {
    /// [`RpcPeer::close`](super::RpcPeer::close) was called.
    Closed,
    /// [`RpcPeer::close_because`](super::RpcPeer::close_because) was called: closed locally,
    /// for this reason, which pending calls fail with.
    Abandoned(String),
    /// The peer closed the connection (end of stream).
    PeerClosed,
    /// Reading or writing failed.
    Io(String),
    /// The peer broke the framing (an oversized length prefix, a truncated frame).
    Protocol(String),
}

impl fmt::Display for DisconnectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DisconnectReason::Closed => f.write_str("closed locally"),
            DisconnectReason::Abandoned(reason) => write!(f, "closed locally: {reason}"),
            DisconnectReason::PeerClosed => f.write_str("peer closed the connection"),
            DisconnectReason::Io(reason) => write!(f, "I/O error: {reason}"),
            DisconnectReason::Protocol(reason) => write!(f, "protocol error: {reason}"),
        }
    }
}
