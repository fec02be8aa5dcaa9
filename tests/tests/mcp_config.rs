//! Configuration end to end: validation errors that name the server and the key, a
//! Claude Desktop file importing servers, disabled servers and MCP switched off, and tool
//! name collisions kept under MaiBot 1.3's source prefix (`mcp_<server>_<name>`) or
//! namespaced with `tool_prefix`.

mod mcp_support;

use maitool_host::ToolProvider;
use maitool_host::mcp_client::{McpConfig, McpConfigError, McpServerState, McpToolProvider};
use mcp_support::*;
use serde_json::json;

#[tokio::test]
async fn an_invalid_config_is_rejected_naming_server_and_key() {
    maitool_e2e::init_tracing();
    let config: McpConfig = toml::from_str(
        r#"
enable = true
[[servers]]
name = "time"
transport = "stdio"

[[servers]]
name = "remote"
transport = "streamable_http"
url = "https://example.invalid/mcp"
authorization = { mode = "bearer" }
"#,
    )
    .unwrap();
    let err = McpToolProvider::start(config).await.unwrap_err();
    let McpConfigError::Invalid(problems) = &err else {
        panic!("expected validation problems, got {err:?}");
    };
    assert_eq!(
        problems,
        &[
            "mcp.servers[0] (\"time\"): transport \"stdio\" needs `command`",
            "mcp.servers[1] (\"remote\"): `authorization.mode = \"bearer\"` needs `authorization.bearer_token`",
        ]
    );
}

#[tokio::test]
async fn a_claude_desktop_file_adds_servers_after_the_configured_ones() {
    maitool_e2e::init_tracing();
    let dir = tempfile::tempdir().unwrap();
    let bin = maitool_e2e::workspace_bin("maitool-example-mcp-server");
    let file = dir.path().join("claude_desktop_config.json");
    let json = json!({
        "mcpServers": {
            "desktop_example": {
                "command": bin,
                "args": ["--page-size", "4"],
                "env": {"RUST_LOG": "warn"}
            },
            "desktop_off": {"command": "/nonexistent", "disabled": true}
        }
    });
    std::fs::write(&file, serde_json::to_vec_pretty(&json).unwrap()).unwrap();
    let mut configured = example_server("configured");
    configured.tool_prefix = "cfg_".to_owned();
    let mut config = config(vec![configured]);
    config.claude_desktop_config = Some(file);
    let provider = start(config).await;

    let names: Vec<String> = provider.status().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["configured", "desktop_example", "desktop_off"]);
    assert_eq!(
        status_of(&provider, "desktop_example").state,
        McpServerState::Connected
    );
    assert_eq!(
        status_of(&provider, "desktop_off").state,
        McpServerState::Disabled
    );
    let echo = invoke(&provider, "echo", json!({"text": "from the desktop file"})).await;
    assert_eq!(echo.metadata["server_name"], "desktop_example");
    let echo = invoke(&provider, "cfg_echo", json!({"text": "configured"})).await;
    assert_eq!(echo.metadata["server_name"], "configured");
    provider.close().await.unwrap();
}

#[tokio::test]
async fn a_collision_keeps_the_first_servers_name_and_the_later_tool_under_its_source_prefix() {
    maitool_e2e::init_tracing();
    let first = example_server("first");
    let second = example_server("second");
    let mut third = example_server("third");
    third.tool_prefix = "third.".to_owned();
    let provider = start(config(vec![first, second, third])).await;

    let first = status_of(&provider, "first");
    let second = status_of(&provider, "second");
    let third = status_of(&provider, "third");
    assert_eq!((first.tool_count, first.exposed_tool_count), (9, 9));
    assert_eq!((second.tool_count, second.exposed_tool_count), (9, 9));
    assert_eq!((third.tool_count, third.exposed_tool_count), (9, 9));
    assert_eq!(provider.tool_specs().len(), 27);

    let echo = invoke(&provider, "echo", json!({"text": "a"})).await;
    assert_eq!(echo.metadata["server_name"], "first");
    // MaiBot 1.3 keeps every server's tools; a name taken by an earlier server gets the
    // server's prefix.
    let renamed = provider
        .tool_specs()
        .iter()
        .find(|spec| spec.name == "mcp_second_echo")
        .cloned()
        .expect("the second server's echo is kept");
    assert_eq!(renamed.metadata["registry_original_name"], "echo");
    let echo = invoke(&provider, "mcp_second_echo", json!({"text": "s"})).await;
    assert_eq!(echo.metadata["server_name"], "second");
    assert_eq!(echo.metadata["mcp_tool_name"], "echo");
    assert_eq!(echo.content, "s");
    let echo = invoke(&provider, "third.echo", json!({"text": "b"})).await;
    assert_eq!(echo.metadata["server_name"], "third");
    assert_eq!(echo.metadata["mcp_tool_name"], "echo");

    // Any server is reachable by server name and MCP name as well.
    let direct = bounded(
        "direct call",
        provider.call_on_server(
            "second",
            "echo",
            serde_json::from_value(json!({"text": "c"})).unwrap(),
        ),
    )
    .await
    .unwrap();
    assert_eq!(direct.metadata["server_name"], "second");
    assert_eq!(direct.content, "c");
    provider.close().await.unwrap();
}

#[tokio::test]
async fn disabled_servers_and_disabled_mcp_start_nothing() {
    maitool_e2e::init_tracing();
    let mut off = example_server("off");
    off.enabled = false;
    let provider = start(config(vec![off.clone(), example_server("on")])).await;
    assert_eq!(status_of(&provider, "off").state, McpServerState::Disabled);
    assert_eq!(status_of(&provider, "off").pid, None);
    assert_eq!(status_of(&provider, "on").state, McpServerState::Connected);
    provider.close().await.unwrap();
    assert_eq!(status_of(&provider, "off").state, McpServerState::Disabled);

    let mut all_off = config(vec![example_server("a"), off]);
    all_off.enable = false;
    // Not validated either: a half-written config does not matter while MCP is off.
    all_off
        .servers
        .push(maitool_host::mcp_client::McpServerConfig::default());
    let provider = start(all_off).await;
    assert!(
        provider
            .status()
            .iter()
            .all(|status| status.state == McpServerState::Disabled)
    );
    assert!(provider.tool_specs().is_empty());
    provider.close().await.unwrap();
}
