//! Configuration of the plugin runtime: runners, their plugins, and supervision limits.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use maitool_protocol::JsonObject;
use serde::{Deserialize, Serialize};

use crate::maibot_env::PythonEnvConfig;
use crate::sandbox::{SandboxMode, SandboxSettings};

mod error;
mod maibot;

pub use error::{AnnouncedIdError, RunnerConfigError, RunnerProblem, RuntimeConfigError};
pub use maibot::MaibotLaunch;
pub(crate) use maibot::{DISABLED_REASON, config_document};

/// Supervision limits shared by every runner (`[plugin_runtime]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuntimeConfig {
    /// How long a spawned runner has to connect and say hello.
    pub handshake_timeout_ms: u64,
    /// How long a connected runner has to report `runner.ready`.
    pub ready_timeout_ms: u64,
    /// Interval of `plugin.health` checks; 0 disables them (exits are detected regardless).
    pub health_check_interval_ms: u64,
    /// Limit of one health check. On a timeout one quick re-check follows before the runner
    /// is declared hung, so a briefly busy host never kills a healthy runner.
    pub health_check_timeout_ms: u64,
    /// Most restarts allowed within `restart_window_ms`; one more marks the runner failed.
    pub max_restarts: u32,
    /// The window of the restart-intensity limit.
    pub restart_window_ms: u64,
    /// First restart delay; doubles for each restart inside the window.
    pub restart_backoff_initial_ms: u64,
    /// Cap of the restart delay.
    pub restart_backoff_max_ms: u64,
    /// How long a runner marked failed (restart-intensity limit reached) waits before it is
    /// started again with a fresh restart budget; 0 leaves it failed until
    /// `maitool restart NAME` or a reload.
    pub failed_retry_ms: u64,
    /// First delay after a runner could not be spawned at all (`EMFILE`, `ENOMEM`, an
    /// executable gone missing); doubles for each failure in a row. A failed spawn is not a
    /// crash: it does not spend the restart budget.
    pub spawn_retry_initial_ms: u64,
    /// Cap of the delay between spawn attempts.
    pub spawn_retry_max_ms: u64,
    /// Longest a call waits for its runner to come back from a restart (its own timeout
    /// bounds the wait too); 0 fails such calls at once.
    pub restart_wait_ms: u64,
    /// Time for `prepare_shutdown` + `shutdown` before SIGTERM.
    pub shutdown_grace_ms: u64,
    /// Time after SIGTERM before SIGKILL.
    pub terminate_grace_ms: u64,
    /// Tool timeout when a tool declares none; also the timeout of plugin API calls that
    /// declare none.
    pub default_tool_timeout_ms: u64,
    /// Timeout of a hook handler when neither it nor its hook declares one (MaiBot's
    /// `hook_blocking_timeout_sec`).
    pub hook_timeout_ms: u64,
    /// A circuit breaker per plugin: after `circuit_failure_threshold` calls in a row (tool
    /// calls and hook handler runs alike) that time out or are cut off by a crash, the
    /// plugin's tool calls fail at once and its hook handlers are skipped until a probe call
    /// succeeds. False turns it off.
    pub circuit_breaker: bool,
    /// Calls in a row that time out or crash that open a plugin's circuit.
    pub circuit_failure_threshold: u32,
    /// How long an opened circuit refuses calls before it lets a probe through.
    pub circuit_cooldown_ms: u64,
    /// Cap of the cool-down, which doubles each time a probe fails.
    pub circuit_max_cooldown_ms: u64,
    /// Every runner's sandbox unless its `[runners.sandbox] mode` says otherwise: `on`
    /// (whatever the kernel supports, shown in `status`), `required` (a runner the kernel
    /// cannot fully sandbox does not start) or `off`.
    pub sandbox: SandboxMode,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            handshake_timeout_ms: 10_000,
            ready_timeout_ms: 30_000,
            health_check_interval_ms: 5_000,
            health_check_timeout_ms: 3_000,
            max_restarts: 5,
            restart_window_ms: 60_000,
            restart_backoff_initial_ms: 0,
            restart_backoff_max_ms: 5_000,
            failed_retry_ms: 30_000,
            spawn_retry_initial_ms: 1_000,
            spawn_retry_max_ms: 30_000,
            restart_wait_ms: 10_000,
            shutdown_grace_ms: 2_000,
            terminate_grace_ms: 1_000,
            default_tool_timeout_ms: 60_000,
            hook_timeout_ms: 60_000,
            circuit_breaker: true,
            circuit_failure_threshold: 5,
            circuit_cooldown_ms: 10_000,
            circuit_max_cooldown_ms: 300_000,
            sandbox: SandboxMode::On,
        }
    }
}

