//! `[mcp.client]`: what the host tells servers about itself, plus MaiBot's client options.

use serde::{Deserialize, Serialize};

/// `[mcp.client]`: MaiBot's client options. maitool uses the name, version and roots;
/// sampling and elicitation are accepted for compatibility and must stay disabled.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpClientConfig {
    /// `clientInfo.name` sent to servers.
    pub client_name: String,
    /// `clientInfo.version` sent to servers.
    pub client_version: String,
    /// Filesystem roots offered to servers that ask for them.
    pub roots: McpRootsConfig,
    /// Server-initiated LLM sampling (not supported by maitool).
    pub sampling: McpSamplingConfig,
    /// Server-initiated user prompts (not supported by maitool).
    pub elicitation: McpElicitationConfig,
}

impl Default for McpClientConfig {
    fn default() -> Self {
        Self {
            client_name: "maitool".to_owned(),
            client_version: env!("CARGO_PKG_VERSION").to_owned(),
            roots: McpRootsConfig::default(),
            sampling: McpSamplingConfig::default(),
            elicitation: McpElicitationConfig::default(),
        }
    }
}

/// `[mcp.client.roots]`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpRootsConfig {
    /// Advertise the `roots` capability and answer `roots/list`.
    pub enable: bool,
    /// The roots.
    pub items: Vec<McpRootItem>,
}

/// One root.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpRootItem {
    /// Whether it is offered.
    pub enabled: bool,
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    pub name: String,
}

impl Default for McpRootItem {
    fn default() -> Self {
        Self {
            enabled: true,
            uri: String::new(),
            name: String::new(),
        }
    }
}

/// `[mcp.client.sampling]` (MaiBot compatibility; must stay disabled).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpSamplingConfig {
    /// Must be `false`: maitool has no LLM bridge for server sampling.
    pub enable: bool,
    /// MaiBot's model task.
    pub task_name: String,
    /// MaiBot's option; ignored.
    pub include_context_support: bool,
    /// MaiBot's option; ignored.
    pub tool_support: bool,
}

impl Default for McpSamplingConfig {
    fn default() -> Self {
        Self {
            enable: false,
            task_name: "planner".to_owned(),
            include_context_support: false,
            tool_support: false,
        }
    }
}

/// `[mcp.client.elicitation]` (MaiBot compatibility; must stay disabled).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpElicitationConfig {
    /// Must be `false`: maitool has no user-prompt bridge.
    pub enable: bool,
    /// MaiBot's option; ignored.
    pub allow_form: bool,
    /// MaiBot's option; ignored.
    pub allow_url: bool,
}

impl Default for McpElicitationConfig {
    fn default() -> Self {
        Self {
            enable: false,
            allow_form: true,
            allow_url: false,
        }
    }
}
