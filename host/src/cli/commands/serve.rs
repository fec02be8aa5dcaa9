//! `maitool serve`: the host in the foreground, with its control socket, and optionally the
//! MCP server front on stdio or Streamable HTTP.

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use crate::control::{ControlServer, ControlSocketError};
#[cfg(feature = "http")]
use crate::mcp_server::HTTP_PATH;
use crate::mcp_server::{FrontConfig, FrontError, McpFront};
use crate::{Host, LoadedConfig};
use anyhow::{Context, Result, anyhow};
use maitool_protocol::ToolExecutionContext;
use maitool_protocol::wire::message_flow::EventType;
use tokio_util::sync::CancellationToken;

use crate::cli::EXIT_FAILED;
use crate::cli::args::{Cli, ServeArgs};
#[cfg(any(feature = "http", feature = "web"))]
use crate::cli::output::outln;

type FrontTask = Pin<Box<dyn Future<Output = Result<(), FrontError>> + Send>>;

/// The `--mcp-http` listener; a build without the `http` feature has none.
#[cfg(feature = "http")]
type HttpListener = tokio::net::TcpListener;
#[cfg(not(feature = "http"))]
type HttpListener = std::convert::Infallible;

/// How long open HTTP sessions get to close when serve stops.
const HTTP_DRAIN: Duration = Duration::from_secs(1);

pub(super) async fn serve(cli: &Cli, args: &ServeArgs, config: LoadedConfig) -> Result<ExitCode> {
    let socket = super::control_socket(cli, &config)?;
    // Claimed before anything starts: a path that is not a socket, or a serve already running
    // there, stops this one before any runner or MCP server does.
    let control = match ControlServer::bind(&socket).await {
        Ok(control) => Some(control),
        // The MCP client that launched this serve wants its tools even so.
        Err(ControlSocketError::InUse(path)) if args.mcp_stdio => {
            tracing::warn!(
                "another maitool serve is already running on {}: serving MCP on stdio without a control socket",
                path.display()
            );
            None
        }
        Err(err) => return Err(err.into()),
    };
    let _metrics = match (args.metrics, &control) {
        (Some(_), None) => {
            return Err(anyhow!(
                "--metrics reads this serve's control socket, and another maitool serve holds {}",
                socket.display()
            ));
        }
        (Some(address), Some(_)) => Some(super::metrics::endpoint(address, socket.clone()).await?),
        (None, _) => None,
    };
    // Bind before starting anything, so a busy port fails fast and starts no runner.
    let web = match args.web.or(config.config.web.listen) {
        Some(addr) => Some(bind_web(addr, &config.config.web).await?),
        None => None,
    };
    let http = match args.mcp_http {
        Some(addr) => Some(bind_http(addr, &args.mcp_allowed_origins).await?),
        None => None,
    };
    let http_url = http.as_ref().and_then(http_url);
    let started = if args.mcp_stdio || args.mcp_http.is_some() {
        // An MCP client is waiting for its handshake: serve at once. Its first tools/list waits
        // at the settle gate for sources that are nearly up; the rest reach it as
        // tools/list_changed.
        Host::start_without_waiting(config).await
    } else {
        // A live "starting: n/m runners ready" line, only when stderr is a terminal.
        let progress = crate::cli::output::TerminalProgress::on_terminal();
        let started = Host::start_with_progress(
            config,
            progress
                .as_ref()
                .map(|p| p as &dyn crate::metrics::StartObserver),
        )
        .await;
        drop(progress);
        started
    };
    let host = Arc::new(started.context("cannot start the host")?);
    if let Some(control) = &control {
        control.serve(host.clone());
    }
    // Plugin configurations are saved through it: the console's forms and plugins'
    // `component.update_plugin_config`.
    let configs = crate::plugin_config::PluginConfigs::attach(&host);
    let stop_web = CancellationToken::new();
    let web_task = match web {
        Some(web) => Some(web_console(web, &host, configs, args, &stop_web)?),
        None => None,
    };
    let control_path = control
        .as_ref()
        .map_or_else(|| "none".to_owned(), |c| c.path().display().to_string());
    // With PostgreSQL, this host lists itself in the shared `hosts` table for `status`.
    let heartbeat = host.shared_database().map(|database| {
        let settings = host.config().config.cluster;
        let address = settings.advertise.clone().or(http_url.clone());
        let identity = crate::cluster::HostIdentity::of_this_process(address);
        tracing::info!(host = %identity.id, "listed in the cluster's hosts table");
        crate::cluster::Heartbeat::start(database.clone(), identity, &settings, &host)
    });
    let tools = host.registry.list_tools(&Default::default()).await.len();
    // Handlers first: a SIGTERM sent as soon as the line below is read must stop serve
    // gracefully, not kill it with the default action.
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    tracing::info!(control = %control_path, tools, "maitool is serving");
    // MaiBot fires on_start once the bot runs; handlers of a runner still starting are
    // waited for, within their timeout.
    let starting = host.clone();
    tokio::spawn(async move { lifecycle_event(&starting, EventType::OnStart).await });

    let stop_http = CancellationToken::new();
    let mut front: FrontTask = if args.mcp_stdio {
        tracing::info!("MCP front serving on stdio");
        Box::pin(front(&host, args).serve_stdio())
    } else if let Some(listener) = http {
        http_front(&host, args, listener, &stop_http)?
    } else {
        Box::pin(std::future::pending())
    };

    let mut watch = if args.watch {
        let watch = super::watch::Watch::start(super::watch::WatchSet::of(&host.config()))?;
        tracing::info!("watching the configuration, plugin folders and runner executables");
        Some(watch)
    } else {
        None
    };
    let mut code = ExitCode::SUCCESS;
    let mut front_done = false;
    loop {
        tokio::select! {
            changed = super::watch::Watch::next(&mut watch) => {
                if let Some(current) = watch.take() {
                    watch = super::watch::apply(&host, current, changed).await;
                }
            }
            _ = interrupt.recv() => {
                tracing::info!("SIGINT: shutting down");
                break;
            }
            _ = terminate.recv() => {
                tracing::info!("SIGTERM: shutting down");
                break;
            }
            _ = hangup.recv() => match host.reload().await {
                // Reload outcomes are logged by `Host::reload`.
                Ok(_) => {}
                Err(err) => {
                    tracing::error!("SIGHUP reload failed: {}", crate::error_text::chain(&err));
                }
            },
            outcome = &mut front => {
                front_done = true;
                match outcome {
                    // A stdio server lives as long as its client, like any MCP server.
                    Ok(()) => tracing::info!("MCP front finished: shutting down"),
                    Err(err) => {
                        tracing::error!("{}", crate::error_text::chain(&err));
                        code = ExitCode::from(EXIT_FAILED);
                    }
                }
                break;
            }
        }
    }
    // Leaving the host list first: `status` stops counting this host as soon as it stops.
    if let Some(heartbeat) = heartbeat {
        heartbeat.stop().await;
    }
    if !front_done && args.mcp_http.is_some() {
        stop_http.cancel();
        let _ = tokio::time::timeout(HTTP_DRAIN, front).await;
    }
    stop_web.cancel();
    if let Some(task) = web_task {
        let _ = tokio::time::timeout(HTTP_DRAIN, task).await;
    }
    drop(control);
    if tokio::time::timeout(STOP_EVENT_LIMIT, lifecycle_event(&host, EventType::OnStop))
        .await
        .is_err()
    {
        tracing::warn!(
            "on_stop handlers did not finish within {} s",
            STOP_EVENT_LIMIT.as_secs()
        );
    }
    host.messages().settle(STOP_EVENT_LIMIT).await;
    host.shutdown().await;
    Ok(code)
}

