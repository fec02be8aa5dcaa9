//! Local stand-ins for what the market plugins reach over the network in their dispatch
//! tests: an OpenAI-compatible endpoint for `[llm]`, and a Napcat HTTP API (the QQ adapter's
//! server a plugin may be pointed at) that records what it is asked.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// The servers, on loopback, served by `runtime` until it is dropped.
pub struct Servers {
    /// `[llm] base_url`.
    pub llm_base_url: String,
    /// The Napcat API's port on 127.0.0.1.
    pub napcat_port: u16,
    /// Every request the Napcat API received: `{path, body}`.
    pub napcat_requests: Arc<Mutex<Vec<Value>>>,
    /// Every prompt the LLM endpoint received (the last user message).
    pub prompts: Arc<Mutex<Vec<String>>>,
}

impl Servers {
    pub fn start(runtime: &tokio::runtime::Runtime) -> Servers {
        use axum::Json;
        use axum::extract::State;
        use axum::http::Uri;
        use axum::routing::post;

        let prompts = Arc::new(Mutex::new(Vec::new()));
        let napcat_requests = Arc::new(Mutex::new(Vec::new()));

        // The LLM answers an emoji choice (message-react asks for `emoji_id` JSON) with 76
        // (点赞), anything else with a fixed line.
        async fn chat(
            State(prompts): State<Arc<Mutex<Vec<String>>>>,
            Json(body): Json<Value>,
        ) -> Json<Value> {
            let prompt = body["messages"]
                .as_array()
                .and_then(|m| m.last())
                .and_then(|m| m["content"].as_str())
                .unwrap_or_default()
                .to_owned();
            let content = if prompt.contains("emoji_id") {
                r#"{"emoji_id": "76"}"#.to_owned()
            } else {
                "好的".to_owned()
            };
            prompts.lock().unwrap().push(prompt);
            Json(json!({
                "id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9},
            }))
        }
        async fn napcat(
            State(requests): State<Arc<Mutex<Vec<Value>>>>,
            uri: Uri,
            Json(body): Json<Value>,
        ) -> Json<Value> {
            requests
                .lock()
                .unwrap()
                .push(json!({"path": uri.path(), "body": body}));
            Json(json!({"status": "ok", "retcode": 0, "data": null, "message": ""}))
        }

        let llm = axum::Router::new()
            .route("/v1/chat/completions", post(chat))
            .with_state(prompts.clone());
        let napcat_app = axum::Router::new()
            .fallback(post(napcat))
            .with_state(napcat_requests.clone());
        let bind = || {
            runtime
                .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
                .unwrap()
        };
        let (llm_listener, napcat_listener) = (bind(), bind());
        let llm_address = llm_listener.local_addr().unwrap();
        let napcat_port = napcat_listener.local_addr().unwrap().port();
        runtime.spawn(async move { axum::serve(llm_listener, llm).await.unwrap() });
        runtime.spawn(async move { axum::serve(napcat_listener, napcat_app).await.unwrap() });
        Servers {
            llm_base_url: format!("http://{llm_address}/v1"),
            napcat_port,
            napcat_requests,
            prompts,
        }
    }

    /// The `[llm]` section pointing at the endpoint.
    pub fn llm_section(&self) -> String {
        format!(
            "[llm]\nbase_url = \"{}\"\nmodels = [\"mock-chat\"]\napi_key_env = \"\"\n",
            self.llm_base_url
        )
    }
}
