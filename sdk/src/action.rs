//! Legacy MaiBot Actions, converted to tools.
//!
//! An Action takes string parameters described by name and returns `(success, message)`.
//! The SDK declares it to the host as a tool whose parameters are all string properties,
//! invoked through `plugin.invoke_action`, with metadata marking it legacy. At invocation the
//! Action receives the model's arguments as `action_data`, plus the reasoning and chat ids
//! (MaiBot's own adapter lost the reasoning; this one does not).
//!
//! MaiBot keeps Actions for old plugins and discourages them for new ones: new plugins
//! declare [`Tool`](crate::Tool)s, which take typed arguments and return rich results.

use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::wire::EncodedValue;
use maitool_protocol::wire::methods::{ComponentDeclaration, names};
use maitool_protocol::{JsonObject, ToolExecutionResult, Visibility};
use maitool_runner::{ComponentHandler, InvocationContext};
use serde_json::{Value, json};

use crate::arguments::CONTEXT_KEYS;
use crate::config::ConfigSlot;
use crate::{HostClient, Kv, PluginConfig, Sender};

/// When the old planner considered an Action (kept as metadata for compatibility).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ActivationType {
    /// Never offered.
    Never,
    /// Always offered.
    #[default]
    Always,
    /// Offered at random with a probability.
    Random,
    /// Offered when a keyword appears.
    Keyword,
}

/// The chat mode an Action targets (metadata for compatibility).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChatMode {
    /// Focus mode.
    Focus,
    /// Normal mode.
    #[default]
    Normal,
    /// Priority mode.
    Priority,
    /// Any mode.
    All,
}

impl ActivationType {
    fn as_str(self) -> &'static str {
        match self {
            ActivationType::Never => "never",
            ActivationType::Always => "always",
            ActivationType::Random => "random",
            ActivationType::Keyword => "keyword",
        }
    }
}

impl ChatMode {
    fn as_str(self) -> &'static str {
        match self {
            ChatMode::Focus => "focus",
            ChatMode::Normal => "normal",
            ChatMode::Priority => "priority",
            ChatMode::All => "all",
        }
    }
}

/// What an Action's `execute` receives.
#[derive(Clone)]
pub struct ActionInput {
    /// The model's arguments (parameter name to string value).
    pub action_data: JsonObject,
    /// The model's reasoning for choosing the Action.
    pub reasoning: String,
    /// Chat stream id.
    pub stream_id: String,
    /// MaiBot's chat id.
    pub chat_id: String,
    /// Group id.
    pub group_id: String,
    /// User id.
    pub user_id: String,
    /// Platform.
    pub platform: String,
    /// `Some(true)` in group chats.
    pub is_group_chat: Option<bool>,
    /// Host capabilities.
    pub host: HostClient,
    config: Arc<ConfigSlot>,
}

impl std::fmt::Debug for ActionInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionInput")
            .field("action_data", &self.action_data)
            .field("reasoning", &self.reasoning)
            .field("stream_id", &self.stream_id)
            .finish_non_exhaustive()
    }
}

impl ActionInput {
    /// A parameter's value as a string ("" when absent).
    pub fn param(&self, name: &str) -> &str {
        self.action_data
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The plugin's typed configuration.
    pub fn config<C: PluginConfig>(&self) -> Option<Arc<C>> {
        self.config.get::<C>()
    }

    /// Messages to the Action's chat stream (`send.*` capabilities), e.g.
    /// `input.send().text("done").await?`.
    pub fn send(&self) -> Sender<'_> {
        self.host.send(&self.stream_id)
    }

    /// This plugin's key-value store on the host (`kv.*` capabilities).
    pub fn kv(&self) -> Kv {
        self.host.kv()
    }
}

type ErasedExecute = dyn Fn(ActionInput) -> BoxFuture<'static, (bool, String)> + Send + Sync;

