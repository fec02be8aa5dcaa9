//! `PluginToolProvider`: the plugin runtime as one [`ToolProvider`].

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use maitool_protocol::wire::methods::InvokeResultPayload;
use maitool_protocol::{
    JsonObject, ProviderType, ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult,
    ToolInvocation, ToolSpec,
};
use serde_json::Value;

use super::PLUGIN_PROVIDER_NAME;
use super::components::ComponentEntry;
use super::result::normalize;
use super::runtime::RuntimeShared;
use crate::provider::{ProviderError, ToolProvider, ToolSetVersion};

/// Lists the tools of every ready runner and invokes them over RPC.
pub struct PluginToolProvider {
    runtime: Arc<RuntimeShared>,
}

impl std::fmt::Debug for PluginToolProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginToolProvider").finish_non_exhaustive()
    }
}

impl PluginToolProvider {
    pub(crate) fn new(runtime: Arc<RuntimeShared>) -> Self {
        Self { runtime }
    }
}

/// [`InvokePayload`](maitool_protocol::wire::methods::InvokePayload) by reference: the same
/// map on the wire, without copying the execution context for every call.
#[derive(serde::Serialize)]
struct InvokeRequest<'a> {
    component_name: &'a str,
    args: &'a JsonObject,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<&'a ToolExecutionContext>,
    #[serde(skip_serializing_if = "str::is_empty")]
    call_id: &'a str,
}

