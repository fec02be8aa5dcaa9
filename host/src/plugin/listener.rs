//! The host's Unix socket: a private directory, one listener, and the `runner.hello`
//! handshake that binds each connection to the runner launch that owns its token.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use interprocess::local_socket::tokio::Stream;
use interprocess::local_socket::tokio::prelude::*;
use interprocess::local_socket::{GenericFilePath, ListenerOptions, ToFsName};
use maitool_protocol::rpc::QuietUnixStream;
use maitool_protocol::wire::methods::{HelloPayload, HelloResponsePayload, PluginBootstrap};
use maitool_protocol::wire::{Envelope, EnvelopeHeader, SUPPORTED_PROTOCOL_VERSIONS, frame_codec};
use parking_lot::Mutex;
use tokio::sync::oneshot;

use tokio_util::codec::{Framed, LengthDelimitedCodec};

use super::hello::{AnswerError, Hello, HelloError, chosen_version, read_hello, send};

/// Why a connection was refused at its handshake; logged by the host (the runner, when it
/// can be answered, gets its own reason on the wire).
#[derive(Debug, thiserror::Error)]
pub(crate) enum HandshakeError {
    #[error(transparent)]
    Hello(#[from] HelloError),
    #[error("{reason} (runner_id {runner_id}, pid {pid})")]
    Token {
        reason: &'static str,
        runner_id: String,
        pid: u32,
    },
    #[error("runner {0} already has an active connection")]
    AlreadyConnected(String),
    #[error(
        "runner {runner}: unsupported protocol versions {offered:?}; this host speaks {SUPPORTED_PROTOCOL_VERSIONS:?}"
    )]
    Unsupported {
        runner: String,
        offered: Vec<String>,
    },
    #[error("runner {runner}")]
    Answer {
        runner: String,
        #[source]
        source: AnswerError,
    },
    #[error("runner {0} connected after its launch was abandoned")]
    Abandoned(String),
}

/// A handshaken connection, handed to the supervisor that launched the runner.
pub(crate) type RunnerFramed = Framed<QuietUnixStream, LengthDelimitedCodec>;

/// What the accept loop hands to the supervisor.
pub(crate) struct Connected {
    pub framed: RunnerFramed,
    pub hello: HelloPayload,
}

/// A launch waiting for its runner to connect.
struct PendingLaunch {
    runner: String,
    bootstrap: std::collections::BTreeMap<String, PluginBootstrap>,
    sender: Option<oneshot::Sender<Connected>>,
}

/// The outcome of presenting a token.
enum Claim {
    Unknown,
    AlreadyConnected(String),
    Launch {
        runner: String,
        bootstrap: std::collections::BTreeMap<String, PluginBootstrap>,
        sender: oneshot::Sender<Connected>,
    },
}

/// The registry of launch tokens, shared between supervisors and the accept loop.
#[derive(Default)]
pub(crate) struct Launches {
    pending: Mutex<HashMap<String, PendingLaunch>>,
    /// The last handshake rejection per runner, so a supervisor can report it.
    rejections: Mutex<HashMap<String, String>>,
}

impl Launches {
    /// Registers a fresh token for `runner`; the connection presenting it is sent to the
    /// returned receiver.
    pub(crate) fn expect(
        &self,
        token: String,
        runner: &str,
        bootstrap: std::collections::BTreeMap<String, PluginBootstrap>,
    ) -> oneshot::Receiver<Connected> {
        let (sender, receiver) = oneshot::channel();
        self.pending.lock().insert(
            token,
            PendingLaunch {
                runner: runner.to_owned(),
                bootstrap,
                sender: Some(sender),
            },
        );
        receiver
    }

    /// Takes the connection slot of the launch that owns `token`.
    fn claim(&self, token: &str) -> Claim {
        let mut pending = self.pending.lock();
        match pending.get_mut(token) {
            None => Claim::Unknown,
            Some(launch) => match launch.sender.take() {
                None => Claim::AlreadyConnected(launch.runner.clone()),
                Some(sender) => Claim::Launch {
                    runner: launch.runner.clone(),
                    bootstrap: launch.bootstrap.clone(),
                    sender,
                },
            },
        }
    }

    /// Forgets a launch's token (its runner exited or was replaced).
    pub(crate) fn forget(&self, token: &str) {
        self.pending.lock().remove(token);
    }

    /// The last handshake rejection of `runner`, if any.
    pub(crate) fn take_rejection(&self, runner: &str) -> Option<String> {
        self.rejections.lock().remove(runner)
    }
}

/// The listening socket in its private directory.
pub(crate) struct SocketListener {
    pub path: PathBuf,
    /// Removed (with the socket) when the listener is dropped.
    _dir: tempfile::TempDir,
}

