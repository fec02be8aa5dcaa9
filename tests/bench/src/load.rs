//! `--load`: one path kept under the benchmark's throughput load for a while, measuring
//! nothing but its rate, so that a profiler sees that path alone. A full run alternates the
//! floor and maitool in one process, which mixes both into any profile of it.
//!
//! ```text
//! maitool-bench --no-build --load invoke --load-secs 10 &
//! perf record -g -p "$(pgrep -n maitool-bench-e)"   # the runner; or -p of the benchmark
//! ```

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::bins::Bins;
use crate::capture;
use crate::floor::{FIRST_ID, Floor};
use crate::host::{self, BenchHost};
use crate::maibot;
use crate::procs::CpuMeter;
use crate::stats::micros;

/// Calls per rate sample of the floor and of maitool with the Rust echo runner.
const CHUNK: usize = 50_000;
/// Calls per rate sample of maitool with MaiBot's Python runner, which answers about a
/// tenth as fast.
const MAIBOT_CHUNK: usize = 5_000;

/// When a load run stops.
#[derive(Debug, Clone, Copy)]
pub enum Limit {
    /// After this long (the chunk under way is finished).
    Time(Duration),
    /// After this many calls, rounded up to whole chunks (50,000 calls, 5,000 for `maibot`):
    /// for instruction counts
    /// (`valgrind --tool=callgrind --trace-children=yes`), which time cannot bound.
    Calls(usize),
}

impl Limit {
    fn reached(self, started: Instant, calls: usize) -> bool {
        match self {
            Limit::Time(duration) => started.elapsed() >= duration,
            Limit::Calls(limit) => calls >= limit,
        }
    }
}

/// Drives `path` (`floor`, `invoke`, or `maibot`: the invoke path to MaiBot's runner) with `window` calls in flight (256 in the tracked
/// `throughput_256_ratio`; 1 for the sequential path) until `limit`; prints the process ids to
/// attach to, the rate, and the CPU time each side spent per call.
pub async fn run(bins: &Bins, path: &str, window: usize, limit: Limit) -> Result<()> {
    let window = window.max(1);
    let mut cpu = CpuMeter::default();
    let me = std::process::id();
    let (calls, started) = match path {
        "floor" => {
            let sizes = capture::invoke_frames(bins).await?.sizes_with_id(FIRST_ID);
            let mut floor = Floor::start(&bins.floor, sizes).await?;
            eprintln!(
                "load: floor client pid {}, server pid {}",
                std::process::id(),
                floor.server_pid()
            );
            let started = Instant::now();
            let mut calls = 0;
            while !limit.reached(started, calls) {
                let server = floor.server_pid();
                cpu.measure(me, server, floor.pipelined(window, CHUNK))
                    .await?;
                calls += CHUNK;
            }
            (calls, started)
        }
        "invoke" => {
            let bench = BenchHost::start(&bins.echo, 1, runtime()).await?;
            let runner = bench.runner()?.pid.context("the runner has no pid")?;
            let outcome = drive(&bench, runner, "echo", window, CHUNK, limit, &mut cpu).await;
            bench.stop().await;
            outcome?
        }
        "maibot" => {
            let (bench, runner) = maibot::load_host(runtime()).await?;
            let outcome = drive(
                &bench,
                runner,
                maibot::ECHO_TOOL,
                window,
                MAIBOT_CHUNK,
                limit,
                &mut cpu,
            )
            .await;
            bench.stop().await;
            outcome?
        }
        other => bail!("--load takes floor, invoke or maibot, not {other}"),
    };
    let calls = calls as f64;
    println!(
        "load {path}: {calls} calls at {window} in flight, {:.0} calls/s overall, CPU per call \
         {:.2} us here and {:.2} us in the other process",
        calls / started.elapsed().as_secs_f64(),
        micros(cpu.first) / calls,
        micros(cpu.second) / calls,
    );
    Ok(())
}

/// The host's runtime settings for a load run: the defaults, but with `BENCH_SANDBOX=off` the
/// runners start unsandboxed. Valgrind does not know Landlock's system calls, so a runner
/// spawned under `--trace-children=yes` fails its sandbox set-up and never starts.
fn runtime() -> maitool_host::plugin::RuntimeConfig {
    let mut runtime = maitool_host::plugin::RuntimeConfig::default();
    if std::env::var("BENCH_SANDBOX").as_deref() == Ok("off") {
        runtime.sandbox = maitool_host::sandbox::SandboxMode::Off;
    }
    runtime
}

/// Calls `tool` through `bench` with `window` in flight, `chunk` calls at a time, until
/// `limit`, measuring this process's and `runner`'s CPU time into `cpu`; how many calls it
/// made, and when it started.
async fn drive(
    bench: &BenchHost,
    runner: u32,
    tool: &str,
    window: usize,
    chunk: usize,
    limit: Limit,
    cpu: &mut CpuMeter,
) -> Result<(usize, Instant)> {
    eprintln!("load: host pid {}, runner pid {runner}", std::process::id());
    let registry = bench.registry().clone();
    let me = std::process::id();
    let started = Instant::now();
    let mut calls = 0;
    while !limit.reached(started, calls) {
        let (_, failed) = cpu
            .measure(me, runner, host::concurrent(&registry, tool, window, chunk))
            .await?;
        if failed > 0 {
            bail!("{failed} of {chunk} calls failed");
        }
        calls += chunk;
    }
    Ok((calls, started))
}
