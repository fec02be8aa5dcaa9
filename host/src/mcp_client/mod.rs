//! Tools of external MCP servers, through rmcp (pinned `=3.11.0`).
//!
//! * [`config`]: the MaiBot-compatible `[mcp]` table and its validation;
//!   [`claude_desktop`]: import of `{"mcpServers": {...}}` JSON files.
//! * [`provider`]: [`McpToolProvider`], the `ToolProvider` over every server; each server
//!   has a supervisor (`supervisor`) that connects, refreshes, health-checks and
//!   reconnects it, publishing into the state both share (`shared`).
//! * `connect`, `process`, `handler`: one connection (stdio child in its own process
//!   group with stderr in the log, or Streamable HTTP and legacy SSE with the `http`
//!   feature), and its client callbacks.
//! * `listing`: `tools/list` read tool by tool, so one malformed tool does not lose the
//!   server.
//! * [`catalog`], [`naming`], [`spec`]: the exposed tool set, names and `ToolSpec`s;
//!   `call`, [`result`]: one call and the mapping of its outcome; `raw_result`: a result
//!   rmcp cannot read as a whole, read block by block.
//!
//! Operator documentation: `docs/MCP_CLIENT.md`.

mod call;
pub mod catalog;
pub mod claude_desktop;
pub mod client_config;
pub mod config;
mod connect;
pub mod dialect;
mod handler;
#[cfg(feature = "http")]
mod http_client;
mod listing;
pub mod naming;
mod process;
pub mod provider;
mod raw_result;
mod redact;
pub mod result;
pub mod server_config;
mod shared;
mod slot;
pub mod spec;
#[cfg(feature = "http")]
mod sse;
#[cfg(feature = "http")]
mod sse_events;
pub mod status;
mod stdout_guard;
mod supervisor;

pub use claude_desktop::{ClaudeDesktopError, load_claude_desktop_config};
pub use config::{
    McpAuthorization, McpAuthorizationMode, McpClientConfig, McpConfig, McpConfigError,
    McpElicitationConfig, McpProtocol, McpReconnectConfig, McpRootItem, McpRootsConfig,
    McpSamplingConfig, McpServerConfig, McpTransport,
};
pub use provider::McpToolProvider;
pub use status::{McpServerState, McpServerStatus};
