use std::sync::Arc;

use rmcp::model::{Icon, MetaObject, ToolAnnotations};
use serde_json::json;

use super::*;

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => panic!("object expected"),
    }
}

#[test]
fn every_field_is_mapped() {
    let mut icon = Icon::new("https://h/i.png");
    icon.mime_type = Some("image/png".to_owned());
    icon.sizes = Some(vec!["48x48".to_owned()]);
    let tool = Tool::new(
        "get_time",
        "  Current time.  ",
        Arc::new(object(json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"tz": {"type": "string"}}
        }))),
    )
    .with_title("Time")
    .with_raw_output_schema(Arc::new(object(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object"
    }))))
    .with_annotations(
        ToolAnnotations::with_title("annotated title")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
    )
    .with_icons(vec![icon])
    .with_meta(MetaObject(object(json!({
        "visibility": "visible",
        "server_name": "spoofed"
    }))));

    let spec = tool_to_spec("clock", "clock_get_time", &tool);
    assert_eq!(spec.name, "clock_get_time");
    assert_eq!(
        spec.title, "Time",
        "the tool title wins over the annotation title"
    );
    assert_eq!(spec.description, "Current time.");
    assert_eq!(
        spec.parameters_schema,
        Some(object(
            json!({"type": "object", "properties": {"tz": {"type": "string"}}})
        ))
    );
    assert_eq!(spec.output_schema, Some(object(json!({"type": "object"}))));
    assert_eq!(spec.provider_name, "mcp");
    assert_eq!(spec.provider_type, ProviderType::Mcp);
    assert!(spec.enabled);
    assert_eq!(
        spec.icons,
        [ToolIcon {
            src: "https://h/i.png".to_owned(),
            mime_type: "image/png".to_owned(),
            sizes: vec!["48x48".to_owned()],
        }]
    );
    let annotation = spec.annotation.unwrap();
    assert_eq!(annotation.title, "annotated title");
    assert_eq!(annotation.read_only, Some(true));
    assert_eq!(annotation.destructive, Some(false));
    assert_eq!(annotation.idempotent, Some(true));
    assert_eq!(annotation.open_world, Some(false));
    assert_eq!(spec.metadata["visibility"], "visible");
    assert_eq!(
        spec.metadata["server_name"], "clock",
        "the server cannot spoof it"
    );
    assert_eq!(spec.metadata["mcp_tool_name"], "get_time");
}

#[test]
fn absent_description_title_and_schema_get_fallbacks() {
    let tool = Tool::new_with_raw("bare", None, Arc::new(JsonObject::new()));
    let spec = tool_to_spec("srv", "bare", &tool);
    assert_eq!(spec.description, "MCP tool from server srv");
    assert_eq!(spec.title, "");
    assert_eq!(
        spec.parameters_schema,
        Some(object(json!({"type": "object", "properties": {}})))
    );
    assert_eq!(spec.output_schema, None);
    assert!(spec.icons.is_empty());
    assert!(spec.annotation.is_none());
    assert_eq!(spec.visibility(), None);

    let untyped = Tool::new(
        "untyped",
        "d",
        Arc::new(object(json!({"properties": {"x": {"type": "number"}}}))),
    );
    let spec = tool_to_spec("srv", "untyped", &untyped);
    assert_eq!(spec.parameters_schema.unwrap()["type"], "object");

    let annotated = Tool::new("t", "d", Arc::new(JsonObject::new()))
        .with_annotations(ToolAnnotations::with_title("From annotations"));
    assert_eq!(
        tool_to_spec("srv", "t", &annotated).title,
        "From annotations"
    );
}
