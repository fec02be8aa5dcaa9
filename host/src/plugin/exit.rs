//! How a runner's process ended, in the two places it is read: the runner's status
//! (`last_exit_reason`: `killed by signal SIGKILL`) and the failure of the calls it cut off
//! (`the runner was killed by signal SIGKILL`).

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use nix::sys::signal::Signal;

/// How a runner's process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RunnerExit {
    /// It exited with this status code.
    Status(i32),
    /// A signal, by name (`SIGKILL`) or number, killed it.
    Signal(String),
    /// It exited, with neither a code nor a signal reported.
    Unknown,
    /// Waiting for it failed.
    WaitFailed(String),
}

impl RunnerExit {
    /// Reads the result of waiting for the process.
    pub(crate) fn from_wait(status: &std::io::Result<ExitStatus>) -> Self {
        match status {
            Ok(status) => match (status.code(), status.signal()) {
                (Some(code), _) => RunnerExit::Status(code),
                (None, Some(signal)) => RunnerExit::Signal(
                    Signal::try_from(signal)
                        .map(|s| s.as_str().to_owned())
                        .unwrap_or_else(|_| signal.to_string()),
                ),
                _ => RunnerExit::Unknown,
            },
            Err(err) => RunnerExit::WaitFailed(err.to_string()),
        }
    }

    /// The status's wording: `exited with status 1`, `killed by signal SIGKILL`.
    pub(crate) fn describe(&self) -> String {
        match self {
            RunnerExit::Status(code) => format!("exited with status {code}"),
            RunnerExit::Signal(name) => format!("killed by signal {name}"),
            RunnerExit::Unknown => "exited".to_owned(),
            RunnerExit::WaitFailed(err) => format!("could not be waited for: {err}"),
        }
    }

    /// The wording of a call it cut off: `the runner was killed by signal SIGKILL`.
    pub(crate) fn for_callers(&self) -> String {
        match self {
            RunnerExit::Signal(_) => format!("the runner was {}", self.describe()),
            _ => format!("the runner {}", self.describe()),
        }
    }
}

#[cfg(test)]
mod tests;
