//! The tool declarations and the tools that need no server state.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rmcp::model::{
    Annotations, CallToolResult, ContentBlock, EmbeddedResource, Icon, JsonObject, MetaObject,
    Resource, ResourceContents, Role, Tool, ToolAnnotations,
};
use serde_json::{Value, json};

use crate::media;

/// A 16x16 SVG icon shared by the demo tools.
const ICON_SVG: &str = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><circle cx='8' cy='8' r='7' fill='#4a90d9'/></svg>";

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("tool schemas are object literals"),
    }
}

fn meta(value: Value) -> MetaObject {
    match value {
        Value::Object(map) => MetaObject(map),
        _ => unreachable!("meta literals are objects"),
    }
}

fn icon() -> Icon {
    let mut icon = Icon::new(format!(
        "data:image/svg+xml;base64,{}",
        BASE64.encode(ICON_SVG)
    ));
    icon.mime_type = Some("image/svg+xml".to_owned());
    icon.sizes = Some(vec!["any".to_owned()]);
    icon
}

/// The tools listed from the start, in listing order.
pub fn base_tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "echo",
            "Repeat the given text back.",
            schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {"text": {"type": "string", "description": "Text to repeat"}},
                "required": ["text"]
            })),
        )
        .with_title("Echo")
        .with_annotations(
            ToolAnnotations::with_title("Echo text")
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        )
        .with_icons(vec![icon()])
        .with_meta(meta(json!({"visibility": "visible", "category": "demo"}))),
        Tool::new(
            "tiny_image",
            "Return a tiny 8x8 PNG gradient.",
            schema(json!({"type": "object", "properties": {}})),
        )
        .with_annotations(ToolAnnotations::new().read_only(true))
        .with_icons(vec![icon()]),
        Tool::new(
            "beep",
            "Return a 0.1 second 440 Hz tone as WAV audio.",
            schema(json!({"type": "object", "properties": {}})),
        )
        .with_annotations(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "weather_report",
            "A synthetic weather report for a city, as structured data (demo values, not real weather).",
            schema(json!({
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"]
            })),
        )
        .with_title("Weather report")
        .with_raw_output_schema(schema(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "temperature_c": {"type": "number"},
                "conditions": {"type": "string"},
                "humidity": {"type": "number"}
            },
            "required": ["city", "temperature_c", "conditions", "humidity"]
        })))
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(true))
        .with_meta(meta(json!({"visibility": "visible"}))),
        Tool::new(
            "resource_demo",
            "Return a resource link, an embedded text resource and an embedded blob.",
            schema(json!({"type": "object", "properties": {}})),
        ),
        Tool::new(
            "fail",
            "Always fails with a tool error (isError).",
            schema(json!({
                "type": "object",
                "properties": {"message": {"type": "string"}}
            })),
        )
        .with_annotations(ToolAnnotations::new().destructive(false)),
        Tool::new(
            "slow",
            "Sleep for `ms` milliseconds in `steps` steps, reporting progress; honours cancellation.",
            schema(json!({
                "type": "object",
                "properties": {
                    "ms": {"type": "integer", "minimum": 0},
                    "steps": {"type": "integer", "minimum": 1}
                }
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(true).idempotent(true)),
        Tool::new(
            "add",
            "Add two numbers.",
            schema(json!({
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(true).idempotent(true)),
        Tool::new_with_raw(
            "slow_stats",
            None,
            schema(json!({"type": "object", "properties": {}})),
        ),
    ]
}

/// Listed in HTTP mode only: reports the request headers a client sent.
pub fn request_headers_tool() -> Tool {
    Tool::new(
        "request_headers",
        "Report the Authorization header and the x-* headers of this HTTP request.",
        schema(json!({"type": "object", "properties": {}})),
    )
}

/// `request_headers`: `Authorization` and every `x-` header, as structured content.
pub fn request_headers(parts: Option<&http::request::Parts>) -> CallToolResult {
    let Some(parts) = parts else {
        return CallToolResult::error(vec![ContentBlock::text(
            "request_headers needs the HTTP transport",
        )]);
    };
    let mut headers = serde_json::Map::new();
    for (name, value) in &parts.headers {
        let name = name.as_str();
        if name == "authorization" || name.starts_with("x-") {
            let value = value.to_str().unwrap_or("<not UTF-8>").to_owned();
            headers.insert(name.to_owned(), Value::from(value));
        }
    }
    CallToolResult::structured(Value::Object(headers))
}

/// The tool added later when `EXAMPLE_MCP_NOTIFY_LIST_CHANGED_MS` is set.
pub fn late_tool() -> Tool {
    Tool::new(
        "late_echo",
        "Repeat the given text back; added after start-up.",
        schema(json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        })),
    )
}

/// `echo` and `late_echo`.
pub fn echo(args: &JsonObject) -> CallToolResult {
    match args.get("text") {
        Some(Value::String(text)) => {
            CallToolResult::success(vec![ContentBlock::text(text.clone())])
        }
        other => invalid("`text` must be a string", other),
    }
}

/// `tiny_image`.
pub fn tiny_image() -> CallToolResult {
    CallToolResult::success(vec![
        ContentBlock::text("an 8x8 PNG gradient"),
        ContentBlock::image(BASE64.encode(media::tiny_png()), "image/png"),
    ])
}

/// `beep`.
pub fn beep() -> CallToolResult {
    CallToolResult::success(vec![
        ContentBlock::text("a 440 Hz beep"),
        ContentBlock::audio(BASE64.encode(media::beep_wav()), "audio/wav"),
    ])
}

/// `weather_report`: values derived from the city name, so answers are reproducible.
pub fn weather_report(args: &JsonObject) -> CallToolResult {
    let city = match args.get("city") {
        Some(Value::String(city)) if !city.trim().is_empty() => city.trim().to_owned(),
        other => return invalid("`city` must be a non-empty string", other),
    };
    let seed: u32 = city.bytes().map(u32::from).sum();
    let conditions = ["sunny", "cloudy", "rainy", "windy"][(seed % 4) as usize];
    let report = json!({
        "city": city,
        "temperature_c": f64::from(seed % 35) - 5.0,
        "conditions": conditions,
        "humidity": f64::from(30 + seed % 60),
    });
    CallToolResult::structured(report)
}

/// `resource_demo`.
pub fn resource_demo() -> CallToolResult {
    let link = Resource::new("example://docs/readme", "readme")
        .with_title("Example README")
        .with_description("The example server's README")
        .with_mime_type("text/markdown")
        .with_size(42)
        .with_annotations(link_annotations());
    let text = EmbeddedResource::new(ResourceContents::TextResourceContents {
        uri: "example://notes/today".to_owned(),
        mime_type: Some("text/plain".to_owned()),
        text: "remember the milk".to_owned(),
        meta: None,
    })
    .with_annotations(Annotations::default().with_audience(vec![Role::Assistant]));
    let blob = EmbeddedResource::new(ResourceContents::BlobResourceContents {
        uri: "example://data/bytes".to_owned(),
        mime_type: Some("application/octet-stream".to_owned()),
        blob: BASE64.encode((0u8..16).collect::<Vec<_>>()),
        meta: None,
    })
    .with_meta(meta(json!({"origin": "resource_demo"})));
    CallToolResult::success(vec![
        ContentBlock::text("one link and two embedded resources"),
        ContentBlock::ResourceLink(link),
        ContentBlock::Resource(text),
        ContentBlock::Resource(blob),
    ])
}

/// `fail`.
pub fn fail(args: &JsonObject) -> CallToolResult {
    let message = args
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("the fail tool always fails");
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// `add`: bad arguments are a tool error (SEP-1303), so a model can correct itself.
pub fn add(args: &JsonObject) -> CallToolResult {
    let number = |key: &'static str| match args.get(key) {
        Some(Value::Number(number)) => number.as_f64().ok_or((key, args.get(key))),
        other => Err((key, other)),
    };
    match (number("a"), number("b")) {
        (Ok(a), Ok(b)) => {
            let sum = a + b;
            let mut result = CallToolResult::structured(json!({"sum": sum}));
            result.content = vec![ContentBlock::text(format!("{a} + {b} = {sum}"))];
            result
        }
        (Err((key, value)), _) | (_, Err((key, value))) => {
            invalid(&format!("`{key}` must be a number"), value)
        }
    }
}

fn link_annotations() -> Annotations {
    let mut annotations = Annotations::default()
        .with_audience(vec![Role::User])
        .with_priority(0.5);
    annotations.last_modified = Some("2026-01-01T00:00:00Z".to_owned());
    annotations
}

fn invalid(what: &str, got: Option<&Value>) -> CallToolResult {
    let got = got.map_or_else(|| "nothing".to_owned(), Value::to_string);
    CallToolResult::error(vec![ContentBlock::text(format!(
        "invalid arguments: {what}, got {got}"
    ))])
}
