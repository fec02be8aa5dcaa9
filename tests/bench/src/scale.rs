//! Section 4: the registry with 10,000 tools over 10 in-process providers: listing, the
//! model-facing definitions, and the cost of routing an invocation with 1 and with 10,000
//! registered tools.

use std::hint::black_box;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use maitool_host::ToolRegistry;
use maitool_protocol::{ToolAvailabilityContext, ToolExecutionContext, ToolInvocation};

use crate::plan::Plan;
use crate::report::{Report, Target};
use crate::stats::{median, millis};

// The criterion bench of the registry measures the same providers.
#[path = "../../../host/benches/support/memory_provider.rs"]
mod memory_provider;

use memory_provider::{arguments, tool_name};

const SECTION: &str = "4 scale";

/// A registry of `providers` providers with `per_provider` tools each.
fn registry(providers: usize, per_provider: usize) -> ToolRegistry {
    memory_provider::registry(providers, per_provider).0
}

/// Runs the section into `report`.
pub async fn run(plan: &Plan, report: &mut Report) -> Result<()> {
    let big = registry(10, 1_000);
    let ctx = ToolAvailabilityContext::default();
    let listed = big.list_tools(&ctx).await.len();
    if listed != 10_000 {
        bail!("expected 10000 tools, listed {listed}");
    }
    let (mut listing, mut definitions) = (Vec::new(), Vec::new());
    for _ in 0..plan.listings {
        let started = Instant::now();
        black_box(big.list_tools(&ctx).await);
        listing.push(millis(started.elapsed()));
        let started = Instant::now();
        black_box(big.get_llm_definitions(&ctx).await);
        definitions.push(millis(started.elapsed()));
    }
    report.check(
        SECTION,
        "list_10k_tools_ms",
        "list_tools, 10 providers x 1,000 tools",
        median(&listing),
        "ms",
        Target::Below(2.0),
    );
    report.add(
        SECTION,
        "llm_definitions_10k_ms",
        "get_llm_definitions, 10,000 tools",
        median(&definitions),
        "ms",
    );

    // 1 registered tool, against 10,000 over 10 providers (the call spread over all 10), and
    // 10 x 1 to separate the number of tools from the number of providers.
    let one = registry(1, 1);
    let ten_by_one = registry(10, 1);
    let ten_by_thousand = big;
    let one_names = vec![tool_name(0, 0)];
    let spread: Vec<String> = (0..10).map(|p| tool_name(p, (p * 97) % 1_000)).collect();
    let spread_small: Vec<String> = (0..10).map(|p| tool_name(p, 0)).collect();
    let (mut ns_one, mut ns_ten_one, mut ns_big) = (Vec::new(), Vec::new(), Vec::new());
    time_invokes(&one, &one_names, plan.route_calls / 4).await?;
    time_invokes(&ten_by_one, &spread_small, plan.route_calls / 4).await?;
    time_invokes(&ten_by_thousand, &spread, plan.route_calls / 4).await?;
    for _ in 0..plan.route_rounds {
        ns_one.push(per_call_ns(
            time_invokes(&one, &one_names, plan.route_calls).await?,
            plan.route_calls,
        ));
        ns_ten_one.push(per_call_ns(
            time_invokes(&ten_by_one, &spread_small, plan.route_calls).await?,
            plan.route_calls,
        ));
        ns_big.push(per_call_ns(
            time_invokes(&ten_by_thousand, &spread, plan.route_calls).await?,
            plan.route_calls,
        ));
    }
    let (one, ten_one, big) = (median(&ns_one), median(&ns_ten_one), median(&ns_big));
    report.add(
        SECTION,
        "route_invoke_1_tool_ns",
        "invoke, 1 registered tool",
        one,
        "ns",
    );
    report.add(
        SECTION,
        "route_invoke_10x1_tools_ns",
        "invoke, 10 providers x 1 tool",
        ten_one,
        "ns",
    );
    report.add(
        SECTION,
        "route_invoke_10k_tools_ns",
        "invoke, 10 providers x 1,000 tools",
        big,
        "ns",
    );
    report.check(
        SECTION,
        "route_cost_ratio_10k_vs_1",
        "invoke cost 10,000 tools / 1 tool",
        crate::stats::ratio(big, one),
        "x",
        Target::AtMost(1.5),
    );
    report.add(
        SECTION,
        "route_cost_ratio_10x1000_vs_10x1",
        "invoke cost 10 x 1,000 / 10 x 1 tools",
        crate::stats::ratio(big, ten_one),
        "x",
    );
    Ok(())
}

/// `count` invocations cycling over `names`, in one task; the total time.
async fn time_invokes(registry: &ToolRegistry, names: &[String], count: usize) -> Result<Duration> {
    let ctx = ToolExecutionContext::default();
    let arguments = arguments();
    let started = Instant::now();
    for i in 0..count {
        let result = registry
            .invoke(
                ToolInvocation::new(names[i % names.len()].as_str(), arguments.clone()),
                &ctx,
            )
            .await;
        if !result.success {
            bail!("routing failed: {}", result.error_message);
        }
        black_box(result);
    }
    Ok(started.elapsed())
}

fn per_call_ns(total: Duration, count: usize) -> f64 {
    total.as_secs_f64() * 1e9 / count.max(1) as f64
}
