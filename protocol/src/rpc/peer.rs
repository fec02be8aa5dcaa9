//! The public handle of a connection.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::codec::{Framed, FramedWrite, LengthDelimitedCodec};

use super::pending_call::PendingCall;
use super::shared::Shared;
use super::{
    DisconnectReason, IncomingMessage, PeerConfig, RequestHandler, RpcError, deadlines, reader,
    writer,
};
use crate::wire::{
    FrameDecoder, HeadFields, MessageType, PROTOCOL_VERSION, encode_outgoing, frame_codec,
};

/// One end of a multiplexed, symmetric RPC connection. Cheap to clone; every clone drives the
/// same connection.
///
/// Calls are encoded in the caller's task and queued for a single writer task, which batches
/// writes; a call with nothing queued ahead of it while the writer is idle is written by its
/// caller at once. A single reader task dispatches responses to their callers and runs each
/// incoming request (polled once inline on a current-thread runtime, in a task of its own if
/// it does not finish then). Dropping the last clone closes the connection.
#[derive(Clone)]
pub struct RpcPeer {
    handle: Arc<Handle>,
}

/// Closes the connection when the last [`RpcPeer`] clone is dropped; the tasks hold only
/// [`Shared`], so they cannot keep a forgotten connection alive.
struct Handle {
    shared: Arc<Shared>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.shutdown(DisconnectReason::Closed);
    }
}

impl fmt::Debug for RpcPeer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shared = &self.handle.shared;
        f.debug_struct("RpcPeer")
            .field("name", &shared.name)
            .field("in_flight", &shared.in_flight())
            .field("closed", &shared.reason())
            .finish()
    }
}

impl RpcPeer {
    /// Starts serving a fresh connection. Must be called inside a tokio runtime (either flavour).
    pub fn start<IO>(io: IO, handler: Arc<dyn RequestHandler>, config: PeerConfig) -> RpcPeer
    where
        IO: AsyncRead + AsyncWrite + Send + 'static,
    {
        Self::start_framed(Framed::new(io, frame_codec()), handler, config)
    }

    /// Starts serving a connection whose first frames (a handshake) were read through `framed`:
    /// bytes it has buffered beyond them are kept, as is its decoder state.
    pub fn start_framed<IO>(
        framed: Framed<IO, LengthDelimitedCodec>,
        handler: Arc<dyn RequestHandler>,
        config: PeerConfig,
    ) -> RpcPeer
    where
        IO: AsyncRead + AsyncWrite + Send + 'static,
    {
        let parts = framed.into_parts();
        let (read_half, write_half) = tokio::io::split(parts.io);
        // Rebuilt through `FramedParts` because only that path marks bytes already buffered
        // as readable: a `FramedRead` would wait for new input before decoding them.
        let mut read_parts =
            Framed::new(read_half, FrameDecoder::from_codec(parts.codec)).into_parts();
        read_parts.read_buf = parts.read_buf;
        let frames = Framed::from_parts(read_parts);
        let write_half: Pin<Box<dyn AsyncWrite + Send>> = Box::pin(write_half);
        let mut sink = FramedWrite::new(write_half, frame_codec());
        sink.set_backpressure_boundary(writer::WRITE_BATCH_BYTES);
        sink.write_buffer_mut().extend_from_slice(&parts.write_buf);

        let (queue_tx, queue_rx) = mpsc::channel(config.send_queue_capacity.max(1));
        let (control_tx, control_rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared::new(&config, queue_tx, control_tx));
        let reader_task = tokio::spawn(reader::run(frames, Arc::clone(&shared), handler));
        shared.set_reader(reader_task.abort_handle());
        tokio::spawn(writer::run(sink, queue_rx, control_rx, Arc::clone(&shared)));
        tokio::spawn(deadlines::run(Arc::clone(&shared)));
        RpcPeer {
            handle: Arc::new(Handle { shared }),
        }
    }

    /// Calls `method` on the peer and waits for its response, at most `timeout`
    /// (`Duration::ZERO` means the configured default). An empty `plugin_id` stamps the
    /// configured one.
    ///
    /// Fails with `E_BACK_PRESSURE` at once if the send queue is full, `E_TIMEOUT` when the
    /// deadline passes (the peer is then sent the cancel message, as it is when this future is
    /// dropped early), `E_PLUGIN_CRASHED` when the connection is or becomes closed, the
    /// peer's own code for an error response, and `E_BAD_PAYLOAD` if the response payload
    /// does not decode as `Resp`.
    pub async fn call<Req, Resp>(
        &self,
        method: &str,
        plugin_id: &str,
        payload: &Req,
        timeout: Duration,
    ) -> Result<Resp, RpcError>
    where
        Req: Serialize + ?Sized,
        Resp: DeserializeOwned,
    {
        let response = self.call_raw(method, plugin_id, payload, timeout).await?;
        if let Some(error) = response.header.error {
            return Err(RpcError::from_body(error));
        }
        // The header walk already found the payload: decode it in place, not by walking the
        // frame again.
        crate::wire::decode_payload_at(&response.frame, &response.payload_at).map_err(|err| {
            RpcError::bad_payload(format!("bad response payload for {method}: {err}"))
        })
    }

    /// Like [`call`](Self::call), but returns the response frame undecoded, whether or not it
    /// carries an error: for forwarding, or for choosing the payload type from the header.
    pub async fn call_raw<Req>(
        &self,
        method: &str,
        plugin_id: &str,
        payload: &Req,
        timeout: Duration,
    ) -> Result<IncomingMessage, RpcError>
    where
        Req: Serialize + ?Sized,
    {
        self.start_call(method, plugin_id, payload, timeout)?.await
    }