/// How long `serve` gives the `on_stop` handlers before it stops the runners.
const STOP_EVENT_LIMIT: Duration = Duration::from_secs(5);

/// Emits a lifecycle event (about no message) to every plugin's handlers, logging who failed.
async fn lifecycle_event(host: &Host, event: EventType) {
    let emission = host
        .messages()
        .emit_event(
            event,
            None,
            Default::default(),
            &ToolExecutionContext::default(),
        )
        .await;
    for run in emission.handlers.iter().filter(|run| run.error.is_some()) {
        tracing::warn!(handler = %run.handler, "{}", run.error.as_deref().unwrap_or_default());
    }
}

/// The bound console; a build without the `web` feature has none.
#[cfg(feature = "web")]
type WebListener = crate::web::WebConsole;
#[cfg(not(feature = "web"))]
type WebListener = std::convert::Infallible;

#[cfg(feature = "web")]
async fn bind_web(
    addr: std::net::SocketAddr,
    settings: &crate::config::WebSection,
) -> Result<WebListener> {
    Ok(crate::web::WebConsole::bind(addr, settings).await?)
}

#[cfg(not(feature = "web"))]
async fn bind_web(
    _addr: std::net::SocketAddr,
    _settings: &crate::config::WebSection,
) -> Result<WebListener> {
    Err(anyhow!(
        "--web needs a maitool built with the `web` feature; this one has no console"
    ))
}

/// Starts serving the console; prints its address on stdout (unless stdout is MCP's).
#[cfg(feature = "web")]
fn web_console(
    web: WebListener,
    host: &Arc<Host>,
    configs: Arc<crate::plugin_config::PluginConfigs>,
    args: &ServeArgs,
    stop: &CancellationToken,
) -> Result<tokio::task::JoinHandle<()>> {
    let bound = web.local_addr();
    if args.mcp_stdio {
        tracing::info!("web console at http://{bound}/");
    } else {
        outln!("http://{bound}/")?;
    }
    let (host, stop) = (host.clone(), stop.clone());
    Ok(tokio::spawn(async move {
        if let Err(err) = web.serve(host, configs, stop).await {
            tracing::error!("web console: {err}");
        }
    }))
}

