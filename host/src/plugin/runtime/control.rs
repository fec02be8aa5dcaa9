//! The runtime as the capabilities see it ([`PluginControl`]): `component.*` and `api.*`.

use std::sync::Arc;

use futures::future::BoxFuture;
use maitool_protocol::JsonObject;
use serde_json::Value;

use super::PluginRuntime;
use crate::plugin::api_call::call_api;
use crate::plugin::apis::{ApiEntry, ApiRegistry};
use crate::plugin::capabilities::PluginControl;
use crate::plugin::components::ComponentRegistry;
use crate::plugin::runtime_error::ReloadError;
use crate::plugin::status::RunnerStatus;
use crate::plugin::toggles::ToggleError;

impl PluginControl for PluginRuntime {
    fn status(&self) -> Vec<RunnerStatus> {
        PluginRuntime::status(self)
    }

    fn components(&self) -> &ComponentRegistry {
        PluginRuntime::components(self)
    }

    fn registered_config(&self, plugin_id: &str) -> Option<crate::plugin::RegisteredConfig> {
        PluginRuntime::registered_config(self, plugin_id)
    }

    fn set_component_enabled<'a>(
        &'a self,
        name: &'a str,
        enabled: bool,
        session: Option<&'a str>,
    ) -> BoxFuture<'a, Result<String, ToggleError>> {
        Box::pin(PluginRuntime::set_component_enabled(
            self, name, enabled, session,
        ))
    }

    fn apis(&self) -> &ApiRegistry {
        PluginRuntime::apis(self)
    }

    fn call_api(
        self: Arc<Self>,
        api: Arc<ApiEntry>,
        args: JsonObject,
    ) -> BoxFuture<'static, Value> {
        Box::pin(async move { call_api(&self.shared, &api, args).await })
    }

    fn reload_plugin(
        self: Arc<Self>,
        plugin_id: String,
    ) -> BoxFuture<'static, Result<String, ReloadError>> {
        Box::pin(async move { PluginRuntime::reload_plugin(&self, &plugin_id).await })
    }
}
