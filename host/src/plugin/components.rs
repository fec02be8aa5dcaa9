//! The ComponentRegistry: every component every plugin registered, keyed by
//! `plugin_id.name`, with enable/disable state and chat filtering.

use super::chat_view::ChatView;
use super::invoke_args::ContextKeys;
use std::collections::HashSet;
use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};
use maitool_protocol::wire::methods::{ComponentDeclaration, names};
use maitool_protocol::{
    ChatScope, JsonObject, ProviderType, ToolAnnotation, ToolAvailabilityContext, ToolIcon,
    ToolSpec, Visibility,
};
use parking_lot::RwLock;

use super::PLUGIN_PROVIDER_NAME;

/// A component declaration the registry refuses; the runner gets the text as the reason of
/// its refused registration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DeclarationError {
    /// A component without a name.
    #[error("a component has an empty name")]
    EmptyName,
    /// A name outside the allowed alphabet or length.
    #[error("component name {name:?} must be 1-128 characters of [A-Za-z0-9_.-]")]
    BadName {
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
    ParameterList(#[from] super::parameter_list::ParameterListError),
    /// Two components of one plugin share a name.
    #[error("plugin {plugin_id} declares component {name} twice")]
    Duplicate {
        /// The plugin.
        plugin_id: String,
        /// The component.
        name: String,
    },
}

/// A component or tool name that names none, or more than one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComponentLookupError {
    /// No component has the name.
    #[error("no component named {0}")]
    NotFound(String),
    /// A bare name several plugins use.
    #[error("component name {name} is ambiguous: use one of {}", candidates.join(", "))]
    Ambiguous {
        /// The bare name.
        name: String,
        /// The full names it could mean.
        candidates: Vec<String>,
    },
    /// A plugin has no tool of that name.
    #[error("plugin {plugin_id} has no tool {name}")]
    NoSuchTool {
        /// The plugin.
        plugin_id: String,
        /// The tool name.
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
    /// True for a converted legacy Action.
    pub legacy_action: bool,
    /// The spec exposed to the registry, built once at registration.
    pub spec: Arc<ToolSpec>,
    /// The context keys its calls' arguments carry when its runner reads the context from
    /// the payload: those its parameters declare, or all of them for a legacy Action.
    pub(crate) context_keys: ContextKeys,
}

impl ComponentEntry {
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
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            || name.len() > 128
        {
            return Err(DeclarationError::BadName {
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
        let component_type = decl.component_type.trim().to_ascii_uppercase();
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
            legacy_action,
            spec: Arc::new(spec),
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
        return Ok(super::parameter_list::schema_from_parameter_list(list)?);
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

/// A tool its plugin marked unavailable.
#[derive(Debug, Clone)]
struct Unavailable {
    plugin_id: String,
    reason: String,
}

/// Operator toggles, kept apart from registrations so they survive runner restarts.
#[derive(Debug, Default, Clone)]
struct Toggle {
    disabled: bool,
    disabled_sessions: HashSet<String>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Registration order of plugins (first registered wins on a tool-name clash).
    plugin_order: Vec<String>,
    by_plugin: HashMap<String, Vec<Arc<ComponentEntry>>>,
    /// Tool name -> candidate entries in plugin order.
    by_tool_name: HashMap<String, Vec<Arc<ComponentEntry>>>,
    toggles: HashMap<String, Toggle>,
    /// Tools their plugin marked unavailable at run time (`tool.set_available`), by full
    /// name, with the plugin and its reason. Cleared when the plugin registers again.
    unavailable: HashMap<String, Unavailable>,
}

/// The host-side registry of plugin components.
#[derive(Debug, Default)]
pub struct ComponentRegistry {
    inner: RwLock<Inner>,
}

impl ComponentRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces a plugin's whole component set atomically: every declaration is validated
    /// first; on any error nothing changes. Returns the registered full names.
    pub fn register_plugin(
        &self,
        plugin_id: &str,
        declarations: &[ComponentDeclaration],
    ) -> Result<Vec<String>, DeclarationError> {
        let mut entries = Vec::with_capacity(declarations.len());
        let mut seen = HashSet::new();
        for decl in declarations {
            let entry = ComponentEntry::from_declaration(plugin_id, decl)?;
            if !seen.insert(entry.name.clone()) {
                return Err(DeclarationError::Duplicate {
                    plugin_id: plugin_id.to_owned(),
                    name: entry.name.clone(),
                });
            }
            entries.push(Arc::new(entry));
        }
        let names = entries.iter().map(|e| e.full_name.clone()).collect();
        let mut inner = self.inner.write();
        if !inner.plugin_order.iter().any(|p| p == plugin_id) {
            inner.plugin_order.push(plugin_id.to_owned());
        }
        for entry in &entries {
            if let Some(owner) = inner.by_tool_name.get(&entry.name).and_then(|c| c.first())
                && owner.plugin_id != plugin_id
            {
                tracing::warn!(
                    tool = %entry.name,
                    kept = %owner.full_name,
                    shadowed = %entry.full_name,
                    "duplicate plugin tool name: the first registered plugin's tool is kept"
                );
            }
        }
        inner.by_plugin.insert(plugin_id.to_owned(), entries);
        inner.forget_availability(plugin_id);
        inner.rebuild_index();
        Ok(names)
    }

    /// Removes every component of a plugin. Returns whether it had any.
    pub fn unregister_plugin(&self, plugin_id: &str) -> bool {
        let mut inner = self.inner.write();
        let had = inner
            .by_plugin
            .remove(plugin_id)
            .is_some_and(|e| !e.is_empty());
        inner.forget_availability(plugin_id);
        inner.rebuild_index();
        had
    }

    /// Enables or disables a component (`plugin_id.name`, or a bare tool name when unique),
    /// globally or for one session. Returns the full name affected.
    pub fn set_enabled(
        &self,
        name: &str,
        enabled: bool,
        session_id: Option<&str>,
    ) -> Result<String, ComponentLookupError> {
        let mut inner = self.inner.write();
        let full_name = inner.resolve(name)?;
        let toggle = inner.toggles.entry(full_name.clone()).or_default();
        match session_id {
            Some(session) if enabled => {
                toggle.disabled_sessions.remove(session);
            }
            Some(session) => {
                toggle.disabled_sessions.insert(session.to_owned());
            }
            None => toggle.disabled = !enabled,
        }
        Ok(full_name)
    }

    /// Every entry of a plugin.
    pub fn plugin_components(&self, plugin_id: &str) -> Vec<Arc<ComponentEntry>> {
        self.inner
            .read()
            .by_plugin
            .get(plugin_id)
            .cloned()
            .unwrap_or_default()
    }

    /// Every entry in registration order.
    pub fn all(&self) -> Vec<Arc<ComponentEntry>> {
        let inner = self.inner.read();
        inner
            .plugin_order
            .iter()
            .filter_map(|p| inner.by_plugin.get(p))
            .flatten()
            .cloned()
            .collect()
    }

    /// The first tool entry with this name that is enabled in `ctx` and whose plugin passes
    /// `is_live`.
    pub fn find_tool(
        &self,
        name: &str,
        ctx: &ToolAvailabilityContext,
        is_live: impl Fn(&str) -> bool,
    ) -> Option<Arc<ComponentEntry>> {
        self.find_tool_in(name, ChatView::from(ctx), is_live)
    }

    /// [`find_tool`](Self::find_tool) in the chat `ctx` reads.
    pub(crate) fn find_tool_in(
        &self,
        name: &str,
        ctx: ChatView<'_>,
        is_live: impl Fn(&str) -> bool,
    ) -> Option<Arc<ComponentEntry>> {
        let inner = self.inner.read();
        inner
            .by_tool_name
            .get(name)?
            .iter()
            .find(|entry| is_live(&entry.plugin_id) && inner.check_enabled(entry, ctx))
            .cloned()
    }

    /// The first tool entry named `name` of a plugin passing `is_live`, if it is hidden:
    /// declared, but offered to no one.
    pub fn hidden_tool(
        &self,
        name: &str,
        is_live: impl Fn(&str) -> bool,
    ) -> Option<Arc<ComponentEntry>> {
        let inner = self.inner.read();
        inner
            .by_tool_name
            .get(name)?
            .iter()
            .find(|entry| is_live(&entry.plugin_id))
            .filter(|entry| entry.visibility == Visibility::Hidden)
            .cloned()
    }

    /// The tool entry that owns `spec` (the same `Arc`, as [`find_tool`](Self::find_tool)
    /// handed it out), if it is still registered.
    pub fn tool_with_spec(&self, spec: &Arc<ToolSpec>) -> Option<Arc<ComponentEntry>> {
        let inner = self.inner.read();
        inner
            .by_tool_name
            .get(spec.name.as_str())?
            .iter()
            .find(|entry| Arc::ptr_eq(&entry.spec, spec))
            .cloned()
    }

    /// Tool specs enabled in `ctx`, first plugin wins per name.
    pub fn tool_specs(
        &self,
        ctx: &ToolAvailabilityContext,
        is_live: impl Fn(&str) -> bool,
    ) -> Vec<Arc<ToolSpec>> {
        let inner = self.inner.read();
        // foldhash rather than SipHash: one insert per listed tool.
        let mut seen = foldhash::HashSet::with_capacity_and_hasher(
            inner.by_tool_name.len(),
            Default::default(),
        );
        let mut specs = Vec::with_capacity(inner.by_tool_name.len());
        for plugin_id in &inner.plugin_order {
            if !is_live(plugin_id) {
                continue;
            }
            for entry in inner.by_plugin.get(plugin_id).into_iter().flatten() {
                if !entry.is_tool() || !inner.check_enabled(entry, ctx.into()) {
                    continue;
                }
                // Checked only when some tool is unavailable: listing stays one pass of
                // pointer copies otherwise.
                if !inner.unavailable.is_empty() && inner.unavailable.contains_key(&entry.full_name)
                {
                    continue;
                }
                // Clashes were warned about at registration; the first plugin wins.
                if !seen.insert(entry.name.as_str()) {
                    continue;
                }
                specs.push(Arc::clone(&entry.spec));
            }
        }
        specs
    }

    /// Every tool name any live plugin declares.
    pub fn tool_names(&self, is_live: impl Fn(&str) -> bool) -> Vec<String> {
        let inner = self.inner.read();
        inner
            .by_tool_name
            .iter()
            .filter(|(_, entries)| entries.iter().any(|e| is_live(&e.plugin_id)))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Whether a component is enabled globally (operator toggle and declaration).
    pub fn is_enabled(&self, full_name: &str) -> bool {
        let inner = self.inner.read();
        let toggled_off = inner.toggles.get(full_name).is_some_and(|t| t.disabled);
        let declared = inner
            .by_plugin
            .values()
            .flatten()
            .find(|e| e.full_name == full_name)
            .is_some_and(|e| e.declared_enabled);
        declared && !toggled_off
    }
}

impl ComponentRegistry {
    /// Marks the tool `name` of `plugin_id` available or not, as its plugin decided at run
    /// time. An unavailable tool is left out of listings, and a call to it is refused with
    /// `reason`. Returns whether the state changed; an error if the plugin has no such tool.
    pub fn set_available(
        &self,
        plugin_id: &str,
        name: &str,
        available: bool,
        reason: &str,
    ) -> Result<bool, ComponentLookupError> {
        let mut inner = self.inner.write();
        let Some(entry) = inner
            .by_plugin
            .get(plugin_id)
            .into_iter()
            .flatten()
            .find(|entry| entry.name == name && entry.is_tool())
        else {
            return Err(ComponentLookupError::NoSuchTool {
                plugin_id: plugin_id.to_owned(),
                name: name.to_owned(),
            });
        };
        let full_name = entry.full_name.clone();
        if available {
            return Ok(inner.unavailable.remove(&full_name).is_some());
        }
        let marked = Unavailable {
            plugin_id: plugin_id.to_owned(),
            reason: reason.to_owned(),
        };
        let previous = inner.unavailable.insert(full_name, marked);
        Ok(previous.is_none_or(|previous| previous.reason != reason))
    }

    /// Why the component `full_name` is unavailable, if its plugin marked it so.
    pub fn unavailable_reason(&self, full_name: &str) -> Option<String> {
        let inner = self.inner.read();
        if inner.unavailable.is_empty() {
            return None;
        }
        inner
            .unavailable
            .get(full_name)
            .map(|marked| marked.reason.clone())
    }
}

impl Inner {
    fn forget_availability(&mut self, plugin_id: &str) {
        if !self.unavailable.is_empty() {
            self.unavailable
                .retain(|_, marked| marked.plugin_id != plugin_id);
        }
    }

    fn rebuild_index(&mut self) {
        let mut index: HashMap<String, Vec<Arc<ComponentEntry>>> = HashMap::new();
        for plugin_id in &self.plugin_order {
            for entry in self.by_plugin.get(plugin_id).into_iter().flatten() {
                if entry.is_tool() {
                    index
                        .entry(entry.name.clone())
                        .or_default()
                        .push(entry.clone());
                }
            }
        }
        self.by_tool_name = index;
    }

    fn resolve(&self, name: &str) -> Result<String, ComponentLookupError> {
        let all = || self.by_plugin.values().flatten();
        if all().any(|e| e.full_name == name) {
            return Ok(name.to_owned());
        }
        let matches: Vec<&Arc<ComponentEntry>> = all().filter(|e| e.name == name).collect();
        match matches.as_slice() {
            [one] => Ok(one.full_name.clone()),
            [] => Err(ComponentLookupError::NotFound(name.to_owned())),
            many => Err(ComponentLookupError::Ambiguous {
                name: name.to_owned(),
                candidates: many.iter().map(|e| e.full_name.clone()).collect(),
            }),
        }
    }

    /// MaiBot's `check_component_enabled`, with the chat scope honoured (quirk Q3).
    fn check_enabled(&self, entry: &ComponentEntry, ctx: ChatView<'_>) -> bool {
        if !entry.declared_enabled {
            return false;
        }
        if !self.toggles.is_empty()
            && let Some(toggle) = self.toggles.get(&entry.full_name)
            && (toggle.disabled
                || (!ctx.session_id.is_empty()
                    && toggle.disabled_sessions.contains(ctx.session_id)))
        {
            return false;
        }
        match (entry.chat_scope, ctx.is_group_chat) {
            (ChatScope::Group, Some(false)) | (ChatScope::Private, Some(true)) => return false,
            _ => {}
        }
        if !entry.allowed_sessions.is_empty() {
            let platform_group = format!("{}:{}", ctx.platform, ctx.group_id);
            let candidates = [ctx.session_id, ctx.group_id, platform_group.as_str()];
            if !candidates
                .iter()
                .any(|c| !c.is_empty() && entry.allowed_sessions.contains(*c))
            {
                return false;
            }
        }
        true
    }
}
