//! The `[mcp]` configuration: MaiBot-compatible keys plus maitool's extensions, validated
//! for enabled servers only, and merged with an optional Claude-Desktop-style JSON file.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::claude_desktop::load_claude_desktop_config;

/// Default connect timeout of a stdio server (MaiBot's value).
const STDIO_CONNECT_TIMEOUT: f64 = 30.0;

/// An invalid `[mcp]` configuration or Claude Desktop file.
#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    /// One or more keys are invalid; every message names the server and the key.
    #[error("invalid MCP configuration: {}", .0.join("; "))]
    Invalid(Vec<String>),
    /// The Claude Desktop file could not be read.
    #[error("cannot read Claude Desktop config {}: {source}", path.display())]
    ClaudeDesktopRead {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The Claude Desktop file is not valid.
    #[error("invalid Claude Desktop config {}: {message}", path.display())]
    ClaudeDesktopParse {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the JSON location.
        message: String,
    },
}

/// The `[mcp]` table.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpConfig {
    /// Master switch. Defaults to `false`, as in MaiBot: a pasted config behaves the same.
    pub enable: bool,
    /// What the host tells servers about itself, plus MaiBot's client options.
    pub client: McpClientConfig,
    /// The servers, in priority order: on a tool-name collision the earlier server wins.
    pub servers: Vec<McpServerConfig>,
    /// Overrides every server's connect timeout (default: 30 s for stdio,
    /// `min(60, max(5, http_timeout_seconds + 5))` for remote servers).
    pub connect_timeout_seconds: Option<f64>,
    /// A Claude-Desktop-style `{"mcpServers": {...}}` JSON file whose servers are appended
    /// after `servers`.
    pub claude_desktop_config: Option<PathBuf>,
    /// Reconnection of servers that died or never came up.
    pub reconnect: McpReconnectConfig,
    /// Seconds between liveness checks of a connected server (`ping`, or a `tools/list` on
    /// 2026-07-28 connections, which have no ping); `0` disables them. Stdio servers that
    /// exit are noticed at once either way.
    pub health_check_interval_seconds: f64,
}

impl Default for McpConfig {
    fn default() -> Self {
        Self {
            enable: false,
            client: McpClientConfig::default(),
            servers: Vec::new(),
            connect_timeout_seconds: None,
            claude_desktop_config: None,
            reconnect: McpReconnectConfig::default(),
            health_check_interval_seconds: 30.0,
        }
    }
}

/// `[mcp.client]`: MaiBot's client options. maitool uses the name, version and roots;
/// sampling and elicitation are accepted for compatibility and must stay disabled.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpClientConfig {
    /// `clientInfo.name` sent to servers.
    pub client_name: String,
    /// `clientInfo.version` sent to servers.
    pub client_version: String,
    /// Filesystem roots offered to servers that ask for them.
    pub roots: McpRootsConfig,
    /// Server-initiated LLM sampling (not supported by maitool).
    pub sampling: McpSamplingConfig,
    /// Server-initiated user prompts (not supported by maitool).
    pub elicitation: McpElicitationConfig,
}

impl Default for McpClientConfig {
    fn default() -> Self {
        Self {
            client_name: "maitool".to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            roots: McpRootsConfig::default(),
            sampling: McpSamplingConfig::default(),
            elicitation: McpElicitationConfig::default(),
        }
    }
}

/// `[mcp.client.roots]`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpRootsConfig {
    /// Advertise the `roots` capability and answer `roots/list`.
    pub enable: bool,
    /// The roots.
    pub items: Vec<McpRootItem>,
}

/// One root.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpRootItem {
    /// Whether it is offered.
    pub enabled: bool,
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    pub name: String,
}

impl Default for McpRootItem {
    fn default() -> Self {
        Self {
            enabled: true,
            uri: String::new(),
            name: String::new(),
        }
    }
}

/// `[mcp.client.sampling]` (MaiBot compatibility; must stay disabled).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpSamplingConfig {
    /// Must be `false`: maitool has no LLM bridge for server sampling.
    pub enable: bool,
    /// MaiBot's model task.
    pub task_name: String,
    /// MaiBot's option; ignored.
    pub include_context_support: bool,
    /// MaiBot's option; ignored.
    pub tool_support: bool,
}