impl RuntimeConfig {
    /// Checks values that would make supervision meaningless.
    pub fn validate(&self) -> Result<(), RuntimeConfigError> {
        let positive = [
            ("handshake_timeout_ms", self.handshake_timeout_ms),
            ("ready_timeout_ms", self.ready_timeout_ms),
            ("health_check_timeout_ms", self.health_check_timeout_ms),
            ("restart_window_ms", self.restart_window_ms),
            ("default_tool_timeout_ms", self.default_tool_timeout_ms),
            ("hook_timeout_ms", self.hook_timeout_ms),
            ("spawn_retry_initial_ms", self.spawn_retry_initial_ms),
        ];
        for (key, value) in positive {
            if value == 0 {
                return Err(RuntimeConfigError::NotPositive(key));
            }
        }
        if self.restart_backoff_max_ms < self.restart_backoff_initial_ms {
            return Err(RuntimeConfigError::RestartBackoff);
        }
        if self.spawn_retry_max_ms < self.spawn_retry_initial_ms {
            return Err(RuntimeConfigError::SpawnRetry);
        }
        if self.circuit_breaker {
            if self.circuit_failure_threshold == 0 {
                return Err(RuntimeConfigError::NotPositive("circuit_failure_threshold"));
            }
            if self.circuit_cooldown_ms == 0 {
                return Err(RuntimeConfigError::NotPositive("circuit_cooldown_ms"));
            }
            if self.circuit_max_cooldown_ms < self.circuit_cooldown_ms {
                return Err(RuntimeConfigError::CircuitCooldown);
            }
        }
        Ok(())
    }

    /// The plugins' circuit breakers, as these keys set them.
    pub fn circuit(&self) -> crate::circuit::CircuitConfig {
        crate::circuit::CircuitConfig {
            enabled: self.circuit_breaker,
            failure_threshold: self.circuit_failure_threshold,
            cooldown: std::time::Duration::from_millis(self.circuit_cooldown_ms),
            max_cooldown: std::time::Duration::from_millis(self.circuit_max_cooldown_ms),
        }
    }
}

/// What program a runner is, and so how it is launched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunnerKind {
    /// A maitool runner (the SDK's `run`, or any program speaking docs/PROTOCOL.md):
    /// `executable` or `plugin_dir`.
    #[default]
    Maitool,
    /// MaiBot's own Python runner, loading MaiBot plugin folders from `plugin_dirs`
    /// (docs/MAIBOT.md).
    Maibot,
}

/// One runner process (`[[runners]]`): an executable that hosts one or more plugins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunnerConfig {
    /// Unique name, used in logs and status.
    pub name: String,
    /// What the runner is; `maitool` unless set.
    #[serde(default)]
    pub kind: RunnerKind,
    /// The runner executable. A value with a `/` resolves against the config file's
    /// directory; a bare name is looked up in `PATH`, as a shell does.
    #[serde(default)]
    pub executable: Option<PathBuf>,
    /// (`kind = "maibot"`) The runner's own Python interpreter (3.12 or later), resolved
    /// like `executable`. Unless set, the host prepares a managed environment for the runner
    /// (`python_env`).
    #[serde(default)]
    pub python: Option<PathBuf>,
    /// (`kind = "maibot"`) The managed Python environment: where it lives, what it is made
    /// from, whether plugins' declared dependencies are installed, the package index.
    #[serde(default)]
    pub python_env: Option<PythonEnvConfig>,
    /// (`kind = "maibot"`) Folders of MaiBot plugins: each subfolder with a `_manifest.json`
    /// and a `plugin.py` is one plugin.
    #[serde(default)]
    pub plugin_dirs: Vec<PathBuf>,
    /// (`kind = "maibot"`) A MaiBot source checkout to run the runner from, instead of the
    /// `maibot` package installed for `python`.
    #[serde(default)]
    pub maibot_source: Option<PathBuf>,
    /// (`kind = "maibot"`) The MaiBot instance directory, where the runner writes its logs;
    /// `<data_dir>/maibot/<name>` unless set.
    #[serde(default)]
    pub instance_dir: Option<PathBuf>,
    /// (`kind = "maibot"`) The MaiBot version plugin manifests are checked against; the
    /// installed `maibot` package's own version unless set.
    #[serde(default)]
    pub host_version: Option<String>,
    /// (`kind = "maibot"`) MaiBot's force-compatibility switch: the runner loads plugins
    /// whose manifest's `host_application` range excludes `host_version`. The runner reads
    /// it once for all its plugins, so it is per runner.
    #[serde(default)]
    pub force_plugin_compatibility: bool,
    /// (`kind = "maibot"`) Grant every plugin of this runner what its manifest declares,
    /// unless its own `grant_declared` says otherwise.
    #[serde(default)]
    pub grant_declared: bool,
    /// A plugin folder with a `maitool-plugin.toml` manifest, instead of `executable`.
    #[serde(default)]
    pub plugin_dir: Option<PathBuf>,
    /// Arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Whether to start this runner.
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// Per-plugin settings, keyed by plugin id.
    #[serde(default)]
    pub plugins: BTreeMap<String, PluginSettings>,
    /// What the runner's sandbox allows besides the defaults, and its mode
    /// (`[runners.sandbox]`).
    #[serde(default)]
    pub sandbox: SandboxSettings,
}

