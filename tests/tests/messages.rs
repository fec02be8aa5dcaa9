//! Chat messages through `maitool message`, one-shot and against `maitool serve`, reaching the
//! commands and event handlers of a Rust plugin (`maitool-example-chat`) run by its real
//! runner; what they send and the message itself land in the store's history, read back
//! with the built-in `fetch_history`.

mod messages_support;

use messages_support::Host;
use serde_json::{Value, json};

fn chat_host() -> Host {
    Host::new(&Host::chat_runner("config = { banned = [\"casino\"] }"))
}

fn handler_names(outcome: &Value) -> Vec<String> {
    outcome["handlers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["handler"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_command_runs_one_shot_and_its_reply_and_the_message_land_in_history() {
    let host = chat_host();
    let (code, outcome, err) = host.message("st1", "/roll 2d6");
    assert_eq!(code, 0, "{outcome} {err}");
    let command = &outcome["command"];
    assert_eq!(command["full_name"], "examples.chat.roll", "{outcome}");
    assert_eq!(command["matched_by"], "pattern");
    assert_eq!(
        command["matched_groups"],
        json!({"dice": "2", "faces": "6"})
    );
    assert_eq!(command["success"], true);
    assert_eq!(command["intercepted"], true);
    assert_eq!(
        outcome["stopped"],
        json!({"at": "command", "by": "examples.chat.roll"})
    );
    assert_eq!(outcome["stored"], true);
    let said = command["reply"].as_str().unwrap();
    assert!(said.starts_with("u1 rolled 2d6: ["), "{said}");
    assert_eq!(outcome["sent"][0]["plugin_id"], "examples.chat");
    assert_eq!(outcome["sent"][0]["text"], said);
    // The command intercepted: no on_message handler saw it.
    assert_eq!(
        handler_names(&outcome),
        ["examples.chat.spam_filter", "examples.chat.redact"]
    );

    let history = host.history("st1");
    assert_eq!(history.len(), 2, "{history:?}");
    assert!(
        history[0].contains("Alice") && history[0].contains("/roll 2d6"),
        "{history:?}"
    );
    assert!(history[1].contains(said), "{history:?}");

    // The human-readable form says the same.
    let (code, out, _) = host.maitool(&[
        "message",
        "--stream-id",
        "st1",
        "--user-id",
        "u1",
        "/remember buy milk",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("in stream st1: stored"), "{out}");
    assert!(
        out.contains("command examples.chat.remember (by pattern {\"note\":\"buy milk\"}): succeeded, the message goes on"),
        "{out}"
    );
    assert!(out.contains("reply: noted (1 so far): buy milk"), "{out}");
    assert!(
        out.contains("on_message examples.chat.count (weight 0): started"),
        "{out}"
    );
}

#[test]
fn against_serve_handlers_stop_and_change_messages_and_disabled_commands_do_not_run() {
    let host = chat_host();
    let _serve = host.serve();

    // spam_filter (weight 100) stops it before anything else: not stored.
    let (code, outcome, _) = host.message("st1", "CASINO deals");
    assert_eq!(code, 0, "{outcome}");
    assert_eq!(
        outcome["stopped"],
        json!({"at": "on_message_pre_process", "by": "examples.chat.spam_filter"})
    );
    assert_eq!(outcome["stored"], false);
    assert_eq!(
        outcome["handlers"][0]["custom_result"],
        json!({"banned": "casino"})
    );
    assert_eq!(handler_names(&outcome), ["examples.chat.spam_filter"]);

    // redact (weight 10) runs after spam_filter and changes what is stored.
    let (_, outcome, _) = host.message("st1", "my password: hunter2");
    assert_eq!(
        handler_names(&outcome),
        [
            "examples.chat.spam_filter",
            "examples.chat.redact",
            "examples.chat.count"
        ]
    );
    assert_eq!(outcome["handlers"][1]["modified"], true);
    assert_eq!(outcome["text"], "my password: [redacted]");
    assert_eq!(outcome["stored"], true);
    let history = host.history("st1");
    assert_eq!(history.len(), 1, "{history:?}");
    assert!(
        history[0].ends_with("my password: [redacted]"),
        "{history:?}"
    );

    // A command disabled for the session does not run there: the message goes on, stored.
    let (code, out, err) = host.maitool(&["disable", "examples.chat.roll", "--session", "st1"]);
    assert_eq!(code, 0, "{out}{err}");
    let (_, outcome, _) = host.message("st1", "/roll");
    assert_eq!(outcome["command"], Value::Null, "{outcome}");
    assert_eq!(outcome["stored"], true);
    assert_eq!(outcome["sent"], json!([]));
    let (_, outcome, _) = host.message("st2", "/roll");
    assert_eq!(
        outcome["command"]["full_name"], "examples.chat.roll",
        "{outcome}"
    );
    // Disabled everywhere: no stream runs it.
    host.maitool(&["disable", "examples.chat.roll"]);
    let (_, outcome, _) = host.message("st2", "/r");
    assert_eq!(outcome["command"], Value::Null, "{outcome}");
    // A disabled filter lets the word through.
    host.maitool(&["disable", "examples.chat.spam_filter"]);
    let (_, outcome, _) = host.message("st1", "casino");
    assert_eq!(outcome["stored"], true, "{outcome}");

    // count ran for every message that reached on_message, without being waited for.
    let (code, out, _) = host.maitool(&["status", "--json"]);
    assert_eq!(code, 0);
    assert!(out.contains("\"answered_by\": \"serve\""), "{out}");
}

#[test]
fn plugins_shows_how_commands_and_handlers_run_and_call_says_a_command_is_no_tool() {
    let host = chat_host();
    let _serve = host.serve();
    let plugins = host.cli().json(&["plugins", "--json"]);
    let components = plugins[0]["components"].as_array().unwrap();
    let roll = components
        .iter()
        .find(|c| c["full_name"] == "examples.chat.roll")
        .unwrap();
    assert_eq!(
        roll["trigger"],
        json!({
            "kind": "command",
            "pattern": r"^/roll(?:\s+(?P<dice>\d+)d(?P<faces>\d+))?\s*$",
            "aliases": ["/r"],
            "intercepts": true,
        })
    );
    let filter = components
        .iter()
        .find(|c| c["full_name"] == "examples.chat.spam_filter")
        .unwrap();
    assert_eq!(filter["trigger"]["kind"], "event");
    assert_eq!(filter["trigger"]["event"], "on_message_pre_process");
    assert_eq!(filter["trigger"]["weight"], 100);
    assert_eq!(filter["trigger"]["intercept_message"], true);

    let (code, out, _) = host.maitool(&["plugins"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("runs when a chat message matches /^/roll")
            && out.contains("or starts with /r"),
        "{out}"
    );
    assert!(
        out.contains("runs on event on_message (weight 0, not waited for), fired by the host"),
        "{out}"
    );

    let (code, out, _) = host.maitool(&["call", "roll", "--json"]);
    assert_eq!(code, 1);
    let error = serde_json::from_str::<Value>(&out).unwrap()["error_message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        error.starts_with(
            "roll is not a tool: it is a command of plugin examples.chat, which runs when a chat message matches /^/roll"
        ),
        "{error}"
    );
    assert!(
        error.ends_with("(send one with `maitool message`)"),
        "{error}"
    );
}

#[test]
fn malformed_messages_get_a_clear_error_and_serve_keeps_serving() {
    let host = chat_host();
    let refused = |args: &[&str], wanted: &str| {
        let (code, outcome, err) = host.message_with(args);
        assert_eq!(code, 2, "{outcome} {err}");
        assert!(err.contains(wanted), "{err}");
    };
    // One-shot.
    refused(
        &[
            "--stream-id",
            "st1",
            "--user-id",
            "u1",
            "--platform",
            "qq",
            "  ",
        ],
        "maitool: message refused: the message is empty: give it text or an image",
    );
    refused(
        &["--stream-id", "nowhere", "--user-id", "u1", "hi"],
        "stream nowhere is not in the store: give the message's platform to open it",
    );
    // Against serve, which answers the next message as before.
    let _serve = host.serve();
    refused(
        &[
            "--stream-id",
            "st1",
            "--user-id",
            "",
            "--platform",
            "qq",
            "hi",
        ],
        "message refused: a message needs the sender's user id",
    );
    let (code, outcome, _) = host.message("st1", "hello");
    assert_eq!(code, 0);
    refused(
        &[
            "--stream-id",
            "st1",
            "--user-id",
            "u1",
            "--group-id",
            "g2",
            "hi",
        ],
        "stream st1 is the chat of group g1; the message says group g2",
    );
    let id = outcome["message_id"].as_str().unwrap();
    refused(
        &[
            "--stream-id",
            "st1",
            "--user-id",
            "u1",
            "--message-id",
            id,
            "hi",
        ],
        &format!("message {id} is already in the store"),
    );
    let (code, outcome, _) = host.message("st1", "/roll");
    assert_eq!(code, 0);
    assert_eq!(outcome["command"]["success"], true, "{outcome}");
    assert_eq!(host.history("st1").len(), 3);
}

#[test]
fn a_rust_plugin_hands_the_host_a_message_through_its_gateway() {
    let host = chat_host();
    let _serve = host.serve();
    let (code, out, err) = host.maitool(&[
        "call",
        "relay",
        "--args",
        r#"{"user_id": "bob", "text": "/roll 1d6", "platform": "irc", "group": "rust"}"#,
        "--json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let result: Value = serde_json::from_str(&out).unwrap();
    let outcome = &result["structured_content"];
    // The routed message went through the flow: the command ran, and said so in the chat.
    assert_eq!(outcome["stream_id"], "irc:group:rust", "{result}");
    assert_eq!(
        outcome["command"]["full_name"], "examples.chat.roll",
        "{result}"
    );
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("routed; command examples.chat.roll answered \"bob rolled 1d6: ["),
        "{result}"
    );
    let history = host.history("irc:group:rust");
    assert_eq!(history.len(), 2, "{history:?}");
    assert!(history[0].ends_with("bob: /roll 1d6"), "{history:?}");
    // A malformed routed message is the plugin's failure, and the host goes on.
    let (code, out, _) = host.maitool(&[
        "call",
        "relay",
        "--args",
        r#"{"user_id": "bob", "text": "   "}"#,
        "--json",
    ]);
    assert_eq!(code, 1, "{out}");
    let error = serde_json::from_str::<Value>(&out).unwrap()["error_message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(error.contains("the message is empty"), "{error}");
    let (code, _, _) = host.message("st1", "/roll");
    assert_eq!(code, 0);
}
