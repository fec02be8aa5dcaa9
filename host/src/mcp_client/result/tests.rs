use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rmcp::model::{
    AudioContent, EmbeddedResource, ErrorData, ImageContent, MetaObject, Resource, TextContent,
};
use serde_json::json;

use super::*;

fn origin() -> CallOrigin<'static> {
    CallOrigin {
        tool_name: "srv_tool",
        mcp_tool_name: "tool",
        server_name: "srv",
        protocol_version: "2025-11-25",
    }
}

fn meta(value: Value) -> MetaObject {
    match value {
        Value::Object(map) => MetaObject(map),
        _ => panic!("object expected"),
    }
}

#[test]
fn a_success_joins_text_and_keeps_every_item() {
    let mut annotations = Annotations::default()
        .with_audience(vec![Role::User, Role::Assistant])
        .with_priority(0.25);
    annotations.last_modified = Some("2026-01-01T00:00:00Z".to_owned());
    let result = CallToolResult::success(vec![
        ContentBlock::Text(
            TextContent::new("first")
                .with_annotations(annotations)
                .with_meta(meta(json!({"k": 1}))),
        ),
        ContentBlock::text("   "),
        ContentBlock::Image(ImageContent::new(BASE64.encode([1u8, 2, 3]), "image/png")),
        ContentBlock::Audio(AudioContent::new(BASE64.encode([4u8]), "audio/wav")),
        ContentBlock::text("second"),
    ]);
    let mut result = result;
    result.structured_content = Some(json!([1, 2]));
    result.meta = Some(meta(json!({"pause_execution": true})));

    let mapped = map_call_result(&origin(), result);
    assert!(mapped.success);
    assert_eq!(mapped.tool_name, "srv_tool");
    assert_eq!(mapped.content, "first\nsecond");
    assert_eq!(mapped.error_message, "");
    assert_eq!(mapped.structured_content, Some(json!([1, 2])));
    assert_eq!(mapped.content_items.len(), 5);
    let first = &mapped.content_items[0];
    let annotation = first.annotation.as_ref().unwrap();
    assert_eq!(annotation.audience, ["user", "assistant"]);
    assert_eq!(annotation.priority, Some(0.25));
    assert_eq!(annotation.metadata["last_modified"], "2026-01-01T00:00:00Z");
    assert_eq!(first.metadata["k"], 1);
    assert_eq!(mapped.content_items[2].data.0, [1, 2, 3]);
    assert_eq!(mapped.content_items[2].content_type, ContentType::Image);
    assert_eq!(mapped.content_items[3].content_type, ContentType::Audio);
    assert_eq!(mapped.metadata["server_name"], "srv");
    assert_eq!(mapped.metadata["protocol_version"], "2025-11-25");
    assert_eq!(mapped.metadata["mcp_tool_name"], "tool");
    assert_eq!(
        mapped.metadata["mcp_meta"],
        json!({"pause_execution": true})
    );
    assert!(!mapped.pauses_execution(), "a server cannot set host flags");
}

#[test]
fn is_error_becomes_a_failure_with_the_text() {
    let mapped = map_call_result(
        &origin(),
        CallToolResult::error(vec![
            ContentBlock::text("bad input"),
            ContentBlock::text("try again"),
        ]),
    );
    assert!(!mapped.success);
    assert_eq!(mapped.content, "");
    assert_eq!(mapped.error_message, "bad input\ntry again");
    assert_eq!(mapped.metadata["error_kind"], "tool_error");

    let unknown = map_call_result(
        &origin(),
        CallToolResult::error(vec![ContentBlock::text(
            "MCP error -32602: Tool no-such-tool not found",
        )]),
    );
    assert_eq!(unknown.metadata["error_kind"], "unknown_tool");

    let silent = map_call_result(&origin(), CallToolResult::error(vec![]));
    assert_eq!(
        silent.error_message,
        "MCP tool 'tool' on server 'srv' reported an error without a message"
    );
    let structured = map_call_result(
        &origin(),
        CallToolResult::structured_error(json!({"code": 7})),
    );
    assert_eq!(structured.error_message, "{\"code\":7}");
}

