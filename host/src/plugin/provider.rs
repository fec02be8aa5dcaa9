//! `PluginToolProvider`: the plugin runtime as one [`ToolProvider`].

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use async_trait::async_trait;
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::{
    ProviderType, ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult,
    ToolInvocation, ToolSpec, Visibility,
};

use super::PLUGIN_PROVIDER_NAME;
use super::chat_view::ChatView;
use super::components::ComponentEntry;
use super::invoke_args::{ContextKeys, InvokeArgs};
use super::restart_wait::NotReady;
use super::result::normalize;
use super::shared::RuntimeShared;
use crate::provider::{ProviderError, ToolProvider, ToolSetVersion};

/// How long a call cut off by its runner's end waits for the supervisor to say how the
/// runner ended. The supervisor reaps a dead runner within milliseconds of its socket
/// closing, and waits at most 100 ms for one that closed its socket and lives on.
const CUT_OFF_PATIENCE: Duration = Duration::from_millis(500);

/// The `error_code` of a call to a tool restricted to other platforms than the call's.
pub(crate) const PLATFORM_MISMATCH_CODE: &str = "E_PLATFORM_MISMATCH";

/// The `error_code` of a call to a tool of a plugin paused by an invalid configuration.
pub(crate) const CONFIG_INVALID_CODE: &str = "E_PLUGIN_CONFIG_INVALID";

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
    args: InvokeArgs<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<&'a ToolExecutionContext>,
    #[serde(skip_serializing_if = "str::is_empty")]
    call_id: &'a str,
}

