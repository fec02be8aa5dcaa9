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
use tokio::sync::watch;

use super::connections::{Activity, Connections, ControlLimits, Serving};
use super::socket_path::{self, ControlSocketError, SocketIdentity};
use super::{
    CallRequest, DefinitionsRequest, MetricsResponse, ToggleRequest, ToggleResponse, ToolsRequest,
    ToolsResponse, methods, views,
};
use crate::accept::AcceptBackoff;
use crate::app::Host;
use crate::plugin::ToggleError;

/// The shortest time between two warnings about refused connections.
const REFUSAL_WARN_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// The control socket of a host. It is bound first ([`bind`](Self::bind)), before the host
/// starts, so that a path that cannot be used or a serve already running stops `maitool
/// serve` before any runner starts; requests that arrive before [`serve`](Self::serve) wait
/// for the host (`control.metrics` is answered at once with "starting"). Removes the socket
/// when dropped, if it is still the one it bound.
#[derive(Debug)]
pub struct ControlServer {
    path: PathBuf,
    bound: Option<SocketIdentity>,
    host: watch::Sender<Option<Arc<Host>>>,
    task: tokio::task::JoinHandle<()>,
    #[cfg(test)]
    connections: Arc<Connections>,
}

impl ControlServer {
    /// Binds `path` and serves `host` on it: [`bind`](Self::bind), then
    /// [`serve`](Self::serve).
    pub async fn start(path: &Path, host: Arc<Host>) -> Result<ControlServer, ControlSocketError> {
        let server = Self::bind(path).await?;
        server.serve(host);
        Ok(server)
    }

    /// Binds `path` (0600; a bare name is in the working directory; a missing directory is
    /// created 0700). A stale socket there (no host answers) is replaced; a running serve or
    /// anything that is not a socket is an error, and nothing is touched.
    pub async fn bind(path: &Path) -> Result<ControlServer, ControlSocketError> {
        Self::bind_with_limits(path, ControlLimits::default()).await
    }

    /// [`bind`](Self::bind) with other bounds on the connections than the defaults.
    pub async fn bind_with_limits(
        path: &Path,
        limits: ControlLimits,
    ) -> Result<ControlServer, ControlSocketError> {
        let path = socket_path::absolute(path)?;
        socket_path::prepare(&path).await?;
        let io = |source| ControlSocketError::Io {
            path: path.clone(),
            source,
        };
        let name = path.as_path().to_fs_name::<GenericFilePath>().map_err(io)?;
        // Removal is ours (`remove_if_ours`): the listener's own would unlink whatever is at
        // the path when it is dropped.
        let listener = ListenerOptions::new()
            .name(name)
            .reclaim_name(false)
            .create_tokio()
            .map_err(|err| match err.kind() {
                // Another serve bound it between our check and our bind.
                std::io::ErrorKind::AddrInUse => ControlSocketError::InUse(path.clone()),
                _ => io(err),
            })?;
        let bound = SocketIdentity::of(&path);
        if let Err(err) = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)) {
            socket_path::remove_if_ours(&path, bound);
            return Err(io(err));
        }
        let (host, waiting) = watch::channel(None);
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
                    host: waiting.clone(),
                    activity: activity.clone(),
                });
                // A client that sends what no one can answer learns it at once, and the
                // connection does not hold a slot until the idle deadline.
                let config = PeerConfig {
                    close_on_unanswerable: true,
                    ..PeerConfig::new("control")
                };
                let peer = RpcPeer::start(stream, handler, config);
                connections.admit(peer, activity);
            }
        });
        Ok(ControlServer {
            path,
            bound,
            host,
            task,
            #[cfg(test)]
            connections: watched,
        })
    }

    /// Answers requests with `host` from now on, the waiting ones first.
    pub fn serve(&self, host: Arc<Host>) {
        self.host.send_replace(Some(host));
    }

    /// The socket path (absolute).
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
        socket_path::remove_if_ours(&self.path, self.bound);
    }
}

