//! The MCP server front: the unified [`ToolRegistry`] exposed as an MCP server, so that any
//! MCP client (a desktop LLM app, an agent framework) can list and call every tool the host
//! has: plugin tools, legacy Actions, built-in engine tools and other MCP servers' tools.
//!
//! * [`McpFront`] is a hand-written rmcp `ServerHandler`, cheap to clone (one clone per
//!   connection; all share the registry and the subscriber list).
//! * While the host's sources start, `tools/list` and `tools/call` first wait at its
//!   [`SettleGate`] (see [`McpFront::with_gate`]), so a client's first listing is complete.
//! * `tools/list` answers the registry's whole listing in one page, or pages through it when
//!   a page size is configured (see [`cursor`]), mapping each `ToolSpec` with every field
//!   (see [`tools`]).
//! * `tools/call` routes through [`ToolRegistry::invoke`] and maps the result to content
//!   blocks, `structuredContent` and `isError` (see [`result`]). An unknown tool is a tool
//!   error (`isError`, "tool not found: NAME"), as the registry reports it, not a JSON-RPC
//!   error: a model can read it and correct itself. A cancelled request drops the call, which
//!   cancels it in the runner or MCP server behind it.
//! * `notifications/tools/list_changed` follows [`ToolRegistry::subscribe_changes`].
//! * The chat context comes from [`FrontConfig::context`], overridden per request by `_meta`
//!   keys (see [`context`]).
//!
//! Transports: stdio ([`McpFront::serve_stdio`]) and, with the `http` feature, Streamable HTTP
//! at `/mcp` (`McpFront::serve_http`). `docs/MCP_SERVER.md` describes the operator side.

pub mod context;
pub mod cursor;
pub mod result;
pub mod tools;

mod changes;
mod handler;
#[cfg(feature = "http")]
pub mod http;
mod stdio;

#[cfg(test)]
mod tests;

use std::fmt;
#[cfg(feature = "http")]
use std::future::Future;
#[cfg(feature = "http")]
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use maitool_protocol::ToolExecutionContext;
use parking_lot::Mutex;
use rmcp::ServiceExt;
#[cfg(feature = "http")]
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
#[cfg(feature = "http")]
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::task::JoinHandle;
#[cfg(feature = "http")]
use tokio_util::sync::CancellationToken;

use crate::registry::ToolRegistry;
use crate::settle::SettleGate;
use changes::Subscribers;

/// How often a running call reports progress unless configured otherwise.
pub const DEFAULT_PROGRESS_INTERVAL: Duration = Duration::from_secs(5);
/// The path of the Streamable HTTP endpoint.
pub const HTTP_PATH: &str = "/mcp";

/// How the front serves.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontConfig {
    /// The chat context of every request that does not override it in `_meta`.
    pub context: ToolExecutionContext,
    /// Tools per `tools/list` page (at least 1); `None` (the default): every tool in one
    /// page. Paging is opt-in because common clients read only the first page: the
    /// TypeScript SDK v1's `listTools()` and the apps built on it never follow `nextCursor`.
    pub page_size: Option<usize>,
    /// Progress notifications for calls that carry a progress token: one per interval while
    /// the call runs (`None` or zero: none).
    pub progress_interval: Option<Duration>,
    /// Streamable HTTP: browser origins allowed besides loopback and the bound address
    /// (`scheme://host[:port]`, port `*` for any); any entry also turns CORS on (see
    /// [`http`]).
    pub allowed_origins: Vec<String>,
}

impl Default for FrontConfig {
    fn default() -> Self {
        Self {
            context: ToolExecutionContext::default(),
            page_size: None,
            progress_interval: Some(DEFAULT_PROGRESS_INTERVAL),
            allowed_origins: Vec::new(),
        }
    }
}

