//! `serve --watch` with MaiBot's runner: a plugin whose code changed is reloaded in place by
//! its runner, as MaiBot does, and a change to its `config.toml` is applied by a reload.

mod maibot_support;

use std::time::Duration;

use maibot_support::{Fixture, maibot_python};
use maitool_e2e::eventually;
use serde_json::Value;

/// How long a reload may take to show.
const LIMIT: Duration = Duration::from_secs(30);

#[test]
fn serve_with_watch_reloads_a_maibot_plugin_whose_code_or_configuration_changed() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(python, "");
    let serve = fixture.serve_with(&["--watch"]);
    let pid = fixture.runner()["pid"].clone();
    let (_, echoed) = fixture.call("echo_text", r#"{"text": "hi"}"#);
    assert_eq!(echoed["content"], "hi");

    let code = fixture.plugins_dir().join("typed_tools/plugin.py");
    let text = std::fs::read_to_string(&code).unwrap();
    let changed = text.replace(
        r#"return {"content": text}"#,
        r#"return {"content": text.upper()}"#,
    );
    assert_ne!(changed, text, "the example's echo changed");
    std::fs::write(&code, changed).unwrap();
    eventually("the changed code answers", LIMIT, || {
        fixture.call("echo_text", r#"{"text": "hi"}"#).1["content"] == "HI"
    });
    serve.wait_for_log(|line| {
        line["fields"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("plugin code changed: reloaded by runner maibot"))
    });

    let config = fixture.plugins_dir().join("configured/config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace("\"Hello\"", "\"Hey\"")).unwrap();
    eventually("the changed configuration answers", LIMIT, || {
        fixture.call("configured_greeting", r#"{"name": "Ann"}"#).1["content"] == "Hey, Ann!"
    });
    let runner = fixture.runner();
    assert_eq!(
        runner["pid"],
        pid,
        "reloaded in place, not restarted: {runner}\nserve's log:\n{}",
        serve
            .log()
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
}
