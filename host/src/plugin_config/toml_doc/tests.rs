use serde_json::json;

use super::*;

const FILE: &str = r#"# The host.
[host]
listing_wait_ms = ${MAITOOL_LISTING_WAIT_MS:-5000}
data_dir = "${DATA:-data}/x"

[[runners]]
name = "dice"
executable = "${CARGO_TARGET_DIR:-target}/debug/dice"

# Dice limits.
[runners.plugins."examples.dice".config]
max_dice = 50 # the most
seed = 7

[[runners]]
name = "notes"
executable = "notes"
"#;

fn object(value: serde_json::Value) -> JsonObject {
    value.as_object().unwrap().clone()
}

#[test]
fn a_changed_value_keeps_every_comment_reference_and_untouched_line() {
    let out = set_plugin_config(
        FILE,
        "dice",
        "examples.dice",
        &object(json!({"max_dice": 3, "seed": 7})),
    )
    .unwrap();
    assert_eq!(
        out,
        FILE.replace("max_dice = 50 # the most", "max_dice = 3 # the most")
    );
}

#[test]
fn removed_and_added_keys_change_only_their_lines() {
    let out = set_plugin_config(
        FILE,
        "dice",
        "examples.dice",
        &object(json!({"max_dice": 50, "label": "d"})),
    )
    .unwrap();
    assert!(!out.contains("seed = 7"), "{out}");
    assert!(
        out.contains("max_dice = 50 # the most\nlabel = \"d\"\n"),
        "{out}"
    );
    assert!(out.contains("listing_wait_ms = ${MAITOOL_LISTING_WAIT_MS:-5000}"));
    assert!(out.contains("# Dice limits."));
}

#[test]
fn a_plugin_without_settings_gets_its_table_inside_its_runner_entry() {
    let out = set_plugin_config(FILE, "notes", "examples.notes", &object(json!({"a": 1}))).unwrap();
    let parsed: toml::Table = toml::from_str(&crate::config::expand_env(&out).unwrap()).unwrap();
    let runners = parsed["runners"].as_array().unwrap();
    assert_eq!(
        runners[1]["plugins"]["examples.notes"]["config"]["a"].as_integer(),
        Some(1),
        "{out}"
    );
    assert!(
        runners[0]["plugins"].get("examples.notes").is_none(),
        "{out}"
    );
    assert!(out.starts_with(&FILE[..FILE.len() - 1]), "{out}");
}

#[test]
fn enabled_is_set_in_the_plugin_table() {
    let out = set_plugin_enabled(FILE, "dice", "examples.dice", false).unwrap();
    let parsed: toml::Table = toml::from_str(&crate::config::expand_env(&out).unwrap()).unwrap();
    assert_eq!(
        parsed["runners"][0]["plugins"]["examples.dice"]["enabled"].as_bool(),
        Some(false),
        "{out}"
    );
    assert!(out.contains("max_dice = 50 # the most"));
    let again = set_plugin_enabled(&out, "dice", "examples.dice", true).unwrap();
    assert!(again.contains("enabled = true"), "{again}");
}

#[test]
fn an_unknown_runner_is_an_error_naming_it() {
    let err = set_plugin_enabled(FILE, "nope", "x", false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the configuration file has no [[runners]] entry named \"nope\""
    );
}

#[test]
fn references_inside_strings_and_escapes_survive() {
    let text = "a = \"x\\\"${A:-1}\"\nb = '${B}'\n# ${C}\n[[runners]]\nname = \"r\"\n";
    let out = set_plugin_enabled(text, "r", "p", true).unwrap();
    assert!(
        out.starts_with("a = \"x\\\"${A:-1}\"\nb = '${B}'\n# ${C}\n"),
        "{out}"
    );
}

#[test]
fn raw_text_round_trips_and_bad_toml_is_refused() {
    let config = object(json!({"a": 1, "b": {"c": "d"}}));
    assert_eq!(parse_table(&table_text(&config)).unwrap(), config);
    let err = parse_table("a = ").unwrap_err();
    assert!(err.to_string().starts_with("not valid TOML:"), "{err}");
}