impl Default for McpSamplingConfig {
    fn default() -> Self {
        Self {
            enable: false,
            task_name: "planner".to_owned(),
            include_context_support: false,
            tool_support: false,
        }
    }
}

/// `[mcp.client.elicitation]` (MaiBot compatibility; must stay disabled).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpElicitationConfig {
    /// Must be `false`: maitool has no user-prompt bridge.
    pub enable: bool,
    /// MaiBot's option; ignored.
    pub allow_form: bool,
    /// MaiBot's option; ignored.
    pub allow_url: bool,
}

impl Default for McpElicitationConfig {
    fn default() -> Self {
        Self {
            enable: false,
            allow_form: true,
            allow_url: false,
        }
    }
}

/// `[mcp.reconnect]`: exponential backoff between connection attempts.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpReconnectConfig {
    /// Retry servers that died or failed to start. `false` leaves them failed (MaiBot).
    pub enable: bool,
    /// First delay, doubled after every failed attempt.
    pub initial_delay_seconds: f64,
    /// Upper bound of the delay.
    pub max_delay_seconds: f64,
}

impl Default for McpReconnectConfig {
    fn default() -> Self {
        Self {
            enable: true,
            initial_delay_seconds: 0.5,
            max_delay_seconds: 30.0,
        }
    }
}

/// How the host reaches a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    #[default]
    Stdio,
    /// MCP Streamable HTTP.
    StreamableHttp,
    /// The legacy HTTP+SSE transport (2024-11-05). Accepted in the config; rmcp 3.11 has no
    /// client for it, so such a server fails with a clear error.
    Sse,
}

impl McpTransport {
    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            McpTransport::Stdio => "stdio",
            McpTransport::StreamableHttp => "streamable_http",
            McpTransport::Sse => "sse",
        }
    }
}

/// Which lifecycle the host speaks with a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum McpProtocol {
    /// Probe with `server/discover` (2026-07-28) and fall back to `initialize` (2025-11-25).
    /// A legacy server that never answers the probe costs a 10 s wait at connect.
    #[default]
    Auto,
    /// Only the `initialize` handshake, pinned to 2025-11-25.
    Legacy,
    /// Only `server/discover` with 2026-07-28; legacy servers fail.
    Modern,
}

/// `authorization = { mode, bearer_token }`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpAuthorization {
    /// `none` or `bearer`.
    pub mode: McpAuthorizationMode,
    /// The token sent as `Authorization: Bearer <token>` in `bearer` mode.
    pub bearer_token: String,
}

/// Authorization modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum McpAuthorizationMode {
    /// No authorization header.
    #[default]
    None,
    /// A static bearer token.
    Bearer,
}

/// One `[[mcp.servers]]` entry.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpServerConfig {
    /// Unique name among enabled servers; used in logs, status and tool metadata.
    pub name: String,
    /// Disabled servers are not validated and never started.
    pub enabled: bool,
    /// How to reach the server.
    pub transport: McpTransport,
    /// stdio: the program to run (looked up in `PATH`).
    pub command: String,
    /// stdio: its arguments.
    pub args: Vec<String>,
    /// stdio: extra environment variables. The child gets only these plus a minimal safe
    /// set (`HOME`, `PATH`, `USER`, ...) unless `inherit_env` is set.
    pub env: BTreeMap<String, String>,
    /// stdio: pass the host's whole environment to the child.
    pub inherit_env: bool,
    /// stdio: working directory of the child.
    pub cwd: Option<PathBuf>,
    /// HTTP: the endpoint URL.
    pub url: String,
    /// HTTP: extra request headers.
    pub headers: BTreeMap<String, String>,
    /// HTTP: TCP connect timeout; also sets the default connect timeout of the server.
    pub http_timeout_seconds: f64,
    /// Hard cap on one tool call, however much progress the server reports.
    pub read_timeout_seconds: f64,
    /// A call fails when the server stays silent (no result, no progress) this long;
    /// every progress notification restarts the clock. Defaults to `read_timeout_seconds`.
    pub idle_timeout_seconds: Option<f64>,
    /// HTTP authorization.
    pub authorization: McpAuthorization,
    /// Prefix for this server's tool names, e.g. `time_`: the tool `get_current_time` is
    /// then exposed as `time_get_current_time`. Empty keeps MCP names.
    pub tool_prefix: String,
    /// Protocol era: `auto` (default), `legacy` or `modern`.
    pub protocol: McpProtocol,
}

