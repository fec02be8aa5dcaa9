//! A Unix stream socket that wakes its reader only for input.
//!
//! Tokio's `UnixStream` registers its socket with the runtime for read and write readiness at
//! once, edge-triggered. A Unix socket signals write readiness whenever the peer *reads*: the
//! bytes it took free room in the send buffer. So every request the host sends comes back as
//! a wake-up when the runner reads it. A fast runner answers within microseconds and the two
//! events arrive together; a slow one (MaiBot's Python runner) reads a request well before it
//! answers, and the host, asleep by then, would be woken twice per call: once for nothing
//! (a context switch in, `epoll_wait`, the runtime's turn, a switch out).
//!
//! [`QuietUnixStream`] registers the socket for read readiness only and writes without asking:
//! a write to a socket with room succeeds at once, which is nearly always. Only when the send
//! buffer is full (the write would block) does it register a duplicate of the descriptor for
//! write readiness, and it drops that registration once a write goes through.

use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use socket2::SockRef;
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

/// A connected Unix stream socket, registered with the Tokio runtime for read readiness only;
/// write readiness is watched only while a write waits for room in the send buffer (see the
/// module documentation).
///
/// Flushing and shutting down are no-ops, as for the local sockets the host accepts: every
/// write goes to the socket at once, and dropping the stream closes it.
///
/// ```
/// use maitool_protocol::rpc::QuietUnixStream;
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # fn main() -> std::io::Result<()> {
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build()?;
/// runtime.block_on(async {
///     let (a, b) = std::os::unix::net::UnixStream::pair()?;
///     let (mut a, mut b) = (QuietUnixStream::new(a)?, QuietUnixStream::new(b)?);
///     a.write_all(b"ping").await?;
///     let mut got = [0; 4];
///     b.read_exact(&mut got).await?;
///     assert_eq!(&got, b"ping");
///     Ok(())
/// })
/// # }
/// ```
#[derive(Debug)]
pub struct QuietUnixStream {
    /// The socket, watched for read readiness.
    socket: AsyncFd<UnixStream>,
    /// A duplicate of its descriptor watched for write readiness, while a write waits.
    write_wait: Option<AsyncFd<UnixStream>>,
}

impl QuietUnixStream {
    /// Takes over `stream`, made non-blocking, and registers it with the current Tokio
    /// runtime (which must have I/O enabled).
    pub fn new(stream: UnixStream) -> io::Result<QuietUnixStream> {
        stream.set_nonblocking(true)?;
        Ok(QuietUnixStream {
            socket: register(stream, Interest::READABLE)?,
            write_wait: None,
        })
    }

    /// Whether a write is waiting for room, with write readiness watched.
    pub fn watches_writes(&self) -> bool {
        self.write_wait.is_some()
    }
}

/// `stream` registered with the current runtime for `interest`.
#[allow(unsafe_code)]
fn register(stream: UnixStream, interest: Interest) -> io::Result<AsyncFd<UnixStream>> {
    // SAFETY: the `AsyncFd` owns `stream`, which owns its descriptor: it stays open, and
    // `as_raw_fd` returns that same descriptor, until the `AsyncFd` is dropped.
    unsafe { AsyncFd::register_with_interest(stream, interest) }.map_err(io::Error::from)
}

impl AsFd for QuietUnixStream {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.socket.get_ref().as_fd()
    }
}

impl AsyncRead for QuietUnixStream {
    // Reads into the buffer's uninitialized part, as Tokio's own sockets do: initializing it
    // first would write up to the codec's whole spare capacity (kilobytes) for every read.
    #[allow(unsafe_code)]
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            let mut guard = ready!(this.socket.poll_read_ready(cx))?;
            // SAFETY: `recv` only writes into the slice, never de-initializes it.
            let unfilled = unsafe { buf.unfilled_mut() };
            let room = unfilled.len();
            match guard.try_io(|socket| SockRef::from(socket.get_ref()).recv(unfilled)) {
                Ok(Ok(read)) => {
                    // Less than there was room for: the socket is drained, so the next read
                    // waits for the next edge instead of asking the socket again only to hear
                    // `EAGAIN` (a system call per frame). Data that arrived meanwhile has
                    // already set readiness again, which clearing the older event keeps.
                    if read > 0 && read < room {
                        guard.clear_ready();
                    }
                    // SAFETY: `recv` initialized the first `read` bytes of the unfilled part.
                    unsafe { buf.assume_init(read) };
                    buf.advance(read);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(err)) => return Poll::Ready(Err(err)),
                // Not readable after all: the readiness is cleared; wait for the next edge.
                Err(_would_block) => {}
            }
        }
    }
}

impl AsyncWrite for QuietUnixStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        loop {
            let Some(wait) = &this.write_wait else {
                match this.socket.get_ref().write(data) {
                    Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                        // Registered now, the duplicate reports readiness at once if room
                        // appeared in between, so no edge is missed.
                        let duplicate = this.socket.get_ref().try_clone()?;
                        this.write_wait = Some(register(duplicate, Interest::WRITABLE)?);
                        continue;
                    }
                    written => return Poll::Ready(written),
                }
            };
            let mut guard = ready!(wait.poll_write_ready(cx))?;
            match guard.try_io(|socket| socket.get_ref().write(data)) {
                Ok(written) => {
                    drop(guard);
                    // Deregistered and closed: the socket is quiet again.
                    this.write_wait = None;
                    return Poll::Ready(written);
                }
                Err(_would_block) => {}
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests;
