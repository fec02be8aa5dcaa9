//! The reader task: decodes each frame's header and dispatches it.

use std::any::Any;
use std::future::poll_fn;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use futures::future::BoxFuture;
use futures::{FutureExt, Stream, StreamExt};

use super::replies::Replies;
use super::shared::{Refusal, Shared};
use super::{DisconnectReason, IncomingMessage, RequestHandler, RpcError};
use crate::wire::{
    ByteString, CANCEL_METHOD, CancelPayload, EMPTY_MAP, Envelope, EnvelopeHeader, MessageType,
    PROTOCOL_VERSION, ResponseHead, WireError, decode_header_located, encode_envelope,
    recover_request_id,
};

/// Frames the reader dispatches before it lets the rest of the thread run.
///
/// A reader that dispatches for as long as frames keep arriving holds back the writer, which
/// runs on the same thread on a current-thread runtime: under load both peers fall into
/// lockstep, each answering a whole window of requests in one burst while the other sits idle.
/// Yielding every 32 frames lets the writer send what was answered so far while more requests
/// are read, so both processes work at once; the benchmark's `throughput_256_ratio` and
/// `throughput_64_ratio` measure it. 32 frames is one write of about 8 KiB of typical calls,
/// which keeps the extra system calls per call small.
const READ_BATCH_FRAMES: usize = 32;

pub(super) async fn run<F>(mut frames: F, shared: Arc<Shared>, handler: Arc<dyn RequestHandler>)
where
    F: Stream<Item = Result<BytesMut, WireError>> + Unpin,
{
    let inline = first_poll_inline();
    let mut since_yield = 0usize;
    let mut replies = Replies::default();
    let reason = loop {
        // Nothing more to read for now: what was answered goes out before waiting. Done
        // inside the poll that found nothing, so the stream is polled once, with the task's
        // own waker (a `now_or_never` first polled it twice per frame at one call in flight).
        let next = poll_fn(|cx| {
            let polled = frames.poll_next_unpin(cx);
            if polled.is_pending() {
                replies.send(&shared);
            }
            polled
        })
        .await;
        match next {
            Some(Ok(frame)) => {
                if let Some(reason) =
                    dispatch(&shared, &handler, frame.freeze(), inline, &mut replies)
                {
                    break reason;
                }
                since_yield += 1;
                if since_yield >= READ_BATCH_FRAMES {
                    since_yield = 0;
                    replies.send(&shared);
                    tokio::task::yield_now().await;
                }
            }
            Some(Err(err)) => break disconnect_reason(err),
            None => break DisconnectReason::PeerClosed,
        }
    };
    replies.send(&shared);
    shared.shutdown(reason);
}

fn disconnect_reason(err: WireError) -> DisconnectReason {
    match err {
        WireError::Io(err) => DisconnectReason::Io(err.to_string()),
        other => DisconnectReason::Protocol(other.to_string()),
    }
}

/// Whether requests are first polled right here in the reader task: on a current-thread
/// runtime a spawned handler would run on this same thread anyway, and most handlers finish
/// on their first poll, so polling them inline saves a task spawn and a scheduler round
/// trip per request. On a multi-thread runtime a handler's synchronous work must not hold up
/// reading, so every request gets its own task there.
fn first_poll_inline() -> bool {
    tokio::runtime::Handle::try_current().is_ok_and(|runtime| {
        runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread
    })
}

/// Handles one frame; `Some` ends the connection, for that reason.
fn dispatch(
    shared: &Arc<Shared>,
    handler: &Arc<dyn RequestHandler>,
    frame: Bytes,
    inline: bool,
    replies: &mut Replies,
) -> Option<DisconnectReason> {
    let (header, payload_at) = match decode_header_located(&frame) {
        Ok(decoded) => decoded,
        Err(err) => return reject(shared, &frame, err),
    };
    let message = IncomingMessage::new(header, frame, payload_at);
    match message.header.message_type {
        MessageType::Response => shared.resolve(message),
        MessageType::Request => serve(shared, handler, message, inline, replies),
        MessageType::Broadcast if message.header.method == CANCEL_METHOD => {
            match message.payload::<CancelPayload>() {
                Ok(cancel) => shared.cancel_incoming(cancel.request_id),
                Err(err) => {
                    tracing::warn!(peer = %shared.name, %err, "ignoring a bad cancel message")
                }
            }
        }
        MessageType::Broadcast => {
            let method = message.header.method.clone();
            let delivered =
                std::panic::catch_unwind(AssertUnwindSafe(|| handler.handle_broadcast(message)));
            if let Err(panic) = delivered {
                tracing::error!(
                    peer = %shared.name,
                    %method,
                    panic = panic_message(panic.as_ref()),
                    "broadcast handler panicked"
                );
            }
        }
    }
    None
}

