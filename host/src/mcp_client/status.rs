//! What `status` reports about each server.

use serde::Serialize;

use super::config::McpTransport;

/// The lifecycle state of one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum McpServerState {
    /// The first connection attempt is running.
    Connecting,
    /// Connected; its tools are exposed.
    Connected,
    /// It was connected and died; its tools are withdrawn while the host retries.
    Reconnecting,
    /// It never connected (the host keeps retrying if reconnect is enabled).
    Failed,
    /// `enabled = false`, or `[mcp] enable = false`.
    Disabled,
    /// The provider was closed.
    Closed,
}

impl McpServerState {
    /// The status spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            McpServerState::Connecting => "connecting",
            McpServerState::Connected => "connected",
            McpServerState::Reconnecting => "reconnecting",
            McpServerState::Failed => "failed",
            McpServerState::Disabled => "disabled",
            McpServerState::Closed => "closed",
        }
    }
}

/// A snapshot of one server, for `maitool status` and dashboards.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpServerStatus {
    /// The configured name.
    pub name: String,
    /// The configured transport.
    pub transport: McpTransport,
    /// The lifecycle state.
    pub state: McpServerState,
    /// The negotiated protocol version of the current (or last) connection.
    pub protocol_version: Option<String>,
    /// `serverInfo.name` reported by the server.
    pub server_name: Option<String>,
    /// `serverInfo.version` reported by the server.
    pub server_version: Option<String>,
    /// Tools the server lists now (0 while it is down).
    pub tool_count: usize,
    /// Tools of this server that are exposed, after cross-server name collisions.
    pub exposed_tool_count: usize,
    /// The latest connection or liveness error.
    pub last_error: Option<String>,
    /// Successful reconnections after the server died.
    pub reconnect_count: u64,
    /// Process id (and process group id) of a running stdio server.
    pub pid: Option<u32>,
    /// `TOOL: PROBLEM` for each listed tool whose input schema does not compile (its
    /// arguments are not checked); empty when all do.
    pub schema_errors: Vec<String>,
}
