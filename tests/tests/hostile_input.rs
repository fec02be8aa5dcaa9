//! Hostile input at the plugin runtime: broken framing, stale tokens, floods, a runner that
//! stops reading, oversized results, invalid UTF-8 and deep nesting. Every case runs a real
//! runner subprocess on the real socket, checks what the host says about it, that a good
//! runner keeps serving, and (where a hostile peer could make the host hoard) that the host's
//! resident memory stays bounded.
//!
//! The memory checks read this process's `VmRSS` (the host runs in the test process), so the
//! tests of this file run one at a time.

mod hostile_support;

use std::time::Duration;

use hostile_support::*;
use maitool_e2e::logs;
use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_host::plugin::{PluginSettings, RunnerState, RuntimeConfig};
use maitool_protocol::{ToolExecutionContext, ToolInvocation};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_4_gib_prefix_and_a_stalled_hello_are_cut_off_at_the_handshake() {
    let _serial = SERIAL.lock().await;
    let before = rss_bytes();
    let harness = Harness::start(
        no_restarts(),
        vec![
            good(),
            hostile("huge_prefix", "huge_prefix"),
            hostile("truncated_hello", "truncated_hello"),
        ],
    )
    .await;
    expect_log(
        &[
            "runner connection rejected",
            "unreadable first frame: frame of 4294967295 bytes exceeds the 16777216-byte limit",
        ],
        Duration::from_secs(10),
    )
    .await;
    // The host read the prefix only: it answers nothing and closes, which the runner reports.
    expect_log(
        &["runner=huge_prefix ", "connection closed without an answer"],
        Duration::from_secs(10),
    )
    .await;
    // Ten bytes of a 1000-byte hello, then nothing: cut off at the handshake limit. The
    // supervisor's limit (from the spawn) usually fires first and kills the runner, and the
    // accept side then sees the connection end mid-frame; otherwise its own limit fires.
    let cut = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let cut = logs::lines().into_iter().find(|l| {
                l.contains("runner connection rejected")
                    && (l.contains("no runner.hello within 1500 ms")
                        || l.contains("unreadable first frame: connection closed in the middle of a frame (10 bytes buffered)"))
            });
            if let Some(line) = cut {
                return line;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let cut = cut.unwrap_or_else(|_| panic!("truncated hello not cut off: {:#?}", warnings()));
    eprintln!("truncated hello: {cut}");
    let stalled = harness
        .wait_state(
            "truncated_hello",
            RunnerState::Failed,
            Duration::from_secs(10),
        )
        .await;
    // Killed at the supervisor's limit, or gone by itself once the accept side hung up.
    let reason = stalled.last_exit_reason.unwrap_or_default();
    assert!(
        reason.contains("no handshake within 1500 ms")
            || reason.contains("exited with status 4 before connecting"),
        "{reason}"
    );
    harness
        .wait_state("huge_prefix", RunnerState::Failed, Duration::from_secs(10))
        .await;
    assert_serving(&harness).await;
    assert_memory_bounded(before, "4 GiB prefix");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_of_a_previous_launch_is_refused() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    let harness = Harness::start(
        fast_config(),
        vec![
            good(),
            hostile("stale", "stale_token")
                .env("MISBEHAVE_TOKEN_FILE", token_file.to_str().unwrap())
                .writes(dir.path()),
        ],
    )
    .await;
    let first = harness.runner("stale");
    assert_eq!(first.state, RunnerState::Ready, "{first:?}");
    let first_token = std::fs::read_to_string(&token_file).expect("first launch kept its token");
    kill(Pid::from_raw(first.pid.unwrap() as i32), Signal::SIGKILL).unwrap();
    // The second launch first presents the first launch's token, then its own.
    let second = harness
        .wait_restarted("stale", 1, Duration::from_secs(10))
        .await;
    let rejected = format!(
        "invalid session token (runner_id misbehaving, pid {})",
        second.pid.unwrap()
    );
    expect_log(
        &["runner connection rejected", &rejected],
        Duration::from_secs(5),
    )
    .await;
    expect_log(
        &[
            "runner=stale ",
            "(stale_token): host answered: rejected: invalid session token",
        ],
        Duration::from_secs(5),
    )
    .await;
    let second_token = std::fs::read_to_string(&token_file).unwrap();
    assert_ne!(first_token, second_token, "every launch gets a fresh token");
    // `slow` is the misbehaving runner's own (the dice runner has an `echo` too).
    let served = harness.call("slow", json!({"ms": 0}), &ctx()).await;
    assert_eq!(served.content, "slept 0 ms", "{served:?}");
    assert_eq!(harness.runner("stale").restart_count, 1);
    assert_serving(&harness).await;
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_framing_mid_session_ends_only_that_connection() {
    let _serial = SERIAL.lock().await;
    let before = rss_bytes();
    let harness = Harness::start(
        no_restarts(),
        vec![
            good(),
            hostile("huge_later", "huge_prefix_later"),
            hostile("stalled_later", "truncated_later"),
        ],
    )
    .await;
    expect_log(
        &[
            "connection ended",
            "peer=huge_later ",
            "protocol error: frame of 4294967295 bytes exceeds the 16777216-byte limit",
        ],
        Duration::from_secs(10),
    )
    .await;
    expect_log(
        &["runner=huge_later ", "the host ended the session"],
        Duration::from_secs(10),
    )
    .await;
    // Stuck inside a frame, the runner cannot answer health checks: it is found hung.
    let stalled = harness
        .wait_state(
            "stalled_later",
            RunnerState::Failed,
            Duration::from_secs(10),
        )
        .await;
    let reason = stalled.last_exit_reason.unwrap_or_default();
    assert!(
        reason.contains("runner hung: health check timed out twice"),
        "{reason}"
    );
    harness
        .wait_state("huge_later", RunnerState::Failed, Duration::from_secs(10))
        .await;
    assert_serving(&harness).await;
    assert_memory_bounded(before, "broken framing mid-session");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_flood_is_served_and_the_host_stays_responsive() {
    let _serial = SERIAL.lock().await;
    let granted = PluginSettings {
        capabilities: vec!["kv.*".into()],
        ..PluginSettings::default()
    };
    let before = rss_bytes();
    let harness = Harness::start(
        no_restarts(),
        vec![
            good(),
            hostile("flood", "flood")
                .env("MISBEHAVE_FLOOD_COUNT", "50000")
                .plugin("examples.hostile", granted),
        ],
    )
    .await;
    // While the flood runs, the good runner is called again and again.
    let report = report_while_serving(&harness, &["runner=flood ", "(flood): sent"], 120)
        .await
        .unwrap_or_else(|| panic!("no flood report; log: {:#?}", warnings()));
    assert!(
        report.contains("sent 50000 cap.call requests and 782 log batches"),
        "{report}"
    );
    // Requests beyond the limit in flight are refused at once; a refusal that finds the send
    // queue full is dropped (the caller's timeout ends that call), so not every request
    // needs an answer, but those answered are served or refused, nothing else.
    let (served, refused) = (
        count_of(&report, "ok"),
        count_of(&report, "E_BACK_PRESSURE"),
    );
    assert!(served > 0, "{report}");
    assert!(served + refused <= 50_000, "{report}");
    let answers = report.split("answers: ").nth(1).unwrap_or_default();
    assert!(
        answers
            .split_whitespace()
            .filter(|word| word.contains('='))
            .all(|word| word.starts_with("ok=")
                || word.starts_with("E_BACK_PRESSURE=")
                || word.starts_with("runner=")
                || word.starts_with("stream=")),
        "{report}"
    );
    assert_eq!(harness.runner("flood").state, RunnerState::Ready);
    assert_serving(&harness).await;
    assert_memory_bounded(before, "request flood");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_a_runner_that_never_reads_cannot_grow_host_memory() {
    let _serial = SERIAL.lock().await;
    let before = rss_bytes();
    // No health checks, which would find the deaf runner hung and end the flood early: only
    // the limit on requests in flight bounds what the host holds for it.
    let config = RuntimeConfig {
        health_check_interval_ms: 0,
        ..no_restarts()
    };
    let harness = Harness::start(
        config,
        vec![
            good(),
            hostile("deaf_flood", "flood_deaf").env("MISBEHAVE_FLOOD_COUNT", "300000"),
        ],
    )
    .await;
    // The runner gets to the end of its flood only if the host keeps reading.
    let report = report_while_serving(&harness, &["runner=deaf_flood ", "without reading"], 240)
        .await
        .unwrap_or_else(|| panic!("no flood report; log: {:#?}", warnings()));
    assert!(report.contains("sent 300000 cap.call requests"), "{report}");
    expect_log(
        &[
            "peer=deaf_flood ",
            "refusing its requests with E_BACK_PRESSURE",
        ],
        Duration::from_secs(5),
    )
    .await;
    assert_serving(&harness).await;
    assert_memory_bounded(before, "flood without reading");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_over_the_frame_limit_fails_that_call_and_8_mib_succeeds() {
    let _serial = SERIAL.lock().await;
    let harness = Harness::start(
        fast_config(),
        vec![
            good(),
            RunnerSpec::new("big", "maitool-example-misbehaving"),
        ],
    )
    .await;
    let pid = harness.runner("big").pid;
    let before = rss_bytes();
    let eight_mib = 8 * 1024 * 1024;
    let legal = harness
        .call("big", json!({"bytes": eight_mib}), &ctx())
        .await;
    assert!(legal.success, "{}", legal.error_message);
    assert_eq!(legal.content.len(), eight_mib);
    drop(legal);
    let over = harness
        .call("big", json!({"bytes": 17 * 1024 * 1024}), &ctx())
        .await;
    assert!(!over.success);
    assert!(
        over.error_message.contains("[E_BAD_PAYLOAD]")
            && over
                .error_message
                .contains("bytes exceeds the 16777216-byte limit"),
        "{}",
        over.error_message
    );
    eprintln!("17 MiB result: {}", over.error_message);
    // Same runner process, still serving.
    let served = harness.call("slow", json!({"ms": 0}), &ctx()).await;
    assert_eq!(served.content, "slept 0 ms", "{served:?}");
    assert_eq!(harness.runner("big").pid, pid);
    assert_serving(&harness).await;
    assert_memory_bounded(before, "8 and 17 MiB results");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_and_deep_nesting_are_refused_without_a_crash() {
    let _serial = SERIAL.lock().await;
    let granted = PluginSettings {
        capabilities: vec!["kv.*".into()],
        ..PluginSettings::default()
    };
    let harness = Harness::start(
        fast_config(),
        vec![
            good(),
            hostile("crafted", "crafted").plugin("examples.hostile", granted),
            RunnerSpec::new("sdk", "maitool-example-misbehaving"),
        ],
    )
    .await;
    let crafted_pid = harness.runner("crafted").pid;
    // Runner to host, request: a cap.call whose args nest 100 000 arrays deep.
    let deep_request = expect_log(
        &["runner=crafted ", "deep cap.call: error E_BAD_PAYLOAD"],
        Duration::from_secs(10),
    )
    .await;
    assert!(
        deep_request.contains("depth limit exceeded"),
        "{deep_request}"
    );
    // Runner to host, responses.
    let utf8 = harness.call("bad_utf8", json!({}), &ctx()).await;
    assert!(!utf8.success);
    assert!(
        utf8.error_message.contains("[E_BAD_PAYLOAD]")
            && utf8.error_message.contains("invalid utf8"),
        "{}",
        utf8.error_message
    );
    eprintln!("invalid UTF-8: {}", utf8.error_message);
    let deep = harness.call("deep_result", json!({}), &ctx()).await;
    assert!(!deep.success);
    assert!(
        deep.error_message.contains("[E_BAD_PAYLOAD]")
            && deep.error_message.contains("depth limit exceeded"),
        "{}",
        deep.error_message
    );
    eprintln!("deep result: {}", deep.error_message);
    let extra = tokio::time::timeout(
        Duration::from_secs(10),
        harness.call("deep_extra_key", json!({}), &ctx()),
    )
    .await
    .expect("a response with an unreadable header still ends its call");
    assert!(!extra.success);
    assert!(
        extra
            .error_message
            .contains("[E_BAD_PAYLOAD] undecodable frame")
            && extra.error_message.contains("depth limit exceeded"),
        "{}",
        extra.error_message
    );
    eprintln!("deep unknown key: {}", extra.error_message);
    // A runner that does not say it reads the context (MaiBot's) gets every context key in
    // its arguments, as MaiBot's plugins expect.
    let chat = ToolExecutionContext {
        group_id: "g1".into(),
        user_id: "u1".into(),
        platform: "qq".into(),
        ..ctx()
    };
    let args = harness.call("echo_args", json!({"text": "x"}), &chat).await;
    assert!(args.success, "{args:?}");
    assert_eq!(
        args.content,
        "chat_id,group_id,platform,stream_id,text,user_id"
    );
    assert_eq!(harness.runner("crafted").pid, crafted_pid);
    assert_eq!(harness.runner("crafted").state, RunnerState::Ready);

    // Host to runner: arguments. Moderate nesting arrives intact...
    let moderate = harness
        .call("depth", json!({"value": nested(100)}), &ctx())
        .await;
    assert_eq!(moderate.content, "100", "{moderate:?}");
    // ...100 000 levels are refused by the host before encoding, without recursing.
    let sdk_pid = harness.runner("sdk").pid;
    let mut args = serde_json::Map::new();
    args.insert("value".into(), nested(100_000));
    let refused = harness
        .registry
        .invoke(ToolInvocation::new("depth", args), &ctx())
        .await;
    assert!(!refused.success);
    assert!(
        refused
            .error_message
            .contains("arguments nested deeper than"),
        "{}",
        refused.error_message
    );
    eprintln!("deep arguments: {}", refused.error_message);
    let served = harness.call("slow", json!({"ms": 0}), &ctx()).await;
    assert_eq!(served.content, "slept 0 ms", "{served:?}");
    assert_eq!(harness.runner("sdk").pid, sdk_pid);
    assert_serving(&harness).await;
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_that_stops_reading_gets_back_pressure_not_a_hang() {
    let _serial = SERIAL.lock().await;
    // No health checks: only the send queue bounds what waits for the deaf runner.
    let config = RuntimeConfig {
        health_check_interval_ms: 0,
        ..no_restarts()
    };
    let harness =
        std::sync::Arc::new(Harness::start(config, vec![good(), hostile("deaf", "deaf")]).await);
    expect_log(
        &["runner=deaf ", "no longer reading"],
        Duration::from_secs(10),
    )
    .await;
    let before = rss_bytes();
    let padding = "p".repeat(256);
    for wave in 0..4 {
        let mut calls = Vec::new();
        for _ in 0..6000 {
            let harness = harness.clone();
            let args = json!({ "padding": padding });
            calls.push(tokio::spawn(async move {
                harness.call("ignored", args, &ctx()).await
            }));
        }
        let (mut back_pressure, mut timed_out) = (0, 0);
        for call in calls {
            let result = tokio::time::timeout(Duration::from_secs(30), call)
                .await
                .expect("no call hangs")
                .unwrap();
            assert!(!result.success);
            if result.error_message.contains("[E_BACK_PRESSURE]") {
                assert!(
                    result
                        .error_message
                        .contains("send queue to deaf is full (4096 frames)"),
                    "{}",
                    result.error_message
                );
                back_pressure += 1;
            } else {
                assert_eq!(
                    result.metadata["error_code"], "E_TIMEOUT",
                    "{}",
                    result.error_message
                );
                assert!(
                    result.error_message.ends_with(" timed out after 1 s"),
                    "{}",
                    result.error_message
                );
                timed_out += 1;
            }
        }
        eprintln!(
            "wave {wave}: {back_pressure} back-pressure, {timed_out} timed out; host VmRSS {} MiB",
            rss_bytes() >> 20
        );
        assert!(back_pressure > 0, "wave {wave}");
        if wave == 0 {
            assert!(timed_out > 0);
        } else {
            // The queue is still full of the first wave's requests: almost nothing more is
            // queued, and calls fail at once.
            assert!(back_pressure > 10 * timed_out, "wave {wave}");
        }
        assert_serving(&harness).await;
    }
    assert_memory_bounded(before, "runner that stops reading");
    match std::sync::Arc::try_unwrap(harness) {
        Ok(harness) => harness.stop().await,
        Err(_) => panic!("harness still shared"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_check_restarts_a_runner_that_stopped_reading() {
    let _serial = SERIAL.lock().await;
    let config = RuntimeConfig {
        health_check_interval_ms: 1_000,
        health_check_timeout_ms: 3_000,
        max_restarts: 1,
        ..no_restarts()
    };
    let harness =
        std::sync::Arc::new(Harness::start(config, vec![good(), hostile("deaf", "deaf")]).await);
    expect_log(
        &["runner=deaf ", "no longer reading"],
        Duration::from_secs(10),
    )
    .await;
    let first_pid = harness.runner("deaf").pid;
    // Calls keep the send queue full, as callers of a popular tool would: a health check
    // then either finds no room or takes a slot that frees up and goes unanswered. Both
    // must count as a failed check (a full queue once counted as healthy, forever).
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flood = tokio::spawn({
        let (harness, stop) = (harness.clone(), stop.clone());
        async move {
            let mut calls = tokio::task::JoinSet::new();
            let padding = "p".repeat(256);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                while calls.len() < 6000 {
                    let harness = harness.clone();
                    let args = json!({ "padding": padding });
                    calls.spawn(async move { harness.call("ignored", args, &ctx()).await });
                }
                let result = calls.join_next().await.unwrap().unwrap();
                assert!(!result.success, "{result:?}");
            }
            while let Some(result) = calls.join_next().await {
                assert!(!result.unwrap().success);
            }
        }
    });
    let line = expect_log(
        &["runner=deaf", "runner hung", "killing it"],
        Duration::from_secs(30),
    )
    .await;
    eprintln!("{line}");
    let restarted = harness
        .wait_restarted("deaf", 1, Duration::from_secs(20))
        .await;
    assert_ne!(restarted.pid, first_pid);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    tokio::time::timeout(Duration::from_secs(30), flood)
        .await
        .expect("every flood call ends")
        .unwrap();
    assert_serving(&harness).await;
    match std::sync::Arc::try_unwrap(harness) {
        Ok(harness) => harness.stop().await,
        Err(_) => panic!("harness still shared"),
    }
}
