use maitool_protocol::ChatScope;
use maitool_protocol::command_match::MatchedBy;
use maitool_protocol::wire::message_flow::EventType;
use maitool_protocol::wire::methods::ComponentDeclaration;
use serde_json::{Value, json};

use super::*;

fn declaration(name: &str, kind: &str, metadata: Value) -> ComponentDeclaration {
    ComponentDeclaration {
        name: name.into(),
        component_type: kind.into(),
        metadata: metadata.as_object().unwrap().clone(),
        ..ComponentDeclaration::default()
    }
}

fn command(name: &str, pattern: &str, aliases: &[&str]) -> ComponentDeclaration {
    declaration(
        name,
        "COMMAND",
        json!({"command_pattern": pattern, "aliases": aliases}),
    )
}

fn handler(name: &str, event: &str, weight: i64, intercept: bool) -> ComponentDeclaration {
    declaration(
        name,
        "EVENT_HANDLER",
        json!({"event_type": event, "weight": weight, "intercept_message": intercept}),
    )
}

fn group_chat() -> ChatView<'static> {
    ChatView {
        session_id: "st1",
        group_id: "g1",
        platform: "qq",
        is_group_chat: Some(true),
    }
}

fn matched(registry: &ComponentRegistry, text: &str) -> Option<String> {
    registry
        .match_command(text, group_chat(), |_| true)
        .map(|(entry, _)| entry.full_name.clone())
}

#[test]
fn commands_are_tried_in_registration_then_declaration_order() {
    let registry = ComponentRegistry::new();
    registry
        .register_plugin(
            "a",
            &[
                command("first", "^/x", &[]),
                command("second", "^/x y", &[]),
            ],
        )
        .unwrap();
    registry
        .register_plugin("b", &[command("other", "^/x", &[])])
        .unwrap();
    assert_eq!(matched(&registry, "/x y").as_deref(), Some("a.first"));
    // A plugin that is not live is skipped.
    let hit = registry.match_command("/x", group_chat(), |plugin| plugin == "b");
    assert_eq!(hit.unwrap().0.full_name, "b.other");
    // Aliases: with no groups, and only after the pattern.
    registry
        .register_plugin("c", &[command("help", "^/help$", &["帮助"])])
        .unwrap();
    let (entry, hit) = registry
        .match_command("帮助我", group_chat(), |_| true)
        .unwrap();
    assert_eq!(entry.full_name, "c.help");
    assert_eq!(hit.by, MatchedBy::Alias("帮助".into()));
    assert_eq!(matched(&registry, "nothing"), None);
}

#[test]
fn a_command_disabled_globally_or_for_the_session_or_out_of_scope_is_skipped() {
    let registry = ComponentRegistry::new();
    registry
        .register_plugin("a", &[command("first", "^/x", &[])])
        .unwrap();
    registry
        .register_plugin("b", &[command("fallback", "^/x", &[])])
        .unwrap();
    registry.set_enabled("a.first", false, Some("st1")).unwrap();
    assert_eq!(matched(&registry, "/x").as_deref(), Some("b.fallback"));
    let other_session = ChatView {
        session_id: "st2",
        ..group_chat()
    };
    let hit = registry
        .match_command("/x", other_session, |_| true)
        .unwrap();
    assert_eq!(hit.0.full_name, "a.first");
    registry.set_enabled("b.fallback", false, None).unwrap();
    assert_eq!(matched(&registry, "/x"), None);

    let scoped = ComponentRegistry::new();
    let mut private_only = command("private", "^/p", &[]);
    private_only.chat_scope = ChatScope::Private.as_str().into();
    scoped.register_plugin("a", &[private_only]).unwrap();
    assert_eq!(matched(&scoped, "/p"), None);
    let declared_off = ComponentRegistry::new();
    declared_off
        .register_plugin(
            "a",
            &[declaration(
                "off",
                "COMMAND",
                json!({"command_pattern": "^/o", "enabled": false}),
            )],
        )
        .unwrap();
    assert_eq!(matched(&declared_off, "/o"), None);
}

#[test]
fn a_pattern_that_does_not_compile_is_kept_and_described() {
    let registry = ComponentRegistry::new();
    registry
        .register_plugin("a", &[command("broken", "(", &["/b"])])
        .unwrap();
    assert_eq!(matched(&registry, "/b").as_deref(), Some("a.broken"));
    let entry = &registry.plugin_components("a")[0];
    let described = entry.trigger.describe();
    assert!(described.contains("does not compile"), "{described}");
    assert!(described.contains("starts with /b"), "{described}");
}

