//! Section 7: the `echo_text` tool of a MaiBot plugin (`examples/maibot-plugins/typed_tools`, written
//! against `maibot-plugin-sdk`), run by MaiBot's own Python runner (`kind = "maibot"`) under
//! the same in-process host as the invoke section: sequential calls through the registry,
//! 256 in flight, SIGKILL of the runner until `echo_text` answers again, and a cold start until it
//! first answers. The restart is set against the bare interpreter's start-up (`python -c
//! "import src.plugin_runtime.runner.runner_main"`), which no host can take away, and split
//! by the runner's status into the host's part and the new runner's start-up.
//!
//! The runner is installed by `.ci/install-maibot-runner.sh` into
//! `$MAITOOL_MAIBOT_VENV` (else `~/.cache/maitool-maibot-venv`). Without it the section is
//! skipped with a loud message and its keys are null (`meta.maibot_skipped` says why); with
//! `MAITOOL_REQUIRE_MAIBOT=1` (CI) a missing runner fails the section.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use std::sync::Arc;

use maitool_host::plugin::{
    PluginRuntime, PluginSettings, RunnerConfig, RunnerKind, RunnerState, RuntimeConfig,
};
use maitool_host::{Host, HostConfig, ToolRegistry};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::host::{self, BenchHost, host_config};
use crate::plan::Plan;
use crate::procs::CpuMeter;
use crate::report::{Report, Target};
use crate::stats::{Latency, median, micros, millis};

const SECTION: &str = "7 maibot";

/// The keys the project tracks for this section.
pub use crate::keys::MAIBOT as KEYS;

/// The plugin id of the example plugin with the `echo_text` tool.
const PLUGIN: &str = "examples.maibot_typed";
/// Its files, written into each run's temporary plugin folder: the runner writes into a
/// plugin's folder (`__pycache__`, its `config.toml`), and into its working directory.
const MANIFEST: &str = include_str!("../../../examples/maibot-plugins/typed_tools/_manifest.json");
const PLUGIN_PY: &str = include_str!("../../../examples/maibot-plugins/typed_tools/plugin.py");
/// The example plugin's echo tool (`{"text": ...}` → the text).
const ECHO_TOOL: &str = "echo_text";

/// What the bare interpreter start imports: the runner's entry module, as the runner kind
/// launches it (`python -m src.plugin_runtime.runner.runner_main`), without running it.
const IMPORT: &str = "import src.plugin_runtime.runner.runner_main";

/// MaiBot's own host and runner, p50 of one `echo_text` call (issue 24); the target is half.
const MAIBOT_OWN_P50_US: f64 = 316.0;
/// What the host may add to a restart beyond the interpreter's own start-up.
const RESTART_OVERHEAD_MS: f64 = 50.0;
/// How often the restart probe asks again: a restart takes hundreds of milliseconds (the
/// interpreter's start-up), so a millisecond is fine enough and leaves the cores to it.
const PROBE_STEP: Duration = Duration::from_millis(1);
/// The longest a cold start may take before the section fails.
const LIMIT: Duration = Duration::from_secs(30);

/// Runs the section into `report`, or skips it loudly when MaiBot's runner is not installed.
pub async fn run(plan: &Plan, report: &mut Report) -> Result<()> {
    let Some(python) = python()? else {
        let reason = skip_reason();
        report.skip(SECTION, &reason);
        report.note("maibot_skipped", reason);
        report.absent(SECTION, KEYS);
        return Ok(());
    };
    report.note("maibot_python", python.display().to_string());

    let mut cold = Vec::with_capacity(plan.maibot_starts);
    for _ in 0..plan.maibot_starts {
        cold.push(millis(cold_start(&python).await?));
    }
    report.add(
        SECTION,
        "maibot_runner_cold_start_ms",
        &format!(
            "Host::start to echo_text answered, median of {}",
            plan.maibot_starts
        ),
        median(&cold),
        "ms",
    );

    // As in the restart section: each kill is the first in its restart window, so the
    // supervisor restarts at once and the figure is the restart's, not the backoff's.
    let runtime = RuntimeConfig {
        restart_window_ms: 1,
        max_restarts: 1_000,
        restart_backoff_initial_ms: 0,
        ..RuntimeConfig::default()
    };
    let dir = plugin_dir()?;
    let config = maibot_config(dir.path(), &python, runtime);
    let bench = BenchHost::start_in(dir, config).await?;
    let outcome = measure(&bench, &python, plan, report).await;
    bench.stop().await;
    outcome
}

