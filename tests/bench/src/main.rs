//! `maitool-bench`: measures maitool against the physical floor of its IPC, in one run and one
//! process tree, and writes every figure to a JSON file. See `docs/BENCHMARKS.md`.
//!
//! ```text
//! cargo run --release -p maitool-bench -- --out bench.json
//! ```

mod bins;
mod capture;
mod cluster;

/// The allocator `maitool serve` runs with, since this process hosts the benchmark's host. The
/// floor (this executable too) gets it as well, so it stays the floor.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
mod floor;
mod floor_wire;
mod host;
mod invoke;
mod keys;
mod latency;
mod load;
mod maibot;
mod mcp;
mod operator;
mod placement;
mod plan;
mod pool;
mod procs;
mod report;
mod restart;
mod sandbox;
mod scale;
mod stats;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Parser;

use keys::TRACKED;
use plan::Plan;
use report::Report;

/// Measures maitool against the same-run IPC floor.
#[derive(Debug, Parser)]
#[command(name = "maitool-bench", about)]
struct Args {
    /// Where to write the JSON with every figure.
    #[arg(long, default_value = "bench.json")]
    out: PathBuf,
    /// A few samples of everything: checks that each section works, not how fast.
    #[arg(long)]
    quick: bool,
    /// Only these sections (comma-separated): invoke (with the floor), operator, restart,
    /// sandbox, scale, mcp, pool, cluster, maibot.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Kill everything and exit with status 3 after this many seconds.
    #[arg(long, default_value_t = 400)]
    timeout_secs: u64,
    /// The host's Tokio runtime: `current` (one thread, what `maitool serve` uses by default)
    /// or `multi` (what `maitool --runtime multi serve` uses), to compare flavours.
    #[arg(long, default_value = "current")]
    host_runtime: String,
    /// Do not build the sibling executables first (they must exist next to this one).
    #[arg(long)]
    no_build: bool,
    /// Measure nothing: keep one path (`floor`, `invoke`, or `maibot`, the invoke path to
    /// MaiBot's runner) at `--load-window` calls in flight for `--load-secs`, for a profiler to
    /// attach to.
    #[arg(long)]
    load: Option<String>,
    /// How long `--load` runs.
    #[arg(long, default_value_t = 10)]
    load_secs: u64,
    /// Calls `--load` keeps in flight: 256 as in `throughput_256_ratio`, 1 for the sequential
    /// path.
    #[arg(long, default_value_t = 256)]
    load_window: usize,
    /// Stop `--load` after this many calls instead (whole chunks of 50,000; 5,000 for
    /// `maibot`), for counting instructions under callgrind.
    #[arg(long)]
    load_calls: Option<usize>,
    /// Also write every sequential latency sample to this CSV file (`placement,path,ns`, in
    /// call order), to study the tail: which calls are slow, and whether they come in runs.
    #[arg(long)]
    samples_out: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    init_logging();
    procs::become_subreaper();
    let _reaper = procs::ReapGuard;
    match run(&args) {
        Ok(report) => {
            if report.has_errors() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(err) => {
            eprintln!("maitool-bench: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// Ends the whole process tree if the run overstays its limit, whatever it is blocked on.
fn start_watchdog(limit: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!(
            "maitool-bench: still running after {limit:?}; killing every child process and exiting"
        );
        procs::kill_descendants();
        std::process::exit(3);
    });
}

fn run(args: &Args) -> Result<Report> {
    let plan = Plan {
        samples_out: args.samples_out.clone(),
        ..if args.quick {
            Plan::quick()
        } else {
            Plan::full()
        }
    };
    let selected = |name: &str| args.only.is_empty() || args.only.iter().any(|only| only == name);
    let bins = bins::locate(!args.no_build)?;
    // The limit is for the measurements: a first build of the siblings may take longer.
    start_watchdog(Duration::from_secs(args.timeout_secs));
    let started = Instant::now();
    let mut report = Report::default();
    report.note("quick", args.quick);
    report.note(
        "cpus",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(0),
    );
    report.note("host_runtime", args.host_runtime.as_str());
    // The host library's features, which the `maitool` binary it runs shares (bins.rs).
    report.note("host_features", maitool_host::FEATURES);

    // By default the host side runs on the runtime `maitool serve` uses.
    let runtime = match args.host_runtime.as_str() {
        "multi" => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?,
        "current" => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
        other => anyhow::bail!("--host-runtime must be multi or current, not {other}"),
    };
    if let Some(path) = &args.load {
        let limit = match args.load_calls {
            Some(calls) => load::Limit::Calls(calls),
            None => load::Limit::Time(Duration::from_secs(args.load_secs)),
        };
        runtime.block_on(load::run(&bins, path, args.load_window, limit))?;
        return Ok(Report::default());
    }
    let limit = Duration::from_secs(120);
    if selected("invoke") {
        let outcome = runtime.block_on(bounded(limit, invoke::run(&bins, &plan, &mut report)));
        record(
            &mut report,
            "invoke",
            outcome,
            &[
                "invoke_p50_ratio",
                "invoke_p99_ratio",
                "throughput_256_ratio",
            ],
        );
    }
    if selected("operator") {
        let outcome = operator::run(&bins, &plan, &mut report);
        record(
            &mut report,
            "operator",
            outcome,
            &["runner_idle_rss_kib", "host_10_runners_rss_kib"],
        );
    }
    if selected("restart") {
        let outcome = runtime.block_on(bounded(limit, restart::run(&bins, &plan, &mut report)));
        record(
            &mut report,
            "restart",
            outcome,
            &["restart_ms_median", "cold_start_10_runners_ms"],
        );
    }
    if selected("sandbox") {
        let outcome = runtime.block_on(bounded(limit, sandbox::run(&bins, &plan, &mut report)));
        record(&mut report, "sandbox", outcome, sandbox::KEYS);
    }
    if selected("scale") {
        let outcome = runtime.block_on(bounded(limit, scale::run(&plan, &mut report)));
        record(
            &mut report,
            "scale",
            outcome,
            &["list_10k_tools_ms", "route_cost_ratio_10k_vs_1"],
        );
    }
    if selected("mcp") {
        let outcome = runtime.block_on(bounded(limit, mcp::run(&bins, &plan, &mut report)));
        record(&mut report, "mcp", outcome, &["mcp_overhead_ratio"]);
    }
    if selected("pool") {
        let outcome = runtime.block_on(bounded(limit, pool::run(&bins, &plan, &mut report)));
        record(&mut report, "pool", outcome, pool::KEYS);
    }
    if selected("cluster") {
        let outcome = runtime.block_on(bounded(limit, cluster::run(&bins, &plan, &mut report)));
        record(&mut report, "cluster", outcome, cluster::KEYS);
    }
    if selected("maibot") {
        // Two hosts, with interpreter starts of a third to half a second each (several
        // seconds on a busy machine) and a host of its own that serves a few thousand calls
        // a second.
        let limit = 2 * limit;
        let outcome = runtime.block_on(bounded(limit, maibot::run(&bins, &plan, &mut report)));
        record(&mut report, "maibot", outcome, maibot::KEYS);
    }
    runtime.shutdown_timeout(Duration::from_secs(2));
    let leftovers = procs::kill_descendants();
    report.note("leftover_processes_killed", leftovers);
    report.note("elapsed_s", started.elapsed().as_secs_f64());

    print!("{}", report.table());
    let misses = report.misses();
    println!(
        "\ntargets missed: {}",
        if misses.is_empty() {
            "none".to_owned()
        } else {
            misses.join(", ")
        }
    );
    report.write(&args.out)?;
    println!(
        "wrote {} ({:.1} s)",
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(report)
}

async fn bounded<T>(
    limit: Duration,
    work: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    tokio::time::timeout(limit, work)
        .await
        .map_err(|_| anyhow::anyhow!("did not finish within {limit:?}"))?
}

fn record(report: &mut Report, section: &'static str, outcome: Result<()>, keys: &[&str]) {
    if let Err(err) = outcome {
        eprintln!("maitool-bench: section {section} failed: {err:#}");
        report.error(section, &err);
    }
    report.absent(
        section,
        keys.iter()
            .copied()
            .filter(|key| {
                TRACKED.contains(key) || maibot::KEYS.contains(key) || cluster::KEYS.contains(key)
            })
            .collect::<Vec<_>>()
            .as_slice(),
    );
}
