//! The chaos monkey: SIGKILLs a random runner every 150-450 ms while calls run, hangs one
//! runner once (its `hang` tool blocks its only thread, so only the health check can tell),
//! SIGKILLs the stdio MCP server twice and restarts the HTTP one once.
//!
//! The one-off events fire at fixed fractions of the calls done, so they happen in every run
//! however fast the machine is; the kills follow the clock.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use maitool_host::ToolRegistry;
use maitool_host::mcp_client::{McpServerState, McpToolProvider};
use maitool_host::plugin::{PluginRuntime, RunnerState, RunnerStatus};
use maitool_protocol::{ToolExecutionResult, ToolInvocation};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::mcp::HttpServer;
use super::plan::RUNNERS;
use super::procs::PidLog;
use super::{Rng, context};

/// The runner the monkey hangs (the misbehaving example's `hang` tool).
pub const HUNG_RUNNER: &str = "misbehaving";

/// What the monkey acts on.
#[allow(missing_debug_implementations)]
pub struct Targets {
    /// The plugin runtime.
    pub runtime: Arc<PluginRuntime>,
    /// The registry the calls go through.
    pub registry: Arc<ToolRegistry>,
    /// The MCP provider.
    pub mcp: Arc<McpToolProvider>,
    /// Every pid seen.
    pub pids: Arc<PidLog>,
}

impl Targets {
    /// The status of runner `name`.
    pub fn runner(&self, name: &str) -> RunnerStatus {
        self.runtime
            .status()
            .into_iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no runner {name}"))
    }
}

/// The hang, as seen from outside.
#[derive(Debug, Clone)]
pub struct HangReport {
    /// Attempts until the `hang` call reached a ready runner.
    pub attempts: u32,
    /// The hung process.
    pub pid: Option<u32>,
    /// The `hang` call's result.
    pub result: ToolExecutionResult,
    /// How long the `hang` call took.
    pub call_latency: Duration,
    /// From the `hang` call to the runner's replacement, if it came.
    pub replaced_after: Option<Duration>,
    /// The exit reason recorded for the hung process.
    pub exit_reason: Option<String>,
}

/// Everything the monkey did.
#[derive(Debug, Default)]
pub struct ChaosReport {
    /// Per runner, the distinct pids SIGKILLed.
    pub kills: BTreeMap<String, BTreeSet<u32>>,
    /// The hang.
    pub hang: Option<HangReport>,
    /// Pids of the stdio MCP server SIGKILLed.
    pub stdio_kills: Vec<u32>,
    /// Restarts of the HTTP MCP server.
    pub web_restarts: u32,
}

impl ChaosReport {
    /// Runner processes SIGKILLed.
    pub fn kill_count(&self) -> usize {
        self.kills.values().map(BTreeSet::len).sum()
    }
}

/// Runs the monkey until `progress()` reaches 1.0 and every one-off event has fired.
pub async fn run(
    targets: Arc<Targets>,
    web: &mut HttpServer,
    progress: impl Fn() -> f64,
    seed: u64,
) -> ChaosReport {
    let mut rng = Rng::new(seed ^ 0x0c4a_05c4_a05c_4a05);
    let mut report = ChaosReport::default();
    let hang_pending = Arc::new(AtomicBool::new(false));
    let mut hang_task = None;
    let (mut stdio_kills_due, mut web_restarted) = (2, false);
    loop {
        let done = progress();
        if hang_task.is_none() && done >= 0.10 {
            hang_pending.store(true, Ordering::SeqCst);
            hang_task = Some(tokio::spawn(hang(targets.clone(), hang_pending.clone())));
        }
        let stdio_due = match stdio_kills_due {
            2 => done >= 0.25,
            1 => done >= 0.70,
            _ => false,
        };
        if stdio_due {
            report.stdio_kills.push(kill_stdio_server(&targets).await);
            stdio_kills_due -= 1;
        }
        if !web_restarted && done >= 0.45 {
            web.restart(Duration::from_millis(200)).await;
            targets.pids.record(web.pid());
            report.web_restarts += 1;
            web_restarted = true;
        }
        if done >= 1.0 && hang_task.is_some() && stdio_kills_due == 0 && web_restarted {
            break;
        }
        tokio::time::sleep(Duration::from_millis(150 + rng.below(300))).await;
        if progress() < 1.0 {
            kill_random_runner(&targets, &mut rng, &hang_pending, &mut report);
        }
    }
    if let Some(task) = hang_task {
        report.hang = Some(task.await.expect("the hang task panicked"));
    }
    report
}

fn kill_random_runner(
    targets: &Targets,
    rng: &mut Rng,
    hang_pending: &AtomicBool,
    report: &mut ChaosReport,
) {
    let (name, _) = RUNNERS[rng.below(RUNNERS.len() as u64) as usize];
    // The hung runner is left to the health check.
    if name == HUNG_RUNNER && hang_pending.load(Ordering::SeqCst) {
        return;
    }
    let Some(pid) = targets.runner(name).pid else {
        return;
    };
    targets.pids.record([pid]);
    if kill(Pid::from_raw(pid as i32), Signal::SIGKILL).is_ok() {
        report.kills.entry(name.to_owned()).or_default().insert(pid);
    }
}

/// SIGKILLs the stdio server once it is connected; returns its pid.
async fn kill_stdio_server(targets: &Targets) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let status = targets
            .mcp
            .status()
            .into_iter()
            .find(|s| s.name == "mcp")
            .expect("status of the stdio MCP server");
        if status.state == McpServerState::Connected
            && let Some(pid) = status.pid
        {
            targets.pids.record([pid]);
            kill(Pid::from_raw(pid as i32), Signal::SIGKILL).expect("SIGKILL the MCP server");
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "the stdio MCP server did not reconnect within 30 s: {status:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Calls `hang` on a ready runner, then waits for the supervisor to replace the hung process.
/// Retries when the call missed the runner (withdrawn, or killed by an earlier SIGKILL).
async fn hang(targets: Arc<Targets>, pending: Arc<AtomicBool>) -> HangReport {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut attempts = 0;
    loop {
        let status = targets.runner(HUNG_RUNNER);
        if status.state != RunnerState::Ready {
            assert!(
                Instant::now() < deadline,
                "{HUNG_RUNNER} not ready within 30 s: {status:?}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        attempts += 1;
        let started = Instant::now();
        let result = targets
            .registry
            .invoke(
                ToolInvocation::new("hang", Default::default()).with_call_id("chaos-hang"),
                &context(),
            )
            .await;
        let call_latency = started.elapsed();
        // Withdrawn between the status read and the call (a restart from an earlier kill).
        let missed = result.error_message.contains("tool not found")
            || result.error_message.contains("is not running");
        if missed && Instant::now() < deadline {
            continue;
        }
        let mut replaced_after = None;
        let limit = Instant::now() + Duration::from_secs(20);
        while Instant::now() < limit {
            if targets.runner(HUNG_RUNNER).restart_count > status.restart_count {
                replaced_after = Some(started.elapsed());
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let exit_reason = targets.runner(HUNG_RUNNER).last_exit_reason;
        // A SIGKILL the monkey sent just before the hang began may land first: hang again.
        let hung = exit_reason
            .as_deref()
            .is_some_and(|r| r.starts_with("runner hung"));
        if !hung && replaced_after.is_some() && attempts < 5 && Instant::now() < deadline {
            continue;
        }
        pending.store(false, Ordering::SeqCst);
        return HangReport {
            attempts,
            pid: status.pid,
            result,
            call_latency,
            replaced_after,
            exit_reason,
        };
    }
}
