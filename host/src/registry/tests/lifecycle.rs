//! Registering, replacing, unregistering, closing, and the registry-wide version.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use maitool_protocol::ToolAvailabilityContext;

use super::providers::*;
use super::*;
use crate::registry::{CloseError, ToolRegistry};

#[tokio::test]
async fn registering_a_known_name_replaces_it_and_moves_it_last() {
    let registry = ToolRegistry::new();
    let old_a = StoreProvider::new("a", &["x"]);
    let b = StoreProvider::new("b", &["y"]);
    assert!(registry.register_provider(old_a.clone()).is_none());
    assert!(registry.register_provider(b).is_none());

    let replaced = registry
        .register_provider(StoreProvider::new("a", &["x2"]))
        .expect("a was registered");
    let replaced_ptr = Arc::as_ptr(&replaced) as *const ();
    assert_eq!(replaced_ptr, Arc::as_ptr(&old_a) as *const ());

    let order: Vec<String> = registry
        .providers()
        .iter()
        .map(|p| p.provider_name().to_owned())
        .collect();
    assert_eq!(order, ["b", "a"]);
    let ctx = ToolAvailabilityContext::default();
    assert_eq!(names(&registry.list_tools(&ctx).await), ["y", "x2"]);

    let result = registry.invoke(call("x2", 1), &private_chat()).await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "x2 by a n=1");
    let gone = registry.invoke(call("x", 1), &private_chat()).await;
    assert_eq!(gone.error_message, "tool not found: x");
    assert_eq!(old_a.invocations.load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn unregistering_removes_the_provider_and_its_tools() {
    let registry = ToolRegistry::new();
    registry.register_provider(StoreProvider::new("a", &["x"]));
    registry.register_provider(StoreProvider::new("b", &["y"]));
    // Build the routing index first, so that unregistering must invalidate it.
    assert!(registry.invoke(call("y", 1), &private_chat()).await.success);

    let removed = registry.unregister_provider("b").expect("b is registered");
    assert_eq!(removed.provider_name(), "b");
    assert!(registry.unregister_provider("b").is_none());

    let ctx = ToolAvailabilityContext::default();
    assert_eq!(names(&registry.list_tools(&ctx).await), ["x"]);
    assert!(!registry.has_tool("y", &ctx).await);
    let result = registry.invoke(call("y", 2), &private_chat()).await;
    assert_eq!(result.error_message, "tool not found: y");
}

#[tokio::test]
async fn close_continues_past_failing_and_panicking_providers() {
    let registry = ToolRegistry::new();
    let before = StoreProvider::new("before", &["x"]);
    let after = StoreProvider::new("after", &["y"]);
    registry.register_provider(before.clone());
    registry.register_provider(Arc::new(FailingProvider {
        fail_availability: false,
    }));
    registry.register_provider(Arc::new(PanickingProvider {
        name: "panicky",
        panic_on_list: false,
    }));
    registry.register_provider(after.clone());

    let errors = registry.close().await;
    assert_eq!(
        errors,
        [
            CloseError {
                provider: "failing".to_owned(),
                cause: "socket busy".to_owned(),
            },
            CloseError {
                provider: "panicky".to_owned(),
                cause: "panicked: close exploded".to_owned(),
            },
        ]
    );
    assert_eq!(
        errors[0].to_string(),
        "provider failing failed to close: socket busy"
    );
    assert!(before.closed.load(Ordering::SeqCst));
    assert!(after.closed.load(Ordering::SeqCst));
}

#[tokio::test]
async fn the_registry_version_moves_with_providers_and_their_versions() {
    let registry = ToolRegistry::new();
    let start = registry.tool_set_version().current();

    let store = StoreProvider::new("store", &["a"]);
    registry.register_provider(store.clone());
    let registered = registry.tool_set_version().current();
    assert!(registered > start);

    // Folded in on demand, without any task.
    store.version.bump();
    let bumped = registry.tool_set_version().current();
    assert!(bumped > registered);
    assert_eq!(registry.tool_set_version().current(), bumped);

    // Pushed to subscribers by the forwarder.
    let mut changes = registry.subscribe_changes();
    changes.borrow_and_update();
    store.version.bump();
    tokio::time::timeout(Duration::from_secs(5), changes.changed())
        .await
        .expect("a provider bump reaches subscribers")
        .expect("registry alive");
    assert!(*changes.borrow_and_update() > bumped);

    registry.unregister_provider("store");
    tokio::time::timeout(Duration::from_secs(5), changes.changed())
        .await
        .expect("unregistering reaches subscribers")
        .expect("registry alive");

    drop(registry);
    tokio::time::timeout(Duration::from_secs(5), changes.changed())
        .await
        .expect("dropping the registry ends the subscription")
        .expect_err("no sender left");
}
