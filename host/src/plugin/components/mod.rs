//! The ComponentRegistry: every component every plugin registered, keyed by
//! `plugin_id.name`, with enable/disable state and chat filtering. One entry and its
//! declaration's checks are `entry.rs`.

mod entry;
mod message_components;
mod order;
mod trigger;

pub use entry::{ComponentEntry, DeclarationError};
pub(crate) use order::{Rank, UNRANKED};
pub use trigger::{CommandTrigger, EventTrigger, Trigger, event_source, kind_phrase};

use super::chat_view::ChatView;
use std::collections::HashSet;
use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};
use maitool_protocol::wire::methods::ComponentDeclaration;
use maitool_protocol::{ChatScope, ProviderType, ToolAvailabilityContext, ToolSpec};

use crate::tool_name::{self, Origin};
use parking_lot::RwLock;

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

/// A tool entry under the name the registry exposes it as.
#[derive(Debug, Clone)]
pub struct ExposedTool {
    /// The component.
    pub entry: Arc<ComponentEntry>,
    /// Its spec as listed: the entry's own, or a copy under the name it was given because an
    /// earlier plugin declares a tool of its name (`plugin_<plugin id>_<name>`, with
    /// [`ORIGINAL_NAME_KEY`](crate::tool_name::ORIGINAL_NAME_KEY) in its metadata).
    pub spec: Arc<ToolSpec>,
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
    /// The order plugins are listed in (the first keeps a tool name; later ones' tools of
    /// that name are renamed): the configuration's, then registration's (`order.rs`).
    plugin_order: order::PluginOrder,
    by_plugin: HashMap<String, Vec<Arc<ComponentEntry>>>,
    /// Exposed tool name -> its tool.
    by_tool_name: HashMap<String, ExposedTool>,
    /// Full name -> the spec of a tool exposed under another name than its own, because an
    /// earlier plugin has its name. Empty unless two plugins clash.
    renamed: HashMap<String, Arc<ToolSpec>>,
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
    /// first; on any error nothing changes. Returns the registered full names. A plugin
    /// registered here for the first time is listed after those registered before it.
    pub fn register_plugin(
        &self,
        plugin_id: &str,
        declarations: &[ComponentDeclaration],
    ) -> Result<Vec<String>, DeclarationError> {
        self.register_ranked(plugin_id, UNRANKED, declarations)
    }

