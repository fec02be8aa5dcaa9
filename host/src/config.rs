//! The host configuration file (`maitool.toml`): every section, loaded and validated as a
//! whole so that a bad file is rejected with the key at fault and nothing half-applied.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

mod cluster;
mod store;
mod web;

pub use cluster::{ClusterConfigError, ClusterSection};
pub use store::{StoreBackend, StoreConfigError, StoreSection};
pub use web::WebSection;

use crate::builtin::BuiltinConfig;
use crate::mcp_client::McpConfig;
use crate::plugin::{BotConfig, LlmConfig, ResolvedRunner, RunnerConfig, RuntimeConfig};

/// `[host]`: where the host keeps its sockets and data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostSection {
    /// Parent directory of the private runner-socket directory (default: the system temp
    /// directory). Unix socket paths are limited to about 100 bytes.
    pub socket_dir: Option<PathBuf>,
    /// The control socket `maitool serve` listens on and the other verbs talk to.
    pub control_socket: PathBuf,
    /// Where the host keeps data: the plugins' key-value store, and each plugin's private
    /// directory under `plugins/<plugin id>`.
    pub data_dir: PathBuf,
    /// Whether the built-in engine tools are offered.
    pub enable_builtin: bool,
    /// How long a listing made while the host starts (an MCP client's first `tools/list`,
    /// `definitions`, a one-shot `tools`/`status`/`plugins`) waits for tool sources that are
    /// still starting. A source that failed is not waited for; one still starting after this
    /// joins later through `tools/list_changed`.
    pub listing_wait_ms: u64,
}

impl Default for HostSection {
    fn default() -> Self {
        Self {
            socket_dir: None,
            control_socket: PathBuf::from(".maitool/control.sock"),
            data_dir: PathBuf::from("data"),
            enable_builtin: true,
            listing_wait_ms: 5000,
        }
    }
}

/// The whole configuration file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostConfig {
    /// Sockets and data.
    pub host: HostSection,
    /// Supervision limits of the plugin runtime.
    pub plugin_runtime: RuntimeConfig,
    /// Plugin runners.
    pub runners: Vec<RunnerConfig>,
    /// Runner pools: plugins served by members that dial in (`[[pools]]`).
    pub pools: Vec<crate::plugin::PoolConfig>,
    /// External MCP servers.
    pub mcp: McpConfig,
    /// Built-in engine tools.
    pub builtin: BuiltinConfig,
    /// Who the bot is, as plugins read it through `config.get`.
    pub bot: BotConfig,
    /// The OpenAI-compatible endpoint behind plugins' `llm.*` capabilities; absent, they
    /// are refused.
    pub llm: Option<LlmConfig>,
    /// The headless browser behind plugins' `render.html2png`.
    pub render: crate::render::RenderConfig,
    /// The operator console (`maitool serve --web`).
    pub web: WebSection,
    /// Where shared state lives: embedded (the default) or PostgreSQL.
    pub store: StoreSection,
    /// How a host on the PostgreSQL store lists itself for `maitool status`.
    pub cluster: ClusterSection,
}

/// Why a configuration was rejected.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read (the OS's reason is the source).
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid TOML or does not fit the schema (names the key).
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, with the key and location.
        message: String,
    },
    /// A `${...}` reference cannot be expanded. Its line is part of this one, as the
    /// parser's is in [`ConfigError::Parse`]: both say what is wrong with the file.
    #[error("{path}: {error}")]
    Env {
        /// The file.
        path: PathBuf,
        /// The reference at fault.
        error: EnvError,
    },
    /// A value is invalid.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong and where.
        message: String,
    },
}

/// A validated configuration with every relative path resolved against the file's directory.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedConfig {
    /// The file it came from (`None`: built-in defaults).
    pub path: Option<PathBuf>,
    /// The configuration, paths resolved.
    pub config: HostConfig,
    /// The runners, resolved and with their manifests and configuration files read.
    pub runners: Vec<ResolvedRunner>,
}

