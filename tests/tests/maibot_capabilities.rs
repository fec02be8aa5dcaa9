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
