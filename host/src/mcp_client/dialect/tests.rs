use super::*;
use serde_json::json;

fn object(value: Value) -> JsonObject {
    let Value::Object(map) = value else { panic!() };
    map
}

#[test]
fn draft_07_tuples_and_dependencies_become_2020_12() {
    let schema = object(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "pair": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}], "additionalItems": false},
            "list": {"type": "array", "items": {"type": "integer"}, "additionalItems": false},
        },
        "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
    }));
    let converted = to_2020_12(schema);
    assert_eq!(
        Value::Object(converted.clone()),
        json!({
            "type": "object",
            "properties": {
                "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false},
                "list": {"type": "array", "items": {"type": "integer"}},
            },
            "dependentRequired": {"a": ["b"]},
            "dependentSchemas": {"c": {"required": ["d"]}},
        })
    );
    assert_eq!(compile_problem(&converted), None);
}

#[test]
fn draft_04_exclusive_bounds_and_undeclared_schemas() {
    let schema = object(json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": true, "minimum": 0, "exclusiveMinimum": false}},
    }));
    assert_eq!(
        Value::Object(to_2020_12(schema))["properties"]["n"],
        json!({"type": "number", "exclusiveMaximum": 5, "minimum": 0})
    );
    // No declared dialect: already 2020-12, left alone.
    let plain =
        object(json!({"type": "object", "properties": {"t": {"items": [{"type": "integer"}]}}}));
    assert_eq!(to_2020_12(plain.clone()), plain);
    assert!(
        compile_problem(&plain).is_some(),
        "a tuple `items` is not 2020-12"
    );
}
