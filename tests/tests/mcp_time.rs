//! MCP tools of `mcp-server-time` (PyPI, pinned by `.ci/install-mcp-test-servers.sh`): a
//! dual-era Python-SDK server that answers both `server/discover` (2026-07-28) and
//! `initialize` (2025-11-25). Skipped with a loud message when it is not installed, except
//! in CI.

mod mcp_support;

use maitool_host::ToolProvider;
use maitool_host::mcp_client::{McpProtocol, McpServerState};
use mcp_support::*;
use serde_json::json;

#[tokio::test]
async fn both_eras_discover_the_same_tools_with_output_schemas() {
    maitool_e2e::init_tracing();
    let (Some(modern), Some(mut legacy)) = (time_server("time"), time_server("time_legacy")) else {
        return;
    };
    legacy.protocol = McpProtocol::Legacy;
    legacy.tool_prefix = "legacy_".to_owned();
    let provider = start(config(vec![modern, legacy])).await;

    let modern = status_of(&provider, "time");
    assert_eq!(modern.state, McpServerState::Connected, "{modern:?}");
    assert_eq!(modern.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(modern.server_name.as_deref(), Some("mcp-time"));
    let legacy = status_of(&provider, "time_legacy");
    assert_eq!(legacy.protocol_version.as_deref(), Some("2025-11-25"));

    let specs = provider.tool_specs();
    let names: Vec<&str> = specs.iter().map(|spec| spec.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "get_current_time",
            "convert_time",
            "legacy_get_current_time",
            "legacy_convert_time"
        ]
    );
    for spec in specs.iter() {
        let output = spec.output_schema.as_ref().expect("output schema");
        assert!(!output.contains_key("$schema"));
        let params = spec.parameters_schema.as_ref().unwrap();
        assert_eq!(params["type"], "object");
        assert!(
            params["properties"]["timezone"].is_object()
                || params["properties"]["source_timezone"].is_object()
        );
    }
    assert_eq!(specs[2].metadata["mcp_tool_name"], "get_current_time");
    assert_eq!(specs[2].metadata["server_name"], "time_legacy");
    provider.close().await.unwrap();
}

#[tokio::test]
async fn calls_return_structured_content_and_errors() {
    maitool_e2e::init_tracing();
    let Some(time) = time_server("time") else {
        return;
    };
    let provider = start(config(vec![time])).await;

    let now = invoke(
        &provider,
        "get_current_time",
        json!({"timezone": "Asia/Tokyo"}),
    )
    .await;
    assert!(now.success, "{now:?}");
    assert_eq!(now.metadata["protocol_version"], "2026-07-28");
    let structured = now.structured_content.as_ref().expect("structured content");
    assert_eq!(structured["timezone"], "Asia/Tokyo");
    assert!(structured["datetime"].as_str().unwrap().contains('T'));

    let converted = invoke(
        &provider,
        "convert_time",
        json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
    )
    .await;
    assert!(converted.success, "{converted:?}");
    let structured = converted.structured_content.unwrap();
    assert_eq!(structured["target"]["timezone"], "Asia/Tokyo");
    assert!(
        structured["target"]["datetime"]
            .as_str()
            .unwrap()
            .contains("21:00")
    );

    let bad = invoke(
        &provider,
        "get_current_time",
        json!({"timezone": "Mars/Olympus"}),
    )
    .await;
    assert!(!bad.success);
    assert_eq!(bad.metadata["error_kind"], "tool_error");
    assert!(
        bad.error_message.contains("Invalid timezone"),
        "{}",
        bad.error_message
    );

    let bad_format = invoke(
        &provider,
        "convert_time",
        json!({"source_timezone": "UTC", "time": "noon", "target_timezone": "UTC"}),
    )
    .await;
    assert!(!bad_format.success);
    assert!(
        bad_format.error_message.contains("HH:MM"),
        "{}",
        bad_format.error_message
    );

    let unknown = bounded(
        "unknown tool",
        provider.call_on_server("time", "no_such_tool", Default::default()),
    )
    .await
    .unwrap();
    assert!(!unknown.success);
    assert_eq!(
        unknown.metadata["error_kind"], "unknown_tool",
        "{unknown:?}"
    );
    assert!(
        unknown.error_message.contains("no_such_tool"),
        "{}",
        unknown.error_message
    );
    provider.close().await.unwrap();
}

/// A test that skips for a missing server says so in `cargo test`'s own output, not only in
/// the output libtest captures (and drops) for passing tests: the test above runs here in a
/// child process of this test binary, pointed at a folder with no servers.
#[test]
fn a_skipped_test_says_so_in_the_test_output() {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "calls_return_structured_content_and_errors",
            "--test-threads=1",
        ])
        .env(
            "MAITOOL_MCP_SERVERS_DIR",
            "/nonexistent/maitool-mcp-servers",
        )
        .env_remove("MAITOOL_REQUIRE_MCP_SERVERS")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("test calls_return_structured_content_and_errors ... ok"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "======== SKIPPED: mcp-server-time not found at /nonexistent/maitool-mcp-servers/time-venv/bin/mcp-server-time"
        ),
        "the skip is not in the output:\n{stdout}\n{stderr}"
    );
}
