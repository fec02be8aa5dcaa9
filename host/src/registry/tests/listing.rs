//! The unified list: order, disabled specs, duplicates, model-facing definitions.

use std::sync::atomic::Ordering;

use maitool_protocol::ToolAvailabilityContext;

use super::providers::*;
use super::*;
use crate::registry::ToolRegistry;

#[tokio::test]
async fn tools_are_listed_in_registration_order_and_defined_for_models() {
    let registry = ToolRegistry::new();
    registry.register_provider(StoreProvider::new("c", &["c1", "c2"]));
    registry.register_provider(StoreProvider::new("a", &["a1"]));
    registry.register_provider(StoreProvider::new("b", &["b1", "b2"]));
    let ctx = ToolAvailabilityContext::default();

    let tools = registry.list_tools(&ctx).await;
    assert_eq!(names(&tools), ["c1", "c2", "a1", "b1", "b2"]);

    let definitions = registry.get_llm_definitions(&ctx).await;
    let defined: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(defined, ["c1", "c2", "a1", "b1", "b2"]);
    assert_eq!(definitions[2].description, "a1 of a");
    assert_eq!(definitions[2].parameters_schema, tools[2].parameters_schema);

    let found = registry.get_tool_spec("b1", &ctx).await.expect("b1 listed");
    assert_eq!(found.provider_name, "b");
    assert!(registry.get_tool_spec("zz", &ctx).await.is_none());
}

#[tokio::test]
async fn disabled_specs_are_neither_listed_nor_routed() {
    let registry = ToolRegistry::new();
    let store = StoreProvider::new("store", &["on"]);
    let mut off = spec("off", "store");
    off.enabled = false;
    store.add(off, false);
    registry.register_provider(store.clone());
    let ctx = ToolAvailabilityContext::default();

    assert_eq!(names(&registry.list_tools(&ctx).await), ["on"]);
    assert!(registry.get_tool_spec("off", &ctx).await.is_none());
    assert!(!registry.has_tool("off", &ctx).await);
    let result = registry.invoke(call("off", 1), &private_chat()).await;
    assert_eq!(result.error_message, "tool not found: off");
    assert_eq!(store.invocations.load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn the_first_registration_wins_a_duplicate_name_with_a_warning() {
    let log = Captured::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _log_guard = tracing::subscriber::set_default(subscriber);

    let registry = ToolRegistry::new();
    let first = StoreProvider::new("first", &["search", "only_first"]);
    let second = StoreProvider::new("second", &["search", "only_second"]);
    registry.register_provider(first.clone());
    registry.register_provider(second.clone());
    let ctx = ToolAvailabilityContext::default();

    let tools = registry.list_tools(&ctx).await;
    assert_eq!(names(&tools), ["search", "only_first", "only_second"]);
    assert_eq!(tools[0].provider_name, "first");
    let warning = log.text();
    assert!(
        warning.contains("duplicate tool name search")
            && warning.contains("kept_provider=first")
            && warning.contains("skipped_provider=second"),
        "{warning}"
    );

    let result = registry.invoke(call("search", 7), &private_chat()).await;
    assert_eq!(result.content, "search by first n=7");
    assert_eq!(second.invocations.load(Ordering::Relaxed), 0);
    assert_eq!(
        registry
            .get_tool_spec("search", &ctx)
            .await
            .unwrap()
            .provider_name,
        "first"
    );
}
