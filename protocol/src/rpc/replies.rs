//! The answers of requests the reader served inline, sent together.

use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::OwnedSemaphorePermit;

use super::DisconnectReason;
use super::direct::Written;
use super::shared::Shared;

/// Answers the reader produced since it last ran out of frames to read.
///
/// The reader sends them when no more frames are ready (or before it yields), as the floor's
/// ping-pong server does: written straight to the socket in one write when the writer is idle
/// (see [`super::direct`]), queued for the writer otherwise. One request in flight is thus
/// answered without waking the writer task, and a burst of requests with one system call.
#[derive(Default)]
pub(super) struct Replies {
    frames: Vec<Bytes>,
    /// The admission slots of the answered requests: a peer that floods and never reads holds
    /// at most `max_incoming` answers, here or queued.
    permits: Vec<OwnedSemaphorePermit>,
}

impl Replies {
    /// Keeps an answer for the next [`send`](Self::send).
    pub(super) fn push(&mut self, frame: Bytes, permit: OwnedSemaphorePermit) {
        self.frames.push(frame);
        self.permits.push(permit);
    }

    /// Writes the answers kept so far, or queues them; with the queue full, a task waits for
    /// room for the rest, holding their slots. A socket error ends the connection.
    pub(super) fn send(&mut self, shared: &Arc<Shared>) {
        if self.frames.is_empty() {
            return;
        }
        match shared.idle.write_frames(&mut self.frames) {
            Ok(Written::Done) => {
                self.permits.clear();
                return;
            }
            Ok(Written::NotNow) => {}
            Err(err) => {
                self.frames.clear();
                self.permits.clear();
                shared.shutdown(DisconnectReason::Io(err.to_string()));
                return;
            }
        }
        let mut frames = self.frames.drain(..);
        while let Some(frame) = frames.next() {
            if let Err(frame) = shared.try_enqueue_response(frame) {
                let rest: Vec<Bytes> = std::iter::once(frame).chain(frames).collect();
                let permits = std::mem::take(&mut self.permits);
                let shared = Arc::clone(shared);
                tokio::spawn(async move {
                    let _permits = permits;
                    for frame in rest {
                        shared.enqueue_response(frame).await;
                    }
                });
                return;
            }
        }
        self.permits.clear();
    }
}
