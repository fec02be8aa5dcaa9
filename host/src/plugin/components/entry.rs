//! One registered component, built from a runner's declaration: its tool spec, limits, chat
//! scope and visibility, or the reason the declaration is refused.

use std::collections::HashSet;
use std::sync::Arc;

use maitool_protocol::wire::methods::{ComponentDeclaration, names};
use maitool_protocol::{
    ChatScope, JsonObject, Platforms, PlatformsError, ProviderType, ToolAnnotation, ToolIcon,
    ToolSpec, Visibility,
};

use super::trigger::Trigger;
use crate::plugin::PLUGIN_PROVIDER_NAME;
use crate::plugin::invoke_args::ContextKeys;

/// A component declaration the registry refuses; the runner gets the text as the reason of
/// its refused registration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DeclarationError {
    /// A component without a name.
    #[error("a component has an empty name")]
    EmptyName,
    /// A tool's (or Action's) name outside the alphabet a model's tool names allow, or too
    /// long.
    #[error("tool name {name:?} must be 1-128 characters of [A-Za-z0-9_.-]")]
    BadName {
        /// The name as declared.
        name: String,
    },
    /// Another component's name (a command, handler, hook or API, which no model sees) with
    /// whitespace or control characters, or too long.
    #[error(
        "component name {name:?} must be 1-128 characters without whitespace or control characters"
    )]
    BadComponentName {
        /// The name as declared.
        name: String,
    },
    /// A component that names another plugin than the one registering it.
    #[error("component {name} claims plugin {claimed} but was registered by {plugin_id}")]
    ForeignPlugin {
        /// The component.
        name: String,
        /// The plugin it names.
        claimed: String,
        /// The plugin registering it.
        plugin_id: String,
    },
    /// An invoke method the host does not call.
    #[error("component {name}: unsupported invoke_method {method:?}")]
    InvokeMethod {
        /// The component.
        name: String,
        /// The method as declared.
        method: String,
    },
    /// A timeout that is not a non-negative integer.
    #[error("component {name}: timeout_ms must be a non-negative integer, got {value}")]
    Timeout {
        /// The component.
        name: String,
        /// The value as declared.
        value: serde_json::Value,
    },
    /// `parameters_raw` that is not an object.
    #[error("parameters_raw must be an object, got {0}")]
    ParametersRaw(serde_json::Value),
    /// A parameter list that does not describe a schema.
    #[error(transparent)]
    ParameterList(#[from] crate::plugin::parameter_list::ParameterListError),
    /// A `platforms` value that is neither a platform name nor a list of them.
    #[error("component {name}: {problem}")]
    Platforms {
        /// The component.
        name: String,
        /// What is wrong with the value.
        problem: PlatformsError,
    },
    /// A `stop_after_execution` flag that is not a boolean.
    #[error("component {name}: stop_after_execution must be a boolean, got {value}")]
    StopAfterExecution {
        /// The component.
        name: String,
        /// The value as declared.
        value: serde_json::Value,
    },
    /// Two components of one plugin share a name.
    #[error("plugin {plugin_id} declares component {name} twice")]
    Duplicate {
        /// The plugin.
        plugin_id: String,
        /// The component.
        name: String,
    },
}

/// One registered component.
#[derive(Debug, Clone)]
pub struct ComponentEntry {
    /// `plugin_id.name`.
    pub full_name: String,
    /// Name within the plugin; the tool name the model sees.
    pub name: String,
    /// Owning plugin.
    pub plugin_id: String,
    /// `TOOL`, `ACTION`, or another MaiBot type (stored, never exposed as a tool).
    pub component_type: String,
    /// `plugin.invoke_tool` or `plugin.invoke_action`.
    pub invoke_method: String,
    /// Whether the component was declared enabled.
    pub declared_enabled: bool,
    /// Tool timeout in milliseconds; 0 means the runtime default.
    pub timeout_ms: u64,
    /// Chat scope.
    pub chat_scope: ChatScope,
    /// Sessions the component is restricted to (empty: all).
    pub allowed_sessions: HashSet<String>,
    /// Visibility.
    pub visibility: Visibility,
    /// The platforms the tool is offered on (MaiBot's `Tool(platforms=...)`).
    pub platforms: Platforms,
    /// Every successful result of the tool ends the planner round
    /// (`stop_after_execution: true` in its declaration).
    pub stop_after_execution: bool,
    /// True for a converted legacy Action.
    pub legacy_action: bool,
    /// The spec exposed to the registry, built once at registration.
    pub spec: Arc<ToolSpec>,
    /// What makes it run: a call (tools), a message (commands), an event (event handlers).
    pub trigger: Trigger,
    /// The context keys its calls' arguments carry when its runner reads the context from
    /// the payload: those its parameters declare, or all of them for a legacy Action.
    pub(crate) context_keys: ContextKeys,
}

