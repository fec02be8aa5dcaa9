//! Declaring a tool: name, description, typed arguments, options and an async handler.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::wire::EncodedValue;
use maitool_protocol::wire::methods::{ComponentDeclaration, names};
use maitool_protocol::{
    ChatScope, JsonObject, ToolAnnotation, ToolExecutionResult, ToolIcon, Visibility,
};
use maitool_runner::{ComponentHandler, InvocationContext};
use schemars::JsonSchema;

use crate::arguments::ArgumentDecoder;
use crate::config::ConfigSlot;
use crate::output::OutputType;
use crate::schema::schema_for;
use crate::{ToolContext, ToolError, ToolOutput};

/// A tool's handler with its argument type erased: decodes the arguments, runs, and turns the
/// outcome into the result named after the tool (the third argument). One boxed future per
/// call, the handler's own state inside it.
pub(crate) type ErasedHandler = dyn Fn(
        EncodedValue,
        ToolContext,
        Arc<str>,
        Option<OutputType>,
    ) -> BoxFuture<'static, ToolExecutionResult>
    + Send
    + Sync;

/// A tool: a name, a description, typed arguments, an async handler, and options.
///
/// The arguments are one type that derives `Deserialize` and `JsonSchema`; its JSON Schema
/// is what the model sees (doc comments become descriptions), and the host refuses calls
/// whose arguments break it before the handler runs.
///
/// Like in MaiBot, a plugin tool is **deferred unless it is a core tool**: the model sees it
/// only by name in a reminder until it finds it with `tool_search`. Mark the tools a model
/// needs on every turn with [`core_tool`](Self::core_tool).
///
/// ```
/// use std::time::Duration;
/// use maitool_sdk::prelude::*;
///
/// /// Arguments of `roll_dice`.
/// #[maitool_sdk::args]
/// struct RollArgs {
///     /// Number of sides, at least 2.
///     sides: u32,
/// }
///
/// let roll = Tool::new("roll_dice", "Roll a die.", |args: RollArgs, _ctx: ToolContext| async move {
///     if args.sides < 2 {
///         return Err(ToolError::new("a die has at least 2 sides"));
///     }
///     Ok(ToolOutput::text(format!("rolled a d{}", args.sides)))
/// })
/// .core_tool() // visible to the model (else deferred)
/// .chat_scope(ChatScope::Group)
/// .timeout(Duration::from_secs(5));
/// # let _ = roll;
/// ```
///
/// # Threading model
///
/// A runner serves all its plugins' calls, its health checks and its log forwarding on one
/// async runtime: by default a *current-thread* runtime, so handlers made with [`Tool::new`]
/// run concurrently on one thread, taking turns at each `.await`. A handler that does not
/// reach an `.await` for a while — a busy loop, `std::thread::sleep`, blocking file or
/// network I/O, a long computation — holds that thread: every other call of the runner
/// waits, health checks go unanswered, and after two unanswered checks the host kills and
/// restarts the runner, failing the calls in flight with `the runner was restarted because
/// it stopped answering health checks`.
///
/// So:
/// - async code that awaits (timers from [`crate::time`], capability calls, async I/O) goes
///   in [`Tool::new`];
/// - blocking or CPU-heavy code goes in [`Tool::blocking`], which runs the handler on
///   tokio's blocking pool; for a blocking step inside an async handler, use
///   [`run_blocking`](crate::run_blocking);
/// - [`RunnerOptions::worker_threads`](crate::RunnerOptions) gives the runtime more threads,
///   which spreads async handlers but does not make blocking code safe.
pub struct Tool {
    pub(crate) name: String,
    description: String,
    title: String,
    schema: JsonObject,
    output_schema: Option<JsonObject>,
    output_type: Option<OutputType>,
    visibility: Visibility,
    chat_scope: ChatScope,
    allowed_sessions: Vec<String>,
    timeout: Option<Duration>,
    enabled: bool,
    annotation: Option<ToolAnnotation>,
    icons: Vec<ToolIcon>,
    platforms: Vec<String>,
    stop_after_execution: bool,
    handler: Arc<ErasedHandler>,
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool whose arguments are deserialized into `A`; the model-facing JSON Schema is
    /// generated from `A` (doc comments become descriptions). The handler's error becomes a
    /// failed result with that message; so do arguments that do not fit `A`.
    ///
    /// Defaults: deferred ([`core_tool`](Self::core_tool) makes it visible), all chats,
    /// enabled, the host's timeout (60 s), no output schema.
    pub fn new<A, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Tool
    where
        A: crate::ToolArgs,
        F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let name = name.into();
        let schema = schema_for::<A>();
        let arguments = ArgumentDecoder::new(&name, &schema);
        let erased = move |args: EncodedValue,
                           ctx: ToolContext,
                           name: Arc<str>,
                           declared: Option<OutputType>|
              -> BoxFuture<'static, ToolExecutionResult> {
            match arguments.decode::<A>(&args) {
                Ok(parsed) => {
                    let running = handler(parsed, ctx);
                    async move { outcome_result(running.await, &name, declared) }.boxed()
                }
                Err(err) => std::future::ready(outcome_result(Err(err), &name, None)).boxed(),
            }
        };
        Tool::with_handler(name, description.into(), schema, Arc::new(erased))
    }

    /// A tool of `name` with this schema and erased handler, every option at its default.
    pub(crate) fn with_handler(
        name: String,
        description: String,
        schema: JsonObject,
        handler: Arc<ErasedHandler>,
    ) -> Tool {
        Tool {
            name,
            description,
            title: String::new(),
            schema,
            output_schema: None,
            output_type: None,
            visibility: Visibility::default(),
            chat_scope: ChatScope::All,
            allowed_sessions: Vec::new(),
            timeout: None,
            enabled: true,
            annotation: None,
            icons: Vec::new(),
            platforms: Vec::new(),
            stop_after_execution: false,
            handler,
        }
    }

    /// A display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Declares the structured output's type; its schema is published as `output_schema`,
    /// and the host checks every result's structured content against it.
    ///
    /// Return the output with [`ToolOutput::typed`] so that the SDK checks the handler
    /// against this declaration too: a typed output of another type becomes a failed
    /// result naming both types.
    pub fn output<T: JsonSchema + 'static>(mut self) -> Self {
        self.output_schema = Some(schema_for::<T>());
        self.output_type = Some(OutputType::of::<T>());
        self
    }

    /// How the tool reaches the model (default [`Visibility::Deferred`], MaiBot's default for
    /// plugin tools):
    ///
    /// * [`Visibility::Visible`]: in the tool list of every model request (see
    ///   [`core_tool`](Self::core_tool));
    /// * [`Visibility::Deferred`]: listed by name in a reminder until the model finds it with
    ///   `tool_search`;
    /// * [`Visibility::Hidden`]: offered to no one. It is not listed, and a call to it, by a
    ///   model or an operator's `maitool call`, fails with `tool NAME is hidden`.
    pub fn visibility(mut self, visibility: Visibility) -> Self {
        self.visibility = visibility;
        self
    }

    /// MaiBot's `core_tool`: the tool is in the model's tool list on every request
    /// ([`Visibility::Visible`]) instead of deferred.
    pub fn core_tool(self) -> Self {
        self.visibility(Visibility::Visible)
    }

    /// In which chats the tool is offered (default: all).
    pub fn chat_scope(mut self, scope: ChatScope) -> Self {
        self.chat_scope = scope;
        self
    }

    /// Offers the tool only in these sessions (session id, group id or `platform:group_id`).
    pub fn allowed_sessions<I, S>(mut self, sessions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_sessions = sessions.into_iter().map(Into::into).collect();
        self
    }

    /// Offers the tool only on these chat platforms (MaiBot 1.3's `Tool(platforms=...)`):
    /// listed and callable only in a context whose `platform` is one of them, compared
    /// without case; a context with no platform does not qualify. Empty (the default): every
    /// platform. An empty name is refused by the host at registration, and the plugin fails
    /// to load with that reason.
    ///
    /// ```
    /// use maitool_sdk::prelude::*;
    ///
    /// #[maitool_sdk::args]
    /// struct StickerArgs {
    ///     set: String,
    /// }
    ///
    /// let sticker = Tool::new("send_sticker", "Sends a sticker set.", |a: StickerArgs, _ctx: ToolContext| async move {
    ///     Ok(ToolOutput::text(format!("sent {}", a.set)))
    /// })
    /// .platforms(["telegram"]);
    /// # let _ = sticker;
    /// ```
    pub fn platforms<I, S>(mut self, platforms: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.platforms = platforms.into_iter().map(Into::into).collect();
        self
    }

    /// Every successful call of the tool ends the planner round once the turn's calls have
    /// run (MaiBot 1.3's `stop_after_execution`); one result can ask the same with
    /// [`ToolOutput::stop_after_execution`].
    pub fn stop_after_execution(mut self) -> Self {
        self.stop_after_execution = true;
        self
    }

    /// How long the host waits for a result (default 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Whether the tool is enabled (default true): a disabled tool is neither listed nor callable.
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// Hints such as read-only or destructive.
    pub fn annotation(mut self, annotation: ToolAnnotation) -> Self {
        self.annotation = Some(annotation);
        self
    }

    /// An icon for UIs.
    pub fn icon(mut self, icon: ToolIcon) -> Self {
        self.icons.push(icon);
        self
    }

    pub(crate) fn declaration(&self, plugin_id: &str) -> ComponentDeclaration {
        let mut metadata = JsonObject::new();
        metadata.insert("description".into(), self.description.clone().into());
        if !self.title.is_empty() {
            metadata.insert("title".into(), self.title.clone().into());
        }
        metadata.insert("parameters_raw".into(), self.schema.clone().into());
        if let Some(output) = &self.output_schema {
            metadata.insert("output_schema".into(), output.clone().into());
        }
        metadata.insert("invoke_method".into(), names::INVOKE_TOOL.into());
        metadata.insert("visibility".into(), self.visibility.as_str().into());
        metadata.insert("enabled".into(), self.enabled.into());
        metadata.insert("handler_name".into(), self.name.clone().into());
        if let Some(timeout) = self.timeout {
            metadata.insert("timeout_ms".into(), (timeout.as_millis() as u64).into());
        }
        if let Some(annotation) = &self.annotation
            && let Ok(value) = serde_json::to_value(annotation)
        {
            metadata.insert("annotation".into(), value);
        }
        if !self.icons.is_empty()
            && let Ok(value) = serde_json::to_value(&self.icons)
        {
            metadata.insert("icons".into(), value);
        }
        if !self.platforms.is_empty() {
            metadata.insert("platforms".into(), self.platforms.clone().into());
        }
        if self.stop_after_execution {
            metadata.insert("stop_after_execution".into(), true.into());
        }
        ComponentDeclaration {
            name: self.name.clone(),
            component_type: "TOOL".into(),
            plugin_id: plugin_id.to_owned(),
            chat_scope: self.chat_scope.as_str().into(),
            allowed_session: self.allowed_sessions.clone(),
            metadata,
        }
    }

    pub(crate) fn into_handler(self, config: Arc<ConfigSlot>) -> Arc<dyn ComponentHandler> {
        Arc::new(ToolHandler {
            handler: self.handler,
            output_type: self.output_type,
            config,
        })
    }
}

struct ToolHandler {
    handler: Arc<ErasedHandler>,
    output_type: Option<OutputType>,
    config: Arc<ConfigSlot>,
}

impl ComponentHandler for ToolHandler {
    fn call(
        &self,
        args: EncodedValue,
        ctx: InvocationContext,
    ) -> BoxFuture<'static, ToolExecutionResult> {
        // The runner names the component in the context; sharing it spares a copy per call.
        let name = Arc::clone(&ctx.component_name);
        (self.handler)(
            args,
            ToolContext::new(ctx, self.config.clone()),
            name,
            self.output_type,
        )
    }
}

/// The result a handler's outcome becomes; a typed output that is not the tool's declared
/// output type becomes a failure.
pub(crate) fn outcome_result(
    outcome: Result<ToolOutput, ToolError>,
    name: &str,
    declared: Option<OutputType>,
) -> ToolExecutionResult {
    match outcome.and_then(|output| output.checked(name, declared)) {
        Ok(output) => output.into_result(),
        Err(err) => ToolExecutionResult::failure(name, err.message()),
    }
}
