//! MCP tools of `@modelcontextprotocol/server-everything` (npm, pinned by
//! `.ci/install-mcp-test-servers.sh`): a legacy 2025-11-25 TypeScript-SDK server. Skipped
//! with a loud message when it is not installed, except in CI.

mod mcp_support;

use std::time::Duration;

use maitool_host::ToolProvider;
use maitool_host::mcp_client::{McpRootItem, McpServerState};
use maitool_protocol::{ContentType, ToolAvailabilityContext};
use mcp_support::*;
use serde_json::json;

#[tokio::test]
async fn discovery_maps_a_typescript_server_and_follows_list_changed() {
    maitool_e2e::init_tracing();
    let Some(everything) = everything_server("everything") else {
        return;
    };
    let mut config = config(vec![everything]);
    // With roots offered, the server registers `get-roots-list` after initialisation and
    // announces it with tools/list_changed.
    config.client.roots.enable = true;
    config.client.roots.items = vec![McpRootItem {
        enabled: true,
        uri: "file:///srv/maitool".to_owned(),
        name: "maitool".to_owned(),
    }];
    let provider = start(config).await;

    let status = status_of(&provider, "everything");
    assert_eq!(status.state, McpServerState::Connected, "{status:?}");
    assert_eq!(status.protocol_version.as_deref(), Some("2025-11-25"));
    assert_eq!(
        status.server_name.as_deref(),
        Some("mcp-servers/everything")
    );

    wait_until("get-roots-list announced by list_changed", || {
        provider
            .tool_specs()
            .iter()
            .any(|spec| spec.name == "get-roots-list")
    })
    .await;
    let specs = provider
        .list_tools(&ToolAvailabilityContext::default())
        .await
        .unwrap();
    for expected in [
        "echo",
        "get-tiny-image",
        "get-structured-content",
        "get-resource-links",
        "get-resource-reference",
        "get-sum",
        "trigger-long-running-operation",
    ] {
        assert!(
            specs.iter().any(|spec| spec.name == expected),
            "missing {expected}"
        );
    }
    for spec in specs.iter() {
        let params = spec.parameters_schema.as_ref().unwrap();
        assert!(
            !params.contains_key("$schema"),
            "{}: $schema kept",
            spec.name
        );
        assert_eq!(params["type"], "object", "{}", spec.name);
        assert_eq!(spec.metadata["server_name"], "everything");
        assert!(!spec.description.is_empty());
    }
    let reference = specs
        .iter()
        .find(|spec| spec.name == "get-resource-reference")
        .unwrap();
    assert_eq!(reference.title, "Get Resource Reference Tool");
    let annotation = reference.annotation.as_ref().unwrap();
    assert_eq!(
        (
            annotation.read_only,
            annotation.destructive,
            annotation.idempotent,
            annotation.open_world
        ),
        (Some(true), Some(false), Some(true), Some(false))
    );
    let structured = specs
        .iter()
        .find(|spec| spec.name == "get-structured-content")
        .unwrap();
    let output = structured.output_schema.as_ref().expect("output schema");
    assert!(!output.contains_key("$schema"));
    assert!(output["properties"]["temperature"].is_object());

    // The server asks us for roots while running the tool.
    let roots = invoke(&provider, "get-roots-list", json!({})).await;
    assert!(roots.success, "{roots:?}");
    assert!(
        roots.content.contains("file:///srv/maitool"),
        "{}",
        roots.content
    );
    provider.close().await.unwrap();
}

