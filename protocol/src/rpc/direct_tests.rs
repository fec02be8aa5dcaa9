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
