//! What happened to a message: where it stopped, which command ran and what it answered,
//! which handlers saw it, what the bot sent meanwhile, and whether it was stored.

use maitool_protocol::JsonObject;
use maitool_protocol::wire::message_flow::EventType;
use serde::{Deserialize, Serialize};

/// The account of one message's way through the flow (`maitool message --json` prints it).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MessageOutcome {
    /// The message's id (made by the host when the sender gave none).
    pub message_id: String,
    /// Its stream.
    pub stream_id: String,
    /// Its text after every change handlers and hooks made.
    pub text: String,
    /// Whether it is in the store's history now.
    pub stored: bool,
    /// Why it was not stored, when it was not.
    pub not_stored_because: Option<String>,
    /// Where the message stopped before the end of the flow, and who stopped it.
    pub stopped: Option<Stop>,
    /// The command the message matched, and how it went.
    pub command: Option<CommandRun>,
    /// Every event handler the message reached, in the order they were started.
    pub handlers: Vec<HandlerRun>,
    /// Hooks that changed or aborted the message, or failed.
    pub hooks: Vec<HookRun>,
    /// What plugins sent to the message's stream while it was processed.
    pub sent: Vec<SentMessage>,
}

/// Where and by whom a message was stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stop {
    /// The point: an event (`on_message_pre_process`), a hook (`chat.receive.before_process`)
    /// or `command`.
    pub at: String,
    /// The handler, hook handler or command (`plugin_id.name`).
    pub by: String,
}

/// A command the message ran.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CommandRun {
    /// `plugin_id.name`.
    pub full_name: String,
    /// The plugin.
    pub plugin_id: String,
    /// `pattern`, or `alias ALIAS`.
    pub matched_by: String,
    /// The pattern's named groups.
    pub matched_groups: JsonObject,
    /// Whether it ran at all (a hook may abort it first).
    pub ran: bool,
    /// Whether it succeeded.
    pub success: bool,
    /// What it answered (MaiBot does not send this text; what the command sent itself is in
    /// [`MessageOutcome::sent`]).
    pub reply: Option<String>,
    /// Whether it stopped the message.
    pub intercepted: bool,
    /// Why it failed to run (its runner crashed, timed out, refused).
    pub error: Option<String>,
}

/// One event handler the message reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandlerRun {
    /// The event.
    pub event: EventType,
    /// `plugin_id.name`.
    pub handler: String,
    /// Its weight.
    pub weight: i64,
    /// Whether the flow waited for it (declared `intercept_message`); the others run on
    /// their own and report nothing here.
    pub waited: bool,
    /// What it answered, when waited for and it answered.
    pub success: Option<bool>,
    /// Whether it let the message go on.
    pub continued: bool,
    /// Whether it changed the message.
    pub modified: bool,
    /// Anything else it returned (`custom_result`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_result: Option<serde_json::Value>,
    /// Why it did not answer (crashed, timed out); the message went on.
    pub error: Option<String>,
}

/// A hook point that did something to the message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookRun {
    /// The hook (`chat.receive.before_process`, ...).
    pub hook: String,
    /// The handler that aborted, if one did.
    pub aborted_by: Option<String>,
    /// Whether the message's text changed.
    pub modified: bool,
    /// Handlers that failed on the way.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

/// A message a plugin sent to the stream while the message was processed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SentMessage {
    /// Its id in the store (or the sink's id).
    pub message_id: String,
    /// The sending plugin.
    pub plugin_id: String,
    /// `text`, `image`, `emoji`, ...
    pub kind: String,
    /// Its text.
    pub text: String,
}
