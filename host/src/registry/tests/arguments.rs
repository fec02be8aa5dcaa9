//! Argument validation before dispatch: a call that breaks the tool's schema is refused with
//! the failing field named, and the provider never sees it.

use std::sync::atomic::Ordering;

use maitool_protocol::{JsonObject, ProviderType, ToolInvocation, ToolSpec};
use serde_json::{Value, json};

use super::providers::StoreProvider;
use super::{call, private_chat};
use crate::registry::ToolRegistry;

fn object(value: Value) -> JsonObject {
    let Value::Object(map) = value else {
        panic!("not an object: {value}")
    };
    map
}

fn search_spec(provider: &str) -> ToolSpec {
    ToolSpec::new("search", "Searches")
        .with_parameters(object(json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            },
            "required": ["query"],
            "additionalProperties": false,
        })))
        .with_provider(provider, ProviderType::Builtin)
}

fn search(arguments: Value) -> ToolInvocation {
    ToolInvocation::new("search", object(arguments))
}

#[tokio::test]
async fn arguments_that_break_the_schema_are_refused_before_dispatch_naming_the_field() {
    let registry = ToolRegistry::new();
    let store = StoreProvider::new("store", &["add"]);
    store.add(search_spec("store"), true);
    registry.register_provider(store.clone());
    let ctx = private_chat();

    let cases = [
        (
            json!({"query": "x", "limit": "ten"}),
            "at /limit: \"ten\" is not of type \"integer\"",
        ),
        (
            json!({"query": "x", "limit": 500}),
            "at /limit: 500 is greater than the maximum of 50",
        ),
        (json!({"limit": 5}), "\"query\" is a required property"),
        (json!({"query": ""}), "at /query:"),
        (
            json!({"query": "x", "extra": true}),
            "'extra' was unexpected",
        ),
    ];
    for (arguments, expected) in cases {
        let result = registry.invoke(search(arguments.clone()), &ctx).await;
        assert!(!result.success, "{arguments} was accepted");
        assert!(
            result
                .error_message
                .starts_with("invalid arguments for tool search: "),
            "{}",
            result.error_message
        );
        assert!(
            result.error_message.contains(expected),
            "{arguments}: {:?} does not contain {expected:?}",
            result.error_message
        );
        assert_eq!(result.metadata["error_kind"], "invalid_arguments");
    }
    assert_eq!(
        store.invocations.load(Ordering::Relaxed),
        0,
        "a refused call was dispatched"
    );

    // Valid calls still go through, and so do the other tools of the provider.
    let fine = registry
        .invoke(search(json!({"query": "cats", "limit": 3})), &ctx)
        .await;
    assert!(fine.success, "{}", fine.error_message);
    let add = registry.invoke(call("add", 4), &ctx).await;
    assert_eq!(add.content, "add by store n=4");
    assert_eq!(store.invocations.load(Ordering::Relaxed), 2);

    // Refusals are counted as failures of the tool.
    let stats = registry.metrics().snapshot();
    let search_stats = stats.iter().find(|s| s.tool == "search").unwrap();
    assert_eq!((search_stats.calls, search_stats.failures), (6, 5));
}

#[tokio::test]
async fn a_changed_schema_is_compiled_again() {
    let registry = ToolRegistry::new();
    let store = StoreProvider::new("store", &[]);
    store.add(search_spec("store"), true);
    registry.register_provider(store.clone());
    let ctx = private_chat();
    let loose = registry
        .invoke(search(json!({"query": "x", "limit": 70})), &ctx)
        .await;
    assert!(!loose.success);

    // The provider now allows up to 100: the old validator must not be reused.
    let mut wider = search_spec("store");
    wider.parameters_schema.as_mut().unwrap()["properties"]["limit"]["maximum"] = json!(100);
    store.tools.write().clear();
    store.add(wider, true);
    let accepted = registry
        .invoke(search(json!({"query": "x", "limit": 70})), &ctx)
        .await;
    assert!(accepted.success, "{}", accepted.error_message);
}

#[tokio::test]
async fn a_schema_that_does_not_compile_lets_calls_through_and_never_fetches_refs() {
    let registry = ToolRegistry::new();
    let store = StoreProvider::new("store", &[]);
    let broken = ToolSpec::new("broken", "bad schema")
        .with_parameters(object(json!({"type": 12})))
        .with_provider("store", ProviderType::Builtin);
    // A remote `$ref` would make a validator with default features fetch it over HTTP.
    let remote = ToolSpec::new("remote", "remote ref")
        .with_parameters(object(json!({"$ref": "http://127.0.0.1:9/schema.json"})))
        .with_provider("store", ProviderType::Builtin);
    store.add(broken, false);
    store.add(remote, true);
    registry.register_provider(store.clone());
    let ctx = private_chat();
    for tool in ["broken", "remote"] {
        let result = registry
            .invoke(ToolInvocation::new(tool, object(json!({"n": 1}))), &ctx)
            .await;
        assert!(result.success, "{tool}: {}", result.error_message);
    }
    assert_eq!(store.invocations.load(Ordering::Relaxed), 2);
}
