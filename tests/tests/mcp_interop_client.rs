//! maitool's MCP client against servers built on the TypeScript MCP SDK's low-level `Server`
//! (`@modelcontextprotocol/sdk` from npm: 1.0.4, the old v1 many published servers still pin,
//! and the current 1.32.2), serving what real servers send and rmcp's strict model refuses
//! (tests/node/mcp_server.mjs): a tool without `inputSchema`, a content block of an unknown
//! type.
//!
//! Needs `bash .ci/install-node-mcp.sh`; without it the tests say so loudly and skip, unless
//! `MAITOOL_REQUIRE_NODE_MCP=1` (CI), where they fail.

mod mcp_support;
mod node_support;

use maitool_host::ToolProvider;
use maitool_host::mcp_client::{McpServerConfig, McpServerState};
use maitool_host::registry::ToolRegistry;
use maitool_protocol::{
    ContentType, ToolAvailabilityContext, ToolExecutionContext, ToolInvocation,
};
use mcp_support::*;
use node_support::{SDK_CURRENT, SDK_OLD, script, sdk};
use serde_json::{Value, json};

/// tests/node/mcp_server.mjs on SDK `version`, or `None` when that SDK is not installed.
fn interop_server(version: &str) -> Option<McpServerConfig> {
    let dir = sdk(version)?;
    Some(McpServerConfig::stdio(
        "interop",
        "node",
        [
            script("mcp_server.mjs").to_string_lossy().into_owned(),
            "--sdk".to_owned(),
            dir.to_string_lossy().into_owned(),
        ],
    ))
}

/// A tool listed without `inputSchema` is kept as taking `{"type":"object"}`, callable, and
/// the server's other tools are all there: the server is connected, not in a reconnect loop.
async fn check_tool_without_input_schema(version: &str) {
    maitool_e2e::init_tracing();
    let Some(server) = interop_server(version) else {
        return;
    };
    let provider = start(config(vec![server])).await;
    let status = status_of(&provider, "interop");
    assert_eq!(status.state, McpServerState::Connected, "{status:?}");
    assert_eq!(status.reconnect_count, 0, "{status:?}");
    let specs = provider
        .list_tools(&ToolAvailabilityContext::default())
        .await
        .unwrap();
    let mut names: Vec<&str> = specs.iter().map(|spec| spec.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "bad_output",
            "big",
            "broken_schema",
            "no_schema",
            "odd_content",
            "pair",
            "plain"
        ]
    );
    let bare = specs.iter().find(|spec| spec.name == "no_schema").unwrap();
    assert_eq!(
        bare.parameters_schema
            .as_ref()
            .map(|s| Value::Object(s.clone())),
        Some(json!({"type": "object", "properties": {}}))
    );
    let called = invoke(&provider, "no_schema", json!({"anything": 1})).await;
    assert!(called.success, "{}", called.error_message);
    assert_eq!(called.content, r#"no_schema got {"anything":1}"#);
    provider.close().await.unwrap();
}

#[tokio::test]
async fn a_tool_without_input_schema_is_kept_old_sdk() {
    check_tool_without_input_schema(SDK_OLD).await;
}

#[tokio::test]
async fn a_tool_without_input_schema_is_kept_current_sdk() {
    check_tool_without_input_schema(SDK_CURRENT).await;
}

