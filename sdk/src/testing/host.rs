//! The host's side of the connection: the handshake, registration, readiness and `cap.call`,
//! answered as maitool's host answers them.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::Platforms;
use maitool_protocol::rpc::{IncomingMessage, Payload, RequestHandler, RpcError};
use maitool_protocol::wire::message_flow::{RouteMessagePayload, RouteMessageResponse};
use maitool_protocol::wire::methods::{
    AckPayload, CapabilityRequestPayload, CapabilityResponsePayload, ComponentDeclaration,
    HelloPayload, HelloResponsePayload, PluginBootstrap, RegisterComponentsPayload,
    RegisterComponentsResponse, RunnerReadyPayload, names,
};
use maitool_protocol::wire::{ErrorCode, PROTOCOL_VERSION};
use parking_lot::Mutex;
use tokio::sync::oneshot;

use super::capabilities::Capabilities;

/// What the test host knows and keeps.
pub(crate) struct HostState {
    pub(crate) plugin_id: String,
    pub(crate) session_token: String,
    pub(crate) bootstrap: PluginBootstrap,
    pub(crate) capabilities: Capabilities,
    /// The components the plugin registered last (none after it withdrew them).
    pub(crate) declarations: Mutex<Vec<ComponentDeclaration>>,
    /// The plugin's configuration error, when it registered with one (the host would pause
    /// its tools).
    pub(crate) config_error: Mutex<Option<String>>,
    /// Told once, when the runner reports ready.
    pub(crate) ready: Mutex<Option<oneshot::Sender<RunnerReadyPayload>>>,
    /// The messages the plugin routed (`host.route_message`), in order.
    pub(crate) routed: Mutex<Vec<RouteMessagePayload>>,
}

/// The peer's request handler.
pub(crate) struct TestHost(pub(crate) Arc<HostState>);

impl RequestHandler for TestHost {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let state = &self.0;
        let answer = match request.method() {
            names::HELLO => state.hello(&request),
            names::REGISTER_COMPONENTS | names::REGISTER_PLUGIN => state.register(&request),
            names::BOOTSTRAP | names::UNREGISTER => ack(),
            names::READY => state.ready(&request),
            names::CAP_CALL => state.capability(&request),
            names::ROUTE_MESSAGE => state.route_message(&request),
            other => Err(RpcError::method_not_allowed(other)),
        };
        std::future::ready(answer).boxed()
    }
}

fn ack() -> Result<Payload, RpcError> {
    Payload::encode(&AckPayload {
        acknowledged: true,
        in_flight: 0,
    })
}

impl HostState {
    fn hello(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        let hello: HelloPayload = request.payload()?;
        let accepted = hello.session_token == self.session_token;
        let mut answer = HelloResponsePayload {
            accepted,
            host_version: format!("maitool-sdk-testing {}", env!("CARGO_PKG_VERSION")),
            protocol_version: PROTOCOL_VERSION.to_owned(),
            ..HelloResponsePayload::default()
        };
        if accepted {
            answer
                .plugins
                .insert(self.plugin_id.clone(), self.bootstrap.clone());
        } else {
            answer.reason = "wrong session token".to_owned();
        }
        Payload::encode(&answer)
    }

    fn register(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        let payload: RegisterComponentsPayload = request.payload()?;
        // As the host does: a `platforms` value that is not a name or a list of names
        // refuses the whole set.
        let refusal = if payload.plugin_id != self.plugin_id {
            Some(format!(
                "plugin {} is not the plugin under test",
                payload.plugin_id
            ))
        } else {
            payload.components.iter().find_map(|component| {
                Platforms::from_declaration(component.metadata.get("platforms"))
                    .err()
                    .map(|problem| format!("component {}: {problem}", component.name))
            })
        };
        let accepted = refusal.is_none();
        if accepted {
            *self.declarations.lock() = payload.components.clone();
            *self.config_error.lock() =
                Some(payload.config_error.clone()).filter(|problem| !problem.is_empty());
        }
        Payload::encode(&RegisterComponentsResponse {
            accepted,
            registered_components: payload.components.iter().map(|c| c.name.clone()).collect(),
            reason: refusal.unwrap_or_default(),
            plugin_id: payload.plugin_id,
        })
    }

    fn ready(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        let ready: RunnerReadyPayload = request.payload()?;
        if let Some(waiting) = self.ready.lock().take() {
            let _ = waiting.send(ready);
        }
        ack()
    }

    /// Records a routed message, refused as the host refuses it when the plugin declares no
    /// such receiving gateway. The test host runs no message flow: the answer has no outcome.
    fn route_message(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        let routed: RouteMessagePayload = request.payload()?;
        let receives = self.declarations.lock().iter().any(|d| {
            d.component_type == "MESSAGE_GATEWAY"
                && d.name == routed.gateway_name
                && matches!(
                    d.metadata.get("route_type").and_then(|r| r.as_str()),
                    Some("receive" | "duplex")
                )
        });
        if !receives {
            return Err(RpcError::new(
                ErrorCode::MethodNotAllowed,
                format!(
                    "plugin {} declares no message gateway {:?} that receives (route_type receive or duplex)",
                    self.plugin_id, routed.gateway_name
                ),
            ));
        }
        self.routed.lock().push(routed);
        Payload::encode(&RouteMessageResponse {
            accepted: true,
            ..RouteMessageResponse::default()
        })
    }

    fn capability(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        // A plugin acts only as itself (the host refuses a spoofed id the same way).
        if request.plugin_id() != self.plugin_id {
            return Err(RpcError::new(
                ErrorCode::Unauthorized,
                format!(
                    "plugin {:?} does not belong to runner maitool-test",
                    request.plugin_id()
                ),
            ));
        }
        let call: CapabilityRequestPayload = request.payload()?;
        let result = self
            .capabilities
            .call(&self.plugin_id, &call.capability, call.args)?;
        Payload::encode(&CapabilityResponsePayload {
            success: true,
            result,
        })
    }
}
