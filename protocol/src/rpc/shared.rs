//! The state one connection's handles, reader and writer share.

use std::collections::hash_map::Entry;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use foldhash::HashMap;
use parking_lot::Mutex;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc, oneshot, watch};
use tokio::task::AbortHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::direct::{IdleSink, Written};
use super::{DisconnectReason, IncomingMessage, PeerConfig, RpcError};
use crate::wire::{CANCEL_METHOD, CancelPayload, Envelope, encode_envelope};

/// How an outgoing call ends, as delivered to its waiting `call`.
pub(super) enum Delivery {
    /// The peer's response (which may carry an error body).
    Response(IncomingMessage),
    /// No usable response: the connection closed, or the response could not be read.
    Failed(RpcError),
    /// The deadline passed first; the caller names the method and limit in its error.
    TimedOut,
}

/// Where a call's end is delivered: the waiting `call`.
pub(super) type ResponseSender = oneshot::Sender<Delivery>;

pub(super) struct Shared {
    pub(super) name: String,
    pub(super) plugin_id: String,
    pub(super) default_timeout: Duration,
    /// See [`PeerConfig::release_idle_timer`].
    release_idle_timer: bool,
    /// See [`PeerConfig::close_on_unanswerable`].
    pub(super) close_on_unanswerable: bool,
    next_id: AtomicU64,
    queue: mpsc::Sender<Bytes>,
    queue_capacity: usize,
    /// Cancel messages: sent from drop guards, which cannot wait for queue space, and few
    /// (at most one per abandoned call).
    control: mpsc::UnboundedSender<Bytes>,
    /// The writer's sink while it is idle, for frames written by their sender (see
    /// [`super::direct`]); every push to `queue` or `control` is counted there.
    pub(super) idle: IdleSink,
    pending: Mutex<Pending>,
    /// Wakes the deadline sweeper when a call's deadline is earlier than its next sweep.
    pub(super) sweep_sooner: Notify,
    incoming: Mutex<Incoming>,
    /// The most of the peer's requests served at once (see [`PeerConfig::max_incoming`]).
    pub(super) max_incoming: usize,
    incoming_slots: Arc<Semaphore>,
    /// Requests refused for want of a slot, and when that was last logged.
    refused: Mutex<Refused>,
    state: watch::Sender<Option<DisconnectReason>>,
    pub(super) stop: CancellationToken,
    /// Cancelled when the writer task has ended, its final flush done.
    pub(super) written: CancellationToken,
    reader: Mutex<Option<AbortHandle>>,
}

/// Outgoing calls waiting for their response. `closed` is set under the same lock as the map is
/// drained, so a call can never register after the drain and then wait forever.
///
/// Deadlines are kept here rather than in a timer per call: registering a timer and removing
/// it again cost about a thousand instructions per call, while almost every call is answered
/// long before its deadline. One sweeper per connection ([`super::deadlines`]) wakes at the
/// earliest deadline it knows of (`next_sweep`) and fails the calls whose time is up.
#[derive(Default)]
struct Pending {
    closed: Option<RpcError>,
    calls: HashMap<u64, PendingCall>,
    /// When the sweeper will next look; `None` while it waits for a first deadline. It is
    /// never later than the earliest deadline in `calls`.
    next_sweep: Option<Instant>,
}

struct PendingCall {
    tx: ResponseSender,
    deadline: Instant,
}

/// Incoming requests being served: dropping or firing a sender drops that handler's future.
#[derive(Default)]
struct Incoming {
    closed: bool,
    tasks: HashMap<u64, oneshot::Sender<()>>,
}

/// Requests refused with `E_BACK_PRESSURE`; logged at most every [`REFUSAL_LOG_EVERY`].
#[derive(Default)]
struct Refused {
    count: u64,
    logged_at: Option<Instant>,
}

/// A flood refuses thousands of requests a second: one warning per period, not per request.
const REFUSAL_LOG_EVERY: Duration = Duration::from_secs(10);

/// Why an incoming request is not served.
pub(super) enum Refusal {
    /// A request with the same id is running.
    Duplicate,
    /// The connection is closing.
    Closed,
}

