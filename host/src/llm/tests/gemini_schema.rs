use serde_json::{Value, json};

use super::*;

fn gemini_parameters(schema: Value) -> Option<Value> {
    let tool = ToolDefinition {
        name: "t".into(),
        description: String::new(),
        parameters_schema: Some(object(schema)),
    };
    let rendered = render_tools(ModelApi::Gemini, &[tool]);
    rendered[0]["functionDeclarations"][0]
        .get("parameters")
        .cloned()
}

#[test]
fn gemini_schema_strips_rejected_keys_recursively() {
    let parameters = gemini_parameters(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "urn:x",
        "title": "Args",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "tags": {
                "type": "array",
                "uniqueItems": true,
                "items": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    "properties": {"k": {"type": "string", "$comment": "key"}},
                    "required": ["k", "ghost"]
                }
            },
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "multipleOf": 0.5},
            "name": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$", "examples": ["ab"]}
        },
        "required": ["tags"]
    }));
    assert_eq!(
        parameters,
        Some(json!({
            "type": "object",
            "properties": {
                "tags": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"k": {"type": "string"}},
                        "required": ["k"]
                    }
                },
                "ratio": {"type": "number", "maximum": 1},
                "name": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$"}
            },
            "required": ["tags"]
        }))
    );
}

#[test]
fn gemini_schema_inlines_local_refs() {
    let parameters = gemini_parameters(json!({
        "type": "object",
        "$defs": {
            "Point": {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": ["x", "y"]
            }
        },
        "definitions": {"Unit": {"type": "string", "enum": ["m", "km"]}},
        "properties": {
            "from": {"$ref": "#/$defs/Point", "description": "Start"},
            "to": {"allOf": [{"$ref": "#/$defs/Point"}], "description": "End"},
            "unit": {"$ref": "#/definitions/Unit"}
        }
    }));
    let point = |description: &str| {
        json!({
            "type": "object",
            "description": description,
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x", "y"]
        })
    };
    assert_eq!(
        parameters,
        Some(json!({
            "type": "object",
            "properties": {
                "from": point("Start"),
                "to": point("End"),
                "unit": {"type": "string", "enum": ["m", "km"]}
            }
        }))
    );
}

#[test]
fn gemini_schema_cuts_recursive_and_unknown_refs() {
    let parameters = gemini_parameters(json!({
        "type": "object",
        "$defs": {
            "Node": {
                "type": "object",
                "description": "A tree node",
                "properties": {
                    "label": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                }
            }
        },
        "properties": {
            "root": {"$ref": "#/$defs/Node"},
            "remote": {"$ref": "https://example.com/schema.json", "description": "Remote"}
        }
    }))
    .unwrap();
    assert_eq!(
        parameters["properties"]["root"],
        json!({
            "type": "object",
            "description": "A tree node",
            "properties": {
                "label": {"type": "string"},
                "children": {
                    "type": "array",
                    "items": {"type": "object", "description": "A tree node"}
                }
            }
        })
    );
    assert_eq!(
        parameters["properties"]["remote"],
        json!({"description": "Remote"})
    );
}

#[test]
fn gemini_schema_ref_expansion_is_bounded() {
    // Each definition refers twice to the next: naive inlining would produce 2^30 copies.
    let mut defs = JsonObject::new();
    for level in 0..30 {
        let next = format!("#/$defs/L{}", level + 1);
        defs.insert(
            format!("L{level}"),
            json!({"type": "object", "properties": {"a": {"$ref": next}, "b": {"$ref": next}}}),
        );
    }
    defs.insert("L30".into(), json!({"type": "string"}));
    let parameters = gemini_parameters(json!({
        "type": "object",
        "$defs": defs,
        "properties": {"tree": {"$ref": "#/$defs/L0"}}
    }))
    .unwrap();
    let size = parameters.to_string().len();
    assert!(size < 200_000, "rendered schema is {size} bytes");
}

#[test]
fn gemini_schema_depth_is_bounded() {
    let mut schema = json!({"type": "string"});
    for _ in 0..300 {
        schema = json!({"type": "object", "properties": {"n": schema}});
    }
    let parameters = gemini_parameters(schema).unwrap();
    let mut depth = 0;
    let mut node = &parameters;
    while let Some(next) = node.get("properties").and_then(|p| p.get("n")) {
        node = next;
        depth += 1;
    }
    assert!(depth < 60, "depth {depth}");
}

#[test]
fn gemini_schema_flattens_unions_and_nullability() {
    let parameters = gemini_parameters(json!({
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "B"},
            "c": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "d": {"type": ["object", "array", "null"], "properties": {"k": {"type": "string"}}},
            "e": {"type": "string", "nullable": true}
        }
    }))
    .unwrap();
    assert_eq!(
        parameters["properties"],
        json!({
            "a": {"type": "string", "nullable": true},
            "b": {"type": "integer", "description": "B", "nullable": true},
            "c": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "d": {
                "anyOf": [
                    {"type": "object", "properties": {"k": {"type": "string"}}},
                    {"type": "array", "items": {"type": "string"}}
                ],
                "nullable": true
            },
            "e": {"type": "string", "nullable": true}
        })
    );
}

#[test]
fn gemini_schema_adapts_enums_formats_and_arrays() {
    let parameters = gemini_parameters(json!({
        "properties": {
            "level": {"type": "integer", "enum": [1, 2, 3], "format": "int64"},
            "mode": {"const": "fast"},
            "maybe": {"type": "string", "enum": ["x", null]},
            "email": {"type": "string", "format": "email", "description": "Contact"},
            "when": {"type": "string", "format": "date-time"},
            "uri": {"type": "string", "format": "uri"},
            "ratio": {"type": "number", "format": "percent"},
            "list": {"type": "array"},
            "pair": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]},
            "inferred": {"items": {"type": "boolean"}},
            "anything": true,
            "never": false
        },
        "required": ["never", "level"]
    }))
    .unwrap();
    assert_eq!(
        parameters,
        json!({
            "type": "object",
            "properties": {
                "level": {"type": "integer", "enum": ["1", "2", "3"], "format": "int64"},
                "mode": {"type": "string", "enum": ["fast"]},
                "maybe": {"type": "string", "enum": ["x"], "nullable": true},
                "email": {"type": "string", "description": "Contact (format: email)"},
                "when": {"type": "string", "format": "date-time"},
                "uri": {"type": "string", "description": "Format: uri"},
                "ratio": {"type": "number"},
                "list": {"type": "array", "items": {"type": "string"}},
                "pair": {"type": "array", "items": {"type": "integer"}},
                "inferred": {"type": "array", "items": {"type": "boolean"}},
                "anything": {}
            },
            "required": ["level"]
        })
    );
}

#[test]
fn gemini_schema_merges_all_of_parts() {
    let parameters = gemini_parameters(json!({
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}, "required": ["b"]}
        ]
    }))
    .unwrap();
    assert_eq!(
        parameters,
        json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
            "required": ["a", "b"]
        })
    );
}

#[test]
fn gemini_schema_root_union_becomes_one_object() {
    let parameters = gemini_parameters(json!({
        "anyOf": [
            {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        ]
    }));
    assert_eq!(
        parameters,
        Some(json!({
            "type": "object",
            "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}
        }))
    );
}

#[test]
fn gemini_schema_drops_unions_that_constrain_nothing() {
    // "a or b is required" keeps both properties but cannot be said in Gemini's dialect.
    let parameters = gemini_parameters(json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}]
    }));
    assert_eq!(
        parameters,
        Some(json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}}
        }))
    );
}
