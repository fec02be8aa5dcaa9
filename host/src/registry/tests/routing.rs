//! Invocation routing: errors, panics, context-dependent availability, the routing index.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use maitool_protocol::ToolAvailabilityContext;

use super::providers::*;
use super::*;
use crate::registry::ToolRegistry;

#[tokio::test]
async fn an_unknown_tool_gets_a_not_found_result() {
    let registry = ToolRegistry::new();
    let empty = registry.invoke(call("nope", 1), &private_chat()).await;
    assert!(!empty.success);
    assert_eq!(empty.tool_name, "nope");
    assert_eq!(empty.error_message, "tool not found: nope");

    registry.register_provider(StoreProvider::new("a", &["x"]));
    let result = registry.invoke(call("nope", 1), &private_chat()).await;
    assert_eq!(result.error_message, "tool not found: nope");
}

#[tokio::test]
async fn a_provider_error_becomes_a_failed_result_naming_tool_and_cause() {
    let registry = ToolRegistry::new();
    registry.register_provider(Arc::new(FailingProvider {
        fail_availability: false,
    }));
    registry.register_provider(StoreProvider::new("store", &["ok"]));

    let result = registry.invoke(call("flaky", 1), &private_chat()).await;
    assert!(!result.success);
    assert_eq!(result.tool_name, "flaky");
    assert_eq!(result.error_message, "tool flaky failed: connection reset");

    // The failing listing is skipped; the others are still listed and served.
    let ctx = ToolAvailabilityContext::default();
    assert_eq!(names(&registry.list_tools(&ctx).await), ["ok"]);
    let ok = registry.invoke(call("ok", 2), &private_chat()).await;
    assert_eq!(ok.tool_name, "ok");
    assert_eq!(ok.content, "ok by store n=2");
}

#[tokio::test]
async fn a_failed_availability_check_is_reported_not_hidden() {
    let registry = ToolRegistry::new();
    registry.register_provider(Arc::new(FailingProvider {
        fail_availability: true,
    }));
    let result = registry.invoke(call("flaky", 1), &private_chat()).await;
    assert_eq!(
        result.error_message,
        "tool flaky failed: provider failing could not check availability: health check refused"
    );

    // A later provider that has the tool still gets it.
    registry.register_provider(StoreProvider::new("backup", &["flaky"]));
    let result = registry.invoke(call("flaky", 2), &private_chat()).await;
    assert_eq!(result.content, "flaky by backup n=2");
}

#[tokio::test]
async fn a_panicking_provider_fails_its_call_and_the_registry_keeps_serving() {
    let registry = ToolRegistry::new();
    registry.register_provider(Arc::new(PanickingProvider {
        name: "panicky",
        panic_on_list: false,
    }));
    registry.register_provider(Arc::new(PanickingProvider {
        name: "list_panicky",
        panic_on_list: true,
    }));
    registry.register_provider(StoreProvider::new("store", &["ok"]));
    let ctx = ToolAvailabilityContext::default();

    let result = registry.invoke(call("boom", 1), &private_chat()).await;
    assert!(!result.success);
    assert_eq!(
        result.error_message,
        "tool boom failed: provider panicky panicked: invoke exploded: boom"
    );

    // The provider that panics while listing is skipped; its sibling's `boom` remains.
    assert_eq!(names(&registry.list_tools(&ctx).await), ["boom", "ok"]);
    for n in 0..3 {
        let ok = registry.invoke(call("ok", n), &private_chat()).await;
        assert_eq!(ok.content, format!("ok by store n={n}"));
        let again = registry.invoke(call("boom", n), &private_chat()).await;
        assert!(again.error_message.contains("panicked"), "{again:?}");
    }
}

