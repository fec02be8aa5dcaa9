//! [`RunningPlugin`]: calls into a started plugin, and what it did meanwhile.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use maitool_protocol::hook::{HOOK_NAME_ARG, HookResponse};
use maitool_protocol::rpc::RpcPeer;
use maitool_protocol::wire::methods::{
    AckPayload, ComponentDeclaration, ConfigUpdatedPayload, ConfigUpdatedResponse, InvokePayload,
    InvokeResultPayload, ShutdownPayload, names,
};
use maitool_protocol::{Platforms, ToolExecutionContext, ToolExecutionResult};
use serde_json::Value;
use tokio::task::JoinHandle;

use super::host::HostState;
use super::{CapabilityCall, SentMessage, TestError, arguments};

/// The host's timeout of a tool that declares none.
const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long lifecycle requests (configuration updates, shutdown) may take.
const LIFECYCLE_TIMEOUT: Duration = Duration::from_secs(10);

/// A started plugin, served by the real runner in this process. Dropping it closes
/// the connection; the runner then unloads the plugin (`on_unload`) on its own.
///
/// ```
/// use maitool_sdk::prelude::*;
/// use maitool_sdk::testing::PluginTest;
/// use maitool_sdk::testing::RpcError;
///
/// /// Remember the last greeting and say it in the chat.
/// #[maitool_sdk::tool]
/// async fn greet(
///     /// The greeting.
///     text: String,
///     ctx: ToolContext,
/// ) -> Result<String, ToolError> {
///     ctx.kv().set("last", &text).await?;
///     ctx.send().text(text.clone()).await?;
///     Ok(format!("said {text}"))
/// }
///
/// async fn check() -> Result<(), Box<dyn std::error::Error>> {
///     let plugin = || Plugin::new("examples.greeter", "1.0.0").tool(greet_tool());
///     let t = PluginTest::new(plugin()).grant("kv.*").grant("send.text").start().await?;
///     assert!(t.call("greet", json!({ "text": "hello" })).await?.success);
///     assert_eq!(t.kv()["last"], "hello");
///     assert_eq!(t.sent()[0].text, "hello");
///     assert_eq!(t.sent()[0].stream_id, "test-stream");
///
///     // Without `send.text` the call is denied, as the host denies it.
///     let t = PluginTest::new(plugin()).grant("kv.*").start().await?;
///     let denied = t.call("greet", json!({ "text": "hello" })).await?;
///     assert!(!denied.success);
///     let calls = t.capability_calls();
///     let refusal: &RpcError = calls[1].outcome.as_ref().unwrap_err();
///     assert_eq!(refusal.code.as_str(), "E_CAPABILITY_DENIED");
///     Ok(())
/// }
/// # fn main() {
/// #     let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// #     runtime.block_on(check()).unwrap();
/// # }
/// ```
pub struct RunningPlugin {
    pub(super) peer: RpcPeer,
    pub(super) state: Arc<HostState>,
    /// Taken by `stop`.
    runner: Option<JoinHandle<Result<(), maitool_runner::RunnerError>>>,
    pub(super) context: ToolExecutionContext,
    calls: AtomicU64,
}

impl std::fmt::Debug for RunningPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningPlugin")
            .field("plugin_id", &self.state.plugin_id)
            .finish_non_exhaustive()
    }
}

impl RunningPlugin {
    pub(crate) fn new(
        peer: RpcPeer,
        state: Arc<HostState>,
        runner: JoinHandle<Result<(), maitool_runner::RunnerError>>,
        context: ToolExecutionContext,
    ) -> Self {
        RunningPlugin {
            peer,
            state,
            runner: Some(runner),
            context,
            calls: AtomicU64::new(0),
        }
    }

    /// Calls a tool (or legacy Action) with these arguments, a JSON object, in the test's
    /// context, and returns its result as the host would receive it.
    ///
    /// As the host does, the arguments are first checked against the tool's schema: a
    /// violation is a failed result (`invalid arguments for tool NAME: at /path: ...`,
    /// `metadata.error_kind = "invalid_arguments"`) and the plugin is not called. Unlike the
    /// host, strings are not converted to the numbers or booleans a schema asks for: pass
    /// JSON of the declared types. The tool's output schema is not checked.
    ///
    /// A tool that failed is `Ok` with `success: false`; `Err` means the call itself failed:
    /// no such tool, or the tool's timeout passed, or the runner closed the connection.
    pub async fn call(&self, tool: &str, args: Value) -> Result<ToolExecutionResult, TestError> {
        self.call_in(tool, args, self.context.clone()).await
    }

