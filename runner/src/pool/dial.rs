//! Reaching a host: every address of every name, then TCP, then TLS 1.3 (or plain TCP to a
//! loopback address only), with the token and certificates read from their files now, and
//! the TLS connection's keying material exported for the token proof.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use maitool_protocol::pool_token::{
    BINDING_LEN, EXPORTER_LABEL, NONCE_LEN, ProofContext, TokenProof, TokenProofError,
};
use rustls::RootCertStore;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use super::env::MemberEnv;

/// How long one TCP connect and TLS handshake may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection to a host, whatever carries it.
pub(crate) trait HostIo: AsyncRead + AsyncWrite + Send + Unpin + 'static {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> HostIo for T {}

/// Why a host could not be reached.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DialError {
    #[error("cannot read the pool token from {path}")]
    Token {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the pool token file {path} is empty")]
    EmptyToken { path: PathBuf },
    #[error("cannot prove the pool token of {path}")]
    Proof {
        path: PathBuf,
        #[source]
        source: TokenProofError,
    },
    #[error("no randomness for the token proof's nonce: {0}")]
    Random(String),
    #[error(
        "refusing plain TCP to {addr}: set MAITOOL_POOL_CA_FILE for TLS (plain TCP is for loopback addresses only)"
    )]
    PlainOffLoopback { addr: SocketAddr },
    #[error("cannot read {what} from {path}")]
    Pem {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: rustls_pki_types::pem::Error,
    },
    #[error("{path} holds no certificate")]
    NoCertificate { path: PathBuf },
    #[error("TLS settings rejected")]
    Tls(#[source] rustls::Error),
    #[error("{name:?} is not a valid server name for TLS")]
    ServerName { name: String },
    #[error("cannot connect to {addr}")]
    Connect {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("TLS handshake with {addr} failed")]
    Handshake {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("no connection to {addr} within {} s", CONNECT_TIMEOUT.as_secs())]
    Timeout { addr: SocketAddr },
}

/// Every address of every `host:port` (a name may have several); each with the name a TLS
/// certificate must be valid for. A name that does not resolve is logged and skipped.
pub(crate) async fn resolve_all(hosts: &[String]) -> Vec<(SocketAddr, String)> {
    let mut all = Vec::new();
    for host in hosts {
        match tokio::net::lookup_host(host.as_str()).await {
            Ok(addresses) => {
                let name = host_part(host);
                for addr in addresses {
                    if !all.iter().any(|(known, _)| *known == addr) {
                        all.push((addr, name.clone()));
                    }
                }
            }
            Err(err) => tracing::warn!(host = %host, "cannot resolve the host: {err}"),
        }
    }
    all
}

/// `name` of `name:port`, `[::1]:port` or a bare name.
fn host_part(host: &str) -> String {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    };
    name.trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned()
}

/// A connection to a host, and the proof of the pool token bound to it.
pub(crate) struct Dialled {
    pub stream: Box<dyn HostIo>,
    pub token_proof: TokenProof,
}

/// Connects to `addr` (TLS when the member has a CA file) and proves the pool token, read
/// from its file now, for this connection.
pub(crate) async fn connect(
    env: &MemberEnv,
    addr: SocketAddr,
    server_name: &str,
) -> Result<Dialled, DialError> {
    let token = read_token(&env.token_file)?;
    let connector = match &env.ca_file {
        Some(ca) => Some(connector(ca, env.client_cert.as_ref())?),
        None if addr.ip().is_loopback() => None,
        None => return Err(DialError::PlainOffLoopback { addr }),
    };
    let connecting = async {
        let tcp = TcpStream::connect(addr)
            .await
            .map_err(|source| DialError::Connect { addr, source })?;
        let _ = tcp.set_nodelay(true);
        let Some(connector) = connector else {
            return Ok((Box::new(tcp) as Box<dyn HostIo>, None));
        };
        let name = env.server_name.as_deref().unwrap_or(server_name).to_owned();
        let server =
            ServerName::try_from(name.clone()).map_err(|_| DialError::ServerName { name })?;
        let stream = connector
            .connect(server, tcp)
            .await
            .map_err(|source| DialError::Handshake { addr, source })?;
        let binding = stream
            .get_ref()
            .1
            .export_keying_material([0u8; BINDING_LEN], EXPORTER_LABEL, None)
            .map_err(DialError::Tls)?;
        Ok((Box::new(stream) as Box<dyn HostIo>, Some(binding)))
    };
    let (stream, binding) = tokio::time::timeout(CONNECT_TIMEOUT, connecting)
        .await
        .map_err(|_| DialError::Timeout { addr })??;
    let context = ProofContext::new(
        &env.pool,
        &env.member,
        now_ms(),
        nonce()?,
        binding.as_ref().map(|b| b.as_slice()),
    );
    let token_proof = TokenProof::new(&token, &context).map_err(|source| DialError::Proof {
        path: env.token_file.clone(),
        source,
    })?;
    Ok(Dialled {
        stream,
        token_proof,
    })
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|since| since.as_millis() as u64)
        .unwrap_or_default()
}

fn nonce() -> Result<[u8; NONCE_LEN], DialError> {
    let mut nonce = [0u8; NONCE_LEN];
    getrandom::fill(&mut nonce).map_err(|err| DialError::Random(err.to_string()))?;
    Ok(nonce)
}

fn read_token(path: &Path) -> Result<String, DialError> {
    let token = std::fs::read_to_string(path).map_err(|source| DialError::Token {
        path: path.to_owned(),
        source,
    })?;
    let token = token.trim();
    if token.is_empty() {
        return Err(DialError::EmptyToken {
            path: path.to_owned(),
        });
    }
    Ok(token.to_owned())
}

fn certificates(
    path: &Path,
    what: &'static str,
) -> Result<Vec<CertificateDer<'static>>, DialError> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|source| DialError::Pem {
            what,
            path: path.to_owned(),
            source,
        })?;
    if certs.is_empty() {
        return Err(DialError::NoCertificate {
            path: path.to_owned(),
        });
    }
    Ok(certs)
}

/// A TLS 1.3 connector from the files as they are now.
fn connector(
    ca: &Path,
    client_cert: Option<&(PathBuf, PathBuf)>,
) -> Result<tokio_rustls::TlsConnector, DialError> {
    let mut roots = RootCertStore::empty();
    for cert in certificates(ca, "the host's certificate authorities")? {
        roots.add(cert).map_err(DialError::Tls)?;
    }
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(DialError::Tls)?
        .with_root_certificates(roots);
    let config = match client_cert {
        Some((cert, key)) => {
            let chain = certificates(cert, "the member's certificate")?;
            let key = PrivateKeyDer::from_pem_file(key).map_err(|source| DialError::Pem {
                what: "the member's private key",
                path: key.clone(),
                source,
            })?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(DialError::Tls)?
        }
        None => builder.with_no_client_auth(),
    };
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// ring, as the host uses (see the host's `transport/tls.rs` for why not aws-lc-rs).
#[allow(deprecated)]
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}
