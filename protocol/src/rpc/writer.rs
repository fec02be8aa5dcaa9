//! The writer task: writes every frame that is queued, and lends its sink out while idle.

use std::future::poll_fn;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::SinkExt;
use tokio::sync::mpsc;

use super::DisconnectReason;
use super::direct::Sink;
use super::shared::Shared;

/// How long `close()` lets the writer flush what is queued before it gives up.
const CLOSE_FLUSH_TIMEOUT: Duration = Duration::from_millis(500);

/// Bytes buffered before `feed` writes through even though more frames are queued.
pub(super) const WRITE_BATCH_BYTES: usize = 64 * 1024;

pub(super) async fn run(
    sink: Sink,
    mut queue: mpsc::Receiver<Bytes>,
    mut control: mpsc::UnboundedReceiver<Bytes>,
    shared: Arc<Shared>,
) {
    let _written = shared.written.clone().drop_guard();
    // Owned out here, so that stopping the pump in the middle of a write leaves the sink
    // (and what it buffered) either here or lent out, for the final flush.
    let mut held = Some(sink);
    let pumped = tokio::select! {
        pumped = pump(&mut held, &mut queue, &mut control, &shared) => pumped,
        () = shared.stop.cancelled() => Ok(()),
    };
    let sink = held.or_else(|| shared.idle.take_back());
    if let Err(err) = pumped {
        shared.shutdown(DisconnectReason::Io(err.to_string()));
        return;
    }
    // A local close leaves a peer that may still read what was queued for it, and so does a
    // connection this side ends for a protocol error: the error answer queued just before
    // (an undecodable frame's) is what tells the peer why.
    let Some(mut sink) = sink else { return };
    if matches!(
        shared.reason(),
        Some(
            DisconnectReason::Closed
                | DisconnectReason::Abandoned(_)
                | DisconnectReason::Protocol(_)
        )
    ) {
        let flushed = tokio::time::timeout(CLOSE_FLUSH_TIMEOUT, async {
            while let Some(frame) = next_ready(&mut queue, &mut control) {
                shared.idle.count_taken();
                sink.feed(frame).await?;
            }
            SinkExt::<Bytes>::close(&mut sink).await
        })
        .await;
        match flushed {
            Ok(Ok(())) => {}
            Ok(Err(err)) => tracing::debug!(peer = %shared.name, %err, "flush on close failed"),
            Err(_) => tracing::debug!(peer = %shared.name, "flush on close timed out"),
        }
    }
}

/// Writes frames as they come, batched: every frame already queued is fed to the buffer, and
/// the buffer is flushed once, when the queues are momentarily empty.
///
/// Before that flush the writer yields once: the callers a batch of responses just woke are
/// usually runnable right behind it (Tokio runs a task woken by the running one next), and
/// each queues a request. Yielding lets them do so, and the whole batch then goes out in one
/// write instead of one system call per frame. A yield that brings nothing new flushes. With
/// a single call in flight nobody else can be about to write, so the writer flushes at once:
/// the yield would only add latency.
///
/// Once flushed, the writer lends the sink out while it waits ([`super::direct`]), so that a
/// frame with nothing queued ahead of it is written by its sender at once.
///
/// No frame is ever held across an `await` (room is made before a frame is taken, and
/// `start_send` is synchronous), so when `close()` interrupts this loop every queued frame is
/// still in the queue or in the buffer for the final flush.
async fn pump(
    held: &mut Option<Sink>,
    queue: &mut mpsc::Receiver<Bytes>,
    control: &mut mpsc::UnboundedReceiver<Bytes>,
    shared: &Shared,
) -> io::Result<()> {
    let mut yielded = false;
    loop {
        let sink = in_hand(held)?;
        poll_fn(|cx| SinkExt::<Bytes>::poll_ready_unpin(sink, cx)).await?;
        let frame = match next_ready(queue, control) {
            Some(frame) => frame,
            None if !yielded && !sink.write_buffer().is_empty() && shared.busy() => {
                yielded = true;
                tokio::task::yield_now().await;
                continue;
            }
            None => {
                SinkExt::<Bytes>::flush(sink).await?;
                match wait_for_work(held, queue, control, shared).await {
                    Some(frame) => frame,
                    // Kicked: a direct write left bytes in the buffer; flush them.
                    None => continue,
                }
            }
        };
        // The sink is in hand again, so the frame no longer needs to hold direct writers off.
        shared.idle.count_taken();
        yielded = false;
        in_hand(held)?.start_send_unpin(frame)?;
    }
}

/// Lends the sink out until a frame is queued (returned) or a direct write kicks the writer
/// (`None`); either way the sink is back in `held` when this returns.
async fn wait_for_work(
    held: &mut Option<Sink>,
    queue: &mut mpsc::Receiver<Bytes>,
    control: &mut mpsc::UnboundedReceiver<Bytes>,
    shared: &Shared,
) -> Option<Bytes> {
    if let Some(sink) = held.take() {
        shared.idle.lend(sink);
    }
    // The senders live in `Shared`, which this task holds: the queues never close under it.
    let woken = tokio::select! {
        biased;
        Some(frame) = control.recv() => Some(frame),
        Some(frame) = queue.recv() => Some(frame),
        () = shared.idle.kick.notified() => None,
    };
    *held = shared.idle.take_back();
    woken
}

/// The sink, which the pump always has in hand outside `wait_for_work`.
fn in_hand(held: &mut Option<Sink>) -> io::Result<&mut Sink> {
    held.as_mut()
        .ok_or_else(|| io::Error::other("the writer lost track of its sink"))
}

/// The next frame that is already queued, cancel messages first.
fn next_ready(
    queue: &mut mpsc::Receiver<Bytes>,
    control: &mut mpsc::UnboundedReceiver<Bytes>,
) -> Option<Bytes> {
    control.try_recv().or_else(|_| queue.try_recv()).ok()
}
