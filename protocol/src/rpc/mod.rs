//! The multiplexed, symmetric RPC peer: the only part of the crate that performs I/O.
//!
//! [`RpcPeer::start`] turns any `AsyncRead + AsyncWrite` (a Unix socket, a pipe, an in-memory
//! duplex; [`QuietUnixStream`] for a Unix socket that does not wake its reader when the peer
//! reads) into a connection on which both sides may call each other concurrently. Outgoing
//! calls are matched to responses by request id; incoming requests are served by a
//! [`RequestHandler`], each in its own task. The semantics (timeouts on both sides,
//! cancellation, back-pressure, disconnects) are specified in `docs/PROTOCOL.md`.

mod deadlines;
mod direct;
mod error;
mod handler;
mod message;
mod peer;
mod pending_call;
mod quiet_stream;
mod reader;
mod replies;
mod shared;
mod writer;

#[cfg(test)]
mod tests;

pub use error::RpcError;
pub use handler::{DisconnectReason, PeerConfig, RequestHandler};
pub use message::{IncomingMessage, Payload};
pub use peer::RpcPeer;
pub use pending_call::PendingCall;
pub use quiet_stream::QuietUnixStream;
