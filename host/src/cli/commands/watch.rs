//! `serve --watch`: reload when the configuration, a plugin's configuration file, a plugin
//! folder or a runner's executable changes, as `maitool reload` (or SIGHUP) would. A MaiBot
//! plugin whose code changed is also reloaded in place by its runner, as MaiBot does.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;

use crate::{Host, LoadedConfig};

/// Quiet time after the last change before acting: an editor's save or a build writes
/// several times in a row, and one reload should follow them all.
pub(super) const DEBOUNCE: Duration = Duration::from_millis(300);
/// The longest a batch waits for quiet: a build that writes for longer still reloads this
/// often.
const LONGEST_BATCH: Duration = Duration::from_secs(3);

/// What is watched.
#[derive(Debug, Default, PartialEq)]
pub(super) struct WatchSet {
    /// Files, each watched through its folder: editors and builds replace a file (write a new
    /// one, rename it over the old), which ends a watch on the file itself.
    files: BTreeSet<PathBuf>,
    /// Folders watched with everything in them (`plugin_dir` of maitool runners).
    folders: BTreeSet<PathBuf>,
    /// MaiBot plugin folders, by plugin id: a change to the plugin's code reloads it.
    maibot: BTreeMap<PathBuf, String>,
}

impl WatchSet {
    /// The files and folders `config` is read from, and its runners' executables.
    pub(super) fn of(config: &LoadedConfig) -> WatchSet {
        let mut set = WatchSet::default();
        let base = config
            .path
            .as_deref()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."));
        if let Some(path) = &config.path {
            set.files.insert(path.clone());
        }
        for runner in config.config.runners.iter().filter(|r| r.enabled) {
            if let Some(dir) = &runner.plugin_dir {
                set.folders.insert(base.join(dir));
            }
        }
        for runner in &config.runners {
            if let Some(found) = crate::plugin::find_program(&runner.executable) {
                set.files.insert(base.join(found));
            }
            for settings in runner.plugins.values() {
                if let Some(file) = &settings.config_file {
                    set.files.insert(base.join(file));
                }
            }
            if let Some(maibot) = &runner.maibot {
                for (id, folder) in &maibot.folders {
                    set.maibot.insert(folder.clone(), id.clone());
                }
            }
        }
        set
    }

    /// Whether a change to `path` concerns the configuration or a runner.
    fn concerns(&self, path: &Path) -> bool {
        self.files.contains(path)
            || self.folders.iter().any(|folder| path.starts_with(folder))
            || self.maibot_plugin(path).is_some()
            || (self.in_maibot_folder(path) && path.file_name() == Some("config.toml".as_ref()))
    }

    fn in_maibot_folder(&self, path: &Path) -> bool {
        self.maibot.keys().any(|folder| path.starts_with(folder))
    }

    /// The MaiBot plugin whose code or manifest `path` is. Its `config.toml` is read by the
    /// host on reload (and may be written by the runner), bytecode caches (`__pycache__`) are
    /// written by the runner: reloading the plugin on those would reload it forever.
    fn maibot_plugin(&self, path: &Path) -> Option<&str> {
        let (_, id) = self
            .maibot
            .iter()
            .find(|(folder, _)| path.starts_with(folder))?;
        let name = path.file_name()?.to_str()?;
        let code = name.ends_with(".py") || name == "_manifest.json";
        let cached = path.components().any(|c| c.as_os_str() == "__pycache__");
        (code && !cached).then_some(id.as_str())
    }
}

/// A running watch: changed paths arrive on `changes` one by one, and [`Watch::next`] gathers
/// them into batches.
pub(super) struct Watch {
    set: Arc<WatchSet>,
    changes: mpsc::UnboundedReceiver<PathBuf>,
    /// Paths of the batch being gathered. Kept here, not in `next`'s future, so that a batch
    /// survives `next` being dropped by a `select!` whose other branch won.
    pending: BTreeSet<PathBuf>,
    _watcher: RecommendedWatcher,
}

/// Whether an event changes its file. Opening or reading one does not: the host reads the
/// configuration and every manifest on each reload, and MaiBot's runner reads a plugin's code
/// when it loads it. inotify reports those opens too, and acting on them made each reload
/// cause the next, forever.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

