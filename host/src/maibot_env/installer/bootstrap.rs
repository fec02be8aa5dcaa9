//! Getting uv: the pinned version from PyPI, installed with pip into a tools venv of its own
//! under the user's cache (`$XDG_CACHE_HOME/maitool/uv-VERSION`, else
//! `~/.cache/maitool/uv-VERSION`), shared by every environment of every maitool of that user.
//! It never lands in a runner's environment, where plugins would see it.

use std::path::{Path, PathBuf};

use tokio::process::Command;

use super::{QUIET_ENV, Uv};
use crate::maibot_env::lock::{LockError, lock};
use crate::maibot_env::observer::{PrepareObserver, Silent};
use crate::maibot_env::pins::UV_VERSION;
use crate::maibot_env::process::{ToolError, run};
use crate::maibot_env::venv;

/// Why uv could not be had (the caller falls back to pip, or fails when uv was asked for).
#[derive(Debug, thiserror::Error)]
pub enum UvUnavailable {
    /// Neither `XDG_CACHE_HOME` nor `HOME` is set: there is no place for it.
    #[error("no cache directory for uv (neither XDG_CACHE_HOME nor HOME is set)")]
    NoCacheDir,
    /// Its tools venv could not be locked.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// Making its venv or installing it failed.
    #[error("cannot install uv {UV_VERSION} into {}", dir.display())]
    Install {
        /// The tools venv.
        dir: PathBuf,
        /// What failed.
        #[source]
        source: ToolError,
    },
}

/// Where maitool keeps the tools it fetches.
pub fn tools_dir() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(cache.join("maitool"))
}

/// The pinned uv under `tools` (see [`tools_dir`]), installed with `python`'s pip when it is
/// not there yet, from `index_url` when one is set.
pub async fn obtain_uv(
    python: &Path,
    tools: Option<&Path>,
    index_url: Option<&str>,
    observer: &dyn PrepareObserver,
) -> Result<Uv, UvUnavailable> {
    let tools = tools.ok_or(UvUnavailable::NoCacheDir)?;
    let dir = tools.join(format!("uv-{UV_VERSION}"));
    let uv = Uv {
        exe: dir.join("bin").join("uv"),
    };
    if works(&uv).await {
        return Ok(uv);
    }
    let _lock = lock(&dir, observer).await?;
    if works(&uv).await {
        return Ok(uv);
    }
    observer.step(&format!(
        "installing uv {UV_VERSION} into {}",
        dir.display()
    ));
    let failed = |source| UvUnavailable::Install {
        dir: dir.clone(),
        source,
    };
    if let Err(err) = venv::clear(&dir).await {
        return Err(failed(ToolError::Spawn {
            program: "rm".to_owned(),
            source: std::io::Error::other(err),
        }));
    }
    let mut make = Command::new(python);
    make.args(["-m", "venv"]).arg(&dir);
    run(make, observer).await.map_err(failed)?;
    let mut install = Command::new(venv::python_of(&dir));
    install
        .envs(QUIET_ENV.iter().copied())
        .args(["-m", "pip", "install"]);
    if let Some(index) = index_url {
        install.args(["--index-url", index]);
    }
    install.arg(format!("uv=={UV_VERSION}"));
    run(install, observer).await.map_err(failed)?;
    Ok(uv)
}

/// Whether `uv` runs and is the pinned version.
async fn works(uv: &Uv) -> bool {
    if !uv.exe.is_file() {
        return false;
    }
    let mut command = Command::new(&uv.exe);
    command.arg("--version");
    run(command, &Silent)
        .await
        .is_ok_and(|out| out.split_whitespace().nth(1) == Some(UV_VERSION))
}
