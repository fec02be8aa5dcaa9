//! The sequential half of sections 1 and 2: one call in flight, the floor and maitool in
//! alternating rounds, each round in both placements (`placement`), so that both paths are
//! measured on the same machine state and the same vCPU arrangement.
//!
//! The tracked ratios (`invoke_p50_ratio`, `invoke_p99_ratio`) are the worse of the two
//! placements' ratios; each placement's figures are reported too. A machine with one vCPU
//! has only the first placement.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use maitool_host::ToolRegistry;

use crate::floor::Floor;
use crate::host;
use crate::placement::{Cpus, Placement};
use crate::plan::Plan;
use crate::procs::CpuMeter;
use crate::report::{Report, Target};
use crate::stats::{Latency, micros, ratio};

pub const FLOOR: &str = "1 floor";
pub const INVOKE: &str = "2 invoke";

/// Calls made and thrown away after each change of placement, so that no sample pays for a
/// process moving to its new vCPU.
const SETTLE_CALLS: usize = 50;

/// Samples of one placement.
#[derive(Default)]
struct Samples {
    floor: Vec<std::time::Duration>,
    raw: Vec<std::time::Duration>,
    invoke: Vec<std::time::Duration>,
}

/// Measures sequential calls through `floor`, the raw floor `raw` and `registry` to the echo
/// runner `runner`, into `report`.
pub async fn run(
    floor: &mut Floor,
    raw: &mut Floor,
    registry: &ToolRegistry,
    runner: u32,
    plan: &Plan,
    report: &mut Report,
) -> Result<()> {
    let cpus = Cpus::of_this_process()?;
    let me = std::process::id();
    let (mut floor_cpu, mut invoke_cpu) = (CpuMeter::default(), CpuMeter::default());
    let placements = cpus.placements();
    let mut by_placement: Vec<Samples> = placements.iter().map(|_| Samples::default()).collect();
    let mut scratch = Vec::with_capacity(SETTLE_CALLS);
    let server = floor.server_pid();
    for _ in 0..plan.rounds {
        for (&placement, samples) in placements.iter().zip(&mut by_placement) {
            {
                let _pinned = cpus.pin(placement, me, server)?;
                floor.sequential(SETTLE_CALLS, &mut scratch).await?;
                let calls = floor.sequential(plan.per_round, &mut samples.floor);
                floor_cpu.measure(me, server, calls).await?;
            }
            {
                let _pinned = cpus.pin(placement, me, raw.server_pid())?;
                raw.sequential(SETTLE_CALLS, &mut scratch).await?;
                raw.sequential(plan.per_round, &mut samples.raw).await?;
            }
            {
                let _pinned = cpus.pin(placement, me, runner)?;
                host::sequential(registry, "echo", SETTLE_CALLS, &mut scratch).await?;
                let calls = host::sequential(registry, "echo", plan.per_round, &mut samples.invoke);
                invoke_cpu.measure(me, runner, calls).await?;
            }
            scratch.clear();
        }
    }

    if let Some(path) = &plan.samples_out {
        write_samples(path, &placements, &by_placement)?;
    }
    let calls = (plan.rounds * plan.per_round * placements.len()) as f64;
    let cpu = [
        (FLOOR, "floor_client_cpu_us", "client", floor_cpu.first),
        (FLOOR, "floor_server_cpu_us", "server", floor_cpu.second),
        (INVOKE, "invoke_host_cpu_us", "host", invoke_cpu.first),
        (INVOKE, "invoke_runner_cpu_us", "runner", invoke_cpu.second),
    ];
    for (section, key, side, time) in cpu {
        let label = format!("{side} CPU per call, 1 in flight");
        report.add(section, key, &label, micros(time) / calls, "us");
    }

    let mut worst = (0.0f64, 0.0f64);
    for (&placement, samples) in placements.iter().zip(&mut by_placement) {
        let floor = Latency::of(&mut samples.floor);
        let raw = Latency::of(&mut samples.raw);
        let invoke = Latency::of(&mut samples.invoke);
        let (p50, p99) = (
            ratio(invoke.p50_us, floor.p50_us),
            ratio(invoke.p99_us, floor.p99_us),
        );
        worst = (worst.0.max(p50), worst.1.max(p99));
        let at = placement.key();
        let figures = [
            (FLOOR, "floor_p50", "round trip p50", floor.p50_us, "us"),
            (FLOOR, "floor_p99", "round trip p99", floor.p99_us, "us"),
            (
                FLOOR,
                "floor_raw_p50",
                "raw bytes round trip p50",
                raw.p50_us,
                "us",
            ),
            (
                FLOOR,
                "floor_raw_p99",
                "raw bytes round trip p99",
                raw.p99_us,
                "us",
            ),
            (
                INVOKE,
                "invoke_p50_raw_ratio",
                "invoke p50 / raw floor p50",
                ratio(invoke.p50_us, raw.p50_us),
                "x",
            ),
            (
                INVOKE,
                "invoke_p50",
                "registry invoke p50",
                invoke.p50_us,
                "us",
            ),
            (
                INVOKE,
                "invoke_p99",
                "registry invoke p99",
                invoke.p99_us,
                "us",
            ),
            (
                INVOKE,
                "invoke_p50_ratio",
                "invoke p50 / floor p50",
                p50,
                "x",
            ),
            (
                INVOKE,
                "invoke_p99_ratio",
                "invoke p99 / floor p99",
                p99,
                "x",
            ),
        ];
        for (section, key, label, value, unit) in figures {
            let key = match unit {
                "us" => format!("{key}_{at}_us"),
                _ => format!("{key}_{at}"),
            };
            report.add(section, &key, &format!("{label}, {placement}"), value, unit);
        }
    }

    let mut all_floor: Vec<_> = by_placement.iter().flat_map(|s| s.floor.clone()).collect();
    let mut all_invoke: Vec<_> = by_placement.iter().flat_map(|s| s.invoke.clone()).collect();
    let mut all_raw: Vec<_> = by_placement.iter().flat_map(|s| s.raw.clone()).collect();
    let (floor, invoke) = (Latency::of(&mut all_floor), Latency::of(&mut all_invoke));
    let raw = Latency::of(&mut all_raw);
    let pooled = [
        (
            FLOOR,
            "floor_p50_us",
            "round trip p50, both placements",
            floor.p50_us,
        ),
        (
            FLOOR,
            "floor_p99_us",
            "round trip p99, both placements",
            floor.p99_us,
        ),
        (
            FLOOR,
            "floor_raw_p50_us",
            "raw bytes round trip p50, both placements",
            raw.p50_us,
        ),
        (
            FLOOR,
            "floor_mean_us",
            "round trip mean, both placements",
            floor.mean_us,
        ),
        (
            INVOKE,
            "invoke_p50_us",
            "registry invoke p50, both placements",
            invoke.p50_us,
        ),
        (
            INVOKE,
            "invoke_p99_us",
            "registry invoke p99, both placements",
            invoke.p99_us,
        ),
        (
            INVOKE,
            "invoke_mean_us",
            "registry invoke mean, both placements",
            invoke.mean_us,
        ),
    ];
    for (section, key, label, value) in pooled {
        report.add(section, key, label, value, "us");
    }
    report.check(
        INVOKE,
        "invoke_p50_ratio",
        "invoke p50 / floor p50, the worse placement",
        worst.0,
        "x",
        Target::AtMost(1.3),
    );
    report.check(
        INVOKE,
        "invoke_p99_ratio",
        "invoke p99 / floor p99, the worse placement",
        worst.1,
        "x",
        Target::AtMost(2.0),
    );
    report.add(
        INVOKE,
        "invoke_mean_ratio",
        "invoke mean / floor mean, both placements",
        ratio(invoke.mean_us, floor.mean_us),
        "x",
    );
    Ok(())
}

/// Writes every sample as `placement,path,ns` rows, in call order within each path.
fn write_samples(path: &Path, placements: &[Placement], samples: &[Samples]) -> Result<()> {
    let mut csv = String::from("placement,path,ns\n");
    for (placement, samples) in placements.iter().zip(samples) {
        let paths = [
            ("floor", &samples.floor),
            ("raw", &samples.raw),
            ("invoke", &samples.invoke),
        ];
        for (name, path_samples) in paths {
            for sample in path_samples {
                let _ = writeln!(csv, "{placement:?},{name},{}", sample.as_nanos());
            }
        }
    }
    std::fs::write(path, csv).with_context(|| format!("cannot write {}", path.display()))
}
