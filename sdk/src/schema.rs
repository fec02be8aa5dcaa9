//! JSON Schema generation for argument, output and configuration types.

use maitool_protocol::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;

/// The schema of `T` as a self-contained object schema: subschemas inlined (model APIs do not
/// resolve `$ref`), no `$schema` key.
pub(crate) fn schema_for<T: JsonSchema>() -> JsonObject {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut object = match schema.to_value() {
        serde_json::Value::Object(object) => object,
        _ => JsonObject::new(),
    };
    object.remove("$schema");
    object.remove("title");
    if !object.contains_key("type") {
        object.insert("type".into(), "object".into());
    }
    if object.get("type").and_then(|t| t.as_str()) == Some("object")
        && !object.contains_key("properties")
    {
        object.insert("properties".into(), JsonObject::new().into());
    }
    object
}

/// Property names declared by an object schema.
pub(crate) fn property_names(schema: &JsonObject) -> Vec<String> {
    schema
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}
