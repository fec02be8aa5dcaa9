//! A managed venv's base: a Python 3.12+ found, the venv made from it, MaiBot's runner and
//! SDK and the baseline installed at their pins (closed sets, so `--no-deps`), and the runner
//! imported once to prove it.

use std::path::Path;

use tokio::process::Command;

use super::error::{PrepareError, network_hint};
use super::installer::{self, InstallRequest};
use super::interpreter::{self, Search};
use super::observer::{PrepareObserver, Silent};
use super::pins::PinnedSet;
use super::process::run;
use super::stamp::{BaseStamp, Stamp};
use super::target::EnvTarget;
use super::venv;

/// What importing proves the runner installed whole.
const IMPORT_CHECK: &str = "import src.plugin_runtime.runner.runner_main, maibot_sdk";

/// Whether `stamp` says the venv at `venv` holds today's pinned sets, and its interpreter is
/// still there (a removed base interpreter leaves a dangling link).
pub fn is_fresh(stamp: &Stamp, venv: &Path) -> bool {
    let lines = |set: PinnedSet| set.pins().into_iter().map(|p| p.line).collect::<Vec<_>>();
    stamp.base.as_ref().is_some_and(|base| {
        base.runner == lines(PinnedSet::Runner) && base.baseline == lines(PinnedSet::Baseline)
    }) && venv::python_of(venv).exists()
}

/// Builds the base anew and returns the stamp that records it (no plugin yet).
pub async fn build(
    target: &EnvTarget,
    venv_dir: &Path,
    observer: &dyn PrepareObserver,
    done: &mut Vec<String>,
) -> Result<Stamp, PrepareError> {
    let settings = &target.settings;
    observer.step("finding a Python 3.12 or later");
    let base = interpreter::find(settings.base_python.as_deref(), &Search::from_env()).await?;
    let installer = installer::choose(settings, &base.path, observer).await?;
    observer.step(&format!(
        "making the environment {} from {} (Python {}) with {}",
        venv_dir.display(),
        base.path.display(),
        base.version,
        installer.describe()
    ));
    venv::clear(venv_dir).await?;
    let hint = |err: &super::process::ToolError| -> String {
        network_hint(err, &target.runner, settings.index_url.as_deref())
    };
    installer
        .create_venv(&base.path, venv_dir, observer)
        .await
        .map_err(|source| PrepareError::CreateVenv {
            venv: venv_dir.to_path_buf(),
            hint: hint(&source),
            source,
        })?;
    let runner = PinnedSet::Runner.pins();
    let baseline = PinnedSet::Baseline.pins();
    observer.step(&format!(
        "installing MaiBot's runner and SDK ({} packages) and the baseline ({} packages)",
        runner.len(),
        baseline.len()
    ));
    let files = tempfile::tempdir().map_err(PrepareError::TempFile)?;
    let mut paths = Vec::new();
    for (name, pins) in [("runner.txt", &runner), ("baseline.txt", &baseline)] {
        let path = files.path().join(name);
        let text: String = pins.iter().map(|p| format!("{}\n", p.line)).collect();
        tokio::fs::write(&path, text)
            .await
            .map_err(PrepareError::TempFile)?;
        paths.push(path);
    }
    let python = venv::python_of(venv_dir);
    let request = InstallRequest {
        python: python.clone(),
        files: paths,
        no_deps: true,
        index_url: settings.index_url.clone(),
        ..InstallRequest::default()
    };
    installer
        .install(&request, observer)
        .await
        .map_err(|source| PrepareError::BaseInstall {
            venv: venv_dir.to_path_buf(),
            hint: hint(&source),
            source,
        })?;
    observer.step("checking that MaiBot's runner imports");
    check_imports(&python)
        .await
        .map_err(|source| PrepareError::Broken {
            venv: venv_dir.to_path_buf(),
            source,
        })?;
    let stamp = Stamp {
        base: Some(BaseStamp {
            python: base.path.display().to_string(),
            python_version: base.version.clone(),
            installer: installer.describe(),
            runner: runner.into_iter().map(|p| p.line).collect(),
            baseline: baseline.into_iter().map(|p| p.line).collect(),
        }),
        ..Stamp::new()
    };
    stamp.write(venv_dir).await?;
    done.push(format!(
        "made {} from Python {} and installed MaiBot's runner and the baseline with {}",
        venv_dir.display(),
        base.version,
        installer.describe()
    ));
    Ok(stamp)
}

/// Imports the runner and the SDK, as the runner will (an installed MaiBot wants an instance
/// directory, and writes its logs into the working directory: a scratch one).
async fn check_imports(python: &Path) -> Result<(), super::process::ToolError> {
    let scratch = tempfile::tempdir().map_err(|source| super::process::ToolError::Spawn {
        program: python.display().to_string(),
        source,
    })?;
    let mut command = Command::new(python);
    command
        .args(["-c", IMPORT_CHECK])
        .env("MAIBOT_INSTANCE_DIR", scratch.path())
        .current_dir(scratch.path());
    run(command, &Silent).await.map(|_| ())
}
