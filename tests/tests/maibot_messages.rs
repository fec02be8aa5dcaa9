//! Chat messages reaching MaiBot plugins' commands and event handlers, under MaiBot's real
//! runner: the fixture plugins `tests/fixtures/maibot-message-plugins` (ours, written against
//! `maibot_sdk` as market plugins are) through `maitool message`.
//!
//! Skips loudly without MaiBot's runner, except under `MAITOOL_REQUIRE_MAIBOT=1` (CI).

mod messages_support;

use std::time::Duration;

use maitool_e2e::eventually;
use maitool_e2e::maibot::maibot_python;
use messages_support::Host;
use serde_json::{Value, json};

/// A host with MaiBot's runner over the fixture plugins, the commands and the handlers
/// granted `send.text`.
fn maibot_host(python: &std::path::Path) -> Host {
    let fixtures =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/maibot-message-plugins");
    Host::new(&format!(
        "[[runners]]\nname = \"maibot\"\nkind = \"maibot\"\npython = \"{}\"\n\
         plugin_dirs = [\"{}\"]\ninstance_dir = \"{{root}}/maibot\"\n\n\
         [runners.plugins.\"tests.maibot_commands\"]\ncapabilities = [\"send.text\"]\n\n\
         [runners.plugins.\"tests.maibot_events\"]\ncapabilities = [\"send.text\"]\n",
        python.display(),
        fixtures.display()
    ))
}

