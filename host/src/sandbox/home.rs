//! What a runner's sandbox keeps from one launch to the next, so that a restart does not
//! build it again: the thread that forks its launches inside their pids cgroups, its private
//! temporary folder (emptied when a launch ends), and the Landlock ruleset, rebuilt only when
//! what it grants changes (a reload, a new data folder).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use landlock::RulesetCreated;
use parking_lot::Mutex;

use super::SandboxMode;
use super::spawner::Spawner;

/// One runner's sandbox across its launches; the supervisor keeps it as long as the runner.
#[derive(Debug)]
pub struct SandboxHome {
    runner: String,
    spawner: Spawner,
    temp: Mutex<Option<Arc<tempfile::TempDir>>>,
    rules: Mutex<Option<(RulesKey, RulesetCreated)>>,
}

/// What a ruleset grants: a launch whose grants equal the cached ruleset's reuses it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RulesKey {
    pub(crate) mode: SandboxMode,
    pub(crate) read: Vec<PathBuf>,
    pub(crate) write: Vec<PathBuf>,
    pub(crate) all_network: bool,
    pub(crate) connect_ports: Vec<u16>,
    pub(crate) bind_ports: Vec<u16>,
}

impl SandboxHome {
    /// The home of runner `runner`; nothing is made until its first sandboxed launch.
    pub fn new(runner: &str) -> Self {
        Self {
            runner: runner.to_owned(),
            spawner: Spawner::new(runner),
            temp: Mutex::new(None),
            rules: Mutex::new(None),
        }
    }

    pub(crate) fn spawner(&self) -> &Spawner {
        &self.spawner
    }

    /// The runner's private temporary folder, made at its first launch.
    pub(crate) fn temp(&self) -> std::io::Result<Arc<tempfile::TempDir>> {
        let mut temp = self.temp.lock();
        if let Some(temp) = temp.as_ref()
            && temp.path().is_dir()
        {
            return Ok(temp.clone());
        }
        let made = Arc::new(
            tempfile::Builder::new()
                .prefix(&format!("maitool-{}-", super::file_name_safe(&self.runner)))
                .tempdir()?,
        );
        *temp = Some(made.clone());
        Ok(made)
    }

    /// The ruleset granting `key`: the cached one's copy when it grants the same, else one
    /// `build` makes, which is cached.
    pub(crate) fn ruleset(
        &self,
        key: RulesKey,
        build: impl FnOnce(&RulesKey) -> Result<RulesetCreated, landlock::RulesetError>,
    ) -> Result<RulesetCreated, landlock::RulesetError> {
        let mut rules = self.rules.lock();
        if let Some((cached, ruleset)) = rules.as_ref()
            && *cached == key
            && let Ok(copy) = ruleset.try_clone()
        {
            return Ok(copy);
        }
        let built = build(&key)?;
        // A copy that cannot be made only costs the next launch a rebuild.
        *rules = built.try_clone().ok().map(|copy| (key, copy));
        Ok(built)
    }
}

/// Empties a launch's temporary folder once the launch has ended; the folder itself stays for
/// the next launch (the ruleset grants it by its identity).
pub(crate) fn empty_folder(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let removed = match entry.file_type() {
            Ok(kind) if kind.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        if let Err(err) = removed {
            tracing::debug!(path = %path.display(), "cannot empty a runner's temporary folder: {err}");
        }
    }
}
