use serde_json::json;

use super::*;

#[test]
fn secret_keys_are_recognised() {
    for key in [
        "api_key",
        "apiKey",
        "access_token",
        "password",
        "client_secret",
        "auth",
        "token",
    ] {
        assert!(is_secret_key(key), "{key}");
    }
    for key in ["max_tokens", "monkey", "max_dice", "keyword_list", "author"] {
        assert!(!is_secret_key(key), "{key}");
    }
}

#[test]
fn a_maibot_webui_schema_becomes_json_schema() {
    let reported = json!({
        "plugin_id": "p",
        "sections": {
            "general": {"order": 1, "fields": {
                "enabled": {"type": "boolean", "default": true, "order": 0},
                "mode": {"type": "select", "choices": ["fast", "slow"], "order": 1}
            }},
            "limits": {"order": 0, "title": "Limits", "fields": {
                "count": {"type": "integer", "min": 1, "max": 5, "label": "Count", "order": 0},
                "key": {"type": "string", "input_type": "password", "order": 1}
            }}
        }
    });
    let schema = json_schema(reported.as_object().unwrap()).unwrap();
    assert_eq!(schema["properties"]["enabled"]["type"], "boolean");
    assert_eq!(
        schema["properties"]["mode"]["enum"],
        json!(["fast", "slow"])
    );
    assert_eq!(
        schema["properties"]["limits"]["properties"]["count"]["maximum"],
        5
    );
    assert_eq!(
        schema["properties"]["limits"]["properties"]["key"]["writeOnly"],
        true
    );
    let config = json!({"enabled": true, "mode": "medium", "limits": {"count": 9}});
    let errors = validate(&schema, config.as_object().unwrap());
    let mut paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
    paths.sort();
    assert_eq!(paths, ["/limits/count", "/mode"], "{errors:?}");
}

#[test]
fn no_schema_is_none_and_a_json_schema_is_kept() {
    assert_eq!(json_schema(&JsonObject::new()), None);
    let reported = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    assert_eq!(
        json_schema(reported.as_object().unwrap()),
        Some(reported.clone())
    );
}
