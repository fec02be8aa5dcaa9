//! MaiBot's own runner, as `.ci/install-maibot-runner.sh` installs it.

use std::path::PathBuf;

use crate::venv::Venv;

/// The Python of the venv `.ci/install-maibot-runner.sh` made (`MAITOOL_MAIBOT_VENV`, else
/// `~/.cache/maitool-maibot-venv`), or `None` after a loud message when MaiBot's runner is not
/// installed there. With `MAITOOL_REQUIRE_MAIBOT=1` (CI) a missing runner is a failure.
pub fn maibot_python() -> Option<PathBuf> {
    Venv {
        env_var: "MAITOOL_MAIBOT_VENV",
        default_dir: "maitool-maibot-venv",
        check: "import src.plugin_runtime.runner.runner_main, maibot_sdk",
        needed_by: "the MaiBot checks",
        installer: ".ci/install-maibot-runner.sh",
        holds: "MaiBot's runner",
        require_var: "MAITOOL_REQUIRE_MAIBOT",
    }
    .python()
}
