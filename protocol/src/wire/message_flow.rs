//! The payloads of the message flow: a chat message's commands (`plugin.invoke_command`) and
//! the event handlers of MaiBot's event system (`plugin.emit_event`).
//!
//! Both requests are an [`InvokePayload`]: the component's name and its `args`, which are
//! MaiBot's keyword arguments (a MaiBot runner calls the handler as `handler(**args)`).
//! [`CommandArgs`] and [`EventArgs`] are those arguments, typed; [`CommandReply`] and
//! [`EventResultPayload`] read the answers. A plugin hands the host a chat message with
//! `host.route_message` ([`RouteMessagePayload`]). docs/PROTOCOL.md shows each in MessagePack.
//!
//! [`InvokePayload`]: super::methods::InvokePayload

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::methods::InvokeResultPayload;
use crate::model::{JsonObject, python_truth};

/// An event of MaiBot's event system, by its wire name (`on_message`, `post_send`, ...).
///
/// The ten names MaiBot defines have their own variant; any other name (an engine's own
/// event) is [`EventType::Other`], so that a handler declared for it still registers.
///
/// ```
/// use maitool_protocol::wire::message_flow::EventType;
///
/// let event: EventType = "on_message_pre_process".parse().unwrap();
/// assert_eq!(event, EventType::OnMessagePreProcess);
/// assert!(event.carries_message());
/// assert_eq!(EventType::from("my_engine.tick").as_str(), "my_engine.tick");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum EventType {
    /// The bot started.
    OnStart,
    /// The bot is stopping.
    OnStop,
    /// A message arrived, before commands are matched: handlers may change or stop it.
    OnMessagePreProcess,
    /// A message that no command intercepted: handlers may change or stop it.
    OnMessage,
    /// The planner chose its actions.
    OnPlan,
    /// Before the language model is asked.
    PostLlm,
    /// After the language model answered.
    AfterLlm,
    /// Before a message is sent: handlers may change or stop it.
    PostSendPreProcess,
    /// A message about to be sent: handlers may change or stop it.
    PostSend,
    /// A message was sent.
    AfterSend,
    /// Any other name.
    Other(String),
}

impl EventType {
    /// MaiBot's ten event types, in its order.
    pub const MAIBOT: [EventType; 10] = [
        EventType::OnStart,
        EventType::OnStop,
        EventType::OnMessagePreProcess,
        EventType::OnMessage,
        EventType::OnPlan,
        EventType::PostLlm,
        EventType::AfterLlm,
        EventType::PostSendPreProcess,
        EventType::PostSend,
        EventType::AfterSend,
    ];

    /// The wire name.
    pub fn as_str(&self) -> &str {
        match self {
            EventType::OnStart => "on_start",
            EventType::OnStop => "on_stop",
            EventType::OnMessagePreProcess => "on_message_pre_process",
            EventType::OnMessage => "on_message",
            EventType::OnPlan => "on_plan",
            EventType::PostLlm => "post_llm",
            EventType::AfterLlm => "after_llm",
            EventType::PostSendPreProcess => "post_send_pre_process",
            EventType::PostSend => "post_send",
            EventType::AfterSend => "after_send",
            EventType::Other(name) => name,
        }
    }

    /// Whether the event is about one message, which its handlers get as `message` and may
    /// change (`modified_message`).
    pub fn carries_message(&self) -> bool {
        matches!(
            self,
            EventType::OnMessagePreProcess
                | EventType::OnMessage
                | EventType::PostSendPreProcess
                | EventType::PostSend
                | EventType::AfterSend
        )
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for EventType {
    fn from(name: &str) -> Self {
        let name = name.trim();
        EventType::MAIBOT
            .iter()
            .find(|event| event.as_str() == name)
            .cloned()
            .unwrap_or_else(|| EventType::Other(name.to_owned()))
    }
}

impl From<String> for EventType {
    fn from(name: String) -> Self {
        match EventType::from(name.as_str()) {
            EventType::Other(_) => EventType::Other(name.trim().to_owned()),
            known => known,
        }
    }
}

impl From<EventType> for String {
    fn from(event: EventType) -> Self {
        match event {
            EventType::Other(name) => name,
            known => known.as_str().to_owned(),
        }
    }
}

impl FromStr for EventType {
    type Err = std::convert::Infallible;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Ok(EventType::from(name))
    }
}

/// The `args` of a `plugin.invoke_command` request: what MaiBot's host passes a command.
///
/// `matched_groups` holds the named groups of the command's pattern (a group that did not
/// take part in the match is `nil`), empty when an alias matched. `message` is the
/// triggering message as a MaiBot message dict, without image bytes.
///
/// ```
/// use maitool_protocol::wire::message_flow::CommandArgs;
/// use serde_json::json;
///
/// let args = CommandArgs {
///     text: "/weather Paris".into(),
///     stream_id: "st1".into(),
///     platform: "qq".into(),
///     user_id: "u1".into(),
///     matched_groups: json!({"city": "Paris"}).as_object().unwrap().clone(),
///     ..CommandArgs::default()
/// };
/// let bytes = rmp_serde::to_vec_named(&args).unwrap();
/// let back: CommandArgs = rmp_serde::from_slice(&bytes).unwrap();
/// assert_eq!(back, args);
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommandArgs {
    /// The message's plain text.
    pub text: String,
    /// The chat stream.
    pub stream_id: String,
    /// The group, empty in a private chat.
    pub group_id: String,
    /// The platform (`qq`, ...).
    pub platform: String,
    /// The sender.
    pub user_id: String,
    /// Whether the sender is the bot's local operator (MaiBot's debugging console).
    pub is_local_operator: bool,
    /// The pattern's named groups: group name to the matched text, or `nil`.
    pub matched_groups: JsonObject,
    /// The message as a MaiBot message dict (no image bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<JsonObject>,
    /// The plugin's current configuration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin_config: Option<JsonObject>,
}

impl CommandArgs {
    /// The arguments as the request's `args` map.
    pub fn into_object(self) -> JsonObject {
        match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            // A struct of strings and maps always serializes to a map.
            _ => JsonObject::new(),
        }
    }
}

