//! Call timeouts and cancellation against our example server, which counts the `slow`
//! calls it saw cancelled (`slow_stats`): a timeout and a caller giving up both send
//! `notifications/cancelled`, progress restarts the idle timeout, and the connection stays
//! usable.

mod mcp_support;

use std::time::Duration;

use maitool_host::ToolProvider;
use maitool_host::mcp_client::{McpProtocol, McpToolProvider};
use maitool_protocol::{ToolExecutionContext, ToolInvocation};
use mcp_support::*;
use serde_json::json;

async fn slow_stats(provider: &McpToolProvider, tool: &str) -> serde_json::Value {
    invoke(provider, tool, json!({}))
        .await
        .structured_content
        .expect("slow_stats is structured")
}

async fn wait_cancelled(provider: &McpToolProvider, tool: &str, count: u64) {
    bounded("the server saw the cancellation", async {
        loop {
            if slow_stats(provider, tool).await["cancelled"] == count {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
}

fn servers() -> Vec<maitool_host::mcp_client::McpServerConfig> {
    // Both eras: cancellation is a notification on stdio in both.
    let mut modern = example_server("modern");
    modern.idle_timeout_seconds = Some(0.6);
    modern.read_timeout_seconds = 3.0;
    let mut legacy = example_server("legacy");
    legacy.protocol = McpProtocol::Legacy;
    legacy.tool_prefix = "legacy_".to_owned();
    legacy.idle_timeout_seconds = Some(0.6);
    legacy.read_timeout_seconds = 3.0;
    vec![modern, legacy]
}

#[tokio::test]
async fn an_idle_timeout_cancels_the_call_on_the_server() {
    maitool_e2e::init_tracing();
    let provider = start(config(servers())).await;
    for prefix in ["", "legacy_"] {
        let slow = format!("{prefix}slow");
        let stats = format!("{prefix}slow_stats");
        // One step: no progress until the end, so the 0.6 s idle timeout fires.
        let result = invoke(&provider, &slow, json!({"ms": 20_000, "steps": 1})).await;
        assert!(!result.success);
        assert_eq!(result.metadata["error_kind"], "timeout", "{result:?}");
        assert!(
            result
                .error_message
                .contains("0.6 s without a result or progress; the request was cancelled"),
            "{}",
            result.error_message
        );
        wait_cancelled(&provider, &stats, 1).await;
        let stats = slow_stats(&provider, &stats).await;
        assert_eq!(stats["started"], 1);
        assert_eq!(stats["completed"], 0);
    }
    provider.close().await.unwrap();
}

#[tokio::test]
async fn progress_restarts_the_idle_timeout_but_not_the_cap() {
    maitool_e2e::init_tracing();
    let provider = start(config(servers())).await;
    for prefix in ["", "legacy_"] {
        let slow = format!("{prefix}slow");
        // 1.5 s in 10 steps: progress every 150 ms keeps the 0.6 s idle timeout away.
        let done = invoke(&provider, &slow, json!({"ms": 1500, "steps": 10})).await;
        assert!(done.success, "{prefix}: {done:?}");
        assert_eq!(done.content, "slept 1500 ms in 10 steps");

        // Progress every 200 ms, but 6 s exceeds the 3 s cap.
        let capped = invoke(&provider, &slow, json!({"ms": 6000, "steps": 30})).await;
        assert!(!capped.success);
        assert!(
            capped.error_message.contains("after its 3 s limit"),
            "{}",
            capped.error_message
        );
        wait_cancelled(&provider, &format!("{prefix}slow_stats"), 1).await;
    }
    provider.close().await.unwrap();
}

#[tokio::test]
async fn a_caller_that_gives_up_cancels_the_call() {
    maitool_e2e::init_tracing();
    let mut server = example_server("example");
    server.read_timeout_seconds = 60.0;
    let provider = start(config(vec![server])).await;

    let invocation = ToolInvocation::new("slow", object(json!({"ms": 20_000, "steps": 100})));
    let context = ToolExecutionContext::default();
    let gave_up = tokio::time::timeout(
        Duration::from_millis(500),
        provider.invoke(invocation, &context),
    )
    .await;
    assert!(gave_up.is_err(), "the call cannot finish in 500 ms");
    wait_cancelled(&provider, "slow_stats", 1).await;

    // Same connection, next call.
    let echo = invoke(&provider, "echo", json!({"text": "next"})).await;
    assert_eq!(echo.content, "next");
    assert_eq!(status_of(&provider, "example").reconnect_count, 0);
    provider.close().await.unwrap();
}
