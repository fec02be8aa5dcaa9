//! `llm.*`: forwarded to the operator's OpenAI-compatible endpoint (`[llm]` in
//! `maitool.toml`): chat completions for `llm.generate` and `llm.generate_with_tools`,
//! embeddings for `llm.embed`, the configured model names for `llm.get_available_models`.
//! Results are MaiBot's (`response`, `reasoning`, `model_name`, token counts, `tool_calls`).
//! The API key is read from the environment variable the configuration names, at each call,
//! and never logged.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use maitool_protocol::rpc::RpcError;

use super::CapabilityService;
use super::args::Args;
use maitool_protocol::capability::Capability;

/// `[llm]`: an OpenAI-compatible endpoint plugins' `llm.*` calls go to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    /// The API's base URL, e.g. `https://api.openai.com/v1` (`/chat/completions` and
    /// `/embeddings` are appended).
    pub base_url: String,
    /// Chat models plugins may ask for; the first is the default.
    pub models: Vec<String>,
    /// The embeddings model; `llm.embed` is refused without it.
    pub embedding_model: Option<String>,
    /// The environment variable holding the API key (sent as a bearer token); none when empty.
    pub api_key_env: String,
    /// Per-request timeout in milliseconds.
    pub timeout_ms: u64,
}

/// An `[llm]` section a request could not use, naming the key at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmConfigError {
    /// `base_url` is not an HTTP(S) URL.
    #[error("llm.base_url must be an http:// or https:// URL, not {0:?}")]
    BaseUrl(String),
    /// `models` names no chat model.
    #[error("llm.models must name at least one chat model")]
    NoModel,
    /// `timeout_ms` is 0.
    #[error("llm.timeout_ms must be greater than 0")]
    ZeroTimeout,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            base_url: String::new(),
            models: Vec::new(),
            embedding_model: None,
            api_key_env: String::new(),
            timeout_ms: 60_000,
        }
    }
}

impl LlmConfig {
    /// Checks what a request needs, naming the key at fault.
    pub fn validate(&self) -> Result<(), LlmConfigError> {
        if !(self.base_url.starts_with("http://") || self.base_url.starts_with("https://")) {
            return Err(LlmConfigError::BaseUrl(self.base_url.clone()));
        }
        if self.models.iter().all(|m| m.trim().is_empty()) {
            return Err(LlmConfigError::NoModel);
        }
        if self.timeout_ms == 0 {
            return Err(LlmConfigError::ZeroTimeout);
        }
        Ok(())
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base_url.trim_end_matches('/'))
    }

    /// The model a call asks for: `model_name`, else `model` when it is a configured model
    /// (MaiBot plugins also pass task names there), else the first configured model.
    fn chat_model(&self, args: &Args<'_>) -> Result<String, RpcError> {
        if let Some(name) = args.opt_str("model_name")?.filter(|n| !n.trim().is_empty()) {
            return Ok(name);
        }
        if let Some(name) = args.opt_str("model")?
            && self.models.contains(&name)
        {
            return Ok(name);
        }
        Ok(self.models[0].clone())
    }
}

impl CapabilityService {
    pub(super) async fn llm(&self, args: Args<'_>) -> Result<Value, RpcError> {
        let config = self.llm.read().clone().ok_or_else(|| {
            args.failed("no [llm] section in maitool.toml: the operator has not configured an OpenAI-compatible endpoint")
        })?;
        if args.capability == Capability::LlmGetAvailableModels {
            return Ok(json!({ "success": true, "models": config.models }));
        }
        let (path, body) = match args.capability {
            Capability::LlmGenerate | Capability::LlmGenerateWithTools => {
                ("chat/completions", chat_body(&config, &args)?)
            }
            Capability::LlmEmbed => ("embeddings", embed_body(&config, &args)?),
            _ => unreachable!("dispatch only routes served llm.* capabilities here"),
        };
        let answer = post(&config, &args, path, body.clone()).await?;
        if args.capability == Capability::LlmEmbed {
            embed_result(&args, &body, &answer)
        } else {
            chat_result(&args, &answer)
        }
    }
}

