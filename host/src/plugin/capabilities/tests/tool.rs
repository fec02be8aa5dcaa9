//! `tool.get_definitions` over a registry holding the real built-in provider.

use std::sync::Arc;

use serde_json::json;

use super::{call, service};
use crate::builtin::{BuiltinConfig, BuiltinToolProvider, Discovery, EngineBridge, StoreEngine};
use crate::registry::ToolRegistry;

#[tokio::test]
async fn tool_definitions_list_the_registry_as_the_sdk_reads_them() {
    let (service, store) = service(&["tool.get_definitions"]).await;
    let no_registry = super::refused(&service, "tool.get_definitions", json!({})).await;
    assert!(
        no_registry.message.contains("no tool registry"),
        "{no_registry:?}"
    );

    let engine: Arc<dyn EngineBridge> = Arc::new(StoreEngine::new(store));
    let builtin =
        BuiltinToolProvider::new(BuiltinConfig::default(), engine, Arc::new(Discovery::new()));
    let registry = Arc::new(ToolRegistry::new());
    registry.register_provider(builtin);
    service.attach_registry(&registry);
    let result = call(&service, "tool.get_definitions", json!({"stream_id": "s1"})).await;
    let tools = result["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"reply"), "{names:?}");
    for tool in tools {
        assert_eq!(tool["definition"]["name"], tool["name"], "{tool}");
    }
}
