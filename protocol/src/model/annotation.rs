use serde::{Deserialize, Serialize};

use super::JsonObject;

/// An icon for a tool, for UIs and dashboards. Never needed to choose or call a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ToolIcon {
    /// Where the icon lives: a URL or a `data:` URI.
    pub src: String,
    /// MIME type of the icon, empty when unknown.
    pub mime_type: String,
    /// Sizes such as `"48x48"` or `"any"`.
    pub sizes: Vec<String>,
}

/// Non-functional hints about a tool. None of them decides whether a tool may be called; they
/// inform scheduling, filtering and display. Mirrors MCP's tool annotations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ToolAnnotation {
    /// Who the tool (or content item) is meant for, e.g. `"user"` or `"assistant"`.
    pub audience: Vec<String>,
    /// Relative importance, 0.0 to 1.0 by MCP convention.
    pub priority: Option<f64>,
    /// A human-readable title.
    pub title: String,
    /// The tool does not modify its environment.
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates.
    pub destructive: Option<bool>,
    /// Calling the tool twice with the same arguments has no additional effect.
    pub idempotent: Option<bool>,
    /// The tool interacts with an open world of external entities.
    pub open_world: Option<bool>,
    /// Anything else.
    pub metadata: JsonObject,
}
