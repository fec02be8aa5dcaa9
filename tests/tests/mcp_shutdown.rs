//! Shutdown of stdio MCP servers: a server that follows the protocol exits on its own when
//! the host closes its stdin, in both protocol eras, instead of waiting out a grace period
//! and a SIGTERM.

mod mcp_support;

use maitool_e2e::logs;
use maitool_host::ToolProvider;
use maitool_host::mcp_client::McpProtocol;
use mcp_support::*;

async fn closes_without_signals(name: &str, protocol: McpProtocol) {
    let mut server = example_server(name);
    server.protocol = protocol;
    let provider = start(config(vec![server])).await;
    let pid = status_of(&provider, name).pid.expect("a running server");
    provider.close().await.unwrap();
    let pid = format!("pid={pid} ");
    let line = logs::wait_for(
        &["MCP stdio server stopped", &pid],
        std::time::Duration::from_secs(10),
    )
    .await
    .expect("the server's stop is logged");
    assert!(
        line.contains("exited on its own after its stdin closed"),
        "{line}"
    );
}

#[tokio::test]
async fn a_2026_server_with_an_open_subscription_exits_when_its_stdin_closes() {
    logs::capture();
    // The 2026-07-28 era opens a `subscriptions/listen` stream for list_changed; rmcp servers
    // wait for open handlers after EOF, so the host must cancel the stream first.
    closes_without_signals("modern", McpProtocol::Modern).await;
}

#[tokio::test]
async fn a_legacy_server_exits_when_its_stdin_closes() {
    logs::capture();
    closes_without_signals("legacy", McpProtocol::Legacy).await;
}
