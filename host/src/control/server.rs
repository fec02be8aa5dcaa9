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

use super::{
    CallRequest, DefinitionsRequest, MetricsResponse, ToggleRequest, ToggleResponse, ToolsRequest,
    ToolsResponse, methods, views,
};
use crate::app::Host;

/// Serves the control socket for a running host; removes the socket when dropped.
#[derive(Debug)]
pub struct ControlServer {
    path: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

impl ControlServer {
    /// Binds `path` (0600, in a directory created 0700) and serves `host` on it. Fails if
    /// another `maitool serve` already answers there; a stale socket file is replaced.
    pub async fn start(path: &Path, host: Arc<Host>) -> std::io::Result<ControlServer> {
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
        let handler = Arc::new(ControlHandler { host });
        let task = tokio::spawn(async move {
            loop {
                match listener.accept().await {
                    Ok(stream) => {
                        // The peer lives as long as its connection; dropping the last handle
                        // would close it.
                        let peer =
                            RpcPeer::start(stream, handler.clone(), PeerConfig::new("control"));
                        tokio::spawn(async move {
                            peer.closed().await;
                        });
                    }
                    Err(err) => {
                        tracing::error!("control socket accept failed: {err}");
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                }
            }
        });
        Ok(ControlServer {
            path: path.to_path_buf(),
            task,
        })
    }

    /// The socket path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.path);
    }
}

struct ControlHandler {
    host: Arc<Host>,
}

impl RequestHandler for ControlHandler {
    fn handle(&self, request: IncomingMessage) -> BoxFuture<'static, Result<Payload, RpcError>> {
        let host = self.host.clone();
        async move {
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