impl<'a> InvokeRequest<'a> {
    /// The request that runs `entry` with `invocation` in `ctx` on a runner that reads the
    /// context from the payload (`reads_context`, maitool's) or not (MaiBot's). A runner that
    /// does not gets every context key in its arguments, MaiBot's convention, and no
    /// `context`: MaiBot's runner validates the payload into its `InvokePayload`, which has
    /// no such field, so the map was encoded here and decoded there for nothing on every call.
    fn new(
        entry: &'a ComponentEntry,
        invocation: &'a ToolInvocation,
        ctx: &'a ToolExecutionContext,
        reads_context: bool,
    ) -> Self {
        let keys = if reads_context {
            entry.context_keys
        } else {
            ContextKeys::ALL
        };
        InvokeRequest {
            component_name: &entry.name,
            args: InvokeArgs::new(
                &invocation.arguments,
                ctx,
                &invocation.reasoning,
                entry.legacy_action,
                keys,
            ),
            context: reads_context.then_some(ctx),
            call_id: &invocation.call_id,
        }
    }
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
            .tool_specs(ctx, |plugin| self.runtime.is_listed(plugin)))
    }

    async fn declared_tool_names(&self) -> Result<Vec<String>, ProviderError> {
        // Routable, not only live: a call to the tool of a restarting runner waits for it.
        Ok(self
            .runtime
            .components
            .tool_names(|plugin| self.runtime.is_routable(plugin)))
    }

    async fn available_tool(
        &self,
        name: &str,
        ctx: &ToolAvailabilityContext,
    ) -> Result<Option<Arc<ToolSpec>>, ProviderError> {
        Ok(self.find_available(name, ChatView::from(ctx)))
    }

    fn available_tool_now(
        &self,
        name: &str,
        ctx: &ToolExecutionContext,
    ) -> Option<Result<Option<Arc<ToolSpec>>, ProviderError>> {
        Some(Ok(self.find_available(name, ChatView::from(ctx))))
    }

    fn tool_set_version(&self) -> Option<ToolSetVersion> {
        Some(self.runtime.version.clone())
    }

    fn tool_source(&self, name: &str) -> Option<String> {
        self.runtime
            .components
            .declared_tool(name, |_| true)
            .map(|entry| entry.plugin_id.clone())
    }

    fn refusal(&self, name: &str, ctx: &ToolExecutionContext) -> Option<ToolExecutionResult> {
        let Some(entry) = self
            .runtime
            .components
            .declared_tool(name, |plugin| self.runtime.is_live(plugin))
        else {
            // A name that is no tool at all may be a plugin's hook handler, API, command or
            // event handler: say what it is and how it runs instead of `tool not found`.
            return self.not_a_tool(name);
        };
        let refused = |message: String, code: &str| {
            ToolExecutionResult::failure(name, message)
                .with_metadata("plugin_id", entry.plugin_id.clone())
                .with_metadata("error_code", code.to_owned())
        };
        if entry.visibility == Visibility::Hidden {
            return Some(refused(
                format!(
                    "tool {name} is hidden: plugin {} declares it with visibility hidden, which \
                     offers it neither to models nor to direct calls",
                    entry.plugin_id
                ),
                "E_TOOL_HIDDEN",
            ));
        }
        if !entry.platforms.admits(&ctx.platform) {
            let platform = ctx.platform.trim();
            let here = if platform.is_empty() {
                "this call gives no platform".to_owned()
            } else {
                format!("this call is on {platform}")
            };
            return Some(refused(
                format!(
                    "tool {name} is not offered here: plugin {} offers it only on {}, and {here}",
                    entry.plugin_id, entry.platforms
                ),
                PLATFORM_MISMATCH_CODE,
            ));
        }
        None
    }

    async fn invoke(
        &self,
        invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        let Some(tool) = self.runtime.components.find_tool_in(
            &invocation.tool_name,
            ChatView::from(ctx),
            |plugin| self.runtime.is_routable(plugin),
        ) else {
            return Err(ProviderError::ToolNotFound(invocation.tool_name));
        };
        self.run(tool.entry, invocation, ctx).await
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
    /// The spec of the enabled tool `name` of a plugin that is live or whose runner is
    /// restarting (a call waits for it), in the chat `ctx`.
    fn find_available(&self, name: &str, ctx: ChatView<'_>) -> Option<Arc<ToolSpec>> {
        self.runtime
            .components
            .find_tool_in(name, ctx, |plugin| self.runtime.is_routable(plugin))
            .filter(|tool| tool.spec.enabled)
            .map(|tool| tool.spec)
    }

    /// Runs `entry` (the tool being invoked) on its plugin's runner.
    async fn run(
        &self,
        entry: Arc<ComponentEntry>,
        mut invocation: ToolInvocation,
        ctx: &ToolExecutionContext,
    ) -> Result<ToolExecutionResult, ProviderError> {
        // Borrowed, not cloned (a copy per call showed in the benchmark's profile): only the
        // invocation's arguments are changed below, and it lives to the end of this call.
        let name = invocation.tool_name.as_str();
        let unavailable = |why: NotReady| {
            let result = ToolExecutionResult::failure(name, why.message(name, &entry.plugin_id))
                .with_metadata("plugin_id", entry.plugin_id.clone());
            match why {
                NotReady::CallDeadline(_) => result.with_metadata("error_code", "E_TIMEOUT"),
                _ => result,
            }
        };
        if let Some(reason) = self.runtime.components.unavailable_reason(&entry.full_name) {
            return Ok(ToolExecutionResult::failure(
                name,
                super::availability::refusal(name, &reason),
            )
            .with_metadata("plugin_id", entry.plugin_id.clone())
            .with_metadata("error_code", super::availability::UNAVAILABLE_CODE));
        }
        if let Some(paused) = self.runtime.config_error(&entry.plugin_id) {
            return Ok(ToolExecutionResult::failure(
                name,
                format!(
                    "tool {name} is paused: plugin {} has an invalid configuration ({}); fix \
                     it and reload",
                    entry.plugin_id, paused.problem
                ),
            )
            .with_metadata("plugin_id", entry.plugin_id.clone())
            .with_metadata("error_code", CONFIG_INVALID_CODE));
        }
        let wrapper = usize::from(entry.legacy_action);
        if let Err(refusal) = super::nesting::check_arguments(&mut invocation.arguments, wrapper) {
            return Ok(ToolExecutionResult::failure(
                name,
                format!("tool {name} failed: {refusal}"),
            )
            .with_metadata("plugin_id", entry.plugin_id.clone())
            .with_metadata("error_code", "E_BAD_PAYLOAD"));
        }
        let permit = match self.runtime.breakers.admit(&entry.plugin_id) {
            Ok(permit) => permit,
            Err(rejection) => {
                return Ok(super::breaker::refused(name, &entry.plugin_id, &rejection));
            }
        };
        let timeout_ms = if entry.timeout_ms > 0 {
            entry.timeout_ms
        } else {
            self.runtime.config.default_tool_timeout_ms
        };
        let timeout = Duration::from_millis(timeout_ms);
        let started = Instant::now();
        // A pool's member that declares this tool as registered (they may differ in a rollout).
        let component = Some(entry.name.as_str());
        let live = match self.runtime.live_peer_for(&entry.plugin_id, component) {
            Some(live) => live,
            // Boxed: the wait is the rare path, and this future is allocated for every call.
            None => {
                let deadline = started + timeout;
                match Box::pin(
                    self.runtime
                        .wait_live_for(&entry.plugin_id, component, deadline),
                )
                .await
                {
                    Ok(live) => live,
                    Err(why) => return Ok(unavailable(why)),
                }
            }
        };
        let request = InvokeRequest::new(&entry, &invocation, ctx, live.reads_context);
        // Sent before the first `await`, so that only the pending call is kept across it, not
        // the request and its encoder: this future is boxed for every call, and was copied
        // into a heap block too large for the allocator's fast path.
        let first = live
            .peer
            .start_call(&entry.invoke_method, &entry.plugin_id, &request, timeout);
        let answer = match first {
            Ok(pending) => match pending.await {
                Ok(response) => response.invoke_answer(),
                // Boxed: only a cut-off call pays for this wait in its future's size.
                Err(err) => Err(Box::pin(live.explain_cut_off(err, CUT_OFF_PATIENCE)).await),
            },
            // Not sent: the connection closed before the supervisor took it off the invoke
            // path. The call never reached the runner, so it waits for the restart like any
            // call that arrives during one.
            Err(err) if err.code == ErrorCode::PluginCrashed => {
                let deadline = started + timeout;
                let next = match Box::pin(self.runtime.wait_live_for(
                    &entry.plugin_id,
                    component,
                    deadline,
                ))
                .await
                {
                    Ok(next) => next,
                    Err(why) => return Ok(unavailable(why)),
                };
                let left = timeout.saturating_sub(started.elapsed());
                match next
                    .peer
                    .start_call(&entry.invoke_method, &entry.plugin_id, &request, left)
                {
                    Ok(pending) => match pending.await {
                        Ok(response) => response.invoke_answer(),
                        Err(err) => {
                            Err(Box::pin(next.explain_cut_off(err, CUT_OFF_PATIENCE)).await)
                        }
                    },
                    Err(err) => Err(err),
                }
            }
            Err(err) => Err(err),
        };
        super::breaker::record(permit, &answer, |err| {
            super::call_error::call_failure(name, &entry.plugin_id, err, timeout_ms).error_message
        });
        Ok(match answer {
            Ok(answer) => {
                let mut result = normalize(name, &entry.plugin_id, answer);
                if entry.name != name {
                    // The runner names its answer after the component; the caller used the
                    // name it is offered under (another plugin has its own).
                    result.tool_name = name.to_owned();
                }
                // A tool declared `stop_after_execution` ends the round on every success.
                result.stop_after_execution |= entry.stop_after_execution && result.success;
                result
            }
            // An RPC error alone does not say which of many concurrent calls failed, and
            // speaks of RPC methods: name the tool and say what happened.
            Err(err) => super::call_error::call_failure(name, &entry.plugin_id, &err, timeout_ms),
        })
    }
}

mod not_a_tool;

#[cfg(test)]
mod tests;
