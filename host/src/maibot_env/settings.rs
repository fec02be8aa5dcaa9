//! `[runners.python_env]`: where a MaiBot runner's managed environment lives and how it is
//! kept, and the settings resolved against the configuration's folders.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Which installer prepares the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstallerChoice {
    /// uv (the pinned version, fetched from PyPI once), or pip when uv cannot be had.
    #[default]
    Auto,
    /// uv only: failing to get it fails the preparation.
    Uv,
    /// pip only.
    Pip,
}

/// `[runners.python_env]` as written (a `kind = "maibot"` runner only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PythonEnvConfig {
    /// The managed venv's folder, relative to the configuration file;
    /// `<data_dir>/maibot-venv/<runner name>` unless set.
    pub path: Option<PathBuf>,
    /// The interpreter the managed venv is made from (3.12 or later); found as
    /// docs/MAIBOT.md says unless set.
    pub base_python: Option<PathBuf>,
    /// Whether plugins' declared `python_package` dependencies are installed (into the
    /// managed venv, or into the runner's own `python` when that is a venv maitool may
    /// write).
    pub install_dependencies: bool,
    /// Whether `serve` and `reload` prepare a missing or stale environment themselves; with
    /// `false` only `maitool prepare` does.
    pub auto_prepare: bool,
    /// The one package index to install from (a mirror), instead of the installer's default.
    pub index_url: Option<String>,
    /// `auto`, `uv` or `pip`.
    pub installer: InstallerChoice,
}

impl Default for PythonEnvConfig {
    fn default() -> Self {
        PythonEnvConfig {
            path: None,
            base_python: None,
            install_dependencies: true,
            auto_prepare: true,
            index_url: None,
            installer: InstallerChoice::Auto,
        }
    }
}

/// Where the runner's interpreter comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvLocation {
    /// A venv maitool makes and keeps.
    Managed {
        /// The venv's folder.
        venv: PathBuf,
    },
    /// The operator's `python`; plugin dependencies go into it only when it is a venv
    /// maitool may write.
    Own {
        /// The interpreter (a bare name is looked up in `PATH`).
        python: PathBuf,
    },
}

/// A runner's environment settings, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvSettings {
    /// Managed or the operator's.
    pub location: EnvLocation,
    /// What the managed venv is made from, if the operator chose.
    pub base_python: Option<PathBuf>,
    /// Install plugins' declared dependencies.
    pub install_dependencies: bool,
    /// `serve` and `reload` prepare by themselves.
    pub auto_prepare: bool,
    /// The package index.
    pub index_url: Option<String>,
    /// The installer.
    pub installer: InstallerChoice,
}

/// A `[runners.python_env]` key that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvConfigError {
    /// A key about the managed venv next to the operator's own `python`.
    #[error(
        "has no use next to `python`, which names the runner's own interpreter (remove `python` to let maitool manage the environment)"
    )]
    ManagedOnly,
    /// An index URL that is not one.
    #[error("`{0}` is not an http, https or file URL of a package index")]
    IndexUrl(String),
}

impl EnvSettings {
    /// Resolves `config` for runner `runner`: the operator's `python` (already resolved) if
    /// set, else a managed venv at `path` (relative to `base`) or under `data_dir`. The error
    /// names the key (`path`, `base_python`, `index_url`) it concerns.
    pub fn resolve(
        config: &PythonEnvConfig,
        python: Option<PathBuf>,
        base: &Path,
        data_dir: &Path,
        runner: &str,
    ) -> Result<EnvSettings, (&'static str, EnvConfigError)> {
        if let Some(index) = &config.index_url {
            let scheme_ok = ["http://", "https://", "file://"]
                .iter()
                .any(|scheme| index.starts_with(scheme));
            if !scheme_ok || index.chars().any(char::is_whitespace) {
                return Err(("index_url", EnvConfigError::IndexUrl(index.clone())));
            }
        }
        let location = match python {
            Some(python) => {
                for (key, set) in [
                    ("path", config.path.is_some()),
                    ("base_python", config.base_python.is_some()),
                ] {
                    if set {
                        return Err((key, EnvConfigError::ManagedOnly));
                    }
                }
                EnvLocation::Own { python }
            }
            None => EnvLocation::Managed {
                venv: config
                    .path
                    .as_ref()
                    .map(|p| base.join(p))
                    .unwrap_or_else(|| default_venv(data_dir, runner)),
            },
        };
        Ok(EnvSettings {
            location,
            base_python: config
                .base_python
                .as_ref()
                .map(|p| crate::program::resolve(base, p)),
            install_dependencies: config.install_dependencies,
            auto_prepare: config.auto_prepare,
            index_url: config.index_url.clone(),
            installer: config.installer,
        })
    }

    /// The interpreter the runner runs: the managed venv's, or the operator's.
    pub fn python(&self) -> PathBuf {
        match &self.location {
            EnvLocation::Managed { venv } => super::venv::python_of(venv),
            EnvLocation::Own { python } => python.clone(),
        }
    }
}

/// The managed venv's default folder: `<data_dir>/maibot-venv/<runner>`.
pub fn default_venv(data_dir: &Path, runner: &str) -> PathBuf {
    data_dir.join("maibot-venv").join(runner)
}

#[cfg(test)]
mod tests;