/// The measurements on a running host: sequential, 256 in flight, restarts.
async fn measure(bench: &BenchHost, python: &Path, plan: &Plan, report: &mut Report) -> Result<()> {
    let registry = bench.registry().clone();
    let me = std::process::id();
    let runner = bench.runner()?.pid.context("the runner has no pid")?;

    let mut samples = Vec::with_capacity(plan.maibot_calls.max(plan.maibot_warmup));
    host::sequential(&registry, ECHO_TOOL, plan.maibot_warmup, &mut samples).await?;
    samples.clear();
    let mut cpu = CpuMeter::default();
    cpu.measure(
        me,
        runner,
        host::sequential(&registry, ECHO_TOOL, plan.maibot_calls, &mut samples),
    )
    .await?;
    let latency = Latency::of(&mut samples);
    report.check(
        SECTION,
        "maibot_runner_invoke_p50_us",
        &format!("registry invoke p50 (MaiBot's own: {MAIBOT_OWN_P50_US} us)"),
        latency.p50_us,
        "us",
        Target::AtMost(MAIBOT_OWN_P50_US / 2.0),
    );
    report.add(
        SECTION,
        "maibot_runner_invoke_p99_us",
        "registry invoke p99",
        latency.p99_us,
        "us",
    );
    report.add(
        SECTION,
        "maibot_runner_invoke_mean_us",
        "registry invoke mean",
        latency.mean_us,
        "us",
    );
    let calls = plan.maibot_calls as f64;
    report.add(
        SECTION,
        "maibot_runner_host_cpu_us",
        "host CPU per call, 1 in flight",
        micros(cpu.first) / calls,
        "us",
    );
    report.add(
        SECTION,
        "maibot_runner_runner_cpu_us",
        "runner CPU per call, 1 in flight",
        micros(cpu.second) / calls,
        "us",
    );

    // 256 in flight: every call counts towards the failures, the warm-up's too (the first
    // burst is the likeliest to be refused).
    let window = 256;
    let (_, mut rejected) = host::concurrent(
        &registry,
        ECHO_TOOL,
        window,
        plan.maibot_throughput_calls / 4,
    )
    .await?;
    let mut total = plan.maibot_throughput_calls / 4;
    let (mut rates, mut cpu) = (Vec::new(), CpuMeter::default());
    for _ in 0..plan.throughput_rounds {
        let (rate, failed) = cpu
            .measure(
                me,
                runner,
                host::concurrent(&registry, ECHO_TOOL, window, plan.maibot_throughput_calls),
            )
            .await?;
        rates.push(rate);
        rejected += failed;
        total += plan.maibot_throughput_calls;
    }
    report.add(
        SECTION,
        "maibot_runner_calls_per_s_256",
        &format!("{window} concurrent invocations, median of {}", rates.len()),
        median(&rates),
        "calls/s",
    );
    report.check(
        SECTION,
        "maibot_runner_rejected_256",
        &format!("failed calls at {window} concurrent (of {total})"),
        rejected as f64,
        "calls",
        Target::AtMost(0.0),
    );
    let measured = (plan.throughput_rounds * plan.maibot_throughput_calls) as f64;
    report.add(
        SECTION,
        "maibot_runner_256_host_cpu_us",
        &format!("host CPU per call, {window} concurrent"),
        micros(cpu.first) / measured,
        "us",
    );
    report.add(
        SECTION,
        "maibot_runner_256_runner_cpu_us",
        &format!("runner CPU per call, {window} concurrent"),
        micros(cpu.second) / measured,
        "us",
    );

    restarts(bench, python, plan, report).await
}

