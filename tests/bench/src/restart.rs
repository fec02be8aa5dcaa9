//! Section 3: a runner SIGKILLed until its tool answers again, and the cold start of a host
//! with ten runners until all their tools are listed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use maitool_host::plugin::RuntimeConfig;
use maitool_host::{Host, ToolRegistry};
use maitool_protocol::ToolAvailabilityContext;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::bins::Bins;
use crate::host::{self, BenchHost, host_config, tool_of};
use crate::plan::Plan;
use crate::report::{Report, Target};
use crate::stats::{median, millis};

const SECTION: &str = "3 restart";

/// How often the probes ask again: fine enough for millisecond figures, coarse enough not to
/// take a core away from the restart being measured on a 2-core machine.
const PROBE_STEP: Duration = Duration::from_micros(100);
/// The longest a restart or cold start may take before the section fails.
const LIMIT: Duration = Duration::from_secs(20);

/// Runs the section into `report`.
pub async fn run(bins: &Bins, plan: &Plan, report: &mut Report) -> Result<()> {
    // Each kill is the first inside the restart window, so the supervisor restarts at once:
    // the figure is the runtime's, not the backoff's (which only slows a crash loop).
    let config = RuntimeConfig {
        restart_window_ms: 1,
        max_restarts: 1_000,
        restart_backoff_initial_ms: 0,
        // The section measures how fast calls work again after each kill; a circuit breaker
        // opened by the calls cut off would hold them back for its cool-down.
        circuit_breaker: false,
        ..RuntimeConfig::default()
    };
    let bench = BenchHost::start(&bins.echo, 1, config).await?;
    let registry = bench.registry().clone();
    let mut restarts = Vec::with_capacity(plan.kills);
    let (mut failed_probes, mut crashed_probes) = (0usize, 0usize);
    for _ in 0..plan.kills {
        host::call(&registry, "echo").await?;
        let pid = bench.runner()?.pid.context("the runner has no pid")?;
        kill(Pid::from_raw(pid as i32), Signal::SIGKILL).context("cannot kill the runner")?;
        let killed = Instant::now();
        let (elapsed, failures, crashed) = probe(registry.clone(), killed).await?;
        restarts.push(millis(elapsed));
        failed_probes += failures;
        crashed_probes += crashed;
        let status = bench.runner()?;
        if status.pid == Some(pid) {
            bail!("the tool answered but the runner was not restarted: {status:?}");
        }
    }
    let restart_count = bench.runner()?.restart_count;
    bench.stop().await;
    report.check(
        SECTION,
        "restart_ms_median",
        &format!("SIGKILL to callable, median of {}", plan.kills),
        median(&restarts),
        "ms",
        Target::Below(20.0),
    );
    report.add(
        SECTION,
        "restart_ms_max",
        "SIGKILL to callable, max",
        restarts.iter().copied().fold(0.0, f64::max),
        "ms",
    );
    report.check(
        SECTION,
        "calls_failed_during_restart",
        "probe calls that failed while the runner restarted, other than those in flight at the kill",
        failed_probes as f64,
        "calls",
        Target::AtMost(0.0),
    );
    report.add(
        SECTION,
        "restart_calls_in_flight_at_kill",
        "probe calls sent before the host saw the runner's death, failed with E_PLUGIN_CRASHED",
        crashed_probes as f64,
        "calls",
    );
    report.add(
        SECTION,
        "restart_count",
        "restarts the supervisor counted",
        f64::from(restart_count),
        "",
    );

    let mut cold = Vec::with_capacity(plan.cold_starts);
    for _ in 0..plan.cold_starts {
        cold.push(millis(
            cold_start(bins, 10, RuntimeConfig::default()).await?,
        ));
    }
    report.add(
        SECTION,
        "cold_start_10_runners_ms",
        "host with 10 runners to all tools listed, median",
        median(&cold),
        "ms",
    );
    Ok(())
}

/// Calls `echo` every [`PROBE_STEP`] until it succeeds; the time since `since`, the number
/// of failed calls other than those in flight at the kill, and the number of those (sent
/// before the host saw the death: `E_PLUGIN_CRASHED`, as the host cannot know whether they
/// ran). A call made during the restart waits for it, so the first is usually the one that
/// succeeds. Runs on a blocking thread so the wait between probes is a real short sleep
/// (Tokio's timer has millisecond granularity).
pub async fn probe(
    registry: Arc<ToolRegistry>,
    since: Instant,
) -> Result<(Duration, usize, usize)> {
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let (mut failures, mut crashed) = (0, 0);
        loop {
            match runtime.block_on(host::try_call(&registry, "echo")) {
                Ok(()) => return Ok((since.elapsed(), failures, crashed)),
                Err(message) if message.contains("E_PLUGIN_CRASHED") => crashed += 1,
                Err(message) => {
                    failures += 1;
                    tracing::debug!("probe during a restart failed: {message}");
                }
            }
            if since.elapsed() > LIMIT {
                bail!("the tool did not answer within {LIMIT:?} of the kill");
            }
            std::thread::sleep(PROBE_STEP);
        }
    })
    .await
    .context("the probe panicked")?
}

/// Starts a host with `runners` runners on `runtime` and waits until every tool is listed;
/// the time it took from before `Host::start`.
pub async fn cold_start(bins: &Bins, runners: usize, runtime: RuntimeConfig) -> Result<Duration> {
    let dir = tempfile::Builder::new().prefix("maitool-bench").tempdir()?;
    let config = host_config(dir.path(), &bins.echo, runners, runtime).resolve(None, dir.path())?;
    let started = Instant::now();
    let host = Host::start(config)
        .await
        .context("the host did not start")?;
    let expected: Vec<String> = (0..runners).map(tool_of).collect();
    let ctx = ToolAvailabilityContext::default();
    loop {
        let tools = host.registry.list_tools(&ctx).await;
        if expected
            .iter()
            .all(|name| tools.iter().any(|tool| &tool.name == name))
        {
            break;
        }
        if started.elapsed() > LIMIT {
            host.shutdown().await;
            bail!(
                "only {} of {runners} tools were listed after {LIMIT:?}",
                tools.len()
            );
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let elapsed = started.elapsed();
    host.shutdown().await;
    Ok(elapsed)
}