/// The operator's settings for one plugin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginSettings {
    /// False: the plugin stays inactive.
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// Capabilities granted to the plugin: exact names this host serves (`send.text`),
    /// families (`kv.*`) or `*`; anything else is a configuration error that names the
    /// nearest known names.
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// (`kind = "maibot"`) Also grant what the plugin's `_manifest.json` declares, as MaiBot
    /// does; unset: the runner's `grant_declared`. Declared names this host does not serve
    /// are reported, not granted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_declared: Option<bool>,
    /// The plugin's configuration, merged over its defaults.
    #[serde(default)]
    pub config: JsonObject,
    /// A TOML file with the plugin's configuration, merged under `config`.
    #[serde(default)]
    pub config_file: Option<PathBuf>,
    /// The capabilities the plugin's manifest declares, as the host read it when resolving
    /// the runner (MaiBot plugin folders); never read from `maitool.toml`.
    #[serde(skip)]
    pub declared: Vec<String>,
}

impl Default for PluginSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            capabilities: Vec::new(),
            grant_declared: None,
            config: JsonObject::new(),
            config_file: None,
            declared: Vec::new(),
        }
    }
}

impl PluginSettings {
    /// Whether the plugin is granted what its manifest declares.
    pub fn grants_declared(&self) -> bool {
        self.grant_declared == Some(true)
    }

    /// Everything the plugin may call: the operator's `capabilities`, then, with
    /// `grant_declared`, each declared name this host serves that they do not already list.
    pub fn grants(&self) -> Vec<String> {
        let mut grants = self.capabilities.clone();
        if self.grants_declared() {
            for name in super::grant::declared_grants(&self.declared) {
                if !grants.contains(name) {
                    grants.push(name.clone());
                }
            }
        }
        grants
    }

    /// Merges the text of the plugin's TOML configuration file under `config`: keys set inline
    /// in `config` win over the file's.
    pub fn merge_config_file(&mut self, text: &str) -> Result<(), toml::de::Error> {
        let table: toml::Table = toml::from_str(text)?;
        let mut merged = match serde_json::to_value(table) {
            Ok(serde_json::Value::Object(object)) => object,
            _ => JsonObject::new(),
        };
        for (k, v) in std::mem::take(&mut self.config) {
            merged.insert(k, v);
        }
        self.config = merged;
        Ok(())
    }
}

fn default_true() -> bool {
    true
}

/// A plugin folder's manifest (`maitool-plugin.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginManifest {
    /// Plugin id.
    pub id: String,
    /// Semver version.
    pub version: String,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// Description.
    #[serde(default)]
    pub description: String,
    /// The runner executable, relative to the folder.
    pub executable: PathBuf,
    /// Capability grants.
    #[serde(default)]
    pub capabilities: Vec<String>,
    /// The plugin's configuration file, relative to the folder.
    #[serde(default)]
    pub config_file: Option<PathBuf>,
}

impl PluginManifest {
    /// Parses the text of a `maitool-plugin.toml`.
    pub fn from_toml(text: &str) -> Result<PluginManifest, toml::de::Error> {
        toml::from_str(text)
    }