/// The invocation arguments: the model's arguments plus the context keys a MaiBot plugin
/// expects, each filled only where missing or empty; a legacy Action also gets `reasoning`
/// and the model's arguments as `action_data`.
///
/// Takes the arguments out of `invocation` (the provider owns it): only a legacy Action, which
/// sends them twice, pays for a copy.
fn invocation_args(
    invocation: &mut ToolInvocation,
    ctx: &ToolExecutionContext,
    legacy_action: bool,
) -> JsonObject {
    let action_data = legacy_action.then(|| invocation.arguments.clone());
    let mut args = std::mem::take(&mut invocation.arguments);
    let anchor = ctx
        .metadata
        .get("anchor_message")
        .and_then(Value::as_object);
    let anchor_text = |key: &str| {
        anchor
            .and_then(|a| a.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let stream = if ctx.stream_id.is_empty() {
        &ctx.session_id
    } else {
        &ctx.stream_id
    };
    let fills = [
        ("stream_id", stream.as_str()),
        ("chat_id", stream.as_str()),
        ("group_id", anchor_text("group_id").unwrap_or(&ctx.group_id)),
        ("user_id", anchor_text("user_id").unwrap_or(&ctx.user_id)),
        ("platform", ctx.platform.as_str()),
    ];
    for (key, value) in fills {
        let missing = match args.get(key) {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) => s.is_empty(),
            Some(Value::Bool(b)) => !b,
            _ => false,
        };
        if missing && !value.is_empty() {
            args.insert(key.to_owned(), value.into());
        }
    }
    if let Some(action_data) = action_data {
        let reasoning = if invocation.reasoning.is_empty() {
            &ctx.reasoning
        } else {
            &invocation.reasoning
        };
        args.insert("reasoning".into(), reasoning.clone().into());
        args.insert("action_data".into(), Value::Object(action_data));
    }
    args
}

#[async_trait]
impl ToolProvider for PluginToolProvider {
    fn provider_name(&self) -> &str {
        PLUGIN_PROVIDER_NAME
    }

    fn provider_type(&self) -> ProviderType {
        ProviderType::Plugin
    }

    async fn list_tools(
        &self,
        ctx: &ToolAvailabilityContext,
    ) -> Result<Vec<Arc<ToolSpec>>, ProviderError> {
        Ok(self
            .runtime
            .components
            .tool_specs(ctx, |plugin| self.runtime.is_live(plugin)))
    }

    async fn declared_tool_names(&self) -> Result<Vec<String>, ProviderError> {
        Ok(self
            .runtime
            .components
            .tool_names(|plugin| self.runtime.is_live(plugin)))
    }

    async fn available_tool(
        &self,
        name: &str,
        ctx: &ToolAvailabilityContext,
    ) -> Result<Option<Arc<ToolSpec>>, ProviderError> {
        Ok(self
            .runtime
            .components
            .find_tool(name, ctx, |plugin| self.runtime.is_live(plugin))
            .filter(|entry| entry.spec.enabled)
            .map(|entry| Arc::clone(&entry.spec)))
    }

    fn tool_set_version(&self) -> Option<ToolSetVersion> {
        Some(self.runtime.version.clone())
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        let availability = ctx.availability();
        let Some(entry) =
            self.runtime
                .components
                .find_tool(&invocation.tool_name, &availability, |plugin| {
                    self.runtime.is_live(plugin)
                })
        else {
            return Err(ProviderError::ToolNotFound(invocation.tool_name));
        };
        self.run(entry, invocation, ctx).await
    }

    async fn invoke_available(
        &self,
        spec: Arc<ToolSpec>,
        invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        // The registry has just checked availability in this context and got `spec`: the
        // entry that owns it is the one to run, without a second check.
        match self.runtime.components.tool_with_spec(&spec) {
            Some(entry) => self.run(entry, invocation, ctx).await,
            // Unloaded in between: look again, as a plain call would.
            None => self.invoke(invocation, ctx).await,
        }
    }
}

impl PluginToolProvider {
    /// Runs `entry` (the tool being invoked) on its plugin's runner.
    async fn run(
        &self,
        entry: Arc<ComponentEntry>,
        invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        let name = invocation.tool_name.clone();
        let Some(peer) = self.runtime.live_peer(&entry.plugin_id) else {
            return Ok(ToolExecutionResult::failure(
                &name,
                format!(
                    "tool {name} is unavailable: the runner of plugin {} is not running",
                    entry.plugin_id
                ),
            )
            .with_metadata("plugin_id", entry.plugin_id.clone()));
        };
        let mut invocation = invocation;
        let wrapper = usize::from(entry.legacy_action);
        if let Err(refusal) = super::nesting::check_arguments(&mut invocation.arguments, wrapper) {
            return Ok(ToolExecutionResult::failure(
                &name,
                format!("tool {name} failed: {refusal}"),
            )
            .with_metadata("plugin_id", entry.plugin_id.clone())
            .with_metadata("error_code", "E_BAD_PAYLOAD"));
        }
        let args = invocation_args(&mut invocation, ctx, entry.legacy_action);
        let payload = InvokeRequest {
            component_name: &entry.name,
            args: &args,
            context: Some(ctx),
            call_id: &invocation.call_id,
        };
        let timeout_ms = if entry.timeout_ms > 0 {
            entry.timeout_ms
        } else {
            self.runtime.config.default_tool_timeout_ms
        };
        let answer = peer
            .call::<_, InvokeResultPayload>(
                &entry.invoke_method,
                &entry.plugin_id,
                &payload,
                Duration::from_millis(timeout_ms),
            )
            .await;
        Ok(match answer {
            Ok(answer) => normalize(&name, &entry.plugin_id, answer),
            // An RPC error alone (`[E_TIMEOUT] request plugin.invoke_tool timed out ...`)
            // does not say which of many concurrent calls failed; name the tool, as the
            // registry and the MCP provider do.
            Err(err) => ToolExecutionResult::failure(&name, format!("tool {name} failed: {err}"))
                .with_metadata("plugin_id", entry.plugin_id.clone())
                .with_metadata("error_code", err.code.as_str().to_owned()),
        })
    }
}

#[cfg(test)]
mod tests {
    use maitool_protocol::{ToolExecutionContext, ToolInvocation};
    use serde_json::json;

    use super::invocation_args;

    #[test]
    fn context_keys_fill_only_missing_or_empty_arguments() {
        let mut invocation = ToolInvocation::new(
            "t",
            json!({"stream_id": "", "user_id": "explicit"})
                .as_object()
                .unwrap()
                .clone(),
        );
        invocation.reasoning = "because".into();
        let ctx = ToolExecutionContext {
            stream_id: "st1".into(),
            group_id: "g1".into(),
            user_id: "u1".into(),
            platform: "qq".into(),
            ..ToolExecutionContext::default()
        };
        let args = invocation_args(&mut invocation.clone(), &ctx, false);
        assert_eq!(args["stream_id"], "st1");
        assert_eq!(args["chat_id"], "st1");
        assert_eq!(args["user_id"], "explicit");
        assert_eq!(args["group_id"], "g1");
        assert_eq!(args["platform"], "qq");
        assert!(!args.contains_key("action_data"));

        let action = invocation_args(&mut invocation, &ctx, true);
        assert_eq!(action["reasoning"], "because");
        assert_eq!(
            action["action_data"],
            json!({"stream_id": "", "user_id": "explicit"})
        );
    }

    #[test]
    fn anchor_message_overrides_group_and_user() {
        let mut invocation = ToolInvocation::new("t", Default::default());
        let mut ctx = ToolExecutionContext {
            session_id: "s1".into(),
            group_id: "g1".into(),
            ..ToolExecutionContext::default()
        };
        ctx.metadata.insert(
            "anchor_message".into(),
            json!({"group_id": "g2", "user_id": "u2"}),
        );
        let args = invocation_args(&mut invocation, &ctx, false);
        assert_eq!(args["group_id"], "g2");
        assert_eq!(args["user_id"], "u2");
        assert_eq!(args["stream_id"], "s1");
    }
}

#[cfg(test)]
mod wire_shape_tests {
    use maitool_protocol::wire::methods::InvokePayload;
    use maitool_protocol::{ToolExecutionContext, ToolInvocation};
    use serde_json::json;

    use super::{InvokeRequest, invocation_args};

    #[test]
    fn the_borrowed_request_decodes_as_an_invoke_payload() {
        let mut invocation = ToolInvocation::new("t", json!({"x": 1}).as_object().unwrap().clone())
            .with_call_id("c1");
        let ctx = ToolExecutionContext {
            session_id: "s".into(),
            is_group_chat: Some(true),
            ..Default::default()
        };
        let args = invocation_args(&mut invocation, &ctx, false);
        let request = InvokeRequest {
            component_name: "t",
            args: &args,
            context: Some(&ctx),
            call_id: "c1",
        };
        let bytes = rmp_serde::to_vec_named(&request).unwrap();
        let decoded: InvokePayload = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(decoded.component_name, "t");
        assert_eq!(decoded.args, args);
        assert_eq!(decoded.context, Some(ctx));
        assert_eq!(decoded.call_id, "c1");
    }
}
