use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};
use tokio::net::UnixStream;
use tokio_util::codec::{FramedRead, FramedWrite};

use super::{IdleSink, Sink, Written};
use crate::wire::frame_codec;

/// A socket pair: the sink over one end, frames read from the other.
fn pair() -> (
    Sink,
    FramedRead<UnixStream, tokio_util::codec::LengthDelimitedCodec>,
) {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let ours: Pin<Box<dyn AsyncWrite + Send>> = Box::pin(ours);
    (
        FramedWrite::new(ours, frame_codec()),
        FramedRead::new(theirs, frame_codec()),
    )
}

async fn read_one<R: AsyncRead + Unpin>(
    frames: &mut FramedRead<R, tokio_util::codec::LengthDelimitedCodec>,
) -> Bytes {
    tokio::time::timeout(Duration::from_secs(5), frames.next())
        .await
        .expect("a frame within 5 s")
        .expect("a frame")
        .expect("a readable frame")
        .freeze()
}

#[tokio::test]
async fn a_lent_sink_with_nothing_queued_is_written_at_once() {
    let (sink, mut theirs) = pair();
    let idle = IdleSink::default();
    idle.lend(sink);
    let mut frame = Some(Bytes::from_static(b"one"));
    assert_eq!(idle.write_frame(&mut frame).unwrap(), Written::Done);
    assert_eq!(frame, None);
    let mut more = vec![Bytes::from_static(b"two"), Bytes::from_static(b"three")];
    assert_eq!(idle.write_frames(&mut more).unwrap(), Written::Done);
    assert!(more.is_empty());
    for expected in ["one", "two", "three"] {
        assert_eq!(read_one(&mut theirs).await, expected.as_bytes());
    }
    // Nothing was left in the buffer for the writer.
    assert!(idle.take_back().unwrap().write_buffer().is_empty());
}

#[tokio::test]
async fn nothing_is_written_while_the_writer_has_the_sink_or_frames_are_queued() {
    let (sink, _theirs) = pair();
    let idle = IdleSink::default();
    let mut frame = Some(Bytes::from_static(b"first"));
    assert_eq!(idle.write_frame(&mut frame).unwrap(), Written::NotNow);
    assert_eq!(
        frame.as_deref(),
        Some(&b"first"[..]),
        "the frame is given back"
    );

    idle.lend(sink);
    idle.count_queued();
    assert_eq!(idle.write_frame(&mut frame).unwrap(), Written::NotNow);
    let mut frames = vec![Bytes::from_static(b"a")];
    assert_eq!(idle.write_frames(&mut frames).unwrap(), Written::NotNow);
    assert_eq!(frames.len(), 1, "the frames are left in place");

    idle.count_taken();
    assert_eq!(idle.write_frame(&mut frame).unwrap(), Written::Done);
}

#[tokio::test]
async fn a_write_the_socket_cannot_take_whole_kicks_the_writer_and_holds_later_frames_off() {
    let (sink, mut theirs) = pair();
    let idle = IdleSink::default();
    idle.lend(sink);
    // Far more than a Unix socket buffers, so the flush stops part way.
    let big = Bytes::from(vec![7u8; 4 * 1024 * 1024]);
    let mut frame = Some(big.clone());
    assert_eq!(idle.write_frame(&mut frame).unwrap(), Written::Done);
    tokio::time::timeout(Duration::from_secs(5), idle.kick.notified())
        .await
        .expect("the writer is kicked");
    let mut later = Some(Bytes::from_static(b"later"));
    assert_eq!(
        idle.write_frame(&mut later).unwrap(),
        Written::NotNow,
        "a frame must not be written behind a partly written one"
    );
    // The writer's part: take the sink back and finish with a real waker.
    let mut sink = idle.take_back().unwrap();
    let reading = tokio::spawn(async move {
        let first = read_one(&mut theirs).await;
        let second = read_one(&mut theirs).await;
        (first, second)
    });
    sink.send(later.take().unwrap()).await.unwrap();
    let (first, second) = reading.await.unwrap();
    assert_eq!(first, big);
    assert_eq!(second, &b"later"[..]);
}

#[tokio::test]
async fn a_socket_error_is_returned_to_the_direct_writer() {
    let (sink, theirs) = pair();
    drop(theirs);
    let idle = IdleSink::default();
    idle.lend(sink);
    let mut frame = Some(Bytes::from_static(b"nobody reads this"));
    let err = idle.write_frame(&mut frame).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe, "{err}");
}

#[tokio::test]
async fn a_frame_written_directly_reaches_the_peer_byte_for_byte() {
    let (sink, theirs) = pair();
    let idle = IdleSink::default();
    idle.lend(sink);
    let mut frame = Some(Bytes::from_static(b"\x81\xa1k\xa1v"));
    assert_eq!(idle.write_frame(&mut frame).unwrap(), Written::Done);
    let mut raw = theirs.into_inner();
    let mut wire = [0u8; 9];
    raw.read_exact(&mut wire).await.unwrap();
    assert_eq!(
        &wire, b"\x00\x00\x00\x05\x81\xa1k\xa1v",
        "length prefix, then the body"
    );
}