fn chat_body(config: &LlmConfig, args: &Args<'_>) -> Result<Value, RpcError> {
    let messages = match args.value("prompt") {
        Some(Value::String(text)) if !text.trim().is_empty() => {
            json!([{ "role": "user", "content": text }])
        }
        Some(Value::Array(items)) if !items.is_empty() => Value::Array(items.clone()),
        _ => {
            return Err(
                args.bad("argument `prompt` must be a non-empty string or list of messages")
            );
        }
    };
    let mut body =
        json!({ "model": config.chat_model(args)?, "messages": messages, "stream": false });
    if let Some(temperature) = args.opt_f64("temperature")? {
        body["temperature"] = temperature.into();
    }
    if args.value("max_tokens").is_some() {
        body["max_tokens"] = args.count("max_tokens", 0)?.into();
    }
    if args.capability == Capability::LlmGenerateWithTools {
        let tools = match args.value("tools").or_else(|| args.value("tool_options")) {
            Some(Value::Array(tools)) => tools,
            Some(_) => return Err(args.bad("argument `tools` must be a list")),
            None => return Err(args.bad("argument `tools` is required")),
        };
        let tools = tools
            .iter()
            .enumerate()
            .map(|(index, tool)| openai_tool(args, index, tool))
            .collect::<Result<Vec<_>, _>>()?;
        body["tools"] = Value::Array(tools);
    }
    Ok(body)
}

/// A tool in OpenAI's shape: kept when it already is (`{type, function}`), else built from
/// MaiBot's `{name, description, parameters}`.
fn openai_tool(args: &Args<'_>, index: usize, tool: &Value) -> Result<Value, RpcError> {
    if tool.get("function").is_some() {
        return Ok(tool.clone());
    }
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| args.bad(format!("`tools[{index}]` has no `name`")))?;
    Ok(json!({
        "type": "function",
        "function": {
            "name": name,
            "description": tool.get("description").cloned().unwrap_or_else(|| "".into()),
            "parameters": tool.get("parameters").cloned()
                .unwrap_or_else(|| json!({ "type": "object", "properties": {} })),
        },
    }))
}

fn embed_body(config: &LlmConfig, args: &Args<'_>) -> Result<Value, RpcError> {
    let model = config
        .embedding_model
        .clone()
        .filter(|m| !m.trim().is_empty())
        .ok_or_else(|| {
            args.failed("[llm] has no embedding_model: the operator has not configured embeddings")
        })?;
    let text = args.opt_str("text")?;
    let texts = match args.value("texts") {
        None => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<Vec<String>>>()
                .ok_or_else(|| args.bad("argument `texts` must be a list of strings"))?,
        ),
        Some(_) => return Err(args.bad("argument `texts` must be a list of strings")),
    };
    let input = match (text, texts) {
        (Some(_), Some(texts)) if !texts.is_empty() => {
            return Err(args.bad("give either `text` or `texts`, not both"));
        }
        (Some(text), _) => Value::from(text),
        (None, Some(texts)) if !texts.is_empty() => Value::from(texts),
        _ => return Err(args.bad("argument `text` or `texts` is required")),
    };
    Ok(json!({ "model": model, "input": input }))
}

