//! What is wrong with the plugin runtime's configuration. A runner's error names the key
//! (`runners.dice.plugins.examples.dice.capabilities`) and a typed problem; the whole is one
//! line for the operator, and the underlying error (I/O, TOML, a refused grant or plugin id)
//! stays reachable in the problem's fields.

use std::fmt;
use std::path::PathBuf;

use maitool_protocol::launch::maibot::RUNNER_MODULE;

use crate::plugin::data_dir::PluginIdError;
use crate::plugin::grant::GrantError;

/// A `[plugin_runtime]` limit that would make supervision meaningless.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuntimeConfigError {
    /// A limit that must be positive is 0.
    #[error("plugin_runtime.{0} must be greater than 0")]
    NotPositive(&'static str),
    /// The restart backoff's maximum is below its start.
    #[error("plugin_runtime.restart_backoff_max_ms must be >= restart_backoff_initial_ms")]
    RestartBackoff,
    /// The spawn retry's maximum is below its start.
    #[error("plugin_runtime.spawn_retry_max_ms must be >= spawn_retry_initial_ms")]
    SpawnRetry,
    /// The circuit breaker's longest cool-down is below its first.
    #[error("plugin_runtime.circuit_max_cooldown_ms must be >= circuit_cooldown_ms")]
    CircuitCooldown,
}

/// A `[[runners]]` entry that cannot be resolved: the key it concerns and what is wrong.
#[derive(Debug, thiserror::Error)]
pub struct RunnerConfigError {
    /// The key path, from `runners.<name>`.
    pub key: String,
    /// What is wrong there.
    pub problem: RunnerProblem,
}

impl RunnerConfigError {
    pub(crate) fn new(key: impl Into<String>, problem: RunnerProblem) -> Self {
        RunnerConfigError {
            key: key.into(),
            problem,
        }
    }
}

impl fmt::Display for RunnerConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A problem about the key itself reads as a sentence about it.
        let separator = match self.problem {
            RunnerProblem::MaibotOnly
            | RunnerProblem::NotForMaibot
            | RunnerProblem::PythonEnv(crate::maibot_env::EnvConfigError::ManagedOnly) => " ",
            _ => ": ",
        };
        write!(f, "{}{separator}{}", self.key, self.problem)
    }
}

/// What is wrong with a runner's key. Each text is complete, the underlying error's included,
/// so the problem is not also returned as a source (which would print it twice).
#[derive(Debug, thiserror::Error)]
pub enum RunnerProblem {
    /// A MaiBot-only field on a maitool runner.
    #[error("is for MaiBot runners: add `kind = \"maibot\"`")]
    MaibotOnly,
    /// A maitool-only field on a MaiBot runner.
    #[error(
        "does not apply to a MaiBot runner (kind = \"maibot\"): it runs `python -m {RUNNER_MODULE}`; set `plugin_dirs` (and `python` for an interpreter of your own)"
    )]
    NotForMaibot,
    /// Both `executable` and `plugin_dir`.
    #[error("set either `executable` or `plugin_dir`, not both")]
    ExecutableAndPluginDir,
    /// Neither `executable` nor `plugin_dir`.
    #[error("needs `executable` or `plugin_dir`")]
    NoProgram,
    /// A file or folder that could not be read.
    #[error("cannot read {}: {error}", path.display())]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A TOML file that does not parse or fit its schema.
    #[error("{}: {error}", path.display())]
    Toml {
        /// The file.
        path: PathBuf,
        /// The parser's message, with the key and location (boxed: it is large).
        error: Box<toml::de::Error>,
    },
    /// A plugin id that cannot name a data directory.
    #[error("{0}")]
    PluginId(PluginIdError),
    /// A MaiBot plugin folder whose manifest's id cannot name a data directory.
    #[error("{}: {error}", folder.display())]
    FolderPluginId {
        /// The plugin's folder.
        folder: PathBuf,
        /// What is wrong with its id.
        error: PluginIdError,
    },
    /// A capability grant that would grant something other than it seems to.
    #[error("{0}")]
    Grant(GrantError),
    /// A `[runners.sandbox]` value the host refuses.
    #[error("{0}")]
    Sandbox(crate::sandbox::SandboxConfigError),
    /// A MaiBot runner without plugin folders.
    #[error("a MaiBot runner needs at least one folder of plugins")]
    NoPluginDirs,
    /// `maibot_source` that is no MaiBot checkout.
    #[error("{} is not a MaiBot checkout (no src/plugin_runtime)", path.display())]
    NotMaibotCheckout {
        /// The folder.
        path: PathBuf,
    },
    /// Settings for a plugin id none of the plugin folders holds.
    #[error("no plugin with this id in plugin_dirs (found: {})", if found.is_empty() { "none".to_owned() } else { found.join(", ") })]
    UnknownPlugin {
        /// The ids the folders hold.
        found: Vec<String>,
    },
    /// A `python_env` key that cannot be used.
    #[error("{0}")]
    PythonEnv(crate::maibot_env::EnvConfigError),
    /// `config_file` for a MaiBot plugin.
    #[error(
        "a MaiBot plugin's configuration is the config.toml in its folder; set overrides with `config`"
    )]
    MaibotConfigFile,
}

/// A plugin id a runner announces that the configuration does not let it use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnnouncedIdError {
    /// The id cannot name a data directory.
    #[error(transparent)]
    Invalid(#[from] PluginIdError),
    /// The configuration gives the id to another runner.
    #[error("plugin id {plugin_id:?} is configured for runner {owner:?}, not {runner:?}")]
    OtherRunner {
        /// The id.
        plugin_id: String,
        /// The runner configured with it.
        owner: String,
        /// The runner announcing it.
        runner: String,
    },
}