    /// [`call`](Self::call) in another context (another stream, group or user).
    pub async fn call_in(
        &self,
        tool: &str,
        args: Value,
        context: ToolExecutionContext,
    ) -> Result<ToolExecutionResult, TestError> {
        let Value::Object(args) = args else {
            return Err(TestError::NotAnObject("a call's arguments", args));
        };
        let declaration = self
            .declaration(tool)
            .ok_or_else(|| TestError::UnknownTool {
                name: tool.to_owned(),
                registered: self
                    .declarations()
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let metadata = &declaration.metadata;
        if metadata.get("enabled") == Some(&Value::Bool(false)) {
            return Err(TestError::Disabled(tool.to_owned()));
        }
        // Registered, so valid: the harness refused malformed platforms at registration.
        let platforms = Platforms::from_declaration(metadata.get("platforms")).unwrap_or_default();
        if !platforms.admits(&context.platform) {
            let here = match context.platform.trim() {
                "" => "this call gives no platform".to_owned(),
                platform => format!("this call is on {platform}"),
            };
            return Ok(ToolExecutionResult::failure(
                tool,
                format!(
                    "tool {tool} is not offered here: plugin {} offers it only on {platforms}, \
                     and {here}",
                    self.state.plugin_id
                ),
            )
            .with_metadata("error_code", "E_PLATFORM_MISMATCH"));
        }
        let stop_after_execution = metadata.get("stop_after_execution") == Some(&Value::Bool(true));
        let schema = metadata.get("parameters_raw").and_then(Value::as_object);
        if let Err(refusal) = arguments::check(tool, schema, &args) {
            return Ok(*refusal);
        }
        let method = metadata
            .get("invoke_method")
            .and_then(Value::as_str)
            .unwrap_or(names::INVOKE_TOOL);
        let legacy_action = method == names::INVOKE_ACTION;
        let timeout = metadata
            .get("timeout_ms")
            .and_then(Value::as_u64)
            .filter(|ms| *ms > 0)
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TOOL_TIMEOUT);
        let call_id = format!(
            "test-call-{}",
            self.calls.fetch_add(1, Ordering::Relaxed) + 1
        );
        let payload = InvokePayload {
            component_name: tool.to_owned(),
            args: arguments::on_the_wire(&args, schema, &context, legacy_action),
            context: Some(context),
            call_id,
        };
        let answer = self
            .peer
            .call_raw(method, &self.state.plugin_id, &payload, timeout)
            .await
            .and_then(|response| response.invoke_answer())
            .map_err(TestError::Call)?;
        let mut result = answer.tool_result.unwrap_or_else(|| ToolExecutionResult {
            tool_name: tool.to_owned(),
            success: answer.success,
            structured_content: answer.result,
            ..ToolExecutionResult::default()
        });
        // As the host does for a tool declared `stop_after_execution`.
        result.stop_after_execution |= stop_after_execution && result.success;
        Ok(result)
    }

    /// Runs the hook handler `handler` as the host would at the hook `hook`, with `kwargs`
    /// (a JSON object), and returns its answer: `action`, `modified_kwargs`,
    /// `custom_result`, or `success: false` with the handler's error. `Err` means the call
    /// itself failed (no such handler, its timeout, the runner gone).
    pub async fn run_hook(
        &self,
        handler: &str,
        hook: &str,
        kwargs: Value,
    ) -> Result<HookResponse, TestError> {
        let Value::Object(mut args) = kwargs else {
            return Err(TestError::NotAnObject("a hook's kwargs", kwargs));
        };
        args.insert(HOOK_NAME_ARG.into(), hook.into());
        let timeout = self
            .declaration(handler)
            .and_then(|d| d.metadata.get("timeout_ms").and_then(Value::as_u64))
            .filter(|ms| *ms > 0)
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TOOL_TIMEOUT);
        let payload = InvokePayload {
            component_name: handler.to_owned(),
            args,
            ..InvokePayload::default()
        };
        self.peer
            .call(names::INVOKE_HOOK, &self.state.plugin_id, &payload, timeout)
            .await
            .map_err(TestError::Call)
    }