impl HostConfig {
    /// Parses TOML text.
    pub fn from_toml(text: &str, path: &Path) -> Result<HostConfig, ConfigError> {
        toml::from_str(text).map_err(|err| ConfigError::Parse {
            path: path.to_path_buf(),
            message: err.to_string().trim().to_owned(),
        })
    }

    /// Parses the text of a configuration file as [`HostConfig::load`] does: environment
    /// references expanded ([`expand_env`]), then TOML. `path` only names the file in errors;
    /// nothing is read and nothing is validated yet (see [`HostConfig::resolve`]).
    pub fn parse(text: &str, path: &Path) -> Result<HostConfig, ConfigError> {
        let text = expand_env(text).map_err(|error| ConfigError::Env {
            path: path.to_path_buf(),
            error,
        })?;
        HostConfig::from_toml(&text, path)
    }

    /// Reads, parses, validates and resolves a file.
    pub fn load(path: &Path) -> Result<LoadedConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let config = HostConfig::parse(&text, path)?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let base = if base.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            base
        };
        let base = std::fs::canonicalize(&base).unwrap_or(base);
        config.resolve(Some(path.to_path_buf()), &base)
    }

    /// `--config PATH`, else `./maitool.toml` if present, else built-in defaults.
    pub fn discover(explicit: Option<&Path>) -> Result<LoadedConfig, ConfigError> {
        match explicit {
            Some(path) => HostConfig::load(path),
            None if Path::new("maitool.toml").exists() => {
                HostConfig::load(Path::new("maitool.toml"))
            }
            None => {
                let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
                HostConfig::default().resolve(None, &cwd)
            }
        }
    }

    /// Validates every section and resolves relative paths against `base`.
    pub fn resolve(
        mut self,
        path: Option<PathBuf>,
        base: &Path,
    ) -> Result<LoadedConfig, ConfigError> {
        let shown = path.clone().unwrap_or_else(|| PathBuf::from("<defaults>"));
        let invalid = |message: String| ConfigError::Invalid {
            path: shown.clone(),
            message,
        };
        self.plugin_runtime
            .validate()
            .map_err(|err| invalid(err.to_string()))?;
        self.store
            .postgres_url()
            .map_err(|err| invalid(err.to_string()))?;
        self.cluster
            .validate()
            .map_err(|err| invalid(err.to_string()))?;
        let mut names = std::collections::HashSet::new();
        for (index, runner) in self.runners.iter().enumerate() {
            if runner.name.trim().is_empty() {
                return Err(invalid(format!("runners[{index}].name must not be empty")));
            }
            if !names.insert(runner.name.clone()) {
                return Err(invalid(format!(
                    "runners[{index}].name: duplicate runner name {:?}",
                    runner.name
                )));
            }
        }
        let data_dir = if self.host.data_dir.is_absolute() {
            self.host.data_dir.clone()
        } else {
            base.join(&self.host.data_dir)
        };
        let runners = self
            .runners
            .iter()
            .filter(|r| r.enabled)
            .map(|r| r.resolve(base, &data_dir))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|err| invalid(err.to_string()))?;
        // A plugin id names one plugin's grants, configuration and data directory: two
        // runners providing it would race to register it, and the loser's would fail.
        let mut owners = std::collections::HashMap::new();
        for runner in &runners {
            for id in runner.plugins.keys() {
                if let Some(first) = owners.insert(id.as_str(), runner.name.as_str()) {
                    return Err(invalid(format!(
                        "runners.{}.plugins: plugin id {id:?} is also configured for runner {first:?}; a plugin id belongs to one runner",
                        runner.name
                    )));
                }
            }
        }
        crate::plugin::check_pools(
            &self.pools,
            runners.iter().flat_map(|runner| {
                runner
                    .plugins
                    .keys()
                    .map(|id| (id.as_str(), runner.name.as_str()))
            }),
        )
        .map_err(|err| invalid(err.to_string()))?;
        for pool in &mut self.pools {
            pool.resolve_paths(base);
        }
        for runner in &runners {
            // A MaiBot runner's interpreter that is missing fails its launch with the setup
            // hint instead: the other sources still serve.
            if runner.maibot.is_some() {
                continue;
            }
            let problem = match crate::plugin::find_program(&runner.executable) {
                None if runner.executable.components().count() == 1 => Some("not found in PATH"),
                None => Some(
                    "does not exist (build the examples with `cargo build --workspace --bins`)",
                ),
                Some(found) => runnable_problem(&found),
            };
            if let Some(problem) = problem {
                return Err(invalid(format!(
                    "runners.{}: executable {} {problem}",
                    runner.name,
                    runner.executable.display()
                )));
            }
        }
        let absolute = |p: &Path| {
            if p.is_absolute() || p.as_os_str() == ":memory:" {
                p.to_path_buf()
            } else {
                base.join(p)
            }
        };
        self.host.control_socket = absolute(&self.host.control_socket);
        self.host.data_dir = absolute(&self.host.data_dir);
        self.host.socket_dir = self.host.socket_dir.as_deref().map(absolute);
        self.builtin.database = absolute(&self.builtin.database);
        for seed in [
            &mut self.builtin.seed.memories,
            &mut self.builtin.seed.profiles,
            &mut self.builtin.seed.emoji_dir,
            &mut self.builtin.seed.messages,
        ] {
            if let Some(p) = seed.as_mut() {
                *p = absolute(p);
            }
        }
        self.builtin
            .validate()
            .map_err(|err| invalid(format!("builtin: {err}")))?;
        if let Some(file) = self.mcp.claude_desktop_config.as_mut() {
            *file = absolute(file);
        }
        for server in &mut self.mcp.servers {
            // A relative command with a slash names a file next to the configuration; a bare
            // name (`node`, `uvx`) is looked up on PATH.
            if server.command.contains('/') && Path::new(&server.command).is_relative() {
                server.command = base.join(&server.command).display().to_string();
            }
        }
        if let Some(llm) = &self.llm {
            llm.validate().map_err(|err| invalid(err.to_string()))?;
        }
        self.render
            .validate()
            .map_err(|err| invalid(err.to_string()))?;
        if self.mcp.enable {
            // One line for the operator: a Claude Desktop file's read error has the OS's
            // reason as its source.
            self.mcp
                .validate()
                .map_err(|err| invalid(crate::error_text::chain(&err)))?;
        }
        Ok(LoadedConfig {
            path,
            config: self,
            runners,
        })
    }
}

