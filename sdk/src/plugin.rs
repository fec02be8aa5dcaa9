//! A plugin: identity, components, configuration and lifecycle hooks.

use std::any::TypeId;
use std::future::Future;
use std::path::Path;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::JsonObject;
use maitool_runner::{ApiSpec, ComponentSpec, Handler, HookHandlerSpec, PluginHooks, PluginSpec};
use parking_lot::RwLock;

use crate::api::Api;
use crate::config::ConfigSlot;
use crate::hook::HookHandler;
use crate::{
    Action, Command, ConfigUpdate, EventHandler, HostClient, PluginConfig, PluginContext, Tool,
};

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

type LoadHook = dyn Fn(PluginContext) -> BoxFuture<'static, Result<(), PluginError>> + Send + Sync;
type UnloadHook = dyn Fn() -> BoxFuture<'static, ()> + Send + Sync;
/// The typed `on_config_update` hook, given the context and the configuration version.
type UpdateHook =
    dyn Fn(PluginContext, String) -> BoxFuture<'static, Result<(), PluginError>> + Send + Sync;

enum Component {
    Tool(Tool),
    Action(Action),
    Command(Command),
    EventHandler(EventHandler),
    Gateway(String),
}

/// A plugin: an id and a version, the tools (and legacy Actions) it offers, the commands and
/// event handlers that answer chat messages, the host capabilities it needs, its typed
/// configuration and its lifecycle hooks.
///
/// One runner executable hosts one or more plugins: build them in `main` and pass them to
/// [`run`](crate::run).
///
/// ```no_run
/// use maitool_sdk::prelude::*;
///
/// #[maitool_sdk::args]
/// struct EchoArgs {
///     /// What to say back.
///     text: String,
/// }
///
/// fn main() {
///     let echo = Plugin::new("examples.echo", "1.0.0")
///         .name("Echo")
///         .description("Says things back.")
///         .capability("send.text")
///         .tool(Tool::new("echo", "Say the text back.", |a: EchoArgs, _ctx: ToolContext| async move {
///             Ok(ToolOutput::text(a.text))
///         }))
///         .on_load(|ctx: PluginContext| async move {
///             maitool_sdk::log::info!(plugin = ctx.plugin_id(), "ready");
///             Ok(())
///         })
///         .on_unload(|| async { maitool_sdk::log::info!("bye") });
///     maitool_sdk::run([echo]);
/// }
/// ```
pub struct Plugin {
    id: String,
    version: String,
    name: String,
    description: String,
    capabilities: Vec<String>,
    components: Vec<Component>,
    hook_handlers: Vec<HookHandler>,
    apis: Vec<Api>,
    config: ConfigSlot,
    on_load: Option<Arc<LoadHook>>,
    on_unload: Option<Arc<UnloadHook>>,
    on_config_update: Option<Arc<UpdateHook>>,
    /// The configuration type `on_config_update` takes, checked against `config` at load.
    update_type: Option<(TypeId, &'static str)>,
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
            hook_handlers: Vec::new(),
            apis: Vec::new(),
            config: ConfigSlot::untyped(),
            on_load: None,
            on_unload: None,
            on_config_update: None,
            update_type: None,
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

    /// Declares a host capability the plugin needs (e.g. `send.text`), or a whole family
    /// (`kv.*`). The operator must grant it in the host configuration, where ungranted calls
    /// are denied; the declaration tells the operator what to grant (`maitool plugins` shows
    /// it beside the grants) and a name the host does not serve is reported at load.
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

    /// Adds a command: it runs when a chat message matches its pattern or alias.
    pub fn command(mut self, command: Command) -> Self {
        self.components.push(Component::Command(command));
        self
    }

    /// Adds an event handler: it runs at every event of its type.
    pub fn event_handler(mut self, handler: EventHandler) -> Self {
        self.components.push(Component::EventHandler(handler));
        self
    }

    /// Declares a receiving message gateway named `name`: the plugin bridges a chat
    /// platform, and hands the host the messages it receives there with
    /// [`HostClient::route_message`] (MaiBot's `@MessageGateway(route_type="receive")`).
    pub fn message_gateway(mut self, name: impl Into<String>) -> Self {
        self.components.push(Component::Gateway(name.into()));
        self
    }

    /// Adds a hook handler: code the host runs at one of MaiBot's named hooks (see
    /// [`HookHandler`]).
    pub fn hook_handler(mut self, handler: HookHandler) -> Self {
        self.hook_handlers.push(handler);
        self
    }

    /// Offers an API to other plugins (see [`Api`]).
    pub fn api(mut self, api: Api) -> Self {
        self.apis.push(api);
        self
    }

    /// Declares a typed configuration. The operator's TOML table for this plugin is merged
    /// over `C::default()` and validated at load; a bad configuration fails this plugin only.
    pub fn config<C: PluginConfig>(mut self) -> Self {
        self.config = ConfigSlot::typed::<C>();
        self
    }

    /// Runs after configuration, before the plugin's tools are exposed. An error fails the
    /// load of this plugin, alone, with its message.
    pub fn on_load<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(PluginContext) -> Fut + Send + Sync + 'static,
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

    /// Runs when the operator changed the plugin's configuration and the host reloaded it,
    /// with the new typed configuration (already in effect for handlers) and the plugin's
    /// context. `C` must be the type declared with [`config`](Self::config); otherwise the
    /// plugin fails to load with an error naming both types.
    ///
    /// A configuration that does not parse or validate never reaches the hook: the host
    /// keeps the previous one and reports why. An error from the hook refuses the update the
    /// same way: handlers go back to the previous configuration, and the operator reads the
    /// message.
    ///
    /// ```
    /// use maitool_sdk::prelude::*;
    ///
    /// #[maitool_sdk::config]
    /// #[derive(Default)]
    /// #[serde(default)]
    /// struct Settings {
    ///     greeting: String,
    /// }
    /// impl PluginConfig for Settings {}
    ///
    /// let plugin = Plugin::new("examples.greeter", "1.0.0")
    ///     .config::<Settings>()
    ///     .on_config_update(|update: ConfigUpdate<Settings>, ctx: PluginContext| async move {
    ///         maitool_sdk::log::info!(plugin = ctx.plugin_id(), greeting = %update.config.greeting, "new greeting");
    ///         Ok(())
    ///     });
    /// # let _ = plugin;
    /// ```
    pub fn on_config_update<C, F, Fut>(mut self, hook: F) -> Self
    where
        C: PluginConfig,
        F: Fn(ConfigUpdate<C>, PluginContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), PluginError>> + Send + 'static,
    {
        self.update_type = Some((TypeId::of::<C>(), std::any::type_name::<C>()));
        self.on_config_update = Some(Arc::new(move |ctx: PluginContext, version| {
            match ctx.config::<C>() {
                Some(config) => hook(ConfigUpdate { config, version }, ctx).boxed(),
                // Refused at load already; kept as an error rather than a panic.
                None => std::future::ready(Err(PluginError::new(format!(
                    "on_config_update takes configuration type {}, which the plugin does not declare",
                    std::any::type_name::<C>()
                ))))
                .boxed(),
            }
        }));
        self
    }

    pub(crate) fn into_spec(self) -> PluginSpec {
        let config = Arc::new(self.config);
        let mut components = Vec::with_capacity(self.components.len());
        for component in self.components {
            let spec = match component {
                Component::Tool(tool) => ComponentSpec {
                    declaration: tool.declaration(&self.id),
                    handler: Handler::Tool(tool.into_handler(config.clone())),
                },
                Component::Action(action) => ComponentSpec {
                    declaration: action.declaration(&self.id),
                    handler: Handler::Tool(action.into_handler(config.clone())),
                },
                Component::Command(command) => ComponentSpec {
                    declaration: command.declaration(&self.id),
                    handler: Handler::Command(command.into_handler(config.clone())),
                },
                Component::EventHandler(handler) => ComponentSpec {
                    declaration: handler.declaration(&self.id),
                    handler: Handler::Event(handler.into_handler(config.clone())),
                },
                Component::Gateway(name) => ComponentSpec {
                    declaration: crate::gateway::receiving_gateway(&name, &self.id),
                    handler: Handler::None,
                },
            };
            components.push(spec);
        }
        let hook_handlers = self
            .hook_handlers
            .into_iter()
            .map(|handler| HookHandlerSpec {
                declaration: handler.declaration(&self.id),
                handler: handler.into_component(config.clone()),
            })
            .collect();
        let apis = self
            .apis
            .into_iter()
            .map(|api| {
                let (declaration, handler_name) = api.declaration(&self.id);
                ApiSpec {
                    declaration,
                    handler_name,
                    handler: api.into_component(config.clone()),
                }
            })
            .collect();
        let config_mismatch = match (self.update_type, config.kind) {
            (Some((wanted, wanted_name)), declared) if declared.map(|d| d.0) != Some(wanted) => {
                Some(format!(
                    "on_config_update takes configuration type {wanted_name}, but the plugin \
                     declares {}",
                    match declared {
                        Some((_, name)) => format!("{name} (Plugin::config::<{name}>())"),
                        None => format!("none: add .config::<{wanted_name}>()"),
                    }
                ))
            }
            _ => None,
        };
        let hooks = Hooks {
            config: config.clone(),
            config_mismatch,
            context: RwLock::new(None),
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
            hook_handlers,
            apis,
            default_config: config.defaults.clone(),
            config_schema: config.schema.clone(),
            hooks: Arc::new(hooks),
        }
    }
}

struct Hooks {
    config: Arc<ConfigSlot>,
    /// Why the plugin cannot load: its `on_config_update` takes another configuration type.
    config_mismatch: Option<String>,
    /// The context of the last load, for `on_config_update` (the runner gives that hook no
    /// host client of its own).
    context: RwLock<Option<PluginContext>>,
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
        host: maitool_runner::HostClient,
        data_dir: Option<Arc<Path>>,
    ) -> BoxFuture<'static, Result<(), String>> {
        if let Some(mismatch) = &self.config_mismatch {
            return std::future::ready(Err(mismatch.clone())).boxed();
        }
        let ctx = PluginContext::new(HostClient::new(host), self.config.clone(), data_dir);
        *self.context.write() = Some(ctx.clone());
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
        _config: JsonObject,
        version: String,
    ) -> BoxFuture<'static, Result<(), String>> {
        // The typed hook is about the plugin's own configuration, which the runner has just
        // applied; other scopes have nothing typed to give it.
        if scope != "self" {
            return std::future::ready(Ok(())).boxed();
        }
        let context = self.context.read().clone();
        let config = Arc::clone(&self.config);
        match (&self.on_config_update, context) {
            (Some(hook), Some(ctx)) => hook(ctx, version)
                .map(move |outcome| {
                    // Refused: the host keeps the old settings, so the plugin must too.
                    outcome.map_err(|err| {
                        config.restore_previous();
                        err.to_string()
                    })
                })
                .boxed(),
            _ => std::future::ready(Ok(())).boxed(),
        }
    }
}
