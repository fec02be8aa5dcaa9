//! The launch of MaiBot's own Python runner as a runner kind (`kind = "maibot"`): finding the
//! plugin folders it will load, the environment and working directory MaiBot's supervisor
//! gives it, and each plugin's whole configuration document. What the host asks of a running
//! MaiBot runner is `plugin/maibot.rs`.
//!
//! The runner is MaiBot's program, launched as `python -m src.plugin_runtime.runner.runner_main`
//! from the `maibot` package (or a checkout); nothing of it lives in this crate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use maitool_protocol::JsonObject;
use maitool_protocol::launch::maibot as env;
use serde_json::Value;

use super::{
    PluginSettings, ResolvedRunner, RunnerConfig, RunnerConfigError, RunnerProblem, resolve_program,
};
use crate::maibot_env::{DeclaredDependencies, EnvSettings, EnvTarget};

/// Folder names MaiBot's loader never scans for plugins.
const RESERVED_FOLDERS: &[&str] = &["data", "__pycache__"];

/// Why the host tells the runner not to load a plugin the operator disabled.
pub(crate) const DISABLED_REASON: &str = "disabled by the operator (enabled = false)";

/// What a `kind = "maibot"` runner needs besides a maitool runner's launch.
#[derive(Debug, Clone, PartialEq)]
pub struct MaibotLaunch {
    /// The plugin roots, absolute, in the order given.
    pub plugin_dirs: Vec<PathBuf>,
    /// A MaiBot checkout to run from (working directory and `PYTHONPATH`), if any.
    pub source: Option<PathBuf>,
    /// The instance directory (the runner's logs and data).
    pub instance_dir: PathBuf,
    /// The MaiBot version manifests are checked against, if the operator set one.
    pub host_version: Option<String>,
    /// MaiBot's force-compatibility switch (`MAIBOT_FORCE_PLUGIN_COMPATIBILITY`): manifests'
    /// version ranges are not enforced.
    pub force_plugin_compatibility: bool,
    /// Every plugin found in `plugin_dirs`: id -> its folder.
    pub folders: BTreeMap<String, PathBuf>,
    /// Plugins whose configuration the operator set in `maitool.toml`: the runner reads
    /// only the plugin's own `config.toml`, so these get their whole document through
    /// `plugin.config_updated` once loaded.
    pub overridden: BTreeSet<String>,
    /// The runner's Python environment: managed by the host, or the operator's `python`.
    pub environment: EnvSettings,
    /// The Python packages each plugin's manifest declares (plugins declaring none are
    /// left out).
    pub dependencies: BTreeMap<String, DeclaredDependencies>,
}