/// Why a runner executable that exists cannot be started: a directory, or a file without an
/// execute bit. A runner that cannot start would only crash-loop into `failed`.
fn runnable_problem(path: &Path) -> Option<&'static str> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Some("is a directory, not a program"),
        Ok(meta) if meta.permissions().mode() & 0o111 == 0 => {
            Some("is not executable (no execute permission)")
        }
        Ok(_) => None,
        Err(_) => Some("cannot be read"),
    }
}

/// A `${...}` reference in a configuration file that cannot be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    /// A `${` without its `}`.
    #[error("unterminated ${{ in {excerpt:?}")]
    Unterminated {
        /// The text from the `$`, cut at 40 characters.
        excerpt: String,
    },
    /// An unset (or empty) variable without a default.
    #[error("environment variable {name} is not set (use ${{{name}:-default}})")]
    Unset {
        /// The variable.
        name: String,
    },
}

/// Expands `${NAME}` and `${NAME:-default}` from the environment; `$$` is a literal `$`.
/// An unset variable without a default is an error naming it.
pub fn expand_env(text: &str) -> Result<String, EnvError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(body) = after.strip_prefix('{') {
            // The excerpt is cut by characters: a byte cut could split one and panic.
            let end = body.find('}').ok_or_else(|| EnvError::Unterminated {
                excerpt: rest.chars().take(40).collect(),
            })?;
            let expression = &body[..end];
            let (name, default) = match expression.split_once(":-") {
                Some((name, default)) => (name, Some(default)),
                None => (expression, None),
            };
            match (std::env::var(name).ok().filter(|v| !v.is_empty()), default) {
                (Some(value), _) => out.push_str(&value),
                (None, Some(default)) => out.push_str(default),
                (None, None) => {
                    return Err(EnvError::Unset {
                        name: name.to_owned(),
                    });
                }
            }
            rest = &body[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests;
