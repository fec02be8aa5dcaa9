use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use interprocess::local_socket::tokio::prelude::*;
use interprocess::local_socket::{GenericFilePath, ListenerOptions, ToFsName};
use maitool_protocol::rpc::{
    IncomingMessage, Payload, PeerConfig, RequestHandler, RpcError, RpcPeer,
};
use maitool_protocol::wire::{EmptyPayload, ErrorCode};

use super::connections::{Activity, Connections, ControlLimits, Serving};
use super::{
    CallRequest, DefinitionsRequest, MetricsResponse, ToggleRequest, ToggleResponse, ToolsRequest,
    ToolsResponse, methods, views,
};
use crate::accept::AcceptBackoff;
use crate::app::Host;

/// The shortest time between two warnings about refused connections.
const REFUSAL_WARN_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Serves the control socket for a running host; removes the socket when dropped.
#[derive(Debug)]
pub struct ControlServer {
    path: PathBuf,
    task: tokio::task::JoinHandle<()>,
    #[cfg(test)]
    connections: Arc<Connections>,
}

impl ControlServer {
    /// Binds `path` (0600, in a directory created 0700) and serves `host` on it. Fails if
    /// another `maitool serve` already answers there; a stale socket file is replaced.
    pub async fn start(path: &Path, host: Arc<Host>) -> std::io::Result<ControlServer> {
        Self::start_with_limits(path, host, ControlLimits::default()).await
    }

    /// [`start`](Self::start) with other bounds on the connections than the defaults.
    pub async fn start_with_limits(
        path: &Path,
        host: Arc<Host>,
        limits: ControlLimits,
    ) -> std::io::Result<ControlServer> {
        if let Some(parent) = path.parent()
            && !parent.exists()
        {
            std::fs::create_dir_all(parent)?;
            std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o700))?;
        }
        if path.exists() {
            if super::ControlClient::connect(path).await.is_some() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::AddrInUse,
                    format!(
                        "another maitool serve is already running on {}",
                        path.display()
                    ),
                ));
            }
            std::fs::remove_file(path)?;
        }
        let name = path.to_fs_name::<GenericFilePath>()?;
        let listener = ListenerOptions::new().name(name).create_tokio()?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        let connections = Connections::new(limits);
        #[cfg(test)]
        let watched = Arc::clone(&connections);
        let task = tokio::spawn(async move {
            let mut backoff = AcceptBackoff::new("control socket");
            let mut refused = 0u64;
            let mut last_warning: Option<tokio::time::Instant> = None;
            loop {
                let stream = match listener.accept().await {
                    Ok(stream) => stream,
                    Err(err) => {
                        tokio::time::sleep(backoff.failed(&err)).await;
                        continue;
                    }
                };
                backoff.succeeded();
                if !connections.make_room() {
                    refused += 1;
                    if last_warning.is_none_or(|at| at.elapsed() >= REFUSAL_WARN_EVERY) {
                        tracing::warn!(
                            refused,
                            "control socket refused a connection: all {} are serving requests",
                            limits.max_connections
                        );
                        refused = 0;
                        last_warning = Some(tokio::time::Instant::now());
                    }
                    continue;
                }
                let activity = Activity::new();
                let handler = Arc::new(ControlHandler {
                    host: host.clone(),
                    activity: activity.clone(),
                });
                let peer = RpcPeer::start(stream, handler, PeerConfig::new("control"));
                connections.admit(peer, activity);
            }
        });
        Ok(ControlServer {
            path: path.to_path_buf(),
            task,
            #[cfg(test)]
            connections: watched,
        })
    }

    /// The socket path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
impl ControlServer {
    /// Connections open now.
    pub(super) fn open_connections(&self) -> usize {
        self.connections.open()
    }
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Serves one connection's requests, noting when each starts and ends for the idle limit.
struct ControlHandler {
    host: Arc<Host>,
    activity: Arc<Activity>,
}

impl RequestHandler for ControlHandler {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let host = self.host.clone();
        self.activity.touch();
        let serving = Serving(self.activity.clone());
        async move {
            let _serving = serving;
            match request.method() {
                methods::TOOLS => {
                    let ask: ToolsRequest = request.payload()?;
                    Payload::encode(&ToolsResponse {
                        tools: host.registry.list_tools(&ask.context).await,
                    })
                }
                methods::CALL => {
                    let call: CallRequest = request.payload()?;
                    Payload::encode(&host.registry.invoke(call.invocation, &call.context).await)
                }
                methods::STATUS => {
                    let _: EmptyPayload = request.payload().unwrap_or_default();
                    let status = serde_json::to_value(host.status())
                        .map_err(|err| RpcError::new(ErrorCode::Unknown, err.to_string()))?;
                    Payload::encode(&status)
                }
                methods::TOGGLE => {
                    let toggle: ToggleRequest = request.payload()?;
                    let full_name = host
                        .plugins
                        .set_component_enabled(
                            &toggle.name,
                            toggle.enabled,
                            toggle.session_id.as_deref(),
                        )
                        .map_err(|err| RpcError::new(ErrorCode::ToolNotFound, err))?;
                    Payload::encode(&ToggleResponse { full_name })
                }
                methods::RELOAD => {
                    let report = host
                        .reload()
                        .await
                        .map_err(|err| RpcError::new(ErrorCode::BadPayload, err))?;
                    let report = serde_json::to_value(report)
                        .map_err(|err| RpcError::new(ErrorCode::Unknown, err.to_string()))?;
                    Payload::encode(&report)
                }
                methods::PLUGINS => {
                    let _: EmptyPayload = request.payload().unwrap_or_default();
                    Payload::encode(&views::plugins(&host))
                }
                methods::DEFINITIONS => {
                    let ask: DefinitionsRequest = request.payload()?;
                    Payload::encode(
                        &views::definitions(&host, &ask.context, ask.format, ask.stage).await,
                    )
                }
                methods::METRICS => {
                    let _: EmptyPayload = request.payload().unwrap_or_default();
                    Payload::encode(&MetricsResponse {
                        text: views::prometheus_text(&host),
                    })
                }
                other => Err(RpcError::method_not_allowed(other)),
            }
        }
        .boxed()
    }
}

#[cfg(test)]
#[path = "server_tests.rs"]
mod tests;
