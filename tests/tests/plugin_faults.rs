//! The host survives any runner: crashes, hangs, crash loops, bad handshakes, spoofing.

use std::time::{Duration, Instant};

use maitool_e2e::logs;
use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_host::plugin::{PluginSettings, RunnerState, RuntimeConfig};
use maitool_protocol::{ToolAvailabilityContext, ToolExecutionContext};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;

fn ctx() -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        ..ToolExecutionContext::default()
    }
}

fn names(tools: &[std::sync::Arc<maitool_protocol::ToolSpec>]) -> Vec<String> {
    tools.iter().map(|t| t.name.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_with_100_calls_in_flight_fails_them_all_and_restarts() {
    let harness = std::sync::Arc::new(
        Harness::start(
            fast_config(),
            vec![RunnerSpec::new("victim", "maitool-example-misbehaving")],
        )
        .await,
    );
    let pid = harness.runner("victim").pid.expect("running");
    let mut calls = Vec::new();
    for _ in 0..100 {
        let harness = harness.clone();
        calls.push(tokio::spawn(async move {
            harness.call("slow", json!({"ms": 30_000}), &ctx()).await
        }));
    }
    // Let the calls reach the runner.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let killed_at = Instant::now();
    kill(Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
    for call in calls {
        let result = tokio::time::timeout(Duration::from_secs(10), call)
            .await
            .expect("no call hangs")
            .unwrap();
        assert!(!result.success);
        assert_eq!(
            result.error_message,
            "tool slow failed: the runner was killed by signal SIGKILL"
        );
        assert_eq!(result.metadata["error_code"], "E_PLUGIN_CRASHED");
    }
    let failed_within = killed_at.elapsed();
    let status = harness
        .wait_restarted("victim", 1, Duration::from_secs(10))
        .await;
    assert_eq!(status.restart_count, 1);
    assert_ne!(status.pid, Some(pid));
    assert_eq!(
        status.last_exit_reason.as_deref(),
        Some("killed by signal SIGKILL")
    );
    let echo = harness.call("echo", json!({"text": "back"}), &ctx()).await;
    assert!(echo.success, "{echo:?}");
    eprintln!("100 in-flight calls failed {failed_within:?} after SIGKILL");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_runner_times_out_is_killed_and_restarted_while_others_serve() {
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("hangs", "maitool-example-misbehaving"),
            RunnerSpec::new("dice", "maitool-example-dice"),
        ],
    )
    .await;
    let pid = harness.runner("hangs").pid.unwrap();
    let hung = harness.call("hang_with_timeout", json!({}), &ctx()).await;
    assert!(!hung.success);
    assert_eq!(
        hung.error_message,
        "tool hang_with_timeout timed out after 500 ms"
    );
    assert_eq!(hung.metadata["error_code"], "E_TIMEOUT");
    // The other runner is unaffected while the hung one is detected.
    let sum = harness
        .call("calculate", json!({"a": 1, "b": 2, "op": "add"}), &ctx())
        .await;
    assert_eq!(sum.content, "3");
    let status = harness
        .wait_restarted("hangs", 1, Duration::from_secs(10))
        .await;
    assert_ne!(status.pid, Some(pid));
    let reason = status.last_exit_reason.unwrap();
    assert!(
        reason.contains("runner hung: health check timed out twice"),
        "{reason}"
    );
    assert_eq!(
        harness
            .call("echo", json!({"text": "alive"}), &ctx())
            .await
            .content,
        "alive"
    );
    assert_eq!(harness.runner("dice").restart_count, 0);
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_loop_stops_at_the_intensity_limit_and_the_host_keeps_serving() {
    let config = RuntimeConfig {
        max_restarts: 3,
        restart_backoff_max_ms: 50,
        ..fast_config()
    };
    let harness = Harness::start(
        config,
        vec![
            RunnerSpec::new("looping", "maitool-example-misbehaving")
                .env("MISBEHAVE", "exit_before_hello"),
            RunnerSpec::new("dice", "maitool-example-dice"),
        ],
    )
    .await;
    let status = harness
        .wait_state("looping", RunnerState::Failed, Duration::from_secs(10))
        .await;
    assert_eq!(status.restart_count, 3);
    let reason = status.last_exit_reason.unwrap();
    assert!(
        reason.contains("exited with status 3 before connecting"),
        "{reason}"
    );
    assert!(reason.contains("gave up after 3 restarts"), "{reason}");
    assert_eq!(
        harness
            .call(
                "calculate",
                json!({"a": 2, "b": 2, "op": "multiply"}),
                &ctx()
            )
            .await
            .content,
        "4"
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_handshake_is_refused_with_a_clear_reason() {
    let config = RuntimeConfig {
        max_restarts: 0,
        handshake_timeout_ms: 1500,
        ..fast_config()
    };
    let cases = [
        ("wrong_token", "invalid session token"),
        ("no_token", "missing session token"),
        ("not_hello", "first message must be a runner.hello request"),
        ("bad_protocol", "unsupported protocol versions [\"9.0.0\"]"),
        ("garbage_first", "first frame is not an envelope"),
        ("huge_frame", "unreadable first frame"),
    ];
    let mut runners = vec![RunnerSpec::new("good", "maitool-example-dice")];
    for (mode, _) in &cases {
        runners.push(RunnerSpec::new(mode, "maitool-example-misbehaving").env("MISBEHAVE", mode));
    }
    // A runner that connects and never speaks is cut off at the handshake limit.
    runners
        .push(RunnerSpec::new("silent", "maitool-example-misbehaving").env("MISBEHAVE", "silent"));
    let harness = Harness::start(config, runners).await;
    for (mode, reason) in cases {
        let line = logs::wait_for(
            &["runner connection rejected", reason],
            Duration::from_secs(10),
        )
        .await;
        assert!(
            line.is_some(),
            "no rejection log for {mode} containing {reason:?}; log: {:#?}",
            logs::lines()
        );
        let status = harness
            .wait_state(mode, RunnerState::Failed, Duration::from_secs(10))
            .await;
        assert!(status.last_exit_reason.is_some(), "{status:?}");
    }
    // Rejected runners also learn why (their stderr is in the host log, tagged with the runner).
    let told = logs::wait_for(
        &["runner=wrong_token ", "rejected: invalid session token"],
        Duration::from_secs(5),
    )
    .await;
    assert!(told.is_some(), "{:#?}", logs::lines());
    let told = logs::wait_for(
        &["runner=not_hello ", "error E_PROTOCOL_MISMATCH"],
        Duration::from_secs(5),
    )
    .await;
    assert!(told.is_some());
    let silent = harness
        .wait_state("silent", RunnerState::Failed, Duration::from_secs(10))
        .await;
    assert!(
        silent
            .last_exit_reason
            .unwrap()
            .contains("no handshake within 1500 ms")
    );
    // The host kept serving throughout.
    assert_eq!(harness.runner("good").state, RunnerState::Ready);
    assert_eq!(
        harness
            .call("calculate", json!({"a": 5, "b": 5, "op": "add"}), &ctx())
            .await
            .content,
        "10"
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_connection_for_a_runner_is_refused() {
    let harness = Harness::start(
        fast_config(),
        vec![RunnerSpec::new("twice", "maitool-example-misbehaving")],
    )
    .await;
    let answer = harness.call("connect_again", json!({}), &ctx()).await;
    assert!(answer.success, "{answer:?}");
    assert_eq!(
        answer.content,
        "rejected: runner twice already has an active connection"
    );
    assert_eq!(
        harness
            .call("echo", json!({"text": "still"}), &ctx())
            .await
            .content,
        "still"
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capabilities_need_grants_and_plugins_cannot_act_as_others() {
    let notes = PluginSettings {
        capabilities: vec!["kv.*".into(), "send.text".into()],
        ..PluginSettings::default()
    };
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("notes", "maitool-example-notes").plugin("examples.notes", notes),
            RunnerSpec::new("spoofer", "maitool-example-misbehaving").env("MISBEHAVE", "spoof"),
        ],
    )
    .await;
    let ctx = ctx();
    let stored = harness
        .call("remember", json!({"key": "k", "text": "v"}), &ctx)
        .await;
    assert!(stored.success, "{stored:?}");
    assert_eq!(
        harness
            .call("recall", json!({"key": "k"}), &ctx)
            .await
            .content,
        "v"
    );
    let sent = harness
        .call("announce", json!({"text": "hi all"}), &ctx)
        .await;
    assert!(sent.success, "{sent:?}");
    let delivered = harness.sink.messages();
    assert_eq!(
        delivered
            .last()
            .map(|m| (m.stream_id.as_str(), m.text.as_str(), &*m.plugin_id)),
        Some(("st1", "hi all", "examples.notes"))
    );

    let spoofed = logs::wait_for(
        &["runner=spoofer ", "as examples.notes: error E_UNAUTHORIZED"],
        Duration::from_secs(10),
    )
    .await;
    assert!(spoofed.is_some(), "{:#?}", logs::lines());
    let denied = logs::wait_for(
        &[
            "runner=spoofer ",
            "as itself: error E_CAPABILITY_DENIED",
            "not granted capability kv.get",
        ],
        Duration::from_secs(10),
    )
    .await;
    assert!(denied.is_some(), "{:#?}", logs::lines());
    // The spoofer's own registration did go through; the notes data was not read.
    assert_eq!(
        harness
            .call("recall", json!({"key": "k"}), &ctx)
            .await
            .content,
        "v"
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_scope_allowed_sessions_and_per_session_disable_filter_tools() {
    let harness = Harness::start(
        fast_config(),
        vec![RunnerSpec::new("scoped", "maitool-example-misbehaving")],
    )
    .await;
    let group = ToolAvailabilityContext {
        session_id: "s1".into(),
        is_group_chat: Some(true),
        group_id: "g1".into(),
        platform: "qq".into(),
        ..Default::default()
    };
    let private = ToolAvailabilityContext {
        session_id: "s2".into(),
        is_group_chat: Some(false),
        ..Default::default()
    };
    let vip = ToolAvailabilityContext {
        session_id: "vip-session".into(),
        ..Default::default()
    };
    let vip_group = ToolAvailabilityContext {
        session_id: "x".into(),
        is_group_chat: Some(true),
        group_id: "vip-group".into(),
        platform: "qq".into(),
        ..Default::default()
    };

    let in_group = names(&harness.registry.list_tools(&group).await);
    assert!(
        in_group.contains(&"group_only".into())
            && !in_group.contains(&"private_only".into())
            && !in_group.contains(&"vip_only".into())
    );
    let in_private = names(&harness.registry.list_tools(&private).await);
    assert!(
        in_private.contains(&"private_only".into()) && !in_private.contains(&"group_only".into())
    );
    assert!(names(&harness.registry.list_tools(&vip).await).contains(&"vip_only".into()));
    assert!(names(&harness.registry.list_tools(&vip_group).await).contains(&"vip_only".into()));

    let private_exec = ToolExecutionContext {
        session_id: "s2".into(),
        is_group_chat: Some(false),
        ..Default::default()
    };
    let refused = harness
        .registry
        .invoke(
            maitool_protocol::ToolInvocation::new("group_only", Default::default()),
            &private_exec,
        )
        .await;
    assert_eq!(refused.error_message, "tool not found: group_only");
    // A routed call is checked from the execution context itself: the same rules hold.
    let call = |tool: &str, ctx: ToolExecutionContext| {
        let registry = harness.registry.clone();
        let invocation = maitool_protocol::ToolInvocation::new(tool, Default::default());
        async move { registry.invoke(invocation, &ctx).await }
    };
    let vip_group_exec = ToolExecutionContext {
        session_id: "x".into(),
        is_group_chat: Some(true),
        group_id: "vip-group".into(),
        platform: "qq".into(),
        ..Default::default()
    };
    assert_eq!(
        call("vip_only", vip_group_exec.clone()).await.content,
        "vip"
    );
    assert_eq!(call("group_only", vip_group_exec).await.content, "group");
    let elsewhere = ToolExecutionContext {
        platform: "tg".into(),
        ..private_exec.clone()
    };
    assert_eq!(
        call("vip_only", elsewhere.clone()).await.error_message,
        "tool not found: vip_only"
    );
    assert_eq!(call("private_only", elsewhere).await.content, "private");

    harness
        .runtime
        .set_component_enabled("echo", false, Some("s1"))
        .await
        .unwrap();
    assert!(!names(&harness.registry.list_tools(&group).await).contains(&"echo".into()));
    assert!(names(&harness.registry.list_tools(&private).await).contains(&"echo".into()));
    let exec_s1 = ToolExecutionContext {
        session_id: "s1".into(),
        ..Default::default()
    };
    let disabled = harness
        .registry
        .invoke(
            maitool_protocol::ToolInvocation::new(
                "echo",
                json!({"text": "x"}).as_object().unwrap().clone(),
            ),
            &exec_s1,
        )
        .await;
    assert_eq!(disabled.error_message, "tool not found: echo");
    harness
        .runtime
        .set_component_enabled("examples.misbehaving.echo", true, Some("s1"))
        .await
        .unwrap();
    assert!(names(&harness.registry.list_tools(&group).await).contains(&"echo".into()));
    harness
        .runtime
        .set_component_enabled("echo", false, None)
        .await
        .unwrap();
    assert!(!names(&harness.registry.list_tools(&private).await).contains(&"echo".into()));
    assert!(
        harness
            .runtime
            .set_component_enabled("nope", false, None)
            .await
            .unwrap_err()
            .to_string()
            .contains("no component named nope")
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_is_a_failed_result_and_the_runner_survives() {
    let harness = Harness::start(
        fast_config(),
        vec![RunnerSpec::new("panics", "maitool-example-misbehaving")],
    )
    .await;
    let pid = harness.runner("panics").pid;
    let result = harness.call("panic", json!({}), &ctx()).await;
    assert!(!result.success);
    assert_eq!(
        result.error_message,
        "tool panic panicked: deliberate panic in a handler"
    );
    assert_eq!(
        harness
            .call("echo", json!({"text": "fine"}), &ctx())
            .await
            .content,
        "fine"
    );
    assert_eq!(harness.runner("panics").pid, pid);
    let crash = harness.call("crash", json!({}), &ctx()).await;
    assert_eq!(
        crash.error_message,
        "tool crash failed: the runner was killed by signal SIGABRT"
    );
    assert_eq!(crash.metadata["error_code"], "E_PLUGIN_CRASHED");
    let reason = harness
        .wait_restarted("panics", 1, Duration::from_secs(10))
        .await
        .last_exit_reason
        .unwrap();
    assert!(reason.contains("SIGABRT"), "{reason}");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ungranted_plugin_is_denied_and_a_duplicate_plugin_id_is_refused() {
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("notes_a", "maitool-example-notes"),
            RunnerSpec::new("notes_b", "maitool-example-notes"),
        ],
    )
    .await;
    let denied = harness
        .call("remember", json!({"key": "k", "text": "v"}), &ctx())
        .await;
    assert!(!denied.success);
    assert!(
        denied.error_message.contains("E_CAPABILITY_DENIED")
            && denied
                .error_message
                .contains("plugin examples.notes is not granted capability kv.set"),
        "{}",
        denied.error_message
    );
    let announce = harness.call("announce", json!({"text": "x"}), &ctx()).await;
    assert!(
        announce
            .error_message
            .contains("not granted capability send.text"),
        "{}",
        announce.error_message
    );
    assert!(harness.sink.messages().is_empty());
    // Both runners host examples.notes: exactly one owns it, the other's registration is refused.
    let duplicate = logs::wait_for(
        &[
            "components refused",
            "plugin examples.notes is already provided by runner notes_",
        ],
        Duration::from_secs(5),
    )
    .await;
    assert!(duplicate.is_some(), "{:#?}", logs::lines());
    let failed: Vec<_> = ["notes_a", "notes_b"]
        .iter()
        .filter(|r| {
            harness
                .runner(r)
                .plugins
                .iter()
                .any(|p| p.state == maitool_host::plugin::PluginLoadState::Failed)
        })
        .collect();
    assert_eq!(failed.len(), 1, "{:?}", harness.runtime.status());
    harness.stop().await;
}
