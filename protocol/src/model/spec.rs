use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{JsonObject, ToolAnnotation, ToolIcon};

/// The kind of provider a tool comes from. Serialized as a plain string, so new kinds can be
/// added without breaking older peers: an unknown string round-trips as [`ProviderType::Other`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum ProviderType {
    /// A plugin tool or converted legacy Action, served by a runner subprocess.
    #[default]
    Plugin,
    /// A built-in engine tool.
    Builtin,
    /// A tool of an external MCP server.
    Mcp,
    /// Any other provider kind.
    Other(String),
}

impl ProviderType {
    /// The wire name.
    pub fn as_str(&self) -> &str {
        match self {
            ProviderType::Plugin => "plugin",
            ProviderType::Builtin => "builtin",
            ProviderType::Mcp => "mcp",
            ProviderType::Other(other) => other,
        }
    }
}

impl From<&str> for ProviderType {
    fn from(value: &str) -> Self {
        match value {
            "plugin" => ProviderType::Plugin,
            "builtin" => ProviderType::Builtin,
            "mcp" => ProviderType::Mcp,
            other => ProviderType::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for ProviderType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ProviderType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProviderType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = String::deserialize(deserializer)?;
        Ok(ProviderType::from(value.as_str()))
    }
}

/// The unified declaration of a tool: what it does, what it takes, where it comes from.
/// Every tool source becomes a list of `ToolSpec`s before it reaches a model or the router.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolSpec {
    /// Tool name, unique in the unified view.
    pub name: String,
    /// Description shown to the model.
    pub description: String,
    /// Optional display title.
    pub title: String,
    /// JSON Schema of the arguments (an object schema), if any.
    pub parameters_schema: Option<JsonObject>,
    /// JSON Schema of the structured output, if any.
    pub output_schema: Option<JsonObject>,
    /// Which provider declared the tool (for plugins, the plugin id).
    pub provider_name: String,
    /// The kind of provider.
    pub provider_type: ProviderType,
    /// Disabled specs never reach the unified list.
    pub enabled: bool,
    /// Icons for UIs.
    pub icons: Vec<ToolIcon>,
    /// Non-functional hints.
    pub annotation: Option<ToolAnnotation>,
    /// Extension data, for example `visibility`, `plugin_id`, `builtin_stage`.
    pub metadata: JsonObject,
}

impl ToolSpec {
    /// A new enabled spec with a name and description; the description is trimmed.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into().trim().to_owned(),
            ..Self::default()
        }
    }

    /// Sets the parameters schema.
    pub fn with_parameters(mut self, schema: JsonObject) -> Self {
        self.parameters_schema = Some(schema);
        self
    }

    /// Sets the provider name and type.
    pub fn with_provider(mut self, name: impl Into<String>, kind: ProviderType) -> Self {
        self.provider_name = name.into();
        self.provider_type = kind;
        self
    }

    /// Sets one metadata entry.
    pub fn with_metadata(mut self, key: &str, value: impl Into<serde_json::Value>) -> Self {
        self.metadata.insert(key.to_owned(), value.into());
        self
    }

    /// The description as the model sees it.
    pub fn llm_description(&self) -> &str {
        self.description.trim()
    }

    /// The model-facing definition: name, description and parameters schema.
    pub fn to_llm_definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name.clone(),
            description: self.llm_description().to_owned(),
            parameters_schema: self.parameters_schema.clone(),
        }
    }

    /// The `visibility` metadata entry (`visible`, `deferred` or `hidden`), if set.
    pub fn visibility(&self) -> Option<&str> {
        self.metadata.get("visibility").and_then(|v| v.as_str())
    }
}

// `enabled` defaults to true, also when absent on the wire.
impl Default for ToolSpec {
    fn default() -> Self {
        Self {
            name: String::new(),
            description: String::new(),
            title: String::new(),
            parameters_schema: None,
            output_schema: None,
            provider_name: String::new(),
            provider_type: ProviderType::default(),
            enabled: true,
            icons: Vec::new(),
            annotation: None,
            metadata: JsonObject::new(),
        }
    }
}

/// What a model needs to know about a tool: its name, description and parameters schema
/// (MaiBot's `ToolSpec.to_llm_definition()`). The host renders these for each model API, and
/// `tool.get_definitions` answers plugins with them.
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
