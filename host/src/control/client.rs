use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use interprocess::local_socket::tokio::Stream;
use interprocess::local_socket::tokio::prelude::*;
use interprocess::local_socket::{GenericFilePath, ToFsName};
use maitool_protocol::rpc::{
    IncomingMessage, Payload, PeerConfig, RequestHandler, RpcError, RpcPeer,
};
use maitool_protocol::wire::EmptyPayload;
use maitool_protocol::{
    ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec,
};

use super::views::{Definitions, PluginView};
use super::{
    CallRequest, DefinitionsRequest, MetricsResponse, ToggleRequest, ToggleResponse, ToolsRequest,
    ToolsResponse, methods,
};

/// A control-socket request failed.
pub type ControlError = RpcError;

/// Talks to a running `maitool serve`.
#[derive(Clone)]
pub struct ControlClient {
    peer: RpcPeer,
}

impl std::fmt::Debug for ControlClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControlClient").finish_non_exhaustive()
    }
}

/// The client serves nothing; every request from the server is refused.
struct NoRequests;

impl RequestHandler for NoRequests {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        std::future::ready(Err(RpcError::method_not_allowed(request.method()))).boxed()
    }
}

/// Tool calls may take as long as the slowest tool; the host enforces tool timeouts.
const CALL_LIMIT: Duration = Duration::from_secs(3600);
const QUERY_LIMIT: Duration = Duration::from_secs(30);

impl ControlClient {
    /// Connects when a host is listening on `path`; `None` otherwise.
    pub async fn connect(path: &Path) -> Option<ControlClient> {
        if !path.exists() {
            return None;
        }
        let name = path.to_fs_name::<GenericFilePath>().ok()?;
        let stream = tokio::time::timeout(Duration::from_secs(2), Stream::connect(name))
            .await
            .ok()?
            .ok()?;
        Some(ControlClient {
            peer: RpcPeer::start(
                stream,
                Arc::new(NoRequests),
                PeerConfig::new("control-client"),
            ),
        })
    }

    /// Lists tools for a context.
    pub async fn tools(
        &self,
        context: ToolAvailabilityContext,
    ) -> Result<Vec<std::sync::Arc<ToolSpec>>, ControlError> {
        let answer: ToolsResponse = self
            .peer
            .call(methods::TOOLS, "", &ToolsRequest { context }, QUERY_LIMIT)
            .await?;
        Ok(answer.tools)
    }

    /// Calls a tool.
    pub async fn call(
        &self,
        invocation: ToolInvocation,
        context: ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ControlError> {
        self.peer
            .call(
                methods::CALL,
                "",
                &CallRequest {
                    invocation,
                    context,
                },
                CALL_LIMIT,
            )
            .await
    }

    /// Hands the host a chat message; what happened to it. A malformed message is an
    /// `E_BAD_PAYLOAD` error whose message names the problem.
    pub async fn message(
        &self,
        message: crate::messages::ChatMessage,
    ) -> Result<crate::messages::MessageOutcome, ControlError> {
        self.peer
            .call(
                methods::MESSAGE,
                "",
                &super::MessageRequest { message },
                CALL_LIMIT,
            )
            .await
    }

    /// The host's status as JSON.
    pub async fn status(&self) -> Result<serde_json::Value, ControlError> {
        self.peer
            .call(methods::STATUS, "", &EmptyPayload {}, QUERY_LIMIT)
            .await
    }

    /// Re-reads the host's configuration file and applies it; the report as JSON. A rejected
    /// configuration is an error and changes nothing.
    pub async fn reload(&self) -> Result<serde_json::Value, ControlError> {
        self.peer
            .call(
                methods::RELOAD,
                "",
                &EmptyPayload {},
                Duration::from_secs(120),
            )
            .await
    }

    /// Every plugin with its components.
    pub async fn plugins(&self) -> Result<Vec<PluginView>, ControlError> {
        self.peer
            .call(methods::PLUGINS, "", &EmptyPayload {}, QUERY_LIMIT)
            .await
    }

    /// The model definitions an engine would send for a context.
    pub async fn definitions(
        &self,
        request: DefinitionsRequest,
    ) -> Result<Definitions, ControlError> {
        self.peer
            .call(methods::DEFINITIONS, "", &request, QUERY_LIMIT)
            .await
    }

    /// Runs a named hook over the host's plugins; an unknown hook or invalid kwargs is an
    /// error.
    pub async fn hook(
        &self,
        name: &str,
        kwargs: maitool_protocol::JsonObject,
    ) -> Result<crate::hook::HookOutcome, ControlError> {
        let request = super::HookRequest {
            name: name.to_owned(),
            kwargs,
        };
        // A hook's handlers may each take their timeout: no query limit of our own.
        self.peer
            .call(methods::HOOK, "", &request, Duration::from_secs(600))
            .await
    }

    /// MaiBot's hooks, who runs them and the handlers subscribed.
    pub async fn hooks(&self) -> Result<Vec<super::views::HookView>, ControlError> {
        self.peer
            .call(methods::HOOKS, "", &EmptyPayload {}, QUERY_LIMIT)
            .await
    }

    /// The Prometheus text exposition of the host's metrics.
    pub async fn metrics(&self) -> Result<String, ControlError> {
        let answer: MetricsResponse = self
            .peer
            .call(methods::METRICS, "", &EmptyPayload {}, QUERY_LIMIT)
            .await?;
        Ok(answer.text)
    }

    /// Enables or disables a component.
    /// Stops runner `name` and starts it again (a runner marked failed too); returns once
    /// the new process is started, before it is ready.
    pub async fn restart(&self, name: &str) -> Result<(), ControlError> {
        let request = super::RestartRequest {
            runner: name.to_owned(),
        };
        let _: EmptyPayload = self
            .peer
            .call(methods::RESTART, "", &request, Duration::from_secs(60))
            .await?;
        Ok(())
    }

    pub async fn toggle(
        &self,
        name: &str,
        enabled: bool,
        session_id: Option<String>,
    ) -> Result<String, ControlError> {
        let request = ToggleRequest {
            name: name.to_owned(),
            enabled,
            session_id,
        };
        let answer: ToggleResponse = self
            .peer
            .call(methods::TOGGLE, "", &request, QUERY_LIMIT)
            .await?;
        Ok(answer.full_name)
    }
}
