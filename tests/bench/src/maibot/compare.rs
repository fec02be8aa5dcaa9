//! The comparison half of the section: the same `echo_text` calls of the same plugin, run by
//! the same MaiBot runner, under maitool's host and under MaiBot's own, in alternating rounds
//! (a neighbour's build moves absolute figures from minute to minute; alternation lets both
//! hosts see the same machine). Beside them, maitool's host calls the benchmark's Rust echo
//! runner in the same rounds: the reference for what the host spends per call on a runner that
//! costs almost nothing itself.
//!
//! The host's CPU per call grows with how long it waits for the runner, whatever the runner:
//! after a wait of a hundred microseconds or more the host's vCPU has halted and its caches
//! are cold. So the Rust runner is called twice per round: answering at once (the fast path's
//! cost) and computing first for as long as MaiBot's runner took in the warm-up (the same
//! wait), which isolates what the host spends on a MaiBot call itself.
//!
//! Sequential calls are not pinned to vCPUs: the Python runner's own work (over 100 µs a
//! call), not the wake-ups, dominates them. Throughput is successful calls per second, since
//! MaiBot's host refuses part of a burst (`E_BACK_PRESSURE`) and a refusal is quick.

use std::time::Duration;

use anyhow::{Context, Result};

use super::own_host::OwnHost;
use super::{ECHO_TOOL, RUNNER, RUST_RUNNER, RUST_TOOL, SECTION};
use crate::host::{self, BenchHost};
use crate::plan::Plan;
use crate::procs::CpuMeter;
use crate::report::{Report, Target};
use crate::stats::{Latency, median, micros, ratio};

/// `maibot_runner_invoke_p50_ratio`'s target: maitool's p50 at most this share of MaiBot's.
const P50_RATIO: f64 = 0.7;
/// `maibot_runner_host_cpu_same_wait_ratio`'s target: the host's CPU per MaiBot call at most
/// this many times its CPU per call to the Rust runner made to answer as slowly as MaiBot's.
const HOST_CPU_RATIO: f64 = 1.5;
/// The throughput windows, as in the invoke section.
const WINDOWS: [usize; 2] = [64, 256];

/// One path's sequential samples and CPU time.
#[derive(Default)]
struct Path {
    samples: Vec<Duration>,
    cpu: CpuMeter,
}

impl Path {
    fn per_call(&self) -> (f64, f64) {
        let calls = self.samples.len().max(1) as f64;
        (
            micros(self.cpu.first) / calls,
            micros(self.cpu.second) / calls,
        )
    }
}

/// Compares maitool's host (`bench`, with MaiBot's runner and the Rust echo runner) and
/// MaiBot's (`own`), into `report`.
pub async fn run(
    bench: &BenchHost,
    own: &mut OwnHost,
    plan: &Plan,
    report: &mut Report,
) -> Result<()> {
    sequential(bench, own, plan, report).await?;
    for window in WINDOWS {
        throughput(bench, own, window, plan, report).await?;
    }
    Ok(())
}