    /// Adds the manifest's capability grants to the operator's settings of the plugin (each
    /// once) and its configuration file unless the operator named one, and returns the runner
    /// executable; paths resolve against the plugin folder `dir`. Reads nothing.
    pub fn apply(&self, dir: &Path, plugins: &mut BTreeMap<String, PluginSettings>) -> PathBuf {
        let settings = plugins.entry(self.id.clone()).or_default();
        for grant in &self.capabilities {
            if !settings.capabilities.contains(grant) {
                settings.capabilities.push(grant.clone());
            }
        }
        if settings.config_file.is_none() {
            settings.config_file = self.config_file.as_ref().map(|f| dir.join(f));
        }
        dir.join(&self.executable)
    }
}

/// A runner ready to launch: paths resolved, manifests and config files read.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedRunner {
    /// Runner name.
    pub name: String,
    /// Absolute executable path, or a bare name looked up in `PATH` at launch.
    pub executable: PathBuf,
    /// Arguments.
    pub args: Vec<String>,
    /// Extra environment.
    pub env: BTreeMap<String, String>,
    /// Per-plugin settings with configuration files merged in.
    pub plugins: BTreeMap<String, PluginSettings>,
    /// What MaiBot's runner needs besides, for a `kind = "maibot"` runner.
    pub maibot: Option<MaibotLaunch>,
    /// The plugin folder the runner came from (`plugin_dir`), if it did: its sandbox may
    /// read it.
    pub plugin_dir: Option<PathBuf>,
    /// The runner's sandbox settings, paths resolved.
    pub sandbox: SandboxSettings,
}

impl ResolvedRunner {
    /// A maitool runner started as `executable` with no arguments, environment or plugin
    /// settings.
    pub fn maitool(name: impl Into<String>, executable: impl Into<PathBuf>) -> ResolvedRunner {
        ResolvedRunner {
            name: name.into(),
            executable: executable.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            plugins: BTreeMap::new(),
            maibot: None,
            plugin_dir: None,
            sandbox: SandboxSettings::default(),
        }
    }

    /// Whether this is MaiBot's runner.
    pub fn kind(&self) -> RunnerKind {
        if self.maibot.is_some() {
            RunnerKind::Maibot
        } else {
            RunnerKind::Maitool
        }
    }
}

/// Resolves a program the way a shell does: a bare name (no `/`) is left for a `PATH`
/// lookup at launch, anything else is a path relative to `base`.
pub fn resolve_program(base: &Path, program: &Path) -> PathBuf {
    crate::program::resolve(base, program)
}

/// Where `program` (as [`resolve_program`] left it) is: itself when it has a `/`, else the
/// first executable file of that name in `PATH`.
pub fn find_program(program: &Path) -> Option<PathBuf> {
    crate::program::find_in(program, std::env::var_os("PATH").as_deref())
}

impl RunnerConfig {
    /// A maitool runner named `name` that starts `executable`, with every other setting at
    /// its default.
    pub fn executable(name: impl Into<String>, executable: impl Into<PathBuf>) -> RunnerConfig {
        RunnerConfig {
            name: name.into(),
            kind: RunnerKind::Maitool,
            executable: Some(executable.into()),
            python: None,
            python_env: None,
            plugin_dirs: Vec::new(),
            maibot_source: None,
            instance_dir: None,
            host_version: None,
            force_plugin_compatibility: false,
            grant_declared: false,
            plugin_dir: None,
            args: Vec::new(),
            env: BTreeMap::new(),
            enabled: true,
            plugins: BTreeMap::new(),
            sandbox: SandboxSettings::default(),
        }
    }

