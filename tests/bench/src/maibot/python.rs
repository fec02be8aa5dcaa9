//! The one place the benchmark finds the Python it runs MaiBot with: the venv that
//! `.ci/install-maibot-host.sh` installs, `$MAITOOL_MAIBOT_HOST_VENV` or else
//! `~/.cache/maitool-maibot-host-venv`. It holds MaiBot's runner and SDK at the versions of the
//! runner's requirements and what MaiBot's own host imports beyond them, so both hosts of the
//! section run MaiBot's runner with the same interpreter and the same packages: maitool's host
//! (a `kind = "maibot"` runner with this `python`) and MaiBot's (the driver, whose supervisor
//! starts its runner with its own interpreter).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// What the bare interpreter start imports: the runner's entry module, as the runner kind
/// launches it (`python -m src.plugin_runtime.runner.runner_main`), without running it.
const IMPORT: &str = "import src.plugin_runtime.runner.runner_main";

/// The venv's Python when MaiBot's runner imports there; why not (after a loud message) when
/// it does not; an error when `MAITOOL_REQUIRE_MAIBOT=1`.
pub fn find() -> Result<Result<PathBuf, String>> {
    let python = venv().join("bin/python");
    let reason = if python.exists() {
        match start(&python) {
            Ok(_) => return Ok(Ok(python)),
            Err(err) => format!("{err:#}"),
        }
    } else {
        not_installed()
    };
    if std::env::var("MAITOOL_REQUIRE_MAIBOT").as_deref() == Ok("1") {
        bail!("{reason}; MAITOOL_REQUIRE_MAIBOT=1 requires it");
    }
    eprintln!("\n!!! maitool-bench: SKIPPING the maibot section: {reason} !!!\n");
    Ok(Err(reason))
}

/// `$MAITOOL_MAIBOT_HOST_VENV`, else `~/.cache/maitool-maibot-host-venv`.
fn venv() -> PathBuf {
    std::env::var_os("MAITOOL_MAIBOT_HOST_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/maitool-maibot-host-venv")
        })
}

/// Why the section is skipped when the venv is missing.
fn not_installed() -> String {
    format!(
        "MaiBot (its runner and its own host) is not installed in {} (run `bash \
         .ci/install-maibot-host.sh`, or set MAITOOL_MAIBOT_HOST_VENV)",
        venv().display()
    )
}

/// A temporary MaiBot instance directory, which is also the working directory of what runs
/// in it: an installed MaiBot refuses to import without one (`MAIBOT_INSTANCE_DIR`), and
/// writes its `config/`, `data/` and `logs/` there.
pub fn instance_dir() -> Result<tempfile::TempDir> {
    Ok(tempfile::Builder::new()
        .prefix("maitool-bench-maibot")
        .tempdir()?)
}

/// One bare start of the interpreter importing the runner's entry module, in a temporary
/// instance directory: what no host can take away from a restart.
pub fn start(python: &Path) -> Result<Duration> {
    let instance = instance_dir()?;
    let started = Instant::now();
    let output = Command::new(python)
        .args(["-c", IMPORT])
        .env("MAIBOT_INSTANCE_DIR", instance.path())
        .current_dir(instance.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("cannot run {}", python.display()))?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or_default();
        bail!(
            "{} -c '{IMPORT}' failed ({}): {last}",
            python.display(),
            output.status
        );
    }
    Ok(elapsed)
}
