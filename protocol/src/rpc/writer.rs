//! The writer task: the only code that writes to the connection.

use std::future::poll_fn;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::SinkExt;
use tokio::io::AsyncWrite;
use tokio::sync::mpsc;
use tokio_util::codec::{FramedWrite, LengthDelimitedCodec};

use super::DisconnectReason;
use super::shared::Shared;

/// How long `close()` lets the writer flush what is queued before it gives up.
const CLOSE_FLUSH_TIMEOUT: Duration = Duration::from_millis(500);

/// Bytes buffered before `feed` writes through even though more frames are queued.
pub(super) const WRITE_BATCH_BYTES: usize = 64 * 1024;

pub(super) async fn run<W: AsyncWrite + Unpin>(
    mut sink: FramedWrite<W, LengthDelimitedCodec>,
    mut queue: mpsc::Receiver<Bytes>,
    mut control: mpsc::UnboundedReceiver<Bytes>,
    shared: Arc<Shared>,
) {
    let pumped = tokio::select! {
        pumped = pump(&mut sink, &mut queue, &mut control, &shared) => pumped,
        () = shared.stop.cancelled() => Ok(()),
    };
    if let Err(err) = pumped {
        shared.shutdown(DisconnectReason::Io(err.to_string()));
        return;
    }
    // Only a local close leaves a peer that may still read what was queued for it.
    if shared.reason() == Some(DisconnectReason::Closed) {
        let flushed = tokio::time::timeout(CLOSE_FLUSH_TIMEOUT, async {
            while let Some(frame) = next_ready(&mut queue, &mut control) {
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
/// No frame is ever held across an `await` (room is made before a frame is taken, and
/// `start_send` is synchronous), so when `close()` interrupts this loop every queued frame is
/// still in the queue or in the buffer for the final flush.
async fn pump<W: AsyncWrite + Unpin>(
    sink: &mut FramedWrite<W, LengthDelimitedCodec>,
    queue: &mut mpsc::Receiver<Bytes>,
    control: &mut mpsc::UnboundedReceiver<Bytes>,
    shared: &Shared,
) -> io::Result<()> {
    let mut yielded = false;
    loop {
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
                tokio::select! {
                    biased;
                    Some(frame) = control.recv() => frame,
                    Some(frame) = queue.recv() => frame,
                    else => return Ok(()),
                }
            }
        };
        yielded = false;
        sink.start_send_unpin(frame)?;
    }
}

/// The next frame that is already queued, cancel messages first.
fn next_ready(
    queue: &mut mpsc::Receiver<Bytes>,
    control: &mut mpsc::UnboundedReceiver<Bytes>,
) -> Option<Bytes> {
    control.try_recv().or_else(|_| queue.try_recv()).ok()
}