/// A legacy MaiBot Action, declared to the host as a tool: string parameters in,
/// `(success, message)` out.
///
/// **Prefer [`Tool`](crate::Tool) for new plugins.** MaiBot keeps Actions so that old plugins
/// still run and discourages them for new ones; a tool has typed arguments, typed
/// configuration access and rich results. Use an Action only to port an existing MaiBot
/// Action as it is.
///
/// Like every plugin tool, an Action is deferred unless marked [`core_tool`](Self::core_tool)
/// (MaiBot's rule): the model finds it through `tool_search`.
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// let greet = Action::new("greet", "Greet someone by name.", |input: ActionInput| async move {
///     let name = input.param("name");
///     (true, format!("hello, {name} ({})", input.reasoning))
/// })
/// .required_parameter("name", "Who to greet")
/// .parameter("mood", "How to greet, e.g. cheerfully")
/// .core_tool();
/// let plugin = Plugin::new("examples.greeter", "1.0.0").action(greet);
/// # let _ = plugin;
/// ```
pub struct Action {
    pub(crate) name: String,
    description: String,
    /// (name, description, required)
    parameters: Vec<(String, String, bool)>,
    visibility: Visibility,
    require: Vec<String>,
    associated_types: Vec<String>,
    activation_type: ActivationType,
    activation_keywords: Vec<String>,
    activation_probability: f64,
    parallel_action: bool,
    chat_mode: ChatMode,
    action_prompt: String,
    execute: Arc<ErasedExecute>,
}

impl std::fmt::Debug for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Action")
            .field("name", &self.name)
            .field("parameters", &self.parameters)
            .finish_non_exhaustive()
    }
}

impl Action {
    /// An Action whose `execute` returns `(success, message)`.
    pub fn new<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        execute: F,
    ) -> Action
    where
        F: Fn(ActionInput) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = (bool, String)> + Send + 'static,
    {
        Action {
            name: name.into(),
            description: description.into(),
            parameters: Vec::new(),
            visibility: Visibility::default(),
            require: Vec::new(),
            associated_types: Vec::new(),
            activation_type: ActivationType::Always,
            activation_keywords: Vec::new(),
            activation_probability: 1.0,
            parallel_action: false,
            chat_mode: ChatMode::Normal,
            action_prompt: String::new(),
            execute: Arc::new(move |input| execute(input).boxed()),
        }
    }

    /// An optional string parameter (MaiBot's `action_parameters` entry). The model may
    /// leave it out; [`ActionInput::param`] then reads `""`.
    pub fn parameter(mut self, name: impl Into<String>, description: impl Into<String>) -> Self {
        self.parameters
            .push((name.into(), description.into(), false));
        self
    }

    /// A string parameter the model must give: it is listed in the schema's `required`, and
    /// the host refuses a call without it (`invalid arguments for tool NAME: ...`) before the
    /// Action runs. MaiBot's Actions have no required parameters; this is maitool's addition.
    pub fn required_parameter(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.parameters
            .push((name.into(), description.into(), true));
        self
    }

    /// How the Action reaches the model (default [`Visibility::Deferred`]: found through
    /// `tool_search`). See [`Tool::visibility`](crate::Tool::visibility).
    pub fn visibility(mut self, visibility: Visibility) -> Self {
        self.visibility = visibility;
        self
    }

    /// MaiBot's `core_tool`: the Action is in the model's tool list on every request
    /// ([`Visibility::Visible`]) instead of deferred.
    pub fn core_tool(self) -> Self {
        self.visibility(Visibility::Visible)
    }

    /// A usage hint (`action_require`).
    pub fn require(mut self, requirement: impl Into<String>) -> Self {
        self.require.push(requirement.into());
        self
    }

    /// A message type the Action suits (`associated_types`).
    pub fn associated_type(mut self, kind: impl Into<String>) -> Self {
        self.associated_types.push(kind.into());
        self
    }

    /// Activation type and keywords.
    pub fn activation<I, S>(mut self, kind: ActivationType, keywords: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.activation_type = kind;
        self.activation_keywords = keywords.into_iter().map(Into::into).collect();
        self
    }

    /// Activation probability for `Random`.
    pub fn activation_probability(mut self, probability: f64) -> Self {
        self.activation_probability = probability;
        self
    }

    /// Whether the Action may run in parallel with others.
    pub fn parallel(mut self, parallel: bool) -> Self {
        self.parallel_action = parallel;
        self
    }

    /// The chat mode.
    pub fn chat_mode(mut self, mode: ChatMode) -> Self {
        self.chat_mode = mode;
        self
    }

    /// The original planner prompt.
    pub fn prompt(mut self, prompt: impl Into<String>) -> Self {
        self.action_prompt = prompt.into();
        self
    }

    pub(crate) fn declaration(&self, plugin_id: &str) -> ComponentDeclaration {
        let mut properties = JsonObject::new();
        let mut action_parameters = JsonObject::new();
        let mut required = Vec::new();
        for (name, description, is_required) in &self.parameters {
            if *is_required {
                required.push(name.clone());
            }
            let description = if description.is_empty() {
                "Legacy Action parameter"
            } else {
                description
            };
            properties.insert(
                name.clone(),
                json!({ "type": "string", "description": description }),
            );
            action_parameters.insert(name.clone(), description.into());
        }
        let description = if self.description.trim().is_empty() {
            format!("Tool {}", self.name)
        } else {
            self.description.clone()
        };
        let metadata = json!({
            "description": description,
            "parameters_raw": { "type": "object", "properties": properties, "required": required },
            "invoke_method": names::INVOKE_ACTION,
            "legacy_action": true,
            "legacy_component_type": "ACTION",
            "visibility": self.visibility.as_str(),
            "handler_name": self.name,
            "activation_type": self.activation_type.as_str(),
            "activation_keywords": self.activation_keywords,
            "activation_probability": self.activation_probability,
            "chat_mode": self.chat_mode.as_str(),
            "action_parameters": action_parameters,
            "action_require": self.require,
            "associated_types": self.associated_types,
            "parallel_action": self.parallel_action,
            "action_prompt": self.action_prompt,
        });
        ComponentDeclaration {
            name: self.name.clone(),
            component_type: "ACTION".into(),
            plugin_id: plugin_id.to_owned(),
            chat_scope: "all".into(),
            allowed_session: Vec::new(),
            metadata: match metadata {
                Value::Object(object) => object,
                _ => JsonObject::new(),
            },
        }
    }

    pub(crate) fn into_handler(self, config: Arc<ConfigSlot>) -> Arc<dyn ComponentHandler> {
        Arc::new(ActionHandler {
            name: self.name,
            execute: self.execute,
            config,
        })
    }
}

