//! What the host passes to a runner launch: the socket and the runner's name in the
//! environment, the session token through an inherited pipe.

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::RunnerError;
use maitool_protocol::launch::SESSION_TOKEN_MAX_LEN;

/// The host's socket path.
pub const ENV_IPC_ADDRESS: &str = maitool_protocol::launch::IPC_ADDRESS;
/// The number of the inherited descriptor holding this launch's one-time session token.
pub const ENV_SESSION_TOKEN_FD: &str = maitool_protocol::launch::SESSION_TOKEN_FD;
/// The name the host gave this runner (for logs).
pub const ENV_RUNNER_NAME: &str = maitool_protocol::launch::RUNNER_NAME;

/// Set by the first [`LaunchEnv::read`]: the token descriptor is then closed, and its number
/// may name another file.
static TOKEN_TAKEN: AtomicBool = AtomicBool::new(false);

/// The launch parameters.
#[derive(Debug, Clone)]
pub struct LaunchEnv {
    /// Socket path to connect to.
    pub address: String,
    /// Token to present in `runner.hello`.
    pub session_token: String,
    /// The host's name for this runner, if given.
    pub runner_name: String,
}

impl LaunchEnv {
    /// Reads the launch parameters: the socket path and runner name from the environment, and
    /// the session token from the descriptor named by `MAITOOL_SESSION_TOKEN_FD`, read to its
    /// end and closed, so that plugin code in this process finds neither the token nor the
    /// descriptor. Changes no environment variable. Succeeds once per process: a second call
    /// fails, since the descriptor is gone.
    pub fn read() -> Result<LaunchEnv, RunnerError> {
        let address =
            std::env::var(ENV_IPC_ADDRESS).map_err(|_| RunnerError::MissingEnv(ENV_IPC_ADDRESS))?;
        let session_token = take_token()?;
        let runner_name = std::env::var(ENV_RUNNER_NAME).unwrap_or_default();
        Ok(LaunchEnv {
            address,
            session_token,
            runner_name,
        })
    }
}

fn token_error(problem: impl std::fmt::Display) -> RunnerError {
    RunnerError::SessionToken(problem.to_string())
}

/// Reads the token pipe once and closes it.
#[allow(unsafe_code)]
fn take_token() -> Result<String, RunnerError> {
    let number = std::env::var(ENV_SESSION_TOKEN_FD)
        .map_err(|_| RunnerError::MissingEnv(ENV_SESSION_TOKEN_FD))?;
    let fd: RawFd = number.parse().ok().filter(|fd| *fd >= 3).ok_or_else(|| {
        token_error(format!(
            "{ENV_SESSION_TOKEN_FD} must be a descriptor number of 3 or more, got {number:?}"
        ))
    })?;
    if TOKEN_TAKEN.swap(true, Ordering::SeqCst) {
        return Err(token_error(
            "the session token was already read in this process (its descriptor is closed)",
        ));
    }
    // The descriptor must be the pipe the host handed over, not whatever else has that number.
    let kind = std::fs::metadata(format!("/dev/fd/{fd}"))
        .map_err(|err| token_error(format!("descriptor {fd} is not open: {err}")))?;
    if !std::os::unix::fs::FileTypeExt::is_fifo(&kind.file_type()) {
        return Err(token_error(format!("descriptor {fd} is not a pipe")));
    }
    // SAFETY: the host started this process with descriptor `fd` open and gave it to the
    // runner for this one read (`MAITOOL_SESSION_TOKEN_FD`, checked above to be an open pipe
    // above the standard streams). Nothing else in the process owns it, and `TOKEN_TAKEN`
    // makes this the only place that ever takes it: ownership is taken once, and the
    // descriptor is closed when `pipe` drops.
    let pipe = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut token = String::new();
    std::fs::File::from(pipe)
        .take(SESSION_TOKEN_MAX_LEN as u64 + 1)
        .read_to_string(&mut token)
        .map_err(|err| token_error(format!("cannot read descriptor {fd}: {err}")))?;
    if token.is_empty() || token.len() > SESSION_TOKEN_MAX_LEN {
        return Err(token_error(format!(
            "descriptor {fd} held {} bytes, not a token of 1 to {SESSION_TOKEN_MAX_LEN}",
            token.len()
        )));
    }
    Ok(token)
}
