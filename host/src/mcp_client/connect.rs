//! Opening one connection: the transport (stdio child, Streamable HTTP or legacy SSE), the
//! lifecycle handshake of the configured era, and the negotiated details.

use rmcp::model::{Implementation, ProtocolVersion};
use rmcp::service::{
    ClientCacheConfig, ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RoleClient,
    RunningService,
};
use rmcp::transport::DynamicTransportError;
#[cfg(feature = "http")]
use rmcp::transport::streamable_http_client::StreamableHttpError;

use super::handler::McpClientHandler;
#[cfg(feature = "http")]
use super::http_client::{HttpSetupError, header_map, http_client, streamable_http_transport};
use super::process::StdioProcess;
use super::server_config::{McpProtocol, McpServerConfig, McpTransport};
#[cfg(feature = "http")]
use super::sse::{SseConnectError, SseTransport};
use super::stdout_guard;
use crate::error_text::chain;

/// A live, initialised connection.
#[derive(Debug)]
pub struct Established {
    /// The rmcp service (owns the transport).
    pub running: RunningService<RoleClient, McpClientHandler>,
    /// The server process, for stdio servers.
    pub process: Option<StdioProcess>,
    /// The negotiated protocol version.
    pub protocol_version: ProtocolVersion,
    /// `serverInfo`, when the server sent it.
    pub server_info: Option<Implementation>,
    /// Whether the server announces `tools.listChanged`.
    pub tools_list_changed: bool,
}

/// Connects to `server` and performs the handshake. No timeout here: the caller bounds
/// the whole attempt, and dropping this future kills a spawned process.
///
/// In `auto` mode a server that answers `server/discover` without offering 2026-07-28 but
/// with a handshake version (an rmcp server limited to 2025-11-25, say) is reconnected
/// with `initialize`, which rmcp's own fallback does not do.
pub async fn connect(
    server: &McpServerConfig,
    handler: McpClientHandler,
) -> Result<Established, ConnectError> {
    let first = connect_with(server, handler.clone(), lifecycle(server.protocol)).await;
    let retry_legacy = server.protocol == McpProtocol::Auto
        && matches!(&first, Err(ConnectError::Handshake(err)) if offers_only_handshake_versions(err));
    if !retry_legacy {
        return first;
    }
    tracing::debug!(
        server = %server.name,
        "server/discover offered no 2026-07-28; reconnecting with initialize"
    );
    connect_with(server, handler, ClientLifecycleMode::Initialize).await
}

fn offers_only_handshake_versions(err: &ClientInitializeError) -> bool {
    matches!(
        err,
        ClientInitializeError::NoCompatibleProtocolVersion { server_supported, .. }
            if server_supported.iter().any(ProtocolVersion::has_initialize)
    )
}

/// Why a connection attempt failed.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The stdio server's command could not be started.
    #[error("cannot start command {command:?}")]
    Spawn {
        /// The command as configured.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The lifecycle handshake failed. The line is built here, causes included, rather than
    /// left to the source chain: rmcp keeps the useful part of a transport error (a refused
    /// connection, an HTTP status) out of its chain (see [`describe_transport_error`]).
    #[error("MCP handshake failed: {}", describe_handshake(.0))]
    Handshake(Box<ClientInitializeError>),
    /// A remote server's HTTP client or headers could not be set up.
    #[cfg(feature = "http")]
    #[error(transparent)]
    Http(#[from] HttpSetupError),
    /// A legacy SSE session could not be opened.
    #[cfg(feature = "http")]
    #[error(transparent)]
    Sse(#[from] SseConnectError),
    /// A remote transport in a build without one.
    #[cfg(not(feature = "http"))]
    #[error(
        "the {transport} transport needs a maitool built with the `http` feature; this one speaks MCP over stdio only"
    )]
    NoHttp {
        /// The configured transport.
        transport: &'static str,
    },
    /// The service started without a handshake result.
    #[error("the server completed no handshake")]
    NoHandshake,
}

fn describe_handshake(err: &ClientInitializeError) -> String {
    match err {
        ClientInitializeError::LegacyFallbackFailed { discover, fallback } => {
            format!("server/discover: {discover}; initialize: {fallback}")
        }
        ClientInitializeError::TransportError { error, context } => {
            format!("{} (when {context})", describe_transport_error(error))
        }
        other => chain(other),
    }
}

/// A transport error with its root cause. rmcp wraps the HTTP client's error without
/// exposing it as a source, so it is dug out here to show e.g. a refused connection or a
/// TLS failure instead of just "error sending request".
pub fn describe_transport_error(error: &DynamicTransportError) -> String {
    #[cfg(feature = "http")]
    if let Some(StreamableHttpError::Client(inner)) = error
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        return chain(inner);
    }
    chain(error.error.as_ref())
}

async fn connect_with(
    server: &McpServerConfig,
    handler: McpClientHandler,
    lifecycle: ClientLifecycleMode,
) -> Result<Established, ConnectError> {
    let (running, process) = match server.transport {
        McpTransport::Stdio => {
            let (mut process, pipes) =
                StdioProcess::spawn(server).map_err(|source| ConnectError::Spawn {
                    command: server.command.clone(),
                    source,
                })?;
            match handler
                .serve_with_lifecycle(
                    // An oversized response fails its call at once (see `stdout_guard`).
                    (
                        stdout_guard::guard(server.name.clone(), pipes.stdout),
                        pipes.stdin,
                    ),
                    lifecycle,
                )
                .await
            {
                Ok(running) => (running, Some(process)),
                Err(err) => {
                    process.shutdown().await;
                    return Err(ConnectError::Handshake(Box::new(err)));
                }
            }
        }
        #[cfg(not(feature = "http"))]
        McpTransport::StreamableHttp | McpTransport::Sse => {
            return Err(ConnectError::NoHttp {
                transport: server.transport.as_str(),
            });
        }
        #[cfg(feature = "http")]
        McpTransport::StreamableHttp => {
            let transport = streamable_http_transport(server)?;
            let running = handler
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .map_err(|err| ConnectError::Handshake(Box::new(err)))?;
            (running, None)
        }
        #[cfg(feature = "http")]
        McpTransport::Sse => {
            let client = http_client(server)?;
            let headers = header_map(server, true)?;
            let transport = SseTransport::connect(client, server.url.trim(), headers).await?;
            // The SSE transport predates 2026-07-28: no such server has server/discover.
            let lifecycle = match server.protocol {
                McpProtocol::Modern => lifecycle,
                McpProtocol::Auto | McpProtocol::Legacy => ClientLifecycleMode::Initialize,
            };
            let running = handler
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .map_err(|err| ConnectError::Handshake(Box::new(err)))?;
            (running, None)
        }
    };

    // The response cache (SEP-2549) could serve a stale tool list after the server died;
    // the host keeps its own list and must see failures.
    running
        .peer()
        .set_response_cache_config(ClientCacheConfig::disabled())
        .await;
    let info = running
        .peer()
        .peer_info()
        .ok_or(ConnectError::NoHandshake)?;
    Ok(Established {
        protocol_version: info.protocol_version.clone(),
        server_info: info.server_info.clone(),
        tools_list_changed: info
            .capabilities
            .tools
            .as_ref()
            .and_then(|tools| tools.list_changed)
            .unwrap_or(false),
        running,
        process,
    })
}

fn lifecycle(protocol: McpProtocol) -> ClientLifecycleMode {
    match protocol {
        McpProtocol::Auto => ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        },
        McpProtocol::Legacy => ClientLifecycleMode::Initialize,
        McpProtocol::Modern => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    }
}

#[cfg(test)]
mod tests;
