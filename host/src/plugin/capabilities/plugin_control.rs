//! What `component.*` and `api.*` ask of the plugin runtime. The runtime implements it, and the service
//! holds it weakly, so the capabilities do not depend on the runtime that owns them.

use std::sync::Arc;

use futures::future::BoxFuture;

use maitool_protocol::JsonObject;
use serde_json::Value;

use crate::plugin::{
    ApiEntry, ApiRegistry, ComponentRegistry, RegisteredConfig, ReloadError, RunnerStatus,
    ToggleError,
};

/// The plugin runtime as `component.*` and `api.*` see it.
pub trait PluginControl: Send + Sync {
    /// Every runner's status, its plugins included.
    fn status(&self) -> Vec<RunnerStatus>;

    /// The configuration schema and defaults `plugin_id` registered.
    fn registered_config(&self, plugin_id: &str) -> Option<RegisteredConfig>;

    /// The registered components.
    fn components(&self) -> &ComponentRegistry;

    /// Switches component `name` on or off, globally or for `session`; returns its full
    /// name.
    fn set_component_enabled<'a>(
        &'a self,
        name: &'a str,
        enabled: bool,
        session: Option<&'a str>,
    ) -> BoxFuture<'a, Result<String, ToggleError>>;

    /// Every plugin's APIs.
    fn apis(&self) -> &ApiRegistry;

    /// Calls `api` with `args` on its plugin's runner; answers MaiBot's `{success, result}`
    /// or `{success: false, error}`.
    fn call_api(self: Arc<Self>, api: Arc<ApiEntry>, args: JsonObject)
    -> BoxFuture<'static, Value>;

    /// Reloads plugin `plugin_id`; returns what happened.
    fn reload_plugin(
        self: Arc<Self>,
        plugin_id: String,
    ) -> BoxFuture<'static, Result<String, ReloadError>>;
}