/// What a command answered: MaiBot's `(success, text, intercept)`.
///
/// A MaiBot runner answers `{success, result}` with the handler's return value as `result`:
/// usually the triple `[success, text, intercept]`, sometimes `[success, text]`, a plain
/// value, or nothing; `success` is false when the handler raised, with the exception's text
/// as `result`. [`CommandReply::from_answer`] reads every form; a maitool runner answers with
/// [`CommandReply::into_answer`].
///
/// ```
/// use maitool_protocol::wire::message_flow::CommandReply;
/// use maitool_protocol::wire::methods::InvokeResultPayload;
/// use serde_json::json;
///
/// let answer = InvokeResultPayload {
///     success: true,
///     result: Some(json!([true, "Paris: sunny", true])),
///     tool_result: None,
/// };
/// let reply = CommandReply::from_answer(&answer);
/// assert!(reply.success);
/// assert_eq!(reply.text.as_deref(), Some("Paris: sunny"));
/// assert_eq!(reply.intercept, Some(true));
/// assert_eq!(CommandReply::from_answer(&reply.clone().into_answer()), reply);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommandReply {
    /// Whether the command did what it was asked.
    pub success: bool,
    /// What it answered, if anything (MaiBot does not send it; the host reports it).
    pub text: Option<String>,
    /// Whether the message stops here; `None` leaves it to the command's declaration
    /// (`intercept_message_level`).
    pub intercept: Option<bool>,
}

impl CommandReply {
    /// Reads an answer to `plugin.invoke_command`.
    ///
    /// `success` is the answer's `success` and, when the result is a list starting with a
    /// boolean, that boolean too (MaiBot reads only the former, so `(False, "...", True)`
    /// counted as a success there).
    pub fn from_answer(answer: &InvokeResultPayload) -> CommandReply {
        let text_of = |value: &Value| match value {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            other => Some(other.to_string()),
        };
        match &answer.result {
            Some(Value::Array(items)) if items.len() >= 2 && items[0].is_boolean() => {
                CommandReply {
                    success: answer.success && items[0].as_bool() == Some(true),
                    text: text_of(&items[1]),
                    intercept: items.get(2).map(python_truth),
                }
            }
            Some(Value::Array(items)) if items.len() >= 3 => CommandReply {
                success: answer.success,
                text: text_of(&items[1]),
                intercept: Some(python_truth(&items[2])),
            },
            Some(value) => CommandReply {
                success: answer.success,
                text: text_of(value),
                intercept: None,
            },
            None => CommandReply {
                success: answer.success,
                text: None,
                intercept: None,
            },
        }
    }

    /// The answer a runner sends for this reply: `result` is `[success, text]`, with the
    /// intercept decision as a third item when the command made one.
    pub fn into_answer(self) -> InvokeResultPayload {
        let text = self.text.map(Value::String).unwrap_or(Value::Null);
        let mut items = vec![Value::Bool(self.success), text];
        if let Some(intercept) = self.intercept {
            items.push(Value::Bool(intercept));
        }
        InvokeResultPayload {
            success: true,
            result: Some(Value::Array(items)),
            tool_result: None,
        }
    }
}