    /// Calls the plugin's API `name` (version `version`, empty for the first declared) with
    /// `args` as another plugin's `api.call` would reach it: `Ok(Ok(value))` is its result,
    /// `Ok(Err(message))` its failure.
    pub async fn call_api(
        &self,
        name: &str,
        version: &str,
        args: Value,
    ) -> Result<Result<Value, String>, TestError> {
        let Value::Object(args) = args else {
            return Err(TestError::NotAnObject("an API call's arguments", args));
        };
        let declaration = self
            .declarations()
            .into_iter()
            .find(|d| {
                d.component_type == "API"
                    && d.name == name
                    && (version.is_empty()
                        || d.metadata.get("version").and_then(Value::as_str) == Some(version))
            })
            .ok_or_else(|| TestError::UnknownTool {
                name: name.to_owned(),
                registered: self
                    .declarations()
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let handler = declaration
            .metadata
            .get("handler_name")
            .and_then(Value::as_str)
            .unwrap_or(name)
            .to_owned();
        let payload = InvokePayload {
            component_name: handler,
            args,
            ..InvokePayload::default()
        };
        let answer: InvokeResultPayload = self
            .peer
            .call(
                names::INVOKE_API,
                &self.state.plugin_id,
                &payload,
                DEFAULT_TOOL_TIMEOUT,
            )
            .await
            .map_err(TestError::Call)?;
        let result = answer.result.unwrap_or(Value::Null);
        Ok(if answer.success {
            Ok(result)
        } else {
            Err(result
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| result.to_string()))
        })
    }

    /// The components the plugin registered, as the runner sent them to the host.
    pub fn declarations(&self) -> Vec<ComponentDeclaration> {
        self.state.declarations.lock().clone()
    }

    /// The registered declaration of one tool.
    pub fn declaration(&self, tool: &str) -> Option<ComponentDeclaration> {
        self.state
            .declarations
            .lock()
            .iter()
            .find(|d| d.name == tool)
            .cloned()
    }

    /// The messages `send.*` capabilities were asked to deliver, in order.
    pub fn sent(&self) -> Vec<SentMessage> {
        self.state.capabilities.sent.lock().clone()
    }

    /// Every capability call the plugin made, with the answer it got (denials included).
    pub fn capability_calls(&self) -> Vec<CapabilityCall> {
        self.state.capabilities.calls.lock().clone()
    }

    /// The plugin's kv store now.
    pub fn kv(&self) -> BTreeMap<String, Value> {
        self.state.capabilities.kv.lock().clone()
    }

    /// Sends a configuration update (`plugin.config_updated`, scope `self`), as the host
    /// does when the operator edits the plugin's table: the runner validates and applies it,
    /// then runs `on_config_update`. Refused values leave the previous configuration.
    pub async fn update_config(&self, config: Value) -> Result<(), TestError> {
        let Value::Object(config_data) = config else {
            return Err(TestError::NotAnObject("the configuration", config));
        };
        let payload = ConfigUpdatedPayload {
            plugin_id: self.state.plugin_id.clone(),
            config_scope: "self".into(),
            config_version: "2".into(),
            config_data,
        };
        let answer: ConfigUpdatedResponse = self
            .peer
            .call(
                names::CONFIG_UPDATED,
                &self.state.plugin_id,
                &payload,
                LIFECYCLE_TIMEOUT,
            )
            .await
            .map_err(TestError::Call)?;
        if answer.applied() {
            Ok(())
        } else {
            Err(TestError::ConfigRefused(answer.reason))
        }
    }

    /// Stops the runner as the host does (`plugin.shutdown`: in-flight calls drain, then
    /// `on_unload` runs) and waits for the runner to finish.
    pub async fn stop(mut self) -> Result<(), TestError> {
        let payload = ShutdownPayload {
            reason: "test finished".into(),
            drain_timeout_ms: 1000,
        };
        let _: AckPayload = self
            .peer
            .call(names::SHUTDOWN, "", &payload, LIFECYCLE_TIMEOUT)
            .await
            .map_err(TestError::Call)?;
        let Some(runner) = self.runner.take() else {
            return Ok(());
        };
        match tokio::time::timeout(LIFECYCLE_TIMEOUT, runner).await {
            Ok(Ok(Ok(()))) => Ok(()),
            Ok(Ok(Err(err))) => Err(TestError::Runner(err)),
            Ok(Err(join)) => Err(TestError::NotStopped(format!(
                "the runner task failed: {join}"
            ))),
            Err(_) => Err(TestError::NotStopped(format!(
                "still running {LIFECYCLE_TIMEOUT:?} after the shutdown"
            ))),
        }
    }
}

impl Drop for RunningPlugin {
    fn drop(&mut self) {
        self.peer.close();
    }
}
