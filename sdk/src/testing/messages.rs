//! Chat messages to a started plugin: its commands matched and run, its event handlers run,
//! as the host's message flow does it.

use std::time::Duration;

use maitool_protocol::command_match::{CommandMatcher, first_match};
use maitool_protocol::wire::message_flow::{
    CommandArgs, CommandReply, EventArgs, EventResultPayload, EventType,
};
use maitool_protocol::wire::methods::{
    ComponentDeclaration, InvokePayload, InvokeResultPayload, names,
};
use maitool_protocol::{JsonObject, python_truth};
use serde_json::{Value, json};

use super::{RunningPlugin, TestError};

/// The host's limit of a component that declares none.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// What a command did with a message ([`RunningPlugin::command`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CommandResult {
    /// The command that matched.
    pub name: String,
    /// The pattern's named groups (`null` for a group that took no part).
    pub matched_groups: JsonObject,
    /// Whether it succeeded.
    pub success: bool,
    /// What it answered.
    pub reply: Option<String>,
    /// Whether the message stops after it (its answer, else its declaration).
    pub intercepted: bool,
}

/// One event handler's answer ([`RunningPlugin::emit`]).
#[derive(Debug, Clone, PartialEq)]
pub struct HandlerResult {
    /// The handler.
    pub name: String,
    /// Whether the host would have waited for it (declared `intercept_message`).
    pub waited: bool,
    /// What it answered.
    pub answer: EventResultPayload,
}

/// What the plugin's handlers of one event did ([`RunningPlugin::emit`]).
#[derive(Debug, Clone, PartialEq)]
pub struct EventResult {
    /// False when a waited-for handler stopped the message.
    pub continued: bool,
    /// The handler that stopped it.
    pub stopped_by: Option<String>,
    /// The message as the waited-for handlers left it.
    pub message: Option<JsonObject>,
    /// Every handler that ran, in the order the host runs them.
    pub handlers: Vec<HandlerResult>,
}

impl RunningPlugin {
    /// The chat messages the plugin handed the host (`HostClient::route_message`), as
    /// `(gateway, MaiBot message dict)`, in order. The test host runs no message flow: it
    /// answers each as accepted, with no outcome.
    pub fn routed(&self) -> Vec<(String, JsonObject)> {
        self.state
            .routed
            .lock()
            .iter()
            .map(|r| (r.gateway_name.clone(), r.message.clone()))
            .collect()
    }

    /// A MaiBot message dict of `text`, sent by the test's user in the test's chat: what
    /// the host gives commands and event handlers.
    pub fn message_dict(&self, text: &str) -> JsonObject {
        let context = &self.context;
        let group = (!context.group_id.is_empty())
            .then(|| json!({ "group_id": context.group_id, "group_name": "" }));
        let dict = json!({
            "message_id": "test-message",
            "timestamp": "0",
            "platform": context.platform,
            "message_info": {
                "user_info": {
                    "user_id": context.user_id,
                    "user_nickname": context.user_id,
                    "user_cardname": null,
                },
                "group_info": group,
                "additional_config": {},
            },
            "raw_message": [{ "type": "text", "data": text }],
            "is_mentioned": false,
            "is_at": false,
            "is_emoji": false,
            "is_picture": false,
            "is_command": false,
            "is_notify": false,
            "session_id": context.stream_id,
            "reply_to": null,
            "processed_plain_text": text,
        });
        match dict {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        }
    }