fn chat_result(args: &Args<'_>, answer: &Value) -> Result<Value, RpcError> {
    let message = answer
        .pointer("/choices/0/message")
        .ok_or_else(|| args.failed("the endpoint's answer has no choices[0].message"))?;
    let text = |value: Option<&Value>| value.and_then(Value::as_str).unwrap_or_default().to_owned();
    let usage = |key: &str| {
        answer
            .pointer(&format!("/usage/{key}"))
            .cloned()
            .unwrap_or(0.into())
    };
    let mut result = json!({
        "success": true,
        "response": text(message.get("content")),
        "reasoning": text(message.get("reasoning_content")),
        "model_name": text(answer.get("model")),
        "prompt_tokens": usage("prompt_tokens"),
        "completion_tokens": usage("completion_tokens"),
        "total_tokens": usage("total_tokens"),
    });
    if args.capability == Capability::LlmGenerateWithTools {
        let calls: Vec<Value> = message
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|call| {
                // OpenAI sends arguments as JSON text; MaiBot hands plugins a dictionary.
                let arguments = match call.pointer("/function/arguments") {
                    Some(Value::String(raw)) => {
                        serde_json::from_str(raw).unwrap_or_else(|_| json!({}))
                    }
                    Some(other) => other.clone(),
                    None => json!({}),
                };
                json!({
                    "id": call.get("id").cloned().unwrap_or_default(),
                    "function": {
                        "name": call.pointer("/function/name").cloned().unwrap_or_default(),
                        "arguments": arguments,
                    },
                })
            })
            .collect();
        result["tool_calls"] = Value::Array(calls);
    }
    Ok(result)
}

fn embed_result(args: &Args<'_>, body: &Value, answer: &Value) -> Result<Value, RpcError> {
    let model = answer
        .get("model")
        .or_else(|| body.get("model"))
        .cloned()
        .unwrap_or_default();
    let data = answer
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| args.failed("the endpoint's answer has no data list"))?;
    let vectors = data
        .iter()
        .map(|item| {
            item.get("embedding")
                .filter(|e| e.is_array())
                .cloned()
                .ok_or_else(|| args.failed("an item of the endpoint's data has no embedding"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if body["input"].is_string() {
        let embedding = vectors
            .into_iter()
            .next()
            .ok_or_else(|| args.failed("the endpoint returned no embedding"))?;
        return Ok(json!({ "success": true, "embedding": embedding, "model_name": model }));
    }
    let results: Vec<Value> = vectors
        .into_iter()
        .map(|embedding| json!({ "embedding": embedding, "model_name": model }))
        .collect();
    Ok(json!({ "success": true, "results": results }))
}

#[cfg(feature = "http")]
async fn post(
    config: &LlmConfig,
    args: &Args<'_>,
    path: &str,
    body: Value,
) -> Result<Value, RpcError> {
    let key = if config.api_key_env.is_empty() {
        None
    } else {
        Some(std::env::var(&config.api_key_env).map_err(|_| {
            args.failed(format!(
                "the API key variable {} named by [llm] api_key_env is not set",
                config.api_key_env
            ))
        })?)
    };
    let mut request = client()
        .map_err(|err| args.failed(format!("HTTP client: {err}")))?
        .post(config.url(path))
        .timeout(std::time::Duration::from_millis(config.timeout_ms))
        .json(&body);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    tracing::debug!(capability = args.capability.name(), url = %config.url(path), "forwarding to the LLM endpoint");
    let response = request
        .send()
        .await
        .map_err(|err| args.failed(format!("request to {} failed: {err}", config.url(path))))?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|err| args.failed(format!("reading the endpoint's answer: {err}")))?;
    if !status.is_success() {
        let excerpt: String = text.chars().take(300).collect();
        return Err(args.failed(format!("the endpoint answered {status}: {excerpt}")));
    }
    serde_json::from_str(&text)
        .map_err(|err| args.failed(format!("the endpoint's answer is not JSON: {err}")))
}

/// One client for every call: building one sets up a TLS context and a connection pool, which
/// calls to the same endpoint should share.
#[cfg(feature = "http")]
fn client() -> Result<&'static reqwest::Client, reqwest::Error> {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    if let Some(client) = CLIENT.get() {
        return Ok(client);
    }
    let built = reqwest::Client::builder().build()?;
    Ok(CLIENT.get_or_init(|| built))
}

#[cfg(not(feature = "http"))]
async fn post(
    config: &LlmConfig,
    args: &Args<'_>,
    path: &str,
    _: Value,
) -> Result<Value, RpcError> {
    Err(args.failed(format!(
        "this maitool was built without the `http` feature, which llm.* needs to reach {}",
        config.url(path)
    )))
}
