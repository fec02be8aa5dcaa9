//! Mapping an MCP `Tool` to the unified [`ToolSpec`].

use maitool_protocol::{JsonObject, ProviderType, ToolAnnotation, ToolIcon, ToolSpec};
use rmcp::model::Tool;
use serde_json::Value;

use super::dialect::to_2020_12;

/// The provider name of MCP tools.
pub const PROVIDER_NAME: &str = "mcp";

/// Maps one tool of `server_name`, exposed as `exposed_name`:
/// * title: the tool's `title`, else its annotations' title;
/// * description: the tool's, else `MCP tool from server NAME`;
/// * parameters: the input schema as 2020-12 without `$schema` (see [`super::dialect`]); an
///   absent or empty schema becomes `{"type":"object","properties":{}}`;
/// * output schema the same way; icons; every annotation hint;
/// * metadata: the tool's `_meta` merged with `server_name` and `mcp_tool_name` (the
///   server's own keys may set e.g. `visibility`, but cannot replace those two).
pub fn tool_to_spec(server_name: &str, exposed_name: &str, tool: &Tool) -> ToolSpec {
    let description = tool
        .description
        .as_deref()
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| format!("MCP tool from server {server_name}"));
    let annotations = tool.annotations.as_ref();
    let title = tool
        .title
        .clone()
        .or_else(|| annotations.and_then(|a| a.title.clone()))
        .unwrap_or_default();

    let mut metadata = tool
        .meta
        .as_ref()
        .map(|meta| meta.0.clone())
        .unwrap_or_default();
    metadata.insert("server_name".to_owned(), Value::from(server_name));
    metadata.insert("mcp_tool_name".to_owned(), Value::from(tool.name.as_ref()));

    let mut spec = ToolSpec::new(exposed_name, description)
        .with_parameters(parameters_schema(&tool.input_schema))
        .with_provider(PROVIDER_NAME, ProviderType::Mcp);
    spec.title = title;
    spec.output_schema = tool
        .output_schema
        .as_deref()
        .map(|schema| to_2020_12(schema.clone()));
    spec.icons = tool
        .icons
        .iter()
        .flatten()
        .map(|icon| ToolIcon {
            src: icon.src.clone(),
            mime_type: icon.mime_type.clone().unwrap_or_default(),
            sizes: icon.sizes.clone().unwrap_or_default(),
        })
        .collect();
    spec.annotation = annotations.map(|a| ToolAnnotation {
        title: a.title.clone().unwrap_or_default(),
        read_only: a.read_only_hint,
        destructive: a.destructive_hint,
        idempotent: a.idempotent_hint,
        open_world: a.open_world_hint,
        ..ToolAnnotation::default()
    });
    spec.metadata = metadata;
    spec
}

fn parameters_schema(schema: &JsonObject) -> JsonObject {
    let mut schema = to_2020_12(schema.clone());
    if schema.is_empty() {
        schema.insert("type".to_owned(), Value::from("object"));
        schema.insert("properties".to_owned(), Value::Object(JsonObject::new()));
    } else if !schema.contains_key("type") {
        // MCP requires an object schema; some servers omit the type.
        schema.insert("type".to_owned(), Value::from("object"));
    }
    schema
}

#[cfg(test)]
mod tests;
