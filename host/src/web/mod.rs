//! The operator console in the browser (`maitool serve --web ADDR`, `[web]`): server-rendered
//! pages (maud) of runners, plugins, tools, MCP servers and logs, kept live over Server-Sent
//! Events with htmx (embedded, see `assets.rs`); enable, disable, restart and reload through
//! the same code as the CLI verbs, and plugin configuration forms generated from each
//! plugin's schema. Every page reads without JavaScript; every form posts without it.
//!
//! Access rules are in `guard.rs`: loopback by default, a token off loopback, the origin of
//! every state-changing request checked. No page shows a secret: configuration values under
//! secret-looking keys are redacted, runner environments and MCP server settings are not shown.

mod actions;
mod assets;
mod config_form;
mod config_save;
mod guard;
mod live;
mod logs;
mod pages;
mod views;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use tokio_util::sync::CancellationToken;

use crate::app::Host;
use crate::config::WebSection;
use crate::mcp_server::http::OriginError;
use crate::plugin_config::PluginConfigs;

/// The shortest token accepted.
const MIN_TOKEN_LEN: usize = 16;

/// Why the console cannot start.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The address could not be bound.
    #[error("cannot listen on {addr} for the web console")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
    /// Off loopback without a token.
    #[error(
        "the web console listens on {0}, off loopback, and needs a token: set `[web] token` (for example `token = \"${{MAITOOL_WEB_TOKEN}}\"`)"
    )]
    TokenRequired(SocketAddr),
    /// A token too short to resist guessing.
    #[error("`[web] token` must be at least {MIN_TOKEN_LEN} characters")]
    ShortToken,
    /// An entry of `[web] allowed_origins` does not parse.
    #[error("[web] allowed_origins")]
    Origin(#[source] OriginError),
}

/// A bound console, not serving yet.
#[derive(Debug)]
pub struct WebConsole {
    listener: tokio::net::TcpListener,
    guard: guard::Guard,
}

/// What every handler reads.
#[derive(Debug)]
pub(crate) struct Console {
    pub host: Arc<Host>,
    pub configs: Arc<PluginConfigs>,
    /// Cancelled when serve stops: the live streams end with it.
    pub stop: CancellationToken,
}

type Shared = Arc<Console>;

impl WebConsole {
    /// Checks the access settings and binds `addr`: off loopback without a token it refuses,
    /// and binds nothing.
    pub async fn bind(addr: SocketAddr, settings: &WebSection) -> Result<WebConsole, WebError> {
        let token = settings.token.clone().filter(|t| !t.is_empty());
        if let Some(token) = &token
            && token.chars().count() < MIN_TOKEN_LEN
        {
            return Err(WebError::ShortToken);
        }
        if !addr.ip().is_loopback() && token.is_none() {
            return Err(WebError::TokenRequired(addr));
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| WebError::Bind { addr, source })?;
        let bound = listener
            .local_addr()
            .map_err(|source| WebError::Bind { addr, source })?;
        let guard =
            guard::Guard::new(bound, token, &settings.allowed_origins).map_err(WebError::Origin)?;
        Ok(WebConsole { listener, guard })
    }

    /// The address it listens on (the port chosen, for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Serves `host` until `stop` is cancelled.
    pub async fn serve(
        self,
        host: Arc<Host>,
        configs: Arc<PluginConfigs>,
        stop: CancellationToken,
    ) -> std::io::Result<()> {
        let guard = Arc::new(self.guard);
        let state: Shared = Arc::new(Console {
            host,
            configs,
            stop: stop.clone(),
        });
        let router = Router::new()
            .route("/", get(pages::overview))
            .route("/plugins/{id}", get(pages::plugin))
            .route("/logs", get(logs::page))
            .route("/events", get(live::events))
            .route("/logs/events", get(logs::events))
            .route("/assets/{name}", get(assets::asset))
            .route("/login", get(actions::login_page).post(actions::login))
            .route("/reload", post(actions::reload))
            .route("/runners/{name}/restart", post(actions::restart))
            .route("/plugins/{id}/enable", post(actions::enable_plugin))
            .route("/plugins/{id}/disable", post(actions::disable_plugin))
            .route("/components/{name}/enable", post(actions::enable_component))
            .route(
                "/components/{name}/disable",
                post(actions::disable_component),
            )
            .route("/plugins/{id}/config", post(config_save::save))
            .route("/plugins/{id}/config/check", post(config_save::check))
            .route("/plugins/{id}/config/raw", post(config_save::save_raw))
            .with_state(state.clone())
            .layer(axum::middleware::from_fn_with_state(
                guard.clone(),
                guard::check,
            ))
            .layer(axum::Extension(guard));
        axum::serve(self.listener, router)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await
    }
}