impl Shared {
    pub(super) fn new(
        config: &PeerConfig,
        queue: mpsc::Sender<Bytes>,
        control: mpsc::UnboundedSender<Bytes>,
    ) -> Self {
        Self {
            name: config.name.clone(),
            plugin_id: config.plugin_id.clone(),
            default_timeout: config.default_timeout,
            release_idle_timer: config.release_idle_timer,
            close_on_unanswerable: config.close_on_unanswerable,
            next_id: AtomicU64::new(1),
            queue_capacity: queue.max_capacity(),
            queue,
            control,
            idle: IdleSink::default(),
            pending: Mutex::default(),
            sweep_sooner: Notify::new(),
            incoming: Mutex::default(),
            max_incoming: config.max_incoming.max(1),
            incoming_slots: Arc::new(Semaphore::new(config.max_incoming.max(1))),
            refused: Mutex::default(),
            state: watch::Sender::new(None),
            stop: CancellationToken::new(),
            written: CancellationToken::new(),
            reader: Mutex::new(None),
        }
    }

    pub(super) fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    pub(super) fn plugin_id_or_default<'a>(&'a self, plugin_id: &'a str) -> &'a str {
        if plugin_id.is_empty() {
            &self.plugin_id
        } else {
            plugin_id
        }
    }

    pub(super) fn set_reader(&self, reader: AbortHandle) {
        *self.reader.lock() = Some(reader);
    }

    // ----- outgoing calls -----

    /// Registers the call `id`, answered by `deadline` at the latest; also says whether it is
    /// the only call under way in either direction.
    pub(super) fn register_call(
        &self,
        id: u64,
        deadline: Instant,
    ) -> Result<(oneshot::Receiver<Delivery>, bool), RpcError> {
        let (tx, rx) = oneshot::channel();
        let (sooner, calls) = {
            let mut pending = self.pending.lock();
            if let Some(err) = &pending.closed {
                return Err(err.clone());
            }
            pending.calls.insert(id, PendingCall { tx, deadline });
            let sooner = pending.next_sweep.is_none_or(|at| deadline < at);
            if sooner {
                pending.next_sweep = Some(deadline);
            }
            (sooner, pending.calls.len())
        };
        if sooner {
            self.sweep_sooner.notify_one();
        }
        let alone = calls == 1 && self.incoming_in_flight() == 0;
        Ok((rx, alone))
    }

    /// When the sweeper should next look for expired calls.
    pub(super) fn next_sweep(&self) -> Option<Instant> {
        self.pending.lock().next_sweep
    }

    /// Fails the calls whose deadline is `now` or earlier with [`Delivery::TimedOut`] and
    /// tells the peer they are abandoned; the next sweep is set to the earliest deadline left.
    pub(super) fn sweep(&self, now: Instant) {
        let expired: Vec<(u64, PendingCall)> = {
            let mut pending = self.pending.lock();
            let expired = pending
                .calls
                .extract_if(|_, call| call.deadline <= now)
                .collect();
            pending.next_sweep = pending.calls.values().map(|call| call.deadline).min();
            expired
        };
        for (id, call) in expired {
            // The caller may be gone already (its future dropped); the peer is told either way.
            let _ = call.tx.send(Delivery::TimedOut);
            self.send_cancel(id);
        }
    }

    /// Removes a call; true if it was still waiting (no response, no disconnect yet).
    pub(super) fn forget_call(&self, id: u64) -> bool {
        self.take_call(id).is_some()
    }

    /// Removes the call `id` from the table. With `release_idle_timer`, the last call out
    /// also clears the sweeper's schedule and wakes it, so that it waits without a timer.
    fn take_call(&self, id: u64) -> Option<PendingCall> {
        let (call, released) = {
            let mut pending = self.pending.lock();
            let call = pending.calls.remove(&id);
            let released = self.release_idle_timer
                && call.is_some()
                && pending.calls.is_empty()
                && pending.next_sweep.take().is_some();
            (call, released)
        };
        if released {
            self.sweep_sooner.notify_one();
        }
        call
    }

    pub(super) fn in_flight(&self) -> usize {
        self.pending.lock().calls.len()
    }

    /// Delivers a response to its call.
    pub(super) fn resolve(&self, response: IncomingMessage) {
        let id = response.header.request_id;
        match self.take_call(id) {
            // The caller may have given up in the meantime; nothing to do then.
            Some(call) => drop(call.tx.send(Delivery::Response(response))),
            None => tracing::debug!(
                peer = %self.name,
                request_id = id,
                method = %response.header.method,
                "dropping a response to an unknown or abandoned request"
            ),
        }
    }

