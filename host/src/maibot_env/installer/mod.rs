//! The installer seam: making a venv and installing requirements into it, with uv (fetched
//! from PyPI, pinned, into a tools venv of its own) where it can be had, and pip otherwise.
//! Both take the same request; what differs is the command line.

use std::path::{Path, PathBuf};

use async_trait::async_trait;

use super::observer::PrepareObserver;
use super::process::ToolError;
use super::settings::{EnvSettings, InstallerChoice};

mod bootstrap;
mod pip;
mod uv;

pub use bootstrap::{UvUnavailable, obtain_uv, tools_dir};
pub use pip::Pip;
pub use uv::Uv;

/// Environment every installer runs with: uv never downloads an interpreter of its own (the
/// venv's is the one), and neither tool asks anything or draws progress bars.
pub(crate) const QUIET_ENV: &[(&str, &str)] = &[
    ("UV_PYTHON_DOWNLOADS", "never"),
    ("UV_NO_PROGRESS", "1"),
    ("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
    ("PIP_NO_INPUT", "1"),
    ("PIP_PROGRESS_BAR", "off"),
];

/// One install into a venv.
#[derive(Debug, Clone, Default)]
pub struct InstallRequest {
    /// The venv's interpreter.
    pub python: PathBuf,
    /// Requirement files (`-r`).
    pub files: Vec<PathBuf>,
    /// Requirements (`cowsay==6.1`).
    pub requirements: Vec<String>,
    /// A constraints file (`-c`): every installed package pinned.
    pub constraints: Option<PathBuf>,
    /// Install exactly what is named, no dependencies (the pinned sets are closed).
    pub no_deps: bool,
    /// The one package index to use, instead of the installer's default.
    pub index_url: Option<String>,
}

/// Makes venvs and installs into them.
#[async_trait]
pub trait Installer: Send + Sync {
    /// What it is, for the stamp and messages: `uv 0.13.9`, `pip`.
    fn describe(&self) -> String;

    /// Makes a venv at `venv` from the interpreter `base`.
    async fn create_venv(
        &self,
        base: &Path,
        venv: &Path,
        observer: &dyn PrepareObserver,
    ) -> Result<(), ToolError>;

    /// Installs what `request` names.
    async fn install(
        &self,
        request: &InstallRequest,
        observer: &dyn PrepareObserver,
    ) -> Result<(), ToolError>;
}

/// The installer `settings` ask for; uv is fetched with `python`'s pip when needed, and under
/// `auto` a uv that cannot be had leaves pip.
pub async fn choose(
    settings: &EnvSettings,
    python: &Path,
    observer: &dyn PrepareObserver,
) -> Result<Box<dyn Installer>, UvUnavailable> {
    if settings.installer == InstallerChoice::Pip {
        return Ok(Box::new(Pip));
    }
    let tools = tools_dir();
    match obtain_uv(
        python,
        tools.as_deref(),
        settings.index_url.as_deref(),
        observer,
    )
    .await
    {
        Ok(uv) => Ok(Box::new(uv)),
        Err(err) if settings.installer == InstallerChoice::Auto => {
            let text = crate::error_text::chain(&err);
            tracing::warn!("uv is not available ({text}); installing with pip");
            observer.step(&format!(
                "uv is not available ({text}); installing with pip"
            ));
            Ok(Box::new(Pip))
        }
        Err(err) => Err(err),
    }
}

/// The arguments both installers share after their own: `--no-deps`, the index, the
/// constraints, the files and the requirements.
fn common_args(request: &InstallRequest, index_flag_extra: &[&str]) -> Vec<String> {
    let mut args = Vec::new();
    if request.no_deps {
        args.push("--no-deps".to_owned());
    }
    if let Some(index) = &request.index_url {
        args.extend(index_flag_extra.iter().map(|s| (*s).to_owned()));
        args.push("--index-url".to_owned());
        args.push(index.clone());
    }
    if let Some(constraints) = &request.constraints {
        args.push("--constraint".to_owned());
        args.push(constraints.display().to_string());
    }
    for file in &request.files {
        args.push("-r".to_owned());
        args.push(file.display().to_string());
    }
    args.extend(request.requirements.iter().cloned());
    args
}

#[cfg(test)]
mod tests;