#[tokio::test]
async fn a_panicking_availability_check_fails_the_call_and_the_registry_keeps_serving() {
    let registry = ToolRegistry::new();
    registry.register_provider(Arc::new(PanickingCheckProvider));
    let result = registry.invoke(call("checked", 1), &private_chat()).await;
    assert!(!result.success);
    assert_eq!(
        result.error_message,
        "tool checked failed: provider check_panicky could not check availability: \
         panicked: availability check exploded: checked"
    );

    // A later provider with the same tool is still asked, and other tools are served.
    registry.register_provider(StoreProvider::new("backup", &["checked", "ok"]));
    let result = registry.invoke(call("checked", 2), &private_chat()).await;
    assert_eq!(result.content, "checked by backup n=2");
    let ok = registry.invoke(call("ok", 3), &private_chat()).await;
    assert_eq!(ok.content, "ok by backup n=3");
}

#[tokio::test]
async fn availability_follows_the_callers_context() {
    let registry = ToolRegistry::new();
    registry.register_provider(Arc::new(GroupOnlyProvider));

    let private = registry
        .invoke(call("group_poll", 1), &private_chat())
        .await;
    assert_eq!(private.error_message, "tool not found: group_poll");
    let group = registry.invoke(call("group_poll", 1), &group_chat()).await;
    assert_eq!(group.content, "poll in g1");

    // With a later provider that has the tool everywhere, a private chat routes there while
    // a group chat still goes to the first registration.
    registry.register_provider(StoreProvider::new("everywhere", &["group_poll"]));
    let private = registry
        .invoke(call("group_poll", 2), &private_chat())
        .await;
    assert_eq!(private.content, "group_poll by everywhere n=2");
    let group = registry.invoke(call("group_poll", 2), &group_chat()).await;
    assert_eq!(group.content, "poll in g1");

    let private_ctx = private_chat().availability();
    let listed = registry.list_tools(&private_ctx).await;
    assert_eq!(names(&listed), ["group_poll"]);
    assert_eq!(listed[0].provider_name, "everywhere");
    // Where both have it, the later one is listed under its alias, and the alias reaches it
    // in any chat.
    let group_ctx = group_chat().availability();
    let listed = registry.list_tools(&group_ctx).await;
    assert_eq!(
        names(&listed),
        ["group_poll", "builtin_everywhere_group_poll"]
    );
    assert_eq!(listed[0].provider_name, "groups");
    for chat in [group_chat(), private_chat()] {
        let aliased = registry
            .invoke(call("builtin_everywhere_group_poll", 3), &chat)
            .await;
        assert_eq!(aliased.content, "group_poll by everywhere n=3");
        assert_eq!(aliased.tool_name, "builtin_everywhere_group_poll");
    }
}

#[tokio::test]
async fn the_routing_index_follows_provider_versions() {
    let registry = ToolRegistry::new();
    let store = StoreProvider::new("store", &["a"]);
    registry.register_provider(store.clone());
    assert!(registry.invoke(call("a", 1), &private_chat()).await.success);

    // Listed at once, but not routable until the provider announces the change.
    store.add(spec("b", "store"), false);
    let ctx = ToolAvailabilityContext::default();
    assert_eq!(names(&registry.list_tools(&ctx).await), ["a", "b"]);
    let stale = registry.invoke(call("b", 1), &private_chat()).await;
    assert_eq!(stale.error_message, "tool not found: b");

    store.version.bump();
    let routed = registry.invoke(call("b", 2), &private_chat()).await;
    assert_eq!(routed.content, "b by store n=2");
    assert_eq!(store.declare_calls.load(Ordering::Relaxed), 2);
}

#[tokio::test]
async fn routing_never_lists_providers_and_rebuilds_only_what_moved() {
    let registry = ToolRegistry::new();
    let stores: Vec<_> = (0..10)
        .map(|p| {
            let tools: Vec<String> = (0..50).map(|t| format!("p{p}_t{t}")).collect();
            let tools: Vec<&str> = tools.iter().map(String::as_str).collect();
            StoreProvider::new(&format!("p{p}"), &tools)
        })
        .collect();
    for store in &stores {
        registry.register_provider(store.clone());
    }

    for n in 0..200 {
        let tool = format!("p{}_t{}", n % 10, n % 50);
        let result = registry.invoke(call(&tool, n), &private_chat()).await;
        assert!(result.success, "{result:?}");
    }
    for store in &stores {
        assert_eq!(store.list_calls.load(Ordering::Relaxed), 0);
        assert_eq!(store.declare_calls.load(Ordering::Relaxed), 1);
    }

    // One provider moves: only it is asked again. A new provider: only it is asked.
    stores[3].version.bump();
    registry.register_provider(StoreProvider::new("late", &["late_tool"]));
    assert!(
        registry
            .invoke(call("late_tool", 1), &private_chat())
            .await
            .success
    );
    assert!(
        registry
            .invoke(call("p3_t0", 1), &private_chat())
            .await
            .success
    );
    for (p, store) in stores.iter().enumerate() {
        let expected = if p == 3 { 2 } else { 1 };
        assert_eq!(
            store.declare_calls.load(Ordering::Relaxed),
            expected,
            "p{p}"
        );
    }
}

