//! The restart half of the section: SIGKILL of MaiBot's runner under maitool's host until
//! `echo_text` answers again, set against the bare interpreter's start-up just before each kill,
//! and split by the runner's status into the host's part and the new runner's start-up.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use maitool_host::ToolRegistry;
use maitool_host::plugin::{PluginRuntime, RunnerState};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::{ECHO_TOOL, RUNNER, SECTION, python};
use crate::host::{self, BenchHost};
use crate::plan::Plan;
use crate::report::{Report, Target};
use crate::stats::{median, millis};

/// What the host may add to a restart beyond the interpreter's own start-up.
const RESTART_OVERHEAD_MS: f64 = 50.0;
/// How often the restart probe asks again: a restart takes hundreds of milliseconds (the
/// interpreter's start-up), so a millisecond is fine enough and leaves the cores to it.
const PROBE_STEP: Duration = Duration::from_millis(1);
/// The longest a restart may take before the section fails.
const LIMIT: Duration = Duration::from_secs(30);

/// SIGKILL of the runner until `echo_text` answers again, `plan.maibot_starts` times, each after a
/// bare start of the interpreter, so that both see the same machine (a neighbour's build moves
/// the interpreter's start-up by hundreds of milliseconds from minute to minute).
pub async fn run(bench: &BenchHost, python: &Path, plan: &Plan, report: &mut Report) -> Result<()> {
    let registry = bench.registry().clone();
    let mut times = Vec::with_capacity(plan.maibot_starts);
    let (mut python_starts, mut overheads) = (Vec::new(), Vec::new());
    let (mut host_parts, mut runner_parts) = (Vec::new(), Vec::new());
    let (mut refused, mut crashed) = (0usize, 0usize);
    let mut other = BTreeMap::<String, usize>::new();
    for _ in 0..plan.maibot_starts {
        let python_ms = millis(python::start(python)?);
        python_starts.push(python_ms);
        host::call(&registry, ECHO_TOOL).await?;
        let pid = bench
            .runner_named(RUNNER)?
            .pid
            .context("the runner has no pid")?;
        kill(Pid::from_raw(pid as i32), Signal::SIGKILL).context("cannot kill the runner")?;
        let killed = Instant::now();
        let restart = probe(registry.clone(), bench.host.plugins.clone(), pid, killed).await?;
        let (elapsed, failures) = (restart.callable, restart.failures);
        times.push(millis(elapsed));
        overheads.push(millis(elapsed) - python_ms);
        // A state seen only with the answer (between the probe's look and its call) counts
        // as seen with it.
        let ready = restart.ready.unwrap_or(elapsed);
        let spawned = restart.spawned.unwrap_or(ready);
        host_parts.push(millis(spawned) + millis(elapsed.saturating_sub(ready)));
        runner_parts.push(millis(ready.saturating_sub(spawned)));
        // Until the host sees the runner gone (its first refusal), a call may still go to the
        // killed runner's connection and fail with it: routed before the death was known, not
        // before the new runner was ready.
        let mut noticed = false;
        for message in failures {
            if not_ready(&message) {
                noticed = true;
                refused += 1;
            } else if !noticed && message.contains("[E_PLUGIN_CRASHED]") {
                crashed += 1;
            } else {
                *other.entry(message).or_default() += 1;
            }
        }
        let status = bench.runner_named(RUNNER)?;
        if status.pid == Some(pid) {
            bail!("the tool answered but the runner was not restarted: {status:?}");
        }
    }
    report.add(
        SECTION,
        "maibot_runner_python_start_ms",
        &format!(
            "bare interpreter start, median of {} (before each kill)",
            python_starts.len()
        ),
        median(&python_starts),
        "ms",
    );
    let restart_ms = median(&times);
    report.add(
        SECTION,
        "maibot_runner_restart_ms",
        &format!("SIGKILL to callable, median of {}", plan.maibot_starts),
        restart_ms,
        "ms",
    );
    report.add(
        SECTION,
        "maibot_runner_restart_ms_max",
        "SIGKILL to callable, max",
        times.iter().copied().fold(0.0, f64::max),
        "ms",
    );
    report.check(
        SECTION,
        "maibot_runner_restart_overhead_ms",
        "restart - the bare start before it, median",
        median(&overheads),
        "ms",
        Target::Below(RESTART_OVERHEAD_MS),
    );
    report.add(
        SECTION,
        "maibot_runner_restart_host_ms",
        "kill to new process spawned + ready to callable, median",
        median(&host_parts),
        "ms",
    );
    report.add(
        SECTION,
        "maibot_runner_restart_spawn_to_ready_ms",
        "new process spawned to ready (the runner's start-up), median",
        median(&runner_parts),
        "ms",
    );
    report.add(
        SECTION,
        "maibot_runner_restart_refused_calls",
        &format!("probes refused while restarting (every {PROBE_STEP:?})"),
        refused as f64,
        "calls",
    );
    report.add(
        SECTION,
        "maibot_runner_restart_crashed_calls",
        "probes failed on the killed runner's connection",
        crashed as f64,
        "calls",
    );
    let failed: usize = other.values().sum();
    report.check(
        SECTION,
        "maibot_runner_calls_failed_not_ready",
        "probes failed otherwise (routed before ready)",
        failed as f64,
        "calls",
        Target::AtMost(0.0),
    );
    if !other.is_empty() {
        report.note("maibot_restart_failures", serde_json::to_value(&other)?);
    }
    Ok(())
}

