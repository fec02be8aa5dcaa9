//! One member's connection from its handshake to its end: the RPC peer, `runner.ready`,
//! routing (while it is ready and not draining), health checks, and its removal.

use std::sync::Arc;
use std::time::Duration;

use maitool_protocol::rpc::{PeerConfig, RpcError, RpcPeer};
use maitool_protocol::wire::methods::{HealthPayload, HelloPayload, names};
use maitool_protocol::wire::{EmptyPayload, ErrorCode};
use parking_lot::Mutex;
use tokio::sync::{oneshot, watch};

use super::Pool;
use super::handler::PoolMemberHandler;
use super::handshake::PoolFramed;
use crate::plugin::connection::RunnerConnectionHandler;
use crate::plugin::live_peer::LivePeer;
use crate::plugin::pool_members::PoolMember;
use crate::plugin::shared::RuntimeShared;

/// Serves a member that passed its handshake until its connection ends, the pool stops, or
/// it stops answering health checks.
pub(super) async fn serve(
    runtime: Arc<RuntimeShared>,
    pool: Arc<Pool>,
    framed: PoolFramed,
    hello: HelloPayload,
    peer: std::net::SocketAddr,
    mut stop: watch::Receiver<bool>,
) {
    let name = if hello.member.is_empty() {
        hello.runner_id.clone()
    } else {
        hello.member.clone()
    };
    let member = Arc::new(PoolMember::new(
        pool.next_member_id(),
        name.clone(),
        peer.to_string(),
        hello.runner_version.clone(),
    ));
    let (ready_tx, ready_rx) = oneshot::channel();
    let peer_slot: Arc<Mutex<Option<RpcPeer>>> = Arc::default();
    let in_flight = {
        let slot = peer_slot.clone();
        Arc::new(move || slot.lock().as_ref().map_or(0, RpcPeer::in_flight))
    };
    let handler = Arc::new(PoolMemberHandler {
        inner: RunnerConnectionHandler {
            runtime: runtime.clone(),
            runner: pool.runner.clone(),
        },
        plugin: pool.plugin.clone(),
        members: pool.members.clone(),
        member: member.clone(),
        ready: Mutex::new(Some(ready_tx)),
        in_flight,
        version: pool.version.clone(),
    });
    let peer = RpcPeer::start_framed(
        framed,
        handler,
        PeerConfig {
            name: format!("{}/{name}", pool.name),
            ..PeerConfig::default()
        },
    );
    *peer_slot.lock() = Some(peer.clone());
    let (live, launch_end) = LivePeer::new(peer.clone(), hello.reads_context);
    let pool_name = pool.name.as_str();
    tracing::info!(pool = %pool_name, member = %name, runner_version = %hello.runner_version, sdk_version = %hello.sdk_version, "pool member connected");

    let config = &runtime.config;
    let ready_limit = Duration::from_millis(config.ready_timeout_ms);
    let ready = tokio::select! {
        ready = tokio::time::timeout(ready_limit, ready_rx) => ready,
        reason = peer.closed() => {
            tracing::warn!(pool = %pool_name, member = %name, "pool member left while loading: {reason}");
            return;
        }
        _ = stop.changed() => {
            peer.close_because("the pool was stopped");
            return;
        }
    };
    match ready {
        Ok(Ok(ready)) if ready.loaded_plugins.contains(&pool.plugin) => {}
        Ok(Ok(ready)) => {
            let why = ready
                .failed_plugin_reasons
                .get(&pool.plugin)
                .cloned()
                .unwrap_or_else(|| "the member does not provide it".into());
            tracing::error!(pool = %pool_name, member = %name, plugin_id = %pool.plugin, "pool member did not load the pool's plugin: {why}; disconnected");
            peer.close_because("the member did not load the pool's plugin");
            return;
        }
        _ => {
            tracing::error!(pool = %pool_name, member = %name, "no runner.ready within {} ms; disconnected", ready_limit.as_millis());
            peer.close_because("no runner.ready in time");
            return;
        }
    }
    pool.members.add(member.clone(), live);
    runtime.version.bump();
    tracing::info!(pool = %pool_name, member = %name, members = ?pool.members.names(), "pool member ready: calls go to it");

    let health_every = (config.health_check_interval_ms > 0)
        .then(|| Duration::from_millis(config.health_check_interval_ms));
    let mut health = tokio::time::interval(health_every.unwrap_or(Duration::from_secs(3600)));
    health.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    health.tick().await;
    let health_limit = Duration::from_millis(config.health_check_timeout_ms);
    let ended = loop {
        tokio::select! {
            reason = peer.closed() => {
                let how = if member.is_draining() {
                    format!("pool member {name} drained and left")
                } else {
                    format!("the connection of pool member {name} was lost ({reason})")
                };
                break how;
            }
            _ = health.tick(), if health_every.is_some() => {
                if let Err(problem) = check_health(&peer, health_limit).await {
                    let how = format!("pool member {name} stopped answering health checks ({problem})");
                    peer.close_because(how.clone());
                    break how;
                }
            }
            _ = stop.changed() => {
                let how = "the pool was stopped".to_owned();
                peer.close_because(how.clone());
                break how;
            }
        }
    };
    launch_end.record(&ended);
    pool.members.remove(member.id);
    runtime.version.bump();
    if member.is_draining() {
        tracing::info!(pool = %pool_name, member = %name, members = ?pool.members.names(), "{ended}");
    } else {
        tracing::warn!(pool = %pool_name, member = %name, members = ?pool.members.names(), "{ended}; disconnected");
    }
}

/// One health check with a quick re-check when unanswered, as for a launched runner: a host
/// briefly too busy to read the answer does not lose a healthy member.
async fn check_health(peer: &RpcPeer, limit: Duration) -> Result<(), RpcError> {
    let mut last = None;
    for _ in 0..2 {
        match peer
            .call::<_, HealthPayload>(names::HEALTH, "", &EmptyPayload {}, limit)
            .await
        {
            Ok(health) if health.healthy => return Ok(()),
            Ok(_) => {
                return Err(RpcError::new(
                    ErrorCode::Unknown,
                    "the member reported itself unhealthy",
                ));
            }
            Err(err) if matches!(err.code, ErrorCode::Timeout | ErrorCode::BackPressure) => {
                last = Some(err);
            }
            // A closed connection is the other branch's.
            Err(_) => return Ok(()),
        }
    }
    Err(last.unwrap_or_else(|| RpcError::new(ErrorCode::Timeout, "health check unanswered")))
}
