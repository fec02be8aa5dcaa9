//! The `[mcp]` configuration: MaiBot-compatible keys plus maitool's extensions, validated
//! for enabled servers only, and merged with an optional Claude-Desktop-style JSON file.
//! The `[mcp.client]` options live in `client_config`, one server entry in `server_config`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::claude_desktop::{ClaudeDesktopError, load_claude_desktop_config};
pub use super::client_config::{
    McpClientConfig, McpElicitationConfig, McpRootItem, McpRootsConfig, McpSamplingConfig,
};
use super::server_config::is_positive_seconds;
pub use super::server_config::{
    McpAuthorization, McpAuthorizationMode, McpProtocol, McpServerConfig, McpTransport,
};

/// An invalid `[mcp]` configuration or Claude Desktop file.
#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    /// One or more keys are invalid; every message names the server and the key.
    #[error("invalid MCP configuration: {}", .0.join("; "))]
    Invalid(Vec<String>),
    /// The Claude Desktop file could not be read or is not valid.
    #[error(transparent)]
    ClaudeDesktop(#[from] ClaudeDesktopError),
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

    /// Makes relative paths relative to `base`, normally the directory of the config file:
    /// `claude_desktop_config`, servers' `cwd`, and stdio `command`s that contain a `/`
    /// (`bin/server`, `./server`); a bare command name stays a `PATH` lookup.
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
            if server.command.contains('/') && Path::new(&server.command).is_relative() {
                server.command = base.join(&server.command).to_string_lossy().into_owned();
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

#[cfg(test)]
mod tests;
