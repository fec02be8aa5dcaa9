use maitool_protocol::rpc::RpcError;

/// Why a runner stopped before or instead of serving.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// The runner was not started by a maitool host (a variable is missing).
    #[error("{0} is not set: runners are started by the maitool host, not by hand")]
    MissingEnv(&'static str),
    /// The session token could not be read from the descriptor the host handed over.
    #[error("session token: {0}")]
    SessionToken(String),
    /// The host's socket could not be reached.
    #[error("cannot connect to host at {address}: {source}")]
    Connect {
        /// The socket path.
        address: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The host answered the handshake with a rejection.
    #[error("host rejected the handshake: {0}")]
    Rejected(String),
    /// The handshake failed at the RPC level (timeout, closed connection, bad answer).
    #[error("handshake failed: {0}")]
    Handshake(RpcError),
    /// Two plugins of this runner declare the same id.
    #[error("duplicate plugin id {0} in this runner")]
    DuplicatePlugin(String),
    /// The tokio runtime could not be built.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}
