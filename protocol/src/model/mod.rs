//! The unified tool model: every tool source (plugins, legacy Actions, built-ins, MCP) is
//! described with these types.

mod annotation;
mod binary;
mod chat_scope;
mod compact;
mod content;
mod context;
mod invocation;
mod json_kind;
mod platforms;
mod result;
mod spec;
mod visibility;

#[cfg(test)]
mod tests;

pub use annotation::{ToolAnnotation, ToolIcon};
pub use binary::BinaryData;
pub use chat_scope::ChatScope;
pub use content::{ContentType, ToolContentItem};
pub use context::{ToolAvailabilityContext, ToolExecutionContext};
pub use invocation::ToolInvocation;
pub use json_kind::{json_kind, python_truth};
pub use platforms::{Platforms, PlatformsError};
pub use result::{NamedResult, ToolExecutionResult};
pub use spec::{ProviderType, ToolDefinition, ToolSpec};
pub use visibility::{UnknownName, Visibility};

/// A JSON object: argument maps, schemas and metadata.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
