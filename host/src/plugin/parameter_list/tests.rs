use serde_json::json;

use super::schema_from_parameter_list;

fn list(value: serde_json::Value) -> Vec<serde_json::Value> {
    value.as_array().unwrap().clone()
}

#[test]
fn every_type_enum_default_items_and_object_fields_become_json_schema() {
    let schema = schema_from_parameter_list(&list(json!([
        {"name": "item", "param_type": "string", "description": "What", "required": true},
        {"name": "quantity", "param_type": "integer", "description": "How many"},
        {"name": "price", "param_type": "float", "required": false, "default": 1.5},
        {"name": "ratio", "param_type": "number", "required": false},
        {"name": "express", "param_type": "boolean", "required": false, "default": null},
        {"name": "size", "param_type": "string", "required": false,
         "enum_values": ["small", "large"], "items_schema": null},
        {"name": "tags", "param_type": "array", "required": false, "items_schema": {"type": "string"}},
        {"name": "address", "param_type": "object", "required": false,
         "properties": {"city": {"type": "string"}}, "required_properties": ["city"],
         "additional_properties": false}
    ])))
    .unwrap();
    assert_eq!(
        serde_json::Value::Object(schema),
        json!({
            "type": "object",
            "properties": {
                "item": {"type": "string", "description": "What"},
                "quantity": {"type": "integer", "description": "How many"},
                "price": {"type": "number", "default": 1.5},
                "ratio": {"type": "number"},
                "express": {"type": "boolean"},
                "size": {"type": "string", "enum": ["small", "large"]},
                "tags": {"type": "array", "items": {"type": "string"}},
                "address": {"type": "object", "properties": {"city": {"type": "string"}},
                            "required": ["city"], "additionalProperties": false}
            },
            "required": ["item", "quantity"]
        })
    );
}

#[test]
fn bad_entries_are_refused_with_the_parameter_named() {
    let cases = [
        (
            json!([{"param_type": "string"}]),
            "parameters[0] has no name",
        ),
        (
            json!([{"name": "x", "param_type": "date"}]),
            "parameter x: unknown param_type \"date\"",
        ),
        (
            json!([{"name": "x"}, {"name": "x"}]),
            "parameter x is declared twice",
        ),
        (
            json!([{"name": "x", "enum_values": "a"}]),
            "parameter x: enum_values must be a list",
        ),
        (json!(["x"]), "parameters[0] must be an object"),
    ];
    for (input, expected) in cases {
        let err = schema_from_parameter_list(&list(input))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(expected), "{err}");
    }
}