impl Default for McpServerConfig {
    fn default() -> Self {
        Self {
            name: String::new(),
            enabled: true,
            transport: McpTransport::Stdio,
            command: String::new(),
            args: Vec::new(),
            env: BTreeMap::new(),
            inherit_env: false,
            cwd: None,
            url: String::new(),
            headers: BTreeMap::new(),
            http_timeout_seconds: 30.0,
            read_timeout_seconds: 300.0,
            idle_timeout_seconds: None,
            authorization: McpAuthorization::default(),
            tool_prefix: String::new(),
            protocol: McpProtocol::Auto,
        }
    }
}

impl McpServerConfig {
    /// A stdio server running `command args...`.
    pub fn stdio(
        name: impl Into<String>,
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            name: name.into(),
            transport: McpTransport::Stdio,
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// A Streamable HTTP server at `url`.
    pub fn streamable_http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            transport: McpTransport::StreamableHttp,
            url: url.into(),
            ..Self::default()
        }
    }

    /// The connect timeout: the global override, else 30 s for stdio and
    /// `min(60, max(5, http_timeout_seconds + 5))` for remote servers (MaiBot's rule).
    pub fn connect_timeout(&self, global_override: Option<f64>) -> Duration {
        let seconds = global_override.unwrap_or(match self.transport {
            McpTransport::Stdio => STDIO_CONNECT_TIMEOUT,
            McpTransport::StreamableHttp | McpTransport::Sse => {
                (self.http_timeout_seconds + 5.0).clamp(5.0, 60.0)
            }
        });
        Duration::from_secs_f64(seconds)
    }

    /// The idle timeout of one call (see `idle_timeout_seconds`).
    pub fn idle_timeout(&self) -> Duration {
        Duration::from_secs_f64(
            self.idle_timeout_seconds
                .unwrap_or(self.read_timeout_seconds),
        )
    }

    /// The hard cap of one call.
    pub fn read_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.read_timeout_seconds)
    }

    /// The HTTP connect timeout.
    pub fn http_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.http_timeout_seconds)
    }

    fn validate_into(&self, at: &str, problems: &mut Vec<String>) {
        let mut problem = |message: String| problems.push(format!("{at}: {message}"));
        match self.transport {
            McpTransport::Stdio => {
                if self.command.trim().is_empty() {
                    problem("transport \"stdio\" needs `command`".to_owned());
                }
            }
            McpTransport::StreamableHttp | McpTransport::Sse => {
                let transport = self.transport.as_str();
                let url = self.url.trim();
                if url.is_empty() {
                    problem(format!("transport \"{transport}\" needs `url`"));
                } else if !(url.starts_with("http://") || url.starts_with("https://")) {
                    problem(format!(
                        "`url` must start with http:// or https://, got {url:?}"
                    ));
                }
            }
        }
        for name in self.headers.keys() {
            if http::HeaderName::from_bytes(name.as_bytes()).is_err() {
                problem(format!("`headers` has an invalid header name {name:?}"));
            }
        }
        for (name, value) in &self.headers {
            if http::HeaderValue::from_str(value).is_err() {
                problem(format!("`headers.{name}` has an invalid header value"));
            }
        }
        if self.authorization.mode == McpAuthorizationMode::Bearer
            && self.authorization.bearer_token.trim().is_empty()
        {
            problem("`authorization.mode = \"bearer\"` needs `authorization.bearer_token`".into());
        }
        let timeouts = [
            ("http_timeout_seconds", Some(self.http_timeout_seconds)),
            ("read_timeout_seconds", Some(self.read_timeout_seconds)),
            ("idle_timeout_seconds", self.idle_timeout_seconds),
        ];
        for (key, value) in timeouts {
            if let Some(value) = value
                && !is_positive_seconds(value)
            {
                problem(format!(
                    "`{key}` must be a positive number of seconds, got {value}"
                ));
            }
        }
        if let Some(bad) = self
            .tool_prefix
            .chars()
            .find(|c| !super::naming::is_tool_name_char(*c))
        {
            problem(format!(
                "`tool_prefix` may only use A-Z a-z 0-9 _ . -, found {bad:?}"
            ));
        }
        if self.tool_prefix.len() > 64 {
            problem("`tool_prefix` is longer than 64 characters".to_owned());
        }
    }
}

