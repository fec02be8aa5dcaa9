use serde_json::json;

use super::*;

fn object(value: Value) -> JsonObject {
    value.as_object().unwrap().clone()
}

#[test]
fn secrets_are_redacted_and_come_back_unchanged_when_left_alone() {
    let current = object(json!({"api_key": "sk-1", "n": 1, "inner": {"password": "p"}}));
    let shown = redacted(&current);
    assert_eq!(
        Value::Object(shown.clone()),
        json!({"api_key": REDACTED, "n": 1, "inner": {"password": REDACTED}})
    );
    let mut back = shown;
    back.insert("n".into(), json!(2));
    restore_secrets(&mut back, &current);
    assert_eq!(
        Value::Object(back),
        json!({"api_key": "sk-1", "n": 2, "inner": {"password": "p"}})
    );
    let mut replaced = object(json!({"api_key": "sk-2"}));
    restore_secrets(&mut replaced, &current);
    assert_eq!(replaced["api_key"], "sk-2");
}

#[test]
fn a_refusal_is_found_for_its_plugin_only() {
    let mut report = ReloadReport::default();
    report.plugins.rejected = vec!["dice/examples.dice2: no".into()];
    report.plugins.paused = vec!["dice/examples.dice: max_dice must be between 1 and 1000".into()];
    assert_eq!(
        refusal(&report, "examples.dice").as_deref(),
        Some("max_dice must be between 1 and 1000")
    );
    assert_eq!(refusal(&report, "examples.dice2").as_deref(), Some("no"));
    assert_eq!(refusal(&report, "examples.other"), None);
}

#[test]
fn defaults_merge_under_the_configured_values() {
    let mut base = object(json!({"a": 1, "t": {"x": 1, "y": 2}}));
    merge(&mut base, &object(json!({"t": {"y": 3}, "b": 2})));
    assert_eq!(
        Value::Object(base),
        json!({"a": 1, "b": 2, "t": {"x": 1, "y": 3}})
    );
}

#[test]
fn defaults_the_file_does_not_set_are_not_written_out() {
    let config = object(json!({"max_dice": 3, "seed": 0, "label": "x"}));
    let defaults = object(json!({"max_dice": 20, "seed": 0, "label": "x"}));
    let configured = object(json!({"max_dice": 50, "label": "x"}));
    assert_eq!(
        Value::Object(without_defaults(config, &defaults, &configured)),
        json!({"max_dice": 3, "label": "x"})
    );
}
