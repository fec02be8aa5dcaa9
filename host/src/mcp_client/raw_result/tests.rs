use super::*;
use serde_json::json;

#[test]
fn an_unknown_block_keeps_its_place_and_type_and_the_rest_is_mapped() {
    let origin = CallOrigin {
        tool_name: "t",
        mcp_tool_name: "t",
        server_name: "s",
        protocol_version: "2025-11-25",
    };
    let raw = json!({"content": [
        {"type": "text", "text": "before"},
        {"type": "video", "uri": "file:///v.mp4"},
        {"type": "text", "text": "after"},
    ], "structuredContent": {"n": 1}});
    let result = map_raw_call_result(&origin, raw);
    assert!(result.success, "{}", result.error_message);
    assert_eq!(result.content, "before\nafter");
    let kinds: Vec<ContentType> = result
        .content_items
        .iter()
        .map(|i| i.content_type)
        .collect();
    assert_eq!(
        kinds,
        [ContentType::Text, ContentType::Unknown, ContentType::Text]
    );
    let unknown = &result.content_items[1];
    assert_eq!(unknown.metadata["mcp_content_type"], "video");
    assert_eq!(
        serde_json::from_str::<Value>(&unknown.text).unwrap(),
        json!({"type": "video", "uri": "file:///v.mp4"})
    );
    assert_eq!(result.structured_content, Some(json!({"n": 1})));
    let odd = map_raw_call_result(&origin, json!({"content": "text"}));
    assert_eq!(odd.metadata["error_kind"], "unsupported_response");
}
