//! The plugin's data directory, as the host's bootstrap names it.

use std::path::Path;
use std::sync::Arc;

use crate::load_error::LoadError;

/// The directory of a bootstrap's `data_dir`: `None` when the host offers none (empty).
/// A relative path is refused: it would resolve against the runner's working directory,
/// somewhere the host never prepared.
pub(crate) fn from_bootstrap(raw: &str) -> Result<Option<Arc<Path>>, LoadError> {
    if raw.is_empty() {
        return Ok(None);
    }
    let path = Path::new(raw);
    if !path.is_absolute() {
        return Err(LoadError::RelativeDataDir(raw.to_owned()));
    }
    Ok(Some(Arc::from(path)))
}

#[cfg(test)]
mod tests;
