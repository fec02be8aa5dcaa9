//! Chaos under load: eight real runners and the example MCP server twice (stdio, and Streamable
//! HTTP on loopback) serve N calls at 256 in flight while runners are SIGKILLed every few
//! hundred ms, one runner hangs, the stdio server is killed twice and the HTTP one restarted.
//!
//! Every call must get exactly one result: the right answer, or an error of the crash, timeout
//! or unavailable class that names the tool, within its limit plus a margin. Afterwards every
//! runner and both servers must serve again, and after shutdown no process may be left.
//!
//! `MAITOOL_CHAOS_CALLS` sets N (default 100,000 in release, 30,000 in a debug build, which
//! is about five times slower and also runs in CI) and `MAITOOL_CHAOS_SEED` the seed; the
//! figures are printed, so `-- --nocapture` shows them for a passing run too.

mod chaos_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chaos_support::ledger;
use chaos_support::mcp::{self, HttpServer};
use chaos_support::monkey::{self, Targets};
use chaos_support::plan::{Call, Class, RUNNERS, classify, plan};
use chaos_support::procs::{self, PidLog};
use chaos_support::report;
use chaos_support::tally::Tally;
use chaos_support::watchdog;
use chaos_support::{DRIVERS, IN_FLIGHT, LOST_AFTER, PLUGIN_TIMEOUT, Settings, context};
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use maitool_e2e::plugins::{Harness, RunnerSpec};
use maitool_host::mcp_client::{McpServerState, McpToolProvider};
use maitool_host::plugin::{PluginSettings, RunnerState, RuntimeConfig};
use maitool_host::{ToolProvider, ToolRegistry};
use maitool_protocol::{ToolExecutionResult, ToolInvocation};

/// Longest the calls may take in all before the test gives up and prints where it is.
const DRIVE_LIMIT: Duration = Duration::from_secs(100);
/// Longest the whole test may take before the watchdog thread reports and exits, for hangs
/// that block the tokio workers themselves (a deadlock on a synchronous lock).
const WATCHDOG_LIMIT: Duration = Duration::from_secs(150);
/// Bound of every wait for recovery and of shutdown.
const SETTLE_LIMIT: Duration = Duration::from_secs(30);

/// Supervision for chaos: kills are routine, not a crash loop, so the intensity limit is high
/// and the backoff short; the health check leaves room for two busy cores.
fn runtime_config() -> RuntimeConfig {
    RuntimeConfig {
        handshake_timeout_ms: 10_000,
        ready_timeout_ms: 10_000,
        health_check_interval_ms: 300,
        health_check_timeout_ms: 1000,
        max_restarts: 1000,
        restart_window_ms: 10_000,
        restart_backoff_initial_ms: 0,
        restart_backoff_max_ms: 100,
        shutdown_grace_ms: 1000,
        terminate_grace_ms: 500,
        default_tool_timeout_ms: PLUGIN_TIMEOUT.as_millis() as u64,
        // Kills and hangs are the point here, and every call must recover as soon as the
        // runner does: the circuit breaker would fail calls fast for its cool-down after a
        // burst of them. It has its own tests (tool_semantics.rs).
        circuit_breaker: false,
        ..RuntimeConfig::default()
    }
}

/// The runners; the test plugins among them record the calls they run in `record`.
fn runner_specs(record: &std::path::Path) -> Vec<RunnerSpec> {
    RUNNERS
        .iter()
        .map(|(name, binary)| {
            let spec = RunnerSpec::new(name, binary);
            if *name == "misbehaving" || name.starts_with("replica") {
                // The runners append to the ledger from inside their sandbox.
                let folder = record.parent().expect("the ledger's folder");
                spec.env("RECORD_CALLS", record.to_str().expect("UTF-8 temp path"))
                    .writes(folder)
            } else if *name == "notes" {
                let grants = PluginSettings {
                    capabilities: vec!["kv.*".into()],
                    ..PluginSettings::default()
                };
                spec.plugin("examples.notes", grants)
            } else {
                spec
            }
        })
        .collect()
}

