//! The byte streams runners reach the host over, besides the Unix socket of the runners the
//! host launches (`plugin/listener.rs`): TCP, plain on loopback only, else TLS 1.3 with
//! client certificates (`tls.rs`). What rides on them is the same framed MessagePack RPC:
//! [`RunnerIo`] is all the RPC peer needs.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

mod tls;

pub(crate) use tls::{ServerTls, TlsFileError};

/// A runner connection's byte stream, whatever carries it.
pub(crate) trait RunnerIo: AsyncRead + AsyncWrite + Send + Unpin + 'static {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> RunnerIo for T {}

/// Why an accepted TCP connection did not become a runner stream.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AcceptError {
    /// Plain TCP from another machine: only loopback may skip TLS.
    #[error("plain TCP from {peer} refused: only loopback connections may skip TLS")]
    PlainOffLoopback { peer: SocketAddr },
    /// The TLS files could not be read now (they are re-read for every connection).
    #[error("cannot load the TLS files")]
    Files(#[source] TlsFileError),
    /// The TLS handshake failed (a wrong certificate, no certificate, not TLS at all).
    #[error("TLS handshake with {peer} failed")]
    Handshake {
        peer: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    /// The TLS handshake took longer than the limit.
    #[error("no TLS handshake from {peer} within {} ms", .limit.as_millis())]
    HandshakeTimeout { peer: SocketAddr, limit: Duration },
}

/// Turns an accepted TCP connection into a runner stream: through a TLS 1.3 handshake when
/// `tls` is set (its files read now, so a rotated certificate serves the next connection),
/// else as it is, from a loopback peer only.
pub(crate) async fn accept(
    tcp: TcpStream,
    peer: SocketAddr,
    tls: Option<&ServerTls>,
    limit: Duration,
) -> Result<Box<dyn RunnerIo>, AcceptError> {
    let _ = tcp.set_nodelay(true);
    let Some(tls) = tls else {
        if !peer.ip().is_loopback() {
            return Err(AcceptError::PlainOffLoopback { peer });
        }
        return Ok(Box::new(tcp));
    };
    let acceptor = tls.acceptor().map_err(AcceptError::Files)?;
    match tokio::time::timeout(limit, acceptor.accept(tcp)).await {
        Ok(Ok(stream)) => Ok(Box::new(stream)),
        Ok(Err(source)) => Err(AcceptError::Handshake { peer, source }),
        Err(_) => Err(AcceptError::HandshakeTimeout { peer, limit }),
    }
}
