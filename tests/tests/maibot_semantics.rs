//! MaiBot 1.3's tool semantics as MaiBot plugins declare them (`examples/maibot-semantics`,
//! written against `maibot-plugin-sdk`), run unmodified by MaiBot's own runner under a real
//! `maitool serve`: `@Tool(platforms=...)`, `stop_after_execution` from a result dict and
//! from the `@Tool` keyword, a tool name two plugins declare, and the `config_error` state,
//! entered both ways (an invalid operator configuration, an invalid config.toml) and left
//! by `maitool reload`.
//!
//! The runner is installed by `.ci/install-maibot-runner.sh`. Without it these tests skip
//! loudly, except under `MAITOOL_REQUIRE_MAIBOT=1` (CI), where they fail.

mod maibot_support;

use std::path::Path;

use maibot_support::{Fixture, copy_dir, maibot_python};
use serde_json::{Value, json};

/// The fixture's example plugins plus the two semantics plugins.
fn fixture(python: std::path::PathBuf, extra: &str) -> Fixture {
    let fixture = Fixture::new(python, extra);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/maibot-semantics"),
        &fixture.plugins_dir(),
    );
    fixture
}

fn names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed in {tools}"))
}

/// `call TOOL --json` with `flags`; (exit code, the printed result).
fn call(fixture: &Fixture, tool: &str, args: Value, flags: &[&str]) -> (i32, Value) {
    let args = args.to_string();
    let mut argv = vec!["call", tool, "--args", args.as_str(), "--json"];
    argv.extend_from_slice(flags);
    let (code, out, err) = fixture.maitool(&argv);
    let result = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("call {tool} printed no JSON ({e}): {out}\n{err}"));
    (code, result)
}

fn plugin_status(fixture: &Fixture, id: &str) -> Value {
    fixture.runner()["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("{id} not in {}", fixture.runner()))
}

#[test]
fn maibot_tool_semantics_platforms_stop_after_execution_and_a_duplicate_name() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = fixture(python, "");
    let _serve = fixture.serve();

    // `platforms="telegram"`: offered and callable on Telegram only.
    let on = |platform: &str| names(&fixture.json(&["tools", "--json", "--platform", platform]));
    assert!(on("telegram").contains(&"telegram_sticker".to_owned()));
    assert!(!on("qq").contains(&"telegram_sticker".to_owned()));
    assert!(!names(&fixture.json(&["tools", "--json"])).contains(&"telegram_sticker".to_owned()));
    // A list, in any case: on either platform.
    for platform in ["telegram", "qq"] {
        assert!(
            on(platform).contains(&"telegram_or_qq".to_owned()),
            "{platform}"
        );
    }
    assert!(!on("discord").contains(&"telegram_or_qq".to_owned()));
    let listed = fixture.json(&["tools", "--json", "--platform", "qq"]);
    assert_eq!(
        tool(&listed, "telegram_or_qq")["metadata"]["platforms"],
        json!(["telegram", "qq"])
    );
    let (code, refused) = call(
        &fixture,
        "telegram_sticker",
        json!({"set": "cats"}),
        &["--platform", "qq"],
    );
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["metadata"]["error_code"], "E_PLATFORM_MISMATCH");
    assert_eq!(
        refused["error_message"],
        "tool telegram_sticker is not offered here: plugin examples.maibot_semantics offers it \
         only on telegram, and this call is on qq"
    );
    let (code, sent) = call(
        &fixture,
        "telegram_sticker",
        json!({"set": "cats"}),
        &["--platform", "telegram"],
    );
    assert_eq!(code, 0, "{sent}");
    assert_eq!(sent["content"], "sent cats on telegram");

    // stop_after_execution: from the result dict, from the @Tool keyword, and refused when
    // it is not a boolean (as MaiBot refuses it).
    let (code, ended) = call(&fixture, "end_turn", json!({}), &[]);
    assert_eq!(
        (code, ended["stop_after_execution"].clone()),
        (0, json!(true)),
        "{ended}"
    );
    let (code, declared) = call(&fixture, "always_ends", json!({}), &[]);
    assert_eq!(code, 0, "{declared}");
    assert_eq!(declared["stop_after_execution"], true, "{declared}");
    assert_eq!(declared["content"], "ended by declaration");
    let (code, bad) = call(&fixture, "bad_stop", json!({}), &[]);
    assert_eq!(code, 1, "{bad}");
    assert_eq!(
        bad["error_message"],
        "tool bad_stop returned stop_after_execution as a string; it must be a boolean"
    );
    let (_, plain) = call(&fixture, "whose_tool", json!({}), &[]);
    assert_eq!(plain["stop_after_execution"], false);

    // Two plugins of one runner declare `whose_tool`: the first by plugin id keeps it, however
    // they happen to load, and the other is kept under its source prefix (MaiBot's plugin
    // runtime would drop it).
    let tools = fixture.json(&["tools", "--json"]);
    let twin = tool(&tools, "plugin_examples_maibot_semantics_twin_whose_tool");
    assert_eq!(twin["metadata"]["registry_original_name"], "whose_tool");
    assert_eq!(
        twin["metadata"]["plugin_id"],
        "examples.maibot_semantics_twin"
    );
    assert_eq!(
        tool(&tools, "whose_tool")["metadata"]["plugin_id"],
        "examples.maibot_semantics"
    );
    assert_eq!(plain["content"], "examples.maibot_semantics");
    let (code, other) = call(
        &fixture,
        "plugin_examples_maibot_semantics_twin_whose_tool",
        json!({}),
        &[],
    );
    assert_eq!(code, 0, "{other}");
    assert_eq!(other["content"], "examples.maibot_semantics_twin");
    assert_eq!(
        other["tool_name"],
        "plugin_examples_maibot_semantics_twin_whose_tool"
    );
    let (_, table, _) = fixture.maitool(&["tools"]);
    assert!(
        table.contains("examples.maibot_semantics_twin (renamed from whose_tool)"),
        "{table}"
    );
    let (_, plugins, _) = fixture.maitool(&["plugins"]);
    assert!(
        plugins.lines().any(
            |line| line.contains("examples.maibot_semantics.telegram_sticker")
                && line.contains("platforms=telegram")
        ),
        "{plugins}"
    );
    assert!(
        plugins.lines().any(
            |line| line.contains("examples.maibot_semantics.always_ends")
                && line.contains("stop_after_execution")
        ),
        "{plugins}"
    );
}