/// A frame whose header does not decode: log it, skip it, and answer it if it can be answered;
/// one that names no request ends the connection of a peer set to
/// [`close_on_unanswerable`](super::PeerConfig::close_on_unanswerable), after an error
/// response with request id 0.
fn reject(shared: &Shared, frame: &[u8], err: WireError) -> Option<DisconnectReason> {
    if let WireError::UnknownMessageType { .. } = err {
        tracing::warn!(peer = %shared.name, %err, "skipping a frame");
        return None;
    }
    let recovered = recover_request_id(frame);
    tracing::warn!(
        peer = %shared.name,
        %err,
        frame_len = frame.len(),
        request_id = recovered.as_ref().map(|r| r.request_id),
        "skipping an undecodable frame"
    );
    let error = RpcError::bad_payload(format!("undecodable frame: {err}"));
    let Some(recovered) = recovered else {
        if !shared.close_on_unanswerable {
            return None;
        }
        answer_error(shared, 0, error);
        return Some(DisconnectReason::Protocol(format!(
            "undecodable frame with no request id to answer: {err}"
        )));
    };
    match recovered.message_type.as_deref() {
        // A response we cannot read still ends the call that waits for it.
        Some("response") => shared.fail_call(recovered.request_id, error),
        Some("broadcast") => {}
        // A request, or a frame too broken to tell: its sender may be waiting for an answer.
        _ => answer_error(shared, recovered.request_id, error),
    }
    None
}

/// Sends an error response to request `request_id` (which the peer could not decode).
fn answer_error(shared: &Shared, request_id: u64, error: RpcError) {
    let header = EnvelopeHeader {
        protocol_version: ByteString::from_static(PROTOCOL_VERSION),
        request_id,
        message_type: MessageType::Request,
        method: ByteString::new(),
        plugin_id: ByteString::new(),
        timestamp_ms: 0,
        timeout_ms: 0,
        error: None,
    };
    match encode_envelope(&Envelope::error_response_to(&header, error.to_body())) {
        Ok(reply) => {
            if let Err(err) = shared.enqueue(reply) {
                tracing::warn!(peer = %shared.name, %err, "cannot answer an undecodable frame");
            }
        }
        Err(err) => {
            tracing::error!(peer = %shared.name, %err, "cannot encode an error response")
        }
    }
}

/// Serves one request: polled once right here on a current-thread runtime, and answered with
/// the reader's next batch of `replies` if that finishes it; otherwise run in its own task,
/// answered unless it is cancelled first.
///
/// A request that finishes on its first poll (most do) is never registered for cancellation:
/// no cancel message can arrive for it before it is answered, since this reader is the only
/// one to read them. Only a request still running after that poll pays for the cancel channel
/// and the table entry.
fn serve(
    shared: &Arc<Shared>,
    handler: &Arc<dyn RequestHandler>,
    request: IncomingMessage,
    inline: bool,
    replies: &mut Replies,
) {
    let id = request.header.request_id;
    let Some(permit) = shared.incoming_permit() else {
        return refuse_busy(shared, &request.header);
    };
    match shared.may_serve(id) {
        Ok(()) => {}
        Err(Refusal::Duplicate) => return refuse_duplicate(shared, &request.header),
        Err(Refusal::Closed) => return,
    }
    let head = ResponseHead::for_request(&request.header);
    let deadline = request.timeout();
    // The handler's own boxed future is what gets polled and, if it is still pending, moved
    // into a task: wrapping it in a second boxed future would copy both into the heap once
    // more for every request.
    let mut future = match std::panic::catch_unwind(AssertUnwindSafe(|| handler.handle(request))) {
        Ok(future) => future,
        Err(panic) => {
            if let Some(reply) = encode_reply(shared, &head, Err(panicked(panic.as_ref()))) {
                replies.push(reply, permit);
            }
            return;
        }
    };
    if inline {
        // A future left pending registers the real waker when its task polls it again, which
        // `spawn` does at once; the no-op waker of this first poll is then replaced.
        let mut first = Context::from_waker(futures::task::noop_waker_ref());
        let polled =
            std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut first)));
        let outcome = match polled {
            Ok(Poll::Ready(outcome)) => Some(outcome),
            Ok(Poll::Pending) => None,
            Err(panic) => Some(Err(panicked(panic.as_ref()))),
        };
        if let Some(outcome) = outcome {
            if let Some(reply) = encode_reply(shared, &head, outcome) {
                replies.push(reply, permit);
            }
            return;
        }
    }
    // Nothing ran on this reader since `may_serve`, so the id is still free.
    let Ok(cancelled) = shared.admit_incoming(id) else {
        return;
    };
    let shared = Arc::clone(shared);
    tokio::spawn(async move {
        // Held until the response is queued: a peer that floods and never reads holds at
        // most `max_incoming` tasks, not one per request it sends.
        let _permit = permit;
        // Only the handler is cancellable. Its answer is owed and waits for room in the send
        // queue outside this select: `finish_incoming` drops the cancel sender, which would
        // end the select and silently drop a response that found the queue full.
        let outcome = tokio::select! {
            biased;
            _ = cancelled => return,
            outcome = finish_handler(future, deadline, head.method()) => outcome,
        };
        let reply = encode_reply(&shared, &head, outcome);
        shared.finish_incoming(id);
        if let Some(reply) = reply {
            shared.enqueue_response(reply).await;
        }
    });
}