/// The calls' shared state.
struct Run {
    registry: Arc<ToolRegistry>,
    settings: Settings,
    next: AtomicU64,
    done: AtomicU64,
    /// Results per call number: each must end at exactly 1.
    seen: Vec<AtomicU8>,
    /// What each call's caller got (`ledger::SUCCEEDED`, `ledger::FAILED`), to check against
    /// what the runners ran.
    answers: Vec<AtomicU8>,
}

impl Run {
    fn progress(&self) -> f64 {
        self.done.load(Ordering::SeqCst) as f64 / self.settings.calls as f64
    }
}

async fn one_call(run: &Run, index: u64) -> (u64, Call, Option<ToolExecutionResult>, Duration) {
    let call = plan(run.settings.seed, index);
    let invocation = ToolInvocation::new(call.tool.clone(), call.args.clone())
        .with_call_id(format!("chaos-{index}"));
    let ctx = context();
    let started = Instant::now();
    let result = tokio::time::timeout(
        call.timeout + LOST_AFTER,
        run.registry.invoke(invocation, &ctx),
    )
    .await
    .ok();
    let latency = started.elapsed();
    let answer = match &result {
        Some(result) if result.success => ledger::SUCCEEDED,
        Some(_) => ledger::FAILED,
        None => ledger::NO_ANSWER,
    };
    run.answers[index as usize].store(answer, Ordering::SeqCst);
    run.seen[index as usize].fetch_add(1, Ordering::SeqCst);
    run.done.fetch_add(1, Ordering::SeqCst);
    (index, call, result, latency)
}

/// Keeps `IN_FLIGHT / DRIVERS` calls in flight until every call number is taken.
async fn drive(run: Arc<Run>) -> Tally {
    let mut tally = Tally::default();
    let mut in_flight = FuturesUnordered::new();
    loop {
        while in_flight.len() < IN_FLIGHT / DRIVERS {
            let index = run.next.fetch_add(1, Ordering::SeqCst);
            if index >= run.settings.calls {
                break;
            }
            in_flight.push(one_call(&run, index));
        }
        match in_flight.next().await {
            Some((index, call, result, latency)) => {
                tally.record(index, &call, result.as_ref(), latency)
            }
            None => return tally,
        }
    }
}

/// One call per runner and per MCP server, which must succeed after the chaos: the first
/// planned call of each.
fn probes() -> Vec<Call> {
    let owners = RUNNERS.len() + 2;
    let mut probes: Vec<Call> = Vec::new();
    for index in 0..100_000 {
        if probes.len() == owners {
            break;
        }
        let call = plan(0x9806e, index);
        let owner = probe_owner(&call.tool);
        if !probes.iter().any(|p| probe_owner(&p.tool) == owner) {
            probes.push(call);
        }
    }
    probes
}

/// The runner or server that serves `tool`.
fn probe_owner(tool: &str) -> String {
    match tool {
        "echo" | "slow" => "misbehaving".into(),
        "calculate" => "dice".into(),
        "remember" => "notes".into(),
        "describe_numbers" => "media".into(),
        "greet" => "legacy".into(),
        other => other.split('_').next().unwrap_or(other).to_owned(),
    }
}

