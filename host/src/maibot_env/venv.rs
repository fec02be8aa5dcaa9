//! A virtual environment on disk: its interpreter, whether a folder is one, whether maitool may
//! write into it, and removing one to build it anew (never a folder that is not a venv).

use std::path::{Path, PathBuf};

/// The interpreter of the venv at `venv`.
pub fn python_of(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

/// Whether `dir` is a venv (it has a `pyvenv.cfg`).
pub fn is_venv(dir: &Path) -> bool {
    dir.join("pyvenv.cfg").is_file()
}

/// The venv `python` belongs to, when it is `<venv>/bin/python...` of one (the path as given,
/// symbolic links not followed: a venv's interpreter links to the one it was made from).
pub fn venv_of(python: &Path) -> Option<PathBuf> {
    let root = python.parent()?.parent()?;
    is_venv(root).then(|| root.to_path_buf())
}

/// Whether this process may create files in `dir`.
pub fn writable(dir: &Path) -> bool {
    nix::unistd::access(dir, nix::unistd::AccessFlags::W_OK).is_ok()
}

/// Why a folder could not be cleared for a new venv.
#[derive(Debug, thiserror::Error)]
pub enum ClearError {
    /// It holds files and is no venv: maitool removes only what it can tell is a venv.
    #[error("{} exists and is not a virtual environment; maitool will not remove it (move it away, or set python_env.path to another folder)", path.display())]
    NotAVenv {
        /// The folder.
        path: PathBuf,
    },
    /// Removing it failed.
    #[error("cannot remove the old environment {}", path.display())]
    Remove {
        /// The folder.
        path: PathBuf,
        /// The OS's reason.
        #[source]
        source: std::io::Error,
    },
}

/// Removes the venv at `venv` so that a new one can be made there: a venv or an empty folder
/// is removed, a missing one is fine, anything else is refused.
pub async fn clear(venv: &Path) -> Result<(), ClearError> {
    let empty = match std::fs::read_dir(venv) {
        Ok(mut entries) => entries.next().is_none(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(ClearError::Remove {
                path: venv.to_path_buf(),
                source,
            });
        }
    };
    if !empty && !is_venv(venv) {
        return Err(ClearError::NotAVenv {
            path: venv.to_path_buf(),
        });
    }
    tokio::fs::remove_dir_all(venv)
        .await
        .map_err(|source| ClearError::Remove {
            path: venv.to_path_buf(),
            source,
        })
}

#[cfg(test)]
mod tests;
