use serde::{Deserialize, Serialize};

use super::JsonObject;

/// A request to execute one tool: the normalised form of a model's tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ToolInvocation {
    /// The tool to run.
    pub tool_name: String,
    /// The arguments the model produced.
    pub arguments: JsonObject,
    /// The model's tool-call id, used to put the result back in the right place.
    pub call_id: String,
    /// Conversation session id.
    pub session_id: String,
    /// Chat stream id.
    pub stream_id: String,
    /// The model's reasoning for choosing this tool.
    pub reasoning: String,
    /// Extension data, such as an anchor message or debug fields.
    pub metadata: JsonObject,
}

impl ToolInvocation {
    /// An invocation of `tool_name` with `arguments` and nothing else set.
    pub fn new(tool_name: impl Into<String>, arguments: JsonObject) -> Self {
        Self {
            tool_name: tool_name.into(),
            arguments,
            ..Self::default()
        }
    }

    /// Sets the call id.
    pub fn with_call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = call_id.into();
        self
    }
}
