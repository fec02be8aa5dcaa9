//! `[render]`: which browser renders HTML, and how long a render may take.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::RenderError;

/// The names a Chromium goes by on PATH, in the order they are tried.
const BROWSER_NAMES: &[&str] = &["chromium", "chromium-browser", "google-chrome", "chrome"];

/// `[render]`: the browser behind `render.html2png`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenderConfig {
    /// The browser's executable; unset, `chromium`, `chromium-browser`, `google-chrome` or
    /// `chrome` on PATH.
    pub browser: Option<PathBuf>,
    /// A render's limit in milliseconds when the request names none (MaiBot's 10 s).
    pub timeout_ms: u64,
}

impl Default for RenderConfig {
    fn default() -> Self {
        Self {
            browser: None,
            timeout_ms: 10_000,
        }
    }
}

/// A `[render]` section that cannot be used, naming the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderConfigError {
    /// `timeout_ms` is 0.
    #[error("render.timeout_ms must be greater than 0")]
    ZeroTimeout,
}

impl RenderConfig {
    /// Checks the values a render would trip over.
    pub fn validate(&self) -> Result<(), RenderConfigError> {
        if self.timeout_ms == 0 {
            return Err(RenderConfigError::ZeroTimeout);
        }
        Ok(())
    }

    /// The browser to start: the configured one, else the first Chromium on PATH. Looked up
    /// per render, so a browser installed while the host runs is found.
    pub fn find_browser(&self) -> Result<PathBuf, RenderError> {
        if let Some(browser) = &self.browser {
            return match resolve(browser) {
                Some(found) => Ok(found),
                None => Err(RenderError::NoBrowser {
                    looked: format!("[render] browser = {:?} is not an executable", browser),
                }),
            };
        }
        BROWSER_NAMES
            .iter()
            .find_map(|name| resolve(Path::new(name)))
            .ok_or_else(|| RenderError::NoBrowser {
                looked: format!("none of {} on PATH", BROWSER_NAMES.join(", ")),
            })
    }
}

/// A path with a slash as it is, a bare name on PATH; only executable files count.
fn resolve(name: &Path) -> Option<PathBuf> {
    if name.components().count() > 1 || name.is_absolute() {
        return is_executable(name).then(|| name.to_path_buf());
    }
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .filter(|dir| !dir.is_empty())
        .map(|dir| Path::new(dir).join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}