/// A connection whose every write fails, as a socket whose peer is gone does; reads yield
/// what the test feeds in through [`Feed`], and otherwise wait.
struct BrokenWrites {
    input: Feed,
}

/// The bytes a [`BrokenWrites`] has yet to read, and the reader waiting for more.
#[derive(Clone, Default)]
struct Feed(std::sync::Arc<parking_lot::Mutex<(Vec<u8>, Option<std::task::Waker>)>>);

impl Feed {
    fn push(&self, bytes: &[u8]) {
        let mut input = self.0.lock();
        input.0.extend_from_slice(bytes);
        if let Some(reader) = input.1.take() {
            reader.wake();
        }
    }
}

impl AsyncRead for BrokenWrites {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let mut input = self.input.0.lock();
        if input.0.is_empty() {
            input.1 = Some(cx.waker().clone());
            return std::task::Poll::Pending;
        }
        let n = input.0.len().min(buf.remaining());
        buf.put_slice(&input.0[..n]);
        input.0.drain(..n);
        std::task::Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for BrokenWrites {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        _buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::task::Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into()))
    }

    fn poll_flush(
        self: Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

/// Answers every request with an empty payload, at once.
struct Answers;

impl crate::rpc::RequestHandler for Answers {
    fn handle(
        &self,
        _request: crate::rpc::IncomingMessage,
    ) -> futures::future::BoxFuture<'static, Result<crate::rpc::Payload, crate::rpc::RpcError>>
    {
        Box::pin(async { Ok(crate::rpc::Payload::empty()) })
    }
}

fn broken_peer(input: Feed) -> crate::rpc::RpcPeer {
    crate::rpc::RpcPeer::start(
        BrokenWrites { input },
        std::sync::Arc::new(Answers),
        crate::rpc::PeerConfig::new("broken"),
    )
}

/// Lets the new peer's writer run until it waits for work, its sink lent out.
async fn writer_idle() {
    for _ in 0..8 {
        tokio::task::yield_now().await;
    }
}

async fn reason_within_bound(peer: &crate::rpc::RpcPeer) -> crate::rpc::DisconnectReason {
    tokio::time::timeout(Duration::from_secs(5), peer.closed())
        .await
        .expect("the connection ends within 5 s")
}

#[tokio::test(flavor = "current_thread")]
async fn a_lone_call_written_on_a_broken_socket_fails_and_ends_the_connection() {
    let peer = broken_peer(Feed::default());
    writer_idle().await;
    let called = tokio::time::timeout(
        Duration::from_secs(5),
        peer.call::<_, crate::wire::EmptyPayload>(
            "work",
            "",
            &crate::wire::EmptyPayload {},
            Duration::ZERO,
        ),
    )
    .await
    .expect("the call ends within 5 s, not at its 30 s deadline");
    let err = called.unwrap_err();
    assert_eq!(err.code, crate::wire::ErrorCode::PluginCrashed, "{err}");
    assert!(err.message.contains("connection closed"), "{err}");
    assert!(
        matches!(
            reason_within_bound(&peer).await,
            crate::rpc::DisconnectReason::Io(_)
        ),
        "{:?}",
        peer.disconnect_reason()
    );
}

#[tokio::test(flavor = "current_thread")]
async fn calls_queued_behind_a_broken_socket_all_fail_instead_of_waiting() {
    let peer = broken_peer(Feed::default());
    writer_idle().await;
    let calls = (0..8).map(|_| {
        peer.call::<_, crate::wire::EmptyPayload>(
            "work",
            "",
            &crate::wire::EmptyPayload {},
            Duration::ZERO,
        )
    });
    let results = tokio::time::timeout(Duration::from_secs(5), futures::future::join_all(calls))
        .await
        .expect("every call ends within 5 s");
    for result in results {
        let err = result.unwrap_err();
        assert_eq!(err.code, crate::wire::ErrorCode::PluginCrashed, "{err}");
    }
    assert!(peer.is_closed());
}

#[tokio::test(flavor = "current_thread")]
async fn an_answer_that_cannot_be_written_ends_the_connection() {
    let request = crate::wire::encode_envelope(&crate::wire::Envelope::request(
        1,
        "work",
        "",
        0,
        crate::wire::EmptyPayload {},
    ))
    .unwrap();
    let mut frame = (request.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(&request);
    for writer_waiting in [false, true] {
        let feed = Feed::default();
        let peer = broken_peer(feed.clone());
        if writer_waiting {
            // The reader answers inline and, the writer being idle, writes the answer itself.
            writer_idle().await;
        }
        feed.push(&frame);
        assert!(
            matches!(
                reason_within_bound(&peer).await,
                crate::rpc::DisconnectReason::Io(_)
            ),
            "writer waiting: {writer_waiting}, {:?}",
            peer.disconnect_reason()
        );
    }
}
