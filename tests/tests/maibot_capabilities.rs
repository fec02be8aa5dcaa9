//! Host capabilities through MaiBot's real runner: the example plugin
//! `examples/maibot-plugins/capabilities`, written against `maibot_sdk`, calls them as any
//! MaiBot plugin does, under a real `maitool serve` with a seeded store, and reports what the
//! SDK handed it.
//!
//! Skips loudly without MaiBot's runner, except under `MAITOOL_REQUIRE_MAIBOT=1` (CI).

mod maibot_support;

use maibot_support::{Fixture, maibot_python};
use serde_json::{Value, json};

/// `[bot]`, the demo world as seed, and the capability plugin's grants.
fn extra() -> String {
    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/seed");
    format!(
        "[runners.plugins.\"examples.maibot_caps\"]\n\
         capabilities = [\"send.text\", \"message.*\", \"config.get\", \"chat.*\", \"person.*\", \
         \"emoji.*\", \"knowledge.search\"]\n\n\
         [bot]\nnickname = \"Mai\"\n\n\
         [builtin.seed]\nmessages = \"{0}/messages.json\"\nmemories = \"{0}/memories.jsonl\"\n\
         profiles = \"{0}/profiles.json\"\nemoji_dir = \"{0}/emoji\"\n",
        seed.display()
    )
}

fn report(fixture: &Fixture, tool: &str, args: &str) -> Value {
    let (code, result) = fixture.call(tool, args);
    assert_eq!(code, 0, "{tool}: {result}");
    let content = result["content"]
        .as_str()
        .unwrap_or_else(|| panic!("{result}"));
    serde_json::from_str(content)
        .unwrap_or_else(|e| panic!("{tool} reported no JSON ({e}): {content}"))
}

#[test]
fn a_maibot_plugin_sends_and_reads_history_through_the_sdk() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(python, &extra());
    let _serve = fixture.serve();
    let got = report(
        &fixture,
        "caps_send_and_read",
        r#"{"stream_id": "st-caps", "text": "hi"}"#,
    );
    assert_eq!(got["sent"], true, "{got}");
    assert_eq!(got["details_sent"], true, "{got}");
    assert_eq!(got["message_text"], "hi!", "{got}");
    assert_eq!(got["recent_texts"], json!(["hi", "hi!"]), "{got}");
    let readable = got["readable"].as_str().unwrap();
    assert!(
        readable.contains("examples.maibot_caps: hi\n")
            && readable.ends_with("examples.maibot_caps: hi!"),
        "{readable}"
    );
    assert_eq!(got["count"], 2, "{got}");
    assert_eq!(got["nickname"], "Mai", "{got}");
}

#[test]
fn a_maibot_plugin_reads_the_seeded_world_and_a_refusal_reaches_it() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(python, &extra());
    let _serve = fixture.serve();
    let got = report(&fixture, "caps_world", "{}");
    assert_eq!(
        got["streams"],
        json!(["demo-group", "demo-private"]),
        "{got}"
    );
    assert_eq!(got["group"], "demo-group", "{got}");
    assert_eq!(got["person_id"], "p-alice", "{got}");
    assert_eq!(
        got["profile"], "Organises the game nights; moved to Lisbon.",
        "{got}"
    );
    assert_eq!(got["emoji_count"], 3, "{got}");
    let emotions = got["emotions"].as_array().unwrap();
    assert!(
        emotions.contains(&json!("angry")) && emotions.contains(&json!("annoyed")),
        "{got}"
    );
    let knowledge = got["knowledge"].as_str().unwrap();
    assert!(
        knowledge.contains("Bob always brings his own dice"),
        "{got}"
    );
    assert!(!knowledge.contains("Lisbon"), "{got}");
    let refused = got["refused"].as_str().unwrap();
    assert!(
        refused.contains("database.query is not provided by maitool"),
        "{got}"
    );
}