/// Why a transport stopped serving.
#[derive(Debug, thiserror::Error)]
pub enum FrontError {
    /// The stdio client did not complete the MCP handshake.
    #[error("MCP handshake on stdio failed")]
    Handshake(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The stdio connection's task failed.
    #[error("MCP stdio connection failed")]
    Connection(#[source] tokio::task::JoinError),
    /// The HTTP listener failed.
    #[error("MCP HTTP server failed")]
    Http(#[from] std::io::Error),
    /// An allowed origin does not parse.
    #[cfg(feature = "http")]
    #[error(transparent)]
    Origin(#[from] http::OriginError),
}

/// The MCP server front. See the [module documentation](self).
#[derive(Clone)]
pub struct McpFront {
    shared: Arc<Shared>,
}

struct Shared {
    registry: Arc<ToolRegistry>,
    /// Listings and calls wait here while the host's sources start (see [`SettleGate`]).
    settled: SettleGate,
    config: FrontConfig,
    subscribers: Arc<Subscribers>,
    forwarder: Mutex<Option<JoinHandle<()>>>,
    /// Where Streamable HTTP sessions are kept beyond this process, if anywhere.
    #[cfg(feature = "http")]
    session_store: std::sync::OnceLock<
        Arc<dyn rmcp::transport::streamable_http_server::session::SessionStore>,
    >,
    /// Where cancels of calls held by other hosts are passed on, if anywhere.
    #[cfg(feature = "http")]
    cancels: std::sync::OnceLock<Arc<http::RemoteCancels>>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(task) = self.forwarder.lock().take() {
            task.abort();
        }
    }
}

impl fmt::Debug for McpFront {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpFront")
            .field("config", &self.shared.config)
            .field("subscribers", &self.shared.subscribers)
            .finish_non_exhaustive()
    }
}

impl McpFront {
    /// A front over `registry`. Must be called inside a Tokio runtime: it starts the task
    /// that turns registry changes into `tools/list_changed` (ended when the last clone of
    /// the front is dropped).
    pub fn new(registry: Arc<ToolRegistry>, config: FrontConfig) -> McpFront {
        McpFront::with_gate(registry, config, SettleGate::opened())
    }

    /// A front over `registry` whose `tools/list` and `tools/call` first wait at `settled`:
    /// given [`Host::settled`](crate::Host::settled) of a host started without waiting, a
    /// client's first listing holds every source that is a few moments from ready, and never
    /// more than `[host] listing_wait_ms`.
    pub fn with_gate(
        registry: Arc<ToolRegistry>,
        mut config: FrontConfig,
        settled: SettleGate,
    ) -> McpFront {
        config.page_size = config.page_size.map(|size| size.max(1));
        let subscribers = Arc::new(Subscribers::default());
        let forwarder = changes::spawn_forwarder(registry.subscribe_changes(), subscribers.clone());
        McpFront {
            shared: Arc::new(Shared {
                registry,
                settled,
                config,
                subscribers,
                forwarder: Mutex::new(Some(forwarder)),
                #[cfg(feature = "http")]
                session_store: std::sync::OnceLock::new(),
                #[cfg(feature = "http")]
                cancels: std::sync::OnceLock::new(),
            }),
        }
    }

    /// Keeps Streamable HTTP sessions in `store` as well as in memory (feature `http`), so
    /// that another host on the same store can restore them (see [`http::PostgresSessions`]).
    /// Takes effect for services made after it; a second store is ignored.
    #[cfg(feature = "http")]
    pub fn keep_sessions_in(
        &self,
        store: Arc<dyn rmcp::transport::streamable_http_server::session::SessionStore>,
    ) {
        let _ = self.shared.session_store.set(store);
    }

    /// Passes cancels of earlier-revision clients between hosts through `cancels` (feature
    /// `http`): a `notifications/cancelled` for a call another host runs reaches it (see
    /// [`http::RemoteCancels`]). A second relay is ignored.
    #[cfg(feature = "http")]
    pub fn relay_cancels_through(&self, cancels: Arc<http::RemoteCancels>) {
        let _ = self.shared.cancels.set(cancels);
    }

    /// The configuration in use.
    pub fn config(&self) -> &FrontConfig {
        &self.shared.config
    }

    /// Serves one client on this process's stdin/stdout until it disconnects. Nothing else
    /// may write to stdout meanwhile (maitool logs to stderr).
    pub async fn serve_stdio(self) -> Result<(), FrontError> {
        let (stdin, stdout) = rmcp::transport::stdio();
        // Malformed lines are answered before rmcp sees them (see `stdio`).
        let (pipes, writer) = stdio::guard(stdin, stdout);
        let running = self
            .serve(pipes)
            .await
            .map_err(|err| FrontError::Handshake(Box::new(err)))?;
        let reason = running.waiting().await.map_err(FrontError::Connection)?;
        // Let the last answers reach stdout.
        let _ = tokio::time::timeout(Duration::from_secs(2), writer).await;
        tracing::info!(?reason, "the MCP client on stdio disconnected");
        Ok(())
    }

    /// The Streamable HTTP service (mount it at [`HTTP_PATH`]; feature `http`). Requests are accepted for
    /// loopback hosts and for `bound` when given (rmcp checks the `Host` header against DNS
    /// rebinding). `shutdown` ends every session. [`McpFront::http_router`] adds the `Origin`
    /// check, CORS and the termination status around it.
    #[cfg(feature = "http")]
    pub fn http_service(
        self,
        bound: Option<SocketAddr>,
        shutdown: CancellationToken,
    ) -> StreamableHttpService<McpFront, LocalSessionManager> {
        let mut config = StreamableHttpServerConfig::default();
        config.cancellation_token = shutdown;
        // No SSE priming event (`id: 0`, `retry`): it invites a client to resume a stream
        // that nothing stores.
        config.sse_retry = None;
        config.session_store = self.shared.session_store.get().cloned();
        if let Some(addr) =
            bound.filter(|addr| !addr.ip().is_loopback() && !addr.ip().is_unspecified())
        {
            config.allowed_hosts.push(addr.ip().to_string());
            config.allowed_hosts.push(addr.to_string());
        }
        // Nor in a session's streams: another host may serve the session's next request
        // (a shared session store), and it holds none of this host's cached events.
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.sse_retry = None;
        StreamableHttpService::new(move || Ok(self.clone()), Arc::new(sessions), config)
    }

    /// The whole Streamable HTTP endpoint at [`HTTP_PATH`] (feature `http`): the service of
    /// [`McpFront::http_service`] behind [`http::guard`] (`Origin` check against the
    /// configured `allowed_origins`, CORS, session termination answered 204), with the
    /// liveness and readiness probes of [`http::probes`] beside it.
    #[cfg(feature = "http")]
    pub fn http_router(
        self,
        bound: Option<SocketAddr>,
        shutdown: CancellationToken,
    ) -> Result<axum::Router, http::OriginError> {
        let policy = Arc::new(http::OriginPolicy::new(
            bound,
            &self.shared.config.allowed_origins,
        )?);
        let settled = self.shared.settled.clone();
        Ok(axum::Router::new()
            .route(
                http::probes::LIVE_PATH,
                axum::routing::get(http::probes::livez),
            )
            .route(
                http::probes::HEALTH_PATH,
                axum::routing::get(http::probes::livez),
            )
            .route(
                http::probes::READY_PATH,
                axum::routing::get(move || http::probes::readyz(settled.clone())),
            )
            .nest_service(HTTP_PATH, self.http_service(bound, shutdown))
            .layer(axum::middleware::from_fn_with_state(policy, http::guard)))
    }

    /// Serves Streamable HTTP at `http://ADDR/mcp` on `listener` until `shutdown` completes
    /// (feature `http`).
    #[cfg(feature = "http")]
    pub async fn serve_http(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), FrontError> {
        let bound = listener.local_addr()?;
        let sessions = CancellationToken::new();
        let router = self.http_router(Some(bound), sessions.clone())?;
        tracing::info!("MCP front serving Streamable HTTP on http://{bound}{HTTP_PATH}");
        let stop = sessions.clone();
        // A response goes out as several writes (headers, then SSE events): with Nagle's
        // algorithm on, the later ones wait for the client's delayed ACK, some 40 ms a call.
        use axum::serve::ListenerExt;
        let listener = listener.tap_io(|tcp| {
            if let Err(err) = tcp.set_nodelay(true) {
                tracing::debug!("TCP_NODELAY not set on an MCP connection: {err}");
            }
        });
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                stop.cancel();
            })
            .await?;
        Ok(())
    }
}
