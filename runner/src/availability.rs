//! What a plugin tells the host on its own initiative, besides capabilities: it offers or
//! withdraws its tools at run time (`tool.set_available`), and hands it chat messages it
//! received (`host.route_message`).

use std::time::Duration;

use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::message_flow::{RouteMessagePayload, RouteMessageResponse};
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

/// How long the host may take over a routed message: the whole message flow (event
/// handlers, a command) runs before it answers.
const ROUTE_TIMEOUT: Duration = Duration::from_secs(120);

impl HostClient {
    /// Hands the host a chat message this plugin received from outside, through its
    /// receiving message gateway `gateway` (`host.route_message`): the host takes it through
    /// its message flow and answers with what happened.
    ///
    /// ```no_run
    /// # async fn demo(host: &maitool_runner::HostClient) -> Result<(), maitool_protocol::rpc::RpcError> {
    /// let message = serde_json::json!({
    ///     "platform": "irc", "processed_plain_text": "hello",
    ///     "message_info": {"user_info": {"user_id": "alice", "user_nickname": "Alice"}},
    /// });
    /// let answer = host.route_message("irc_in", message.as_object().unwrap().clone()).await?;
    /// assert!(answer.accepted);
    /// # Ok(()) }
    /// ```
    pub async fn route_message(
        &self,
        gateway: &str,
        message: maitool_protocol::JsonObject,
    ) -> Result<RouteMessageResponse, RpcError> {
        let payload = RouteMessagePayload {
            gateway_name: gateway.to_owned(),
            message,
            ..RouteMessagePayload::default()
        };
        self.peer
            .call(
                names::ROUTE_MESSAGE,
                &self.plugin_id,
                &payload,
                ROUTE_TIMEOUT,
            )
            .await
    }
}
