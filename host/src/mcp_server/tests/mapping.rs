use maitool_protocol::{
    ContentType, JsonObject, ProviderType, ToolAnnotation, ToolContentItem, ToolExecutionContext,
    ToolExecutionResult, ToolIcon, ToolSpec,
};
use rmcp::model::{ContentBlock, ResourceContents, Role};
use serde_json::{Value, json};

use crate::mcp_server::context::{
    ContextError, META_IS_GROUP_CHAT, META_SESSION_ID, request_context,
};
use crate::mcp_server::cursor::{Cursor, page};
use crate::mcp_server::result::{StructuredRule, to_call_result};
use crate::mcp_server::tools::spec_to_tool;

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

#[test]
fn request_meta_overrides_the_defaults_key_by_key() {
    let defaults = ToolExecutionContext {
        session_id: "s0".into(),
        stream_id: "st0".into(),
        platform: "qq".into(),
        is_group_chat: Some(false),
        ..ToolExecutionContext::default()
    };
    let meta = object(json!({
        "maitool/session_id": "s1",
        "maitool/group_id": 12345,
        "maitool/is_group_chat": true,
        "maitool/reasoning": "because",
        "progressToken": 3,
    }));
    let context = request_context(&defaults, &meta).unwrap();
    assert_eq!(context.session_id, "s1");
    assert_eq!(context.stream_id, "st0", "absent keys keep the default");
    assert_eq!(context.group_id, "12345", "integer ids are accepted");
    assert_eq!(context.platform, "qq");
    assert_eq!(context.is_group_chat, Some(true));
    assert_eq!(context.reasoning, "because");

    let unknown =
        request_context(&defaults, &object(json!({"maitool/is_group_chat": null}))).unwrap();
    assert_eq!(unknown.is_group_chat, None, "null means unknown");
}

#[test]
fn a_context_key_of_the_wrong_type_is_a_specific_error() {
    let defaults = ToolExecutionContext::default();
    let err =
        request_context(&defaults, &object(json!({"maitool/session_id": ["a"]}))).unwrap_err();
    assert_eq!(
        err,
        ContextError {
            key: META_SESSION_ID,
            expected: "a string or an integer",
            got: "[\"a\"]".into()
        }
    );
    let err =
        request_context(&defaults, &object(json!({"maitool/is_group_chat": "yes"}))).unwrap_err();
    assert_eq!(err.key, META_IS_GROUP_CHAT);
    assert_eq!(
        err.to_string(),
        "_meta key maitool/is_group_chat must be true, false or null, got \"yes\""
    );
    let err = request_context(&defaults, &object(json!({"maitool/session_id": 1.5}))).unwrap_err();
    assert_eq!(err.key, META_SESSION_ID);
}

