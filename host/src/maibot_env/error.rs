//! Why an environment could not be prepared. Each keeps what caused it (a subprocess's output,
//! an OS error) as its source; the hint an operator needs (the command to run once the
//! network is back) is part of the message.

use std::path::PathBuf;

use super::installer::UvUnavailable;
use super::interpreter::DiscoveryError;
use super::lock::LockError;
use super::process::ToolError;
use super::stamp::StampError;
use super::venv::ClearError;

/// Why a runner's environment could not be prepared (the runner does not start).
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// Checked only (a one-shot command, or `auto_prepare = false`), and it is missing or was
    /// built from other pinned sets.
    #[error(
        "the Python environment {} of runner {runner} is not prepared{why}: run `maitool prepare {runner}` (or `maitool serve`, which prepares it)",
        venv.display()
    )]
    NotPrepared {
        /// The runner.
        runner: String,
        /// Its venv.
        venv: PathBuf,
        /// What is missing, with a leading space, or nothing.
        why: String,
    },
    /// No interpreter to make the venv from.
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// The venv's lock.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The old venv could not be cleared.
    #[error(transparent)]
    Clear(#[from] ClearError),
    /// uv was asked for (`installer = "uv"`) and could not be had.
    #[error(transparent)]
    Uv(#[from] UvUnavailable),
    /// Making the venv failed.
    #[error("cannot make the environment {}{hint}", venv.display())]
    CreateVenv {
        /// The venv.
        venv: PathBuf,
        /// What to do about it, with a leading `; `, or nothing.
        hint: String,
        /// What failed.
        #[source]
        source: ToolError,
    },
    /// Installing MaiBot's runner and the baseline failed.
    #[error("cannot install MaiBot's runner and the baseline into {}{hint}", venv.display())]
    BaseInstall {
        /// The venv.
        venv: PathBuf,
        /// What to do about it, with a leading `; `, or nothing.
        hint: String,
        /// What failed.
        #[source]
        source: ToolError,
    },
    /// Installed, but the runner does not import.
    #[error("MaiBot's runner does not import in {}", venv.display())]
    Broken {
        /// The venv.
        venv: PathBuf,
        /// What importing it printed.
        #[source]
        source: ToolError,
    },
    /// What is installed could not be listed.
    #[error("cannot list the packages of {}", python.display())]
    List {
        /// The interpreter.
        python: PathBuf,
        /// What failed.
        #[source]
        source: ToolError,
    },
    /// A temporary requirements or constraints file could not be written.
    #[error("cannot write a temporary requirements file")]
    TempFile(#[source] std::io::Error),
    /// The stamp could not be written.
    #[error("cannot record what was installed")]
    Stamp(#[from] StampError),
}

/// `; the package index could not be reached: run ...` for a failure that looks like no
/// network, else nothing.
pub(crate) fn network_hint(err: &ToolError, runner: &str, index: Option<&str>) -> String {
    if err.is_network() {
        format!(
            "; the package index ({}) could not be reached: run `maitool prepare {runner}` once it can",
            index.unwrap_or("the installer's default, PyPI")
        )
    } else {
        String::new()
    }
}