/// Resolves a `kind = "maibot"` runner: the interpreter, the plugin folders and, for each
/// plugin, the operator's settings over the plugin's own `config.toml`.
pub(crate) fn resolve(
    config: &RunnerConfig,
    base: &Path,
    data_dir: &Path,
) -> Result<ResolvedRunner, RunnerConfigError> {
    let key = format!("runners.{}", config.name);
    let maitool_only = [
        ("executable", config.executable.is_some()),
        ("plugin_dir", config.plugin_dir.is_some()),
        ("args", !config.args.is_empty()),
    ];
    if let Some((field, _)) = maitool_only.iter().find(|(_, set)| *set) {
        return Err(RunnerConfigError::new(
            format!("{key}.{field}"),
            RunnerProblem::NotForMaibot,
        ));
    }
    if config.plugin_dirs.is_empty() {
        return Err(RunnerConfigError::new(
            format!("{key}.plugin_dirs"),
            RunnerProblem::NoPluginDirs,
        ));
    }
    let sandbox = config.resolve_sandbox(base)?;
    let own_python = config.python.as_deref().map(|p| resolve_program(base, p));
    let environment = EnvSettings::resolve(
        &config.python_env.clone().unwrap_or_default(),
        own_python,
        base,
        data_dir,
        &config.name,
    )
    .map_err(|(field, problem)| {
        RunnerConfigError::new(
            format!("{key}.python_env.{field}"),
            RunnerProblem::PythonEnv(problem),
        )
    })?;
    let python = environment.python();
    let plugin_dirs: Vec<PathBuf> = config.plugin_dirs.iter().map(|d| base.join(d)).collect();
    let mut folders = BTreeMap::new();
    let mut declarations = BTreeMap::new();
    let mut dependencies = BTreeMap::new();
    for dir in &plugin_dirs {
        for found in discover(dir)
            .map_err(|problem| RunnerConfigError::new(format!("{key}.plugin_dirs"), problem))?
        {
            // The first root holding an id keeps it.
            if let std::collections::btree_map::Entry::Vacant(entry) =
                folders.entry(found.id.clone())
            {
                entry.insert(found.folder);
                if !found.dependencies.is_empty() {
                    dependencies.insert(found.id.clone(), found.dependencies);
                }
                declarations.insert(found.id, found.declared);
            }
        }
    }
    let source = config.maibot_source.as_ref().map(|s| base.join(s));
    if let Some(source) = &source
        && !source.join("src").join("plugin_runtime").is_dir()
    {
        return Err(RunnerConfigError::new(
            format!("{key}.maibot_source"),
            RunnerProblem::NotMaibotCheckout {
                path: source.clone(),
            },
        ));
    }
    let mut plugins = BTreeMap::new();
    let mut overridden = BTreeSet::new();
    for (id, settings) in &config.plugins {
        if !folders.contains_key(id) {
            return Err(RunnerConfigError::new(
                format!("{key}.plugins.{id}"),
                RunnerProblem::UnknownPlugin {
                    found: folders.keys().cloned().collect(),
                },
            ));
        }
        if settings.config_file.is_some() {
            return Err(RunnerConfigError::new(
                format!("{key}.plugins.{id}.config_file"),
                RunnerProblem::MaibotConfigFile,
            ));
        }
        for grant in &settings.capabilities {
            crate::plugin::grant::check_grant(grant).map_err(|problem| {
                RunnerConfigError::new(
                    format!("{key}.plugins.{id}.capabilities"),
                    RunnerProblem::Grant(problem),
                )
            })?;
        }
        if !settings.config.is_empty() {
            overridden.insert(id.clone());
        }
    }
    for (id, folder) in &folders {
        crate::plugin::data_dir::check_plugin_id(id).map_err(|error| {
            RunnerConfigError::new(
                format!("{key}.plugin_dirs"),
                RunnerProblem::FolderPluginId {
                    folder: folder.clone(),
                    error,
                },
            )
        })?;
        let mut settings = config.plugins.get(id).cloned().unwrap_or_default();
        settings.config = config_document(folder, &settings.config)
            .map_err(|problem| RunnerConfigError::new(format!("{key}.plugins.{id}"), problem))?;
        settings.grant_declared = Some(settings.grant_declared.unwrap_or(config.grant_declared));
        settings.declared = declarations.remove(id).unwrap_or_default();
        plugins.insert(id.clone(), settings);
    }
    let instance_dir = config
        .instance_dir
        .as_ref()
        .map(|d| base.join(d))
        .unwrap_or_else(|| data_dir.join("maibot").join(&config.name));
    Ok(ResolvedRunner {
        name: config.name.clone(),
        executable: python,
        args: vec!["-m".to_owned(), env::RUNNER_MODULE.to_owned()],
        env: config.env.clone(),
        plugins,
        maibot: Some(MaibotLaunch {
            plugin_dirs,
            source,
            instance_dir,
            host_version: config.host_version.clone(),
            force_plugin_compatibility: config.force_plugin_compatibility,
            folders,
            overridden,
            environment,
            dependencies,
        }),
        plugin_dir: None,
        sandbox,
    })
}

/// A plugin folder found under a plugin root, with what its manifest declares.
#[derive(Debug, PartialEq, Eq)]
struct FoundPlugin {
    id: String,
    folder: PathBuf,
    /// The manifest's `capabilities`, the strings among them, trimmed, each once (as MaiBot
    /// reads them).
    declared: Vec<String>,
    /// The Python packages its manifest declares.
    dependencies: DeclaredDependencies,
}

/// The plugins under one plugin root: each subfolder holding a `_manifest.json` with an
/// `id`, as MaiBot's loader scans it. A folder whose manifest cannot be read is left to the
/// runner, which reports it as failed.
fn discover(dir: &Path) -> Result<Vec<FoundPlugin>, RunnerProblem> {
    let entries = std::fs::read_dir(dir).map_err(|error| RunnerProblem::Read {
        path: dir.to_path_buf(),
        error,
    })?;
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let folder = entry.path();
        let name = entry.file_name().to_string_lossy().to_lowercase();
        if !folder.is_dir() || name.starts_with('.') || RESERVED_FOLDERS.contains(&name.as_str()) {
            continue;
        }
        let manifest = folder.join("_manifest.json");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(value) => {
                if let Some(id) = value.get("id").and_then(Value::as_str) {
                    found.push(FoundPlugin {
                        id: id.trim().to_owned(),
                        folder,
                        declared: declared_capabilities(&value),
                        dependencies: DeclaredDependencies::from_manifest(&value),
                    });
                }
            }
            Err(err) => {
                tracing::warn!(
                    "{}: not valid JSON ({err}); MaiBot's runner will report it",
                    manifest.display()
                );
            }
        }
    }
    found.sort_by(|a, b| (&a.id, &a.folder).cmp(&(&b.id, &b.folder)));
    Ok(found)
}

/// A manifest's `capabilities`: its strings, trimmed, empty ones dropped, each once.
fn declared_capabilities(manifest: &Value) -> Vec<String> {
    let mut declared: Vec<String> = Vec::new();
    let names = manifest
        .get("capabilities")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::trim)
        .filter(|name| !name.is_empty());
    for name in names {
        if !declared.iter().any(|seen| seen == name) {
            declared.push(name.to_owned());
        }
    }
    declared
}

