//! Server death and shutdown, through real processes: a server killed mid-session is
//! withdrawn and reconnected; servers that never start leave the others working; nothing
//! is left running after `close` or after dropping the provider.

mod mcp_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use maitool_host::mcp_client::{McpServerState, McpToolProvider};
use maitool_host::{ProviderError, ToolProvider};
use maitool_protocol::{ToolExecutionContext, ToolInvocation};
use mcp_support::*;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;

/// Records the number of exposed tools at every tool-set version change.
fn record_tool_counts(provider: &Arc<McpToolProvider>) -> Arc<Mutex<Vec<usize>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut versions = provider.tool_set_version().unwrap().subscribe();
    let provider = Arc::downgrade(provider);
    let record = seen.clone();
    tokio::spawn(async move {
        while versions.changed().await.is_ok() {
            let Some(provider) = provider.upgrade() else {
                break;
            };
            record.lock().unwrap().push(provider.tool_specs().len());
        }
    });
    seen
}

#[tokio::test]
async fn a_killed_server_is_withdrawn_then_reconnected_with_its_tools() {
    maitool_e2e::init_tracing();
    let mut config = config(vec![
        example_server("example"),
        example_server_prefixed("other"),
    ]);
    // Long enough to observe the withdrawn state.
    config.reconnect.initial_delay_seconds = 1.0;
    let provider = start(config).await;
    assert_eq!(provider.tool_specs().len(), 18);
    let version = provider.tool_set_version().unwrap();
    let before = version.current();
    let counts = record_tool_counts(&provider);
    let old_pid = status_of(&provider, "example").pid.expect("pid");

    kill(Pid::from_raw(old_pid as i32), Signal::SIGKILL).unwrap();

    wait_until("tools withdrawn", || provider.tool_specs().len() == 9).await;
    let down = status_of(&provider, "example");
    assert_eq!(down.state, McpServerState::Reconnecting, "{down:?}");
    assert_eq!(down.tool_count, 0);
    assert!(
        down.last_error.as_deref().unwrap().contains("closed"),
        "{down:?}"
    );
    let missing = provider
        .invoke(
            ToolInvocation::new("echo", object(json!({"text": "x"}))),
            &ToolExecutionContext::default(),
        )
        .await;
    assert!(
        matches!(missing, Err(ProviderError::ToolNotFound(_))),
        "{missing:?}"
    );
    // The other server is untouched.
    let other = invoke(&provider, "other_echo", json!({"text": "alive"})).await;
    assert_eq!(other.content, "alive");

    wait_until("reconnected", || {
        status_of(&provider, "example").reconnect_count == 1
    })
    .await;
    let back = status_of(&provider, "example");
    assert_eq!(back.state, McpServerState::Connected);
    assert_eq!(back.tool_count, 9);
    assert_ne!(back.pid, Some(old_pid));
    assert_eq!(provider.tool_specs().len(), 18);
    assert!(
        version.current() >= before + 2,
        "withdraw and restore bump the version"
    );
    wait_until("both changes observed", || {
        counts.lock().unwrap().len() >= 2
    })
    .await;
    assert_eq!(counts.lock().unwrap()[..2], [9, 18]);
    wait_gone(old_pid).await;

    let echo = invoke(&provider, "echo", json!({"text": "back"})).await;
    assert!(echo.success);
    assert_eq!(echo.content, "back");
    provider.close().await.unwrap();
}

fn example_server_prefixed(name: &str) -> maitool_host::mcp_client::McpServerConfig {
    let mut server = example_server(name);
    server.tool_prefix = format!("{name}_");
    server
}

#[tokio::test]
async fn servers_that_never_start_leave_the_others_working() {
    maitool_e2e::init_tracing();
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("hang.pid");
    let missing = maitool_host::mcp_client::McpServerConfig::stdio(
        "missing",
        "/nonexistent/mcp-server",
        Vec::<String>::new(),
    );
    let not_mcp = maitool_host::mcp_client::McpServerConfig::stdio(
        "not_mcp",
        "sh",
        ["-c", "echo 'this is not JSON-RPC'; exit 1"],
    );
    // Starts but never answers the handshake.
    let hang = maitool_host::mcp_client::McpServerConfig::stdio(
        "hang",
        "sh",
        [
            "-c".to_owned(),
            format!("echo $$ > {}; exec sleep 600", pid_file.display()),
        ],
    );
    let mut config = config(vec![missing, not_mcp, hang, example_server("example")]);
    config.connect_timeout_seconds = Some(1.5);
    let provider = start(config).await;

    let missing = status_of(&provider, "missing");
    assert_eq!(missing.state, McpServerState::Failed);
    assert!(
        missing
            .last_error
            .as_deref()
            .unwrap()
            .starts_with("cannot start command \"/nonexistent/mcp-server\""),
        "{missing:?}"
    );
    let not_mcp = status_of(&provider, "not_mcp");
    assert_eq!(not_mcp.state, McpServerState::Failed);
    assert!(
        not_mcp
            .last_error
            .as_deref()
            .unwrap()
            .contains("MCP handshake failed"),
        "{not_mcp:?}"
    );
    let hang = status_of(&provider, "hang");
    assert_eq!(hang.state, McpServerState::Failed);
    assert_eq!(
        hang.last_error.as_deref(),
        Some("no connection within 1.5 s (connect timeout)")
    );
    // The timed-out process was killed.
    let hung_pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    wait_gone(hung_pid).await;

    assert_eq!(
        status_of(&provider, "example").state,
        McpServerState::Connected
    );
    assert_eq!(provider.tool_specs().len(), 9);
    let echo = invoke(&provider, "echo", json!({"text": "fine"})).await;
    assert_eq!(echo.content, "fine");

    // Retries keep failing without disturbing anything.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        status_of(&provider, "missing").state,
        McpServerState::Failed
    );
    provider.close().await.unwrap();
    for status in provider.status() {
        assert_eq!(status.state, McpServerState::Closed, "{status:?}");
    }
}

