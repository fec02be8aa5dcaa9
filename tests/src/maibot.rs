//! MaiBot's own runner, as `.ci/install-maibot-runner.sh` installs it.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The Python of the venv `.ci/install-maibot-runner.sh` made (`MAITOOL_MAIBOT_VENV`, else
/// `~/.cache/maitool-maibot-venv`), or `None` after a loud message when MaiBot's runner is not
/// installed there. With `MAITOOL_REQUIRE_MAIBOT=1` (CI) a missing runner is a failure.
pub fn maibot_python() -> Option<PathBuf> {
    let venv = std::env::var_os("MAITOOL_MAIBOT_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/maitool-maibot-venv")
        });
    let python = venv.join("bin/python");
    let instance = tempfile::tempdir().unwrap();
    let works = Command::new(&python)
        .args([
            "-c",
            "import src.plugin_runtime.runner.runner_main, maibot_sdk",
        ])
        .env("MAIBOT_INSTANCE_DIR", instance.path())
        // It writes a log folder into its working directory.
        .current_dir(instance.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if works {
        return Some(python);
    }
    let message = format!(
        "MaiBot's runner is not installed in {} (run `bash .ci/install-maibot-runner.sh`)",
        venv.display()
    );
    if std::env::var("MAITOOL_REQUIRE_MAIBOT").as_deref() == Ok("1") {
        panic!("{message}; MAITOOL_REQUIRE_MAIBOT=1 requires it");
    }
    crate::skip::announce(&format!("the MaiBot checks: {message}"));
    None
}
