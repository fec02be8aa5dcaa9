use super::*;
use serde_json::json;

fn coerced(schema: Value, mut value: Value) -> (bool, Value) {
    let Value::Object(schema) = schema else {
        panic!()
    };
    let changed = coerce(&schema, &mut value);
    (changed, value)
}

#[test]
fn unambiguous_scalars_are_coerced() {
    let schema = json!({"type": "object", "properties": {
        "n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},
        "maybe": {"type": ["integer", "null"]},
        "list": {"type": "array", "items": {"type": "integer"}},
        "inner": {"type": "object", "properties": {"on": {"type": "boolean"}}},
    }});
    let value = json!({"n": "3", "x": "2.5", "b": "false", "maybe": "-4",
        "list": ["1", 2, "3"], "inner": {"on": "true"}, "other": "7"});
    assert_eq!(
        coerced(schema, value),
        (
            true,
            json!({"n": 3, "x": 2.5, "b": false, "maybe": -4,
                "list": [1, 2, 3], "inner": {"on": true}, "other": "7"})
        )
    );
}

#[test]
fn ambiguous_or_unparsable_strings_are_left_alone() {
    for (schema, value) in [
        (json!({"type": ["integer", "string"]}), json!("3")),
        (json!({}), json!("3")),
        (json!({"anyOf": [{"type": "integer"}]}), json!("3")),
        (json!({"type": "integer"}), json!("3.0")),
        (json!({"type": "integer"}), json!(" 3")),
        (json!({"type": "integer"}), json!("three")),
        (json!({"type": "number"}), json!("NaN")),
        (json!({"type": "number"}), json!("inf")),
        (json!({"type": "boolean"}), json!("yes")),
        (json!({"type": "boolean"}), json!("1")),
        (
            json!({"type": "array", "items": [{"type": "integer"}]}),
            json!(["1"]),
        ),
    ] {
        assert_eq!(
            coerced(schema.clone(), value.clone()),
            (false, value),
            "{schema}"
        );
    }
}