/// A content block of a type no spec defines keeps the rest of the result; it becomes an
/// `unknown` item in its place, naming its type and carrying its JSON. (SDK 1.32.2 refuses to
/// send such a result, so the old SDK serves it, as old servers do.)
#[tokio::test]
async fn an_unknown_content_type_keeps_the_rest_of_the_result() {
    maitool_e2e::init_tracing();
    let Some(server) = interop_server(SDK_OLD) else {
        return;
    };
    let provider = start(config(vec![server])).await;
    let result = invoke(&provider, "odd_content", json!({})).await;
    assert!(result.success, "{}", result.error_message);
    assert_eq!(result.content, "before the video\nafter the video");
    let kinds: Vec<ContentType> = result
        .content_items
        .iter()
        .map(|item| item.content_type)
        .collect();
    assert_eq!(
        kinds,
        [ContentType::Text, ContentType::Unknown, ContentType::Text]
    );
    let video = &result.content_items[1];
    assert_eq!(video.metadata["mcp_content_type"], "video", "{video:?}");
    assert_eq!(
        serde_json::from_str::<Value>(&video.text).unwrap(),
        json!({"type": "video", "uri": "file:///clip.mp4", "mimeType": "video/mp4"})
    );
    // The connection is fine afterwards.
    let plain = invoke(&provider, "plain", json!({"text": "still here"})).await;
    assert!(plain.success, "{}", plain.error_message);
    provider.close().await.unwrap();
}

/// A response over the 16 MiB line limit fails its call at once, naming the size, instead of
/// waiting for the idle timeout; the connection keeps serving.
#[tokio::test]
async fn a_response_over_the_line_limit_fails_its_call_at_once() {
    maitool_e2e::init_tracing();
    let Some(mut server) = interop_server(SDK_CURRENT) else {
        return;
    };
    server.read_timeout_seconds = 120.0;
    let provider = start(config(vec![server])).await;
    let started = std::time::Instant::now();
    let bytes = 17 * 1024 * 1024;
    let result = invoke(&provider, "big", json!({"bytes": bytes})).await;
    assert!(!result.success);
    assert_eq!(
        result.metadata["error_kind"], "response_too_large",
        "{result:?}"
    );
    assert!(
        result.error_message.contains("response too large")
            && result.error_message.contains("16777216-byte"),
        "{}",
        result.error_message
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "failed after {:?}",
        started.elapsed()
    );
    let small = invoke(&provider, "big", json!({"bytes": 1000})).await;
    assert!(small.success, "{}", small.error_message);
    assert_eq!(small.content.len(), 1000);
    provider.close().await.unwrap();
}

/// A draft-07 schema (declared with `$schema`, as zod-to-json-schema writes it) keeps its
/// meaning when exposed as 2020-12: its tuple `items` becomes `prefixItems`, it compiles, and
/// arguments are checked against it. A schema that compiles under no draft is named in
/// `status` (and its arguments go unchecked).
#[tokio::test]
async fn a_draft_07_tuple_schema_is_honoured_and_a_broken_one_is_reported() {
    maitool_e2e::init_tracing();
    let Some(server) = interop_server(SDK_CURRENT) else {
        return;
    };
    let provider = start(config(vec![server])).await;
    let specs = provider
        .list_tools(&ToolAvailabilityContext::default())
        .await
        .unwrap();
    let pair = specs.iter().find(|spec| spec.name == "pair").unwrap();
    let schema = Value::Object(pair.parameters_schema.clone().unwrap());
    assert!(schema.get("$schema").is_none(), "{schema}");
    assert_eq!(
        schema["properties"]["pair"],
        json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false})
    );

    let registry = ToolRegistry::new();
    registry.register_provider(provider.clone());
    let ctx = ToolExecutionContext::default();
    let call =
        |arguments: Value| registry.invoke(ToolInvocation::new("pair", object(arguments)), &ctx);
    let fine = bounded("pair call", call(json!({"pair": [1, "a"]}))).await;
    assert!(fine.success, "{}", fine.error_message);
    for wrong in [
        json!({"pair": ["a", 1]}),
        json!({"pair": [1, "a", "extra"]}),
    ] {
        let refused = bounded("pair call", call(wrong.clone())).await;
        assert!(!refused.success, "{wrong} was accepted");
        assert!(
            refused
                .error_message
                .starts_with("invalid arguments for tool pair: at /pair"),
            "{}",
            refused.error_message
        );
    }

    let status = status_of(&provider, "interop");
    assert_eq!(status.schema_errors.len(), 1, "{:?}", status.schema_errors);
    assert!(
        status.schema_errors[0].starts_with("broken_schema: "),
        "{:?}",
        status.schema_errors
    );
    provider.close().await.unwrap();
}
