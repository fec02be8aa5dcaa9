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
    /// A message gateway: its plugin hands the host chat messages through it
    /// (`host.route_message`) when it receives; maitool sends nothing through gateways.
    Gateway {
        /// `route_type` `receive` or `duplex`.
        receives: bool,
    },
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
    /// Declared `permission = "operator"`: only operators may run it.
    pub operator_only: bool,
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
                    operator_only: metadata
                        .get("permission")
                        .and_then(Value::as_str)
                        .is_some_and(|p| p.trim().eq_ignore_ascii_case("operator")),
                })
            }
            "MESSAGE_GATEWAY" => Trigger::Gateway {
                receives: matches!(
                    metadata
                        .get("route_type")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .trim()
                        .to_ascii_lowercase()
                        .as_str(),
                    "receive" | "recv" | "recive" | "duplex"
                ),
            },
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

/// Who fires an event: the message flow (`messages/`) for the message and send events,
/// `maitool serve` for `on_start` and `on_stop`, the embedding engine for the rest. Kept in
/// step with `messages/mod.rs` and `messages/send_events.rs`.
pub fn event_source(event: &EventType) -> &'static str {
    match event {
        EventType::OnMessagePreProcess | EventType::OnMessage => {
            "the host, for every chat message it receives (`maitool message`)"
        }
        EventType::PostSendPreProcess | EventType::PostSend | EventType::AfterSend => {
            "the host, for every message a plugin sends"
        }
        EventType::OnStart => "`maitool serve` once it is serving",
        EventType::OnStop => "`maitool serve` when it stops",
        _ => {
            "only an embedding engine (`MessageFlow::emit_event`): the host has no such point of its own"
        }
    }
}

impl Trigger {
    /// When the component runs, as a clause: `when a chat message matches ...`.
    pub fn describe(&self) -> String {
        match self {
            Trigger::Call => "when called by name (`maitool call`, a model's tool call)".to_owned(),
            Trigger::Command(command) => {
                let matcher = &command.matcher;
                let mut ways = Vec::new();
                if !matcher.pattern().is_empty() && matcher.pattern_error().is_none() {
                    ways.push(format!("matches /{}/", matcher.pattern()));
                }
                if !matcher.aliases().is_empty() {
                    ways.push(format!("starts with {}", matcher.aliases().join(" or ")));
                }
                let mut text = if ways.is_empty() {
                    "never: it declares no pattern and no alias".to_owned()
                } else {
                    format!(
                        "when a chat message {} (send one with `maitool message`)",
                        ways.join(" or ")
                    )
                };
                if command.operator_only {
                    text.push_str(", for operators only ([bot.extra.plugin] permission)");
                }
                if let Some(error) = matcher.pattern_error() {
                    text.push_str(&format!(
                        "; its pattern /{}/ does not compile ({error}), so only its aliases match",
                        matcher.pattern()
                    ));
                }
                text
            }
            Trigger::Event(event) => format!(
                "on event {} (weight {}, {}), fired by {}",
                event.event_type,
                event.weight,
                if event.intercept_message {
                    "waited for: it may change or stop the message"
                } else {
                    "not waited for"
                },
                event_source(&event.event_type)
            ),
            Trigger::Gateway { receives: true } => "never by the host: its plugin hands the host \
                 chat messages through it (`host.route_message`), which go through the message \
                 flow; maitool sends nothing out through gateways"
                .to_owned(),
            Trigger::Gateway { receives: false } => {
                "never: maitool sends nothing out through message gateways".to_owned()
            }
            Trigger::Never => "never: maitool does not run this kind of component".to_owned(),
        }
    }
}

/// A component type as a sentence names it, with its article: `a command`, `an event
/// handler`.
pub fn kind_phrase(component_type: &str) -> String {
    let kind = match component_type {
        "API" => "API".to_owned(),
        other => other.to_ascii_lowercase().replace('_', " "),
    };
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {kind}")
}