/// What one restart took, from the kill.
struct Restart {
    /// Until the runner's new process was seen (its pid in the runner's status).
    spawned: Option<Duration>,
    /// Until the new process was seen ready.
    ready: Option<Duration>,
    /// Until `echo_text` answered.
    callable: Duration,
    /// The error message of each failed call, in order.
    failures: Vec<String>,
}

/// Calls `echo_text` every [`PROBE_STEP`] until it answers, as the restart section's probe does,
/// while a watcher reads the runner's status every [`PROBE_STEP`]: when the process replacing
/// `killed_pid` was spawned, and when it was ready. The watcher runs beside the calls because a
/// call made during a restart waits for the new runner, so nothing would be read between calls.
async fn probe(
    registry: Arc<ToolRegistry>,
    plugins: Arc<PluginRuntime>,
    killed_pid: u32,
    since: Instant,
) -> Result<Restart> {
    let watcher = tokio::task::spawn_blocking(move || {
        let (mut spawned, mut ready) = (None, None);
        while ready.is_none() && since.elapsed() < LIMIT {
            if let Some(status) = plugins.status().into_iter().find(|s| s.name == RUNNER)
                && status.pid.is_some_and(|pid| pid != killed_pid)
            {
                spawned.get_or_insert_with(|| since.elapsed());
                if status.state == RunnerState::Ready {
                    ready = Some(since.elapsed());
                }
            }
            std::thread::sleep(PROBE_STEP);
        }
        (spawned, ready)
    });
    let runtime = tokio::runtime::Handle::current();
    let (callable, failures) = tokio::task::spawn_blocking(move || {
        let mut failures = Vec::new();
        loop {
            match runtime.block_on(host::try_call(&registry, ECHO_TOOL)) {
                Ok(()) => return Ok((since.elapsed(), failures)),
                Err(message) => failures.push(message),
            }
            if since.elapsed() > LIMIT {
                bail!("echo_text did not answer within {LIMIT:?} of the kill");
            }
            std::thread::sleep(PROBE_STEP);
        }
    })
    .await
    .context("the probe panicked")??;
    let (spawned, ready) = watcher.await.context("the status watcher panicked")?;
    Ok(Restart {
        spawned,
        ready,
        callable,
        failures,
    })
}

/// Whether `message` is the host refusing a call because the tool has no ready runner: the
/// registry's "tool not found" (the plugin's components are withdrawn while its runner is
/// down) or the provider's "unavailable".
fn not_ready(message: &str) -> bool {
    message.starts_with("tool not found:") || message.contains("is unavailable: the runner")
}
