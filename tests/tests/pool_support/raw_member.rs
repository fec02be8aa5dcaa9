//! A pool member spoken by hand on the wire: the test controls its exact `runner.hello`
//! bytes, to send one twice, on another connection, or with a proof made otherwise.

use std::sync::Arc;

use maitool_protocol::pool_token::{BINDING_LEN, EXPORTER_LABEL, ProofContext, TokenProof};
use maitool_protocol::wire::methods::{HelloPayload, HelloResponsePayload, names};
use maitool_protocol::wire::{Envelope, decode_payload, encode_envelope};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use super::Pki;

/// A connection's byte stream.
pub trait Io: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// One connection to the pool's address.
pub struct RawMember {
    stream: Box<dyn Io>,
    /// The TLS binding both ends export; `None` on plain TCP.
    pub binding: Option<[u8; BINDING_LEN]>,
}

impl RawMember {
    /// Connects, over TLS with the member certificate of `pki` when given.
    pub async fn connect(addr: &str, pki: Option<&Pki>) -> RawMember {
        let tcp = TcpStream::connect(addr).await.expect("connect to the pool");
        let Some(pki) = pki else {
            return RawMember {
                stream: Box::new(tcp),
                binding: None,
            };
        };
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_file_iter(&pki.ca).unwrap() {
            roots.add(cert.unwrap()).unwrap();
        }
        let chain: Vec<_> = CertificateDer::pem_file_iter(&pki.client_cert)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let key = PrivateKeyDer::from_pem_file(&pki.client_key).unwrap();
        // ring, as the host and the runner use.
        #[allow(deprecated)]
        let provider = rustls::crypto::ring::default_provider();
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[&rustls::version::TLS13])
            .unwrap()
            .with_root_certificates(roots)
            .with_client_auth_cert(chain, key)
            .unwrap();
        let stream = tokio_rustls::TlsConnector::from(Arc::new(config))
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .expect("TLS handshake");
        let binding = stream
            .get_ref()
            .1
            .export_keying_material([0u8; BINDING_LEN], EXPORTER_LABEL, None)
            .unwrap();
        RawMember {
            stream: Box::new(stream),
            binding: Some(binding),
        }
    }

    /// A proof of `token` for member `member` of pool `p1` on this connection, issued
    /// `age_ms` ago.
    pub fn prove(&self, token: &str, member: &str, age_ms: u64) -> TokenProof {
        let mut nonce = [0u8; 16];
        distinct_nonce(&mut nonce);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let context = ProofContext::new(
            "p1",
            member,
            now - age_ms,
            nonce,
            self.binding.as_ref().map(|b| b.as_slice()),
        );
        TokenProof::new(token, &context).unwrap()
    }

    /// Sends the frame `body` and reads the host's answer to it.
    pub async fn hello(&mut self, body: &[u8]) -> HelloResponsePayload {
        let mut frame = (body.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(body);
        self.stream.write_all(&frame).await.unwrap();
        let mut len = [0u8; 4];
        self.stream
            .read_exact(&mut len)
            .await
            .expect("the host answers the hello");
        let mut answer = vec![0u8; u32::from_be_bytes(len) as usize];
        self.stream.read_exact(&mut answer).await.unwrap();
        decode_payload(&answer).unwrap()
    }
}

/// The encoded `runner.hello` of member `member` of pool `p1`.
pub fn hello_frame(member: &str, proof: Option<TokenProof>, clear_token: &str) -> Vec<u8> {
    let hello = HelloPayload {
        runner_id: member.into(),
        sdk_version: "1.0.0".into(),
        session_token: clear_token.into(),
        protocol_versions: vec!["1.0.0".into()],
        pid: std::process::id(),
        reads_context: true,
        pool: "p1".into(),
        member: member.into(),
        token_proof: proof,
        ..Default::default()
    };
    encode_envelope(&Envelope::request(1, names::HELLO, "", 10_000, hello))
        .unwrap()
        .to_vec()
}

/// Distinct nonces without another dependency: the time and a counter, hashed.
fn distinct_nonce(nonce: &mut [u8; 16]) {
    use sha2::Digest;
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seed = format!(
        "{:?}-{}-{}",
        std::time::SystemTime::now(),
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    nonce.copy_from_slice(&sha2::Sha256::digest(seed.as_bytes())[..16]);
}