struct ActionHandler {
    name: String,
    execute: Arc<ErasedExecute>,
    config: Arc<ConfigSlot>,
}

impl ComponentHandler for ActionHandler {
    fn call(
        &self,
        args: EncodedValue,
        ctx: InvocationContext,
    ) -> BoxFuture<'static, ToolExecutionResult> {
        // An Action reads its arguments as a dynamic map.
        let mut args: JsonObject = match args.decode() {
            Ok(args) => args,
            Err(err) => {
                let message = format!("invalid arguments for action {}: {err}", self.name);
                return std::future::ready(ToolExecutionResult::failure(&self.name, message))
                    .boxed();
            }
        };
        let text = |args: &JsonObject, key: &str| {
            args.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let reasoning = match text(&args, "reasoning") {
            r if r.is_empty() => ctx.execution.reasoning.clone(),
            r => r,
        };
        let action_data = match args.remove("action_data") {
            Some(Value::Object(data)) => data,
            _ => {
                // A host that did not send `action_data`: the model's arguments are the rest.
                let mut data = args.clone();
                for key in CONTEXT_KEYS.iter().chain(&["reasoning"]) {
                    data.remove(*key);
                }
                data
            }
        };
        let input = ActionInput {
            action_data,
            reasoning,
            stream_id: first_non_empty(text(&args, "stream_id"), &ctx.execution.stream_id),
            chat_id: first_non_empty(text(&args, "chat_id"), ctx.chat_id()),
            group_id: first_non_empty(text(&args, "group_id"), &ctx.execution.group_id),
            user_id: first_non_empty(text(&args, "user_id"), &ctx.execution.user_id),
            platform: first_non_empty(text(&args, "platform"), &ctx.execution.platform),
            is_group_chat: ctx.execution.is_group_chat,
            host: HostClient::new(ctx.host.clone()),
            config: self.config.clone(),
        };
        let name = self.name.clone();
        let future = (self.execute)(input);
        async move {
            let (success, message) = future.await;
            let mut result = if success {
                ToolExecutionResult::success(&name, message.clone())
            } else {
                ToolExecutionResult::failure(&name, message.clone())
            };
            result.structured_content = Some(json!([success, message]));
            result
        }
        .boxed()
    }
}

fn first_non_empty(value: String, fallback: &str) -> String {
    if value.is_empty() {
        fallback.to_owned()
    } else {
        value
    }
}