#[tokio::test]
async fn close_leaves_no_server_process_or_grandchild() {
    maitool_e2e::init_tracing();
    let dir = tempfile::tempdir().unwrap();
    let grandchild_file = dir.path().join("grandchild.pid");
    let bin = maitool_e2e::workspace_bin("maitool-example-mcp-server");
    // A wrapper launcher that leaves a background grandchild, like npx or a shell script.
    let wrapped = maitool_host::mcp_client::McpServerConfig {
        tool_prefix: "wrapped_".to_owned(),
        ..maitool_host::mcp_client::McpServerConfig::stdio(
            "wrapped",
            "sh",
            [
                "-c".to_owned(),
                format!(
                    "sleep 600 & echo $! > {}; exec {}",
                    grandchild_file.display(),
                    bin.display()
                ),
            ],
        )
    };
    let mut servers = vec![example_server("example"), wrapped];
    if let Some(mut everything) = everything_server("everything") {
        everything.tool_prefix = "everything_".to_owned();
        servers.push(everything);
    }
    if let Some(mut time) = time_server("time") {
        time.tool_prefix = "time_".to_owned();
        servers.push(time);
    }
    let count = servers.len();
    let provider = start(config(servers)).await;
    let pids: Vec<u32> = provider
        .status()
        .iter()
        .map(|status| {
            assert_eq!(status.state, McpServerState::Connected, "{status:?}");
            status.pid.expect("stdio pid")
        })
        .collect();
    assert_eq!(pids.len(), count);
    let grandchild: u32 = std::fs::read_to_string(&grandchild_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(process_exists(grandchild));

    bounded("close", provider.close()).await.unwrap();
    for pid in &pids {
        assert!(
            !process_exists(*pid),
            "server {pid} still running after close"
        );
        wait_gone(*pid).await;
    }
    wait_gone(grandchild).await;
    assert!(provider.tool_specs().is_empty());
    // Closing twice is harmless.
    provider.close().await.unwrap();
}

#[tokio::test]
async fn dropping_the_provider_stops_its_servers() {
    maitool_e2e::init_tracing();
    let provider = start(config(vec![example_server("example")])).await;
    let pid = status_of(&provider, "example").pid.unwrap();
    drop(provider);
    wait_gone(pid).await;
}

#[tokio::test]
async fn a_hung_server_fails_its_health_check_and_is_replaced() {
    maitool_e2e::init_tracing();
    // Both eras: `ping` on legacy connections, `tools/list` on 2026-07-28 ones.
    let mut modern = example_server("modern");
    modern.http_timeout_seconds = 1.0;
    let mut legacy = example_server_prefixed("legacy");
    legacy.protocol = maitool_host::mcp_client::McpProtocol::Legacy;
    legacy.http_timeout_seconds = 1.0;
    let mut config = config(vec![modern, legacy]);
    config.health_check_interval_seconds = 0.3;
    let provider = start(config).await;

    for name in ["modern", "legacy"] {
        let hung = status_of(&provider, name).pid.unwrap();
        // Stopped, not dead: the pipes stay open, only the health check can tell.
        kill(Pid::from_raw(hung as i32), Signal::SIGSTOP).unwrap();
        wait_until("reconnected after the failed health check", || {
            status_of(&provider, name).reconnect_count == 1
        })
        .await;
        let status = status_of(&provider, name);
        assert_eq!(status.state, McpServerState::Connected);
        assert_ne!(status.pid, Some(hung));
        assert!(
            status
                .last_error
                .as_deref()
                .unwrap()
                .starts_with("health check failed"),
            "{status:?}"
        );
        // The stopped server was killed, not left behind.
        wait_gone(hung).await;
    }
    assert_eq!(provider.tool_specs().len(), 18);
    provider.close().await.unwrap();
}

#[tokio::test]
async fn a_server_that_exits_on_its_own_is_reconnected() {
    maitool_e2e::init_tracing();
    let mut exits = example_server("exits");
    exits
        .env
        .insert("EXAMPLE_MCP_EXIT_AFTER_MS".to_owned(), "800".to_owned());
    let provider = start(config(vec![exits, example_server_prefixed("steady")])).await;
    let first = status_of(&provider, "exits").pid.unwrap();
    wait_until("reconnected after the exit", || {
        status_of(&provider, "exits").reconnect_count >= 1
    })
    .await;
    let status = status_of(&provider, "exits");
    // Usually "the connection closed"; on a loaded machine the exit may hit a handshake.
    assert!(
        status.last_error.as_deref().unwrap().contains("closed"),
        "{status:?}"
    );
    wait_gone(first).await;
    // Each exit withdraws the server's tools; the steady server's stay.
    assert_eq!(status_of(&provider, "steady").reconnect_count, 0);
    let echo = invoke(&provider, "steady_echo", json!({"text": "steady"})).await;
    assert_eq!(echo.content, "steady");
    provider.close().await.unwrap();
    assert!(
        provider
            .status()
            .iter()
            .all(|s| s.state == McpServerState::Closed)
    );
}
