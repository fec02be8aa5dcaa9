//! The runner-level description of a plugin: what the SDK hands to the runner.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;
use maitool_protocol::hook::HookResponse;
use maitool_protocol::wire::EncodedValue;
use maitool_protocol::wire::message_flow::{
    CommandArgs, CommandReply, EventArgs, EventResultPayload,
};
use maitool_protocol::wire::methods::ComponentDeclaration;
use maitool_protocol::{JsonObject, ToolExecutionResult};
use serde_json::Value;

use crate::{HostClient, InvocationContext};

/// Runs one component (a tool or a converted legacy Action).
pub trait ComponentHandler: Send + Sync + 'static {
    /// Runs the component with the invocation's arguments, a map still encoded as it arrived
    /// (decode it straight into the argument type). Failures are results with
    /// `success = false`; a panic is caught by the runner and reported the same way.
    fn call(
        &self,
        args: EncodedValue,
        ctx: InvocationContext,
    ) -> BoxFuture<'static, ToolExecutionResult>;
}

/// Runs one hook handler (a `HOOK_HANDLER` component, invoked with `plugin.invoke_hook`).
pub trait HookComponent: Send + Sync + 'static {
    /// Runs the handler for the hook `hook` with its `kwargs` (without `hook_name`). A
    /// failure is a response with `success = false`; a panic is caught by the runner and
    /// reported the same way.
    fn call(
        &self,
        hook: String,
        kwargs: JsonObject,
        ctx: InvocationContext,
    ) -> BoxFuture<'static, HookResponse>;
}

/// Runs one plugin API (an `API` component, invoked with `plugin.invoke_api` for another
/// plugin's `api.call`).
pub trait ApiComponent: Send + Sync + 'static {
    /// Runs the API with the caller's `args`: its value, or why it failed (the caller reads
    /// `{success: false, error}`).
    fn call(
        &self,
        args: JsonObject,
        ctx: InvocationContext,
    ) -> BoxFuture<'static, Result<Value, String>>;
}

/// Runs a command a chat message matched (`plugin.invoke_command`).
pub trait CommandHandler: Send + Sync + 'static {
    /// Runs the command with the message and the pattern's groups. An error is the
    /// command's failure with that text (MaiBot's raised exception); a panic is caught by
    /// the runner and reported the same way.
    fn call(
        &self,
        args: CommandArgs,
        ctx: InvocationContext,
    ) -> BoxFuture<'static, Result<CommandReply, String>>;
}

/// Runs an event handler (`plugin.emit_event`).
pub trait EventHandler: Send + Sync + 'static {
    /// Handles the event: whether the message goes on, and the message changed. An error (or
    /// a panic) is the handler's failure; the message goes on.
    fn call(
        &self,
        args: EventArgs,
        ctx: InvocationContext,
    ) -> BoxFuture<'static, Result<EventResultPayload, String>>;
}

/// What runs a component, by its kind.
#[derive(Clone)]
pub enum Handler {
    /// A tool or a converted legacy Action (`plugin.invoke_tool`, `plugin.invoke_action`).
    Tool(Arc<dyn ComponentHandler>),
    /// A command (`plugin.invoke_command`).
    Command(Arc<dyn CommandHandler>),
    /// An event handler (`plugin.emit_event`).
    Event(Arc<dyn EventHandler>),
    /// Nothing to run: a component the host never invokes (a receiving message gateway,
    /// which the plugin uses to hand the host messages).
    None,
}

impl fmt::Debug for Handler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Handler::Tool(_) => "Handler::Tool",
            Handler::Command(_) => "Handler::Command",
            Handler::Event(_) => "Handler::Event",
            Handler::None => "Handler::None",
        })
    }
}

/// A plugin's lifecycle hooks and configuration handling.
pub trait PluginHooks: Send + Sync + 'static {
    /// Validates and applies a configuration (the operator's values, to be merged over the
    /// plugin's defaults). An error makes the plugin fail to load, alone.
    fn configure(&self, config: &JsonObject) -> Result<(), String>;

    /// Called once after configuration, before the plugin's tools are exposed. `data_dir` is
    /// the plugin's private directory (absolute) when the host gave it one.
    fn on_load(
        &self,
        host: HostClient,
        data_dir: Option<Arc<Path>>,
    ) -> BoxFuture<'static, Result<(), String>>;

    /// Called when the plugin is unloaded (shutdown, reload, failed load).
    fn on_unload(&self) -> BoxFuture<'static, ()>;

    /// Called when the configuration changed while loaded. For scope `self` the runner has
    /// already applied it through [`PluginHooks::configure`].
    fn on_config_update(
        &self,
        scope: String,
        config: JsonObject,
        version: String,
    ) -> BoxFuture<'static, Result<(), String>>;
}

/// One component and its handler.
#[derive(Clone)]
pub struct ComponentSpec {
    /// The declaration sent to the host.
    pub declaration: ComponentDeclaration,
    /// What runs it.
    pub handler: Handler,
}

impl fmt::Debug for ComponentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ComponentSpec")
            .field("declaration", &self.declaration)
            .finish_non_exhaustive()
    }
}

/// A hook handler and what runs it.
#[derive(Clone)]
pub struct HookHandlerSpec {
    /// The declaration sent to the host (type `HOOK_HANDLER`, the hook, mode, order,
    /// error policy and timeout in its metadata).
    pub declaration: ComponentDeclaration,
    /// What runs it.
    pub handler: Arc<dyn HookComponent>,
}

impl fmt::Debug for HookHandlerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookHandlerSpec")
            .field("declaration", &self.declaration)
            .finish_non_exhaustive()
    }
}

/// An API and what runs it.
#[derive(Clone)]
pub struct ApiSpec {
    /// The declaration sent to the host (type `API`, with `version`, `public` and
    /// `handler_name` in its metadata).
    pub declaration: ComponentDeclaration,
    /// The name `plugin.invoke_api` names it by (the metadata's `handler_name`).
    pub handler_name: String,
    /// What runs it.
    pub handler: Arc<dyn ApiComponent>,
}

impl fmt::Debug for ApiSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiSpec")
            .field("declaration", &self.declaration)
            .finish_non_exhaustive()
    }
}

/// A plugin as the runner sees it.
#[derive(Clone)]
pub struct PluginSpec {
    /// Plugin id, e.g. `examples.dice`.
    pub id: String,
    /// Semver version.
    pub version: String,
    /// Display name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Capabilities the plugin needs; the operator grants them in the host config.
    pub capabilities_required: Vec<String>,
    /// Components.
    pub components: Vec<ComponentSpec>,
    /// Hook handlers.
    pub hook_handlers: Vec<HookHandlerSpec>,
    /// APIs offered to other plugins.
    pub apis: Vec<ApiSpec>,
    /// Default configuration.
    pub default_config: JsonObject,
    /// JSON Schema of the configuration.
    pub config_schema: JsonObject,
    /// Lifecycle hooks.
    pub hooks: Arc<dyn PluginHooks>,
}

impl fmt::Debug for PluginSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PluginSpec")
            .field("id", &self.id)
            .field("version", &self.version)
            .field("components", &self.components)
            .finish_non_exhaustive()
    }
}
