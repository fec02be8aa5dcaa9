//! Writing frames straight to the socket while the writer task is idle.
//!
//! A frame handed to the writer task costs a wake-up and a poll of that task before its bytes
//! reach the socket: about 2,000 instructions, an eighth of a sequential call on either side.
//! When nothing else is being written that is pure overhead, so the writer lends its sink out
//! while it waits for work, and a caller with nothing queued ahead of it writes its frame
//! itself, without waiting:
//!
//! ```text
//!   writer task                      IdleSink                     callers
//!   ───────────                      ────────                     ───────
//!   flushed, queues empty ──lend──▶  slot: Some(sink)  ◀──write── one call in flight, or
//!   waits: queue, control, kick                                   the reader's answers
//!   woken ◀──────────────take back── slot: None        ──────────▶ later frames: queued
//! ```
//!
//! Order is kept by three rules:
//! - a frame is written directly only when `queued` is zero: nothing waits in the send queues
//!   that was queued before it;
//! - the writer takes the sink back *before* it counts a frame it received as taken, so a
//!   frame it is about to write still counts as queued until the sink is out of reach;
//! - only an empty sink buffer is written to directly. A direct write that the socket does not
//!   take whole leaves the rest in the buffer and kicks the writer, which finishes it with a
//!   real waker; until then the buffer is not empty and later frames queue behind it.
//!
//! The sink is only ever used under the slot's lock, and a direct write never waits: the
//! flush is polled once with a no-op waker. Tokio's socket then keeps the no-op waker until
//! the writer polls with its own, which it does at once when kicked.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::SinkExt;
use parking_lot::Mutex;
use tokio::io::AsyncWrite;
use tokio::sync::Notify;
use tokio_util::codec::{FramedWrite, LengthDelimitedCodec};

/// The connection's write side.
pub(super) type Sink = FramedWrite<Pin<Box<dyn AsyncWrite + Send>>, LengthDelimitedCodec>;

/// The sink, while the writer task lends it out, and what decides whether it may be used.
#[derive(Default)]
pub(super) struct IdleSink {
    slot: Mutex<Option<Sink>>,
    /// Frames pushed to the send queues that the writer has not taken yet.
    queued: AtomicUsize,
    /// Wakes the writer to finish a direct write the socket did not take whole.
    pub(super) kick: Notify,
}

/// How far a direct write got.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Written {
    /// The writer task has the sink, or frames are queued ahead: nothing was written.
    NotNow,
    /// Every byte is in the socket, or in the sink's buffer with the writer kicked to finish.
    Done,
}

impl IdleSink {
    /// Puts the sink where callers can write to it; the writer is about to wait for work.
    pub(super) fn lend(&self, sink: Sink) {
        *self.slot.lock() = Some(sink);
    }

    /// Takes the sink back, if it was lent out (at close, it may not have been).
    pub(super) fn take_back(&self) -> Option<Sink> {
        self.slot.lock().take()
    }

    /// Counts a frame about to be pushed to a send queue.
    pub(super) fn count_queued(&self) {
        self.queued.fetch_add(1, Ordering::AcqRel);
    }

    /// Uncounts a frame: the writer took it (with the sink in hand), or the push failed.
    pub(super) fn count_taken(&self) {
        self.queued.fetch_sub(1, Ordering::AcqRel);
    }

    /// Writes `frame` to the socket now if the sink is lent out, empty, and nothing is queued
    /// ahead of it; otherwise leaves it in place and returns [`Written::NotNow`].
    pub(super) fn write_frame(&self, frame: &mut Option<Bytes>) -> io::Result<Written> {
        self.write_with(|sink| match frame.take() {
            Some(frame) => sink.start_send_unpin(frame),
            None => Ok(()),
        })
    }

    /// [`write_frame`](Self::write_frame) for several frames, in order, in one write; they
    /// are left in `frames` when the answer is [`Written::NotNow`].
    pub(super) fn write_frames(&self, frames: &mut Vec<Bytes>) -> io::Result<Written> {
        self.write_with(|sink| {
            for frame in frames.drain(..) {
                sink.start_send_unpin(frame)?;
            }
            Ok(())
        })
    }

    /// Runs `feed` on the sink and flushes without waiting, if the sink may be used now.
    fn write_with(&self, feed: impl FnOnce(&mut Sink) -> io::Result<()>) -> io::Result<Written> {
        let partly = {
            let Some(mut slot) = self.slot.try_lock() else {
                return Ok(Written::NotNow);
            };
            let Some(sink) = slot.as_mut() else {
                return Ok(Written::NotNow);
            };
            if self.queued.load(Ordering::Acquire) != 0 || !sink.write_buffer().is_empty() {
                return Ok(Written::NotNow);
            }
            feed(sink)?;
            let mut no_wait = Context::from_waker(futures::task::noop_waker_ref());
            match SinkExt::<Bytes>::poll_flush_unpin(sink, &mut no_wait) {
                Poll::Ready(Ok(())) => false,
                Poll::Ready(Err(err)) => return Err(err),
                Poll::Pending => true,
            }
        };
        if partly {
            self.kick.notify_one();
        }
        Ok(Written::Done)
    }
}

#[cfg(test)]
mod tests;