/// Sequential calls, one in flight, in `plan.maibot_rounds` alternating rounds.
async fn sequential(
    bench: &BenchHost,
    own: &mut OwnHost,
    plan: &Plan,
    report: &mut Report,
) -> Result<()> {
    let registry = bench.registry();
    let me = std::process::id();
    let runner = pid(bench, RUNNER)?;
    let rust_runner = pid(bench, RUST_RUNNER)?;
    let mut warm_maibot = Vec::with_capacity(plan.maibot_warmup);
    let mut warm_rust = Vec::with_capacity(plan.maibot_warmup);
    host::sequential(registry, ECHO_TOOL, plan.maibot_warmup, &mut warm_maibot).await?;
    host::sequential(registry, RUST_TOOL, plan.maibot_warmup, &mut warm_rust).await?;
    own.sequential(plan.maibot_warmup, &mut Vec::new()).await?;
    // What MaiBot's runner adds to a call's wait, for the Rust runner to compute as long.
    let busy_us = (Latency::of(&mut warm_maibot).p50_us - Latency::of(&mut warm_rust).p50_us)
        .max(0.0)
        .round();
    let mut slow_arguments = crate::floor::echo_arguments();
    slow_arguments.insert("busy_us".into(), (busy_us as u64).into());
    host::sequential_with(
        registry,
        RUST_TOOL,
        &slow_arguments,
        plan.maibot_warmup,
        &mut Vec::new(),
    )
    .await?;

    let (mut maitool, mut rust, mut rust_slow, mut maibot) = (
        Path::default(),
        Path::default(),
        Path::default(),
        Path::default(),
    );
    let per_round = plan.maibot_calls / plan.maibot_rounds;
    for _ in 0..plan.maibot_rounds {
        let calls = host::sequential(registry, ECHO_TOOL, per_round, &mut maitool.samples);
        maitool.cpu.measure(me, runner, calls).await?;
        let calls = host::sequential(registry, RUST_TOOL, per_round, &mut rust.samples);
        rust.cpu.measure(me, rust_runner, calls).await?;
        let calls = host::sequential_with(
            registry,
            RUST_TOOL,
            &slow_arguments,
            per_round,
            &mut rust_slow.samples,
        );
        rust_slow.cpu.measure(me, rust_runner, calls).await?;
        let (host_pid, runner_pid) = (own.pid, own.runner_pid);
        let calls = own.sequential(per_round, &mut maibot.samples);
        maibot.cpu.measure(host_pid, runner_pid, calls).await?;
    }

    let (maitool_cpu, rust_cpu, rust_slow_cpu, maibot_cpu) = (
        maitool.per_call(),
        rust.per_call(),
        rust_slow.per_call(),
        maibot.per_call(),
    );
    let under_maitool = Latency::of(&mut maitool.samples);
    let under_maibot = Latency::of(&mut maibot.samples);
    let calls = under_maitool.samples;
    let figures = [
        (
            "maibot_runner_invoke_p50_us",
            "maitool: registry invoke p50",
            under_maitool.p50_us,
            "us",
        ),
        (
            "maibot_runner_invoke_p99_us",
            "maitool: registry invoke p99",
            under_maitool.p99_us,
            "us",
        ),
        (
            "maibot_runner_invoke_mean_us",
            "maitool: registry invoke mean",
            under_maitool.mean_us,
            "us",
        ),
        (
            "maibot_runner_host_cpu_us",
            "maitool: host CPU per call, 1 in flight",
            maitool_cpu.0,
            "us",
        ),
        (
            "maibot_runner_runner_cpu_us",
            "maitool: runner CPU per call, 1 in flight",
            maitool_cpu.1,
            "us",
        ),
        (
            "maibot_runner_rust_host_cpu_us",
            "maitool: host CPU per call to the Rust runner",
            rust_cpu.0,
            "us",
        ),
        (
            "maibot_runner_rust_slow_host_cpu_us",
            "maitool: host CPU per call to the Rust runner made as slow",
            rust_slow_cpu.0,
            "us",
        ),
        (
            "maibot_runner_rust_slow_busy_us",
            "the Rust runner made as slow: computes before answering",
            busy_us,
            "us",
        ),
        (
            "maibot_host_invoke_p50_us",
            "MaiBot: ToolRegistry invoke p50",
            under_maibot.p50_us,
            "us",
        ),
        (
            "maibot_host_invoke_p99_us",
            "MaiBot: ToolRegistry invoke p99",
            under_maibot.p99_us,
            "us",
        ),
        (
            "maibot_host_invoke_mean_us",
            "MaiBot: ToolRegistry invoke mean",
            under_maibot.mean_us,
            "us",
        ),
        (
            "maibot_host_host_cpu_us",
            "MaiBot: host CPU per call, 1 in flight",
            maibot_cpu.0,
            "us",
        ),
        (
            "maibot_host_runner_cpu_us",
            "MaiBot: runner CPU per call, 1 in flight",
            maibot_cpu.1,
            "us",
        ),
        (
            "maibot_runner_invoke_p99_ratio",
            "p99 under maitool / under MaiBot",
            ratio(under_maitool.p99_us, under_maibot.p99_us),
            "x",
        ),
    ];
    for (key, label, value, unit) in figures {
        report.add(
            SECTION,
            key,
            &format!("{label} ({calls} calls)"),
            value,
            unit,
        );
    }
    report.check(
        SECTION,
        "maibot_runner_invoke_p50_ratio",
        "p50 under maitool / under MaiBot",
        ratio(under_maitool.p50_us, under_maibot.p50_us),
        "x",
        Target::AtMost(P50_RATIO),
    );
    // Reported without a target: the host's work per call is the same (BENCHMARKS.md, "Where
    // the host's CPU per MaiBot call goes"); this ratio measures the runner's slowness, since
    // the host's CPU per call grows with its wait. The same-wait ratio below is the target.
    report.add(
        SECTION,
        "maibot_runner_host_cpu_ratio",
        "maitool's CPU per MaiBot call / per Rust call answering at once",
        ratio(maitool_cpu.0, rust_cpu.0),
        "x",
    );
    report.check(
        SECTION,
        "maibot_runner_host_cpu_same_wait_ratio",
        "maitool's CPU per MaiBot call / per call to a Rust runner as slow",
        ratio(maitool_cpu.0, rust_slow_cpu.0),
        "x",
        Target::AtMost(HOST_CPU_RATIO),
    );
    Ok(())
}