impl ComponentEntry {
    /// True for a message gateway that takes messages in (`route_type` `receive` or
    /// `duplex`, MaiBot's `recv` and `recive` too).
    pub fn receives_messages(&self) -> bool {
        matches!(self.trigger, Trigger::Gateway { receives: true })
    }

    /// True for components exposed as tools (tools and converted Actions).
    pub fn is_tool(&self) -> bool {
        self.component_type == "TOOL" || self.component_type == "ACTION"
    }

    /// Builds and validates an entry from a runner's declaration.
    pub fn from_declaration(
        plugin_id: &str,
        decl: &ComponentDeclaration,
    ) -> Result<ComponentEntry, DeclarationError> {
        let name = decl.name.trim();
        if name.is_empty() {
            return Err(DeclarationError::EmptyName);
        }
        let component_type = decl.component_type.trim().to_ascii_uppercase();
        // Tools are offered to models, whose APIs take a narrow alphabet; MaiBot names its
        // other components freely (a command `/mai_status`), and so does maitool.
        let exposed_as_tool = component_type == "TOOL" || component_type == "ACTION";
        if name.len() > 128
            || (exposed_as_tool
                && !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        {
            return Err(if exposed_as_tool {
                DeclarationError::BadName {
                    name: name.to_owned(),
                }
            } else {
                DeclarationError::BadComponentName {
                    name: name.to_owned(),
                }
            });
        }
        if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(DeclarationError::BadComponentName {
                name: name.to_owned(),
            });
        }
        if !decl.plugin_id.is_empty() && decl.plugin_id != plugin_id {
            return Err(DeclarationError::ForeignPlugin {
                name: name.to_owned(),
                claimed: decl.plugin_id.clone(),
                plugin_id: plugin_id.to_owned(),
            });
        }
        let meta = &decl.metadata;
        let text = |key: &str| {
            meta.get(key)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .trim()
                .to_owned()
        };
        let trigger = Trigger::of(
            &component_type,
            component_type == "TOOL" || component_type == "ACTION",
            meta,
        );
        let legacy_action = component_type == "ACTION"
            || meta
                .get("legacy_action")
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
        let invoke_method = match text("invoke_method") {
            m if !m.is_empty() => m,
            _ if legacy_action => names::INVOKE_ACTION.to_owned(),
            _ => names::INVOKE_TOOL.to_owned(),
        };
        if invoke_method != names::INVOKE_TOOL && invoke_method != names::INVOKE_ACTION {
            return Err(DeclarationError::InvokeMethod {
                name: name.to_owned(),
                method: invoke_method,
            });
        }
        let timeout_ms = match meta.get("timeout_ms") {
            None | Some(serde_json::Value::Null) => 0,
            Some(value) => value.as_u64().ok_or_else(|| DeclarationError::Timeout {
                name: name.to_owned(),
                value: value.clone(),
            })?,
        };
        // The declaration's own field, else the metadata's; anything unknown means all chats.
        let chat_scope = [decl.chat_scope.trim(), text("chat_scope").as_str()]
            .into_iter()
            .find_map(|name| {
                name.parse::<ChatScope>()
                    .ok()
                    .filter(|s| *s != ChatScope::All)
            })
            .unwrap_or_default();
        let mut allowed_sessions: HashSet<String> = decl.allowed_session.iter().cloned().collect();
        if let Some(list) = meta.get("allowed_session").and_then(|v| v.as_array()) {
            allowed_sessions.extend(list.iter().filter_map(|v| v.as_str().map(str::to_owned)));
        }
        let visibility = Visibility::of_declaration(meta);
        let platforms = Platforms::from_declaration(meta.get("platforms")).map_err(|problem| {
            DeclarationError::Platforms {
                name: name.to_owned(),
                problem,
            }
        })?;
        let stop_after_execution = match meta.get("stop_after_execution") {
            None | Some(serde_json::Value::Null) => false,
            Some(serde_json::Value::Bool(flag)) => *flag,
            Some(value) => {
                return Err(DeclarationError::StopAfterExecution {
                    name: name.to_owned(),
                    value: value.clone(),
                });
            }
        };
        let declared_enabled = meta
            .get("enabled")
            .and_then(|v| v.as_bool())
            .unwrap_or(true);
        let parameters = parameters_schema(meta, legacy_action)?;
        let description = [text("description"), text("brief_description")]
            .into_iter()
            .find(|d| !d.is_empty())
            .unwrap_or_else(|| format!("Tool {name}"));
        let mut metadata = JsonObject::new();
        metadata.insert("plugin_id".into(), plugin_id.into());
        metadata.insert("invoke_method".into(), invoke_method.clone().into());
        metadata.insert("visibility".into(), visibility.as_str().into());
        if legacy_action {
            metadata.insert("legacy_action".into(), true.into());
            metadata.insert("legacy_component_type".into(), "ACTION".into());
        }
        if !platforms.is_unrestricted() {
            metadata.insert("platforms".into(), platforms.names().into());
        }
        if stop_after_execution {
            metadata.insert("stop_after_execution".into(), true.into());
        }
        let spec = ToolSpec {
            name: name.to_owned(),
            description,
            title: text("title"),
            parameters_schema: Some(parameters),
            output_schema: meta
                .get("output_schema")
                .and_then(|v| v.as_object())
                .cloned(),
            provider_name: PLUGIN_PROVIDER_NAME.to_owned(),
            provider_type: ProviderType::Plugin,
            enabled: declared_enabled && visibility != Visibility::Hidden,
            icons: meta
                .get("icons")
                .and_then(|v| serde_json::from_value::<Vec<ToolIcon>>(v.clone()).ok())
                .unwrap_or_default(),
            annotation: meta
                .get("annotation")
                .and_then(|v| serde_json::from_value::<ToolAnnotation>(v.clone()).ok()),
            metadata,
        };
        let context_keys = if legacy_action {
            ContextKeys::ALL
        } else {
            ContextKeys::declared_in(spec.parameters_schema.as_ref())
        };
        Ok(ComponentEntry {
            full_name: format!("{plugin_id}.{name}"),
            name: name.to_owned(),
            plugin_id: plugin_id.to_owned(),
            component_type,
            invoke_method,
            declared_enabled,
            timeout_ms,
            chat_scope,
            allowed_sessions,
            visibility,
            platforms,
            stop_after_execution,
            legacy_action,
            spec: Arc::new(spec),
            trigger,
            context_keys,
        })
    }
}

