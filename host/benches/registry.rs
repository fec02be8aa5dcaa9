//! ToolRegistry costs: listing 10,000 tools over 10 providers, their model-facing definitions,
//! and routing an invocation with 10 x 1 versus 10 x 1,000 tools (flat, thanks to the index),
//! next to MaiBot's list-every-provider routing for comparison.

#[path = "support/memory_provider.rs"]
mod memory_provider;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use maitool_host::{ToolProvider, ToolRegistry};
use maitool_protocol::{
    ToolAvailabilityContext, ToolExecutionContext, ToolExecutionResult, ToolInvocation,
};
use tokio::runtime::Runtime;

use memory_provider::{MemoryProvider, arguments, registry as setup, tool_name};

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn listing(c: &mut Criterion) {
    let rt = runtime();
    let (registry, providers) = setup(10, 1_000);
    let ctx = ToolAvailabilityContext::default();
    assert_eq!(rt.block_on(registry.list_tools(&ctx)).len(), 10_000);

    let mut group = c.benchmark_group("registry_listing_10x1000");
    // What the providers alone cost (they hand out owned specs): the registry's share of
    // `list_tools` is the difference.
    group.bench_function("providers_only", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut all = Vec::new();
                for provider in &providers {
                    all.extend(provider.list_tools(&ctx).await.expect("listing"));
                }
                black_box(all)
            })
        })
    });
    group.bench_function("list_tools", |b| {
        b.iter(|| black_box(rt.block_on(registry.list_tools(&ctx))))
    });
    group.bench_function("get_llm_definitions", |b| {
        b.iter(|| black_box(rt.block_on(registry.get_llm_definitions(&ctx))))
    });
    group.finish();
}

/// Times `iters` invocations inside one `block_on`, so runtime entry is not measured.
fn time_invokes(rt: &Runtime, registry: &ToolRegistry, tools: &[String], iters: u64) -> Duration {
    let ctx = ToolExecutionContext::default();
    let arguments = arguments();
    rt.block_on(async {
        let start = Instant::now();
        for i in 0..iters {
            let name = &tools[i as usize % tools.len()];
            let invocation = ToolInvocation::new(name.clone(), arguments.clone());
            let result = registry.invoke(invocation, &ctx).await;
            debug_assert!(result.success);
            black_box(result);
        }
        start.elapsed()
    })
}

/// MaiBot's routing (quirk Q2): list every provider until one lists the tool.
async fn invoke_by_listing(
    providers: &[Arc<MemoryProvider>],
    invocation: ToolInvocation,
    ctx: &ToolExecutionContext,
) -> ToolExecutionResult {
    let availability = ctx.availability();
    for provider in providers {
        let specs = provider.list_tools(&availability).await.expect("listing");
        if specs
            .iter()
            .any(|spec| spec.name == invocation.tool_name && spec.enabled)
        {
            return provider.invoke(invocation, ctx).await.expect("invoke");
        }
    }
    ToolExecutionResult::failure(invocation.tool_name, "not found")
}

fn routing(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("registry_invoke");
    for tools_per_provider in [1usize, 1_000] {
        let (registry, _providers) = setup(10, tools_per_provider);
        // A spread over every provider, the last one included.
        let tools: Vec<String> = (0..10)
            .map(|p| tool_name(p, (p * 7) % tools_per_provider))
            .collect();
        assert!(time_invokes(&rt, &registry, &tools, 10) > Duration::ZERO);
        group.bench_function(format!("indexed_10x{tools_per_provider}"), |b| {
            b.iter_custom(|iters| time_invokes(&rt, &registry, &tools, iters))
        });
    }

    let (_, providers) = setup(10, 1_000);
    let ctx = ToolExecutionContext::default();
    let arguments = arguments();
    group.bench_function("maibot_style_listing_10x1000", |b| {
        let mut i = 0usize;
        b.iter(|| {
            i += 1;
            let name = tool_name(i % 10, (i % 10) * 7);
            let invocation = ToolInvocation::new(name, arguments.clone());
            black_box(rt.block_on(invoke_by_listing(&providers, invocation, &ctx)))
        })
    });
    group.finish();
}

criterion_group!(benches, listing, routing);
criterion_main!(benches);
