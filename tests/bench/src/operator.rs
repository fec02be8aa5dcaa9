//! What an operator sees, through the `maitool` binary: `maitool serve` with ten echo runners
//! (its cold start as `maitool tools` observes it, and the resident memory of the host and of
//! its idle runners), and `maitool call` against it.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use maitool_host::plugin::RuntimeConfig;

use crate::bins::Bins;
use crate::host::{host_config, tool_of, write_config};
use crate::plan::Plan;
use crate::procs::{ChildGuard, children_of, rss_kib, wait_for, wait_for_path};
use crate::report::{Report, Target};
use crate::stats::{Latency, median, millis};

const RUNNERS: usize = 10;
/// How long the host and runners sit idle before their memory is read.
const SETTLE: Duration = Duration::from_millis(500);

/// Runs the operator-visible measurements into `report` (rows of sections 2, 3 and 5).
pub fn run(bins: &Bins, plan: &Plan, report: &mut Report) -> Result<()> {
    let dir = tempfile::Builder::new()
        .prefix("maitool-bench-serve")
        .tempdir()?;
    let config = write_config(
        dir.path(),
        &host_config(dir.path(), &bins.echo, RUNNERS, RuntimeConfig::default()),
    )?;
    let control = dir.path().join("control.sock");

    let started = Instant::now();
    let mut serve = Command::new(&bins.maitool);
    serve
        .arg("--config")
        .arg(&config)
        .arg("serve")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut serve = ChildGuard::spawn(serve, "maitool serve")?;
    wait_for_path(&control, Duration::from_secs(30))?;
    let expected: Vec<String> = (0..RUNNERS).map(tool_of).collect();
    wait_for(
        "maitool tools to list every runner's tool",
        Duration::from_secs(30),
        Duration::from_millis(2),
        || {
            serve.check_alive()?;
            let output = maitool(&bins.maitool, &config, &["tools", "--json"])?;
            let text = String::from_utf8_lossy(&output.stdout);
            Ok(output.status.success()
                && expected
                    .iter()
                    .all(|name| text.contains(&format!("\"name\": \"{name}\""))))
        },
    )?;
    let cold = started.elapsed();
    report.add(
        "3 restart",
        "serve_cold_start_10_runners_ms",
        "maitool serve, 10 runners, to all listed by maitool tools",
        millis(cold),
        "ms",
    );

    std::thread::sleep(SETTLE);
    let host_rss = rss_kib(serve.pid())?;
    let runners = children_of(serve.pid());
    if runners.len() != RUNNERS {
        bail!(
            "maitool serve has {} child processes, expected {RUNNERS}",
            runners.len()
        );
    }
    let runner_rss: Vec<f64> = runners
        .iter()
        .map(|&pid| rss_kib(pid).map(|kib| kib as f64))
        .collect::<Result<_>>()?;
    report.add(
        "5 memory",
        "host_10_runners_rss_kib",
        "maitool serve with 10 runners, VmRSS",
        host_rss as f64,
        "KiB",
    );
    report.check(
        "5 memory",
        "runner_idle_rss_kib",
        "idle runner VmRSS, median of 10",
        median(&runner_rss),
        "KiB",
        Target::Below(5.0 * 1024.0),
    );
    report.add(
        "5 memory",
        "runners_10_total_rss_kib",
        "10 idle runners, VmRSS total",
        runner_rss.iter().sum(),
        "KiB",
    );

    let mut calls = Vec::with_capacity(plan.cli_calls);
    let mut spawns = Vec::with_capacity(plan.cli_calls);
    let mut version = String::new();
    for _ in 0..plan.cli_calls {
        let started = Instant::now();
        let output = maitool(
            &bins.maitool,
            &config,
            &[
                "call",
                &tool_of(0),
                "--args",
                r#"{"text": "hello"}"#,
                "--json",
            ],
        )?;
        calls.push(started.elapsed());
        if !output.status.success() {
            bail!(
                "maitool call failed: {}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let started = Instant::now();
        let output = Command::new(&bins.maitool)
            .arg("--version")
            .output()
            .context("cannot run maitool --version")?;
        spawns.push(started.elapsed());
        if !output.status.success() {
            bail!("maitool --version failed");
        }
        version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    }
    // The binary's own features: with `--no-build` it may not be the benchmark's build.
    report.note("maitool_version", version);
    let call = Latency::of(&mut calls);
    let spawn = Latency::of(&mut spawns);
    report.add(
        "2 invoke",
        "cli_call_ms_p50",
        "maitool call against serve, p50",
        call.p50_us / 1e3,
        "ms",
    );
    report.add(
        "2 invoke",
        "cli_spawn_ms_p50",
        "maitool --version (process start only), p50",
        spawn.p50_us / 1e3,
        "ms",
    );
    serve.check_alive()?;
    Ok(())
}

fn maitool(bin: &Path, config: &Path, args: &[&str]) -> Result<Output> {
    Command::new(bin)
        .arg("--config")
        .arg(config)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {}", bin.display()))
}
