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
async fn a_duplicate_name_stays_with_the_first_and_the_later_tool_is_kept_under_its_alias() {
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

    // MaiBot 1.3's name: `<provider_type>_<source>_<name>`, the source being the provider's
    // name here (a plugin id or an MCP server where the provider says so).
    let tools = registry.list_tools(&ctx).await;
    assert_eq!(
        names(&tools),
        [
            "search",
            "only_first",
            "builtin_second_search",
            "only_second"
        ]
    );
    assert_eq!(tools[0].provider_name, "first");
    assert_eq!(tools[2].provider_name, "second");
    assert_eq!(tools[2].metadata["registry_original_name"], "search");
    assert!(!tools[0].metadata.contains_key("registry_original_name"));
    registry.list_tools(&ctx).await;
    let record = log.text();
    assert!(
        record.contains("duplicate tool name search")
            && record.contains("kept_provider=first")
            && record.contains("renamed_provider=second")
            && record.contains("alias=builtin_second_search"),
        "{record}"
    );
    assert_eq!(
        record.matches("duplicate tool name search").count(),
        1,
        "said once, not per listing: {record}"
    );

    let result = registry.invoke(call("search", 7), &private_chat()).await;
    assert_eq!(result.content, "search by first n=7");
    assert_eq!(second.invocations.load(Ordering::Relaxed), 0);
    // The alias reaches the second provider, which is asked for its own name; the result
    // carries the name the caller used.
    let aliased = registry
        .invoke(call("builtin_second_search", 8), &private_chat())
        .await;
    assert_eq!(aliased.content, "search by second n=8");
    assert_eq!(aliased.tool_name, "builtin_second_search");
    assert_eq!(second.invocations.load(Ordering::Relaxed), 1);
    assert_eq!(
        registry
            .get_tool_spec("search", &ctx)
            .await
            .unwrap()
            .provider_name,
        "first"
    );
    let renamed = registry
        .get_tool_spec("builtin_second_search", &ctx)
        .await
        .unwrap();
    assert_eq!(renamed.provider_name, "second");
    let definitions = registry.get_llm_definitions(&ctx).await;
    assert!(
        definitions
            .iter()
            .any(|d| d.name == "builtin_second_search")
    );
}
