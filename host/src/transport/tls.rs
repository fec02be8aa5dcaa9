//! The host's TLS 1.3 settings for runner connections, read from PEM files for every
//! connection, so that a rotated certificate or CA needs no restart.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::RootCertStore;
use rustls::server::WebPkiClientVerifier;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;

/// A PEM file that could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TlsFileError {
    #[error("cannot read the certificates in {path}")]
    Certificates {
        path: PathBuf,
        #[source]
        source: rustls_pki_types::pem::Error,
    },
    #[error("{path} holds no certificate")]
    NoCertificate { path: PathBuf },
    #[error("cannot read the private key in {path}")]
    Key {
        path: PathBuf,
        #[source]
        source: rustls_pki_types::pem::Error,
    },
    #[error("the client CA file {path} is not usable")]
    ClientCa {
        path: PathBuf,
        #[source]
        source: rustls::Error,
    },
    #[error("the client CA file {path} gives no usable verifier")]
    Verifier {
        path: PathBuf,
        #[source]
        source: rustls::server::VerifierBuilderError,
    },
    #[error("the certificate {cert} and key {key} do not make a TLS 1.3 server")]
    Server {
        cert: PathBuf,
        key: PathBuf,
        #[source]
        source: rustls::Error,
    },
}

/// Where the host's certificate, its key and the CA its clients' certificates must chain to
/// are. Without a client CA, clients present no certificate (loopback only: the
/// configuration refuses it elsewhere).
#[derive(Debug, Clone)]
pub(crate) struct ServerTls {
    pub cert_file: PathBuf,
    pub key_file: PathBuf,
    pub client_ca_file: Option<PathBuf>,
}

/// The one crypto provider: ring. rustls 0.23.48 deprecates it for lacking post-quantum key
/// exchange (X25519MLKEM768); aws-lc-rs, which has it, builds a large C library with every
/// clean build. Runner connections stay inside one deployment, so classical key exchange is
/// kept until ring gains ML-KEM or the build can afford aws-lc-rs.
#[allow(deprecated)]
pub(crate) fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Every certificate in a PEM file, at least one.
pub(crate) fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsFileError> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|source| TlsFileError::Certificates {
            path: path.to_owned(),
            source,
        })?;
    if certs.is_empty() {
        return Err(TlsFileError::NoCertificate {
            path: path.to_owned(),
        });
    }
    Ok(certs)
}

/// The first private key in a PEM file.
pub(crate) fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsFileError> {
    PrivateKeyDer::from_pem_file(path).map_err(|source| TlsFileError::Key {
        path: path.to_owned(),
        source,
    })
}

impl ServerTls {
    /// An acceptor from the files as they are now: TLS 1.3 only, client certificates
    /// required when a client CA is set.
    pub(crate) fn acceptor(&self) -> Result<TlsAcceptor, TlsFileError> {
        let certs = certificates(&self.cert_file)?;
        let key = private_key(&self.key_file)?;
        let server_error = |source| TlsFileError::Server {
            cert: self.cert_file.clone(),
            key: self.key_file.clone(),
            source,
        };
        let builder = rustls::ServerConfig::builder_with_provider(provider())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(server_error)?;
        let builder = match &self.client_ca_file {
            Some(ca) => {
                let mut roots = RootCertStore::empty();
                for cert in certificates(ca)? {
                    roots.add(cert).map_err(|source| TlsFileError::ClientCa {
                        path: ca.clone(),
                        source,
                    })?;
                }
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
                        .build()
                        .map_err(|source| TlsFileError::Verifier {
                            path: ca.clone(),
                            source,
                        })?;
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let config = builder.with_single_cert(certs, key).map_err(server_error)?;
        Ok(TlsAcceptor::from(Arc::new(config)))
    }
}
