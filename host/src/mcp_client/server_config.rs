//! One `[[mcp.servers]]` entry: transport, command or URL, timeouts, authorization,
//! naming and protocol era; and its validation.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Default connect timeout of a stdio server (MaiBot's value).
const STDIO_CONNECT_TIMEOUT: f64 = 30.0;

/// How the host reaches a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    #[default]
    Stdio,
    /// MCP Streamable HTTP.
    StreamableHttp,
    /// The legacy HTTP+SSE transport (2024-11-05): `url` is the event-stream endpoint
    /// (usually ending in `/sse`). maitool implements it; rmcp 3.11 has no client for it.
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

/// `authorization = { mode, bearer_token }`. `Debug` redacts the token (see `redact`).
#[derive(Clone, PartialEq, Default, Deserialize, Serialize)]
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

/// One `[[mcp.servers]]` entry. `Debug` redacts the bearer token and the values of
/// `headers` and `env` (see `redact`), so configs can be logged.
#[derive(Clone, PartialEq, Deserialize, Serialize)]
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

    pub(super) fn validate_into(&self, at: &str, problems: &mut Vec<String>) {
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

pub(super) fn is_positive_seconds(value: f64) -> bool {
    value.is_finite() && value > 0.0 && value < 1.0e9
}
