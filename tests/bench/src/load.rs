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
use crate::procs::CpuMeter;
use crate::stats::micros;

/// Calls per rate sample.
const CHUNK: usize = 50_000;

/// When a load run stops.
#[derive(Debug, Clone, Copy)]
pub enum Limit {
    /// After this long (the chunk under way is finished).
    Time(Duration),
    /// After this many calls, rounded up to whole chunks of 50,000: for instruction counts
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

/// Drives `path` (`floor` or `invoke`) with `window` calls in flight (256 in the tracked
/// `throughput_256_ratio`; 1 for the sequential path) until `limit`; prints the process ids to
/// attach to, the rate, and the CPU time each side spent per call.
pub async fn run(bins: &Bins, path: &str, window: usize, limit: Limit) -> Result<()> {
    let window = window.max(1);
    let mut cpu = CpuMeter::default();
    let me = std::process::id();
    let (rates, started) = match path {
        "floor" => {
            let sizes = capture::invoke_frames(bins).await?.sizes_with_id(FIRST_ID);
            let mut floor = Floor::start(&bins.floor, sizes).await?;
            eprintln!(
                "load: floor client pid {}, server pid {}",
                std::process::id(),
                floor.server_pid()
            );
            let started = Instant::now();
            let mut rates = Vec::new();
            while !limit.reached(started, rates.len() * CHUNK) {
                let server = floor.server_pid();
                rates.push(
                    cpu.measure(me, server, floor.pipelined(window, CHUNK))
                        .await?,
                );
            }
            (rates, started)
        }
        "invoke" => {
            let bench = BenchHost::start(
                &bins.echo,
                1,
                maitool_host::plugin::RuntimeConfig::default(),
            )
            .await?;
            let runner = bench.runner()?.pid.context("the runner has no pid")?;
            eprintln!("load: host pid {}, runner pid {runner}", std::process::id());
            let registry = bench.registry().clone();
            let started = Instant::now();
            let mut rates = Vec::new();
            while !limit.reached(started, rates.len() * CHUNK) {
                let (rate, failed) = cpu
                    .measure(
                        me,
                        runner,
                        host::concurrent(&registry, "echo", window, CHUNK),
                    )
                    .await?;
                if failed > 0 {
                    bail!("{failed} of {CHUNK} calls failed");
                }
                rates.push(rate);
            }
            bench.stop().await;
            (rates, started)
        }
        other => bail!("--load takes floor or invoke, not {other}"),
    };
    let calls = (rates.len() * CHUNK) as f64;
    println!(
        "load {path}: {calls} calls at {window} in flight, {:.0} calls/s overall, CPU per call \
         {:.2} us here and {:.2} us in the other process",
        calls / started.elapsed().as_secs_f64(),
        micros(cpu.first) / calls,
        micros(cpu.second) / calls,
    );
    Ok(())
}