#[cfg(not(feature = "web"))]
fn web_console(
    web: WebListener,
    _host: &Arc<Host>,
    _configs: Arc<crate::plugin_config::PluginConfigs>,
    _args: &ServeArgs,
    _stop: &CancellationToken,
) -> Result<tokio::task::JoinHandle<()>> {
    match web {}
}

#[cfg(feature = "http")]
async fn bind_http(addr: std::net::SocketAddr, origins: &[String]) -> Result<HttpListener> {
    for origin in origins {
        crate::mcp_server::http::OriginPattern::parse(origin)?;
    }
    tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr} for --mcp-http"))
}

#[cfg(not(feature = "http"))]
async fn bind_http(_addr: std::net::SocketAddr, _origins: &[String]) -> Result<HttpListener> {
    Err(anyhow!(
        "--mcp-http needs a maitool built with the `http` feature; this one serves MCP on stdio only (--mcp-stdio)"
    ))
}

/// `http://ADDR/mcp` of the bound listener.
#[cfg(feature = "http")]
fn http_url(listener: &HttpListener) -> Option<String> {
    listener
        .local_addr()
        .ok()
        .map(|bound| format!("http://{bound}{HTTP_PATH}"))
}

#[cfg(not(feature = "http"))]
fn http_url(listener: &HttpListener) -> Option<String> {
    match *listener {}
}

#[cfg(feature = "http")]
fn http_front(
    host: &Host,
    args: &ServeArgs,
    listener: HttpListener,
    stop: &CancellationToken,
) -> Result<FrontTask> {
    let bound = listener.local_addr()?;
    // stdout is free in HTTP mode: print the endpoint for scripts and people.
    outln!("http://{bound}{HTTP_PATH}")?;
    let stop = stop.clone();
    let front = front(host, args);
    if let Some(database) = host.shared_database() {
        front.keep_sessions_in(Arc::new(crate::mcp_server::http::PostgresSessions::new(
            database.clone(),
        )));
        front.relay_cancels_through(crate::mcp_server::http::RemoteCancels::start(
            database.clone(),
        ));
    }
    Ok(Box::pin(front.serve_http(listener, async move {
        stop.cancelled().await
    })))
}

#[cfg(not(feature = "http"))]
fn http_front(
    _host: &Host,
    _args: &ServeArgs,
    listener: HttpListener,
    _stop: &CancellationToken,
) -> Result<FrontTask> {
    match listener {}
}

/// The front over `host`'s registry, listing through its settle gate.
fn front(host: &Host, args: &ServeArgs) -> McpFront {
    McpFront::with_gate(
        host.registry.clone(),
        front_config(args),
        host.settled().clone(),
    )
}

fn front_config(args: &ServeArgs) -> FrontConfig {
    let is_group_chat = match (args.mcp_group_chat, args.mcp_private_chat) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    };
    FrontConfig {
        context: ToolExecutionContext {
            session_id: args.mcp_session_id.clone(),
            stream_id: args.mcp_stream_id.clone(),
            group_id: args.mcp_group_id.clone(),
            user_id: args.mcp_user_id.clone(),
            platform: args.mcp_platform.clone(),
            is_group_chat,
            ..ToolExecutionContext::default()
        },
        page_size: args.mcp_page_size.map(|size| size as usize),
        progress_interval: Some(Duration::from_millis(args.mcp_progress_interval_ms))
            .filter(|interval| !interval.is_zero()),
        allowed_origins: args.mcp_allowed_origins.clone(),
    }
}

#[cfg(all(test, not(feature = "http")))]
mod tests {
    use tokio::net::TcpListener;

    /// A build without `http` refuses `--mcp-http` with the reason, and binds nothing: the
    /// address stays free.
    #[tokio::test]
    async fn mcp_http_is_refused_with_the_missing_feature_named_and_nothing_bound() {
        let probe = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = probe.local_addr().unwrap();
        drop(probe);
        let err = super::bind_http(addr, &[]).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "--mcp-http needs a maitool built with the `http` feature; this one serves MCP on stdio only (--mcp-stdio)"
        );
        TcpListener::bind(addr)
            .await
            .expect("the address was left free");
    }

    /// A build without `web` refuses `--web` with the reason, and binds nothing.
    #[tokio::test]
    async fn web_is_refused_with_the_missing_feature_named_and_nothing_bound() {
        let probe = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = probe.local_addr().unwrap();
        drop(probe);
        let err = super::bind_web(addr, &Default::default())
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "--web needs a maitool built with the `web` feature; this one has no console"
        );
        TcpListener::bind(addr)
            .await
            .expect("the address was left free");
    }
}
