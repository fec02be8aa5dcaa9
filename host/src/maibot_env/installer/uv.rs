//! uv: `uv venv` and `uv pip install`, always on the venv's own interpreter.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use tokio::process::Command;

use super::{InstallRequest, Installer, QUIET_ENV, common_args};
use crate::maibot_env::observer::PrepareObserver;
use crate::maibot_env::pins::UV_VERSION;
use crate::maibot_env::process::{ToolError, run};

/// uv, at the pinned version.
#[derive(Debug, Clone)]
pub struct Uv {
    /// Its executable.
    pub exe: PathBuf,
}

impl Uv {
    fn command(&self) -> Command {
        let mut command = Command::new(&self.exe);
        command.envs(QUIET_ENV.iter().copied());
        command
    }
}

#[async_trait]
impl Installer for Uv {
    fn describe(&self) -> String {
        format!("uv {UV_VERSION}")
    }

    async fn create_venv(
        &self,
        base: &Path,
        venv: &Path,
        observer: &dyn PrepareObserver,
    ) -> Result<(), ToolError> {
        let mut command = self.command();
        // No project or configuration file of the working directory changes what is made.
        command
            .args(["venv", "--no-config", "--no-project", "--python"])
            .arg(base)
            .arg(venv);
        run(command, observer).await.map(|_| ())
    }

    async fn install(
        &self,
        request: &InstallRequest,
        observer: &dyn PrepareObserver,
    ) -> Result<(), ToolError> {
        let mut command = self.command();
        // Bytecode compiled now, as pip does: the runner imports MaiBot's whole package at
        // start, and from source (no .pyc written, e.g. under PYTHONDONTWRITEBYTECODE) that
        // takes longer than the handshake allows on a loaded machine.
        command
            .args([
                "pip",
                "install",
                "--no-config",
                "--compile-bytecode",
                "--python",
            ])
            .arg(&request.python)
            .args(common_args(request, &[]));
        run(command, observer).await.map(|_| ())
    }
}