#[test]
fn resources_links_and_bad_base64_are_mapped() {
    let link = Resource::new("file:///a.txt", "a")
        .with_title("A")
        .with_description("the a file")
        .with_mime_type("text/plain")
        .with_size(3);
    let text = EmbeddedResource::new(ResourceContents::TextResourceContents {
        uri: "mem://t".to_owned(),
        mime_type: Some("text/plain".to_owned()),
        text: "hello".to_owned(),
        meta: Some(meta(json!({"inner": true}))),
    })
    .with_meta(meta(json!({"outer": true})));
    let blob = EmbeddedResource::new(ResourceContents::BlobResourceContents {
        uri: "mem://b".to_owned(),
        mime_type: None,
        blob: BASE64.encode([9u8, 9]),
        meta: None,
    });
    let items: Vec<ToolContentItem> = [
        ContentBlock::ResourceLink(link),
        ContentBlock::Resource(text),
        ContentBlock::Resource(blob),
        ContentBlock::Image(ImageContent::new("%%%not base64", "image/png")),
    ]
    .into_iter()
    .map(map_content)
    .collect();

    assert_eq!(items[0].content_type, ContentType::ResourceLink);
    assert_eq!(items[0].uri, "file:///a.txt");
    assert_eq!(items[0].name, "a");
    assert_eq!(items[0].description, "the a file");
    assert_eq!(items[0].mime_type, "text/plain");
    assert_eq!(items[0].metadata["title"], "A");
    assert_eq!(items[0].metadata["size"], 3);

    assert_eq!(items[1].content_type, ContentType::Resource);
    assert_eq!(items[1].text, "hello");
    assert_eq!(items[1].metadata["inner"], true);
    assert_eq!(items[1].metadata["outer"], true);

    assert_eq!(items[2].uri, "mem://b");
    assert_eq!(items[2].data.0, [9, 9]);

    assert_eq!(items[3].content_type, ContentType::Unknown);
    assert!(
        items[3].text.starts_with("undecodable image data"),
        "{}",
        items[3].text
    );
}

#[test]
fn call_errors_are_failures_with_clear_messages() {
    let idle = Duration::from_secs(5);
    let cap = Duration::from_secs(60);

    let unknown = map_call_error(
        &origin(),
        &ServiceError::McpError(ErrorData::invalid_params("tool not found: tool", None)),
        idle,
        cap,
    );
    assert!(!unknown.success);
    assert_eq!(
        unknown.error_message,
        "MCP server 'srv' does not know tool 'tool' (JSON-RPC error -32602: tool not found: tool)"
    );
    assert_eq!(unknown.metadata["error_kind"], "unknown_tool");
    assert_eq!(unknown.metadata["jsonrpc_code"], -32602);

    let internal = map_call_error(
        &origin(),
        &ServiceError::McpError(ErrorData::internal_error(
            "db down",
            Some(json!({"retry": true})),
        )),
        idle,
        cap,
    );
    assert_eq!(
        internal.error_message,
        "MCP tool 'tool' on server 'srv' failed with JSON-RPC error -32603: db down"
    );
    assert_eq!(internal.metadata["jsonrpc_data"], json!({"retry": true}));

    let idle_timeout = map_call_error(
        &origin(),
        &ServiceError::Timeout { timeout: idle },
        idle,
        cap,
    );
    assert_eq!(
        idle_timeout.error_message,
        "MCP tool 'tool' on server 'srv' timed out after 5 s without a result or progress; the request was cancelled"
    );
    assert_eq!(idle_timeout.metadata["error_kind"], "timeout");
    let capped = map_call_error(
        &origin(),
        &ServiceError::Timeout { timeout: cap },
        idle,
        cap,
    );
    assert!(capped.error_message.contains("after its 60 s limit"));

    let closed = map_call_error(&origin(), &ServiceError::TransportClosed, idle, cap);
    assert_eq!(closed.metadata["error_kind"], "transport_closed");
    assert!(
        closed
            .error_message
            .starts_with("MCP server 'srv' connection was lost during 'tool'")
    );

    let task = unsupported_response(&origin(), "a task");
    assert_eq!(
        task.error_message,
        "MCP tool 'tool' on server 'srv' answered with a task, which maitool does not support"
    );
}
