//! What makes a component run: a call by name (tools and Actions), a chat message that
//! matches (commands), an event (event handlers), or nothing maitool does (the other MaiBot
//! kinds). Read from the declaration's metadata, as MaiBot's `ComponentRegistry` reads it.

use maitool_protocol::command_match::CommandMatcher;
use maitool_protocol::wire::message_flow::EventType;
use maitool_protocol::{JsonObject, python_truth};
use serde_json::Value;

/// What makes a component run.
#[derive(Debug, Clone)]
pub enum Trigger {
    /// A tool or a converted legacy Action: a call by name.
    Call,
    /// A command: a chat message whose text matches.
    Command(CommandTrigger),
    /// An event handler: an event of its type.
    Event(EventTrigger),
    /// A component kind the host never runs (`HOOK_HANDLER`, `MESSAGE_GATEWAY`, `API`, ...).
    Never,
}

/// How a command is matched, and what it does to the message by default.
#[derive(Debug, Clone)]
pub struct CommandTrigger {
    /// Its pattern and aliases.
    pub matcher: CommandMatcher,
    /// Whether the message stops after the command unless the command says otherwise
    /// (MaiBot's `intercept_message_level`, any non-zero level).
    pub intercepts: bool,
}

/// Which event an event handler takes, and where it stands among the others.
#[derive(Debug, Clone)]
pub struct EventTrigger {
    /// The event.
    pub event_type: EventType,
    /// Higher runs first.
    pub weight: i64,
    /// Waited for, in weight order, and able to change or stop the message; otherwise run
    /// without waiting, after those, and unable to.
    pub intercept_message: bool,
}

impl Trigger {
    /// The trigger of a component of type `component_type` (upper case) declared with
    /// `metadata`.
    pub(super) fn of(component_type: &str, is_tool: bool, metadata: &JsonObject) -> Trigger {
        if is_tool {
            return Trigger::Call;
        }
        match component_type {
            "COMMAND" => {
                let aliases = match metadata.get("aliases") {
                    Some(Value::Array(items)) => items
                        .iter()
                        .filter_map(|alias| alias.as_str().map(str::to_owned))
                        .collect(),
                    Some(Value::String(alias)) => vec![alias.clone()],
                    _ => Vec::new(),
                };
                let pattern = metadata
                    .get("command_pattern")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                Trigger::Command(CommandTrigger {
                    matcher: CommandMatcher::new(pattern, aliases),
                    intercepts: metadata
                        .get("intercept_message_level")
                        .or_else(|| metadata.get("intercept_message"))
                        .is_some_and(python_truth),
                })
            }
            "EVENT_HANDLER" => Trigger::Event(EventTrigger {
                event_type: event_type(metadata.get("event_type")),
                weight: metadata
                    .get("weight")
                    .and_then(|w| w.as_i64().or_else(|| w.as_f64().map(|f| f as i64)))
                    .unwrap_or(0),
                intercept_message: metadata.get("intercept_message").is_some_and(python_truth),
            }),
            _ => Trigger::Never,
        }
    }
}

/// The declared event type. MaiBot's default is `on_message`; a legacy plugin may send the
/// Python text of its enum member (`EventType.ON_MESSAGE`).
fn event_type(value: Option<&Value>) -> EventType {
    let name = value.and_then(Value::as_str).unwrap_or("on_message").trim();
    let name = name.strip_prefix("EventType.").unwrap_or(name);
    if name.is_empty() {
        return EventType::OnMessage;
    }
    // `ON_MESSAGE` names `on_message`; an unknown name is kept as declared.
    match EventType::from(name) {
        EventType::Other(_) => match EventType::from(name.to_ascii_lowercase()) {
            EventType::Other(_) => EventType::from(name),
            known => known,
        },
        known => known,
    }
}
