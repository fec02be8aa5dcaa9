//! Declaring a hook handler: a function the host runs at one of MaiBot's named hooks, with
//! the hook's kwargs, that may change them or stop the point.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::JsonObject;
use maitool_protocol::hook::{HOOK_HANDLER_TYPE, HookAction, HookResponse};
use maitool_protocol::wire::methods::ComponentDeclaration;
use maitool_runner::{HookComponent, InvocationContext};
use serde_json::Value;

use crate::config::ConfigSlot;
use crate::{HostClient, PluginContext, ToolError};

pub use maitool_protocol::hook::{HookErrorPolicy, HookMode, HookOrder};

/// One run of a hook handler: which hook, and its kwargs.
#[derive(Debug, Clone, PartialEq)]
pub struct HookCall {
    /// The hook being run, e.g. `maisaka.planner.before_request`.
    pub hook: String,
    /// Its kwargs, as the previous blocking handler left them. docs/MAIBOT.md lists each
    /// hook's kwargs (`maitool hook --list --json` prints their schemas).
    pub kwargs: JsonObject,
}

/// What a hook handler answers: go on or abort, and optionally new kwargs and a custom
/// result for whoever ran the hook.
///
/// ```
/// use maitool_sdk::hook::HookReply;
/// use maitool_sdk::json;
///
/// let keep_going = HookReply::proceed();
/// let stop = HookReply::abort().with_custom_result(json!({"why": "spam"}));
/// # let _ = (keep_going, stop);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HookReply {
    action: HookAction,
    kwargs: Option<JsonObject>,
    custom_result: Option<Value>,
}

impl HookReply {
    /// Go on: the next handler, then the point, run with the kwargs as they are.
    pub fn proceed() -> Self {
        Self::default()
    }

    /// Stop the point (where the hook allows aborting; elsewhere the host ignores it and
    /// notes that in the hook's outcome).
    pub fn abort() -> Self {
        HookReply {
            action: HookAction::Abort,
            ..Self::default()
        }
    }

    /// Go on with these kwargs instead: they replace the whole map, so pass the keys you did
    /// not change too (start from [`HookCall::kwargs`]). Ignored for an observe handler and
    /// where the hook does not allow changing its kwargs.
    pub fn with_kwargs(mut self, kwargs: JsonObject) -> Self {
        self.kwargs = Some(kwargs);
        self
    }

    /// A value for whoever ran the hook (collected in its outcome's `custom_results`).
    pub fn with_custom_result(mut self, value: Value) -> Self {
        self.custom_result = Some(value);
        self
    }

    fn into_response(self) -> HookResponse {
        HookResponse {
            success: true,
            action: self.action.as_str().to_owned(),
            modified_kwargs: self.kwargs.map(Value::Object),
            custom_result: self.custom_result,
            error_message: String::new(),
        }
    }
}

type ErasedHookHandler = dyn Fn(HookCall, PluginContext) -> BoxFuture<'static, Result<HookReply, ToolError>>
    + Send
    + Sync;

/// A hook handler: subscribes to one of MaiBot's named hooks (`HookHandler` in MaiBot's
/// SDK), with the same semantics.
///
/// * **Mode.** A *blocking* handler (the default) runs in turn; the hook waits for it, and
///   its [`HookReply`] may replace the kwargs and abort the point. An
///   [`observe`](Self::observe) handler runs in the background with a copy of the kwargs;
///   what it answers is ignored.
/// * **Order.** Blocking handlers run before observe ones; within a mode, `early`, `normal`
///   (default), `late`, then by plugin id and handler name.
/// * **Errors.** A handler that returns an error, panics or times out has failed; its
///   [`error_policy`](Self::error_policy) decides: `skip` (default) and `log` go on to the
///   next handler (`log` also warns in the host's log), `abort` stops the point where the
///   hook may be aborted.
/// * **Timeout.** [`timeout`](Self::timeout), else the hook's default, else the host's
///   `hook_timeout_ms`.
///
/// Which hooks exist, what their kwargs are and which ones maitool itself runs (the
/// planner's request hook shapes a session's tool listing; the others are run by an
/// embedding engine) is in docs/MAIBOT.md and `maitool hook --list`. A handler of a hook
/// that does not exist, or that asks for what its hook forbids, is shown by
/// `maitool plugins` with the reason and never runs; the plugin's other components work.
///
/// ```
/// use maitool_sdk::prelude::*;
/// use maitool_sdk::hook::{HookCall, HookHandler, HookOrder, HookReply};
///
/// // Hides the `send_emoji` tool from every session's listing.
/// let hide = HookHandler::new(
///     "hide_send_emoji",
///     "maisaka.planner.before_request",
///     |mut call: HookCall, _ctx: PluginContext| async move {
///         if let Some(Value::Array(tools)) = call.kwargs.get_mut("tool_definitions") {
///             tools.retain(|tool| tool["function"]["name"] != "send_emoji");
///         }
///         Ok(HookReply::proceed().with_kwargs(call.kwargs))
///     },
/// )
/// .order(HookOrder::Early);
///
/// let plugin = Plugin::new("examples.quiet", "1.0.0").hook_handler(hide);
/// # let _ = plugin;
/// ```
pub struct HookHandler {
    pub(crate) name: String,
    hook: String,
    description: String,
    mode: HookMode,
    order: HookOrder,
    error_policy: HookErrorPolicy,
    timeout: Option<Duration>,
    handler: Arc<ErasedHookHandler>,
}

