//! The shared state of one configured server: what the supervisor learned, what callers
//! need to reach it, and what `status` reports.

use std::sync::Arc;

use parking_lot::Mutex;
use rmcp::Peer;
use rmcp::model::{Implementation, Tool};
use rmcp::service::RoleClient;
use tokio::sync::Notify;

use super::config::McpServerConfig;
use super::status::{McpServerState, McpServerStatus};

/// What a call needs from a live connection.
#[derive(Debug, Clone)]
pub struct LivePeer {
    /// The rmcp peer.
    pub peer: Peer<RoleClient>,
    /// The negotiated protocol version.
    pub protocol_version: String,
}

/// One configured server.
#[derive(Debug)]
pub struct ServerSlot {
    /// Its position in the effective server list.
    pub index: usize,
    /// Its configuration.
    pub config: McpServerConfig,
    /// Its name, shared with handlers and logs.
    pub name: Arc<str>,
    /// Signalled by the client handler on `tools/list_changed`.
    pub tools_changed: Arc<Notify>,
    inner: Mutex<SlotInner>,
}

#[derive(Debug)]
struct SlotInner {
    state: McpServerState,
    live: Option<LivePeer>,
    tools: Arc<Vec<Tool>>,
    protocol_version: Option<String>,
    server_info: Option<Implementation>,
    last_error: Option<String>,
    reconnect_count: u64,
    pid: Option<u32>,
    schema_errors: Vec<String>,
}

/// What a successful connection brings.
#[derive(Debug)]
pub struct Connected {
    /// The peer for calls.
    pub live: LivePeer,
    /// `serverInfo`.
    pub server_info: Option<Implementation>,
    /// The server's tools.
    pub tools: Vec<Tool>,
    /// The stdio process id.
    pub pid: Option<u32>,
}

impl ServerSlot {
    /// A slot in `Connecting` state, or `Disabled` when the server or MCP is disabled.
    pub fn new(index: usize, config: McpServerConfig, active: bool) -> Self {
        let state = if active {
            McpServerState::Connecting
        } else {
            McpServerState::Disabled
        };
        Self {
            index,
            name: Arc::from(config.name.as_str()),
            config,
            tools_changed: Arc::new(Notify::new()),
            inner: Mutex::new(SlotInner {
                state,
                live: None,
                tools: Arc::new(Vec::new()),
                protocol_version: None,
                server_info: None,
                last_error: None,
                reconnect_count: 0,
                pid: None,
                schema_errors: Vec::new(),
            }),
        }
    }

    /// The peer for a call, when connected.
    pub fn live(&self) -> Option<LivePeer> {
        self.inner.lock().live.clone()
    }

    /// The current tools.
    pub fn tools(&self) -> Arc<Vec<Tool>> {
        self.inner.lock().tools.clone()
    }

    /// The lifecycle state.
    pub fn state(&self) -> McpServerState {
        self.inner.lock().state
    }

    /// Records a successful connection; `reconnected` counts it as a reconnect.
    pub fn set_connected(&self, connected: Connected, reconnected: bool) {
        let mut inner = self.inner.lock();
        inner.state = McpServerState::Connected;
        inner.protocol_version = Some(connected.live.protocol_version.clone());
        inner.live = Some(connected.live);
        inner.server_info = connected.server_info;
        inner.schema_errors = schema_errors(&self.config.name, &connected.tools);
        inner.tools = Arc::new(connected.tools);
        inner.pid = connected.pid;
        if reconnected {
            inner.reconnect_count += 1;
        }
    }

    /// Replaces the tools after a `tools/list_changed` refresh.
    pub fn set_tools(&self, tools: Vec<Tool>) {
        let errors = schema_errors(&self.config.name, &tools);
        let mut inner = self.inner.lock();
        inner.schema_errors = errors;
        inner.tools = Arc::new(tools);
    }

    /// Records an error without changing the state (e.g. a failed refresh).
    pub fn record_error(&self, error: String) {
        self.inner.lock().last_error = Some(error);
    }

    /// Withdraws the connection and its tools after the server died.
    pub fn set_down(&self, state: McpServerState, error: Option<String>) {
        let mut inner = self.inner.lock();
        inner.state = state;
        inner.live = None;
        inner.tools = Arc::new(Vec::new());
        inner.pid = None;
        if error.is_some() {
            inner.last_error = error;
        }
    }

    /// The state to report after a failed connection attempt.
    pub fn set_attempt_failed(&self, error: String, ever_connected: bool) {
        let state = if ever_connected {
            McpServerState::Reconnecting
        } else {
            McpServerState::Failed
        };
        self.set_down(state, Some(error));
    }

    /// A snapshot for `status`; `exposed` comes from the catalog.
    pub fn status(&self, exposed: usize) -> McpServerStatus {
        let inner = self.inner.lock();
        McpServerStatus {
            name: self.config.name.clone(),
            transport: self.config.transport,
            state: inner.state,
            protocol_version: inner.protocol_version.clone(),
            server_name: inner.server_info.as_ref().map(|info| info.name.clone()),
            server_version: inner.server_info.as_ref().map(|info| info.version.clone()),
            tool_count: inner.tools.len(),
            exposed_tool_count: exposed,
            last_error: inner.last_error.clone(),
            reconnect_count: inner.reconnect_count,
            pid: inner.pid,
            schema_errors: inner.schema_errors.clone(),
        }
    }
}

/// `TOOL: PROBLEM` for each tool whose input schema (as exposed, see [`super::dialect`]) does
/// not compile, logged once here, when the list is set: such a tool's arguments go unchecked.
fn schema_errors(server: &str, tools: &[Tool]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|tool| {
            let schema = super::dialect::to_2020_12((*tool.input_schema).clone());
            let problem = super::dialect::compile_problem(&schema)?;
            tracing::warn!(server, tool = %tool.name, %problem, "MCP tool's input schema does not compile; its arguments are not checked");
            Some(format!("{}: {problem}", tool.name))
        })
        .collect()
}
