use std::future::Future;
use std::io::Read;
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::sync::mpsc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::QuietUnixStream;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn bytes_go_both_ways_and_a_closed_peer_reads_as_the_end() {
    runtime().block_on(async {
        let (a, b) = UnixStream::pair().unwrap();
        let (mut a, mut b) = (
            QuietUnixStream::new(a).unwrap(),
            QuietUnixStream::new(b).unwrap(),
        );
        a.write_all(b"request").await.unwrap();
        let mut got = [0; 7];
        b.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"request");
        b.write_all(b"answer").await.unwrap();
        drop(b);
        let mut rest = Vec::new();
        a.read_to_end(&mut rest).await.unwrap();
        assert_eq!(rest, b"answer");
    });
}

/// How many times the thread `/proc/self/task/<tid>` has been switched out.
fn context_switches(tid: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/self/task/{tid}/status")).unwrap();
    status
        .lines()
        .filter(|line| line.contains("ctxt_switches"))
        .map(|line| {
            line.split_whitespace()
                .last()
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum()
}

/// Starts a current-thread runtime on a thread of its own that writes `chunks` frames of 64
/// bytes to its end of a socket pair (made into a stream by `wrap`), then waits for input that
/// never comes; returns that thread's id and the other end. While it waits, the caller reads
/// the chunks one at a time, each read freeing room in the runtime side's send buffer.
fn idle_writer<S>(
    chunks: usize,
    wrap: fn(UnixStream) -> S,
) -> (String, UnixStream, std::thread::JoinHandle<()>)
where
    S: AsyncRead + AsyncWrite + Unpin + 'static,
{
    let (ours, theirs) = UnixStream::pair().unwrap();
    let (ready_tx, ready_rx) = mpsc::channel();
    let thread = std::thread::spawn(move || {
        let tid = std::fs::read_link("/proc/thread-self").unwrap();
        let tid = tid.file_name().unwrap().to_string_lossy().into_owned();
        runtime().block_on(async move {
            let mut stream = wrap(ours);
            for _ in 0..chunks {
                stream.write_all(&[7; 64]).await.unwrap();
            }
            ready_tx.send(tid).unwrap();
            // Parked in the runtime until the peer closes its end.
            let mut byte = [0];
            let _ = stream.read(&mut byte).await;
        });
    });
    let tid = ready_rx.recv().unwrap();
    (tid, theirs, thread)
}

/// The wake-ups of a runtime waiting for input while its peer reads `chunks` frames it wrote.
fn wakeups_while_the_peer_reads<S>(wrap: fn(UnixStream) -> S) -> u64
where
    S: AsyncRead + AsyncWrite + Unpin + 'static,
{
    const CHUNKS: usize = 20;
    let (tid, mut theirs, thread) = idle_writer(CHUNKS, wrap);
    // Let the runtime thread settle into its wait.
    std::thread::sleep(Duration::from_millis(50));
    let before = context_switches(&tid);
    for _ in 0..CHUNKS {
        let mut chunk = [0; 64];
        theirs.read_exact(&mut chunk).unwrap();
        // Apart, so that no two reads' wake-ups merge into one.
        std::thread::sleep(Duration::from_millis(5));
    }
    let wakeups = context_switches(&tid) - before;
    drop(theirs);
    thread.join().unwrap();
    wakeups
}

#[test]
fn a_peer_reading_what_was_written_does_not_wake_the_waiting_runtime() {
    let quiet = wakeups_while_the_peer_reads(|socket| QuietUnixStream::new(socket).unwrap());
    assert!(quiet <= 2, "{quiet} wake-ups while the peer read 20 frames");
    // What the stream is for: Tokio's own stream wakes the runtime for every read.
    let tokio_stream = wakeups_while_the_peer_reads(|socket| {
        socket.set_nonblocking(true).unwrap();
        tokio::net::UnixStream::from_std(socket).unwrap()
    });
    assert!(
        tokio_stream >= 10,
        "Tokio's stream: {tokio_stream} wake-ups while the peer read 20 frames"
    );
}

#[test]
fn a_write_that_finds_the_buffer_full_waits_for_room_and_then_stops_watching() {
    runtime().block_on(async {
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let mut ours = QuietUnixStream::new(ours).unwrap();
        let big: Vec<u8> = (0..8 << 20).map(|i| (i % 251) as u8).collect();
        let mut write = Box::pin(ours.write_all(&big));
        // Polled until the socket's buffer is full and the write waits.
        let waker = futures::task::noop_waker();
        let pending = Pin::new(&mut write)
            .as_mut()
            .poll(&mut std::task::Context::from_waker(&waker));
        assert!(pending.is_pending(), "8 MiB fit in the socket's buffer");
        let reader = std::thread::spawn(move || {
            let mut received = Vec::new();
            theirs.read_to_end(&mut received).unwrap();
            received
        });
        write.await.unwrap();
        assert!(
            !ours.watches_writes(),
            "still watching write readiness after the write finished"
        );
        // A write that fits needs no watching at all.
        ours.write_all(b"tail").await.unwrap();
        assert!(!ours.watches_writes());
        drop(ours);
        let received = tokio::task::spawn_blocking(move || reader.join().unwrap())
            .await
            .unwrap();
        assert_eq!(received.len(), big.len() + 4);
        assert!(received[..big.len()] == big[..] && received.ends_with(b"tail"));
    });
}

#[test]
fn a_write_waiting_for_room_watches_write_readiness() {
    runtime().block_on(async {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let mut ours = QuietUnixStream::new(ours).unwrap();
        let block = vec![0u8; 1 << 20];
        let waker = futures::task::noop_waker();
        let mut cx = std::task::Context::from_waker(&waker);
        // Fill the buffer: writes succeed until one would block.
        while let std::task::Poll::Ready(written) = Pin::new(&mut ours).poll_write(&mut cx, &block)
        {
            assert!(written.unwrap() > 0);
        }
        assert!(ours.watches_writes());
        drop(theirs);
    });
}

#[test]
fn a_write_waiting_for_room_fails_when_the_peer_closes() {
    // The peer's close must wake a write parked on the duplicate's write readiness, with the
    // socket's own error, not leave it waiting for room that never comes.
    runtime().block_on(async {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let mut ours = QuietUnixStream::new(ours).unwrap();
        let big = vec![0u8; 8 << 20];
        let mut write = Box::pin(ours.write_all(&big));
        let waker = futures::task::noop_waker();
        let pending = write
            .as_mut()
            .poll(&mut std::task::Context::from_waker(&waker));
        assert!(pending.is_pending(), "8 MiB fit in the socket's buffer");
        let closer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            drop(theirs);
        });
        let err = tokio::time::timeout(Duration::from_secs(10), write)
            .await
            .expect("a write left waiting after the peer closed")
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
        closer.join().unwrap();
    });
}