#[test]
fn cursors_round_trip_and_pages_cover_the_list_once() {
    let names: Vec<String> = (0..7).map(|i| format!("t{i}")).collect();
    let mut seen = Vec::new();
    let mut cursor: Option<Cursor> = None;
    let mut pages = 0;
    loop {
        let (range, next) = page(&names, cursor.as_ref(), 3);
        seen.extend(names[range].iter().cloned());
        pages += 1;
        match next {
            Some(next) => cursor = Some(Cursor::decode(&next.encode()).unwrap()),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, names);
    let (range, next) = page(&names, None, 100);
    assert_eq!((range, next), (0..7, None));
    let empty: [&str; 0] = [];
    assert_eq!(page(&empty, None, 2), (0..0, None));
}

#[test]
fn a_page_resumes_after_the_last_tool_sent_when_the_list_changed() {
    let before = ["a", "b", "c", "d", "e"];
    let (_, next) = page(&before, None, 2);
    let cursor = next.unwrap();
    assert_eq!(
        cursor,
        Cursor {
            offset: 2,
            last: "b".into()
        }
    );

    // A tool before the cursor disappeared: resume after "b", not at index 2.
    let shrunk = ["b", "c", "d", "e"];
    assert_eq!(page(&shrunk, Some(&cursor), 2).0, 1..3);
    // A tool was inserted before the cursor.
    let grown = ["z", "a", "b", "c", "d", "e"];
    assert_eq!(page(&grown, Some(&cursor), 2).0, 3..5);
    // "b" itself is gone: fall back to the offset.
    let gone = ["a", "c", "d", "e"];
    assert_eq!(page(&gone, Some(&cursor), 2).0, 2..4);
    // The list shrank below the offset: an empty last page, not a panic.
    assert_eq!(page(&["x"], Some(&cursor), 2), (1..1, None));
}

#[test]
fn foreign_cursors_are_rejected_with_the_reason() {
    for (cursor, reason) in [
        ("not base64!", "not base64url"),
        ("bm9wZQ", "unknown cursor format"),           // "nope"
        ("bXQxOjM", "no tool name"),                   // "mt1:3"
        ("bXQxOng6YQ", "bad offset"),                  // "mt1:x:a"
        ("bXQxOjA6YQ", "not a position after a tool"), // "mt1:0:a"
    ] {
        let err = Cursor::decode(cursor).unwrap_err();
        assert_eq!(err.reason, reason, "{cursor}");
        assert!(err.to_string().contains("start again without a cursor"));
    }
    let odd = Cursor {
        offset: 4,
        last: "name:with:colons".into(),
    };
    assert_eq!(Cursor::decode(&odd.encode()).unwrap(), odd);
}

#[test]
fn every_spec_field_reaches_the_mcp_tool() {
    let mut spec = ToolSpec::new("weather", "  Weather for a city.  ")
        .with_parameters(object(
            json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        ))
        .with_provider("mcp", ProviderType::Mcp)
        .with_metadata("visibility", "deferred")
        .with_metadata("maitool/provider_name", "spoofed");
    spec.title = "Weather".into();
    spec.output_schema = Some(object(
        json!({"type": "object", "properties": {"t": {"type": "number"}}}),
    ));
    spec.icons = vec![ToolIcon {
        src: "https://x/icon.png".into(),
        mime_type: "image/png".into(),
        sizes: vec!["48x48".into()],
    }];
    spec.annotation = Some(ToolAnnotation {
        audience: vec!["user".into()],
        priority: Some(0.25),
        title: "Weather lookup".into(),
        read_only: Some(true),
        destructive: Some(false),
        idempotent: Some(true),
        open_world: Some(true),
        metadata: object(json!({"source": "demo"})),
    });

    let tool = serde_json::to_value(spec_to_tool(spec)).unwrap();
    assert_eq!(
        tool,
        json!({
            "name": "weather",
            "title": "Weather",
            "description": "Weather for a city.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
            "outputSchema": {"type": "object", "properties": {"t": {"type": "number"}}},
            "annotations": {
                "title": "Weather lookup",
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": true
            },
            "icons": [{"src": "https://x/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}],
            "_meta": {
                "visibility": "deferred",
                "maitool/provider_name": "mcp",
                "maitool/provider_type": "mcp",
                "maitool/audience": ["user"],
                "maitool/priority": 0.25,
                "maitool/annotation_metadata": {"source": "demo"}
            }
        })
    );
}

#[test]
fn a_bare_spec_gets_an_empty_object_schema_and_no_optional_fields() {
    let tool = serde_json::to_value(spec_to_tool(
        ToolSpec::new("bare", "").with_provider("p", ProviderType::Plugin),
    ))
    .unwrap();
    assert_eq!(
        tool,
        json!({
            "name": "bare",
            "inputSchema": {"type": "object", "properties": {}},
            "_meta": {"maitool/provider_name": "p", "maitool/provider_type": "plugin"}
        })
    );
    // A schema without a type gets `"type": "object"`; the annotation title stands in for a
    // missing tool title; an annotation with only audience adds no `annotations`.
    let mut spec =
        ToolSpec::new("typed", "d").with_parameters(object(json!({"properties": {"a": {}}})));
    spec.annotation = Some(ToolAnnotation {
        audience: vec!["assistant".into()],
        ..ToolAnnotation::default()
    });
    let tool = spec_to_tool(spec);
    assert_eq!(tool.input_schema.get("type"), Some(&json!("object")));
    assert!(tool.annotations.is_none());
    let mut spec = ToolSpec::new("titled", "d");
    spec.annotation = Some(ToolAnnotation {
        title: "From annotation".into(),
        ..ToolAnnotation::default()
    });
    assert_eq!(spec_to_tool(spec).title.as_deref(), Some("From annotation"));
}

#[test]
fn a_result_maps_to_text_media_resources_and_structured_content() {
    let mut image = ToolContentItem::image(vec![1, 2, 3], "image/png").with_name("badge.png");
    image.annotation = Some(ToolAnnotation {
        audience: vec!["user".into(), "robot".into()],
        priority: Some(1.5),
        metadata: object(json!({"last_modified": "2026-01-01T00:00:00Z"})),
        ..ToolAnnotation::default()
    });
    image
        .metadata
        .insert("source_url".into(), json!("https://x"));
    let mut link = ToolContentItem::resource_link("file:///a.txt", "a.txt")
        .with_description("A file")
        .with_mime_type("text/plain");
    link.metadata = object(json!({"title": "A", "size": 10, "other": 1}));
    let result = ToolExecutionResult::success("t", "hello")
        .with_item(image)
        .with_item(ToolContentItem::audio(vec![9], "audio/wav"))
        .with_item(link)
        .with_item(
            ToolContentItem::resource_text("mem://note", "note text").with_mime_type("text/plain"),
        )
        .with_item(ToolContentItem::resource_blob(
            "mem://blob",
            vec![0xff],
            "application/octet-stream",
        ))
        .with_item(ToolContentItem::binary(vec![7], "application/x-thing"))
        .with_item(ToolContentItem::resource_link("", "nameless"))
        .with_structured(json!({"ok": true}))
        .with_metadata("plugin_id", "p");

    let mapped = to_call_result(result, StructuredRule::ObjectOnly);
    assert_eq!(mapped.is_error, Some(false));
    assert_eq!(mapped.structured_content, Some(json!({"ok": true})));
    assert_eq!(
        mapped.meta.as_ref().unwrap().get("plugin_id"),
        Some(&json!("p"))
    );
    let blocks = &mapped.content;
    assert_eq!(blocks.len(), 8);
    assert_eq!(blocks[0].as_text().unwrap().text, "hello");

    let image = blocks[1].as_image().unwrap();
    assert_eq!(
        (image.data.as_str(), image.mime_type.as_str()),
        ("AQID", "image/png")
    );
    let annotations = image.annotations.as_ref().unwrap();
    assert_eq!(
        annotations.audience,
        Some(vec![Role::User]),
        "unknown audience names are dropped"
    );
    assert_eq!(
        annotations.priority,
        Some(1.0),
        "priority is clamped to 0..1"
    );
    assert_eq!(
        annotations.last_modified.as_deref(),
        Some("2026-01-01T00:00:00Z")
    );
    assert_eq!(
        image.meta.as_ref().unwrap().get("source_url"),
        Some(&json!("https://x"))
    );

    assert_eq!(blocks[2].as_audio().unwrap().data, "CQ==");

    let link = blocks[3].as_resource_link().unwrap();
    assert_eq!(
        (link.uri.as_str(), link.name.as_str()),
        ("file:///a.txt", "a.txt")
    );
    assert_eq!(
        (
            link.title.as_deref(),
            link.size,
            link.description.as_deref()
        ),
        (Some("A"), Some(10), Some("A file"))
    );
    assert_eq!(link.mime_type.as_deref(), Some("text/plain"));
    assert_eq!(
        link.meta.as_ref().unwrap().0,
        object(json!({"other": 1})),
        "link fields leave _meta"
    );

    match &blocks[4].as_resource().unwrap().resource {
        ResourceContents::TextResourceContents {
            uri,
            text,
            mime_type,
            ..
        } => {
            assert_eq!(
                (uri.as_str(), text.as_str(), mime_type.as_deref()),
                ("mem://note", "note text", Some("text/plain"))
            );
        }
        other => panic!("expected a text resource, got {other:?}"),
    }
    match &blocks[5].as_resource().unwrap().resource {
        ResourceContents::BlobResourceContents { uri, blob, .. } => {
            assert_eq!((uri.as_str(), blob.as_str()), ("mem://blob", "/w=="))
        }
        other => panic!("expected a blob resource, got {other:?}"),
    }
    match &blocks[6].as_resource().unwrap().resource {
        ResourceContents::BlobResourceContents {
            uri,
            blob,
            mime_type,
            ..
        } => {
            assert_eq!(
                (uri.as_str(), blob.as_str(), mime_type.as_deref()),
                ("maitool://result/t/5", "Bw==", Some("application/x-thing"))
            );
        }
        other => panic!("expected a blob resource, got {other:?}"),
    }
    assert_eq!(
        blocks[7].as_text().unwrap().text,
        "[resource link] nameless"
    );
}

#[test]
fn text_that_the_items_already_carry_is_not_repeated() {
    // The shape an MCP-sourced result has: the joined text items are also the content.
    let result = ToolExecutionResult::success("t", "one\ntwo")
        .with_item(ToolContentItem::text("one"))
        .with_item(ToolContentItem::image(vec![1], "image/png"))
        .with_item(ToolContentItem::text("two"));
    let mapped = to_call_result(result, StructuredRule::ObjectOnly);
    let texts: Vec<_> = mapped
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(texts, ["one", "two"]);
    assert_eq!(mapped.content.len(), 3);
}

#[test]
fn structured_content_follows_the_protocol_version() {
    let result = || ToolExecutionResult::success("t", "").with_structured(json!([1, 2]));
    let legacy = to_call_result(result(), StructuredRule::ObjectOnly);
    assert_eq!(legacy.structured_content, Some(json!({"result": [1, 2]})));
    assert_eq!(
        legacy.content.len(),
        1,
        "the JSON is given as text for clients without structuredContent"
    );
    assert_eq!(
        legacy.content[0].as_text().unwrap().text,
        "{\"result\":[1,2]}"
    );
    let modern = to_call_result(result(), StructuredRule::AnyJson);
    assert_eq!(modern.structured_content, Some(json!([1, 2])));
    assert_eq!(modern.content[0].as_text().unwrap().text, "[1,2]");
    let null = to_call_result(
        ToolExecutionResult::success("t", "x").with_structured(Value::Null),
        StructuredRule::AnyJson,
    );
    assert_eq!(null.structured_content, None);
    assert!(null.meta.is_none());
}

#[test]
fn a_failure_is_an_error_result_with_its_message() {
    let failed = to_call_result(
        ToolExecutionResult::failure("t", "tool not found: t"),
        StructuredRule::ObjectOnly,
    );
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(failed.content.len(), 1);
    assert_eq!(
        failed.content[0].as_text().unwrap().text,
        "tool not found: t"
    );

    let mut both = ToolExecutionResult::failure("t", "bad input");
    both.content = "partial output".into();
    let texts: Vec<_> = to_call_result(both, StructuredRule::ObjectOnly)
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(|t| t.text.clone())
        .collect();
    assert_eq!(texts, ["bad input", "partial output"]);

    let silent = to_call_result(
        ToolExecutionResult::failure("t", " "),
        StructuredRule::ObjectOnly,
    );
    assert_eq!(silent.content[0].as_text().unwrap().text, "tool t failed");

    let mut posts = ToolExecutionResult::success("t", "ok");
    posts.post_history_messages = vec![json!({"role": "user", "content": "hi"})];
    let mapped = to_call_result(posts, StructuredRule::ObjectOnly);
    assert_eq!(
        mapped.meta.unwrap().get("maitool/post_history_messages"),
        Some(&json!([{"role": "user", "content": "hi"}]))
    );
}

#[test]
fn unknown_items_keep_their_text() {
    let item = ToolContentItem {
        content_type: ContentType::Unknown,
        text: "{\"type\":\"new\"}".into(),
        ..ToolContentItem::default()
    };
    let mapped = to_call_result(
        ToolExecutionResult::success("t", "").with_item(item),
        StructuredRule::ObjectOnly,
    );
    assert_eq!(
        mapped.content[0].as_text().unwrap().text,
        "{\"type\":\"new\"}"
    );
}
