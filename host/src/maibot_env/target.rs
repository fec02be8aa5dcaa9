//! What a preparation is about and what it gives: one runner's environment settings and its
//! plugins' declarations, and the interpreter and blocked plugins that come of it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::declared::DeclaredDependencies;
use super::settings::EnvSettings;
use super::stamp::Stamp;

/// One runner's environment and the plugins it will load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvTarget {
    /// The runner, for messages (`maitool prepare NAME`).
    pub runner: String,
    /// Its environment settings.
    pub settings: EnvSettings,
    /// Its enabled plugins and what each declares, in the order they are decided (a plugin
    /// decided earlier wins a conflict).
    pub plugins: Vec<(String, DeclaredDependencies)>,
}

/// Whether a preparation may install.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Make the environment what it should be (`serve`, `reload`, `maitool prepare`).
    Install,
    /// Only check: a missing environment is an error, a plugin whose dependencies are not
    /// installed is blocked with the command that installs them (one-shot commands, and
    /// `auto_prepare = false`).
    CheckOnly,
}

/// A prepared environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prepared {
    /// The interpreter the runner runs.
    pub python: PathBuf,
    /// Plugins that must not load, and why.
    pub blocked: BTreeMap<String, String>,
    /// What this preparation did, one line each; empty when nothing had to run.
    pub done: Vec<String>,
}

impl EnvTarget {
    /// The plugins whose declarations `stamp` has not settled (new, or changed since).
    pub(crate) fn unsettled(&self, stamp: &Stamp) -> Vec<&(String, DeclaredDependencies)> {
        if !self.settings.install_dependencies {
            return Vec::new();
        }
        self.plugins
            .iter()
            .filter(|(id, declared)| {
                !declared.is_empty()
                    && stamp
                        .plugins
                        .get(id)
                        .is_none_or(|settled| settled.requires != fingerprint(declared))
            })
            .collect()
    }
}

/// What the stamp compares for a plugin: its requirements, and its declaration's problems
/// (so that a fixed manifest is decided again).
pub fn fingerprint(declared: &DeclaredDependencies) -> Vec<String> {
    declared
        .texts()
        .into_iter()
        .chain(declared.problems.iter().map(|p| format!("invalid: {p}")))
        .collect()
}
