//! Commands: what a plugin does when a chat message matches a pattern, as MaiBot's
//! `@Command`.
//!
//! The host tries the commands of every plugin on each chat message it receives (`maitool
//! message`, or an engine's `MessageFlow::receive`): the first whose pattern is found in the
//! text (Python regex syntax, named groups `(?P<name>...)`), or whose alias starts it, runs.
//! It answers with a text and decides whether the message stops there or goes on to the
//! `on_message` handlers and the engine.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use maitool_protocol::wire::message_flow::{CommandArgs, CommandReply};
use maitool_protocol::wire::methods::ComponentDeclaration;
use maitool_protocol::{ChatScope, JsonObject};
use maitool_runner::{CommandHandler, InvocationContext};
use serde_json::Value;

use crate::config::ConfigSlot;
use crate::{HostClient, Kv, PluginConfig, Sender, ToolError};

/// What a command receives: the message, the pattern's groups, the chat, and the host.
#[derive(Clone)]
pub struct CommandInput {
    args: CommandArgs,
    invocation: InvocationContext,
    config: Arc<ConfigSlot>,
}

impl std::fmt::Debug for CommandInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandInput")
            .field("text", &self.args.text)
            .field("matched_groups", &self.args.matched_groups)
            .finish_non_exhaustive()
    }
}

impl CommandInput {
    /// The message's text.
    pub fn text(&self) -> &str {
        &self.args.text
    }

    /// What the pattern's named group `name` matched; `None` when the group took no part
    /// (or an alias matched).
    pub fn group(&self, name: &str) -> Option<&str> {
        self.args.matched_groups.get(name).and_then(Value::as_str)
    }

    /// Every named group of the pattern (`null` for a group that took no part).
    pub fn groups(&self) -> &JsonObject {
        &self.args.matched_groups
    }

    /// The chat stream: where [`send`](Self::send) delivers.
    pub fn stream_id(&self) -> &str {
        &self.args.stream_id
    }

    /// The group, empty in a private chat.
    pub fn group_id(&self) -> &str {
        &self.args.group_id
    }

    /// Whether the message was sent in a group.
    pub fn is_group_chat(&self) -> bool {
        !self.args.group_id.is_empty()
    }

    /// The sender.
    pub fn user_id(&self) -> &str {
        &self.args.user_id
    }

    /// The platform, e.g. `qq`.
    pub fn platform(&self) -> &str {
        &self.args.platform
    }

    /// The whole message as MaiBot's message dict (sender's nickname under
    /// `message_info.user_info.user_nickname`, segments under `raw_message`, ...).
    pub fn message(&self) -> Option<&JsonObject> {
        self.args.message.as_ref()
    }

    /// The plugin's typed configuration.
    pub fn config<C: PluginConfig>(&self) -> Option<Arc<C>> {
        self.config.get::<C>()
    }

    /// The client for host capabilities.
    pub fn host(&self) -> HostClient {
        HostClient::new(self.invocation.host.clone())
    }

    /// Messages to the message's chat stream (`send.*` capabilities).
    pub fn send(&self) -> Sender<'_> {
        Sender::new(self.host(), self.stream_id())
    }

    /// This plugin's key-value store on the host (`kv.*` capabilities).
    pub fn kv(&self) -> Kv {
        self.host().kv()
    }
}

/// What a command answers: a text (reported to whoever sent the message; send it to the chat
/// with [`CommandInput::send`]), whether it succeeded, and whether the message stops here.
///
/// ```
/// use maitool_sdk::CommandOutput;
///
/// let done = CommandOutput::reply("Paris: sunny").intercept();
/// let quiet = CommandOutput::silent().continue_processing();
/// let failed = CommandOutput::failed("which city?");
/// # let _ = (done, quiet, failed);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    reply: CommandReply,
}

impl CommandOutput {
    /// Succeeded, answering `text`.
    pub fn reply(text: impl Into<String>) -> Self {
        CommandOutput {
            reply: CommandReply {
                success: true,
                text: Some(text.into()),
                intercept: None,
            },
        }
    }

    /// Succeeded, answering nothing.
    pub fn silent() -> Self {
        CommandOutput {
            reply: CommandReply {
                success: true,
                text: None,
                intercept: None,
            },
        }
    }

    /// Failed, saying why.
    pub fn failed(text: impl Into<String>) -> Self {
        CommandOutput {
            reply: CommandReply {
                success: false,
                text: Some(text.into()),
                intercept: None,
            },
        }
    }

    /// The message stops here, whatever the command declared.
    pub fn intercept(mut self) -> Self {
        self.reply.intercept = Some(true);
        self
    }

    /// The message goes on (to the `on_message` handlers and the engine), whatever the
    /// command declared.
    pub fn continue_processing(mut self) -> Self {
        self.reply.intercept = Some(false);
        self
    }
}

type ErasedRun =
    dyn Fn(CommandInput) -> BoxFuture<'static, Result<CommandOutput, ToolError>> + Send + Sync;

