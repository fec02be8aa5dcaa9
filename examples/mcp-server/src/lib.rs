//! `maitool-example-mcp-server`: an MCP server with demo tools for maitool's default
//! config and tests.
//!
//! ```text
//! maitool-example-mcp-server [--page-size N] [--legacy-only]
//!                            [--http 127.0.0.1:PORT [--addr-file PATH]]
//! ```
//!
//! stdio by default; `--http` serves Streamable HTTP at `http://ADDR/mcp` (port 0 picks a
//! free port; `--addr-file` receives the bound address; cargo feature `http`, on by
//! default). `--page-size` sets the
//! `tools/list` page size (default 3, so listing takes several pages); `--legacy-only`
//! supports protocol versions up to 2025-11-25 only. Over HTTP the extra tool
//! `request_headers` reports the `Authorization` and `x-*` headers it received.
//!
//! Test hooks (environment):
//! * `EXAMPLE_MCP_EXIT_AFTER_MS=N`: exit with status 3 after N ms (a server that dies);
//! * `EXAMPLE_MCP_NOTIFY_LIST_CHANGED_MS=N`: after N ms add the tool `late_echo` and send
//!   `notifications/tools/list_changed`.
//!
//! Logs go to stderr (`RUST_LOG`, default `info`); stdout carries only the protocol.
//!
//! The server is this library's [`main`]; the binary only calls it. Built as a library, its
//! code is compiled in the benchmark's own build, which depends on it, alongside the host
//! (see `tests/bench/Cargo.toml`), and the binary's later build only links it.

mod media;
mod server;
mod tools;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use rmcp::ServiceExt;

use server::{ExampleServer, State};

struct Options {
    page_size: usize,
    legacy_only: bool,
    http: Option<SocketAddr>,
    addr_file: Option<PathBuf>,
}

fn parse_options() -> anyhow::Result<Options> {
    let mut options = Options {
        page_size: 3,
        legacy_only: false,
        http: None,
        addr_file: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--page-size" => {
                options.page_size = value("--page-size")?
                    .parse()
                    .context("--page-size must be a positive integer")?;
            }
            "--legacy-only" => options.legacy_only = true,
            "--http" => {
                options.http = Some(
                    value("--http")?
                        .parse()
                        .context("--http must be an address like 127.0.0.1:8765")?,
                );
            }
            "--addr-file" => options.addr_file = Some(PathBuf::from(value("--addr-file")?)),
            "-h" | "--help" => {
                eprintln!(
                    "usage: maitool-example-mcp-server [--page-size N] [--legacy-only] [--http ADDR [--addr-file PATH]]"
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument {other:?} (try --help)"),
        }
    }
    if options.page_size == 0 {
        bail!("--page-size must be at least 1");
    }
    Ok(options)
}

fn env_millis(name: &str) -> anyhow::Result<Option<Duration>> {
    match std::env::var(name) {
        Ok(value) => {
            let ms: u64 = value
                .trim()
                .parse()
                .with_context(|| format!("{name} must be a number of milliseconds"))?;
            Ok(Some(Duration::from_millis(ms)))
        }
        Err(_) => Ok(None),
    }
}

/// Runs the server on the process's arguments until its client leaves (stdio) or it is
/// killed (HTTP); a failure is printed to stderr and exits with status 1.
pub fn main() -> ExitCode {
    let outcome = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .and_then(|runtime| runtime.block_on(run()));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("Error: {err:?}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let options = parse_options()?;
    let state = State::new(
        options.page_size,
        options.legacy_only,
        options.http.is_some(),
    );

    if let Some(after) = env_millis("EXAMPLE_MCP_EXIT_AFTER_MS")? {
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            tracing::warn!("EXAMPLE_MCP_EXIT_AFTER_MS elapsed; exiting");
            std::process::exit(3);
        });
    }
    if let Some(after) = env_millis("EXAMPLE_MCP_NOTIFY_LIST_CHANGED_MS")? {
        let state = state.clone();
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            state.add_tool(tools::late_tool()).await;
        });
    }

    match options.http {
        None => serve_stdio(state).await,
        Some(addr) => serve_http(state, addr, options.addr_file).await,
    }
}

#[cfg(not(feature = "http"))]
async fn serve_http(
    _state: Arc<State>,
    _addr: SocketAddr,
    _addr_file: Option<PathBuf>,
) -> anyhow::Result<()> {
    bail!(
        "--http: this build has no Streamable HTTP (cargo feature `http` of maitool-example-mcp-server)"
    )
}

async fn serve_stdio(state: Arc<State>) -> anyhow::Result<()> {
    tracing::info!("maitool-example-mcp-server ready on stdio");
    let running = ExampleServer::new(state)
        .serve(rmcp::transport::stdio())
        .await
        .context("MCP handshake on stdio failed")?;
    running.waiting().await?;
    Ok(())
}

#[cfg(feature = "http")]
async fn serve_http(
    state: Arc<State>,
    addr: SocketAddr,
    addr_file: Option<PathBuf>,
) -> anyhow::Result<()> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let service = StreamableHttpService::new(
        move || Ok(ExampleServer::new(state.clone())),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let bound = listener.local_addr()?;
    if let Some(path) = addr_file {
        // Write then rename, so a reader never sees a partial address.
        let partial = path.with_extension("partial");
        std::fs::write(&partial, bound.to_string())
            .with_context(|| format!("cannot write {}", partial.display()))?;
        std::fs::rename(&partial, &path)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    tracing::info!("maitool-example-mcp-server ready on http://{bound}/mcp");
    axum::serve(listener, router).await?;
    Ok(())
}
