//! Host capabilities through MaiBot's real runner: the example plugin
//! `examples/maibot-plugins/capabilities`, written against `maibot_sdk`, calls them as any
//! MaiBot plugin does, under a real `maitool serve` with a seeded store, and reports what the
//! SDK handed it.
//!
//! Skips loudly without MaiBot's runner, except under `MAITOOL_REQUIRE_MAIBOT=1` (CI).

mod maibot_support;

use maibot_support::{Fixture, maibot_python};
use serde_json::{Value, json};

/// The capability plugin's grants and configuration, `[bot]`, and the demo world as seed.
fn extra() -> String {
    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/seed");
    format!(
        "[runners.plugins.\"examples.maibot_caps\"]\n\
         capabilities = [\"send.*\", \"message.*\", \"config.*\", \"tool.get_definitions\", \
         \"chat.*\", \"person.*\", \"emoji.*\", \"knowledge.search\"]\n\
         config = {{ greeting = {{ text = \"hi\" }} }}\n\n\
         [bot]\nnickname = \"Mai\"\n\n\
         [builtin.seed]\nmessages = \"{0}/messages.json\"\nmemories = \"{0}/memories.jsonl\"\n\
         profiles = \"{0}/profiles.json\"\nemoji_dir = \"{0}/emoji\"\n",
        seed.display()
    )
}

