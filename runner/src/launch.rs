//! What the host passes to a runner launch through its environment.

use crate::RunnerError;

/// The host's socket path.
pub const ENV_IPC_ADDRESS: &str = maitool_protocol::launch::IPC_ADDRESS;
/// The one-time session token of this launch.
pub const ENV_SESSION_TOKEN: &str = maitool_protocol::launch::SESSION_TOKEN;
/// The name the host gave this runner (for logs).
pub const ENV_RUNNER_NAME: &str = maitool_protocol::launch::RUNNER_NAME;

/// The launch parameters, read once and removed from the environment so that plugin code and
/// child processes never see the token.
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
    /// Reads and removes the launch variables.
    ///
    /// Must run before any other thread exists (the SDK's `run` calls it first thing in
    /// `main`, before building the async runtime), because mutating the environment while
    /// other threads may read it is undefined behaviour on POSIX.
    pub fn take_from_env() -> Result<LaunchEnv, RunnerError> {
        let address =
            std::env::var(ENV_IPC_ADDRESS).map_err(|_| RunnerError::MissingEnv(ENV_IPC_ADDRESS))?;
        let session_token = std::env::var(ENV_SESSION_TOKEN)
            .map_err(|_| RunnerError::MissingEnv(ENV_SESSION_TOKEN))?;
        let runner_name = std::env::var(ENV_RUNNER_NAME).unwrap_or_default();
        remove_launch_vars();
        Ok(LaunchEnv {
            address,
            session_token,
            runner_name,
        })
    }
}

#[allow(unsafe_code)]
fn remove_launch_vars() {
    // SAFETY: `take_from_env` is documented to run while the process is single-threaded (before
    // the tokio runtime or any plugin thread starts), which is the condition under which
    // `remove_var` is sound. Removing the token keeps it out of plugin code and grandchildren.
    unsafe {
        std::env::remove_var(ENV_IPC_ADDRESS);
        std::env::remove_var(ENV_SESSION_TOKEN);
        std::env::remove_var(ENV_RUNNER_NAME);
    }
}