#[test]
fn a_write_to_a_closed_peer_fails() {
    runtime().block_on(async {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let mut ours = QuietUnixStream::new(ours).unwrap();
        drop(theirs);
        let err = ours.write_all(b"lost").await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
    });
}

#[test]
fn frames_written_while_the_reader_drains_the_socket_all_arrive() {
    // Each short read clears the read readiness; bytes that arrive meanwhile must still wake
    // the reader, or it would wait forever with data in the socket.
    let (ours, mut theirs) = UnixStream::pair().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let mut sent = Vec::new();
        for i in 0..400u32 {
            let frame: Vec<u8> = (0..(i % 97 + 1)).map(|b| (b + i) as u8).collect();
            theirs.write_all(&frame).unwrap();
            sent.extend_from_slice(&frame);
            if i % 8 == 0 {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        sent
    });
    let received = runtime().block_on(async move {
        let mut ours = QuietUnixStream::new(ours).unwrap();
        let mut received = Vec::new();
        let mut chunk = [0; 37];
        loop {
            let read = tokio::time::timeout(Duration::from_secs(10), ours.read(&mut chunk))
                .await
                .expect("a reader left waiting with bytes in the socket")
                .unwrap();
            if read == 0 {
                break received;
            }
            received.extend_from_slice(&chunk[..read]);
        }
    });
    assert_eq!(received, writer.join().unwrap());
}