/// SIGKILL of the runner until `echo_text` answers again, `plan.maibot_starts` times, each after a
/// bare start of the interpreter, so that both see the same machine (a neighbour's build moves
/// the interpreter's start-up by hundreds of milliseconds from minute to minute).
async fn restarts(
    bench: &BenchHost,
    python: &Path,
    plan: &Plan,
    report: &mut Report,
) -> Result<()> {
    let registry = bench.registry().clone();
    let mut times = Vec::with_capacity(plan.maibot_starts);
    let (mut python_starts, mut overheads) = (Vec::new(), Vec::new());
    let (mut host_parts, mut runner_parts) = (Vec::new(), Vec::new());
    let (mut refused, mut crashed) = (0usize, 0usize);
    let mut other = BTreeMap::<String, usize>::new();
    for _ in 0..plan.maibot_starts {
        let python_ms = millis(python_start(python)?);
        python_starts.push(python_ms);
        host::call(&registry, ECHO_TOOL).await?;
        let pid = bench.runner()?.pid.context("the runner has no pid")?;
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
        let status = bench.runner()?;
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
            if let Some(status) = plugins.status().into_iter().next()
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

/// The venv's Python when MaiBot's runner imports there; `None` after a loud message when it
/// does not; an error when `MAITOOL_REQUIRE_MAIBOT=1`.
fn python() -> Result<Option<PathBuf>> {
    let python = venv().join("bin/python");
    if python.exists() && python_start(&python).is_ok() {
        return Ok(Some(python));
    }
    let reason = skip_reason();
    if std::env::var("MAITOOL_REQUIRE_MAIBOT").as_deref() == Ok("1") {
        bail!("{reason}; MAITOOL_REQUIRE_MAIBOT=1 requires it");
    }
    eprintln!("\n!!! maitool-bench: SKIPPING the maibot section: {reason} !!!\n");
    Ok(None)
}

/// `$MAITOOL_MAIBOT_VENV`, else `~/.cache/maitool-maibot-venv`.
fn venv() -> PathBuf {
    std::env::var_os("MAITOOL_MAIBOT_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/maitool-maibot-venv")
        })
}

fn skip_reason() -> String {
    format!(
        "MaiBot's runner is not installed in {} (run `bash .ci/install-maibot-runner.sh`, or \
         set MAITOOL_MAIBOT_VENV)",
        venv().display()
    )
}

/// One bare start of the interpreter importing the runner's entry module, in a temporary
/// instance directory that is also its working directory (an installed MaiBot refuses to
/// import without one, and writes a `logs/` folder into its working directory).
fn python_start(python: &Path) -> Result<Duration> {
    let instance = tempfile::Builder::new()
        .prefix("maitool-bench-maibot")
        .tempdir()?;
    let started = Instant::now();
    let status = Command::new(python)
        .args(["-c", IMPORT])
        .env("MAIBOT_INSTANCE_DIR", instance.path())
        .current_dir(instance.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("cannot run {}", python.display()))?;
    let elapsed = started.elapsed();
    if !status.success() {
        bail!("{} -c '{IMPORT}' failed ({status})", python.display());
    }
    Ok(elapsed)
}

/// A temporary folder with `plugins/typed_tools`, the example plugin with `echo_text`.
fn plugin_dir() -> Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new()
        .prefix("maitool-bench-maibot")
        .tempdir()?;
    let plugin = dir.path().join("plugins").join("typed_tools");
    std::fs::create_dir_all(&plugin)?;
    std::fs::write(plugin.join("_manifest.json"), MANIFEST)?;
    std::fs::write(plugin.join("plugin.py"), PLUGIN_PY)?;
    Ok(dir)
}

/// The benchmark's host configuration with one MaiBot runner over `dir/plugins` instead of
/// echo runners; its instance directory (the runner's working directory and logs) is under
/// `dir` too.
fn maibot_config(dir: &Path, python: &Path, runtime: RuntimeConfig) -> HostConfig {
    let plugins = BTreeMap::from([(
        PLUGIN.to_owned(),
        PluginSettings {
            capabilities: vec!["send.text".to_owned()],
            ..PluginSettings::default()
        },
    )]);
    let runner = RunnerConfig {
        kind: RunnerKind::Maibot,
        executable: None,
        python: Some(python.to_path_buf()),
        plugin_dirs: vec![dir.join("plugins")],
        plugins,
        ..RunnerConfig::executable("maibot", "")
    };
    HostConfig {
        runners: vec![runner],
        ..host_config(dir, Path::new(""), 0, runtime)
    }
}

/// `Host::start` with the MaiBot runner until `echo_text` first answers; the time from before the
/// start.
async fn cold_start(python: &Path) -> Result<Duration> {
    let dir = plugin_dir()?;
    let config =
        maibot_config(dir.path(), python, RuntimeConfig::default()).resolve(None, dir.path())?;
    let started = Instant::now();
    let host = Host::start(config)
        .await
        .context("the host did not start")?;
    let answered = loop {
        match host::try_call(&host.registry, ECHO_TOOL).await {
            Ok(()) => break Ok(started.elapsed()),
            Err(message) if started.elapsed() > LIMIT => {
                break Err(anyhow::anyhow!(
                    "echo_text did not answer within {LIMIT:?} of the start: {message}"
                ));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(1)).await,
        }
    };
    host.shutdown().await;
    answered
}