/// A command: runs when a chat message matches its pattern or starts with an alias.
///
/// The pattern is Python's regex syntax (MaiBot plugins' patterns work unchanged), searched
/// anywhere in the text: anchor it with `^`. Named groups reach the handler through
/// [`CommandInput::group`]. Unless [`intercept`](Self::intercept) is set (or the handler
/// says otherwise with [`CommandOutput::intercept`]), the message goes on after the command,
/// as in MaiBot.
///
/// ```
/// use maitool_sdk::prelude::*;
///
/// let weather = Command::new("weather", "The weather of a city", |input: CommandInput| async move {
///     let city = input.group("city").unwrap_or("Paris").to_owned();
///     input.send().text(format!("{city}: sunny")).await?;
///     Ok(CommandOutput::reply(format!("told the weather of {city}")))
/// })
/// .pattern(r"^/weather\s+(?P<city>\S+)")
/// .alias("/天气")
/// .intercept();
/// let plugin = Plugin::new("examples.weather", "1.0.0")
///     .capability("send.text")
///     .command(weather);
/// # let _ = plugin;
/// ```
pub struct Command {
    pub(crate) name: String,
    description: String,
    pattern: String,
    aliases: Vec<String>,
    intercepts: bool,
    chat_scope: ChatScope,
    allowed_sessions: Vec<String>,
    enabled: bool,
    timeout: Option<Duration>,
    run: Arc<ErasedRun>,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Command")
            .field("name", &self.name)
            .field("pattern", &self.pattern)
            .field("aliases", &self.aliases)
            .finish_non_exhaustive()
    }
}

impl Command {
    /// A command named `name` (unique in the plugin), run by `handler`. Give it a
    /// [`pattern`](Self::pattern) or an [`alias`](Self::alias), or nothing calls it.
    pub fn new<F, Fut>(name: impl Into<String>, description: impl Into<String>, handler: F) -> Self
    where
        F: Fn(CommandInput) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CommandOutput, ToolError>> + Send + 'static,
    {
        Command {
            name: name.into(),
            description: description.into(),
            pattern: String::new(),
            aliases: Vec::new(),
            intercepts: false,
            chat_scope: ChatScope::All,
            allowed_sessions: Vec::new(),
            enabled: true,
            timeout: None,
            run: Arc::new(move |input| handler(input).boxed()),
        }
    }

    /// The regular expression (Python syntax) searched in the message's text. A pattern that
    /// does not compile leaves the command reachable by its aliases only, and `maitool
    /// plugins` says why.
    pub fn pattern(mut self, pattern: impl Into<String>) -> Self {
        self.pattern = pattern.into();
        self
    }

    /// A prefix that calls the command too (tried after every pattern failed to match).
    pub fn alias(mut self, alias: impl Into<String>) -> Self {
        self.aliases.push(alias.into());
        self
    }

    /// The message stops after the command by default (MaiBot's `intercept_message_level =
    /// 1`): no `on_message` handler and no engine sees it.
    pub fn intercept(mut self) -> Self {
        self.intercepts = true;
        self
    }

    /// In which chats the command answers (default: all).
    pub fn chat_scope(mut self, scope: ChatScope) -> Self {
        self.chat_scope = scope;
        self
    }

    /// Answers only in these sessions (stream id, group id or `platform:group_id`).
    pub fn allowed_sessions<I, S>(mut self, sessions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_sessions = sessions.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the command is enabled (default true).
    pub fn enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// How long the host waits for the command (default: the host's component timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    pub(crate) fn declaration(&self, plugin_id: &str) -> ComponentDeclaration {
        let mut metadata = JsonObject::new();
        metadata.insert("description".into(), self.description.clone().into());
        metadata.insert("command_pattern".into(), self.pattern.clone().into());
        metadata.insert("aliases".into(), self.aliases.clone().into());
        metadata.insert(
            "intercept_message_level".into(),
            u8::from(self.intercepts).into(),
        );
        metadata.insert("enabled".into(), self.enabled.into());
        metadata.insert("handler_name".into(), self.name.clone().into());
        if let Some(timeout) = self.timeout {
            metadata.insert("timeout_ms".into(), (timeout.as_millis() as u64).into());
        }
        ComponentDeclaration {
            name: self.name.clone(),
            component_type: "COMMAND".into(),
            plugin_id: plugin_id.to_owned(),
            chat_scope: self.chat_scope.as_str().into(),
            allowed_session: self.allowed_sessions.clone(),
            metadata,
        }
    }

    pub(crate) fn into_handler(self, config: Arc<ConfigSlot>) -> Arc<dyn CommandHandler> {
        Arc::new(RunCommand {
            run: self.run,
            config,
        })
    }
}

struct RunCommand {
    run: Arc<ErasedRun>,
    config: Arc<ConfigSlot>,
}

impl CommandHandler for RunCommand {
    fn call(
        &self,
        args: CommandArgs,
        ctx: InvocationContext,
    ) -> BoxFuture<'static, Result<CommandReply, String>> {
        let input = CommandInput {
            args,
            invocation: ctx,
            config: self.config.clone(),
        };
        (self.run)(input)
            .map(|outcome| match outcome {
                Ok(output) => Ok(output.reply),
                Err(err) => Err(err.message().to_owned()),
            })
            .boxed()
    }
}

#[cfg(test)]
mod tests;
