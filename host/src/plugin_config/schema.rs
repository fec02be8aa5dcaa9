//! A plugin's configuration schema as one JSON Schema, whichever way the plugin reported it: a
//! maitool plugin's `#[config]` JSON Schema as it is, a MaiBot plugin's WebUI schema
//! (sections of typed fields) converted; and a configuration checked against it.

use maitool_protocol::JsonObject;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// Words of a key name that make its value a secret.
const SECRET_WORDS: &[&str] = &[
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "credential",
    "credentials",
    "auth",
    "cookie",
];

/// Whether a configuration key names a secret (`api_key`, `access_token`, `password`,
/// `apiKey`, ...): its value is shown redacted, never sent to a page.
pub fn is_secret_key(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| SECRET_WORDS.contains(&word))
        || ["apikey", "password", "passwd", "secret"]
            .iter()
            .any(|word| lower.contains(word))
}

/// A plugin's configuration schema as JSON Schema; `None` when it reported none.
pub fn json_schema(reported: &JsonObject) -> Option<Value> {
    if reported.is_empty() {
        return None;
    }
    match reported.get("sections") {
        Some(Value::Object(sections)) if !reported.contains_key("type") => {
            Some(from_maibot_sections(sections))
        }
        _ => Some(Value::Object(reported.clone())),
    }
}

/// MaiBot's WebUI schema (`sections.<name>.fields.<field>`, the `general` section's fields at
/// the top level) as JSON Schema.
fn from_maibot_sections(sections: &Map<String, Value>) -> Value {
    let mut properties = Map::new();
    let mut ordered: Vec<(&String, &Value)> = sections.iter().collect();
    ordered.sort_by_key(|(_, section)| section["order"].as_i64().unwrap_or(0));
    for (name, section) in ordered {
        let fields = section["fields"].as_object().cloned().unwrap_or_default();
        let converted = object_of_fields(&fields);
        if name == "general" {
            if let Some(Value::Object(inner)) = converted.get("properties") {
                properties.extend(inner.clone());
            }
        } else {
            let mut converted = converted;
            if let Some(title) = section["title"].as_str().filter(|t| !t.is_empty()) {
                converted["title"] = json!(title);
            }
            properties.insert(name.clone(), converted);
        }
    }
    json!({ "type": "object", "properties": properties })
}

fn object_of_fields(fields: &Map<String, Value>) -> Value {
    let mut ordered: Vec<(&String, &Value)> = fields.iter().collect();
    ordered.sort_by_key(|(_, field)| field["order"].as_i64().unwrap_or(0));
    let mut properties = Map::new();
    for (name, field) in ordered {
        properties.insert(name.clone(), field_schema(field));
    }
    json!({ "type": "object", "properties": properties })
}

fn field_schema(field: &Value) -> Value {
    let mut schema = Map::new();
    let choices = field["choices"].as_array().filter(|c| !c.is_empty());
    match (field["type"].as_str().unwrap_or("string"), choices) {
        ("select", Some(choices)) => {
            schema.insert("enum".into(), Value::Array(choices.clone()));
        }
        ("array", _) => {
            schema.insert("type".into(), json!("array"));
            if let Some(item) = field["item_type"].as_str() {
                schema.insert("items".into(), json!({ "type": item }));
            }
        }
        (kind @ ("string" | "integer" | "number" | "boolean" | "object"), _) => {
            schema.insert("type".into(), json!(kind));
        }
        _ => {}
    }
    for (from, to) in [
        ("min", "minimum"),
        ("max", "maximum"),
        ("pattern", "pattern"),
        ("max_length", "maxLength"),
        ("min_items", "minItems"),
        ("max_items", "maxItems"),
        ("default", "default"),
    ] {
        if let Some(value) = field.get(from).filter(|v| !v.is_null()) {
            schema.insert(to.into(), value.clone());
        }
    }
    if let Some(label) = field["label"].as_str() {
        schema.insert("title".into(), json!(label));
    }
    if let Some(description) = field["description"].as_str().filter(|d| !d.is_empty()) {
        schema.insert("description".into(), json!(description));
    }
    if field["input_type"].as_str() == Some("password") {
        schema.insert("writeOnly".into(), json!(true));
    }
    Value::Object(schema)
}

/// One problem of a configuration: where (a `/`-separated path, empty for the whole) and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    /// The JSON pointer of the value at fault (`/max_dice`); empty for the whole document.
    pub path: String,
    /// What is wrong, in the validator's words.
    pub message: String,
}

/// Every way `config` breaks `schema`; empty when it fits. A schema that does not compile
/// is reported as one error of the whole document.
pub fn validate(schema: &Value, config: &JsonObject) -> Vec<FieldError> {
    let validator = match jsonschema::validator_for(schema) {
        Ok(validator) => validator,
        Err(err) => {
            return vec![FieldError {
                path: String::new(),
                message: format!("the plugin's schema does not compile: {err}"),
            }];
        }
    };
    let instance = Value::Object(config.clone());
    validator
        .iter_errors(&instance)
        .map(|error| FieldError {
            path: error.instance_path().to_string(),
            message: error.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests;
