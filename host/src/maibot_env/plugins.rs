//! Plugins' declared dependencies, installed one plugin at a time: each is decided against
//! what the environment holds (the plans of `plan.rs`), installed with every installed
//! package pinned, and recorded in the stamp with what its install added.

use std::collections::BTreeMap;
use std::path::Path;

use super::declared::DeclaredDependencies;
use super::error::PrepareError;
use super::installer::{self, InstallRequest, Installer};
use super::observer::PrepareObserver;
use super::pins::PinnedSet;
use super::plan::{self, Decision, Installed, InstalledSet, Owner};
use super::stamp::{PluginOutcome, PluginStamp, Stamp};
use super::target::{EnvTarget, fingerprint};
use super::{freeze, venv};

/// Decides and installs each plugin of `target` the stamp has not settled, recording each in
/// `stamp` (written after every plugin). Returns the plugins blocked for reasons not recorded
/// (an install that failed: the next preparation tries again). `managed` says whether the
/// pinned sets are the environment's base (for who holds a package).
pub async fn install(
    target: &EnvTarget,
    venv_dir: &Path,
    stamp: &mut Stamp,
    managed: bool,
    observer: &dyn PrepareObserver,
    done: &mut Vec<String>,
) -> Result<BTreeMap<String, String>, PrepareError> {
    let mut blocked = BTreeMap::new();
    let pending: Vec<(String, DeclaredDependencies)> =
        target.unsettled(stamp).into_iter().cloned().collect();
    if pending.is_empty() {
        return Ok(blocked);
    }
    let python = venv::python_of(venv_dir);
    let mut installed = inventory(&python, stamp, managed).await?;
    let mut installer: Option<Box<dyn Installer>> = None;
    for (id, declared) in &pending {
        let requires = fingerprint(declared);
        let previous = stamp.plugins.get(id).map(|p| p.outcome.clone());
        let outcome = match plan::decide(id, declared, &installed) {
            Decision::Satisfied => PluginOutcome::Installed {
                added: match previous {
                    Some(PluginOutcome::Installed { added }) => added,
                    _ => BTreeMap::new(),
                },
            },
            Decision::Refused(reason) => {
                tracing::warn!(runner = %target.runner, plugin_id = %id, "not loaded: {reason}");
                PluginOutcome::Refused { reason }
            }
            Decision::Install(requirements) => {
                let texts: Vec<String> = requirements.iter().map(ToString::to_string).collect();
                observer.step(&format!("installing {} for plugin {id}", texts.join(", ")));
                if installer.is_none() {
                    installer = Some(installer::choose(&target.settings, &python, observer).await?);
                }
                let tool = installer.as_deref().expect("chosen above");
                let constraints = tempfile::NamedTempFile::new().map_err(PrepareError::TempFile)?;
                let pins = plan::constraints(&installed, id).join("\n") + "\n";
                tokio::fs::write(constraints.path(), pins)
                    .await
                    .map_err(PrepareError::TempFile)?;
                let request = InstallRequest {
                    python: python.clone(),
                    requirements: texts.clone(),
                    constraints: Some(constraints.path().to_path_buf()),
                    index_url: target.settings.index_url.clone(),
                    ..InstallRequest::default()
                };
                match tool.install(&request, observer).await {
                    Ok(()) => {
                        let before = installed.clone();
                        installed = inventory(&python, stamp, managed).await?;
                        // What this install changed, and what the plugin's earlier install
                        // added that is still there.
                        let mut added: BTreeMap<String, String> = match previous {
                            Some(PluginOutcome::Installed { added }) => added,
                            _ => BTreeMap::new(),
                        }
                        .into_keys()
                        .filter_map(|name| {
                            let version = installed.get(&name)?.version.clone();
                            Some((name, version))
                        })
                        .collect();
                        for (name, now) in &installed {
                            if before
                                .get(name)
                                .is_none_or(|was| was.version != now.version)
                            {
                                added.insert(name.clone(), now.version.clone());
                            }
                        }
                        done.push(format!("installed {} for plugin {id}", texts.join(", ")));
                        PluginOutcome::Installed { added }
                    }
                    Err(err) => {
                        let reason = failure_reason(target, &texts, tool.describe(), &err);
                        tracing::error!(runner = %target.runner, plugin_id = %id, "not loaded: {reason}");
                        blocked.insert(id.clone(), reason);
                        continue;
                    }
                }
            }
        };
        if let PluginOutcome::Refused { reason } = &outcome {
            blocked.insert(id.clone(), reason.clone());
        }
        stamp
            .plugins
            .insert(id.clone(), PluginStamp { requires, outcome });
        for (name, entry) in installed.iter_mut() {
            if let Some((owner, plugin)) = stamp.owner_of(name) {
                entry.owner = Owner::Plugin {
                    id: owner.to_owned(),
                    requires: plugin.requires.clone(),
                };
            }
        }
        stamp.write(venv_dir).await?;
    }
    Ok(blocked)
}

/// What the environment holds, each package with who it is there for.
async fn inventory(
    python: &Path,
    stamp: &Stamp,
    managed: bool,
) -> Result<InstalledSet, PrepareError> {
    let listed = freeze::installed(python)
        .await
        .map_err(|source| PrepareError::List {
            python: python.to_path_buf(),
            source,
        })?;
    let pinned: BTreeMap<String, PinnedSet> = if managed {
        [PinnedSet::Runner, PinnedSet::Baseline]
            .into_iter()
            .flat_map(|set| set.pins().into_iter().map(move |pin| (pin.name, set)))
            .collect()
    } else {
        BTreeMap::new()
    };
    Ok(listed
        .into_iter()
        .map(|(name, version)| {
            let owner = if let Some(set) = pinned.get(&name) {
                Owner::Pinned(*set)
            } else if let Some((id, plugin)) = stamp.owner_of(&name) {
                Owner::Plugin {
                    id: id.to_owned(),
                    requires: plugin.requires.clone(),
                }
            } else {
                Owner::Environment
            };
            (name, Installed { version, owner })
        })
        .collect())
}

/// Why a plugin is blocked after its install failed: the packages, the installer's words, and
/// the command to run once the cause is gone.
fn failure_reason(
    target: &EnvTarget,
    requirements: &[String],
    installer: String,
    err: &super::process::ToolError,
) -> String {
    let packages = requirements.join(", ");
    let runner = &target.runner;
    let detail = crate::error_text::chain(err);
    if err.is_network() {
        format!(
            "cannot install its Python dependencies ({packages}): the package index ({}) could not be reached; run `maitool prepare {runner}` once it can ({installer}: {detail})",
            target
                .settings
                .index_url
                .as_deref()
                .unwrap_or("the installer's default, PyPI")
        )
    } else {
        format!(
            "cannot install its Python dependencies ({packages}) with {installer}: {detail}; once the declaration or the index is fixed, run `maitool prepare {runner}`"
        )
    }
}
