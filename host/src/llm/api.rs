use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{ToolCallParseError, anthropic, gemini, openai};
use maitool_protocol::ToolDefinition;
use maitool_protocol::model::ToolInvocation;

/// Which model API's shapes to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelApi {
    /// OpenAI Chat Completions (`/v1/chat/completions`), and the many servers compatible with it.
    #[serde(rename = "openai_chat", alias = "openai", alias = "chat")]
    OpenAiChat,
    /// OpenAI Responses (`/v1/responses`).
    #[serde(rename = "openai_responses", alias = "responses")]
    OpenAiResponses,
    /// Anthropic Messages (`/v1/messages`).
    #[serde(alias = "claude")]
    Anthropic,
    /// Google Gemini `generateContent`.
    #[serde(alias = "google")]
    Gemini,
}

impl ModelApi {
    /// Every API, in declaration order.
    pub const ALL: [ModelApi; 4] = [
        ModelApi::OpenAiChat,
        ModelApi::OpenAiResponses,
        ModelApi::Anthropic,
        ModelApi::Gemini,
    ];

    /// The canonical name, as serialized: `openai_chat`, `openai_responses`, `anthropic` or
    /// `gemini`.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelApi::OpenAiChat => "openai_chat",
            ModelApi::OpenAiResponses => "openai_responses",
            ModelApi::Anthropic => "anthropic",
            ModelApi::Gemini => "gemini",
        }
    }
}

impl fmt::Display for ModelApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A model API name that [`ModelApi::from_str`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown model API `{0}`: expected openai_chat (openai, chat), openai_responses (responses), \
     anthropic (claude) or gemini (google)"
)]
pub struct UnknownModelApi(pub String);

impl FromStr for ModelApi {
    type Err = UnknownModelApi;

    /// Accepts the canonical names and common aliases, case-insensitively, with `-` or `_`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let normalized = name.trim().to_ascii_lowercase().replace('-', "_");
        match normalized.as_str() {
            "openai_chat" | "openai" | "chat" | "chat_completions" => Ok(ModelApi::OpenAiChat),
            "openai_responses" | "responses" => Ok(ModelApi::OpenAiResponses),
            "anthropic" | "claude" => Ok(ModelApi::Anthropic),
            "gemini" | "google" => Ok(ModelApi::Gemini),
            _ => Err(UnknownModelApi(name.to_owned())),
        }
    }
}

/// Renders tool definitions into the `tools` value that `api` expects in a request.
///
/// Schemas are adapted to what each API accepts: a top-level `$schema` is always dropped, a tool
/// without a schema gets an empty object schema (OpenAI, Anthropic) or no `parameters` at all
/// (Gemini), and Gemini schemas are reduced to its OpenAPI subset.
pub fn render_tools(api: ModelApi, tools: &[ToolDefinition]) -> serde_json::Value {
    match api {
        ModelApi::OpenAiChat => openai::render_chat(tools),
        ModelApi::OpenAiResponses => openai::render_responses(tools),
        ModelApi::Anthropic => anthropic::render(tools),
        ModelApi::Gemini => gemini::render(tools),
    }
}

/// Parses a model's raw tool calls into invocations, in the order the model made them, with
/// `tool_name`, `arguments` and `call_id` filled.
///
/// `raw` may be the whole answer or just its tool calls:
///
/// * OpenAI Chat: a chat completion, the assistant message, or its `tool_calls` array.
/// * OpenAI Responses: the response object or its `output` array.
/// * Anthropic: the message or its `content` array.
/// * Gemini: the `generateContent` response (first candidate), a content object, or its
///   `parts` array.
///
/// An answer without tool calls gives an empty list. Items that are not client tool calls
/// (text, reasoning, server-side tool use) are skipped. The first malformed call fails the whole
/// parse, since running only part of a model's calls would desynchronise the conversation.
pub fn parse_tool_calls(
    api: ModelApi,
    raw: &serde_json::Value,
) -> Result<Vec<ToolInvocation>, ToolCallParseError> {
    match api {
        ModelApi::OpenAiChat => openai::parse_chat(raw),
        ModelApi::OpenAiResponses => openai::parse_responses(raw),
        ModelApi::Anthropic => anthropic::parse(raw),
        ModelApi::Gemini => gemini::parse(raw),
    }
}