    /// As [`register_plugin`](Self::register_plugin), a new plugin placed by `rank` (its
    /// runner's place in the configuration) rather than by when it registered.
    pub(crate) fn register_ranked(
        &self,
        plugin_id: &str,
        rank: Rank,
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
        inner.plugin_order.place(plugin_id, rank);
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

    /// The full name `name` means (`plugin_id.name`, or a bare name when unique).
    pub fn resolve_name(&self, name: &str) -> Result<String, ComponentLookupError> {
        self.inner.read().resolve(name)
    }

    /// Replaces every operator toggle with `disabled`, each a full name and `None` (off
    /// everywhere) or the session it is off in: a shared store's toggles, read again after
    /// another host changed one. Components need not be registered yet.
    pub fn replace_toggles(&self, disabled: impl IntoIterator<Item = (String, Option<String>)>) {
        let mut toggles: HashMap<String, Toggle> = HashMap::new();
        for (full_name, session) in disabled {
            let toggle = toggles.entry(full_name).or_default();
            match session {
                Some(session) => {
                    toggle.disabled_sessions.insert(session);
                }
                None => toggle.disabled = true,
            }
        }
        self.inner.write().toggles = toggles;
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

    /// Every entry, in plugin listing order (`order.rs`).
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

    /// The tool exposed as `name`, if it is enabled in `ctx` and its plugin passes `is_live`.
    pub fn find_tool(
        &self,
        name: &str,
        ctx: &ToolAvailabilityContext,
        is_live: impl Fn(&str) -> bool,
    ) -> Option<Arc<ComponentEntry>> {
        self.find_tool_in(name, ChatView::from(ctx), is_live)
            .map(|tool| tool.entry)
    }

    /// [`find_tool`](Self::find_tool) in the chat `ctx` reads, with the spec it is exposed
    /// with.
    pub(crate) fn find_tool_in(
        &self,
        name: &str,
        ctx: ChatView<'_>,
        is_live: impl Fn(&str) -> bool,
    ) -> Option<ExposedTool> {
        let inner = self.inner.read();
        let tool = inner.by_tool_name.get(name)?;
        (is_live(&tool.entry.plugin_id) && inner.check_enabled(&tool.entry, ctx))
            .then(|| tool.clone())
    }

    /// The tool exposed as `name`, of a plugin passing `is_live`, whatever the chat: what a
    /// refused call is told about.
    pub fn declared_tool(
        &self,
        name: &str,
        is_live: impl Fn(&str) -> bool,
    ) -> Option<Arc<ComponentEntry>> {
        let inner = self.inner.read();
        let tool = inner.by_tool_name.get(name)?;
        is_live(&tool.entry.plugin_id).then(|| Arc::clone(&tool.entry))
    }

    /// The tool entry that owns `spec` (the same `Arc`, as `find_tool_in`
    /// handed it out), if it is still registered under that name.
    pub fn tool_with_spec(&self, spec: &Arc<ToolSpec>) -> Option<Arc<ComponentEntry>> {
        let inner = self.inner.read();
        let tool = inner.by_tool_name.get(&spec.name)?;
        Arc::ptr_eq(&tool.spec, spec).then(|| Arc::clone(&tool.entry))
    }

    /// Tool specs enabled in `ctx`, in plugin listing order (`order.rs`), each under the name it is
    /// exposed as.
    pub fn tool_specs(
        &self,
        ctx: &ToolAvailabilityContext,
        is_live: impl Fn(&str) -> bool,
    ) -> Vec<Arc<ToolSpec>> {
        let inner = self.inner.read();
        let mut specs = Vec::with_capacity(inner.by_tool_name.len());
        for plugin_id in inner.plugin_order.iter() {
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
                let spec = match inner.renamed.is_empty() {
                    true => &entry.spec,
                    false => inner.renamed.get(&entry.full_name).unwrap_or(&entry.spec),
                };
                specs.push(Arc::clone(spec));
            }
        }
        specs
    }

    /// Every tool name any live plugin declares, as exposed.
    pub fn tool_names(&self, is_live: impl Fn(&str) -> bool) -> Vec<String> {
        let inner = self.inner.read();
        inner
            .by_tool_name
            .iter()
            .filter(|(_, tool)| is_live(&tool.entry.plugin_id))
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
    /// Whether the component `full_name` is enabled globally and, when `session` is given,
    /// not disabled for that session: what a hook handler's dispatch asks.
    pub fn is_enabled_in_session(&self, full_name: &str, session: Option<&str>) -> bool {
        if !self.is_enabled(full_name) {
            return false;
        }
        let Some(session) = session else {
            return true;
        };
        let inner = self.inner.read();
        !inner
            .toggles
            .get(full_name)
            .is_some_and(|toggle| toggle.disabled_sessions.contains(session))
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

    /// Indexes every tool under the name it is exposed as: its own, or, when a plugin
    /// registered earlier declares a tool of that name, MaiBot 1.3's source-prefixed name
    /// (`tool_name.rs`). MaiBot's plugin runtime drops such a tool; its registry renames
    /// duplicates only between providers.
    fn rebuild_index(&mut self) {
        let tools: Vec<&Arc<ComponentEntry>> = self
            .plugin_order
            .iter()
            .filter_map(|plugin_id| self.by_plugin.get(plugin_id))
            .flatten()
            .filter(|entry| entry.is_tool())
            .collect();
        let declared: HashSet<&str> = tools.iter().map(|entry| entry.name.as_str()).collect();
        let mut index: HashMap<String, ExposedTool> = HashMap::with_capacity(tools.len());
        let mut renamed = HashMap::new();
        for entry in &tools {
            if !index.contains_key(&entry.name) {
                let tool = ExposedTool {
                    entry: Arc::clone(entry),
                    spec: Arc::clone(&entry.spec),
                };
                index.insert(entry.name.clone(), tool);
                continue;
            }
            let origin = Origin {
                kind: ProviderType::Plugin.as_str(),
                provider: crate::plugin::PLUGIN_PROVIDER_NAME,
                source: &entry.plugin_id,
            };
            let taken = |name: &str| declared.contains(name) || index.contains_key(name);
            let Some(name) = tool_name::renamed(origin, &entry.name, taken) else {
                tracing::warn!(tool = %entry.full_name, "no free name for a duplicate plugin tool; it is not offered");
                continue;
            };
            let owner = &index[&entry.name].entry.full_name;
            tracing::info!(tool = %entry.full_name, kept = %owner, renamed = %name, "duplicate plugin tool name: the first registered plugin keeps it, this one is offered as {name}");
            let mut spec = (*entry.spec).clone();
            spec.metadata.insert(
                tool_name::ORIGINAL_NAME_KEY.into(),
                entry.name.clone().into(),
            );
            spec.name = name.clone();
            let spec = Arc::new(spec);
            renamed.insert(entry.full_name.clone(), Arc::clone(&spec));
            index.insert(
                name,
                ExposedTool {
                    entry: Arc::clone(entry),
                    spec,
                },
            );
        }
        self.by_tool_name = index;
        self.renamed = renamed;
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
        // MaiBot 1.3: a platform-restricted tool needs a context on one of its platforms; a
        // context without a platform does not bypass the restriction.
        if !entry.platforms.admits(ctx.platform) {
            return false;
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

#[cfg(test)]
mod tests;
