//! The JSON Schema of a tool declared with a parameter list: `metadata.parameters`, as
//! `maibot-plugin-sdk`'s `@Tool(parameters=[ToolParameterInfo(...)])` sends it (with an empty
//! `parameters_raw`).

use maitool_protocol::JsonObject;
use serde_json::Value;

/// A parameter list that does not describe a schema.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParameterListError {
    /// An entry is not an object.
    #[error("parameters[{index}] must be an object, got {entry}")]
    NotAnObject {
        /// The entry's position.
        index: usize,
        /// The entry.
        entry: Value,
    },
    /// An entry has no (or a blank) name.
    #[error("parameters[{index}] has no name")]
    NoName {
        /// The entry's position.
        index: usize,
    },
    /// Two entries share a name.
    #[error("parameter {name} is declared twice")]
    Duplicate {
        /// The parameter.
        name: String,
    },
    /// A parameter's type is none of those the SDK knows.
    #[error(
        "parameter {name}: unknown param_type {declared:?} (expected string, integer, number, float, boolean, array or object)"
    )]
    UnknownType {
        /// The parameter.
        name: String,
        /// The type as declared.
        declared: String,
    },
    /// A field of a parameter has the wrong JSON type.
    #[error("parameter {name}: {field} must be {expected}")]
    Field {
        /// The parameter.
        name: String,
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
}

/// Builds `{"type": "object", "properties": ..., "required": [...]}` from a parameter list.
/// Each entry names its `param_type` (`string`, `integer`, `number`, `float`, `boolean`,
/// `array`, `object`), with optional `description`, `required` (true unless false),
/// `enum_values`, `default`, `items_schema` (arrays), and `properties`,
/// `required_properties`, `additional_properties` (objects).
pub(crate) fn schema_from_parameter_list(list: &[Value]) -> Result<JsonObject, ParameterListError> {
    let mut properties = JsonObject::new();
    let mut required = Vec::new();
    for (index, entry) in list.iter().enumerate() {
        let entry = entry
            .as_object()
            .ok_or_else(|| ParameterListError::NotAnObject {
                index,
                entry: entry.clone(),
            })?;
        let name = entry
            .get("name")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .ok_or(ParameterListError::NoName { index })?;
        if properties.contains_key(name) {
            return Err(ParameterListError::Duplicate {
                name: name.to_owned(),
            });
        }
        properties.insert(name.to_owned(), Value::Object(property(name, entry)?));
        if entry
            .get("required")
            .and_then(Value::as_bool)
            .unwrap_or(true)
        {
            required.push(Value::from(name));
        }
    }
    let mut schema = JsonObject::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), properties.into());
    schema.insert("required".into(), required.into());
    Ok(schema)
}

/// One parameter's property schema.
fn property(name: &str, entry: &JsonObject) -> Result<JsonObject, ParameterListError> {
    let declared = entry
        .get("param_type")
        .or_else(|| entry.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("string")
        .trim()
        .to_ascii_lowercase();
    let wrong = |field, expected| ParameterListError::Field {
        name: name.to_owned(),
        field,
        expected,
    };
    let json_type = match declared.as_str() {
        "string" | "integer" | "boolean" | "array" | "object" => declared.as_str(),
        "number" | "float" => "number",
        other => {
            return Err(ParameterListError::UnknownType {
                name: name.to_owned(),
                declared: other.to_owned(),
            });
        }
    };
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json_type.into());
    let present = |key: &str| entry.get(key).filter(|v| !v.is_null());
    if let Some(description) = present("description").and_then(Value::as_str) {
        schema.insert("description".into(), description.into());
    }
    if let Some(values) = present("enum_values") {
        match values.as_array() {
            Some(values) if !values.is_empty() => {
                schema.insert("enum".into(), values.clone().into());
            }
            Some(_) => {}
            None => return Err(wrong("enum_values", "a list")),
        }
    }
    if let Some(default) = present("default") {
        schema.insert("default".into(), default.clone());
    }
    if json_type == "array"
        && let Some(items) = present("items_schema")
    {
        if !items.is_object() {
            return Err(wrong("items_schema", "an object"));
        }
        schema.insert("items".into(), items.clone());
    }
    if json_type == "object" {
        let nested = present("properties")
            .cloned()
            .unwrap_or_else(|| JsonObject::new().into());
        if !nested.is_object() {
            return Err(wrong("properties", "an object"));
        }
        schema.insert("properties".into(), nested);
        if let Some(inner) = present("required_properties").and_then(Value::as_array)
            && !inner.is_empty()
        {
            schema.insert("required".into(), inner.clone().into());
        }
        if let Some(additional) = present("additional_properties") {
            schema.insert("additionalProperties".into(), additional.clone());
        }
    }
    Ok(schema)
}

#[cfg(test)]
mod tests;