/// A plugin's whole configuration: its folder's `config.toml` (as MaiBot's runner last
/// wrote it back) with the operator's `overrides` merged in, table by table.
pub(crate) fn config_document(
    folder: &Path,
    overrides: &JsonObject,
) -> Result<JsonObject, RunnerProblem> {
    let path = folder.join("config.toml");
    let mut document = match std::fs::read_to_string(&path) {
        Ok(text) => {
            let table: toml::Table =
                toml::from_str(&text).map_err(|error| RunnerProblem::Toml {
                    path: path.clone(),
                    error: Box::new(error),
                })?;
            match serde_json::to_value(table) {
                Ok(Value::Object(object)) => object,
                _ => JsonObject::new(),
            }
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => JsonObject::new(),
        Err(error) => return Err(RunnerProblem::Read { path, error }),
    };
    merge_tables(&mut document, overrides);
    Ok(document)
}

/// Merges `overrides` into `target`: tables merge key by key, any other value replaces.
fn merge_tables(target: &mut JsonObject, overrides: &JsonObject) {
    for (key, value) in overrides {
        match (target.get_mut(key), value) {
            (Some(Value::Object(inner)), Value::Object(over)) => merge_tables(inner, over),
            _ => {
                target.insert(key.clone(), value.clone());
            }
        }
    }
}

impl MaibotLaunch {
    /// Whether a runner launched with `self` may keep running for `other`: the same plugin
    /// folders and MaiBot installation (the operator's plugin settings are compared apart).
    pub(crate) fn same_launch(&self, other: &MaibotLaunch) -> bool {
        self.plugin_dirs == other.plugin_dirs
            && self.source == other.source
            && self.instance_dir == other.instance_dir
            && self.host_version == other.host_version
            && self.force_plugin_compatibility == other.force_plugin_compatibility
            && self.folders == other.folders
            && self.environment == other.environment
            && self.dependencies == other.dependencies
    }

    /// What preparing the runner's environment is about: its settings and the enabled
    /// plugins' declared dependencies, by plugin id.
    pub fn env_target(
        &self,
        runner: &str,
        plugins: &BTreeMap<String, PluginSettings>,
    ) -> EnvTarget {
        EnvTarget {
            runner: runner.to_owned(),
            settings: self.environment.clone(),
            plugins: self
                .dependencies
                .iter()
                .filter(|(id, _)| plugins.get(*id).is_none_or(|s| s.enabled))
                .map(|(id, declared)| (id.clone(), declared.clone()))
                .collect(),
        }
    }

    /// The environment MaiBot's supervisor gives its runner, for a launch presenting
    /// `token` on `socket`; `plugins` are the operator's settings (disabled ones are blocked
    /// through the runner's own mechanism, as are those in `blocked`, with its reasons: their
    /// Python dependencies could not be installed).
    pub(crate) fn environment(
        &self,
        runner: &str,
        socket: &Path,
        token: &str,
        plugins: &BTreeMap<String, PluginSettings>,
        blocked: &BTreeMap<String, String>,
    ) -> Vec<(&'static str, String)> {
        let join = |dirs: &[PathBuf]| {
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(":")
        };
        let mut blocked: serde_json::Map<String, Value> = blocked
            .iter()
            .map(|(id, reason)| (id.clone(), Value::from(reason.as_str())))
            .collect();
        blocked.extend(
            plugins
                .iter()
                .filter(|(_, s)| !s.enabled)
                .map(|(id, _)| (id.clone(), Value::from(DISABLED_REASON))),
        );
        let mut vars = vec![
            (env::IPC_ADDRESS, socket.display().to_string()),
            (env::SESSION_TOKEN, token.to_owned()),
            (env::PLUGIN_DIRS, join(&self.plugin_dirs)),
            (env::RUNNER_GROUP, runner.to_owned()),
            (env::PLUGIN_TYPE_FILTER, String::new()),
            (env::TRUSTED_PLUGIN_DIRS, String::new()),
            (
                env::BLOCKED_PLUGIN_REASONS,
                Value::Object(blocked).to_string(),
            ),
            (env::EXTERNAL_PLUGIN_IDS, "{}".to_owned()),
            (env::INSTANCE_DIR, self.instance_dir.display().to_string()),
        ];
        if let Some(version) = &self.host_version {
            vars.push((env::HOST_VERSION, version.clone()));
        }
        // Always set, as MaiBot's supervisor does, so that the key decides and not a
        // variable the host happened to inherit.
        vars.push((
            env::FORCE_PLUGIN_COMPATIBILITY,
            if self.force_plugin_compatibility {
                "1"
            } else {
                "0"
            }
            .to_owned(),
        ));
        if let Some(source) = &self.source {
            let mut path = source.display().to_string();
            if let Some(existing) = std::env::var_os("PYTHONPATH").filter(|p| !p.is_empty()) {
                path = format!("{path}:{}", existing.to_string_lossy());
            }
            vars.push(("PYTHONPATH", path));
        }
        vars
    }

    /// The runner's working directory: the checkout, else the instance directory.
    pub(crate) fn working_dir(&self) -> &Path {
        self.source.as_deref().unwrap_or(&self.instance_dir)
    }
}

#[cfg(test)]
mod tests;