/// The parameters schema: a parameter list (`parameters`, with `parameters_raw` empty),
/// `parameters_raw` as an object schema or a property map (with per-property
/// `required: true`), else MaiBot's `action_parameters` for legacy Actions.
/// Every object schema gets a `required` array.
fn parameters_schema(
    meta: &JsonObject,
    legacy_action: bool,
) -> Result<JsonObject, DeclarationError> {
    let raw_is_empty = match meta.get("parameters_raw") {
        None | Some(serde_json::Value::Null) => true,
        Some(serde_json::Value::Object(raw)) => raw.is_empty(),
        Some(_) => false,
    };
    if raw_is_empty
        && let Some(list) = meta.get("parameters").and_then(|v| v.as_array())
        && !list.is_empty()
    {
        return Ok(crate::plugin::parameter_list::schema_from_parameter_list(
            list,
        )?);
    }
    let mut schema = match meta.get("parameters_raw") {
        Some(serde_json::Value::Object(raw))
            if raw.get("type").is_some() || raw.contains_key("properties") =>
        {
            raw.clone()
        }
        Some(serde_json::Value::Object(properties)) => {
            let mut required = Vec::new();
            let mut props = JsonObject::new();
            for (key, value) in properties {
                let mut value = value.clone();
                if let Some(object) = value.as_object_mut()
                    && object
                        .remove("required")
                        .and_then(|r| r.as_bool())
                        .unwrap_or(false)
                {
                    required.push(serde_json::Value::from(key.clone()));
                }
                props.insert(key.clone(), value);
            }
            let mut schema = JsonObject::new();
            schema.insert("type".into(), "object".into());
            schema.insert("properties".into(), props.into());
            schema.insert("required".into(), required.into());
            schema
        }
        Some(serde_json::Value::Null) | None if legacy_action => {
            let mut props = JsonObject::new();
            if let Some(params) = meta.get("action_parameters").and_then(|v| v.as_object()) {
                for (key, description) in params {
                    let description = description
                        .as_str()
                        .filter(|d| !d.is_empty())
                        .unwrap_or("Legacy Action parameter");
                    props.insert(
                        key.clone(),
                        serde_json::json!({"type": "string", "description": description}),
                    );
                }
            }
            let mut schema = JsonObject::new();
            schema.insert("type".into(), "object".into());
            schema.insert("properties".into(), props.into());
            schema
        }
        Some(serde_json::Value::Null) | None => {
            let mut schema = JsonObject::new();
            schema.insert("type".into(), "object".into());
            schema.insert("properties".into(), JsonObject::new().into());
            schema
        }
        Some(other) => return Err(DeclarationError::ParametersRaw(other.clone())),
    };
    schema.remove("$schema");
    if schema.get("type").and_then(|t| t.as_str()) == Some("object")
        && !schema.contains_key("required")
    {
        schema.insert("required".into(), Vec::<serde_json::Value>::new().into());
    }
    Ok(schema)
}
