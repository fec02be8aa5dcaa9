//! A runner comes back by itself: after a failed spawn (without spending its restart budget),
//! after the cool-down of a `failed` runner, and a call made during a restart waits for it.
//! Plugin states follow their runner's.
//!
//! The runners are a shell wrapper around the misbehaving example, so a test can make the
//! next launch crash (a marker file) or fail to exec (the wrapper loses its execute bit).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_e2e::workspace_bin;
use maitool_host::plugin::{PluginLoadState, PluginSettings, RunnerState, RuntimeConfig};
use maitool_protocol::ToolExecutionContext;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;

const PLUGIN: &str = "examples.misbehaving";

fn ctx() -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        ..ToolExecutionContext::default()
    }
}

/// A wrapper that exits with status 7 while `crash_marker` exists, and otherwise execs the
/// misbehaving example.
fn wrapper(dir: &Path, crash_marker: &Path) -> PathBuf {
    let script = dir.join("runner.sh");
    let real = workspace_bin("maitool-example-misbehaving");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ -e '{}' ]; then exit 7; fi\nexec '{}'\n",
            crash_marker.display(),
            real.display()
        ),
    )
    .unwrap();
    set_mode(&script, 0o755);
    script
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn spec(name: &str, script: &Path) -> RunnerSpec {
    // Named in the configuration, so that its state is reported from the first moment.
    // The sandbox grants the executable it starts; the script runs another, as an operator's
    // wrapper would, which the operator grants too.
    RunnerSpec::new(name, script.to_str().unwrap())
        .reads(&workspace_bin("maitool-example-misbehaving"))
        .plugin(PLUGIN, PluginSettings::default())
}

fn plugin_state(harness: &Harness, runner: &str) -> (PluginLoadState, Option<String>) {
    let status = harness.runner(runner);
    let plugin = status
        .plugins
        .iter()
        .find(|p| p.id == PLUGIN)
        .unwrap_or_else(|| panic!("no plugin {PLUGIN}: {status:?}"));
    (plugin.state, plugin.reason.clone())
}

