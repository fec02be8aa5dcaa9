//! Sections 1 and 2: the floor, and `ToolRegistry::invoke` through `PluginToolProvider` to a
//! real echo runner, measured in alternating rounds so that both see the same machine (these
//! machines are shared: a neighbour's load, or the scheduler putting the two processes on one
//! vCPU or on two, moves absolute figures a lot from minute to minute). One call in flight is
//! measured by `latency`, with the vCPUs pinned; the throughput here is left to the scheduler,
//! which spreads two busy processes over both vCPUs.

use anyhow::{Context, Result};
use maitool_host::plugin::RuntimeConfig;
use serde_json::json;

use crate::bins::Bins;
use crate::capture;
use crate::floor::{FIRST_ID, Floor};
use crate::host::{self, BenchHost};
use crate::latency::{self, FLOOR, INVOKE};
use crate::plan::Plan;
use crate::procs::CpuMeter;
use crate::report::{Report, Target};
use crate::stats::{median, micros, ratio};

/// Runs both sections into `report`.
pub async fn run(bins: &Bins, plan: &Plan, report: &mut Report) -> Result<()> {
    // The floors' frames are the real ones' sizes, at the floor's request ids.
    let captured = capture::invoke_frames(bins).await?;
    let sizes = captured.sizes_with_id(FIRST_ID);
    let mut floor = Floor::start(&bins.floor, sizes).await?;
    let mut raw = Floor::start_raw(&bins.floor, sizes).await?;
    report.note(
        "frame_bytes",
        json!({
            "request": floor.sizes.0,
            "response": floor.sizes.1,
            "captured": {
                "request": captured.request.len(),
                "response": captured.response.len(),
                "request_id": captured.request_id,
            },
        }),
    );
    let bench = BenchHost::start(&bins.echo, 1, RuntimeConfig::default()).await?;
    let registry = bench.registry().clone();

    let mut scratch = Vec::with_capacity(plan.warmup);
    floor.sequential(plan.warmup, &mut scratch).await?;
    raw.sequential(plan.warmup, &mut scratch).await?;
    host::sequential(&registry, "echo", plan.warmup, &mut scratch).await?;

    let me = std::process::id();
    let runner = bench.runner()?.pid.context("the runner has no pid")?;
    latency::run(&mut floor, &mut raw, &registry, runner, plan, report).await?;

    for window in [64usize, 256] {
        let (mut floor_rates, mut invoke_rates, mut failures) = (Vec::new(), Vec::new(), 0usize);
        let mut raw_rates = Vec::new();
        let (mut floor_cpu, mut invoke_cpu) = (CpuMeter::default(), CpuMeter::default());
        floor.pipelined(window, plan.throughput_calls / 4).await?;
        raw.pipelined(window, plan.throughput_calls / 4).await?;
        host::concurrent(&registry, "echo", window, plan.throughput_calls / 4).await?;
        for _ in 0..plan.throughput_rounds {
            raw_rates.push(raw.pipelined(window, plan.throughput_calls).await?);
            floor_rates.push(
                floor_cpu
                    .measure(
                        me,
                        floor.server_pid(),
                        floor.pipelined(window, plan.throughput_calls),
                    )
                    .await?,
            );
            let (rate, failed) = invoke_cpu
                .measure(
                    me,
                    runner,
                    host::concurrent(&registry, "echo", window, plan.throughput_calls),
                )
                .await?;
            invoke_rates.push(rate);
            failures += failed;
        }
        let (floor_rate, invoke_rate) = (median(&floor_rates), median(&invoke_rates));
        let calls = (plan.throughput_rounds * plan.throughput_calls) as f64;
        report.add(
            FLOOR,
            &format!("floor_pipelined_{window}_calls_s"),
            &format!("pipelined, {window} in flight"),
            floor_rate,
            "calls/s",
        );
        report.add(
            FLOOR,
            &format!("floor_raw_pipelined_{window}_calls_s"),
            &format!("raw bytes, pipelined, {window} in flight"),
            median(&raw_rates),
            "calls/s",
        );
        report.add(
            FLOOR,
            &format!("floor_{window}_client_cpu_us"),
            &format!("client CPU per call, {window} in flight"),
            micros(floor_cpu.first) / calls,
            "us",
        );
        report.add(
            FLOOR,
            &format!("floor_{window}_server_cpu_us"),
            &format!("server CPU per call, {window} in flight"),
            micros(floor_cpu.second) / calls,
            "us",
        );
        report.add(
            INVOKE,
            &format!("invoke_{window}_host_cpu_us"),
            &format!("host CPU per call, {window} concurrent"),
            micros(invoke_cpu.first) / calls,
            "us",
        );
        report.add(
            INVOKE,
            &format!("invoke_{window}_runner_cpu_us"),
            &format!("runner CPU per call, {window} concurrent"),
            micros(invoke_cpu.second) / calls,
            "us",
        );
        report.add(
            INVOKE,
            &format!("invoke_{window}_calls_s"),
            &format!("{window} concurrent invocations"),
            invoke_rate,
            "calls/s",
        );
        report.add(
            INVOKE,
            &format!("invoke_{window}_failures"),
            &format!("failed calls at {window} concurrent"),
            failures as f64,
            "calls",
        );
        let key = format!("throughput_{window}_ratio");
        let label = format!("calls/s at {window} / floor pipelined");
        if window == 256 {
            report.check(
                INVOKE,
                &key,
                &label,
                ratio(invoke_rate, floor_rate),
                "x",
                Target::AtLeast(0.6),
            );
        } else {
            report.add(INVOKE, &key, &label, ratio(invoke_rate, floor_rate), "x");
        }
    }
    bench.stop().await;
    Ok(())
}