/// Serves one connection's requests, noting when each starts and ends for the idle limit.
struct ControlHandler {
    host: watch::Receiver<Option<Arc<Host>>>,
    activity: Arc<Activity>,
}

impl ControlHandler {
    /// The host, once it serves; `None` if the server went away first.
    async fn host(mut waiting: watch::Receiver<Option<Arc<Host>>>) -> Option<Arc<Host>> {
        let host = waiting.wait_for(Option::is_some).await.ok()?;
        host.clone()
    }
}

impl RequestHandler for ControlHandler {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let waiting = self.host.clone();
        self.activity.touch();
        let serving = Serving(self.activity.clone());
        async move {
            let _serving = serving;
            if request.method() == methods::METRICS && waiting.borrow().is_none() {
                return Err(RpcError::new(
                    ErrorCode::ShuttingDown,
                    "the host is still starting",
                ));
            }
            let host = Self::host(waiting).await.ok_or_else(|| {
                RpcError::new(ErrorCode::ShuttingDown, "the host stopped before it served")
            })?;
            // A serve that started without waiting (an MCP front) lists and calls through its
            // settle gate, as the front does: a listing made as it starts is complete.
            if matches!(
                request.method(),
                methods::TOOLS | methods::CALL | methods::DEFINITIONS
            ) {
                host.settled().wait().await;
            }
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
                methods::MESSAGE => {
                    let ask: super::MessageRequest = request.payload()?;
                    let outcome = host.messages().receive(ask.message).await.map_err(|err| {
                        RpcError::new(ErrorCode::BadPayload, crate::error_text::chain(&err))
                    })?;
                    Payload::encode(&outcome)
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
                        .await
                        .map_err(|err| match err {
                            ToggleError::Lookup(err) => {
                                RpcError::new(ErrorCode::ToolNotFound, err.to_string())
                            }
                            ToggleError::Store(_) => {
                                RpcError::new(ErrorCode::Unknown, crate::error_text::chain(&err))
                            }
                        })?;
                    Payload::encode(&ToggleResponse { full_name })
                }
                methods::RELOAD => {
                    let report = host.reload().await.map_err(|err| {
                        RpcError::new(ErrorCode::BadPayload, crate::error_text::chain(&err))
                    })?;
                    let report = serde_json::to_value(report)
                        .map_err(|err| RpcError::new(ErrorCode::Unknown, err.to_string()))?;
                    Payload::encode(&report)
                }
                methods::RESTART => {
                    let restart: super::RestartRequest = request.payload()?;
                    host.plugins
                        .restart_runner(&restart.runner)
                        .await
                        .map_err(|err| RpcError::new(ErrorCode::PluginNotFound, err.to_string()))?;
                    Payload::encode(&EmptyPayload {})
                }
                methods::PLUGINS => {
                    let _: EmptyPayload = request.payload().unwrap_or_default();
                    Payload::encode(&views::plugins(&host))
                }
                methods::DEFINITIONS => {
                    let ask: DefinitionsRequest = request.payload()?;
                    let definitions =
                        views::definitions(&host, &ask.context, ask.format, ask.stage)
                            .await
                            .map_err(|err| {
                                RpcError::new(ErrorCode::Unknown, crate::error_text::chain(&err))
                            })?;
                    Payload::encode(&definitions)
                }
                methods::METRICS => {
                    let _: EmptyPayload = request.payload().unwrap_or_default();
                    Payload::encode(&MetricsResponse {
                        text: views::prometheus_text(&host),
                    })
                }
                methods::HOOK => {
                    let ask: super::HookRequest = request.payload()?;
                    let outcome = host
                        .invoke_hook(&ask.name, ask.kwargs)
                        .await
                        .map_err(|err| RpcError::new(ErrorCode::BadPayload, err.to_string()))?;
                    Payload::encode(&outcome)
                }
                methods::HOOKS => {
                    let _: EmptyPayload = request.payload().unwrap_or_default();
                    Payload::encode(&views::hooks(&host))
                }
                other => Err(RpcError::method_not_allowed(other)),
            }
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests;
