//! A plugin offers or withdraws its own tools at run time (`tool.set_available`).

use std::time::Duration;

use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::methods::{SetToolAvailablePayload, SetToolAvailableResponse, names};

use crate::HostClient;

const SET_AVAILABLE_TIMEOUT: Duration = Duration::from_secs(10);

impl HostClient {
    /// Offers (`available = true`) or withdraws one of this plugin's tools, from the
    /// plugin's own run-time state (a device went offline, a quota ran out, a login
    /// expired). A withdrawn tool is left out of every tool listing and a call to it fails
    /// with `tool NAME is unavailable: REASON`; `reason` is ignored when making it
    /// available. Every tool starts available when the plugin loads, also after a restart.
    ///
    /// Returns whether the state changed. Fails with `E_TOOL_NOT_FOUND` if the plugin has
    /// no such tool, or when called before the plugin's tools are registered (an `on_load`
    /// hook runs after registration, so it may call this).
    ///
    /// ```no_run
    /// # async fn demo(host: &maitool_runner::HostClient) -> Result<(), maitool_protocol::rpc::RpcError> {
    /// host.set_tool_available("radar", false, "the radar is offline").await?;
    /// // ... later, when it is back:
    /// host.set_tool_available("radar", true, "").await?;
    /// # Ok(()) }
    /// ```
    pub async fn set_tool_available(
        &self,
        tool: &str,
        available: bool,
        reason: &str,
    ) -> Result<bool, RpcError> {
        let payload = SetToolAvailablePayload {
            tool: tool.to_owned(),
            available,
            reason: reason.to_owned(),
        };
        let answer: SetToolAvailableResponse = self
            .peer
            .call(
                names::SET_TOOL_AVAILABLE,
                &self.plugin_id,
                &payload,
                SET_AVAILABLE_TIMEOUT,
            )
            .await?;
        Ok(answer.changed)
    }
}