/// Only `grants` for the capability plugin.
fn granted(grants: &str) -> String {
    format!("[runners.plugins.\"examples.maibot_caps\"]\ncapabilities = [{grants}]\n")
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

/// The names `maitool tools` lists.
fn listed_tools(fixture: &Fixture) -> Vec<String> {
    fixture
        .json(&["tools", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_maibot_plugin_sends_every_kind_and_reads_history_through_the_sdk() {
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

    // send.image, .emoji, .hybrid, .forward, .command, .custom: each stored in the stream's
    // history as MaiBot would show it, images byte for byte. Into `st1`, the chat
    // `Fixture::call` calls from, where the built-in view_forward_message looks.
    let got = report(&fixture, "caps_send_kinds", r#"{"stream_id": "st1"}"#);
    let kinds = &got["kinds"];
    for (kind, text, segments, images) in [
        ("image", "", json!(["image"]), json!([true])),
        ("emoji", "", json!(["image"]), json!([true])),
        (
            "hybrid",
            "look: [图片]",
            json!(["text", "image"]),
            json!([true]),
        ),
        ("forward", "[转发消息]", json!(["text"]), json!([])),
        ("command", "/roll d20", json!(["text"]), json!([])),
        (
            "custom",
            r#"[dice] {"faces":20}"#,
            json!(["text"]),
            json!([]),
        ),
    ] {
        let message = &kinds[kind];
        assert_eq!(message["sent"], true, "{kind}: {got}");
        assert_eq!(message["text"], text, "{kind}: {got}");
        assert_eq!(message["segments"], segments, "{kind}: {got}");
        assert_eq!(message["images_intact"], images, "{kind}: {got}");
        assert_eq!(message["sender"], "examples.maibot_caps", "{kind}: {got}");
    }
    assert_eq!(got["plain"], true, "{got}");
    let sent: Vec<&Value> = ["image", "emoji", "hybrid", "forward", "command", "custom"]
        .iter()
        .map(|kind| &kinds[kind]["message_id"])
        .collect();
    let recent: Vec<&Value> = got["recent_ids"].as_array().unwrap().iter().collect();
    assert_eq!(recent.len(), 7, "{got}");
    assert_eq!(recent[..6], sent[..], "{got}");
    assert_eq!(got["recent_texts"][6], "[note] plain", "{got}");
    // The forward holds its node: the built-in tool opens it.
    let forward_id = kinds["forward"]["message_id"].as_str().unwrap();
    let (code, opened) = fixture.call(
        "view_forward_message",
        &json!({ "msg_id": forward_id }).to_string(),
    );
    assert_eq!(code, 0, "{opened}");
    let opened = opened.to_string();
    assert!(
        opened.contains("Bob") && opened.contains("quoted"),
        "{opened}"
    );
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
    assert_eq!(
        got["emotions"],
        json!(["angry", "annoyed", "cry", "happy", "sad", "smile"]),
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
        refused.contains("chat.get_avatar is not provided by maitool")
            && refused.contains("no platform adapter"),
        "{got}"
    );

    history_people_and_streams(&fixture);
    the_emoji_library(&fixture);
    config_and_tool_definitions(&fixture);
}

/// message.get_by_time(_in_chat), person.get_id and the chat.* listings over the seed.
fn history_people_and_streams(fixture: &Fixture) {
    let got = report(fixture, "caps_history", "{}");
    assert_eq!(
        got["everything"],
        json!(["m-1001", "m-1002", "m-1003", "m-2001"]),
        "{got}"
    );
    assert_eq!(got["latest_two"], json!(["m-1003", "m-2001"]), "{got}");
    assert_eq!(got["earliest_two"], json!(["m-1001", "m-1002"]), "{got}");
    assert_eq!(got["in_group"], json!(["m-1002", "m-1003"]), "{got}");
    assert_eq!(
        got["in_group_texts"],
        json!([
            "Sure! I'll bring the dice.",
            "@bot can you roll a d20 for who goes first?"
        ]),
        "{got}"
    );
    assert_eq!(got["in_group_senders"], json!(["Bob", "Alice"]), "{got}");
    assert_eq!(got["bob"], "p-bob", "{got}");
    assert_eq!(got["stranger"], Value::Null, "{got}");
    assert_eq!(
        got["groups"],
        json!([["demo-group", "10001", "Demo group"]]),
        "{got}"
    );
    assert_eq!(
        got["private"],
        json!([["demo-private", "u-carol", "Carol"]]),
        "{got}"
    );
    assert_eq!(got["carol"], "demo-private", "{got}");
    assert_eq!(got["nobody"], Value::Null, "{got}");
}

/// Every emoji.* capability: the seeded library of three, and one registered then deleted.
fn the_emoji_library(fixture: &Fixture) {
    let got = report(fixture, "caps_emoji_library", "{}");
    let library = json!([
        ["a red face fuming with anger", "angry"],
        ["happy smile", "happy"],
        ["sad cry", "sad"]
    ]);
    assert_eq!(got["library"], library, "{got}");
    let picked = got["picked"].as_array().unwrap();
    assert_eq!(picked.len(), 2, "{got}");
    assert_ne!(picked[0], picked[1], "{got}");
    for description in picked {
        assert!(
            library
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e[0] == *description),
            "{got}"
        );
    }
    assert_eq!(got["found"], "a red face fuming with anger", "{got}");
    assert_eq!(
        got["info"],
        json!({"current_count": 3, "max_count": null, "available_emojis": 3}),
        "{got}"
    );
    assert_eq!(got["registered"], true, "{got}");
    assert_eq!(got["hash_is_sha256"], true, "{got}");
    assert_eq!(got["after_register"], 4, "{got}");
    // Registered without a description or tags: MaiBot's untagged emotion.
    assert_eq!(got["registered_listed"], json!([["", "随机表情"]]), "{got}");
    assert_eq!(got["again"], "already registered", "{got}");
    assert_eq!(got["deleted"], true, "{got}");
    assert_eq!(got["after_delete"], 3, "{got}");
    assert_eq!(got["missing"], false, "{got}");
}

/// config.get_plugin and config.get_all read the operator's `config` for this plugin only;
/// tool.get_definitions lists the registry: built-in, this and other plugins' tools.
fn config_and_tool_definitions(fixture: &Fixture) {
    let got = report(fixture, "caps_config_and_tools", "{}");
    assert_eq!(got["own"], json!({"greeting": {"text": "hi"}}), "{got}");
    assert_eq!(got["all"], json!({"greeting": {"text": "hi"}}), "{got}");
    let other = got["other"].as_str().unwrap();
    assert!(
        other.contains("E_CAPABILITY_DENIED")
            && other.contains("may read only its own configuration"),
        "{got}"
    );
    let tools: Vec<&str> = got["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for expected in [
        "caps_config_and_tools",
        "caps_world",
        "echo_text",
        "query_memory",
    ] {
        assert!(tools.contains(&expected), "{expected} not in {tools:?}");
    }
    assert_eq!(
        got["own_description"],
        "Reads this plugin's own configuration, tries another plugin's, and lists the host's tools.",
        "{got}"
    );
    assert_eq!(
        tools.len(),
        listed_tools(fixture).len(),
        "tool.get_definitions and `maitool tools` differ: {tools:?}"
    );
}

#[test]
fn a_maibot_plugin_granted_component_lists_plugins_and_switches_a_component() {
    let Some(python) = maibot_python() else {
        return;
    };
    let fixture = Fixture::new(python, &granted("\"component.*\""));
    let _serve = fixture.serve();
    let got = report(&fixture, "caps_plugins", "{}");
    let plugins = [
        "examples.maibot_action",
        "examples.maibot_caps",
        "examples.maibot_chat_helper",
        "examples.maibot_config",
        "examples.maibot_typed",
    ];
    assert_eq!(got["loaded"], json!(plugins), "{got}");
    assert_eq!(got["registered"], json!(plugins), "{got}");
    let typed = &got["plugins"]["examples.maibot_typed"];
    assert_eq!(typed["version"], "1.0.0", "{got}");
    let components = typed["components"].as_array().unwrap();
    assert!(components.contains(&json!("TOOL:echo_text")), "{got}");
    assert!(
        got["plugins"]["examples.maibot_caps"]["components"]
            .as_array()
            .unwrap()
            .contains(&json!("TOOL:caps_switch")),
        "{got}"
    );
    assert_eq!(
        got["info"],
        json!({"name": "examples.maibot_typed", "version": "1.0.0", "enabled": true}),
        "{got}"
    );
    let unknown = got["unknown"].as_str().unwrap();
    assert!(
        unknown.contains("E_PLUGIN_NOT_FOUND") && unknown.contains("nobody.here"),
        "{got}"
    );

    // Another plugin's tool switched off globally leaves `maitool tools`, and comes back.
    assert!(listed_tools(&fixture).contains(&"echo_text".to_owned()));
    let off = report(
        &fixture,
        "caps_switch",
        r#"{"name": "echo_text", "component_type": "tool", "enabled": false}"#,
    );
    assert_eq!(off["switched"]["success"], true, "{off}");
    assert_eq!(off["enabled_now"], json!([false]), "{off}");
    let tools = listed_tools(&fixture);
    assert!(!tools.contains(&"echo_text".to_owned()), "{tools:?}");
    assert!(tools.contains(&"quote_order".to_owned()), "{tools:?}");
    let (code, gone) = fixture.call("echo_text", r#"{"text": "x"}"#);
    assert_ne!(code, 0, "{gone}");
    let on = report(
        &fixture,
        "caps_switch",
        r#"{"name": "echo_text", "component_type": "tool", "enabled": true}"#,
    );
    assert_eq!(on["switched"]["success"], true, "{on}");
    assert_eq!(on["enabled_now"], json!([true]), "{on}");
    assert!(listed_tools(&fixture).contains(&"echo_text".to_owned()));
}

#[test]
fn a_capability_not_granted_is_refused_by_name_and_star_excludes_component() {
    let Some(python) = maibot_python() else {
        return;
    };
    // `*` grants every family but the privileged component.*.
    let fixture = Fixture::new(python, &granted("\"*\""));
    let _serve = fixture.serve();
    let (code, result) = fixture.call("caps_plugins", "{}");
    assert_eq!(code, 1, "{result}");
    let message = result["error_message"].as_str().unwrap();
    assert!(
        message.contains("E_CAPABILITY_DENIED")
            && message.contains(
                "plugin examples.maibot_caps is not granted capability component.get_all_plugins"
            ),
        "{message}"
    );
    // The rest of `*` is granted.
    let got = report(
        &fixture,
        "caps_send_and_read",
        r#"{"stream_id": "st-star", "text": "star"}"#,
    );
    assert_eq!(got["recent_texts"], json!(["star", "star!"]), "{got}");
}

/// A local OpenAI-compatible endpoint: checks each request's shape and the bearer key (the
/// value of PATH, a variable the host inherits; setting one would need `unsafe`), and answers
/// as the real API does, streaming off.
fn openai_endpoint(runtime: &tokio::runtime::Runtime) -> String {
    use axum::Json;
    use axum::http::{HeaderMap, StatusCode};
    use axum::routing::post;

    fn authorised(headers: &HeaderMap) -> bool {
        let expected = format!("Bearer {}", std::env::var("PATH").unwrap());
        headers.get("authorization").and_then(|v| v.to_str().ok()) == Some(expected.as_str())
    }
    async fn chat(headers: HeaderMap, Json(body): Json<Value>) -> (StatusCode, Json<Value>) {
        if !authorised(&headers) || body["stream"] != false {
            return (
                StatusCode::BAD_REQUEST,
                Json(json!({"error": {"message": "bad request"}})),
            );
        }
        let prompt = body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let message = match body["tools"][0]["function"]["name"].as_str() {
            Some(name) => json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_7", "type": "function",
                 "function": {"name": name, "arguments": "{\"city\":\"Lyon\"}"}}]}),
            None => json!({"role": "assistant", "content": format!("you said {prompt}")}),
        };
        (
            StatusCode::OK,
            Json(json!({
                "id": "chatcmpl-9", "object": "chat.completion", "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9},
            })),
        )
    }
    async fn embeddings(headers: HeaderMap, Json(body): Json<Value>) -> (StatusCode, Json<Value>) {
        let Some(text) = body["input"].as_str().filter(|_| authorised(&headers)) else {
            return (
                StatusCode::BAD_REQUEST,
                Json(json!({"error": {"message": "bad request"}})),
            );
        };
        (
            StatusCode::OK,
            Json(json!({"object": "list", "model": body["model"],
            "data": [{"object": "embedding", "index": 0, "embedding": [text.len() as f64, 1.0]}]})),
        )
    }

    let app = axum::Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/embeddings", post(embeddings));
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let address = listener.local_addr().unwrap();
    runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}/v1")
}

