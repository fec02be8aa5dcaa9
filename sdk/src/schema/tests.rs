use super::*;
use serde_json::json;

#[allow(dead_code)]
#[derive(JsonSchema)]
struct Widths {
    small: u8,
    count: u32,
    offset: i16,
    big: u64,
    size: usize,
    ratio: f64,
    nested: Vec<Option<u16>>,
    format: String,
}

#[test]
fn integer_widths_become_bounds_and_no_rust_format_is_left() {
    let schema = serde_json::Value::Object(schema_for::<Widths>());
    let text = schema.to_string();
    assert!(!text.contains("\"format\":\""), "{text}");
    let property = |name: &str| &schema["properties"][name];
    assert_eq!(property("small")["minimum"], 0);
    assert_eq!(property("small")["maximum"], 255);
    assert_eq!(property("count")["maximum"], json!(4294967295u32));
    assert_eq!(property("offset")["minimum"], -32768);
    assert_eq!(property("offset")["maximum"], 32767);
    assert_eq!(property("big")["minimum"], 0);
    assert!(property("big").get("maximum").is_none());
    assert_eq!(property("size")["minimum"], 0);
    assert_eq!(property("ratio")["type"], "number");
    assert_eq!(property("nested")["items"]["maximum"], 65535);
    assert_eq!(property("format")["type"], "string");
}