    /// Sends a call to `method` now, and returns the future of its raw response (see
    /// [`call_raw`](Self::call_raw), which is this, awaited).
    ///
    /// The request is encoded and handed to the connection before this returns, so `payload`
    /// need not outlive it: a caller that awaits the response keeps only the [`PendingCall`]
    /// across that `await`, not the request or its encoding. Fails at once, sending nothing,
    /// when the payload does not encode (`E_BAD_PAYLOAD`), the send queue is full
    /// (`E_BACK_PRESSURE`) or the connection is closed (`E_PLUGIN_CRASHED`).
    pub fn start_call<'a, Req>(
        &'a self,
        method: &'a str,
        plugin_id: &str,
        payload: &Req,
        timeout: Duration,
    ) -> Result<PendingCall<'a>, RpcError>
    where
        Req: Serialize + ?Sized,
    {
        let shared = &self.handle.shared;
        let timeout = if timeout.is_zero() {
            shared.default_timeout
        } else {
            timeout
        };
        let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        let id = shared.next_id();
        let fields = HeadFields {
            message_type: MessageType::Request,
            protocol_version: PROTOCOL_VERSION,
            request_id: id,
            method,
            plugin_id: shared.plugin_id_or_default(plugin_id),
            timeout_ms,
        };
        let frame = encode_outgoing(&fields, payload).map_err(|err| {
            RpcError::bad_payload(format!("cannot encode the request {method}: {err}"))
        })?;
        let (response, alone) = shared.register_call(id, deadline_after(timeout))?;
        if let Err(err) = shared.send_request(frame, alone) {
            // Never sent: nothing to cancel.
            shared.forget_call(id);
            return Err(err);
        }
        Ok(PendingCall::new(shared, id, response, method, timeout_ms))
    }

    /// Sends a one-way message. Fails with `E_BACK_PRESSURE` if the send queue is full and
    /// `E_PLUGIN_CRASHED` if the connection is closed.
    pub fn broadcast<P>(&self, method: &str, plugin_id: &str, payload: &P) -> Result<(), RpcError>
    where
        P: Serialize + ?Sized,
    {
        let shared = &self.handle.shared;
        let fields = HeadFields {
            message_type: MessageType::Broadcast,
            protocol_version: PROTOCOL_VERSION,
            request_id: shared.next_id(),
            method,
            plugin_id: shared.plugin_id_or_default(plugin_id),
            timeout_ms: 0,
        };
        let frame = encode_outgoing(&fields, payload).map_err(|err| {
            RpcError::bad_payload(format!("cannot encode the broadcast {method}: {err}"))
        })?;
        shared.enqueue(frame)
    }

    /// Closes the connection: pending calls fail with `E_PLUGIN_CRASHED`, incoming handlers are
    /// dropped, what is already queued is flushed (best effort, briefly) and the write half is
    /// shut down.
    pub fn close(&self) {
        self.handle.shared.shutdown(DisconnectReason::Closed);
    }

    /// [`close`](Self::close), then waits until what was queued before has been written (at
    /// most half a second): for a process about to exit, whose runtime would otherwise drop
    /// the final flush.
    pub async fn close_flushed(&self) {
        self.close();
        self.handle.shared.written.cancelled().await;
    }

    /// [`close`](Self::close), saying why: pending calls fail with `E_PLUGIN_CRASHED` and
    /// `reason` as their whole message, so that whoever waited on them learns what happened
    /// rather than that the connection closed.
    ///
    /// ```
    /// # use maitool_protocol::rpc::{DisconnectReason, RpcPeer};
    /// # async fn demo(peer: RpcPeer) {
    /// peer.close_because("the runner was restarted: it stopped answering health checks");
    /// assert!(matches!(peer.closed().await, DisconnectReason::Abandoned(_)));
    /// # }
    /// ```
    pub fn close_because(&self, reason: impl Into<String>) {
        self.handle
            .shared
            .shutdown(DisconnectReason::Abandoned(reason.into()));
    }

    /// True once the connection has ended, for whatever reason.
    pub fn is_closed(&self) -> bool {
        self.handle.shared.reason().is_some()
    }

    /// Resolves when the connection ends, with the reason. Any number of clones may wait.
    pub async fn closed(&self) -> DisconnectReason {
        let mut state = self.handle.shared.subscribe();
        // `Shared` owns the sender and outlives this borrow, so the wait cannot fail.
        let reason = state.wait_for(Option::is_some).await;
        match reason {
            Ok(reason) => reason.clone().unwrap_or(DisconnectReason::Closed),
            Err(_) => DisconnectReason::Closed,
        }
    }

    /// The reason the connection ended, if it has.
    pub fn disconnect_reason(&self) -> Option<DisconnectReason> {
        self.handle.shared.reason()
    }

    /// Outgoing calls waiting for their response.
    pub fn in_flight(&self) -> usize {
        self.handle.shared.in_flight()
    }

    /// Incoming requests whose handler is running.
    pub fn serving(&self) -> usize {
        self.handle.shared.incoming_in_flight()
    }

    /// The name given in [`PeerConfig::name`].
    pub fn name(&self) -> &str {
        &self.handle.shared.name
    }

    /// When the deadline sweeper next looks, if it has a timer at all.
    #[cfg(test)]
    pub(crate) fn next_sweep(&self) -> Option<Instant> {
        self.handle.shared.next_sweep()
    }
}

/// The deadline `timeout` from now; a limit too far out to represent (`Duration::MAX`) is
/// held to about thirty years, which is never in practice.
fn deadline_after(timeout: Duration) -> Instant {
    const FAR_FUTURE: Duration = Duration::from_secs(30 * 365 * 24 * 60 * 60);
    let now = Instant::now();
    now.checked_add(timeout).unwrap_or_else(|| now + FAR_FUTURE)
}
