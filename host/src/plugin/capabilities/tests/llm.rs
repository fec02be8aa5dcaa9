//! `llm.*` against a local OpenAI-compatible server started by the test: it checks each
//! request's shape and answers as the real API does (streaming off).

use serde_json::json;

use super::{refused, service};
use crate::plugin::LlmConfig;

#[cfg(feature = "http")]
mod http {
    use serde_json::{Value, json};

    use super::super::{assert_bad_payload, call, refused, service};
    use crate::plugin::LlmConfig;

    async fn endpoint() -> String {
        use axum::Json;
        use axum::http::{HeaderMap, StatusCode};
        use axum::routing::post;

        async fn chat(headers: HeaderMap, Json(body): Json<Value>) -> (StatusCode, Json<Value>) {
            // The key is the value of PATH (see the test): a variable that is always set, as
            // setting one would need `unsafe` in edition 2024.
            let expected = format!("Bearer {}", std::env::var("PATH").unwrap());
            if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str())
            {
                return (
                    StatusCode::UNAUTHORIZED,
                    Json(json!({"error": {"message": "bad key"}})),
                );
            }
            if body["stream"] != false || !body["messages"].is_array() {
                return (
                    StatusCode::BAD_REQUEST,
                    Json(json!({"error": {"message": "bad request"}})),
                );
            }
            let last = body["messages"].as_array().unwrap().last().unwrap()["content"].clone();
            let message = match body.get("tools") {
                Some(tools) => json!({
                    "role": "assistant", "content": null,
                    "tool_calls": [{"id": "call_1", "type": "function", "function": {
                        "name": tools[0]["function"]["name"], "arguments": "{\"city\":\"Paris\"}"}}],
                }),
                None => {
                    json!({"role": "assistant", "content": format!("echo: {}", last.as_str().unwrap_or_default())})
                }
            };
            (
                StatusCode::OK,
                Json(json!({
                    "id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
                })),
            )
        }

        async fn embeddings(Json(body): Json<Value>) -> Json<Value> {
            let inputs: Vec<String> = match &body["input"] {
                Value::String(text) => vec![text.clone()],
                Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().unwrap().to_owned())
                    .collect(),
                _ => Vec::new(),
            };
            let data: Vec<Value> = inputs
                .iter()
                .enumerate()
                .map(|(index, text)| json!({"object": "embedding", "index": index, "embedding": [text.len() as f64, 0.5]}))
                .collect();
            Json(json!({"object": "list", "model": body["model"], "data": data}))
        }

        let app = axum::Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/v1/embeddings", post(embeddings));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("http://{address}/v1")
    }

    #[tokio::test]
    async fn llm_calls_reach_the_configured_endpoint_in_maibots_shapes() {
        let (service, _) = service(&["llm.*"]).await;
        let config = LlmConfig {
            base_url: endpoint().await,
            models: vec!["small".into(), "large".into()],
            embedding_model: Some("embed-1".into()),
            api_key_env: "MAITOOL_TEST_UNSET_LLM_KEY".into(),
            timeout_ms: 10_000,
        };
        service.set_llm_config(Some(config.clone()));
        let missing_key = refused(&service, "llm.generate", json!({"prompt": "hi"})).await;
        assert!(
            missing_key.message.contains("MAITOOL_TEST_UNSET_LLM_KEY"),
            "{missing_key:?}"
        );
        service.set_llm_config(Some(LlmConfig {
            api_key_env: "HOME".into(),
            ..config.clone()
        }));
        let wrong_key = refused(&service, "llm.generate", json!({"prompt": "hi"})).await;
        assert!(wrong_key.message.contains("401"), "{wrong_key:?}");
        service.set_llm_config(Some(LlmConfig {
            api_key_env: "PATH".into(),
            ..config
        }));

        let models = call(&service, "llm.get_available_models", json!({})).await;
        assert_eq!(models["models"], json!(["small", "large"]));
        // As the SDK sends it: prompt and model (a task name here, so the default model).
        let generated = call(
            &service,
            "llm.generate",
            json!({"prompt": "hello", "model": "utils", "temperature": 0.2}),
        )
        .await;
        assert_eq!(generated["success"], true);
        assert_eq!(generated["response"], "echo: hello");
        assert_eq!(generated["model_name"], "small");
        assert_eq!(generated["total_tokens"], 10);
        let chosen = call(
            &service,
            "llm.generate",
            json!({"prompt": [{"role": "user", "content": "x"}], "model_name": "large"}),
        )
        .await;
        assert_eq!(chosen["model_name"], "large");
        let tools = json!([{"name": "weather", "description": "Weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]);
        let with_tools = call(
            &service,
            "llm.generate_with_tools",
            json!({"prompt": "weather?", "tools": tools, "model": ""}),
        )
        .await;
        assert_eq!(
            with_tools["tool_calls"],
            json!([{"id": "call_1", "function": {"name": "weather", "arguments": {"city": "Paris"}}}])
        );
        let one = call(&service, "llm.embed", json!({"text": "abc", "texts": null, "task_name": "embedding", "model": "", "model_name": "", "max_concurrent": null})).await;
        assert_eq!(
            one,
            json!({"success": true, "embedding": [3.0, 0.5], "model_name": "embed-1"})
        );
        let many = call(&service, "llm.embed", json!({"texts": ["a", "abcd"]})).await;
        assert_eq!(many["results"][1]["embedding"], json!([4.0, 0.5]));

        assert_bad_payload(
            &refused(&service, "llm.generate", json!({"prompt": ""})).await,
            "prompt",
        );
        assert_bad_payload(
            &refused(
                &service,
                "llm.generate_with_tools",
                json!({"prompt": "x", "tools": {}}),
            )
            .await,
            "tools",
        );
        assert_bad_payload(
            &refused(&service, "llm.embed", json!({"text": "a", "texts": ["b"]})).await,
            "texts",
        );
    }
}

#[tokio::test]
async fn an_unreachable_endpoint_and_a_missing_embedding_model_fail_clearly() {
    let (service, _) = service(&["llm.*"]).await;
    // Nothing listens on port 9 of localhost (discard), so the request fails fast.
    service.set_llm_config(Some(LlmConfig {
        base_url: "http://127.0.0.1:9/v1".into(),
        models: vec!["small".into()],
        ..LlmConfig::default()
    }));
    let embed = refused(&service, "llm.embed", json!({"text": "a"})).await;
    assert!(embed.message.contains("embedding_model"), "{embed:?}");
    let unreachable = refused(&service, "llm.generate", json!({"prompt": "hi"})).await;
    assert_eq!(
        unreachable.code,
        maitool_protocol::wire::ErrorCode::CapabilityFailed
    );
    assert!(
        unreachable.message.contains("llm.generate failed"),
        "{unreachable:?}"
    );
}
