//! What a call of a name that is no tool is told when the name is one of a plugin's other
//! components: a hook handler, an API, a command or an event handler.

use maitool_protocol::ToolExecutionResult;

use super::PluginToolProvider;
use crate::plugin::components::kind_phrase;

/// The `error_code` of a call to a component that is not a tool.
const NOT_A_TOOL_CODE: &str = "E_NOT_A_TOOL";

impl PluginToolProvider {
    /// Why `name`, which no live plugin declares as a tool, cannot be called as one; `None`
    /// when no plugin knows the name at all.
    pub(super) fn not_a_tool(&self, name: &str) -> Option<ToolExecutionResult> {
        let runtime = &self.runtime;
        // Hook handlers and APIs first: they carry their own description (the hook, its mode
        // and who runs it; the API's key and who may call it), which the component
        // registry's generic trigger cannot give.
        let (plugin_id, message) = if let Some(handler) = runtime.hooks.find(name) {
            let message = format!(
                "{name} is not a tool: plugin {} declares it as a {}",
                handler.plugin_id,
                handler.describe()
            );
            (handler.plugin_id.clone(), message)
        } else if let Some(api) = runtime.apis.named(name) {
            let message = format!(
                "{name} is not a tool: it is {}, a {}; plugins call APIs with api.call",
                api.registry_key,
                api.describe()
            );
            (api.plugin_id.clone(), message)
        } else {
            let other = runtime
                .components
                .non_tool(name, |plugin| runtime.is_live(plugin))?;
            let message = format!(
                "{name} is not a tool: it is {} of plugin {}, which runs {}",
                kind_phrase(&other.component_type),
                other.plugin_id,
                other.trigger.describe()
            );
            (other.plugin_id.clone(), message)
        };
        Some(
            ToolExecutionResult::failure(name, message)
                .with_metadata("plugin_id", plugin_id)
                .with_metadata("error_code", NOT_A_TOOL_CODE),
        )
    }
}
