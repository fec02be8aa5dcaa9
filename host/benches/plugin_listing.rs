//! Listing 10,000 plugin tools (10 plugins x 1,000) from the host's ComponentRegistry, with
//! every tool available and with 1,000 of them withdrawn by their plugins
//! (`tool.set_available`): the run-time availability check must keep listing under 2 ms.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use maitool_host::plugin::ComponentRegistry;
use maitool_protocol::ToolAvailabilityContext;
use maitool_protocol::wire::methods::ComponentDeclaration;
use serde_json::json;

fn declaration(plugin: usize, tool: usize) -> ComponentDeclaration {
    let serde_json::Value::Object(metadata) = json!({
        "description": "Searches the knowledge base and returns the best matching entries.",
        "parameters_raw": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            },
            "required": ["query"],
        },
        "visibility": "visible",
    }) else {
        unreachable!("literal object")
    };
    ComponentDeclaration {
        name: format!("p{plugin}_tool_{tool}"),
        component_type: "TOOL".into(),
        plugin_id: format!("bench.p{plugin}"),
        chat_scope: "all".into(),
        allowed_session: Vec::new(),
        metadata,
    }
}

fn registry() -> ComponentRegistry {
    let registry = ComponentRegistry::new();
    for plugin in 0..10 {
        let declarations: Vec<_> = (0..1_000).map(|tool| declaration(plugin, tool)).collect();
        registry
            .register_plugin(&format!("bench.p{plugin}"), &declarations)
            .expect("valid declarations");
    }
    registry
}

fn listing(c: &mut Criterion) {
    let ctx = ToolAvailabilityContext::default();
    let all = registry();
    assert_eq!(all.tool_specs(&ctx, |_| true).len(), 10_000);
    let some_withdrawn = registry();
    for plugin in 0..10 {
        for tool in (0..1_000).step_by(10) {
            some_withdrawn
                .set_available(
                    &format!("bench.p{plugin}"),
                    &format!("p{plugin}_tool_{tool}"),
                    false,
                    "offline",
                )
                .expect("registered tool");
        }
    }
    assert_eq!(some_withdrawn.tool_specs(&ctx, |_| true).len(), 9_000);

    let mut group = c.benchmark_group("plugin_listing_10x1000");
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("all_available", |b| {
        b.iter(|| black_box(all.tool_specs(&ctx, |_| true)))
    });
    group.bench_function("1000_withdrawn", |b| {
        b.iter(|| black_box(some_withdrawn.tool_specs(&ctx, |_| true)))
    });
    group.finish();
}

criterion_group!(benches, listing);
criterion_main!(benches);