fn handlers(outcome: &Value) -> Vec<(String, bool)> {
    outcome["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["handler"].as_str().unwrap().to_owned(),
                h["waited"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_maibot_command_runs_and_its_reply_lands_in_history() {
    let Some(python) = maibot_python() else {
        return;
    };
    let host = maibot_host(&python);
    // One-shot: the command's runner starts for this one message.
    let (code, outcome, err) = host.message("st1", "/天气 上海");
    assert_eq!(code, 0, "{outcome} {err}");
    let command = &outcome["command"];
    assert_eq!(
        command["full_name"], "tests.maibot_commands.weather_query_cmd",
        "{outcome}"
    );
    assert_eq!(command["matched_groups"], json!({"city": "上海"}));
    assert_eq!(command["success"], true, "{outcome}");
    assert_eq!(command["reply"], "上海: 晴, 25°C (asked by Alice)");
    assert_eq!(command["intercepted"], true);
    assert_eq!(
        outcome["sent"][0]["text"],
        "上海: 晴, 25°C (asked by Alice)"
    );
    assert_eq!(outcome["sent"][0]["plugin_id"], "tests.maibot_commands");
    let history = host.history("st1");
    assert_eq!(history.len(), 2, "{history:?}");
    assert!(history[0].ends_with("Alice: /天气 上海"), "{history:?}");
    assert!(
        history[1].ends_with("上海: 晴, 25°C (asked by Alice)"),
        "{history:?}"
    );

    // Against serve: an alias, a pair answer with the declared intercept, and a command that
    // lets the message go on to the on_message handlers.
    let _serve = host.serve();
    let (_, outcome, _) = host.message("st1", "/weather");
    assert_eq!(
        outcome["command"]["matched_by"], "alias /weather",
        "{outcome}"
    );
    assert_eq!(
        outcome["command"]["reply"],
        "北京: 晴, 25°C (asked by Alice)"
    );
    let (_, outcome, _) = host.message("st1", "/pair");
    assert_eq!(outcome["command"]["reply"], "paired", "{outcome}");
    assert_eq!(outcome["command"]["intercepted"], true);
    let (_, outcome, _) = host.message("st1", "/echo tag me");
    assert_eq!(outcome["command"]["reply"], "tag me", "{outcome}");
    assert_eq!(outcome["command"]["intercepted"], false);
    assert_eq!(outcome["stopped"], Value::Null);
    // The on_message handlers ran after the command, by weight.
    let on_message: Vec<(String, bool)> = handlers(&outcome)
        .into_iter()
        .filter(|(name, _)| name.contains("tag_") || name.contains("observer"))
        .collect();
    assert_eq!(
        on_message,
        [
            ("tests.maibot_events.tag_high".to_owned(), true),
            ("tests.maibot_events.tag_low".to_owned(), true),
            ("tests.maibot_events.observer".to_owned(), false),
        ]
    );

    // A command disabled for the stream does not run there.
    let (code, _, err) = host.maitool(&[
        "disable",
        "tests.maibot_commands.weather_query_cmd",
        "--session",
        "st1",
    ]);
    assert_eq!(code, 0, "{err}");
    let (_, outcome, _) = host.message("st1", "/天气 广州");
    assert_eq!(outcome["command"], Value::Null, "{outcome}");
    assert_eq!(outcome["sent"], json!([]));
    let (_, outcome, _) = host.message("st2", "/天气 广州");
    assert_eq!(outcome["command"]["success"], true, "{outcome}");
}

#[test]
fn maibot_event_handlers_stop_and_change_messages_in_weight_order() {
    let Some(python) = maibot_python() else {
        return;
    };
    let host = maibot_host(&python);
    let _serve = host.serve();

    // block_spam (weight 100) stops it: nothing after it runs, and it is not stored.
    let (code, outcome, _) = host.message("st1", "cheap spam here");
    assert_eq!(code, 0);
    assert_eq!(
        outcome["stopped"],
        json!({"at": "on_message_pre_process", "by": "tests.maibot_events.block_spam"})
    );
    assert_eq!(outcome["handlers"][0]["custom_result"], "spam");
    assert_eq!(handlers(&outcome).len(), 1, "{outcome}");
    assert_eq!(outcome["stored"], false);
    assert!(host.history("st1").is_empty());

    // shout (weight 50) changes the message before any command, and the change is stored.
    let (_, outcome, _) = host.message("st1", "shout hello");
    assert_eq!(outcome["text"], "HELLO", "{outcome}");
    assert_eq!(
        handlers(&outcome)[..2],
        [
            ("tests.maibot_events.block_spam".to_owned(), true),
            ("tests.maibot_events.shout".to_owned(), true),
        ]
    );
    assert!(host.history("st1")[0].ends_with("Alice: HELLO"));

    // on_message: tag_high (weight 9) before tag_low (weight 1), each on the other's change.
    let (_, outcome, _) = host.message("st1", "tag");
    assert_eq!(outcome["text"], "tag [high] [low]", "{outcome}");

    // The observer is not waited for; what it sends passes post_send, where sign changes it.
    let (_, outcome, _) = host.message("st1", "observe this");
    assert!(
        handlers(&outcome).contains(&("tests.maibot_events.observer".to_owned(), false)),
        "{outcome}"
    );
    eventually("the observer's message", Duration::from_secs(15), || {
        host.history("st1")
            .iter()
            .any(|line| line.ends_with("seen: observe this -- bot"))
    });
}

#[test]
fn a_runner_that_crashes_during_a_command_fails_it_and_the_host_keeps_serving() {
    let Some(python) = maibot_python() else {
        return;
    };
    let host = maibot_host(&python);
    let _serve = host.serve();
    let (code, outcome, err) = host.message("st1", "/crash");
    assert_eq!(code, 1, "a command that failed exits 1: {outcome} {err}");
    let command = &outcome["command"];
    assert_eq!(command["ran"], true);
    assert_eq!(command["success"], false);
    assert_eq!(
        command["intercepted"], true,
        "MaiBot stops a message whose command failed"
    );
    let error = command["error"].as_str().unwrap();
    assert!(
        error.starts_with("command crash_cmd of plugin tests.maibot_commands failed: "),
        "{error}"
    );
    assert!(error.contains("exit"), "says how the runner ended: {error}");
    // The message itself was stored; the runner comes back and the next command runs.
    assert_eq!(outcome["stored"], true);
    let (code, outcome, _) = host.message("st1", "/天气 杭州");
    assert_eq!(code, 0, "{outcome}");
    assert_eq!(outcome["command"]["success"], true);
    let (code, status, _) = host.maitool(&["status", "--json"]);
    assert_eq!(code, 0);
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["runners"][0]["restart_count"], 1, "{status}");
}

#[test]
fn plugins_shows_maibot_commands_and_handlers_and_call_explains_them() {
    let Some(python) = maibot_python() else {
        return;
    };
    let host = maibot_host(&python);
    let (_, out, err) = host.maitool(&["plugins"]);
    assert!(
        out.contains("tests.maibot_commands.weather_query_cmd")
            && out.contains(r"runs when a chat message matches /^/天气\s*(?P<city>\S+)?/ or starts with /weather"),
        "{out}{err}"
    );
    assert!(
        out.contains("runs on event post_send (weight 0, waited for: it may change or stop the message), fired by the host, for every message a plugin sends"),
        "{out}"
    );
    let (code, out, _) = host.maitool(&["call", "weather_query_cmd", "--json"]);
    assert_eq!(code, 1);
    let result: Value = serde_json::from_str(&out).unwrap();
    assert!(
        result["error_message"].as_str().unwrap().starts_with(
            "weather_query_cmd is not a tool: it is a command of plugin tests.maibot_commands"
        ),
        "{result}"
    );
}

#[test]
fn a_maibot_gateway_hands_the_host_messages_that_reach_the_commands() {
    let Some(python) = maibot_python() else {
        return;
    };
    let host = maibot_host(&python);
    let _serve = host.serve();
    let (code, out, err) = host.maitool(&[
        "call",
        "inject",
        "--args",
        r#"{"text": "/天气 西安", "user_id": "u9"}"#,
        "--json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let result: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(result["content"], "accepted=True", "{result}");
    // The message and the command's reply, in the gateway's stream.
    let history = host.history("gw-stream");
    assert_eq!(history.len(), 2, "{history:?}");
    assert!(history[0].ends_with("U9: /天气 西安"), "{history:?}");
    assert!(
        history[1].ends_with("西安: 晴, 25°C (asked by U9)"),
        "{history:?}"
    );
    // Only through a receiving gateway the plugin declared.
    let (code, out, _) = host.maitool(&[
        "call",
        "inject",
        "--args",
        r#"{"text": "hi", "user_id": "u9", "gateway": "elsewhere"}"#,
        "--json",
    ]);
    assert_eq!(code, 1, "{out}");
    let result: Value = serde_json::from_str(&out).unwrap();
    assert!(
        result["error_message"]
            .as_str()
            .unwrap()
            .contains("declares no message gateway \"elsewhere\" that receives"),
        "{result}"
    );
}