    /// Hands the plugin a chat message `text` in the test's context, as the host does: the
    /// first of its commands whose pattern is found in the text, else the one with the
    /// longest alias that starts it, runs (`plugin.invoke_command`). Disabled commands are
    /// skipped.
    ///
    /// `Err(TestError::NoCommand)` when none matches; a command that fails is `Ok` with
    /// `success: false`.
    ///
    /// ```
    /// use maitool_sdk::prelude::*;
    /// use maitool_sdk::testing::PluginTest;
    ///
    /// async fn check() -> Result<(), Box<dyn std::error::Error>> {
    ///     let echo = Command::new("echo", "Says it back", |input: CommandInput| async move {
    ///         Ok(CommandOutput::reply(input.group("rest").unwrap_or_default().to_owned()))
    ///     })
    ///     .pattern(r"^/echo\s+(?P<rest>.+)")
    ///     .intercept();
    ///     let t = PluginTest::new(Plugin::new("examples.echo", "1.0.0").command(echo))
    ///         .start()
    ///         .await?;
    ///     let result = t.command("/echo hi there").await?;
    ///     assert_eq!(result.reply.as_deref(), Some("hi there"));
    ///     assert!(result.intercepted);
    ///     assert!(t.command("hello").await.is_err());
    ///     Ok(())
    /// }
    /// # fn main() {
    /// #     let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// #     runtime.block_on(check()).unwrap();
    /// # }
    /// ```
    pub async fn command(&self, text: &str) -> Result<CommandResult, TestError> {
        let declarations = self.declarations();
        let commands: Vec<&ComponentDeclaration> = declarations
            .iter()
            .filter(|d| d.component_type == "COMMAND" && enabled(d))
            .collect();
        let matchers: Vec<CommandMatcher> = commands.iter().map(|d| matcher(d)).collect();
        let hit = first_match(commands.iter().copied().zip(&matchers), text);
        let Some((declaration, hit)) = hit else {
            return Err(TestError::NoCommand {
                text: text.to_owned(),
                commands: commands
                    .iter()
                    .map(|d| {
                        let m = matcher(d);
                        format!("{} /{}/ {:?}", d.name, m.pattern(), m.aliases())
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        let context = &self.context;
        let args = CommandArgs {
            text: text.to_owned(),
            stream_id: context.stream_id.clone(),
            group_id: context.group_id.clone(),
            platform: context.platform.clone(),
            user_id: context.user_id.clone(),
            is_local_operator: false,
            matched_groups: hit.groups.clone(),
            message: Some(self.message_dict(text)),
            plugin_config: None,
        };
        let payload = InvokePayload {
            component_name: declaration.name.clone(),
            args: args.into_object(),
            context: Some(context.clone()),
            call_id: String::new(),
        };
        let answer: InvokeResultPayload = self
            .peer
            .call(
                names::INVOKE_COMMAND,
                &self.state.plugin_id,
                &payload,
                timeout(declaration),
            )
            .await
            .map_err(TestError::Call)?;
        let reply = CommandReply::from_answer(&answer);
        let declared = declaration
            .metadata
            .get("intercept_message_level")
            .is_some_and(python_truth);
        Ok(CommandResult {
            name: declaration.name.clone(),
            matched_groups: hit.groups,
            success: reply.success,
            reply: reply.text,
            intercepted: reply.intercept.unwrap_or(declared),
        })
    }

    /// Runs the plugin's handlers of `event` about `message` (e.g. [`message_dict`]), as the
    /// host does: highest weight first, the ones declared `intercept_message` one after the
    /// other, each seeing the message as the previous left it, until one stops it; then the
    /// others with the final message (the host does not wait for those; this does, to give
    /// their answers). Disabled handlers are skipped.
    ///
    /// [`message_dict`]: Self::message_dict
    pub async fn emit(
        &self,
        event: EventType,
        message: Option<JsonObject>,
    ) -> Result<EventResult, TestError> {
        let mut handlers: Vec<(i64, bool, ComponentDeclaration)> = self
            .declarations()
            .into_iter()
            .filter(|d| d.component_type == "EVENT_HANDLER" && enabled(d))
            .filter(|d| {
                d.metadata.get("event_type").and_then(Value::as_str) == Some(event.as_str())
            })
            .map(|d| {
                let weight = d
                    .metadata
                    .get("weight")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                let waited = d
                    .metadata
                    .get("intercept_message")
                    .is_some_and(python_truth);
                (weight, waited, d)
            })
            .collect();
        handlers.sort_by_key(|h| std::cmp::Reverse(h.0));
        let mut result = EventResult {
            continued: true,
            stopped_by: None,
            message,
            handlers: Vec::new(),
        };
        let (waited, others): (Vec<_>, Vec<_>) =
            handlers.into_iter().partition(|(_, waited, _)| *waited);
        for (_, _, declaration) in waited {
            let answer = self
                .run_handler(&event, &declaration, &result.message)
                .await?;
            let stop = !answer.continue_processing;
            if let Some(changed) = answer.modified_message.clone().filter(|m| !m.is_empty()) {
                result.message = Some(changed);
            }
            result.handlers.push(HandlerResult {
                name: declaration.name.clone(),
                waited: true,
                answer,
            });
            if stop {
                result.continued = false;
                result.stopped_by = Some(declaration.name.clone());
                return Ok(result);
            }
        }
        for (_, _, declaration) in others {
            let answer = self
                .run_handler(&event, &declaration, &result.message)
                .await?;
            result.handlers.push(HandlerResult {
                name: declaration.name.clone(),
                waited: false,
                answer,
            });
        }
        Ok(result)
    }

    async fn run_handler(
        &self,
        event: &EventType,
        declaration: &ComponentDeclaration,
        message: &Option<JsonObject>,
    ) -> Result<EventResultPayload, TestError> {
        let payload = InvokePayload {
            component_name: declaration.name.clone(),
            args: EventArgs::new(event.clone(), message.clone()).into_object(),
            context: Some(self.context.clone()),
            call_id: String::new(),
        };
        self.peer
            .call(
                names::EMIT_EVENT,
                &self.state.plugin_id,
                &payload,
                timeout(declaration),
            )
            .await
            .map_err(TestError::Call)
    }
}

fn enabled(declaration: &ComponentDeclaration) -> bool {
    declaration.metadata.get("enabled") != Some(&Value::Bool(false))
}

fn matcher(declaration: &ComponentDeclaration) -> CommandMatcher {
    let metadata = &declaration.metadata;
    let aliases = metadata
        .get("aliases")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|a| a.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    CommandMatcher::new(
        metadata
            .get("command_pattern")
            .and_then(Value::as_str)
            .unwrap_or_default(),
        aliases,
    )
}

fn timeout(declaration: &ComponentDeclaration) -> Duration {
    declaration
        .metadata
        .get("timeout_ms")
        .and_then(Value::as_u64)
        .filter(|ms| *ms > 0)
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_TIMEOUT)
}
