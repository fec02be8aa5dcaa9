//! pip: `python -m venv` and the venv's own `python -m pip install`.

use std::path::Path;

use async_trait::async_trait;
use tokio::process::Command;

use super::{InstallRequest, Installer, QUIET_ENV, common_args};
use crate::maibot_env::observer::PrepareObserver;
use crate::maibot_env::process::{ToolError, run};

/// pip, as the venv has it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pip;

#[async_trait]
impl Installer for Pip {
    fn describe(&self) -> String {
        "pip".to_owned()
    }

    async fn create_venv(
        &self,
        base: &Path,
        venv: &Path,
        observer: &dyn PrepareObserver,
    ) -> Result<(), ToolError> {
        // pip comes from ensurepip in a second step, so that its output (which `venv` keeps
        // to itself) is what a failure shows.
        let mut command = Command::new(base);
        command.args(["-m", "venv", "--without-pip"]).arg(venv);
        run(command, observer).await?;
        let mut ensurepip = Command::new(crate::maibot_env::venv::python_of(venv));
        ensurepip.envs(QUIET_ENV.iter().copied()).args([
            "-m",
            "ensurepip",
            "--upgrade",
            "--default-pip",
        ]);
        run(ensurepip, observer).await.map(|_| ())
    }

    async fn install(
        &self,
        request: &InstallRequest,
        observer: &dyn PrepareObserver,
    ) -> Result<(), ToolError> {
        let mut command = Command::new(&request.python);
        command
            .envs(QUIET_ENV.iter().copied())
            .args(["-m", "pip", "install"])
            .args(common_args(request, &[]));
        run(command, observer).await.map(|_| ())
    }
}
