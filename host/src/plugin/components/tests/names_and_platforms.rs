use maitool_protocol::ToolAvailabilityContext;
use maitool_protocol::wire::methods::ComponentDeclaration;
use serde_json::{Value, json};

use crate::plugin::chat_view::ChatView;
use crate::plugin::components::{ComponentRegistry, DeclarationError};

fn tool(name: &str, metadata: Value) -> ComponentDeclaration {
    ComponentDeclaration {
        name: name.to_owned(),
        component_type: "TOOL".to_owned(),
        metadata: metadata.as_object().cloned().unwrap_or_default(),
        ..ComponentDeclaration::default()
    }
}

fn on(platform: &str) -> ToolAvailabilityContext {
    ToolAvailabilityContext {
        platform: platform.to_owned(),
        ..ToolAvailabilityContext::default()
    }
}

fn names(registry: &ComponentRegistry, ctx: &ToolAvailabilityContext) -> Vec<String> {
    registry
        .tool_specs(ctx, |_| true)
        .iter()
        .map(|spec| spec.name.clone())
        .collect()
}

#[test]
fn a_later_plugins_tool_of_a_taken_name_is_offered_under_its_source_prefix() {
    let registry = ComponentRegistry::new();
    registry
        .register_plugin("acme.web", &[tool("search", json!({}))])
        .unwrap();
    registry
        .register_plugin(
            "other.web",
            &[tool("search", json!({})), tool("fetch", json!({}))],
        )
        .unwrap();
    let all = ToolAvailabilityContext::default();
    assert_eq!(
        names(&registry, &all),
        ["search", "plugin_other_web_search", "fetch"]
    );

    let renamed = registry
        .find_tool_in("plugin_other_web_search", ChatView::from(&all), |_| true)
        .expect("the alias finds the second plugin's tool");
    assert_eq!(renamed.entry.plugin_id, "other.web");
    assert_eq!(
        renamed.entry.name, "search",
        "the runner is called with the tool's own name"
    );
    assert_eq!(renamed.spec.name, "plugin_other_web_search");
    assert_eq!(renamed.spec.metadata["registry_original_name"], "search");
    assert_eq!(renamed.spec.metadata["plugin_id"], "other.web");
    // The exposed spec is the one listed, so the provider finds its entry by pointer.
    let entry = registry.tool_with_spec(&renamed.spec).unwrap();
    assert_eq!(entry.full_name, "other.web.search");
    let first = registry
        .find_tool_in("search", ChatView::from(&all), |_| true)
        .unwrap();
    assert_eq!(first.entry.plugin_id, "acme.web");

    // Without the first plugin the name is free again.
    registry.unregister_plugin("acme.web");
    assert_eq!(names(&registry, &all), ["search", "fetch"]);
    assert!(
        registry
            .find_tool_in("plugin_other_web_search", ChatView::from(&all), |_| true)
            .is_none()
    );
}

#[test]
fn a_platform_restricted_tool_is_offered_only_on_its_platforms() {
    let registry = ComponentRegistry::new();
    registry
        .register_plugin(
            "examples.stickers",
            &[
                tool("sticker", json!({"platforms": "Telegram"})),
                tool("anywhere", json!({"platforms": []})),
            ],
        )
        .unwrap();
    assert_eq!(names(&registry, &on("telegram")), ["sticker", "anywhere"]);
    assert_eq!(names(&registry, &on("TELEGRAM")), ["sticker", "anywhere"]);
    assert_eq!(names(&registry, &on("qq")), ["anywhere"]);
    assert_eq!(
        names(&registry, &on("")),
        ["anywhere"],
        "no platform: not offered"
    );
    let qq = on("qq");
    assert!(
        registry
            .find_tool_in("sticker", ChatView::from(&qq), |_| true)
            .is_none()
    );
    let entry = registry.declared_tool("sticker", |_| true).unwrap();
    assert_eq!(entry.platforms.names(), ["telegram"]);
    assert_eq!(entry.spec.metadata["platforms"], json!(["telegram"]));
}

#[test]
fn malformed_platforms_or_stop_flags_refuse_the_whole_set() {
    let registry = ComponentRegistry::new();
    let refused = registry
        .register_plugin(
            "examples.bad",
            &[
                tool("fine", json!({})),
                tool("odd", json!({"platforms": ["qq", 7]})),
            ],
        )
        .unwrap_err();
    assert!(matches!(refused, DeclarationError::Platforms { .. }));
    assert_eq!(
        refused.to_string(),
        "component odd: platforms must be a platform name or a list of platform names (null \
         or [] for every platform); got a number at position 1"
    );
    let stop = registry
        .register_plugin(
            "examples.bad",
            &[tool("odd", json!({"stop_after_execution": "yes"}))],
        )
        .unwrap_err();
    assert_eq!(
        stop.to_string(),
        "component odd: stop_after_execution must be a boolean, got \"yes\""
    );
    assert!(
        registry.all().is_empty(),
        "nothing of a refused set is kept"
    );
}

#[test]
fn a_declared_stop_flag_is_kept_on_the_entry_and_shown_in_the_spec() {
    let registry = ComponentRegistry::new();
    registry
        .register_plugin(
            "examples.stop",
            &[
                tool("done", json!({"stop_after_execution": true})),
                tool("go", json!({})),
            ],
        )
        .unwrap();
    let done = registry.declared_tool("done", |_| true).unwrap();
    assert!(done.stop_after_execution);
    assert_eq!(done.spec.metadata["stop_after_execution"], json!(true));
    let go = registry.declared_tool("go", |_| true).unwrap();
    assert!(!go.stop_after_execution);
    assert!(!go.spec.metadata.contains_key("stop_after_execution"));
}
