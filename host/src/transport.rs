//! The byte streams runners reach the host over, besides the Unix socket of the runners the
//! host launches (`plugin/listener.rs`): TCP, plain on loopback only, else TLS 1.3 with
//! client certificates (`tls.rs`). What rides on them is the same framed MessagePack RPC:
//! [`RunnerIo`] is all the RPC peer needs.

use std::net::SocketAddr;
use std::time::Duration;

use maitool_protocol::pool_token::{BINDING_LEN, EXPORTER_LABEL};
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
    /// The finished TLS connection exported no keying material (not TLS 1.3).
    #[error("cannot export keying material from the TLS connection with {peer}")]
    Export {
        peer: SocketAddr,
        #[source]
        source: rustls::Error,
    },
    /// The TLS handshake took longer than the limit.
    #[error("no TLS handshake from {peer} within {} ms", .limit.as_millis())]
    HandshakeTimeout { peer: SocketAddr, limit: Duration },
}

/// An accepted runner connection.
pub(crate) struct Accepted {
    pub stream: Box<dyn RunnerIo>,
    /// The TLS connection's keying material exported for the pool token proof (the
    /// protocol's `pool_token`); `None` on plain TCP.
    pub binding: Option<[u8; BINDING_LEN]>,
}

/// Turns an accepted TCP connection into a runner stream: through a TLS 1.3 handshake when
/// `tls` is set (its files read now, so a rotated certificate serves the next connection),
/// else as it is, from a loopback peer only.
pub(crate) async fn accept(
    tcp: TcpStream,
    peer: SocketAddr,
    tls: Option<&ServerTls>,
    limit: Duration,
) -> Result<Accepted, AcceptError> {
    let _ = tcp.set_nodelay(true);
    let Some(tls) = tls else {
        if !peer.ip().is_loopback() {
            return Err(AcceptError::PlainOffLoopback { peer });
        }
        return Ok(Accepted {
            stream: Box::new(tcp),
            binding: None,
        });
    };
    let acceptor = tls.acceptor().map_err(AcceptError::Files)?;
    let stream = match tokio::time::timeout(limit, acceptor.accept(tcp)).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(source)) => return Err(AcceptError::Handshake { peer, source }),
        Err(_) => return Err(AcceptError::HandshakeTimeout { peer, limit }),
    };
    let binding = stream
        .get_ref()
        .1
        .export_keying_material([0u8; BINDING_LEN], EXPORTER_LABEL, None)
        .map_err(|source| AcceptError::Export { peer, source })?;
    Ok(Accepted {
        stream: Box::new(stream),
        binding: Some(binding),
    })
}
