//! Finding a Python that MaiBot's runner can run on (3.12 or later), as
//! `.ci/install-maibot-runner.sh` did: `python3.12`, `python3.13`, `python3` in `PATH`, then
//! pyenv's installed versions, oldest 3.12+ first (MaiBot's own minimum is what it is tested
//! on). Each candidate is asked for its version and its real path; pyenv's shims answer for
//! the interpreter they would run, or fail when the selected version has no such command.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use tokio::process::Command;

use super::observer::Silent;
use super::process::{ToolError, run};

/// The oldest Python MaiBot's runner runs on.
pub const MINIMUM: (u32, u32) = (3, 12);

/// The names looked up in `PATH`, in order.
const PATH_NAMES: &[&str] = &["python3.12", "python3.13", "python3"];

/// Asks an interpreter for its real path and version.
const PROBE: &str = "import sys; print(sys.executable); print('%d.%d.%d' % sys.version_info[:3])";

/// A Python found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreter {
    /// Its real path (`sys.executable`), not a shim.
    pub path: PathBuf,
    /// Its version, `3.12.1`.
    pub version: String,
}

/// Where to look: the `PATH` value and pyenv's root (`$PYENV_ROOT`, else `~/.pyenv`).
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// The `PATH` to search.
    pub path: Option<OsString>,
    /// pyenv's root, whose `versions/` holds its interpreters.
    pub pyenv_root: Option<PathBuf>,
}

impl Search {
    /// The host's own `PATH` and pyenv root.
    pub fn from_env() -> Search {
        let pyenv_root = std::env::var_os("PYENV_ROOT")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".pyenv")));
        Search {
            path: std::env::var_os("PATH"),
            pyenv_root,
        }
    }
}

/// Why no interpreter was found.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    /// No candidate was a Python 3.12 or later; `tried` says what each was.
    #[error(
        "no Python {}.{} or later found (MaiBot's runner needs one; install one, e.g. with pyenv, or set runners.<name>.python_env.base_python); tried: {}",
        MINIMUM.0, MINIMUM.1, tried.join("; ")
    )]
    NotFound {
        /// Each candidate and what it was.
        tried: Vec<String>,
    },
    /// The configured interpreter is too old.
    #[error("{} is Python {version}; MaiBot's runner needs {}.{} or later", path.display(), MINIMUM.0, MINIMUM.1)]
    TooOld {
        /// The interpreter.
        path: PathBuf,
        /// Its version.
        version: String,
    },
    /// The configured interpreter could not be asked.
    #[error("{} is not a Python that runs", path.display())]
    Broken {
        /// The interpreter.
        path: PathBuf,
        /// What running it gave.
        #[source]
        source: ToolError,
    },
}

/// Finds the interpreter: `explicit` when given (it must be 3.12+), else the first good
/// candidate of `search`.
pub async fn find(explicit: Option<&Path>, search: &Search) -> Result<Interpreter, DiscoveryError> {
    if let Some(program) = explicit {
        let located = crate::program::find_in(program, search.path.as_deref())
            .unwrap_or_else(|| program.to_path_buf());
        let found = probe(&located)
            .await
            .map_err(|source| DiscoveryError::Broken {
                path: located.clone(),
                source,
            })?;
        if !new_enough(&found.version) {
            return Err(DiscoveryError::TooOld {
                path: located,
                version: found.version,
            });
        }
        return Ok(found);
    }
    let mut tried = Vec::new();
    for candidate in candidates(search) {
        match probe(&candidate).await {
            Ok(found) if new_enough(&found.version) => return Ok(found),
            Ok(found) => tried.push(format!("{} is {}", candidate.display(), found.version)),
            Err(_) => tried.push(format!("{} does not run", candidate.display())),
        }
    }
    if tried.is_empty() {
        tried.push("no python3.12, python3.13 or python3 in PATH, and no pyenv versions".into());
    }
    Err(DiscoveryError::NotFound { tried })
}

/// The candidates, in the order they are tried: the `PATH` names that exist, then pyenv's
/// 3.12+ versions, oldest first.
pub fn candidates(search: &Search) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = PATH_NAMES
        .iter()
        .filter_map(|name| crate::program::find_in(Path::new(name), search.path.as_deref()))
        .collect();
    if let Some(root) = &search.pyenv_root {
        let mut versions: Vec<((u32, u32, u32), PathBuf)> =
            std::fs::read_dir(root.join("versions"))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|entry| {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    let version = release(&name)?;
                    ((version.0, version.1) >= MINIMUM).then_some((version, entry.path()))
                })
                .collect();
        versions.sort();
        for ((major, minor, _), dir) in versions {
            let exe = dir.join("bin").join(format!("python{major}.{minor}"));
            if exe.is_file() {
                found.push(exe);
            }
        }
    }
    found.dedup();
    found
}

/// `3.12.1` -> (3, 12, 1); a name that is not a plain CPython release (`pypy3.10-7.3`,
/// `3.13-dev`, `miniconda3`) is none.
fn release(name: &str) -> Option<(u32, u32, u32)> {
    let mut parts = name.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = match parts.next() {
        Some(patch) => patch.parse().ok()?,
        None => 0,
    };
    parts.next().is_none().then_some((major, minor, patch))
}

fn new_enough(version: &str) -> bool {
    release(version).is_some_and(|(major, minor, _)| (major, minor) >= MINIMUM)
}

/// Runs `program` to learn its real path and version.
pub async fn probe(program: &Path) -> Result<Interpreter, ToolError> {
    let mut command = Command::new(program);
    command.args(["-c", PROBE]);
    // A pyenv shim asks pyenv which version to run; none of its own configuration is changed.
    let stdout = run(command, &Silent).await?;
    let mut lines = stdout.lines();
    let path = lines.next().unwrap_or("").trim();
    let version = lines.next().unwrap_or("").trim();
    Ok(Interpreter {
        path: if path.is_empty() {
            program.to_path_buf()
        } else {
            PathBuf::from(path)
        },
        version: version.to_owned(),
    })
}

#[cfg(test)]
mod tests;
