//! Mapping a unified [`ToolSpec`] back to an MCP `Tool`.
//!
//! Every field survives: name, title, description, input and output schema, the MCP
//! annotation hints, icons, and everything else in `_meta`. MCP's tool annotations have no
//! audience or priority (those exist only on content), so they travel in `_meta` too.

use std::sync::Arc;

use maitool_protocol::{JsonObject, ToolSpec};
use rmcp::model::{Icon, MetaObject, Tool, ToolAnnotations};
use serde_json::Value;

/// `_meta` key of a tool: the registry provider that serves it (`plugin_runtime`, `mcp`, ...).
pub const META_PROVIDER_NAME: &str = "maitool/provider_name";
/// `_meta` key of a tool: the provider kind (`plugin`, `builtin`, `mcp`, ...).
pub const META_PROVIDER_TYPE: &str = "maitool/provider_type";
/// `_meta` key of a tool: its annotation's audience (`["user", "assistant"]`).
pub const META_AUDIENCE: &str = "maitool/audience";
/// `_meta` key of a tool: its annotation's priority (0.0 to 1.0).
pub const META_PRIORITY: &str = "maitool/priority";
/// `_meta` key of a tool: its annotation's extra metadata.
pub const META_ANNOTATION_METADATA: &str = "maitool/annotation_metadata";

/// The MCP form of `spec`:
/// * `title`: the spec's title, else its annotation's title;
/// * `inputSchema`: the parameters schema, `{"type":"object","properties":{}}` when absent,
///   with `"type":"object"` added when missing (MCP requires an object schema);
/// * `outputSchema`, `icons` as they are; `annotations` when any hint is set;
/// * `_meta`: the spec's metadata plus the `maitool/*` keys of this module (the spec's own
///   keys never replace those).
pub fn spec_to_tool(spec: ToolSpec) -> Tool {
    let ToolSpec {
        name,
        description,
        title,
        parameters_schema,
        output_schema,
        provider_name,
        provider_type,
        icons,
        annotation,
        mut metadata,
        ..
    } = spec;

    let mut input_schema = parameters_schema.unwrap_or_default();
    if input_schema.is_empty() {
        input_schema.insert("properties".to_owned(), Value::Object(JsonObject::new()));
    }
    input_schema
        .entry("type")
        .or_insert_with(|| Value::from("object"));

    let description = description.trim();
    let mut tool = Tool::new_with_raw(
        name,
        (!description.is_empty()).then(|| description.to_owned().into()),
        Arc::new(input_schema),
    );
    let annotation_title = annotation
        .as_ref()
        .map(|a| a.title.trim().to_owned())
        .filter(|t| !t.is_empty());
    if !title.trim().is_empty() {
        tool = tool.with_title(title.trim());
    } else if let Some(fallback) = &annotation_title {
        tool = tool.with_title(fallback);
    }
    if let Some(schema) = output_schema {
        tool = tool.with_raw_output_schema(Arc::new(schema));
    }
    if !icons.is_empty() {
        let icons = icons
            .into_iter()
            .map(|icon| {
                let mut mapped = Icon::new(icon.src);
                if !icon.mime_type.is_empty() {
                    mapped = mapped.with_mime_type(icon.mime_type);
                }
                if !icon.sizes.is_empty() {
                    mapped = mapped.with_sizes(icon.sizes);
                }
                mapped
            })
            .collect();
        tool = tool.with_icons(icons);
    }
    if let Some(annotation) = annotation {
        let hints = ToolAnnotations::from_raw(
            annotation_title,
            annotation.read_only,
            annotation.destructive,
            annotation.idempotent,
            annotation.open_world,
        );
        if hints != ToolAnnotations::default() {
            tool = tool.with_annotations(hints);
        }
        if !annotation.audience.is_empty() {
            metadata.insert(META_AUDIENCE.to_owned(), Value::from(annotation.audience));
        }
        if let Some(priority) = annotation.priority {
            metadata.insert(META_PRIORITY.to_owned(), Value::from(priority));
        }
        if !annotation.metadata.is_empty() {
            metadata.insert(
                META_ANNOTATION_METADATA.to_owned(),
                Value::Object(annotation.metadata),
            );
        }
    }
    metadata.insert(META_PROVIDER_NAME.to_owned(), Value::from(provider_name));
    metadata.insert(
        META_PROVIDER_TYPE.to_owned(),
        Value::from(provider_type.as_str()),
    );
    tool.with_meta(MetaObject(metadata))
}