async fn wait_until(what: &str, mut condition: impl FnMut() -> bool) -> Result<(), String> {
    let deadline = Instant::now() + SETTLE_LIMIT;
    while !condition() {
        if Instant::now() >= deadline {
            return Err(format!("not within {SETTLE_LIMIT:?}: {what}"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Records every runner and server pid until `stop` is set, so that shutdown can be checked
/// against every process the run had.
fn sample_pids(targets: Arc<Targets>, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while !stop.load(Ordering::SeqCst) {
            targets
                .pids
                .record(targets.runtime.status().into_iter().filter_map(|r| r.pid));
            targets
                .pids
                .record(targets.mcp.status().into_iter().filter_map(|s| s.pid));
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_is_answered_through_kills_hangs_and_server_restarts() {
    let settings = Settings::from_env();
    eprintln!(
        "chaos: seed {:#x} (MAITOOL_CHAOS_SEED), {} calls (MAITOOL_CHAOS_CALLS), {IN_FLIGHT} in flight over {DRIVERS} tasks",
        settings.seed, settings.calls
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let mut web = HttpServer::start("127.0.0.1:0", dir.path()).await;
    let record = dir.path().join("calls-run.log");
    let harness = Harness::start(runtime_config(), runner_specs(&record)).await;
    for (name, _) in RUNNERS {
        let status = harness.runner(name);
        assert_eq!(status.state, RunnerState::Ready, "{status:?}");
    }
    let mcp = tokio::time::timeout(
        SETTLE_LIMIT,
        McpToolProvider::start(mcp::config(&web.url())),
    )
    .await
    .expect("MCP provider starts in time")
    .expect("valid MCP config");
    harness.registry.register_provider(mcp.clone());
    for status in mcp.status() {
        assert_eq!(status.state, McpServerState::Connected, "{status:?}");
    }

    let targets = Arc::new(Targets {
        runtime: harness.runtime.clone(),
        registry: harness.registry.clone(),
        mcp: mcp.clone(),
        pids: Arc::new(PidLog::default()),
    });
    targets.pids.record(web.pid());
    let sampling = Arc::new(AtomicBool::new(false));
    let sampler = sample_pids(targets.clone(), sampling.clone());

    let run = Arc::new(Run {
        registry: harness.registry.clone(),
        settings,
        next: AtomicU64::new(0),
        done: AtomicU64::new(0),
        seen: (0..settings.calls).map(|_| AtomicU8::new(0)).collect(),
        answers: (0..settings.calls).map(|_| AtomicU8::new(0)).collect(),
    });
    let _watchdog = {
        let run = run.clone();
        watchdog::arm(WATCHDOG_LIMIT, targets.pids.clone(), move || {
            format!(
                "{} of {} calls done",
                run.done.load(Ordering::SeqCst),
                run.settings.calls
            )
        })
    };
    let started = Instant::now();
    let drivers: Vec<_> = (0..DRIVERS)
        .map(|_| tokio::spawn(drive(run.clone())))
        .collect();
    let progress = {
        let run = run.clone();
        move || run.progress()
    };
    let chaos = monkey::run(targets.clone(), &mut web, progress, settings.seed);
    let calls = async {
        let mut tally = Tally::default();
        for driver in drivers {
            tally.merge(driver.await.expect("driver task"));
        }
        tally
    };
    let (report, mut tally) = match tokio::time::timeout(DRIVE_LIMIT, async {
        futures::join!(chaos, calls)
    })
    .await
    {
        Ok(both) => both,
        Err(_) => panic!(
            "the run did not finish within {DRIVE_LIMIT:?}: {} of {} calls done, {} taken\nrunners: {:#?}\nMCP: {:#?}\nlast log lines: {:#?}",
            run.done.load(Ordering::SeqCst),
            settings.calls,
            run.next.load(Ordering::SeqCst).min(settings.calls),
            harness.runtime.status(),
            mcp.status(),
            report::log_tail()
        ),
    };
    let elapsed = started.elapsed();
    eprintln!("chaos: calls done after {elapsed:.2?}; waiting for recovery");

    let mut failures = Vec::new();
    let recovery = recover(&harness, &mcp).await;
    failures.extend(recovery.err());
    let statuses = harness.runtime.status();
    let mcp_statuses = mcp.status();
    eprintln!("chaos: recovery checked; shutting down");

    sampling.store(true, Ordering::SeqCst);
    let _ = sampler.await;
    failures.extend(shut_down(harness, mcp, web).await.err());
    let leftovers = settle_leftovers(&targets.pids).await;

    let pids_seen = targets.pids.all().len();
    report::print_report(
        &settings,
        &mut tally,
        &report,
        (elapsed, pids_seen),
        &statuses,
        &mcp_statuses,
    );
    report::check(
        &run.seen,
        &tally,
        &report,
        &statuses,
        &mcp_statuses,
        &mut failures,
    );
    let tools: Vec<String> = (0..settings.calls)
        .map(|index| plan(settings.seed, index).tool)
        .collect();
    let (ran, succeeded) = ledger::check(&record, &tools, &run.answers, &mut failures);
    eprintln!(
        "  runners recorded {ran} calls run; {succeeded} successful calls of the recording tools checked against them"
    );
    if ran == 0 {
        failures.push("the runners recorded no call".into());
    }
    if !leftovers.is_empty() {
        let left: Vec<String> = leftovers.iter().map(ToString::to_string).collect();
        failures.push(format!(
            "processes left after shutdown ({} pids seen in the run):\n  {}",
            targets.pids.all().len(),
            left.join("\n  ")
        ));
    }
    assert!(
        failures.is_empty(),
        "chaos failures:\n{}",
        failures.join("\n")
    );
}

/// Waits for every runner to be ready and both servers connected, then calls each once.
async fn recover(harness: &Harness, mcp: &McpToolProvider) -> Result<(), String> {
    let runtime = harness.runtime.clone();
    wait_until("every runner ready", || {
        runtime
            .status()
            .iter()
            .all(|r| r.state == RunnerState::Ready)
    })
    .await
    .map_err(|e| format!("{e}: {:#?}", harness.runtime.status()))?;
    wait_until("both MCP servers connected", || {
        mcp.status()
            .iter()
            .all(|s| s.state == McpServerState::Connected)
    })
    .await
    .map_err(|e| format!("{e}: {:#?}", mcp.status()))?;
    let mut failed = Vec::new();
    let probes = probes();
    let owners: Vec<String> = probes.iter().map(|p| probe_owner(&p.tool)).collect();
    for name in RUNNERS.iter().map(|(name, _)| *name).chain(["mcp", "web"]) {
        if !owners.iter().any(|o| o == name) {
            failed.push(format!("no probe for {name}"));
        }
    }
    for probe in probes {
        let invocation = ToolInvocation::new(probe.tool.clone(), probe.args.clone());
        let result = harness.registry.invoke(invocation, &context()).await;
        match classify(&probe, &result) {
            Ok(Class::Success) => {}
            other => failed.push(format!(
                "{} does not serve after the chaos: {other:?} {result:?}",
                probe.tool
            )),
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("\n"))
    }
}

/// Stops the runtime and the MCP provider (each bounded, printing what is stuck) and kills
/// the HTTP server.
async fn shut_down(
    harness: Harness,
    mcp: Arc<McpToolProvider>,
    mut web: HttpServer,
) -> Result<(), String> {
    let runtime = harness.runtime.clone();
    let started = Instant::now();
    let stopped = tokio::time::timeout(SETTLE_LIMIT, harness.stop()).await;
    let runtime_took = started.elapsed();
    let closed = tokio::time::timeout(SETTLE_LIMIT, mcp.close()).await;
    web.kill().await;
    eprintln!(
        "chaos: runtime shutdown took {runtime_took:?}, MCP close {:?}",
        started.elapsed() - runtime_took
    );
    match (stopped, closed) {
        (Ok(()), Ok(Ok(()))) => Ok(()),
        (stopped, closed) => Err(format!(
            "shutdown stuck: runtime {stopped:?}, MCP {closed:?}\nrunners: {:#?}\nMCP: {:#?}\nlast log lines: {:#?}",
            runtime.status(),
            mcp.status(),
            report::log_tail()
        )),
    }
}

/// Processes of the run still present after shutdown, after a short grace for reaping.
async fn settle_leftovers(pids: &PidLog) -> Vec<procs::ProcInfo> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = procs::leftovers(&pids.all());
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
