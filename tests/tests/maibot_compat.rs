//! A MaiBot user's plugins as they come, under MaiBot's own runner from PyPI and a real
//! `maitool`: a plugin whose manifest caps the MaiBot version fails with a hint naming
//! `force_plugin_compatibility` and loads with it; `grant_declared` grants what a manifest
//! declares and nothing else; declared names nobody serves are reported, not fatal; a failed
//! plugin fails the one-shot verbs with its reason and shows its declared capabilities.
//!
//! The plugins are `tests/fixtures/maibot/`, next to the examples of `examples/maibot-plugins`.
//! Without MaiBot's runner these tests skip loudly, except under `MAITOOL_REQUIRE_MAIBOT=1`.

mod maibot_support;

use std::path::Path;

use maibot_support::{Fixture, copy_dir, maibot_python};
use serde_json::{Value, json};

fn with_fixture_plugin(fixture: &Fixture, folder: &str) {
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/maibot")
            .join(folder),
        &fixture.plugins_dir().join(folder),
    );
}

fn plugin<'a>(plugins: &'a Value, id: &str) -> &'a Value {
    plugins
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in {plugins}"))
}

/// MaiBot's own words for a host above the manifest's maximum, whatever its exact version.
const VERSION_ERROR: &str = "manifest 校验失败: Host 版本不兼容: 版本 ";
const CAPPED: &str = " 高于最大支持 1.2.99";
const HINT: &str = "set force_plugin_compatibility = true in the [[runners]] table of runner \"maibot\" in maitool.toml)";

