//! The entry: what a runner's environment needs, from the stamp alone when nothing changed,
//! and (in [`Mode::Install`]) the work that makes it so, under the venv's lock.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::error::PrepareError;
use super::observer::PrepareObserver;
use super::settings::EnvLocation;
use super::stamp::{PluginOutcome, Stamp};
use super::target::{EnvTarget, Mode, Prepared, fingerprint};
use super::{base, lock, plugins, venv};

/// Prepares `target`'s environment, telling `observer` each step that changes something.
pub async fn prepare(
    target: &EnvTarget,
    mode: Mode,
    observer: &dyn PrepareObserver,
) -> Result<Prepared, PrepareError> {
    match &target.settings.location {
        EnvLocation::Managed { venv } => managed(target, venv, mode, observer).await,
        EnvLocation::Own { python } => own(target, python, mode, observer).await,
    }
}

async fn managed(
    target: &EnvTarget,
    venv: &Path,
    mode: Mode,
    observer: &dyn PrepareObserver,
) -> Result<Prepared, PrepareError> {
    let python = venv::python_of(venv);
    let stamp = Stamp::read(venv).await;
    let base_fresh = base::is_fresh(&stamp, venv);
    if base_fresh && target.unsettled(&stamp).is_empty() {
        return Ok(from_stamp(target, &stamp, python));
    }
    if mode == Mode::CheckOnly {
        if !base_fresh {
            return Err(PrepareError::NotPrepared {
                runner: target.runner.clone(),
                venv: venv.to_path_buf(),
                why: if stamp.base.is_some() {
                    " for the pinned packages of this maitool".to_owned()
                } else {
                    String::new()
                },
            });
        }
        return Ok(checked_only(target, &stamp, python));
    }
    let _lock = lock::lock(venv, observer).await?;
    // Another process may have prepared it while this one waited.
    let mut stamp = Stamp::read(venv).await;
    let mut done = Vec::new();
    if !base::is_fresh(&stamp, venv) {
        stamp = base::build(target, venv, observer, &mut done).await?;
    }
    let blocked = plugins::install(target, venv, &mut stamp, true, observer, &mut done).await?;
    let mut prepared = from_stamp(target, &stamp, python);
    prepared.blocked.extend(blocked);
    prepared.done = done;
    Ok(prepared)
}

/// The operator's own interpreter: plugins' dependencies go into it when it is a venv this
/// process may write and `install_dependencies` is on; otherwise it is used as it is.
async fn own(
    target: &EnvTarget,
    python: &Path,
    mode: Mode,
    observer: &dyn PrepareObserver,
) -> Result<Prepared, PrepareError> {
    let as_is = Prepared {
        python: python.to_path_buf(),
        ..Prepared::default()
    };
    if !target.settings.install_dependencies
        || target
            .plugins
            .iter()
            .all(|(_, declared)| declared.is_empty())
    {
        return Ok(as_is);
    }
    let located = crate::program::find_in(python, std::env::var_os("PATH").as_deref());
    let Some(root) = located.as_deref().and_then(venv::venv_of) else {
        return Ok(as_is);
    };
    if !venv::writable(&root) {
        return Ok(as_is);
    }
    let stamp = Stamp::read(&root).await;
    if target.unsettled(&stamp).is_empty() {
        return Ok(from_stamp(target, &stamp, python.to_path_buf()));
    }
    if mode == Mode::CheckOnly {
        return Ok(checked_only(target, &stamp, python.to_path_buf()));
    }
    let _lock = lock::lock(&root, observer).await?;
    let mut stamp = Stamp::read(&root).await;
    let mut done = Vec::new();
    let blocked = plugins::install(target, &root, &mut stamp, false, observer, &mut done).await?;
    let mut prepared = from_stamp(target, &stamp, python.to_path_buf());
    prepared.blocked.extend(blocked);
    prepared.done = done;
    Ok(prepared)
}

/// The environment as the stamp says, with the refusals it recorded for today's plugins.
fn from_stamp(target: &EnvTarget, stamp: &Stamp, python: PathBuf) -> Prepared {
    let mut blocked = BTreeMap::new();
    if target.settings.install_dependencies {
        for (id, declared) in &target.plugins {
            if let Some(settled) = stamp.plugins.get(id)
                && settled.requires == fingerprint(declared)
                && let PluginOutcome::Refused { reason } = &settled.outcome
            {
                blocked.insert(id.clone(), reason.clone());
            }
        }
    }
    Prepared {
        python,
        blocked,
        done: Vec::new(),
    }
}

/// Checked only: what the stamp settled, and the rest blocked with the command to run.
fn checked_only(target: &EnvTarget, stamp: &Stamp, python: PathBuf) -> Prepared {
    let mut prepared = from_stamp(target, stamp, python);
    for (id, declared) in target.unsettled(stamp) {
        let what = if declared.requirements.is_empty() {
            "its dependency declaration is new".to_owned()
        } else {
            format!(
                "its Python dependencies ({}) are not installed yet",
                declared.texts().join(", ")
            )
        };
        prepared.blocked.insert(
            id.clone(),
            format!(
                "{what}: run `maitool prepare {}` (or `maitool serve`, which installs them)",
                target.runner
            ),
        );
    }
    prepared
}

#[cfg(test)]
mod tests;
