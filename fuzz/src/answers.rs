//! Model answers built from tool calls, in each API's own shape: the inverse of
//! `parse_tool_calls`, so that calls parsed from one API's answer can be checked to survive
//! the trip through every other API's shape.

use maitool_protocol::JsonObject;
use maitool_host::llm::ModelApi;
use serde_json::{Value, json};

/// One tool call: name, arguments and call id.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The tool.
    pub name: String,
    /// Its arguments.
    pub arguments: JsonObject,
    /// The model's call id.
    pub call_id: String,
}

/// The whole answer a model of `api` gives when it makes `calls`, the way its API documents
/// it (OpenAI sends arguments as JSON text, Anthropic and Gemini as objects).
pub fn model_answer(api: ModelApi, calls: &[Call]) -> Value {
    let items: Vec<Value> = calls
        .iter()
        .map(|call| {
            let text = Value::Object(call.arguments.clone()).to_string();
            match api {
                ModelApi::OpenAiChat => json!({"id": call.call_id, "type": "function",
                    "function": {"name": call.name, "arguments": text}}),
                ModelApi::OpenAiResponses => json!({"type": "function_call",
                    "id": format!("fc_{}", call.call_id), "call_id": call.call_id,
                    "name": call.name, "arguments": text}),
                ModelApi::Anthropic => json!({"type": "tool_use", "id": call.call_id,
                    "name": call.name, "input": call.arguments}),
                ModelApi::Gemini => json!({"functionCall": {"id": call.call_id,
                    "name": call.name, "args": call.arguments}}),
            }
        })
        .collect();
    match api {
        ModelApi::OpenAiChat => json!({"id": "chatcmpl-1", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": null, "tool_calls": items}}]}),
        ModelApi::OpenAiResponses => json!({"id": "resp_1", "object": "response",
            "output": items}),
        ModelApi::Anthropic => json!({"id": "msg_1", "type": "message", "role": "assistant",
            "stop_reason": "tool_use", "content": items}),
        ModelApi::Gemini => json!({"candidates": [{"finishReason": "STOP",
            "content": {"role": "model", "parts": items}}]}),
    }
}
