//! Declaring a tool: name, description, typed arguments, options and an async handler.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::wire::EncodedValue;
use maitool_protocol::wire::methods::{ComponentDeclaration, names};
use maitool_protocol::{JsonObject, ToolAnnotation, ToolExecutionResult, ToolIcon};
use maitool_runner::{ComponentHandler, InvocationContext};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::arguments::ArgumentDecoder;
use crate::config::ConfigSlot;
use crate::schema::schema_for;
use crate::{ToolContext, ToolError, ToolOutput};

/// How a tool is shown to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Visibility {
    /// Always in the model's tool list.
    Visible,
    /// Listed only by name in a reminder until the model finds it with `tool_search`.
    #[default]
    Deferred,
    /// Never shown to the model; callable only directly.
    Hidden,
}

impl Visibility {
    fn as_str(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Deferred => "deferred",
            Visibility::Hidden => "hidden",
        }
    }
}

/// In which chats a tool is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChatScope {
    /// Everywhere.
    #[default]
    All,
    /// Group chats only.
    Group,
    /// Private chats only.
    Private,
}

impl ChatScope {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ChatScope::All => "all",
            ChatScope::Group => "group",
            ChatScope::Private => "private",
        }
    }
}

/// A tool's handler with its argument type erased: decodes the arguments, runs, and turns the
/// outcome into the result named after the tool (the third argument). One boxed future per
/// call, the handler's own state inside it.
pub(crate) type ErasedHandler = dyn Fn(EncodedValue, ToolContext, Arc<str>) -> BoxFuture<'static, ToolExecutionResult>
    + Send
    + Sync;

/// A tool declaration.
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
    visibility: Visibility,
    chat_scope: ChatScope,
    allowed_sessions: Vec<String>,
    timeout: Option<Duration>,
    enabled: bool,
    annotation: Option<ToolAnnotation>,
    icons: Vec<ToolIcon>,
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
    pub fn new<A, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Tool
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let name = name.into();
        let schema = schema_for::<A>();
        let arguments = ArgumentDecoder::new(&name, &schema);
        let erased = move |args: EncodedValue,
                           ctx: ToolContext,
                           name: Arc<str>|
              -> BoxFuture<'static, ToolExecutionResult> {
            match arguments.decode::<A>(&args) {
                Ok(parsed) => {
                    let running = handler(parsed, ctx);
                    async move { outcome_result(running.await, &name) }.boxed()
                }
                Err(err) => std::future::ready(outcome_result(Err(err), &name)).boxed(),
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
            visibility: Visibility::Visible,
            chat_scope: ChatScope::All,
            allowed_sessions: Vec::new(),
            timeout: None,
            enabled: true,
            annotation: None,
            icons: Vec::new(),
            handler,
        }
    }

    /// A display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Declares the structured output's type; its schema is published as `output_schema`.
    pub fn output<T: JsonSchema>(mut self) -> Self {
        self.output_schema = Some(schema_for::<T>());
        self
    }

    /// How the tool is shown to the model (default: visible).
    pub fn visibility(mut self, visibility: Visibility) -> Self {
        self.visibility = visibility;
        self
    }

    /// MaiBot's `core_tool`: always visible.
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

    /// How long the host waits for a result (default 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Whether the tool starts enabled (default true).
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
            config,
        })
    }
}

struct ToolHandler {
    handler: Arc<ErasedHandler>,
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
        (self.handler)(args, ToolContext::new(ctx, self.config.clone()), name)
    }
}

/// The result a handler's outcome becomes.
pub(crate) fn outcome_result(
    outcome: Result<ToolOutput, ToolError>,
    name: &str,
) -> ToolExecutionResult {
    match outcome {
        Ok(output) => output.into_result(),
        Err(err) => ToolExecutionResult::failure(name, err.message()),
    }
}
