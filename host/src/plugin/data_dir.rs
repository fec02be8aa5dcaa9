//! Private plugin data directories: `<host.data_dir>/plugins/<plugin id>`, created owner-only
//! by the host before each launch and handed to the plugin in its bootstrap.
//!
//! The plugin id becomes a path component, so ids that could name anything but a fresh child
//! of the plugins directory are refused when the configuration is validated.

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Longest plugin id, in bytes: one path component on common Unix filesystems.
const MAX_ID_BYTES: usize = 255;
/// Owner-only: the directory may hold a plugin's credentials or user data.
const PRIVATE: u32 = 0o700;

/// A plugin id that cannot name a data directory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("plugin id {id:?} {problem}: it names the plugin's data directory")]
pub struct PluginIdError {
    /// The id as announced or configured.
    pub id: String,
    /// What is wrong with it.
    pub problem: PluginIdProblem,
}

/// What is wrong with a plugin id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginIdProblem {
    /// The id is empty.
    #[error("must not be empty")]
    Empty,
    /// The id starts with `.` (which covers `.` and `..`).
    #[error("must not start with '.'")]
    LeadingDot,
    /// The id contains `/`, `\` or NUL.
    #[error("must not contain {0:?}")]
    Separator(char),
    /// The id contains a control character.
    #[error("must not contain the control character {0:?}")]
    Control(char),
    /// The id is longer than one path component may be.
    #[error("is longer than {MAX_ID_BYTES} bytes")]
    TooLong,
}

/// Why a plugin's data directory could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    /// The plugin id cannot name a directory.
    #[error(transparent)]
    BadId(#[from] PluginIdError),
    /// The data root has no absolute form.
    #[error("cannot resolve {}", path.display())]
    Resolve {
        /// The root as configured.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The directory could not be created.
    #[error("cannot create {}", path.display())]
    Create {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The directory's permissions could not be read.
    #[error("cannot inspect {}", path.display())]
    Inspect {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The directory could not be made owner-only.
    #[error("cannot make {} owner-only", path.display())]
    Restrict {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The directory's path cannot travel in the bootstrap's UTF-8 string.
    #[error("{} is not valid UTF-8", path.display())]
    NotUtf8 {
        /// The directory.
        path: PathBuf,
    },
}

/// Checks that `id` is usable as the name of the plugin's data directory: not empty, not
/// starting with `.` (which covers `.` and `..`), and free of `/`, `\`, NUL and control
/// characters, at most 255 bytes. The error says what is wrong, without the key path.
pub fn check_plugin_id(id: &str) -> Result<(), PluginIdError> {
    let problem = if id.is_empty() {
        PluginIdProblem::Empty
    } else if id.starts_with('.') {
        PluginIdProblem::LeadingDot
    } else if let Some(bad) = id.chars().find(|c| matches!(c, '/' | '\\' | '\0')) {
        PluginIdProblem::Separator(bad)
    } else if let Some(bad) = id.chars().find(|c| c.is_control()) {
        PluginIdProblem::Control(bad)
    } else if id.len() > MAX_ID_BYTES {
        PluginIdProblem::TooLong
    } else {
        return Ok(());
    };
    Err(PluginIdError {
        id: id.to_owned(),
        problem,
    })
}

/// Creates (or tightens to 0700) the data directory of `plugin_id` under `root` and returns
/// its absolute path. `root` and missing parents are created 0700 as well.
pub fn prepare(root: &Path, plugin_id: &str) -> Result<PathBuf, DataDirError> {
    check_plugin_id(plugin_id)?;
    let root = std::path::absolute(root).map_err(|source| DataDirError::Resolve {
        path: root.to_path_buf(),
        source,
    })?;
    let dir = root.join(plugin_id);
    create_private(&dir).map_err(|source| DataDirError::Create {
        path: dir.clone(),
        source,
    })?;
    let mode = std::fs::metadata(&dir)
        .map_err(|source| DataDirError::Inspect {
            path: dir.clone(),
            source,
        })?
        .permissions()
        .mode();
    // An existing directory keeps its contents, but never stays readable by others.
    if mode & 0o077 != 0 {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(PRIVATE)).map_err(
            |source| DataDirError::Restrict {
                path: dir.clone(),
                source,
            },
        )?;
        tracing::info!(plugin_id, dir = %dir.display(), "data directory was accessible to others; now 0700");
    }
    Ok(dir)
}

/// Creates `dir` and its missing parents owner-only (0700); an existing directory is left
/// as it is. The caller names the directory in its error.
pub(crate) fn create_private(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE)
        .create(dir)
}

#[cfg(test)]
mod tests;