#[tokio::test]
async fn a_failed_declaration_is_retried_on_a_routing_miss() {
    let registry = ToolRegistry::new();
    let slow = Arc::new(SlowStartProvider {
        failures: AtomicUsize::new(2),
        declare_calls: AtomicUsize::new(0),
    });
    registry.register_provider(slow.clone());
    registry.register_provider(StoreProvider::new("store", &["ok"]));

    // Build and retry both fail: not routable yet, the other provider unaffected.
    let early = registry.invoke(call("late_tool", 1), &private_chat()).await;
    assert_eq!(early.error_message, "tool not found: late_tool");
    assert_eq!(slow.declare_calls.load(Ordering::SeqCst), 2);
    assert!(
        registry
            .invoke(call("ok", 1), &private_chat())
            .await
            .success
    );
    assert_eq!(slow.declare_calls.load(Ordering::SeqCst), 2);

    let late = registry.invoke(call("late_tool", 2), &private_chat()).await;
    assert_eq!(late.content, "late");
    assert_eq!(slow.declare_calls.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_hung_provider_is_skipped_after_the_metadata_timeout() {
    let registry = ToolRegistry::with_metadata_timeout(Some(Duration::from_millis(50)));
    registry.register_provider(Arc::new(HangingProvider));
    registry.register_provider(StoreProvider::new("store", &["ok"]));

    let ctx = ToolAvailabilityContext::default();
    assert_eq!(names(&registry.list_tools(&ctx).await), ["ok"]);
    let result = registry.invoke(call("ok", 1), &private_chat()).await;
    assert_eq!(result.content, "ok by store n=1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_concurrent_invocations_route_correctly_during_churn() {
    let registry = Arc::new(ToolRegistry::new());
    let stores: Vec<_> = (0..10)
        .map(|p| {
            let tools: Vec<String> = (0..20).map(|t| format!("p{p}_t{t}")).collect();
            let tools: Vec<&str> = tools.iter().map(String::as_str).collect();
            StoreProvider::new(&format!("p{p}"), &tools)
        })
        .collect();
    for store in &stores {
        registry.register_provider(store.clone());
    }

    let churn = {
        let registry = Arc::clone(&registry);
        let bumped = Arc::clone(&stores[0]);
        tokio::spawn(async move {
            for round in 0..50 {
                registry.register_provider(StoreProvider::new("churn", &["p0_t0"]));
                bumped.version.bump();
                tokio::task::yield_now().await;
                registry.unregister_provider("churn");
                if round % 10 == 0 {
                    tokio::task::yield_now().await;
                }
            }
        })
    };
    let calls: Vec<_> = (0..600)
        .map(|n| {
            let registry = Arc::clone(&registry);
            tokio::spawn(async move {
                let tool = format!("p{}_t{}", n % 10, n % 20);
                let result = registry.invoke(call(&tool, n), &private_chat()).await;
                (tool, n, result)
            })
        })
        .collect();
    for task in calls {
        let (tool, n, result) = task.await.expect("invoke task");
        assert!(result.success, "{result:?}");
        assert_eq!(result.tool_name, tool);
        let provider = &tool[..tool.find('_').unwrap()];
        assert_eq!(result.content, format!("{tool} by {provider} n={n}"));
    }
    churn.await.expect("churn task");
    let served: usize = stores
        .iter()
        .map(|store| store.invocations.load(Ordering::Relaxed))
        .sum();
    assert_eq!(served, 600);
}