    /// Fails one call, for a response that arrived but cannot be read.
    pub(super) fn fail_call(&self, id: u64, err: RpcError) {
        if let Some(call) = self.take_call(id) {
            drop(call.tx.send(Delivery::Failed(err)));
        }
    }

    // ----- the send queue -----

    /// Queues a frame without waiting: `E_BACK_PRESSURE` when the queue is full.
    pub(super) fn enqueue(&self, frame: Bytes) -> Result<(), RpcError> {
        if let Some(err) = self.closed_error() {
            return Err(err);
        }
        self.idle.count_queued();
        self.queue.try_send(frame).map_err(|err| {
            self.idle.count_taken();
            match err {
                mpsc::error::TrySendError::Full(_) => RpcError::back_pressure(format!(
                    "send queue to {} is full ({} frames)",
                    self.name, self.queue_capacity
                )),
                mpsc::error::TrySendError::Closed(_) => self.closed_now(),
            }
        })
    }

    /// Sends a call's request: written at once when it is the only call under way and the
    /// writer is idle (see [`super::direct`]), queued like any frame otherwise. A socket
    /// error on the direct write ends the connection, and with it the call.
    pub(super) fn send_request(&self, frame: Bytes, alone: bool) -> Result<(), RpcError> {
        if !alone {
            return self.enqueue(frame);
        }
        if let Some(err) = self.closed_error() {
            return Err(err);
        }
        let mut frame = Some(frame);
        match self.idle.write_frame(&mut frame) {
            Ok(Written::Done) => Ok(()),
            Ok(Written::NotNow) => match frame {
                Some(frame) => self.enqueue(frame),
                None => Ok(()),
            },
            Err(err) => {
                self.shutdown(DisconnectReason::Io(err.to_string()));
                Err(self.closed_now())
            }
        }
    }

    /// Queues a response, waiting for room: responses are owed, so they queue rather than fail.
    pub(super) async fn enqueue_response(&self, frame: Bytes) {
        self.idle.count_queued();
        if self.queue.send(frame).await.is_err() {
            self.idle.count_taken();
            tracing::debug!(peer = %self.name, "connection closed before a response was sent");
        }
    }