#[tokio::test]
async fn calls_return_every_content_kind() {
    maitool_e2e::init_tracing();
    let Some(everything) = everything_server("everything") else {
        return;
    };
    let provider = start(config(vec![everything])).await;

    let echo = invoke(&provider, "echo", json!({"message": "hi"})).await;
    assert!(echo.success);
    assert_eq!(echo.content, "Echo: hi");
    assert_eq!(echo.metadata["protocol_version"], "2025-11-25");

    let image = invoke(&provider, "get-tiny-image", json!({})).await;
    assert!(image.success);
    let png = image
        .content_items
        .iter()
        .find(|item| item.content_type == ContentType::Image)
        .expect("an image item");
    assert_eq!(png.mime_type, "image/png");
    assert!(png.data.0.starts_with(b"\x89PNG"));

    let text_resource = invoke(
        &provider,
        "get-resource-reference",
        json!({"resourceType": "Text", "resourceId": 2}),
    )
    .await;
    let embedded = text_resource
        .content_items
        .iter()
        .find(|item| item.content_type == ContentType::Resource)
        .expect("an embedded resource");
    assert!(embedded.uri.ends_with("/2"), "{}", embedded.uri);
    assert!(!embedded.text.is_empty());

    let blob_resource = invoke(
        &provider,
        "get-resource-reference",
        json!({"resourceType": "Blob", "resourceId": 3}),
    )
    .await;
    let blob = blob_resource
        .content_items
        .iter()
        .find(|item| item.content_type == ContentType::Resource)
        .unwrap();
    assert!(!blob.data.is_empty());
    assert!(blob.text.is_empty());

    let links = invoke(&provider, "get-resource-links", json!({"count": 3})).await;
    let links: Vec<_> = links
        .content_items
        .iter()
        .filter(|item| item.content_type == ContentType::ResourceLink)
        .collect();
    assert_eq!(links.len(), 3);
    assert!(
        links
            .iter()
            .all(|link| !link.uri.is_empty() && !link.name.is_empty())
    );

    let weather = invoke(
        &provider,
        "get-structured-content",
        json!({"location": "New York"}),
    )
    .await;
    assert!(weather.success);
    let structured = weather
        .structured_content
        .as_ref()
        .expect("structured content");
    assert!(structured["temperature"].is_number());

    let annotated = invoke(
        &provider,
        "get-annotated-message",
        json!({"messageType": "error", "includeImage": false}),
    )
    .await;
    let annotation = annotated.content_items[0].annotation.as_ref().unwrap();
    assert_eq!(annotation.priority, Some(1.0));
    assert_eq!(annotation.audience, ["user", "assistant"]);
    provider.close().await.unwrap();
}

#[tokio::test]
async fn bad_arguments_unknown_tools_and_timeouts_are_failed_results() {
    maitool_e2e::init_tracing();
    let Some(mut everything) = everything_server("everything") else {
        return;
    };
    // Progress every second restarts a 2.5 s idle timeout; the 3.5 s cap still ends it.
    everything.idle_timeout_seconds = Some(2.5);
    everything.read_timeout_seconds = 3.5;
    let provider = start(config(vec![everything])).await;

    let bad = invoke(&provider, "get-sum", json!({"a": "one", "b": 2})).await;
    assert!(!bad.success);
    assert_eq!(bad.metadata["error_kind"], "tool_error");
    assert!(bad.error_message.contains("a"), "{}", bad.error_message);

    // The TypeScript SDK reports an unknown tool as isError text.
    let unknown = bounded(
        "unknown tool",
        provider.call_on_server("everything", "no-such-tool", Default::default()),
    )
    .await
    .unwrap();
    assert!(!unknown.success);
    assert_eq!(unknown.metadata["error_kind"], "unknown_tool");
    assert!(
        unknown.error_message.contains("no-such-tool"),
        "{}",
        unknown.error_message
    );

    let progressing = invoke(
        &provider,
        "trigger-long-running-operation",
        json!({"duration": 3, "steps": 3}),
    )
    .await;
    assert!(
        progressing.success,
        "progress kept it alive: {progressing:?}"
    );

    let capped = invoke(
        &provider,
        "trigger-long-running-operation",
        json!({"duration": 8, "steps": 8}),
    )
    .await;
    assert!(!capped.success);
    assert_eq!(capped.metadata["error_kind"], "timeout");
    assert!(
        capped.error_message.contains("after its 3.5 s limit"),
        "{}",
        capped.error_message
    );

    let silent = invoke(
        &provider,
        "trigger-long-running-operation",
        json!({"duration": 6, "steps": 1}),
    )
    .await;
    assert!(!silent.success);
    assert!(
        silent
            .error_message
            .contains("2.5 s without a result or progress"),
        "{}",
        silent.error_message
    );

    // The connection survived the cancellations.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let echo = invoke(&provider, "echo", json!({"message": "after"})).await;
    assert_eq!(echo.content, "Echo: after");
    assert_eq!(status_of(&provider, "everything").reconnect_count, 0);
    provider.close().await.unwrap();
}