fn sigkill(harness: &Harness, runner: &str) -> u32 {
    let pid = harness.runner(runner).pid.expect("running");
    kill(Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
    pid
}

/// A host whose one runner, `victim`, was SIGKILLed and waits for a restart 20 s off, with
/// `restart_wait_ms` and the tools' timeout as given.
async fn restarting_victim(restart_wait_ms: u64, default_tool_timeout_ms: u64) -> Harness {
    let config = RuntimeConfig {
        restart_backoff_initial_ms: 20_000,
        restart_backoff_max_ms: 20_000,
        restart_wait_ms,
        default_tool_timeout_ms,
        ..fast_config()
    };
    let harness = Harness::start(
        config,
        vec![RunnerSpec::new("victim", "maitool-example-misbehaving")],
    )
    .await;
    sigkill(&harness, "victim");
    harness
        .wait_state("victim", RunnerState::Restarting, Duration::from_secs(5))
        .await;
    harness
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_spawn_is_retried_slowly_without_spending_the_restart_budget() {
    let dir = tempfile::tempdir().unwrap();
    let script = wrapper(dir.path(), &dir.path().join("crash"));
    let config = RuntimeConfig {
        // Two restarts: one for each SIGKILL below. Spawn failures in between must not
        // count, or the second SIGKILL would mark the runner failed for good.
        max_restarts: 2,
        restart_window_ms: 60_000,
        failed_retry_ms: 0,
        spawn_retry_initial_ms: 100,
        spawn_retry_max_ms: 200,
        ..fast_config()
    };
    let harness = Harness::start(config, vec![spec("wrapped", &script)]).await;
    assert_eq!(harness.runner("wrapped").state, RunnerState::Ready);

    // The executable cannot be run any more (as with EMFILE or ENOMEM, exec fails).
    set_mode(&script, 0o644);
    sigkill(&harness, "wrapped");
    let failed = harness
        .wait_state("wrapped", RunnerState::Failed, Duration::from_secs(10))
        .await;
    let reason = failed.last_exit_reason.clone().unwrap_or_default();
    assert!(
        reason.contains("cannot start") && reason.contains("Permission denied"),
        "{failed:?}"
    );
    assert!(reason.contains("; retrying in "), "{reason}");
    let (state, why) = plugin_state(&harness, "wrapped");
    assert_eq!(state, PluginLoadState::Failed, "{why:?}");
    assert!(
        why.as_deref()
            .is_some_and(|w| w.contains("its runner wrapped failed")),
        "{why:?}"
    );
    // A call to a failed runner fails at once, not after waiting for it.
    let started = Instant::now();
    let echo = harness.call("echo", json!({"text": "x"}), &ctx()).await;
    assert!(!echo.success, "{echo:?}");
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    // Several attempts fail meanwhile (100, 200, 200 ms apart).
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(harness.runner("wrapped").state, RunnerState::Failed);
    let failed_spawns = maitool_e2e::logs::lines()
        .iter()
        .filter(|l| l.contains("runner could not be spawned") && l.contains("wrapped"))
        .count();
    assert!(failed_spawns >= 3, "{failed_spawns} failed spawns logged");

    set_mode(&script, 0o755);
    let back = harness
        .wait_state("wrapped", RunnerState::Ready, Duration::from_secs(10))
        .await;
    assert_eq!(
        back.restart_count, 1,
        "spawn failures are not restarts: {back:?}"
    );
    let echo = harness.call("echo", json!({"text": "back"}), &ctx()).await;
    assert_eq!(echo.content, "back", "{echo:?}");
    assert_eq!(
        plugin_state(&harness, "wrapped"),
        (PluginLoadState::Loaded, None)
    );

    // The budget is intact: a second crash is restarted, not the end of the runner.
    sigkill(&harness, "wrapped");
    let again = harness
        .wait_restarted("wrapped", 2, Duration::from_secs(10))
        .await;
    assert_eq!(again.state, RunnerState::Ready, "{again:?}");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_runner_comes_back_by_itself_after_its_cool_down() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("crash");
    let script = wrapper(dir.path(), &marker);
    let config = RuntimeConfig {
        max_restarts: 2,
        restart_backoff_max_ms: 20,
        failed_retry_ms: 1500,
        ..fast_config()
    };
    let harness = Harness::start(config, vec![spec("flaky", &script)]).await;
    assert_eq!(
        plugin_state(&harness, "flaky"),
        (PluginLoadState::Loaded, None)
    );

    // Every launch crashes from now on, so the restart budget runs out.
    std::fs::write(&marker, "").unwrap();
    sigkill(&harness, "flaky");
    let failed = harness
        .wait_state("flaky", RunnerState::Failed, Duration::from_secs(10))
        .await;
    let reason = failed.last_exit_reason.clone().unwrap_or_default();
    assert!(
        reason.contains("exited with status 7 before connecting")
            && reason.contains("gave up after 2 restarts")
            && reason.contains("trying again in 1500 ms"),
        "{reason}"
    );
    // The plugin does not look loaded while its runner is failed.
    let (state, why) = plugin_state(&harness, "flaky");
    assert_eq!(state, PluginLoadState::Failed, "{why:?}");
    let echo = harness.call("echo", json!({"text": "x"}), &ctx()).await;
    assert!(!echo.success, "{echo:?}");

    // The cause goes away; nobody runs `maitool restart`.
    std::fs::remove_file(&marker).unwrap();
    let back = harness
        .wait_state("flaky", RunnerState::Ready, Duration::from_secs(10))
        .await;
    assert_eq!(
        back.restart_count, 3,
        "two restarts and the retry: {back:?}"
    );
    let echo = harness.call("echo", json!({"text": "back"}), &ctx()).await;
    assert_eq!(echo.content, "back", "{echo:?}");
    assert_eq!(
        plugin_state(&harness, "flaky"),
        (PluginLoadState::Loaded, None)
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_made_during_a_restart_wait_for_it_and_succeed() {
    let config = RuntimeConfig {
        // Each restart takes 300 ms, so the calls below surely arrive during one.
        restart_backoff_initial_ms: 300,
        restart_backoff_max_ms: 300,
        ..fast_config()
    };
    let harness = std::sync::Arc::new(
        Harness::start(
            config,
            vec![RunnerSpec::new("victim", "maitool-example-misbehaving")],
        )
        .await,
    );
    for round in 1..=3u32 {
        // A call in flight at the kill may have run: it fails with E_PLUGIN_CRASHED.
        let in_flight = {
            let harness = harness.clone();
            tokio::spawn(async move { harness.call("slow", json!({"ms": 30_000}), &ctx()).await })
        };
        tokio::time::sleep(Duration::from_millis(100)).await;
        let killed = Instant::now();
        sigkill(&harness, "victim");
        // Calls made once the host has seen the exit. (A call sent in the instant between
        // the death and the host seeing the socket close is in flight at the crash: the host
        // cannot tell whether the runner read it.)
        harness
            .wait_state("victim", RunnerState::Restarting, Duration::from_secs(5))
            .await;
        let mut calls = Vec::new();
        for i in 0..20 {
            let caller = harness.clone();
            calls.push(tokio::spawn(async move {
                let text = format!("r{round}-{i}");
                let result = caller.call("echo", json!({"text": text}), &ctx()).await;
                (text, result)
            }));
        }
        let crashed = in_flight.await.unwrap();
        assert!(
            crashed
                .metadata
                .get("error_code")
                .and_then(|code| code.as_str())
                == Some("E_PLUGIN_CRASHED"),
            "{crashed:?}"
        );
        for call in calls {
            let (text, result) = call.await.unwrap();
            assert!(
                result.success,
                "a call during restart {round} failed: {result:?}"
            );
            assert_eq!(result.content, text);
        }
        eprintln!(
            "restart {round}: 20 calls made during it succeeded {:?} after the kill",
            killed.elapsed()
        );
        let status = harness.runner("victim");
        assert_eq!(status.restart_count, round, "{status:?}");
    }
    std::sync::Arc::into_inner(harness).unwrap().stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_waiting_for_a_restart_fails_at_once_when_the_host_stops() {
    // The restart is far off: the call below waits for it.
    let harness = std::sync::Arc::new(restarting_victim(60_000, 60_000).await);
    let waiting = {
        let harness = harness.clone();
        tokio::spawn(async move { harness.call("echo", json!({"text": "x"}), &ctx()).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "the call waits for the restart");
    let stopping = Instant::now();
    harness.runtime.shutdown().await;
    let result = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("the waiting call ends with the host")
        .unwrap();
    assert!(!result.success);
    assert!(
        result.error_message.contains("runner victim was stopped"),
        "{result:?}"
    );
    assert!(
        stopping.elapsed() < Duration::from_secs(3),
        "{:?}",
        stopping.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_waits_no_longer_than_restart_wait_ms() {
    let harness = restarting_victim(300, fast_config().default_tool_timeout_ms).await;
    let started = Instant::now();
    let result = harness.call("echo", json!({"text": "x"}), &ctx()).await;
    let waited = started.elapsed();
    assert!(
        result
            .error_message
            .contains("not back from its restart within restart_wait_ms"),
        "{result:?}"
    );
    assert!(
        waited >= Duration::from_millis(300) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_waiting_for_a_restart_times_out_at_its_own_deadline() {
    // The call's own limit comes first.
    let harness = restarting_victim(60_000, 400).await;
    let started = Instant::now();
    let result = harness.call("echo", json!({"text": "x"}), &ctx()).await;
    let waited = started.elapsed();
    assert!(!result.success);
    let message = &result.error_message;
    assert!(
        message.starts_with("tool echo timed out after ")
            && message.ends_with(
                "waiting for the runner of plugin examples.misbehaving to come back from its restart"
            ),
        "{result:?}"
    );
    assert_eq!(result.metadata["error_code"], "E_TIMEOUT");
    assert!(
        waited >= Duration::from_millis(400) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_in_flight_when_the_host_stops_says_the_runner_was_stopped() {
    let harness = std::sync::Arc::new(
        Harness::start(
            fast_config(),
            vec![RunnerSpec::new("victim", "maitool-example-misbehaving")],
        )
        .await,
    );
    let in_flight = {
        let harness = harness.clone();
        tokio::spawn(async move { harness.call("slow", json!({"ms": 30_000}), &ctx()).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let stopping = Instant::now();
    harness.runtime.shutdown().await;
    let result = tokio::time::timeout(Duration::from_secs(10), in_flight)
        .await
        .expect("the call ends with the host")
        .unwrap();
    assert!(!result.success);
    assert_eq!(
        result.error_message,
        "tool slow failed: the runner was stopped"
    );
    assert_eq!(result.metadata["error_code"], "E_PLUGIN_CRASHED");
    assert!(
        stopping.elapsed() < Duration::from_secs(5),
        "{:?}",
        stopping.elapsed()
    );
}