    /// Resolves paths against `base` and reads the manifest and configuration files.
    /// `data_dir` is where a MaiBot runner's default instance directory goes.
    pub fn resolve(
        &self,
        base: &Path,
        data_dir: &Path,
    ) -> Result<ResolvedRunner, RunnerConfigError> {
        let key = format!("runners.{}", self.name);
        if self.kind == RunnerKind::Maibot {
            return maibot::resolve(self, base, data_dir);
        }
        let maibot_only = [
            ("python", self.python.is_some()),
            ("python_env", self.python_env.is_some()),
            ("plugin_dirs", !self.plugin_dirs.is_empty()),
            ("maibot_source", self.maibot_source.is_some()),
            ("instance_dir", self.instance_dir.is_some()),
            ("host_version", self.host_version.is_some()),
            (
                "force_plugin_compatibility",
                self.force_plugin_compatibility,
            ),
            ("grant_declared", self.grant_declared),
        ];
        if let Some((field, _)) = maibot_only.iter().find(|(_, set)| *set) {
            return Err(RunnerConfigError::new(
                format!("{key}.{field}"),
                RunnerProblem::MaibotOnly,
            ));
        }
        let sandbox = self.resolve_sandbox(base)?;
        let mut plugins = self.plugins.clone();
        let executable = match (&self.executable, &self.plugin_dir) {
            (Some(exe), None) => resolve_program(base, exe),
            (None, Some(dir)) => {
                let dir = base.join(dir);
                let manifest_path = dir.join("maitool-plugin.toml");
                let at = format!("{key}.plugin_dir");
                let text = std::fs::read_to_string(&manifest_path).map_err(|error| {
                    RunnerConfigError::new(
                        at.clone(),
                        RunnerProblem::Read {
                            path: manifest_path.clone(),
                            error,
                        },
                    )
                })?;
                let manifest = PluginManifest::from_toml(&text).map_err(|error| {
                    RunnerConfigError::new(
                        at,
                        RunnerProblem::Toml {
                            path: manifest_path.clone(),
                            error: Box::new(error),
                        },
                    )
                })?;
                manifest.apply(&dir, &mut plugins)
            }
            (Some(_), Some(_)) => {
                return Err(RunnerConfigError::new(
                    key,
                    RunnerProblem::ExecutableAndPluginDir,
                ));
            }
            (None, None) => return Err(RunnerConfigError::new(key, RunnerProblem::NoProgram)),
        };
        for (plugin_id, settings) in plugins.iter_mut() {
            super::data_dir::check_plugin_id(plugin_id).map_err(|problem| {
                RunnerConfigError::new(format!("{key}.plugins"), RunnerProblem::PluginId(problem))
            })?;
            if settings.grant_declared.is_some() {
                return Err(RunnerConfigError::new(
                    format!("{key}.plugins.{plugin_id}.grant_declared"),
                    RunnerProblem::MaibotOnly,
                ));
            }
            for grant in &settings.capabilities {
                super::grant::check_grant(grant).map_err(|problem| {
                    RunnerConfigError::new(
                        format!("{key}.plugins.{plugin_id}.capabilities"),
                        RunnerProblem::Grant(problem),
                    )
                })?;
            }
            if let Some(file) = settings.config_file.clone() {
                let at = format!("{key}.plugins.{plugin_id}.config_file");
                let path = base.join(file);
                let text = std::fs::read_to_string(&path).map_err(|error| {
                    RunnerConfigError::new(
                        at.clone(),
                        RunnerProblem::Read {
                            path: path.clone(),
                            error,
                        },
                    )
                })?;
                settings.merge_config_file(&text).map_err(|error| {
                    RunnerConfigError::new(
                        at,
                        RunnerProblem::Toml {
                            path,
                            error: Box::new(error),
                        },
                    )
                })?;
            }
        }
        Ok(ResolvedRunner {
            name: self.name.clone(),
            executable,
            args: self.args.clone(),
            env: self.env.clone(),
            plugins,
            maibot: None,
            plugin_dir: self.plugin_dir.as_ref().map(|dir| base.join(dir)),
            sandbox,
        })
    }

    /// `[runners.sandbox]` with its paths resolved against `base`, checked.
    pub(crate) fn resolve_sandbox(
        &self,
        base: &Path,
    ) -> Result<SandboxSettings, RunnerConfigError> {
        self.sandbox.resolve(base).map_err(|(key, problem)| {
            RunnerConfigError::new(
                format!("runners.{}.sandbox.{key}", self.name),
                RunnerProblem::Sandbox(problem),
            )
        })
    }
}

/// Checks a plugin id that `runner` announces (in its registration) by the rules configured
/// ids follow: a valid id ([`check_plugin_id`](super::check_plugin_id): it names a data
/// directory), and not one the configuration gives to another of `runners` (a plugin id
/// belongs to one runner). An id no runner is configured with is the announcing runner's.
pub fn check_announced_plugin_id(
    runners: &[ResolvedRunner],
    runner: &str,
    plugin_id: &str,
) -> Result<(), AnnouncedIdError> {
    super::data_dir::check_plugin_id(plugin_id)?;
    match runners
        .iter()
        .find(|other| other.name != runner && other.plugins.contains_key(plugin_id))
    {
        Some(owner) => Err(AnnouncedIdError::OtherRunner {
            plugin_id: plugin_id.to_owned(),
            owner: owner.name.clone(),
            runner: runner.to_owned(),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