#[test]
fn a_maibot_plugin_asks_the_configured_openai_compatible_endpoint() {
    let Some(python) = maibot_python() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let base_url = openai_endpoint(&runtime);
    let llm = format!(
        "[runners.plugins.\"examples.maibot_caps\"]\ncapabilities = [\"llm.*\"]\n\n\
         [llm]\nbase_url = \"{base_url}\"\nmodels = [\"small\", \"large\"]\n\
         embedding_model = \"embed-1\"\napi_key_env = \"PATH\"\n"
    );
    let fixture = Fixture::new(python, &llm);
    let _serve = fixture.serve();
    let got = report(&fixture, "caps_llm", r#"{"prompt": "hello"}"#);
    assert_eq!(got["models"], json!(["small", "large"]), "{got}");
    assert_eq!(got["response"], "you said hello", "{got}");
    assert_eq!(got["model"], "small", "{got}");
    assert_eq!(got["tokens"], 9, "{got}");
    assert_eq!(
        got["tool_calls"],
        json!([{"id": "call_7", "function": {"name": "weather", "arguments": {"city": "Lyon"}}}]),
        "{got}"
    );
    assert_eq!(got["tool_model"], "large", "{got}");
    assert_eq!(got["embedding"], json!([5.0, 1.0]), "{got}");
}

/// A tiny PNG (2 × 1, RGB) the seeded image message carries.
const SEEDED_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x7b, 0x40, 0xe8,
    0xdd, 0x00, 0x00, 0x00, 0x0f, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x08, 0x00, 0x00, 0x1f, 0xf0, 0x03, 0xfd, 0xa5, 0xb0, 0xb1, 0xbd, 0x00, 0x00, 0x00, 0x00,
    0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The demo world, with one more message in the group carrying a described image, and the
/// capability plugin granted the store's MaiBot tables, the renderer and the Maisaka context.
fn store_world(root: &std::path::Path) -> String {
    use base64::Engine as _;
    use std::fmt::Write as _;
    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/seed");
    let demo: Value =
        serde_json::from_str(&std::fs::read_to_string(seed.join("messages.json")).unwrap())
            .unwrap();
    let mut messages = demo.as_array().unwrap().clone();
    let data = base64::engine::general_purpose::STANDARD.encode(SEEDED_PNG);
    messages.push(json!({
        "message_id": "m-1004", "stream_id": "demo-group", "sender_id": "u-bob",
        "sender_name": "Bob", "text": "the board", "time": 1764662580,
        "images": [{"data": data, "description": "a game board, red and green"}]
    }));
    let file = root.join("messages.json");
    std::fs::write(&file, Value::Array(messages).to_string()).unwrap();
    let mut extra = String::new();
    write!(
        extra,
        "[runners.plugins.\"examples.maibot_caps\"]\n\
         capabilities = [\"database.*\", \"render.*\", \"chat.*\", \"maisaka.*\", \
         \"message.*\", \"send.*\"]\n\n\
         [builtin.seed]\nmessages = \"{}\"\nprofiles = \"{}\"\n",
        file.display(),
        seed.join("profiles.json").display()
    )
    .unwrap();
    extra
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[test]
fn a_maibot_plugin_reads_persons_through_database_get_and_a_write_is_refused_in_maibots_shape() {
    let Some(python) = maibot_python() else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let fixture = Fixture::new(python, &store_world(scratch.path()));
    let _serve = fixture.serve();
    let got = report(&fixture, "caps_database", "{}");
    assert_eq!(
        got["people"],
        json!([
            ["p-alice", "Alice", "Ali"],
            ["p-bob", "Bob", ""],
            ["p-carol", "Carol", ""]
        ]),
        "{got}"
    );
    assert_eq!(
        got["alice"],
        json!({"person_id": "p-alice", "platform": "qq", "user_id": "u-alice", "is_known": true}),
        "{got}"
    );
    assert_eq!(
        got["alice_points"],
        json!(["trait:organised:1.0", "trait:cheerful:1.0"]),
        "{got}"
    );
    assert_eq!(got["nobody"], Value::Null, "{got}");
    assert_eq!(got["group"], json!(["m-1004", "m-1003"]), "{got}");
    assert_eq!(got["group_first_text"], "the board", "{got}");
    assert_eq!(
        got["sessions"],
        json!([
            ["demo-group", "10001", null],
            ["demo-private", null, "u-carol"]
        ]),
        "{got}"
    );
    assert_eq!(
        (got["count"].clone(), got["count_bob"].clone()),
        (json!(3), json!(1))
    );
    // Writes and an unknown table: MaiBot's `{success: false, error}`, handed to the plugin
    // as it is; nothing written.
    for (key, wanted) in [
        (
            "saved",
            "database.save: save of PersonInfo refused: the tables maitool serves",
        ),
        ("deleted", "database.delete: delete of PersonInfo refused"),
        (
            "unknown",
            "unknown model \"ChatStreams\": maitool serves PersonInfo, Messages, Images, ChatSession",
        ),
    ] {
        assert_eq!(got[key]["success"], false, "{key}: {got}");
        let error = got[key]["error"].as_str().unwrap();
        assert!(error.contains(wanted), "{key}: {error}");
    }
    assert_eq!(got["count_after"], 3, "{got}");

    // An image segment as MaiBot gives it: hash and description, the bytes on request.
    let got = report(&fixture, "caps_images", r#"{"message_id": "m-1004"}"#);
    let hash = sha256_hex(SEEDED_PNG);
    assert_eq!(
        got["plain"],
        json!([{"type": "image", "data": "a game board, red and green", "hash": hash}]),
        "{got}"
    );
    assert_eq!(got["hashes"], json!([hash]), "{got}");
    assert_eq!(
        got["descriptions"],
        json!(["a game board, red and green"]),
        "{got}"
    );
    assert_eq!(got["bytes_match_hash"], json!([true]), "{got}");

    // A context note lands at the end of the opened stream's history.
    let got = report(&fixture, "caps_context", r#"{"group_id": "10001"}"#);
    assert_eq!(got["created"], false, "{got}");
    assert_eq!(got["stream_id"], "demo-group", "{got}");
    assert_eq!(
        got["appended"],
        json!({"success": true, "visible_text": "sent Alice's card",
               "source_kind": "plugin:examples.maibot_caps"}),
        "{got}"
    );
    assert_eq!(got["last_text"], "[card] Alice: 7/10", "{got}");
    assert_eq!(got["last_sender"], "plugin:examples.maibot_caps", "{got}");
    let got = report(&fixture, "caps_context", r#"{"group_id": "20002"}"#);
    assert_eq!(got["created"], true, "{got}");
    assert_eq!(got["stream_id"], "qq:group:20002", "{got}");

    // The market plugin's pattern: its fallback runs only on `{success: false}`, and runs.
    let got = report(&fixture, "caps_proactive", r#"{"stream_id": "demo-group"}"#);
    assert_eq!(got["path"], "fallback", "{got}");
    assert_eq!(got["sent"], true, "{got}");
    assert!(
        got["error"]
            .as_str()
            .unwrap()
            .contains("maisaka.proactive.trigger is not provided by maitool"),
        "{got}"
    );
}

#[test]
fn a_maibot_plugin_renders_html_to_a_png_through_headless_chromium() {
    let Some(python) = maibot_python() else {
        return;
    };
    let browser = maitool_host::render::RenderConfig::default().find_browser();
    if let Err(err) = &browser {
        assert_ne!(
            std::env::var("MAITOOL_REQUIRE_CHROMIUM").as_deref(),
            Ok("1"),
            "{err}; MAITOOL_REQUIRE_CHROMIUM=1 requires it"
        );
        maitool_e2e::skip::announce(&format!("the render.html2png test: {err}"));
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let fixture = Fixture::new(python, &store_world(scratch.path()));
    let _serve = fixture.serve();
    let got = report(&fixture, "caps_render", r##"{"selector": "#card"}"##);
    assert_eq!(got["rendered"], true, "{got}");
    assert_eq!(got["signature_ok"], true, "{got}");
    // 200 × 120 CSS pixels at MaiBot's scale 2.
    assert_eq!(got["size"], json!([400, 240]), "{got}");
    assert_eq!(got["reported"], json!([400, 240]), "{got}");
    assert_eq!(got["mime_type"], "image/png", "{got}");
    let missing = report(&fixture, "caps_render", r##"{"selector": "#nothing"}"##);
    assert_eq!(missing["rendered"], false, "{missing}");
    assert_eq!(missing["answer"]["success"], false, "{missing}");
    assert!(
        missing["answer"]["error"]
            .as_str()
            .unwrap()
            .contains("no visible element matches selector \"#nothing\""),
        "{missing}"
    );
}
