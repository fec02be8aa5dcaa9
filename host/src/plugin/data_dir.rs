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

/// Checks that `id` is usable as the name of the plugin's data directory: not empty, not
/// starting with `.` (which covers `.` and `..`), and free of `/`, `\`, NUL and control
/// characters, at most 255 bytes. The error says what is wrong, without the key path.
pub fn check_plugin_id(id: &str) -> Result<(), String> {
    let problem = if id.is_empty() {
        "must not be empty".to_owned()
    } else if id.starts_with('.') {
        "must not start with '.'".to_owned()
    } else if let Some(bad) = id.chars().find(|c| matches!(c, '/' | '\\' | '\0')) {
        format!("must not contain {bad:?}")
    } else if let Some(bad) = id.chars().find(|c| c.is_control()) {
        format!("must not contain the control character {bad:?}")
    } else if id.len() > MAX_ID_BYTES {
        format!("is longer than {MAX_ID_BYTES} bytes")
    } else {
        return Ok(());
    };
    Err(format!(
        "plugin id {id:?} {problem}: it names the plugin's data directory"
    ))
}

/// Creates (or tightens to 0700) the data directory of `plugin_id` under `root` and returns
/// its absolute path. `root` and missing parents are created 0700 as well.
pub fn prepare(root: &Path, plugin_id: &str) -> Result<PathBuf, String> {
    check_plugin_id(plugin_id)?;
    let root = std::path::absolute(root)
        .map_err(|err| format!("cannot resolve {}: {err}", root.display()))?;
    let dir = root.join(plugin_id);
    create_private(&dir)?;
    let mode = std::fs::metadata(&dir)
        .map_err(|err| format!("cannot inspect {}: {err}", dir.display()))?
        .permissions()
        .mode();
    // An existing directory keeps its contents, but never stays readable by others.
    if mode & 0o077 != 0 {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(PRIVATE))
            .map_err(|err| format!("cannot make {} owner-only: {err}", dir.display()))?;
        tracing::info!(plugin_id, dir = %dir.display(), "data directory was accessible to others; now 0700");
    }
    Ok(dir)
}

/// Creates `dir` and its missing parents owner-only (0700); an existing directory is left
/// as it is.
pub(crate) fn create_private(dir: &Path) -> Result<(), String> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE)
        .create(dir)
        .map_err(|err| format!("cannot create {}: {err}", dir.display()))
}

#[cfg(test)]
#[path = "data_dir_tests.rs"]
mod tests;
