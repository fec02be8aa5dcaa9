//! The model-facing view of tools: definitions in the shapes that model APIs expect, and
//! parsers for the raw tool calls those APIs return.

use serde::{Deserialize, Serialize};

use crate::model::JsonObject;

/// What a model needs to know about a tool: its name, description and parameters schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ToolDefinition {
    /// Tool name.
    pub name: String,
    /// Description for the model.
    pub description: String,
    /// JSON Schema of the arguments; absent when the tool takes none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters_schema: Option<JsonObject>,
}