#[test]
fn handlers_of_an_event_come_by_weight_then_registration_order() {
    let registry = ComponentRegistry::new();
    registry
        .register_plugin(
            "a",
            &[
                handler("low", "on_message", -1, true),
                handler("tie_a", "on_message", 5, false),
                handler("other_event", "on_message_pre_process", 99, true),
            ],
        )
        .unwrap();
    registry
        .register_plugin(
            "b",
            &[
                handler("tie_b", "on_message", 5, true),
                handler("high", "on_message", 50, false),
            ],
        )
        .unwrap();
    let names: Vec<String> = registry
        .event_handlers(&EventType::OnMessage, group_chat(), |_| true)
        .iter()
        .map(|e| e.full_name.clone())
        .collect();
    assert_eq!(names, ["b.high", "a.tie_a", "b.tie_b", "a.low"]);
    registry.set_enabled("b.high", false, Some("st1")).unwrap();
    let names: Vec<String> = registry
        .event_handlers(&EventType::OnMessage, group_chat(), |plugin| plugin == "b")
        .iter()
        .map(|e| e.full_name.clone())
        .collect();
    assert_eq!(names, ["b.tie_b"]);
}

#[test]
fn event_types_are_read_as_maibot_and_its_legacy_plugins_write_them() {
    let registry = ComponentRegistry::new();
    registry
        .register_plugin(
            "a",
            &[
                declaration("default", "EVENT_HANDLER", json!({})),
                declaration(
                    "legacy",
                    "EVENT_HANDLER",
                    json!({"event_type": "EventType.ON_MESSAGE_PRE_PROCESS", "weight": 2.0}),
                ),
                declaration(
                    "custom",
                    "EVENT_HANDLER",
                    json!({"event_type": "Engine.Tick"}),
                ),
            ],
        )
        .unwrap();
    let entries = registry.plugin_components("a");
    let events: Vec<(EventType, i64)> = entries
        .iter()
        .map(|e| match &e.trigger {
            Trigger::Event(t) => (t.event_type.clone(), t.weight),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        events,
        [
            (EventType::OnMessage, 0),
            (EventType::OnMessagePreProcess, 2),
            (EventType::Other("Engine.Tick".into()), 0),
        ]
    );
    assert!(entries.iter().all(|e| !e.is_tool()));
}

#[test]
fn a_component_that_is_no_tool_says_how_it_runs() {
    let registry = ComponentRegistry::new();
    registry
        .register_plugin(
            "a",
            &[
                command("weather", "^/天气", &[]),
                handler("log", "on_plan", 0, false),
                declaration("hook", "HOOK_HANDLER", json!({"hook": "x"})),
            ],
        )
        .unwrap();
    let weather = registry.non_tool("weather", |_| true).unwrap();
    assert_eq!(
        weather.trigger.describe(),
        "when a chat message matches /^/天气/ (send one with `maitool message`)"
    );
    let log = registry.non_tool("a.log", |_| true).unwrap();
    assert!(
        log.trigger.describe().contains("only an embedding engine"),
        "{}",
        log.trigger.describe()
    );
    assert_eq!(kind_phrase(&log.component_type), "an event handler");
    assert!(registry.non_tool("hook", |_| false).is_none());
}

#[test]
fn only_tools_keep_to_a_models_alphabet_other_components_are_named_as_maibot_names_them() {
    let registry = ComponentRegistry::new();
    // A command named with a slash, as a market plugin names its commands, registers and
    // matches.
    registry
        .register_plugin("love", &[command("/mai_status", "^/mai_status\\b", &[])])
        .unwrap();
    assert_eq!(
        matched(&registry, "/mai_status").as_deref(),
        Some("love./mai_status")
    );
    // A tool so named is refused: models' APIs take [A-Za-z0-9_-] names.
    let refused = registry
        .register_plugin("love", &[declaration("/mai_tool", "TOOL", json!({}))])
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "tool name \"/mai_tool\" must be 1-128 characters of [A-Za-z0-9_.-]"
    );
    // Whitespace or control characters, or more than 128 bytes, are refused for any.
    for name in ["two words", "tab\there", &"x".repeat(129)] {
        let refused = registry
            .register_plugin("other", &[command(name, "^/x", &[])])
            .unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("without whitespace or control characters"),
            "{name}: {refused}"
        );
    }
}
mod names_and_platforms;