/// `window` calls in flight under both hosts: a warm-up of a quarter of the calls, then
/// `plan.throughput_rounds` alternating rounds (median rate). Every failed call counts towards
/// the rejected figure, the warm-up's too (the first burst is the likeliest to be refused).
async fn throughput(
    bench: &BenchHost,
    own: &mut OwnHost,
    window: usize,
    plan: &Plan,
    report: &mut Report,
) -> Result<()> {
    let registry = bench.registry();
    let me = std::process::id();
    let runner = pid(bench, RUNNER)?;
    let calls = plan.maibot_throughput_calls;
    let (_, mut maitool_failed) = host::concurrent(registry, ECHO_TOOL, window, calls / 4).await?;
    let mut maibot_failed = own.concurrent(window, calls / 4).await?.failed();
    let (mut maitool_rates, mut maibot_rates) = (Vec::new(), Vec::new());
    let (mut maitool_cpu, mut maibot_cpu) = (CpuMeter::default(), CpuMeter::default());
    for _ in 0..plan.throughput_rounds {
        let round = host::concurrent(registry, ECHO_TOOL, window, calls);
        let (rate, failed) = maitool_cpu.measure(me, runner, round).await?;
        maitool_rates.push(rate * (calls - failed) as f64 / calls as f64);
        maitool_failed += failed;
        let (host_pid, runner_pid) = (own.pid, own.runner_pid);
        let round = maibot_cpu
            .measure(host_pid, runner_pid, own.concurrent(window, calls))
            .await?;
        maibot_rates.push((calls - round.failed()) as f64 / round.seconds);
        maibot_failed += round.failed();
    }
    let total = calls / 4 + plan.throughput_rounds * calls;
    let measured = (plan.throughput_rounds * calls) as f64;
    let (maitool_rate, maibot_rate) = (median(&maitool_rates), median(&maibot_rates));
    let figures = [
        (
            "maibot_runner",
            "maitool",
            maitool_rate,
            maitool_failed,
            maitool_cpu,
        ),
        (
            "maibot_host",
            "MaiBot",
            maibot_rate,
            maibot_failed,
            maibot_cpu,
        ),
    ];
    for (prefix, host, rate, failed, cpu) in figures {
        report.add(
            SECTION,
            &format!("{prefix}_calls_per_s_{window}"),
            &format!(
                "{host}: successful calls/s, {window} in flight (median of {})",
                maitool_rates.len()
            ),
            rate,
            "calls/s",
        );
        let key = format!("{prefix}_rejected_{window}");
        let label = format!("{host}: failed calls at {window} in flight (of {total})");
        if prefix == "maibot_runner" && window == 256 {
            report.check(
                SECTION,
                &key,
                &label,
                failed as f64,
                "calls",
                Target::AtMost(0.0),
            );
        } else {
            report.add(SECTION, &key, &label, failed as f64, "calls");
        }
        report.add(
            SECTION,
            &format!("{prefix}_{window}_host_cpu_us"),
            &format!("{host}: host CPU per call, {window} in flight"),
            micros(cpu.first) / measured,
            "us",
        );
        report.add(
            SECTION,
            &format!("{prefix}_{window}_runner_cpu_us"),
            &format!("{host}: runner CPU per call, {window} in flight"),
            micros(cpu.second) / measured,
            "us",
        );
    }
    report.add(
        SECTION,
        &format!("maibot_runner_throughput_{window}_ratio"),
        &format!("successful calls/s at {window}, maitool / MaiBot"),
        ratio(maitool_rate, maibot_rate),
        "x",
    );
    Ok(())
}

/// The pid of runner `name` of maitool's host.
fn pid(bench: &BenchHost, name: &str) -> Result<u32> {
    bench
        .runner_named(name)?
        .pid
        .with_context(|| format!("runner {name} has no pid"))
}
