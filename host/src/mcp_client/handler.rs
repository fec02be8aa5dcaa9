//! The client side of one connection: tells the supervisor when the server's tool list
//! changed, forwards server log messages, and answers `roots/list`.

// Roots and logging are deprecated by SEP-2577 (2026-07-28) but legacy servers still use
// them, and MaiBot's config offers roots.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, ListRootsResult, LoggingLevel,
    LoggingMessageNotificationParam, ProtocolVersion, Root, RootsCapabilities,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use tokio::sync::Notify;

use super::config::McpClientConfig;

/// One connection's handler. `tools_changed` is shared with the server's supervisor.
#[derive(Debug, Clone)]
pub struct McpClientHandler {
    server: Arc<str>,
    client: Arc<McpClientConfig>,
    tools_changed: Arc<Notify>,
}

impl McpClientHandler {
    /// A handler for `server` that signals `tools_changed` on `tools/list_changed`.
    pub fn new(server: Arc<str>, client: Arc<McpClientConfig>, tools_changed: Arc<Notify>) -> Self {
        Self {
            server,
            client,
            tools_changed,
        }
    }
}

impl ClientHandler for McpClientHandler {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.client.roots.enable {
            capabilities.roots = Some(RootsCapabilities::default());
        }
        // `initialize` needs a version that has the handshake; the default (2026-07-28)
        // has none. Discover-mode connections ignore this field.
        ClientConfig::new(
            capabilities,
            Implementation::new(&self.client.client_name, &self.client.client_version),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::debug!(server = %self.server, "MCP server reported tools/list_changed");
        self.tools_changed.notify_one();
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let logger = params.logger.as_deref().unwrap_or("");
        let data = match &params.data {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let server = &*self.server;
        match params.level {
            LoggingLevel::Debug => {
                tracing::debug!(target: "maitool::mcp::server_log", server, logger, "{data}")
            }
            LoggingLevel::Info | LoggingLevel::Notice => {
                tracing::info!(target: "maitool::mcp::server_log", server, logger, "{data}")
            }
            LoggingLevel::Warning => {
                tracing::warn!(target: "maitool::mcp::server_log", server, logger, "{data}")
            }
            _ => tracing::error!(target: "maitool::mcp::server_log", server, logger, "{data}"),
        }
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, rmcp::ErrorData> {
        let roots = if self.client.roots.enable {
            self.client
                .roots
                .items
                .iter()
                .filter(|item| item.enabled)
                .map(|item| {
                    let root = Root::new(&item.uri);
                    if item.name.is_empty() {
                        root
                    } else {
                        root.with_name(&item.name)
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(ListRootsResult::new(roots))
    }
}