/// The `args` of a `plugin.emit_event` request: the event's name, the message it is about
/// (a MaiBot message dict; absent for events about none), and whatever else the emitter
/// passed, each as its own key.
///
/// ```
/// use maitool_protocol::wire::message_flow::{EventArgs, EventType};
///
/// let args = EventArgs::new(EventType::OnMessage, None);
/// let map = args.clone().into_object();
/// assert_eq!(map["event_type"], "on_message");
/// assert_eq!(map["message"], serde_json::Value::Null);
/// let back: EventArgs = serde_json::from_value(map.into()).unwrap();
/// assert_eq!(back, args);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventArgs {
    /// The event.
    pub event_type: EventType,
    /// The message, as a MaiBot message dict; `nil` when the event is about none.
    #[serde(default)]
    pub message: Option<JsonObject>,
    /// Further keyword arguments of the event.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl EventArgs {
    /// Arguments of `event` about `message`, with no others.
    pub fn new(event_type: EventType, message: Option<JsonObject>) -> EventArgs {
        EventArgs {
            event_type,
            message,
            extra: JsonObject::new(),
        }
    }

    /// The arguments as the request's `args` map.
    pub fn into_object(self) -> JsonObject {
        let mut map = self.extra;
        map.insert("event_type".into(), Value::String(self.event_type.into()));
        map.insert(
            "message".into(),
            self.message.map(Value::Object).unwrap_or(Value::Null),
        );
        map
    }
}

/// The answer to `plugin.emit_event`, as MaiBot's runner flattens a handler's return value.
///
/// A handler stops the message with `continue_processing: false` (only a handler declared
/// `intercept_message` is waited for, so only it can), and changes it with
/// `modified_message`, a whole message dict. Missing keys read as their defaults: a handler
/// that returns nothing lets the message go on unchanged.
///
/// ```
/// use maitool_protocol::wire::message_flow::EventResultPayload;
///
/// let stop = EventResultPayload { continue_processing: false, ..EventResultPayload::default() };
/// let bytes = rmp_serde::to_vec_named(&stop).unwrap();
/// let back: EventResultPayload = rmp_serde::from_slice(&bytes).unwrap();
/// assert!(back.success && !back.continue_processing);
/// let empty: EventResultPayload = rmp_serde::from_slice(&rmp_serde::to_vec_named(&serde_json::json!({})).unwrap()).unwrap();
/// assert!(empty.success && empty.continue_processing);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EventResultPayload {
    /// False when the handler raised.
    pub success: bool,
    /// False: the message stops here.
    pub continue_processing: bool,
    /// The message as the handler changed it (a whole message dict).
    pub modified_message: Option<JsonObject>,
    /// Anything else the handler returned.
    pub custom_result: Option<Value>,
}

impl Default for EventResultPayload {
    fn default() -> Self {
        EventResultPayload {
            success: true,
            continue_processing: true,
            modified_message: None,
            custom_result: None,
        }
    }
}

/// `host.route_message` request: a plugin hands the host a chat message it received from
/// outside (MaiBot's message gateways: an adapter bridging a chat platform). The plugin must
/// have declared a `MESSAGE_GATEWAY` component named `gateway_name` that receives
/// (`route_type` `receive` or `duplex`). MaiBot's `RouteMessagePayload`.
///
/// ```
/// use maitool_protocol::wire::message_flow::RouteMessagePayload;
/// use serde_json::json;
///
/// let payload = RouteMessagePayload {
///     gateway_name: "inbox".into(),
///     message: json!({"message_id": "m1", "processed_plain_text": "hi"})
///         .as_object().unwrap().clone(),
///     ..RouteMessagePayload::default()
/// };
/// let bytes = rmp_serde::to_vec_named(&payload).unwrap();
/// assert_eq!(rmp_serde::from_slice::<RouteMessagePayload>(&bytes).unwrap(), payload);
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RouteMessagePayload {
    /// The receiving gateway component of the calling plugin.
    pub gateway_name: String,
    /// The message, a MaiBot message dict.
    pub message: JsonObject,
    /// Routing hints of the gateway (kept for MaiBot compatibility; the host reads none).
    pub route_metadata: JsonObject,
    /// The platform's own id of the message.
    pub external_message_id: String,
    /// A key to drop duplicates by (the message id serves when it is empty).
    pub dedupe_key: String,
}

/// Answer to `host.route_message`. MaiBot's `ReceiveExternalMessageResultPayload`, with the
/// flow's account added.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RouteMessageResponse {
    /// Whether the host took the message (false: `reason` says why).
    pub accepted: bool,
    /// The route the message took: `platform`, `stream_id`.
    pub route_key: JsonObject,
    /// (maitool) Why the message was refused.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// (maitool) What happened to the message: the host's account of its way through the
    /// flow (the same map `maitool message --json` prints).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Value>,
}

/// `host.update_message_gateway_state` request: a gateway says whether its link to the
/// platform is up. MaiBot's payload; maitool acknowledges it and routes regardless.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct GatewayStatePayload {
    /// The gateway component.
    pub gateway_name: String,
    /// Whether the link is up.
    pub ready: bool,
    /// The platform it serves.
    pub platform: String,
    /// The bot's account on it.
    pub account_id: String,
    /// Its routing scope.
    pub scope: String,
    /// Anything else.
    pub metadata: JsonObject,
}

/// Answer to `host.update_message_gateway_state`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct GatewayStateResponse {
    /// Whether the host took the update (false: no such receiving gateway).
    pub accepted: bool,
}

#[cfg(test)]
mod tests;
