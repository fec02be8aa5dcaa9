//! The Python venvs the `.ci/install-*.sh` scripts make, found the same way by every test.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// One venv a test needs.
#[derive(Debug)]
pub struct Venv<'a> {
    /// The variable that overrides where it is (`MAITOOL_PY_VENV`).
    pub env_var: &'a str,
    /// Its default folder under `~/.cache`.
    pub default_dir: &'a str,
    /// Python that must run in it for it to count as installed.
    pub check: &'a str,
    /// What a skip names: `the MCP front test`.
    pub needed_by: &'a str,
    /// What installs it: `.ci/install-python-mcp.sh`.
    pub installer: &'a str,
    /// What it holds, for the message: `the Python MCP client`.
    pub holds: &'a str,
    /// The variable under which (set to `1`, as CI does) a missing venv fails the test.
    pub require_var: &'a str,
}

impl Venv<'_> {
    /// The venv's Python, or `None` after a loud skip when it is not installed; a failure
    /// under `require_var=1`. The check runs in a temporary folder (an installed MaiBot
    /// writes a log folder into its working directory, and wants an instance directory).
    pub fn python(&self) -> Option<PathBuf> {
        let venv = std::env::var_os(self.env_var)
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                    .join(".cache")
                    .join(self.default_dir)
            });
        let python = venv.join("bin/python");
        let scratch = tempfile::tempdir().unwrap();
        let works = Command::new(&python)
            .args(["-c", self.check])
            .env("MAIBOT_INSTANCE_DIR", scratch.path())
            .current_dir(scratch.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if works {
            return Some(python);
        }
        let message = format!(
            "{} is not installed in {} (run `bash {}`)",
            self.holds,
            venv.display(),
            self.installer
        );
        if std::env::var(self.require_var).as_deref() == Ok("1") {
            panic!("{message}; {}=1 requires it", self.require_var);
        }
        crate::skip::announce(&format!("{}: {message}", self.needed_by));
        None
    }
}
