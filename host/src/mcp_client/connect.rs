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

use super::config::{McpProtocol, McpServerConfig, McpTransport};
use super::handler::McpClientHandler;
#[cfg(feature = "http")]
use super::http_client::{header_map, http_client, streamable_http_transport};
use super::process::StdioProcess;
#[cfg(feature = "http")]
use super::sse::SseTransport;
use super::stdout_guard;

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
) -> Result<Established, String> {
    let first = connect_with(server, handler.clone(), lifecycle(server.protocol)).await;
    let retry_legacy = server.protocol == McpProtocol::Auto
        && matches!(&first, Err(Failure::Handshake(err)) if offers_only_handshake_versions(err));
    if !retry_legacy {
        return first.map_err(|failure| failure.to_string());
    }
    tracing::debug!(
        server = %server.name,
        "server/discover offered no 2026-07-28; reconnecting with initialize"
    );
    connect_with(server, handler, ClientLifecycleMode::Initialize)
        .await
        .map_err(|failure| failure.to_string())
}

fn offers_only_handshake_versions(err: &ClientInitializeError) -> bool {
    matches!(
        err,
        ClientInitializeError::NoCompatibleProtocolVersion { server_supported, .. }
            if server_supported.iter().any(ProtocolVersion::has_initialize)
    )
}

enum Failure {
    Handshake(Box<ClientInitializeError>),
    Other(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Handshake(err) => match &**err {
                ClientInitializeError::LegacyFallbackFailed { discover, fallback } => write!(
                    f,
                    "MCP handshake failed: server/discover: {discover}; initialize: {fallback}"
                ),
                ClientInitializeError::TransportError { error, context } => write!(
                    f,
                    "MCP handshake failed: {} (when {context})",
                    describe_transport_error(error)
                ),
                other => write!(f, "MCP handshake failed: {}", with_sources(other)),
            },
            Failure::Other(message) => f.write_str(message),
        }
    }
}

/// The error and its chain of causes: transport errors hide the useful part (refused
/// connection, TLS failure, HTTP status) in their sources.
pub fn with_sources(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
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
        return with_sources(inner);
    }
    with_sources(error.error.as_ref())
}

async fn connect_with(
    server: &McpServerConfig,
    handler: McpClientHandler,
    lifecycle: ClientLifecycleMode,
) -> Result<Established, Failure> {
    let (running, process) = match server.transport {
        McpTransport::Stdio => {
            let (mut process, pipes) = StdioProcess::spawn(server).map_err(|err| {
                Failure::Other(format!("cannot start command {:?}: {err}", server.command))
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
                    return Err(Failure::Handshake(Box::new(err)));
                }
            }
        }
        #[cfg(not(feature = "http"))]
        McpTransport::StreamableHttp | McpTransport::Sse => {
            return Err(Failure::Other(format!(
                "the {} transport needs a maitool built with the `http` feature; this one speaks MCP over stdio only",
                server.transport.as_str()
            )));
        }
        #[cfg(feature = "http")]
        McpTransport::StreamableHttp => {
            let transport = streamable_http_transport(server).map_err(Failure::Other)?;
            let running = handler
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .map_err(|err| Failure::Handshake(Box::new(err)))?;
            (running, None)
        }
        #[cfg(feature = "http")]
        McpTransport::Sse => {
            let client = http_client(server).map_err(Failure::Other)?;
            let headers = header_map(server, true).map_err(Failure::Other)?;
            let transport = SseTransport::connect(client, server.url.trim(), headers)
                .await
                .map_err(Failure::Other)?;
            // The SSE transport predates 2026-07-28: no such server has server/discover.
            let lifecycle = match server.protocol {
                McpProtocol::Modern => lifecycle,
                McpProtocol::Auto | McpProtocol::Legacy => ClientLifecycleMode::Initialize,
            };
            let running = handler
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .map_err(|err| Failure::Handshake(Box::new(err)))?;
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
        .ok_or_else(|| Failure::Other("the server completed no handshake".to_owned()))?;
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

#[cfg(all(test, not(feature = "http")))]
#[path = "connect_tests.rs"]
mod tests;
