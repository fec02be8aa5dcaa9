//! What to do about one plugin's declared dependencies, given what the environment holds:
//! nothing, install some, or refuse the plugin.
//!
//! MaiBot's rules, made stricter where MaiBot lets a plugin load on a version it said it cannot
//! use: everything installed (MaiBot's runner, the baseline, other plugins' packages) is pinned,
//! so a plugin never changes a package someone else installed; a plugin whose requirement no
//! installed version satisfies is refused, and the reason names the package, both
//! requirements and who holds the installed one. Plugins are decided one after another, each
//! against what the ones before it installed, so the plugin that brings a conflict is the
//! one refused.

use std::collections::BTreeMap;

use super::declared::DeclaredDependencies;
use super::pins::PinnedSet;
use super::requirement::Requirement;

/// Who a package in the environment is there for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// One of maitool's pinned sets.
    Pinned(PinnedSet),
    /// A plugin's install added it; `requires` is what that plugin declared.
    Plugin {
        /// The plugin.
        id: String,
        /// Its declared requirements.
        requires: Vec<String>,
    },
    /// It was there before maitool (an operator's own venv), or came another way.
    Environment,
}

/// One installed package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// Its version.
    pub version: String,
    /// Who it is there for.
    pub owner: Owner,
}

/// The environment's packages by normalised name.
pub type InstalledSet = BTreeMap<String, Installed>;

/// What to do for one plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Everything it declares is installed at versions it accepts.
    Satisfied,
    /// These are to be installed, with everything else pinned.
    Install(Vec<Requirement>),
    /// It is not loaded, for this reason.
    Refused(String),
}

/// Decides for plugin `plugin_id`, which declares `declared`, in an environment holding
/// `installed`.
pub fn decide(
    plugin_id: &str,
    declared: &DeclaredDependencies,
    installed: &InstalledSet,
) -> Decision {
    if !declared.problems.is_empty() {
        return Decision::Refused(declared.problems.join("; "));
    }
    let mut to_install = Vec::new();
    let mut conflicts = Vec::new();
    for requirement in &declared.requirements {
        let Some(present) = installed.get(requirement.name().canonical()) else {
            to_install.push(requirement.clone());
            continue;
        };
        let own = matches!(&present.owner, Owner::Plugin { id, .. } if id == plugin_id);
        if requirement.admits(&present.version) {
            // Extras may bring packages the installed one did not; the version stays pinned.
            if !requirement.extras().is_empty() {
                to_install.push(requirement.clone());
            }
        } else if own {
            // The plugin changed its own requirement: what it installed before may change.
            to_install.push(requirement.clone());
        } else {
            conflicts.push(conflict(requirement, present));
        }
    }
    if !conflicts.is_empty() {
        return Decision::Refused(conflicts.join("; "));
    }
    if to_install.is_empty() {
        Decision::Satisfied
    } else {
        Decision::Install(to_install)
    }
}

/// The `name==version` pins an install for `plugin_id` runs under: everything installed,
/// except what that plugin's own earlier install added.
pub fn constraints(installed: &InstalledSet, plugin_id: &str) -> Vec<String> {
    installed
        .iter()
        .filter(|(_, p)| !matches!(&p.owner, Owner::Plugin { id, .. } if id == plugin_id))
        .map(|(name, p)| format!("{name}=={}", p.version))
        .collect()
}

fn conflict(requirement: &Requirement, present: &Installed) -> String {
    let package = requirement.name().canonical();
    let holder = match &present.owner {
        Owner::Pinned(set) => format!("which {} needs", set.describe()),
        Owner::Plugin { id, requires } => {
            let theirs: Vec<&str> = requires
                .iter()
                .filter(|r| Requirement::parse(r).is_ok_and(|r| r.name().canonical() == package))
                .map(String::as_str)
                .collect();
            if theirs.is_empty() {
                format!("installed for plugin {id}")
            } else {
                format!(
                    "installed for plugin {id}, which needs {}",
                    theirs.join(", ")
                )
            }
        }
        Owner::Environment => {
            "which the environment had before maitool installed anything".to_owned()
        }
    };
    format!(
        "dependency conflict: it needs {requirement}, but {package} {} is installed, {holder}; a plugin may not change a package installed for another",
        present.version
    )
}

#[cfg(test)]
mod tests;