impl McpConfig {
    /// Validates the enabled servers of `servers` and of the Claude Desktop file.
    pub fn validate(&self) -> Result<(), McpConfigError> {
        self.effective_servers().map(|_| ())
    }

    /// `servers` followed by the servers of the Claude Desktop file, validated: unique
    /// non-empty names among enabled servers, a command for stdio, a URL for HTTP, a token
    /// for bearer authorization, positive timeouts. Every problem is reported at once.
    pub fn effective_servers(&self) -> Result<Vec<McpServerConfig>, McpConfigError> {
        let mut located: Vec<(String, McpServerConfig)> = self
            .servers
            .iter()
            .enumerate()
            .map(|(index, server)| {
                let at = format!("mcp.servers[{index}] ({:?})", server.name);
                (at, server.clone())
            })
            .collect();
        if let Some(path) = &self.claude_desktop_config {
            for server in load_claude_desktop_config(path)? {
                let at = format!(
                    "claude_desktop_config {}: mcpServers.{:?}",
                    path.display(),
                    server.name
                );
                located.push((at, server));
            }
        }

        let mut problems = Vec::new();
        if let Some(value) = self.connect_timeout_seconds
            && !is_positive_seconds(value)
        {
            problems.push(format!(
                "mcp.connect_timeout_seconds must be a positive number of seconds, got {value}"
            ));
        }
        if !self.health_check_interval_seconds.is_finite()
            || self.health_check_interval_seconds < 0.0
        {
            problems.push(format!(
                "mcp.health_check_interval_seconds must be 0 (off) or positive, got {}",
                self.health_check_interval_seconds
            ));
        }
        let reconnect = &self.reconnect;
        for (key, value) in [
            ("initial_delay_seconds", reconnect.initial_delay_seconds),
            ("max_delay_seconds", reconnect.max_delay_seconds),
        ] {
            if !is_positive_seconds(value) {
                problems.push(format!(
                    "mcp.reconnect.{key} must be a positive number of seconds, got {value}"
                ));
            }
        }
        if self.client.sampling.enable {
            problems.push(
                "mcp.client.sampling.enable: server sampling is not supported by maitool; set it to false"
                    .to_owned(),
            );
        }
        if self.client.elicitation.enable {
            problems.push(
                "mcp.client.elicitation.enable: elicitation is not supported by maitool; set it to false"
                    .to_owned(),
            );
        }
        if self.client.roots.enable {
            for (index, root) in self.client.roots.items.iter().enumerate() {
                if root.enabled && root.uri.trim().is_empty() {
                    problems.push(format!("mcp.client.roots.items[{index}]: `uri` is empty"));
                }
            }
        }

        let mut seen = HashSet::new();
        for (at, server) in located.iter().filter(|(_, server)| server.enabled) {
            let name = server.name.trim();
            if name.is_empty() {
                problems.push(format!("{at}: `name` is empty"));
            } else if !seen.insert(name.to_owned()) {
                problems.push(format!(
                    "{at}: `name` {name:?} is used by another enabled server"
                ));
            }
            server.validate_into(at, &mut problems);
        }

        if problems.is_empty() {
            Ok(located.into_iter().map(|(_, server)| server).collect())
        } else {
            Err(McpConfigError::Invalid(problems))
        }
    }

    /// Makes relative paths (`claude_desktop_config`, servers' `cwd`) relative to `base`,
    /// normally the directory of the config file.
    pub fn resolve_paths(&mut self, base: &Path) {
        if let Some(path) = &mut self.claude_desktop_config
            && path.is_relative()
        {
            *path = base.join(&*path);
        }
        for server in &mut self.servers {
            if let Some(cwd) = &mut server.cwd
                && cwd.is_relative()
            {
                *cwd = base.join(&*cwd);
            }
        }
    }

    /// The delay before reconnect attempt `attempt` (0-based): `initial * 2^attempt`,
    /// capped at `max_delay_seconds`.
    pub fn reconnect_delay(&self, attempt: u32) -> Duration {
        let initial = self.reconnect.initial_delay_seconds;
        let max = self.reconnect.max_delay_seconds.max(initial);
        let factor = 2f64.powi(attempt.min(30) as i32);
        Duration::from_secs_f64((initial * factor).min(max))
    }
}

fn is_positive_seconds(value: f64) -> bool {
    value.is_finite() && value > 0.0 && value < 1.0e9
}

#[cfg(test)]
mod tests;