#[test]
fn an_invalid_operator_configuration_pauses_a_maibot_plugin_until_a_reload_fixes_it() {
    let Some(python) = maibot_python() else {
        return;
    };
    let invalid =
        "[runners.plugins.\"examples.maibot_semantics\"]\nconfig = { cheer = { times = 9 } }\n";
    let fixture = fixture(python, invalid);
    let _serve = fixture.serve();
    let pid = fixture.runner()["pid"].clone();

    let status = plugin_status(&fixture, "examples.maibot_semantics");
    assert_eq!(status["state"], "config_error", "{status}");
    let reason = status["reason"].as_str().unwrap();
    // pydantic's words, through plugin.inspect_config.
    assert!(
        reason.contains("times") && reason.contains("less than or equal to 5"),
        "{reason}"
    );
    let listed = names(&fixture.json(&["tools", "--json"]));
    assert!(!listed.contains(&"cheer".to_owned()), "{listed:?}");
    assert!(
        !listed.contains(&"whose_tool".to_owned()),
        "every tool of the plugin: {listed:?}"
    );
    assert!(
        listed.contains(&"echo_text".to_owned()),
        "other plugins serve: {listed:?}"
    );
    let (code, refused) = call(&fixture, "cheer", json!({}), &[]);
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["metadata"]["error_code"], "E_PLUGIN_CONFIG_INVALID");
    assert!(
        refused["error_message"].as_str().unwrap().starts_with(
            "tool cheer is paused: plugin examples.maibot_semantics has an invalid configuration ("
        ),
        "{refused}"
    );

    fixture.write_config(
        "[runners.plugins.\"examples.maibot_semantics\"]\nconfig = { cheer = { word = \"yay\", times = 3 } }\n",
    );
    let (code, out, err) = fixture.maitool(&["reload"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        plugin_status(&fixture, "examples.maibot_semantics")["state"],
        "loaded"
    );
    let (code, cheer) = call(&fixture, "cheer", json!({}), &[]);
    assert_eq!((code, cheer["content"].clone()), (0, json!("yay yay yay")));
    assert_eq!(fixture.runner()["pid"], pid, "no restart");
}

#[test]
fn a_maibot_plugin_loaded_with_an_invalid_config_toml_comes_back_when_the_file_is_fixed() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = fixture(python, "");
    let config = fixture.plugins_dir().join("semantics").join("config.toml");
    std::fs::write(&config, "[plugin]\nconfig_version = \"1.0.0\"\nenabled = true\n\n[cheer]\nword = \"hooray\"\ntimes = 0\n").unwrap();
    let _serve = fixture.serve();
    let pid = fixture.runner()["pid"].clone();

    // MaiBot's runner registers it without components, with its config_error.
    let status = plugin_status(&fixture, "examples.maibot_semantics");
    assert_eq!(status["state"], "config_error", "{status}");
    assert!(
        status["reason"]
            .as_str()
            .unwrap()
            .contains("greater than or equal to 1"),
        "{status}"
    );
    let listed = names(&fixture.json(&["tools", "--json"]));
    assert!(!listed.contains(&"cheer".to_owned()), "{listed:?}");
    // The twin keeps its name's place: it is listed under the bare name now.
    assert!(listed.contains(&"whose_tool".to_owned()), "{listed:?}");

    std::fs::write(&config, "[plugin]\nconfig_version = \"1.0.0\"\nenabled = true\n\n[cheer]\nword = \"hooray\"\ntimes = 2\n").unwrap();
    let (code, out, err) = fixture.maitool(&["reload"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        plugin_status(&fixture, "examples.maibot_semantics")["state"],
        "loaded"
    );
    let (code, cheer) = call(&fixture, "cheer", json!({}), &[]);
    assert_eq!(
        (code, cheer["content"].clone()),
        (0, json!("hooray hooray"))
    );
    assert_eq!(
        fixture.runner()["pid"],
        pid,
        "reloaded in place, no restart"
    );
}