    /// Queues a response without waiting; gives it back when the queue is full.
    pub(super) fn try_enqueue_response(&self, frame: Bytes) -> Result<(), Bytes> {
        self.idle.count_queued();
        match self.queue.try_send(frame) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(frame)) => {
                self.idle.count_taken();
                Err(frame)
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.idle.count_taken();
                tracing::debug!(peer = %self.name, "connection closed before a response was sent");
                Ok(())
            }
        }
    }

    /// Tells the peer that the call `request_id` is abandoned.
    pub(super) fn send_cancel(&self, request_id: u64) {
        let envelope = Envelope::broadcast(
            self.next_id(),
            CANCEL_METHOD,
            &*self.plugin_id,
            CancelPayload { request_id },
        );
        match encode_envelope(&envelope) {
            Ok(frame) => {
                self.idle.count_queued();
                // Fails only once the writer is gone, and then there is no one to tell.
                if self.control.send(frame).is_err() {
                    self.idle.count_taken();
                }
            }
            Err(err) => tracing::error!(peer = %self.name, %err, "cannot encode a cancel message"),
        }
    }

    // ----- incoming requests -----

    /// A slot for one of the peer's requests, held until its response is queued; `None` when
    /// `max_incoming` are already being served.
    pub(super) fn incoming_permit(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.incoming_slots).try_acquire_owned().ok()
    }

    /// Counts a refused request, and warns about the flood once per period.
    pub(super) fn note_refused(&self) {
        let mut refused = self.refused.lock();
        refused.count += 1;
        let now = Instant::now();
        if refused
            .logged_at
            .is_none_or(|at| now.duration_since(at) >= REFUSAL_LOG_EVERY)
        {
            refused.logged_at = Some(now);
            tracing::warn!(
                peer = %self.name,
                refused_so_far = refused.count,
                max_incoming = self.max_incoming,
                "peer has too many requests in flight; refusing its requests with E_BACK_PRESSURE"
            );
        }
    }

    /// Whether a request `id` may be served now: the connection is open and no request with
    /// that id is running. Unlike [`admit_incoming`](Self::admit_incoming) it registers nothing,
    /// so a request that finishes on its first poll never enters the table.
    pub(super) fn may_serve(&self, id: u64) -> Result<(), Refusal> {
        let incoming = self.incoming.lock();
        if incoming.closed {
            Err(Refusal::Closed)
        } else if incoming.tasks.contains_key(&id) {
            Err(Refusal::Duplicate)
        } else {
            Ok(())
        }
    }

    /// Registers the running request `id` as cancellable; the receiver fires when the peer
    /// cancels it.
    pub(super) fn admit_incoming(&self, id: u64) -> Result<oneshot::Receiver<()>, Refusal> {
        let mut incoming = self.incoming.lock();
        if incoming.closed {
            return Err(Refusal::Closed);
        }
        match incoming.tasks.entry(id) {
            Entry::Occupied(_) => Err(Refusal::Duplicate),
            Entry::Vacant(slot) => {
                let (tx, rx) = oneshot::channel();
                slot.insert(tx);
                Ok(rx)
            }
        }
    }

    pub(super) fn finish_incoming(&self, id: u64) {
        self.incoming.lock().tasks.remove(&id);
    }

    /// Drops the handler of the incoming request `id`, if it is still running.
    pub(super) fn cancel_incoming(&self, id: u64) {
        match self.incoming.lock().tasks.remove(&id) {
            Some(cancel) => {
                let _ = cancel.send(());
                tracing::debug!(peer = %self.name, request_id = id, "request cancelled by the peer");
            }
            None => tracing::debug!(
                peer = %self.name,
                request_id = id,
                "cancel for a request that is not running"
            ),
        }
    }

    pub(super) fn incoming_in_flight(&self) -> usize {
        self.incoming.lock().tasks.len()
    }

    /// Whether more than one call is under way in either direction, so that another frame
    /// may be queued in a moment.
    pub(super) fn busy(&self) -> bool {
        self.in_flight() + self.incoming_in_flight() > 1
    }

    // ----- lifecycle -----

    pub(super) fn reason(&self) -> Option<DisconnectReason> {
        self.state.borrow().clone()
    }

    pub(super) fn subscribe(&self) -> watch::Receiver<Option<DisconnectReason>> {
        self.state.subscribe()
    }

    fn closed_error(&self) -> Option<RpcError> {
        self.reason().map(|reason| closed_error(&reason))
    }

    /// The error of a connection found closed, naming why when that is known.
    fn closed_now(&self) -> RpcError {
        self.closed_error()
            .unwrap_or_else(|| RpcError::crashed("connection closed"))
    }

    /// Ends the connection: the first reason wins; every pending call fails at once, every
    /// incoming handler is dropped, the reader stops and the writer is told to finish.
    pub(super) fn shutdown(&self, reason: DisconnectReason) {
        let first = self.state.send_if_modified(|state| {
            if state.is_some() {
                return false;
            }
            *state = Some(reason.clone());
            true
        });
        if !first {
            return;
        }
        match &reason {
            DisconnectReason::Closed
            | DisconnectReason::Abandoned(_)
            | DisconnectReason::PeerClosed => {
                tracing::debug!(peer = %self.name, %reason, "connection ended")
            }
            _ => tracing::warn!(peer = %self.name, %reason, "connection ended"),
        }
        let err = closed_error(&reason);
        let calls = {
            let mut pending = self.pending.lock();
            pending.closed = Some(err.clone());
            std::mem::take(&mut pending.calls)
        };
        for (_, call) in calls {
            let _ = call.tx.send(Delivery::Failed(err.clone()));
        }
        let handlers = {
            let mut incoming = self.incoming.lock();
            incoming.closed = true;
            std::mem::take(&mut incoming.tasks)
        };
        drop(handlers);
        self.stop.cancel();
        if let Some(reader) = self.reader.lock().take() {
            reader.abort();
        }
    }
}

/// The error of calls cut off by a disconnect: the caller's own reason when it gave one.
fn closed_error(reason: &DisconnectReason) -> RpcError {
    match reason {
        DisconnectReason::Abandoned(reason) => RpcError::crashed(reason.clone()),
        other => RpcError::crashed(format!("connection closed: {other}")),
    }
}
