//! A plugin: identity, components, configuration and lifecycle hooks.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::JsonObject;
use maitool_runner::{ComponentSpec, HostClient, PluginHooks, PluginSpec};

use crate::config::ConfigSlot;
use crate::{Action, ConfigUpdate, LoadContext, PluginConfig, Tool};

/// An error from a lifecycle hook; the plugin fails to load (or rejects the update) with
/// this message. Any `std::error::Error` converts into it.
#[derive(Debug, Clone)]
pub struct PluginError(String);

impl PluginError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        PluginError(message.into())
    }
}

impl std::fmt::Display for PluginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

// Deliberately not `std::error::Error` (see `ToolError`), so any error converts with `?`.
impl<E: std::error::Error> From<E> for PluginError {
    fn from(err: E) -> Self {
        PluginError(err.to_string())
    }
}

type LoadHook = dyn Fn(LoadContext) -> BoxFuture<'static, Result<(), PluginError>> + Send + Sync;
type UnloadHook = dyn Fn() -> BoxFuture<'static, ()> + Send + Sync;
type UpdateHook = dyn Fn(ConfigUpdate) -> BoxFuture<'static, Result<(), PluginError>> + Send + Sync;

enum Component {
    Tool(Tool),
    Action(Action),
}

/// A plugin declaration.
pub struct Plugin {
    id: String,
    version: String,
    name: String,
    description: String,
    capabilities: Vec<String>,
    components: Vec<Component>,
    config: ConfigSlot,
    on_load: Option<Arc<LoadHook>>,
    on_unload: Option<Arc<UnloadHook>>,
    on_config_update: Option<Arc<UpdateHook>>,
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin")
            .field("id", &self.id)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl Plugin {
    /// A plugin with an id (e.g. `author.plugin`) and a semver version.
    pub fn new(id: impl Into<String>, version: impl Into<String>) -> Self {
        let id = id.into();
        Plugin {
            name: id.clone(),
            id,
            version: version.into(),
            description: String::new(),
            capabilities: Vec::new(),
            components: Vec::new(),
            config: ConfigSlot::untyped(),
            on_load: None,
            on_unload: None,
            on_config_update: None,
        }
    }

    /// A display name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// A description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Declares a host capability the plugin needs (e.g. `send.text`). The operator must
    /// grant it in the host configuration; undeclared or ungranted calls are denied.
    pub fn capability(mut self, capability: impl Into<String>) -> Self {
        self.capabilities.push(capability.into());
        self
    }

    /// Adds a tool.
    pub fn tool(mut self, tool: Tool) -> Self {
        self.components.push(Component::Tool(tool));
        self
    }

    /// Adds a legacy Action (converted to a tool).
    pub fn action(mut self, action: Action) -> Self {
        self.components.push(Component::Action(action));
        self
    }

    /// Declares a typed configuration. The operator's TOML table for this plugin is merged
    /// over `C::default()` and validated at load; a bad configuration fails this plugin only.
    pub fn config<C: PluginConfig>(mut self) -> Self {
        self.config = ConfigSlot::typed::<C>();
        self
    }

    /// Runs after configuration, before the plugin's tools are exposed. An error fails the
    /// load of this plugin.
    pub fn on_load<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(LoadContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), PluginError>> + Send + 'static,
    {
        self.on_load = Some(Arc::new(move |ctx| hook(ctx).boxed()));
        self
    }

    /// Runs when the plugin is unloaded.
    pub fn on_unload<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.on_unload = Some(Arc::new(move || hook().boxed()));
        self
    }

    /// Runs when the operator changed the plugin's configuration (already applied to the
    /// typed configuration for scope `self`).
    pub fn on_config_update<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(ConfigUpdate) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), PluginError>> + Send + 'static,
    {
        self.on_config_update = Some(Arc::new(move |update| hook(update).boxed()));
        self
    }

    pub(crate) fn into_spec(self) -> PluginSpec {
        let config = Arc::new(self.config);
        let mut components = Vec::with_capacity(self.components.len());
        for component in self.components {
            let spec = match component {
                Component::Tool(tool) => ComponentSpec {
                    declaration: tool.declaration(&self.id),
                    handler: tool.into_handler(config.clone()),
                },
                Component::Action(action) => ComponentSpec {
                    declaration: action.declaration(&self.id),
                    handler: action.into_handler(config.clone()),
                },
            };
            components.push(spec);
        }
        let hooks = Hooks {
            config: config.clone(),
            on_load: self.on_load,
            on_unload: self.on_unload,
            on_config_update: self.on_config_update,
        };
        PluginSpec {
            id: self.id,
            version: self.version,
            name: self.name,
            description: self.description,
            capabilities_required: self.capabilities,
            components,
            default_config: config.defaults.clone(),
            config_schema: config.schema.clone(),
            hooks: Arc::new(hooks),
        }
    }
}

struct Hooks {
    config: Arc<ConfigSlot>,
    on_load: Option<Arc<LoadHook>>,
    on_unload: Option<Arc<UnloadHook>>,
    on_config_update: Option<Arc<UpdateHook>>,
}

impl PluginHooks for Hooks {
    fn configure(&self, config: &JsonObject) -> Result<(), String> {
        self.config.apply(config)
    }

    fn on_load(
        &self,
        host: HostClient,
        data_dir: Option<Arc<Path>>,
    ) -> BoxFuture<'static, Result<(), String>> {
        let ctx = LoadContext::new(host, self.config.clone(), data_dir);
        match &self.on_load {
            Some(hook) => hook(ctx).map(|r| r.map_err(|e| e.to_string())).boxed(),
            None => std::future::ready(Ok(())).boxed(),
        }
    }

    fn on_unload(&self) -> BoxFuture<'static, ()> {
        match &self.on_unload {
            Some(hook) => hook(),
            None => std::future::ready(()).boxed(),
        }
    }

    fn on_config_update(
        &self,
        scope: String,
        config: JsonObject,
        version: String,
    ) -> BoxFuture<'static, Result<(), String>> {
        match &self.on_config_update {
            Some(hook) => hook(ConfigUpdate {
                scope,
                config,
                version,
            })
            .map(|r| r.map_err(|e| e.to_string()))
            .boxed(),
            None => std::future::ready(Ok(())).boxed(),
        }
    }
}