impl std::fmt::Debug for HookHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookHandler")
            .field("name", &self.name)
            .field("hook", &self.hook)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl HookHandler {
    /// A blocking handler `name` of the hook `hook`, at the normal slot, error policy
    /// `skip`, with the hook's timeout.
    pub fn new<F, Fut>(name: impl Into<String>, hook: impl Into<String>, handler: F) -> Self
    where
        F: Fn(HookCall, PluginContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<HookReply, ToolError>> + Send + 'static,
    {
        HookHandler {
            name: name.into(),
            hook: hook.into(),
            description: String::new(),
            mode: HookMode::Blocking,
            order: HookOrder::Normal,
            error_policy: HookErrorPolicy::Skip,
            timeout: None,
            handler: Arc::new(move |call, ctx| handler(call, ctx).boxed()),
        }
    }

    /// Runs in the background with a copy of the kwargs; its answer is ignored.
    pub fn observe(mut self) -> Self {
        self.mode = HookMode::Observe;
        self
    }

    /// Its slot among the handlers of its mode.
    pub fn order(mut self, order: HookOrder) -> Self {
        self.order = order;
        self
    }

    /// What its failure does to the hook.
    pub fn error_policy(mut self, policy: HookErrorPolicy) -> Self {
        self.error_policy = policy;
        self
    }

    /// How long one run may take; a run past it has failed.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// A description, shown by the host.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    pub(crate) fn declaration(&self, plugin_id: &str) -> ComponentDeclaration {
        let mut metadata = JsonObject::new();
        metadata.insert("hook".into(), self.hook.clone().into());
        metadata.insert("mode".into(), self.mode.as_str().into());
        metadata.insert("order".into(), self.order.as_str().into());
        metadata.insert("error_policy".into(), self.error_policy.as_str().into());
        metadata.insert(
            "timeout_ms".into(),
            self.timeout.map_or(0, |t| t.as_millis() as u64).into(),
        );
        metadata.insert("description".into(), self.description.clone().into());
        ComponentDeclaration {
            name: self.name.clone(),
            component_type: HOOK_HANDLER_TYPE.to_owned(),
            plugin_id: plugin_id.to_owned(),
            metadata,
            ..ComponentDeclaration::default()
        }
    }

    pub(crate) fn into_component(self, config: Arc<ConfigSlot>) -> Arc<dyn HookComponent> {
        Arc::new(RunHook {
            name: self.name,
            handler: self.handler,
            config,
        })
    }
}

struct RunHook {
    name: String,
    handler: Arc<ErasedHookHandler>,
    config: Arc<ConfigSlot>,
}

impl HookComponent for RunHook {
    fn call(
        &self,
        hook: String,
        kwargs: JsonObject,
        ctx: InvocationContext,
    ) -> BoxFuture<'static, HookResponse> {
        let context = PluginContext::new(
            HostClient::new(ctx.host),
            Arc::clone(&self.config),
            ctx.data_dir,
        );
        let name = self.name.clone();
        (self.handler)(HookCall { hook, kwargs }, context)
            .map(move |outcome| match outcome {
                Ok(reply) => reply.into_response(),
                Err(err) => HookResponse {
                    success: false,
                    error_message: format!("hook handler {name}: {err}"),
                    ..HookResponse::default()
                },
            })
            .boxed()
    }
}