impl SocketListener {
    /// Binds `host.sock` in a fresh 0700 directory under `parent` (default: the system temp
    /// directory), chmods it 0600, and starts accepting.
    pub(crate) fn start(
        parent: Option<&Path>,
        launches: Arc<Launches>,
        handshake_timeout: Duration,
    ) -> std::io::Result<SocketListener> {
        let parent = parent
            .map(Path::to_path_buf)
            .unwrap_or_else(std::env::temp_dir);
        std::fs::create_dir_all(&parent)?;
        // tempfile creates the directory with mode 0700 on Unix.
        let dir = tempfile::Builder::new()
            .prefix("maitool-")
            .tempdir_in(&parent)?;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))?;
        let path = dir.path().join("host.sock");
        if path.as_os_str().len() >= 104 {
            return Err(std::io::Error::other(format!(
                "socket path {} is too long for a Unix socket; set host.socket_dir to a shorter directory",
                path.display()
            )));
        }
        let name = path.as_path().to_fs_name::<GenericFilePath>()?;
        let listener = ListenerOptions::new().name(name).create_tokio()?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        tokio::spawn(accept_loop(listener, launches, handshake_timeout));
        Ok(SocketListener { path, _dir: dir })
    }
}

async fn accept_loop(
    listener: interprocess::local_socket::tokio::Listener,
    launches: Arc<Launches>,
    handshake_timeout: Duration,
) {
    loop {
        match listener.accept().await.and_then(quiet) {
            Ok(stream) => {
                let launches = launches.clone();
                tokio::spawn(async move {
                    let framed = Framed::new(stream, frame_codec());
                    if let Err(reason) = handshake(framed, &launches, handshake_timeout).await {
                        tracing::warn!(
                            "runner connection rejected: {}",
                            crate::error_text::chain(&reason)
                        );
                    }
                });
            }
            Err(err) => {
                tracing::error!("plugin socket accept failed: {err}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// The accepted connection re-registered as a [`QuietUnixStream`]: a runner reading a request
/// must not wake the host, which waits for the answer (a slow runner reads a request well
/// before it answers, and that wake-up would be for nothing).
fn quiet(stream: Stream) -> std::io::Result<QuietUnixStream> {
    let Stream::UdSocket(stream) = stream;
    let socket = std::os::fd::OwnedFd::try_from(stream)?;
    QuietUnixStream::new(std::os::unix::net::UnixStream::from(socket))
}

/// Reads the first frame and either hands the connection to its supervisor or refuses it
/// with a clear reason, sent to the runner and returned for the host log.
async fn handshake(
    framed: RunnerFramed,
    launches: &Launches,
    limit: Duration,
) -> Result<(), HandshakeError> {
    let Hello {
        mut framed,
        header,
        payload: hello,
    } = read_hello(framed, limit).await?;
    let chosen = chosen_version(&hello);

    let claim = launches.claim(&hello.session_token);
    let (runner, bootstrap, sender) = match claim {
        Claim::Unknown => {
            let reason = if hello.session_token.is_empty() {
                "missing session token"
            } else {
                "invalid session token"
            };
            reject(&mut framed, &header, reason).await;
            return Err(HandshakeError::Token {
                reason,
                runner_id: hello.runner_id,
                pid: hello.pid,
            });
        }
        Claim::AlreadyConnected(runner) => {
            let refused = HandshakeError::AlreadyConnected(runner.clone());
            let reason = refused.to_string();
            reject(&mut framed, &header, &reason).await;
            launches.rejections.lock().insert(runner, reason);
            return Err(refused);
        }
        Claim::Launch {
            runner,
            bootstrap,
            sender,
        } => (runner, bootstrap, sender),
    };
    let version = match chosen {
        Ok(version) => version,
        Err(offered) => {
            let reason = format!(
                "unsupported protocol versions {offered:?}; this host speaks {SUPPORTED_PROTOCOL_VERSIONS:?}"
            );
            reject(&mut framed, &header, &reason).await;
            launches.rejections.lock().insert(runner.clone(), reason);
            return Err(HandshakeError::Unsupported { runner, offered });
        }
    };
    let answer = HelloResponsePayload {
        accepted: true,
        host_version: env!("CARGO_PKG_VERSION").to_owned(),
        reason: String::new(),
        protocol_version: version,
        plugins: bootstrap,
    };
    send(&mut framed, &Envelope::response_to(&header, answer))
        .await
        .map_err(|source| HandshakeError::Answer {
            runner: runner.clone(),
            source,
        })?;
    if sender.send(Connected { framed, hello }).is_err() {
        return Err(HandshakeError::Abandoned(runner));
    }
    Ok(())
}

async fn reject(framed: &mut RunnerFramed, header: &EnvelopeHeader, reason: &str) {
    let answer = HelloResponsePayload {
        accepted: false,
        reason: reason.to_owned(),
        ..HelloResponsePayload::default()
    };
    let _ = send(framed, &Envelope::response_to(header, answer)).await;
}

#[cfg(test)]
mod tests;