#[test]
fn a_plugin_capped_below_1_3_fails_with_the_hint_and_fails_the_one_shot_verbs_then_loads_forced() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(python.clone(), "");
    with_fixture_plugin(&fixture, "old_host");

    // One-shot: the verb prints what the host has, names the plugin on stderr, exits 3.
    let (code, out, err) = fixture.maitool(&["status", "--json"]);
    assert_eq!(code, 3, "{err}");
    let line = err
        .lines()
        .find(|line| line.starts_with("maitool: plugin fixtures.old_host failed to load: "))
        .unwrap_or_else(|| panic!("the failed plugin is not named: {err}"));
    assert!(
        line.contains(VERSION_ERROR) && line.contains(CAPPED) && line.ends_with(HINT),
        "{line}"
    );
    let status: Value = serde_json::from_str(&out).unwrap();
    let summary = &status["plugins"];
    assert_eq!(summary["total"], 6, "{summary}");
    assert_eq!(summary["loaded"], 5, "{summary}");
    let not_loaded = summary["not_loaded"].as_array().unwrap();
    assert_eq!(not_loaded.len(), 1, "{summary}");
    assert_eq!(not_loaded[0]["id"], "fixtures.old_host");
    assert_eq!(not_loaded[0]["runner"], "maibot");
    assert_eq!(not_loaded[0]["state"], "failed");
    assert!(
        not_loaded[0]["reason"].as_str().unwrap().ends_with(HINT),
        "{summary}"
    );

    // `plugins` shows what the failed plugin declares: the host read its manifest.
    let (code, out, err) = fixture.maitool(&["plugins", "--json"]);
    assert_eq!(code, 3, "{err}");
    let plugins: Value = serde_json::from_str(&out).unwrap();
    let old = plugin(&plugins, "fixtures.old_host");
    assert_eq!(old["state"], "failed", "{old}");
    assert_eq!(
        old["declared_capabilities"],
        json!(["send.text", "send.video"])
    );
    assert_eq!(old["granted_capabilities"], json!([]));
    assert_eq!(old["unserved_capabilities"], json!(["send.video"]));
    let (code, text, _) = fixture.maitool(&["plugins"]);
    assert_eq!(code, 3);
    let row = text
        .lines()
        .position(|line| line.starts_with("fixtures.old_host"))
        .unwrap_or_else(|| panic!("{text}"));
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[row].contains("failed: manifest 校验失败") && lines[row].ends_with(HINT),
        "{text}"
    );
    assert_eq!(
        lines[row + 1],
        "    capabilities declared: send.text, send.video; granted: -"
    );
    assert_eq!(
        lines[row + 2],
        "    not served by maitool (never granted, calls refused): send.video"
    );
    for verb in [&["tools"][..], &["definitions", "--format", "openai"]] {
        let (code, _, err) = fixture.maitool(verb);
        assert_eq!(code, 3, "{verb:?}: {err}");
        assert!(
            err.contains("maitool: plugin fixtures.old_host failed to load: "),
            "{err}"
        );
    }

    // serve's status says the same through the control socket (and exits 0: serve runs).
    {
        let _serve = fixture.serve();
        let (code, out, err) = fixture.maitool(&["status"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.starts_with("host: maitool serve on "), "{out}");
        assert!(
            out.contains("\nplugins: 5 of 6 loaded; not loaded: fixtures.old_host (failed)\n"),
            "{out}"
        );
        let served = fixture.json(&["status", "--json"]);
        assert_eq!(served["plugins"], status["plugins"]);
    }

    // With MaiBot's switch on, the same plugin loads and answers.
    let forced = Fixture::with_runner_keys(python, "force_plugin_compatibility = true", "");
    with_fixture_plugin(&forced, "old_host");
    let (code, out, err) = forced.maitool(&["status", "--json"]);
    assert_eq!(code, 0, "{err}");
    let status: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(status["plugins"]["loaded"], 6, "{}", status["plugins"]);
    let (code, echoed) = forced.call("old_host_echo", r#"{"text": "hi"}"#);
    assert_eq!(code, 0, "{echoed}");
    assert_eq!(echoed["content"], "old host: hi");
}

#[test]
fn grant_declared_lets_the_declared_capability_through_refuses_others_and_reports_unserved_names() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(python, "");
    with_fixture_plugin(&fixture, "declares");
    let serve = fixture.serve();

    // The manifest's unserved names do not keep the plugin from loading; they are reported.
    let plugins = fixture.json(&["plugins", "--json"]);
    let declares = plugin(&plugins, "fixtures.declares");
    assert_eq!(declares["state"], "loaded", "{declares}");
    let unserved = json!([
        "send_message",
        "send.video",
        "platform:wechat",
        "hook.send_service.before_send"
    ]);
    assert_eq!(declares["unserved_capabilities"], unserved);
    serve.wait_for_log(|line| {
        line["fields"]["plugin_id"] == "fixtures.declares"
            && line["fields"]["message"].as_str().is_some_and(|m| {
                m.starts_with("the plugin declares capabilities maitool does not serve")
                    && m.contains("platform:wechat")
            })
            && line["level"] == "WARN"
    });
    let status = fixture.maitool(&["status"]).1;
    assert!(
        status.contains(
            "      declares capabilities maitool does not serve: send_message, send.video, platform:wechat, hook.send_service.before_send"
        ),
        "{status}"
    );

    // Not opted in: the declaration grants nothing.
    assert_eq!(declares["grant_declared"], false);
    let (code, refused) = fixture.call("declared_send", r#"{"text": "hi"}"#);
    assert_eq!(code, 1, "{refused}");
    let message = refused["error_message"].as_str().unwrap();
    assert!(
        message.contains("E_CAPABILITY_DENIED") && message.contains("send.text"),
        "{message}"
    );

    // Opted in for this plugin, by reload: what it declares and this host serves, no more.
    fixture.write_config("[runners.plugins.\"fixtures.declares\"]\ngrant_declared = true\n");
    let report = fixture.json(&["reload", "--json"]);
    assert_eq!(report["plugins"]["restarted"], json!([]), "{report}");
    let (code, sent) = fixture.call("declared_send", r#"{"text": "hi"}"#);
    assert_eq!(code, 0, "{sent}");
    assert_eq!(sent["content"], "sent to st1");
    let (code, refused) = fixture.call("undeclared_image", "{}");
    assert_eq!(code, 1, "{refused}");
    let message = refused["error_message"].as_str().unwrap();
    assert!(
        message.contains("E_CAPABILITY_DENIED") && message.contains("send.image"),
        "{message}"
    );

    let plugins = fixture.json(&["plugins", "--json"]);
    let declares = plugin(&plugins, "fixtures.declares");
    assert_eq!(declares["grant_declared"], true);
    assert_eq!(declares["granted_capabilities"], json!(["send.text"]));
    let text = fixture.maitool(&["plugins"]).1;
    assert!(
        text.contains(
            "    capabilities declared: send.text, send_message, send.video, platform:wechat, hook.send_service.before_send; granted: as declared (send.text)\n"
        ),
        "{text}"
    );
}
