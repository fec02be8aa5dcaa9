//! Parameter schemas for the APIs that take plain JSON Schema (OpenAI, Anthropic).

use serde_json::{Value, json};

use maitool_protocol::ToolDefinition;
use maitool_protocol::model::JsonObject;

/// The tool's parameters as an object schema: the declared schema without its top-level
/// `$schema` (the APIs reject or ignore the dialect marker), typed `object` when it declares no
/// type, with `properties` present on an object schema (OpenAI rejects an object schema without
/// it). A tool without a schema takes no arguments: `{"type":"object","properties":{}}`.
pub(super) fn object_schema(tool: &ToolDefinition) -> Value {
    let Some(declared) = &tool.parameters_schema else {
        return json!({"type": "object", "properties": {}});
    };
    let mut schema: JsonObject = declared.clone();
    schema.remove("$schema");
    if !schema.contains_key("type") {
        schema.insert("type".into(), Value::from("object"));
    }
    if schema.get("type").and_then(Value::as_str) == Some("object")
        && !schema.contains_key("properties")
    {
        schema.insert("properties".into(), Value::Object(JsonObject::new()));
    }
    Value::Object(schema)
}

/// Inserts `description` into `object` unless it is blank: every API treats it as optional, and
/// an empty description only costs tokens.
pub(super) fn insert_description(object: &mut JsonObject, description: &str) {
    if !description.trim().is_empty() {
        object.insert("description".into(), Value::from(description));
    }
}