impl Watch {
    /// Starts watching what `set` names. A folder that cannot be watched (it does not exist
    /// yet) is logged and skipped.
    pub(super) fn start(set: WatchSet) -> anyhow::Result<Watch> {
        let set = Arc::new(set);
        let (sender, changes) = mpsc::unbounded_channel();
        let filter = set.clone();
        let mut watcher =
            notify::recommended_watcher(move |result: notify::Result<Event>| match result {
                Ok(event) if is_change(&event.kind) => {
                    for path in event.paths.into_iter().filter(|p| filter.concerns(p)) {
                        let _ = sender.send(path);
                    }
                }
                Ok(_) => {}
                Err(err) => tracing::warn!("watching for configuration changes: {err}"),
            })?;
        let parents: BTreeSet<&Path> = set.files.iter().filter_map(|f| f.parent()).collect();
        let watches = parents
            .into_iter()
            .map(|dir| (dir, RecursiveMode::NonRecursive))
            .chain(
                set.folders
                    .iter()
                    .map(|d| (d.as_path(), RecursiveMode::Recursive)),
            )
            .chain(
                set.maibot
                    .keys()
                    .map(|d| (d.as_path(), RecursiveMode::Recursive)),
            );
        for (path, mode) in watches {
            if let Err(err) = watcher.watch(path, mode) {
                tracing::warn!("cannot watch {}: {err}", path.display());
            }
        }
        Ok(Watch {
            set,
            changes,
            pending: BTreeSet::new(),
            _watcher: watcher,
        })
    }

    /// The next batch of changes: the paths changed until [`DEBOUNCE`] passes without
    /// another, or [`LONGEST_BATCH`] after the first (pending forever without a watch).
    pub(super) async fn next(watch: &mut Option<Watch>) -> Vec<PathBuf> {
        let Some(watch) = watch else {
            return std::future::pending().await;
        };
        if watch.pending.is_empty() {
            match watch.changes.recv().await {
                Some(path) => {
                    watch.pending.insert(path);
                }
                // The watcher holds the sender for as long as the watch lives.
                None => return std::future::pending().await,
            }
        }
        let longest = tokio::time::Instant::now() + LONGEST_BATCH;
        loop {
            let quiet = (tokio::time::Instant::now() + DEBOUNCE).min(longest);
            match tokio::time::timeout_at(quiet, watch.changes.recv()).await {
                Ok(Some(path)) => {
                    watch.pending.insert(path);
                }
                Ok(None) | Err(_) => break,
            }
        }
        std::mem::take(&mut watch.pending).into_iter().collect()
    }
}

/// Applies a batch of changes: reloads the configuration (restarting runners whose
/// executable changed), reloads MaiBot plugins whose code changed, and returns the watch
/// for the configuration now in force (runners and files may have come or gone).
pub(super) async fn apply(host: &Host, watch: Watch, changed: Vec<PathBuf>) -> Option<Watch> {
    let shown: Vec<String> = changed.iter().map(|p| p.display().to_string()).collect();
    tracing::info!(changed = ?shown, "watched files changed: reloading");
    if let Err(err) = host.reload().await {
        tracing::error!(
            "reload after a change failed: {}",
            crate::error_text::chain(&err)
        );
    }
    let plugins: BTreeSet<&str> = changed
        .iter()
        .filter_map(|path| watch.set.maibot_plugin(path))
        .collect();
    for plugin_id in plugins {
        match host.plugins.reload_plugin(plugin_id).await {
            Ok(outcome) => tracing::info!(plugin_id, "plugin code changed: {outcome}"),
            Err(err) => tracing::warn!(plugin_id, "plugin code changed, reload failed: {err}"),
        }
    }
    let next = WatchSet::of(&host.config());
    if next == *watch.set {
        return Some(watch);
    }
    drop(watch);
    match Watch::start(next) {
        Ok(watch) => Some(watch),
        Err(err) => {
            tracing::error!("cannot watch the new configuration: {err}; watching stopped");
            None
        }
    }
}
