//! MCP tools of our example server (`maitool-example-mcp-server`), through real stdio
//! processes: discovery across pages with every field mapped, every content kind, tool
//! errors, bad arguments and unknown tools, in both protocol eras.

mod mcp_support;

use maitool_host::ToolProvider;
use maitool_host::mcp_client::{McpProtocol, McpServerState};
use maitool_protocol::{ContentType, ProviderType, ToolAvailabilityContext};
use mcp_support::*;
use serde_json::json;

#[tokio::test]
async fn discovery_pages_through_the_list_and_maps_every_field() {
    maitool_e2e::init_tracing();
    // Page size 3 with 9 tools: three pages.
    let mut server = example_server("example");
    server.args = vec!["--page-size".to_owned(), "3".to_owned()];
    let provider = start(config(vec![server])).await;

    let status = status_of(&provider, "example");
    assert_eq!(status.state, McpServerState::Connected, "{status:?}");
    assert_eq!(status.tool_count, 9);
    assert_eq!(status.exposed_tool_count, 9);
    assert_eq!(
        status.server_name.as_deref(),
        Some("maitool-example-mcp-server")
    );
    assert!(status.pid.is_some());

    let specs = provider
        .list_tools(&ToolAvailabilityContext::default())
        .await
        .unwrap();
    let names: Vec<&str> = specs.iter().map(|spec| spec.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "echo",
            "tiny_image",
            "beep",
            "weather_report",
            "resource_demo",
            "fail",
            "slow",
            "add",
            "slow_stats"
        ]
    );

    let echo = &specs[0];
    assert_eq!(echo.provider_name, "mcp");
    assert_eq!(echo.provider_type, ProviderType::Mcp);
    assert_eq!(echo.title, "Echo");
    assert_eq!(echo.description, "Repeat the given text back.");
    let params = echo.parameters_schema.as_ref().unwrap();
    assert!(!params.contains_key("$schema"), "$schema must be stripped");
    assert_eq!(params["required"], json!(["text"]));
    let annotation = echo.annotation.as_ref().unwrap();
    assert_eq!(annotation.title, "Echo text");
    assert_eq!(annotation.read_only, Some(true));
    assert_eq!(annotation.destructive, Some(false));
    assert_eq!(annotation.idempotent, Some(true));
    assert_eq!(annotation.open_world, Some(false));
    assert_eq!(echo.icons.len(), 1);
    assert!(echo.icons[0].src.starts_with("data:image/svg+xml;base64,"));
    assert_eq!(echo.icons[0].mime_type, "image/svg+xml");
    assert_eq!(echo.icons[0].sizes, ["any"]);
    assert_eq!(echo.visibility(), Some("visible"));
    assert_eq!(echo.metadata["category"], "demo");
    assert_eq!(echo.metadata["server_name"], "example");
    assert_eq!(echo.metadata["mcp_tool_name"], "echo");

    let weather = specs
        .iter()
        .find(|spec| spec.name == "weather_report")
        .unwrap();
    let output = weather.output_schema.as_ref().unwrap();
    assert!(!output.contains_key("$schema"));
    assert_eq!(output["required"][0], "city");

    // No description: the fallback names the server.
    let stats = specs.iter().find(|spec| spec.name == "slow_stats").unwrap();
    assert_eq!(stats.description, "MCP tool from server example");
    assert!(stats.annotation.is_none());
    assert!(
        stats.visibility().is_none(),
        "deferred unless the server says otherwise"
    );

    let names = provider.declared_tool_names().await.unwrap();
    assert_eq!(names.len(), 9);
    assert!(
        provider
            .is_available("add", &ToolAvailabilityContext::default())
            .await
            .unwrap()
    );
    assert!(
        !provider
            .is_available("nope", &ToolAvailabilityContext::default())
            .await
            .unwrap()
    );
    provider.close().await.unwrap();
}

