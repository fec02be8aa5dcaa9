use serde_json::json;

use super::*;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "max_dice": {"type": "integer", "format": "uint32", "minimum": 0},
            "ratio": {"type": ["number", "null"]},
            "loud": {"type": "boolean"},
            "mode": {"enum": ["a", "b"]},
            "api_key": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "nested": {"$ref": "#/$defs/Nested"}
        },
        "$defs": {"Nested": {"type": "object", "properties": {"depth": {"type": "integer"}}}}
    })
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn fields_convert_by_their_schema_type() {
    let current = json!({"unknown": 1, "max_dice": 50})
        .as_object()
        .unwrap()
        .clone();
    let (config, errors) = parse(
        &schema(),
        &current,
        &pairs(&[
            ("max_dice", "3"),
            ("ratio", ""),
            ("loud", "false"),
            ("loud", "true"),
            ("mode", "b"),
            ("tags", "x\n\ny\n"),
            ("nested.depth", "2"),
        ]),
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        Value::Object(config),
        json!({"unknown": 1, "max_dice": 3, "loud": true, "mode": "b", "tags": ["x", "y"], "nested": {"depth": 2}})
    );
}

#[test]
fn a_value_of_the_wrong_type_is_that_fields_error() {
    let (_, errors) = parse(
        &schema(),
        &JsonObject::new(),
        &pairs(&[("max_dice", "lots")]),
    );
    assert_eq!(
        errors,
        vec![FieldError {
            path: "/max_dice".into(),
            message: "\"lots\" is not a whole number".into()
        }]
    );
    assert_eq!(pointer_to_name("/nested/depth"), "nested.depth");
}

#[test]
fn the_form_has_a_field_per_property_and_hides_secrets() {
    let values = json!({"max_dice": 7, "api_key": "sk-live-123", "nested": {"depth": 4}});
    let markup = fields(
        &schema(),
        &schema(),
        &redacted(values.as_object().unwrap()),
        &HashMap::from([("max_dice".to_string(), "too big".to_string())]),
        &mut Vec::new(),
    )
    .into_string();
    assert!(markup.contains(r#"name="max_dice" value="7""#), "{markup}");
    assert!(
        markup.contains(r#"name="nested.depth" value="4""#),
        "{markup}"
    );
    assert!(
        markup.contains(r#"type="password" id="api_key" name="api_key" value="""#),
        "{markup}"
    );
    assert!(!markup.contains("sk-live-123"), "{markup}");
    assert!(
        markup.contains(r#"id="err-max_dice" class="field-error">too big"#),
        "{markup}"
    );
}
