//! Shared helpers of the `mcp_*` end-to-end tests: server configs for our example server
//! and the third-party servers installed by `.ci/install-mcp-test-servers.sh`, bounded
//! waits, and process checks.

#![allow(dead_code)]

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use maitool_host::ToolProvider;
use maitool_host::mcp_client::{
    McpConfig, McpServerConfig, McpServerState, McpServerStatus, McpToolProvider,
};
use maitool_protocol::{JsonObject, ToolExecutionContext, ToolExecutionResult, ToolInvocation};
use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;

/// Upper bound of anything a test waits for; generous so slow CI machines pass, while a
/// hang still fails instead of blocking the suite.
pub const BOUND: Duration = Duration::from_secs(60);

/// Awaits `future` within [`BOUND`], panicking with `what` otherwise.
pub async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(BOUND, future)
        .await
        .unwrap_or_else(|_| panic!("timed out after {BOUND:?}: {what}"))
}

/// Polls `condition` every 50 ms until it holds, within [`BOUND`].
pub async fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    bounded(what, async {
        while !condition() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
}

/// Our example server over stdio.
pub fn example_server(name: &str) -> McpServerConfig {
    let bin = maitool_e2e::workspace_bin("maitool-example-mcp-server");
    let mut server = McpServerConfig::stdio(name, bin.to_string_lossy(), Vec::<String>::new());
    // Keep the server's own log quiet unless asked for.
    server.env.insert(
        "RUST_LOG".to_owned(),
        std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".to_owned()),
    );
    server
}

/// An enabled config over `servers`, with fast reconnects and health checks for tests.
pub fn config(servers: Vec<McpServerConfig>) -> McpConfig {
    let mut config = McpConfig {
        enable: true,
        servers,
        ..McpConfig::default()
    };
    config.reconnect.initial_delay_seconds = 0.2;
    config.reconnect.max_delay_seconds = 1.0;
    config
}

/// Starts a provider within [`BOUND`].
pub async fn start(config: McpConfig) -> Arc<McpToolProvider> {
    bounded("McpToolProvider::start", McpToolProvider::start(config))
        .await
        .expect("valid MCP config")
}

/// Invokes an exposed tool through the `ToolProvider` interface.
pub async fn invoke(
    provider: &McpToolProvider,
    tool: &str,
    arguments: serde_json::Value,
) -> ToolExecutionResult {
    let invocation = ToolInvocation::new(tool, object(arguments));
    bounded(
        &format!("invoke {tool}"),
        provider.invoke(invocation, &ToolExecutionContext::default()),
    )
    .await
    .unwrap_or_else(|err| panic!("invoke {tool}: provider error {err}"))
}

/// A JSON object literal.
pub fn object(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("expected an object, got {other}"),
    }
}

/// The status of one server.
pub fn status_of(provider: &McpToolProvider, name: &str) -> McpServerStatus {
    provider
        .status()
        .into_iter()
        .find(|status| status.name == name)
        .unwrap_or_else(|| panic!("no status for server {name}"))
}

/// Waits until server `name` is connected.
pub async fn wait_connected(provider: &McpToolProvider, name: &str) {
    wait_until(&format!("{name} connected"), || {
        status_of(provider, name).state == McpServerState::Connected
    })
    .await;
}

/// Whether a process (or process group leader) with this pid still exists.
pub fn process_exists(pid: u32) -> bool {
    !matches!(kill(Pid::from_raw(pid as i32), None), Err(Errno::ESRCH))
}

/// Whether any process of the process group `pgid` still exists.
pub fn process_group_exists(pgid: u32) -> bool {
    !matches!(
        nix::sys::signal::killpg(Pid::from_raw(pgid as i32), None),
        Err(Errno::ESRCH)
    )
}

/// Waits until neither the process nor anything in its group is left.
pub async fn wait_gone(pid: u32) {
    wait_until(&format!("process {pid} and its group gone"), || {
        !process_exists(pid) && !process_group_exists(pid)
    })
    .await;
}

/// Where `.ci/install-mcp-test-servers.sh` installs the third-party servers.
pub fn servers_dir() -> PathBuf {
    match std::env::var_os("MAITOOL_MCP_SERVERS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
            .join(".cache/maitool-mcp-servers"),
    }
}

/// Returns `path` if it exists. Otherwise skips loudly, or panics when
/// `MAITOOL_REQUIRE_MCP_SERVERS=1` (CI), so a missing server never passes silently there.
fn third_party(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    let message = format!(
        "{what} not found at {}: run .ci/install-mcp-test-servers.sh (MAITOOL_MCP_SERVERS_DIR={})",
        path.display(),
        servers_dir().display()
    );
    if std::env::var("MAITOOL_REQUIRE_MCP_SERVERS").as_deref() == Ok("1") {
        panic!("MAITOOL_REQUIRE_MCP_SERVERS=1 but {message}");
    }
    maitool_e2e::skip::announce(&message);
    None
}

/// `@modelcontextprotocol/server-everything` over stdio, run with `node` directly (not
/// through `npx`, which would add a wrapper process).
pub fn everything_server(name: &str) -> Option<McpServerConfig> {
    let script = third_party(
        servers_dir()
            .join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        "@modelcontextprotocol/server-everything",
    )?;
    Some(McpServerConfig::stdio(
        name,
        "node",
        [script.to_string_lossy().into_owned(), "stdio".to_owned()],
    ))
}

/// The path of server-everything's entry script, for HTTP tests.
pub fn everything_script() -> Option<PathBuf> {
    third_party(
        servers_dir()
            .join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        "@modelcontextprotocol/server-everything",
    )
}

/// `mcp-server-time` from its venv, in UTC.
pub fn time_server(name: &str) -> Option<McpServerConfig> {
    let bin = third_party(
        servers_dir().join("time-venv/bin/mcp-server-time"),
        "mcp-server-time",
    )?;
    Some(McpServerConfig::stdio(
        name,
        bin.to_string_lossy(),
        ["--local-timezone", "UTC"],
    ))
}
