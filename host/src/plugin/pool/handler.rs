//! The host's handler for a pool member's connection: what a launched runner's connection
//! does (`connection.rs`), for the pool's one plugin only, plus `runner.ready` marking the
//! member ready and `runner.draining` taking it off the invoke path.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::rpc::{IncomingMessage, Payload, RequestHandler, RpcError};
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::wire::methods::{
    AckPayload, DrainingPayload, RegisterComponentsPayload, RegisterComponentsResponse,
    RunnerReadyPayload, names,
};
use parking_lot::Mutex;
use tokio::sync::oneshot;

use super::super::connection::RunnerConnectionHandler;
use super::super::pool_members::{PoolMember, PoolMembers};

/// Serves one member's requests.
pub(crate) struct PoolMemberHandler {
    /// The launched runner's handler, over the pool's own `RunnerShared`.
    pub inner: RunnerConnectionHandler,
    pub plugin: String,
    pub members: Arc<PoolMembers>,
    pub member: Arc<PoolMember>,
    /// Where `runner.ready` goes, once.
    pub ready: Mutex<Option<oneshot::Sender<RunnerReadyPayload>>>,
    /// Calls the host has outstanding on this member, for the draining log.
    pub in_flight: Arc<dyn Fn() -> usize + Send + Sync>,
    /// The plugin version the registry holds, shared by the pool's members.
    pub version: Arc<super::rollout::RegisteredVersion>,
}

impl RequestHandler for PoolMemberHandler {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        match request.method() {
            names::REGISTER_COMPONENTS | names::REGISTER_PLUGIN => {
                match request.payload::<RegisterComponentsPayload>() {
                    Ok(payload) if payload.plugin_id != self.plugin => {
                        let reason = format!(
                            "pool {} serves plugin {}, not {}",
                            self.members.pool, self.plugin, payload.plugin_id
                        );
                        tracing::warn!(pool = %self.members.pool, member = %self.member.name, "components refused: {reason}");
                        std::future::ready(Payload::encode(&RegisterComponentsResponse {
                            accepted: false,
                            plugin_id: payload.plugin_id,
                            registered_components: Vec::new(),
                            reason,
                        }))
                        .boxed()
                    }
                    Ok(payload) => {
                        std::future::ready(self.register_member(&request, &payload)).boxed()
                    }
                    Err(_) => self.inner.handle(request),
                }
            }
            names::READY => std::future::ready(self.ready(&request)).boxed(),
            names::DRAINING => std::future::ready(self.draining(&request)).boxed(),
            // A member leaves by closing its connection (after draining): the pool's plugin
            // stays registered for the other members.
            names::UNREGISTER => std::future::ready(Payload::encode(&AckPayload {
                acknowledged: true,
                in_flight: 0,
            }))
            .boxed(),
            names::CAP_CALL if request.plugin_id() != self.plugin => {
                let refused = RpcError::new(
                    ErrorCode::Unauthorized,
                    format!(
                        "plugin {:?} does not belong to pool {}",
                        request.plugin_id(),
                        self.members.pool
                    ),
                );
                std::future::ready(Err(refused)).boxed()
            }
            _ => self.inner.handle(request),
        }
    }

    fn handle_broadcast(&self, message: IncomingMessage) {
        self.inner.handle_broadcast(message);
    }
}

impl PoolMemberHandler {
    fn ready(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        let ready: RunnerReadyPayload = request.payload()?;
        if let Some(sender) = self.ready.lock().take() {
            let _ = sender.send(ready);
        }
        Payload::encode(&AckPayload {
            acknowledged: true,
            in_flight: 0,
        })
    }

    /// Off the invoke path before the answer is sent: the member may close once it has the
    /// answer and nothing is in flight.
    fn draining(&self, request: &IncomingMessage) -> Result<Payload, RpcError> {
        let draining: DrainingPayload = request.payload().unwrap_or_default();
        self.members.drain(&self.member);
        let in_flight = (self.in_flight)();
        tracing::info!(pool = %self.members.pool, member = %self.member.name, reason = %draining.reason, member_in_flight = draining.in_flight, host_in_flight = in_flight, "pool member draining: no new calls go to it");
        Payload::encode(&AckPayload {
            acknowledged: true,
            in_flight: in_flight as u64,
        })
    }
}