/// A request whose id is already in flight: refused with `E_BAD_PAYLOAD`.
fn refuse_duplicate(shared: &Shared, header: &EnvelopeHeader) {
    let id = header.request_id;
    tracing::warn!(peer = %shared.name, request_id = id, "duplicate request id");
    let error = RpcError::bad_payload(format!("request id {id} is already in flight"));
    if let Ok(reply) = encode_envelope(&Envelope::error_response_to(header, error.to_body())) {
        let _ = shared.enqueue(reply);
    }
}

/// A request beyond `max_incoming`: answered `E_BACK_PRESSURE` at once, without a task. The
/// answer is best effort: when the send queue is full as well it is dropped, and the caller's
/// own timeout ends the call.
fn refuse_busy(shared: &Shared, header: &EnvelopeHeader) {
    shared.note_refused();
    let error = RpcError::back_pressure(format!(
        "too many requests in flight: at most {} are served at once",
        shared.max_incoming
    ));
    if let Ok(reply) = encode_envelope(&Envelope::error_response_to(header, error.to_body())) {
        let _ = shared.enqueue(reply);
    }
}

/// Runs a handler's future that its first poll left pending (or that was not polled yet on a
/// multi-thread runtime) to its end, within the caller's deadline; a panic becomes an error.
async fn finish_handler(
    future: BoxFuture<'static, Result<super::Payload, RpcError>>,
    deadline: Option<std::time::Duration>,
    method: &str,
) -> Result<super::Payload, RpcError> {
    let guarded = AssertUnwindSafe(future).catch_unwind();
    let outcome = match deadline {
        Some(deadline) => match tokio::time::timeout(deadline, guarded).await {
            Ok(outcome) => outcome,
            Err(_) => {
                let timeout_ms = u64::try_from(deadline.as_millis()).unwrap_or(u64::MAX);
                return Err(RpcError::timeout(method, timeout_ms));
            }
        },
        None => guarded.await,
    };
    outcome.unwrap_or_else(|panic| Err(panicked(panic.as_ref())))
}

/// The error a panicking handler answers with.
fn panicked(panic: &(dyn Any + Send)) -> RpcError {
    RpcError::new(
        crate::wire::ErrorCode::Unknown,
        format!("handler panicked: {}", panic_message(panic)),
    )
}

fn encode_reply(
    shared: &Shared,
    head: &ResponseHead,
    outcome: Result<super::Payload, RpcError>,
) -> Option<Bytes> {
    let encoded = match &outcome {
        Ok(payload) => head.finish(payload.as_bytes(), None),
        Err(error) => head.finish(&[EMPTY_MAP], Some(&error.to_body())),
    };
    let err = match encoded {
        Ok(reply) => return Some(reply),
        Err(err) => err,
    };
    // Too large, most likely: the caller still gets an answer, saying why.
    let error = RpcError::bad_payload(format!("cannot encode the response: {err}"));
    match head.finish(&[EMPTY_MAP], Some(&error.to_body())) {
        Ok(reply) => Some(reply),
        Err(err) => {
            tracing::error!(peer = %shared.name, request_id = head.request_id(), %err, "cannot answer a request");
            None
        }
    }
}

pub(super) fn panic_message(panic: &(dyn Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}
