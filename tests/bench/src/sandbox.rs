//! The sandbox's cost: the same echo runner restarted (SIGKILL to callable) and a host with
//! ten runners cold-started, sandboxed (the default) and with `sandbox = "off"`, interleaved
//! so that both see the same load; the keys are the ratios sandboxed / unsandboxed.

use anyhow::{Context, Result, bail};
use maitool_host::plugin::RuntimeConfig;
use maitool_host::sandbox::SandboxMode;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::bins::Bins;
use crate::host::{self, BenchHost};
use crate::plan::Plan;
use crate::report::{Report, Target};
use crate::restart::{cold_start, probe};
use crate::stats::{median, millis};

const SECTION: &str = "3b sandbox";

/// The tracked keys of this section.
pub const KEYS: &[&str] = &["sandbox_restart_ratio", "sandbox_cold_start_ratio"];

fn runtime(sandbox: SandboxMode) -> RuntimeConfig {
    RuntimeConfig {
        restart_window_ms: 1,
        max_restarts: 1_000,
        restart_backoff_initial_ms: 0,
        sandbox,
        ..RuntimeConfig::default()
    }
}

/// Runs the section into `report`.
pub async fn run(bins: &Bins, plan: &Plan, report: &mut Report) -> Result<()> {
    let sandboxed = BenchHost::start(&bins.echo, 1, runtime(SandboxMode::On)).await?;
    let open = BenchHost::start(&bins.echo, 1, runtime(SandboxMode::Off)).await?;
    match sandboxed.runner()?.sandbox.map(|s| s.state) {
        Some(maitool_host::sandbox::SandboxState::Off) | None => {
            bail!("the sandboxed runner runs without a sandbox")
        }
        Some(_) => {}
    }
    let (mut on, mut off) = (Vec::new(), Vec::new());
    // Three times the restart section's kills: a restart takes a few milliseconds, and the
    // ratio of two medians needs more samples than one median to be steady under load.
    for _ in 0..plan.kills * 3 {
        on.push(restart_once(&sandboxed).await?);
        off.push(restart_once(&open).await?);
    }
    sandboxed.stop().await;
    open.stop().await;
    let (on_ms, off_ms) = (median(&on), median(&off));
    report.add(
        SECTION,
        "sandbox_restart_ms_median",
        "sandboxed runner, SIGKILL to callable, median",
        on_ms,
        "ms",
    );
    report.add(
        SECTION,
        "unsandboxed_restart_ms_median",
        "the same with sandbox = \"off\"",
        off_ms,
        "ms",
    );
    report.check(
        SECTION,
        "sandbox_restart_ratio",
        "restart median, sandboxed / unsandboxed",
        on_ms / off_ms,
        "x",
        Target::Below(1.1),
    );
    let (mut cold_on, mut cold_off) = (Vec::new(), Vec::new());
    for _ in 0..plan.cold_starts {
        cold_on.push(millis(
            cold_start(bins, 10, runtime(SandboxMode::On)).await?,
        ));
        cold_off.push(millis(
            cold_start(bins, 10, runtime(SandboxMode::Off)).await?,
        ));
    }
    let (on_ms, off_ms) = (median(&cold_on), median(&cold_off));
    report.add(
        SECTION,
        "sandbox_cold_start_10_runners_ms",
        "host with 10 sandboxed runners to all tools listed, median",
        on_ms,
        "ms",
    );
    report.add(
        SECTION,
        "unsandboxed_cold_start_10_runners_ms",
        "the same with sandbox = \"off\"",
        off_ms,
        "ms",
    );
    report.add(
        SECTION,
        "sandbox_cold_start_ratio",
        "cold start of 10 runners, sandboxed / unsandboxed",
        on_ms / off_ms,
        "x",
    );
    Ok(())
}

/// Kills the runner of `bench` and waits until its tool answers again; milliseconds.
async fn restart_once(bench: &BenchHost) -> Result<f64> {
    let registry = bench.registry().clone();
    host::call(&registry, "echo").await?;
    let pid = bench.runner()?.pid.context("the runner has no pid")?;
    kill(Pid::from_raw(pid as i32), Signal::SIGKILL).context("cannot kill the runner")?;
    let killed = std::time::Instant::now();
    let (elapsed, _, _) = probe(registry, killed).await?;
    Ok(millis(elapsed))
}
