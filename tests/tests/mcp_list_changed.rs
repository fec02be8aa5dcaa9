//! `tools/list_changed` refreshes the exposed tools, in both eras: an unscoped notification
//! on an `initialize` connection, and a `subscriptions/listen` stream on a 2026-07-28
//! connection.

mod mcp_support;

use maitool_host::ToolProvider;
use maitool_host::mcp_client::McpProtocol;
use mcp_support::*;
use serde_json::json;

#[tokio::test]
async fn a_tool_added_later_appears_in_both_eras() {
    maitool_e2e::init_tracing();
    let mut modern = example_server("modern");
    modern.env.insert(
        "EXAMPLE_MCP_NOTIFY_LIST_CHANGED_MS".to_owned(),
        "700".to_owned(),
    );
    let mut legacy = example_server("legacy");
    legacy.protocol = McpProtocol::Legacy;
    legacy.tool_prefix = "legacy_".to_owned();
    legacy.env.insert(
        "EXAMPLE_MCP_NOTIFY_LIST_CHANGED_MS".to_owned(),
        "700".to_owned(),
    );
    let provider = start(config(vec![modern, legacy])).await;
    assert_eq!(
        status_of(&provider, "modern").protocol_version.as_deref(),
        Some("2026-07-28")
    );
    assert_eq!(
        status_of(&provider, "legacy").protocol_version.as_deref(),
        Some("2025-11-25")
    );
    let version = provider.tool_set_version().unwrap();
    let before = version.current();
    assert_eq!(provider.tool_specs().len(), 18);

    wait_until("late tools listed", || {
        let specs = provider.tool_specs();
        specs.iter().any(|spec| spec.name == "late_echo")
            && specs.iter().any(|spec| spec.name == "legacy_late_echo")
    })
    .await;
    assert!(version.current() > before);
    assert_eq!(status_of(&provider, "modern").tool_count, 10);
    assert_eq!(status_of(&provider, "legacy").tool_count, 10);
    let late = provider
        .tool_specs()
        .iter()
        .find(|spec| spec.name == "late_echo")
        .cloned()
        .unwrap();
    assert_eq!(
        late.description,
        "Repeat the given text back; added after start-up."
    );

    for tool in ["late_echo", "legacy_late_echo"] {
        let result = invoke(&provider, tool, json!({"text": tool})).await;
        assert!(result.success, "{result:?}");
        assert_eq!(result.content, tool);
    }
    // A refresh is not a reconnect.
    assert_eq!(status_of(&provider, "modern").reconnect_count, 0);
    provider.close().await.unwrap();
}