#[tokio::test]
async fn calls_map_text_image_audio_structured_and_resources() {
    maitool_e2e::init_tracing();
    let provider = start(config(vec![example_server("example")])).await;

    let echo = invoke(&provider, "echo", json!({"text": "hello"})).await;
    assert!(echo.success, "{echo:?}");
    assert_eq!(echo.tool_name, "echo");
    assert_eq!(echo.content, "hello");
    assert_eq!(echo.metadata["server_name"], "example");
    assert_eq!(echo.metadata["protocol_version"], "2026-07-28");

    let image = invoke(&provider, "tiny_image", json!({})).await;
    assert!(image.success);
    assert_eq!(image.content, "an 8x8 PNG gradient");
    let png = &image.content_items[1];
    assert_eq!(png.content_type, ContentType::Image);
    assert_eq!(png.mime_type, "image/png");
    assert!(
        png.data.0.starts_with(b"\x89PNG\r\n\x1a\n"),
        "decoded PNG bytes"
    );

    let beep = invoke(&provider, "beep", json!({})).await;
    let wav = &beep.content_items[1];
    assert_eq!(wav.content_type, ContentType::Audio);
    assert_eq!(wav.mime_type, "audio/wav");
    assert_eq!(&wav.data.0[..4], b"RIFF");

    let weather = invoke(&provider, "weather_report", json!({"city": "Paris"})).await;
    assert!(weather.success);
    let structured = weather.structured_content.as_ref().unwrap();
    assert_eq!(structured["city"], "Paris");
    assert!(structured["temperature_c"].is_number());
    // The SHOULD-include text mirror of the structured content.
    let mirrored: serde_json::Value = serde_json::from_str(&weather.content).unwrap();
    assert_eq!(&mirrored, structured);

    let resources = invoke(&provider, "resource_demo", json!({})).await;
    assert!(resources.success);
    let items = &resources.content_items;
    assert_eq!(items.len(), 4);
    let link = &items[1];
    assert_eq!(link.content_type, ContentType::ResourceLink);
    assert_eq!(link.uri, "example://docs/readme");
    assert_eq!(link.name, "readme");
    assert_eq!(link.description, "The example server's README");
    assert_eq!(link.mime_type, "text/markdown");
    assert_eq!(link.metadata["title"], "Example README");
    assert_eq!(link.metadata["size"], 42);
    let link_annotation = link.annotation.as_ref().unwrap();
    assert_eq!(link_annotation.audience, ["user"]);
    assert_eq!(link_annotation.priority, Some(0.5));
    assert_eq!(
        link_annotation.metadata["last_modified"],
        "2026-01-01T00:00:00Z"
    );
    let text = &items[2];
    assert_eq!(text.content_type, ContentType::Resource);
    assert_eq!(text.uri, "example://notes/today");
    assert_eq!(text.text, "remember the milk");
    assert_eq!(text.mime_type, "text/plain");
    assert_eq!(text.annotation.as_ref().unwrap().audience, ["assistant"]);
    let blob = &items[3];
    assert_eq!(blob.content_type, ContentType::Resource);
    assert_eq!(blob.uri, "example://data/bytes");
    assert_eq!(blob.data.0, (0u8..16).collect::<Vec<_>>());
    assert_eq!(blob.mime_type, "application/octet-stream");
    assert_eq!(blob.metadata["origin"], "resource_demo");

    let sum = invoke(&provider, "add", json!({"a": 2, "b": 3.5})).await;
    assert!(sum.success);
    assert_eq!(sum.content, "2 + 3.5 = 5.5");
    assert_eq!(sum.structured_content, Some(json!({"sum": 5.5})));
    provider.close().await.unwrap();
}

#[tokio::test]
async fn tool_errors_bad_arguments_and_unknown_tools_are_failed_results() {
    maitool_e2e::init_tracing();
    let provider = start(config(vec![example_server("example")])).await;

    let failed = invoke(&provider, "fail", json!({"message": "boom"})).await;
    assert!(!failed.success);
    assert_eq!(failed.error_message, "boom");
    assert_eq!(failed.content, "");
    assert_eq!(failed.metadata["error_kind"], "tool_error");
    assert_eq!(failed.metadata["server_name"], "example");

    let bad = invoke(&provider, "add", json!({"a": 1, "b": "two"})).await;
    assert!(!bad.success);
    assert_eq!(
        bad.error_message,
        "invalid arguments: `b` must be a number, got \"two\""
    );

    // Not exposed at all: the registry's "not found".
    let missing = provider
        .invoke(
            maitool_protocol::ToolInvocation::new("no_such_tool", Default::default()),
            &Default::default(),
        )
        .await;
    assert!(
        matches!(missing, Err(maitool_host::ProviderError::ToolNotFound(name)) if name == "no_such_tool")
    );

    // Unknown to the server: our rmcp server answers with JSON-RPC -32602.
    let unknown = bounded(
        "unknown tool",
        provider.call_on_server("example", "no_such_tool", Default::default()),
    )
    .await
    .unwrap();
    assert!(!unknown.success);
    assert_eq!(unknown.metadata["error_kind"], "unknown_tool");
    assert_eq!(unknown.metadata["jsonrpc_code"], -32602);
    assert!(
        unknown
            .error_message
            .contains("MCP server 'example' does not know tool 'no_such_tool'"),
        "{}",
        unknown.error_message
    );

    // The connection is still fine after all of that.
    let echo = invoke(&provider, "echo", json!({"text": "still here"})).await;
    assert_eq!(echo.content, "still here");
    provider.close().await.unwrap();
}

#[tokio::test]
async fn both_protocol_eras_are_spoken() {
    maitool_e2e::init_tracing();
    let modern = example_server("modern");
    let mut legacy_pinned = example_server("legacy_pinned");
    legacy_pinned.protocol = McpProtocol::Legacy;
    legacy_pinned.tool_prefix = "legacy_".to_owned();
    // A server that only speaks 2025-11-25: Auto falls back from server/discover.
    let mut legacy_server = example_server("legacy_server");
    legacy_server.args = vec!["--legacy-only".to_owned()];
    legacy_server.tool_prefix = "old.".to_owned();
    let provider = start(config(vec![modern, legacy_pinned, legacy_server])).await;

    assert_eq!(
        status_of(&provider, "modern").protocol_version.as_deref(),
        Some("2026-07-28")
    );
    assert_eq!(
        status_of(&provider, "legacy_pinned")
            .protocol_version
            .as_deref(),
        Some("2025-11-25")
    );
    let fallback = status_of(&provider, "legacy_server");
    assert_eq!(fallback.state, McpServerState::Connected, "{fallback:?}");
    assert_eq!(fallback.protocol_version.as_deref(), Some("2025-11-25"));

    for (tool, era) in [
        ("echo", "2026-07-28"),
        ("legacy_echo", "2025-11-25"),
        ("old.echo", "2025-11-25"),
    ] {
        let result = invoke(&provider, tool, json!({"text": tool})).await;
        assert!(result.success, "{tool}: {result:?}");
        assert_eq!(result.content, tool);
        assert_eq!(result.metadata["protocol_version"], era, "{tool}");
        assert_eq!(result.metadata["mcp_tool_name"], "echo");
    }
    provider.close().await.unwrap();
}
