//! The registry records every routed call in its [`ToolMetrics`](crate::metrics::ToolMetrics).

use std::sync::Arc;

use maitool_protocol::ToolExecutionContext;

use super::call;
use super::providers::{FailingProvider, PanickingProvider, StoreProvider};
use crate::registry::ToolRegistry;

#[tokio::test]
async fn routed_calls_are_counted_per_provider_and_tool_and_misses_as_unrouted() {
    let registry = ToolRegistry::new();
    let store = StoreProvider::new("store", &["add", "mul"]);
    registry.register_provider(store.clone());
    registry.register_provider(Arc::new(FailingProvider {
        fail_availability: false,
    }));
    registry.register_provider(Arc::new(PanickingProvider {
        name: "panicky",
        panic_on_list: false,
    }));
    let ctx = ToolExecutionContext::default();

    for n in 0..3 {
        assert!(registry.invoke(call("add", n), &ctx).await.success);
    }
    assert!(registry.invoke(call("mul", 1), &ctx).await.success);
    assert!(!registry.invoke(call("flaky", 1), &ctx).await.success);
    assert!(!registry.invoke(call("boom", 1), &ctx).await.success);
    assert!(!registry.invoke(call("nowhere", 1), &ctx).await.success);
    assert!(!registry.invoke(call("nowhere_else", 1), &ctx).await.success);

    let stats = registry.metrics().snapshot();
    let rows: Vec<(&str, &str, u64, u64)> = stats
        .iter()
        .map(|s| (s.provider.as_str(), s.tool.as_str(), s.calls, s.failures))
        .collect();
    assert_eq!(
        rows,
        [
            ("failing", "flaky", 1, 1),
            ("panicky", "boom", 1, 1),
            ("store", "add", 3, 0),
            ("store", "mul", 1, 0)
        ]
    );
    let add = &stats[2];
    assert!(
        add.latency.max_ms > 0.0 && add.latency.p50_ms <= add.latency.max_ms,
        "{:?}",
        add.latency
    );
    let totals = registry.metrics().totals();
    assert_eq!(
        (
            totals.calls,
            totals.failures,
            totals.timeouts,
            totals.unrouted
        ),
        (6, 2, 0, 2)
    );
}
