//! `tool.set_available`: a plugin offers or withdraws one of its tools from run-time state
//! (the seed's "插件工具也可以基于运行时状态做可见性判断").
//!
//! The state lives in the [`ComponentRegistry`](super::ComponentRegistry): an unavailable tool
//! is left out of listings and refused when called (see `provider.rs`).

use maitool_protocol::rpc::{IncomingMessage, Payload, RpcError};
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::wire::methods::{SetToolAvailablePayload, SetToolAvailableResponse};

use super::connection::RunnerConnectionHandler;

/// The `error_code` of a call refused because its plugin made the tool unavailable.
pub(crate) const UNAVAILABLE_CODE: &str = "E_TOOL_UNAVAILABLE";

impl RunnerConnectionHandler {
    /// Serves `tool.set_available` for the plugin named in the envelope, which must be one of
    /// this runner's.
    pub(super) fn set_tool_available(
        &self,
        request: &IncomingMessage,
    ) -> Result<Payload, RpcError> {
        let payload: SetToolAvailablePayload = request.payload()?;
        let plugin_id = request.plugin_id();
        match self.runtime.owner_of(plugin_id) {
            Some(owner) if owner == self.runner.name => {}
            Some(owner) => {
                return Err(RpcError::new(
                    ErrorCode::Unauthorized,
                    format!("plugin {plugin_id} belongs to runner {owner}"),
                ));
            }
            None => {
                return Err(RpcError::new(
                    ErrorCode::PluginNotFound,
                    format!("plugin {plugin_id:?} has registered no components"),
                ));
            }
        }
        let reason = payload.reason.trim();
        let changed = self
            .runtime
            .components
            .set_available(plugin_id, &payload.tool, payload.available, reason)
            .map_err(|problem| RpcError::new(ErrorCode::ToolNotFound, problem.to_string()))?;
        if changed {
            // Listings and the MCP front's tools/list_changed follow the tool-set version.
            self.runtime.version.bump();
            if payload.available {
                tracing::info!(runner = %self.runner.name, plugin_id, tool = %payload.tool, "tool available again");
            } else {
                tracing::info!(runner = %self.runner.name, plugin_id, tool = %payload.tool, reason, "tool made unavailable by its plugin");
            }
        }
        Payload::encode(&SetToolAvailableResponse { changed })
    }
}

/// The message of a refused call to `name`.
pub(crate) fn refusal(name: &str, reason: &str) -> String {
    if reason.is_empty() {
        format!("tool {name} is unavailable right now")
    } else {
        format!("tool {name} is unavailable: {reason}")
    }
}
