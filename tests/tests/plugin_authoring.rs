//! What a plugin author sees at run time, through the real `maitool-example-runtime` runner:
//! blocking handlers, the failure of calls cut off by a health-check restart, post-history
//! messages, tools a plugin withdraws and offers again, and the logs of hooks and panics.

use std::sync::Arc;
use std::time::{Duration, Instant};

use maitool_e2e::logs;
use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_host::plugin::{PluginSettings, ResolvedRunner, RunnerState};
use maitool_protocol::{ToolAvailabilityContext, ToolExecutionContext};
use serde_json::json;

const BIN: &str = "maitool-example-runtime";
const PLUGIN: &str = "examples.runtime";

fn ctx() -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        ..ToolExecutionContext::default()
    }
}

async fn listed(harness: &Harness) -> Vec<String> {
    harness
        .registry
        .list_tools(&ToolAvailabilityContext::default())
        .await
        .iter()
        .map(|spec| spec.name.clone())
        .collect()
}

/// Captured host log lines of `runner` that contain `needle`.
fn log_lines(runner: &str, needle: &str) -> Vec<String> {
    let tag = format!("runner=\"{runner}\"");
    logs::lines()
        .into_iter()
        .filter(|line| line.contains(&tag) && line.contains(needle))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_tool_does_not_stall_a_concurrent_call() {
    let harness =
        Arc::new(Harness::start(fast_config(), vec![RunnerSpec::new("blocking", BIN)]).await);
    let spinning = {
        let harness = harness.clone();
        tokio::spawn(async move {
            harness
                .call("spin_blocking", json!({"ms": 3000}), &ctx())
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let echo = harness
        .call("echo", json!({"text": "meanwhile"}), &ctx())
        .await;
    let waited = started.elapsed();
    assert_eq!(echo.content, "meanwhile", "{echo:?}");
    // The spinning handler holds a pool thread for 3 s; the runner's own thread stays free.
    assert!(waited < Duration::from_secs(1), "echo waited {waited:?}");
    let spun = spinning.await.unwrap();
    assert_eq!(spun.content, "spun 3000 ms", "{spun:?}");
    assert_eq!(harness.runner("blocking").restart_count, 0);
    // Records logged on the blocking pool carry the plugin's id.
    let line = logs::wait_for(
        &[
            "spun 3000 ms on the blocking pool",
            "plugin_id=\"examples.runtime\"",
        ],
        Duration::from_secs(5),
    )
    .await;
    assert!(line.is_some(), "{:?}", log_lines("blocking", "spun"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cut_off_by_a_health_check_restart_says_why() {
    let harness =
        Arc::new(Harness::start(fast_config(), vec![RunnerSpec::new("frozen", BIN)]).await);
    let spinning = {
        let harness = harness.clone();
        tokio::spawn(async move { harness.call("spin", json!({"ms": 20_000}), &ctx()).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let echo = tokio::time::timeout(
        Duration::from_secs(10),
        harness.call("echo", json!({"text": "stuck"}), &ctx()),
    )
    .await
    .expect("the health check ends the wait long before the 60 s tool timeout");
    assert!(!echo.success);
    assert_eq!(
        echo.error_message,
        "tool echo failed: the runner was restarted because it stopped answering health checks"
    );
    assert_eq!(echo.metadata["error_code"], "E_PLUGIN_CRASHED");
    let spun = spinning.await.unwrap();
    assert_eq!(
        spun.error_message,
        "tool spin failed: the runner was restarted because it stopped answering health checks"
    );
    let status = harness
        .wait_restarted("frozen", 1, Duration::from_secs(10))
        .await;
    assert!(
        status
            .last_exit_reason
            .as_deref()
            .is_some_and(|reason| reason.starts_with("runner hung: health check timed out twice")),
        "{status:?}"
    );
    harness.runtime.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_withdraws_a_tool_and_offers_it_again() {
    let harness = Harness::start(fast_config(), vec![RunnerSpec::new("avail", BIN)]).await;
    assert!(listed(&harness).await.contains(&"radar".to_owned()));
    let switched = harness
        .call(
            "radar_switch",
            json!({"online": false, "reason": "the radar is offline"}),
            &ctx(),
        )
        .await;
    assert_eq!(
        switched.content, "online=false changed=true",
        "{switched:?}"
    );

    let tools = listed(&harness).await;
    assert!(!tools.contains(&"radar".to_owned()), "{tools:?}");
    assert!(tools.contains(&"radar_switch".to_owned()), "{tools:?}");
    let refused = harness.call("radar", json!({}), &ctx()).await;
    assert!(!refused.success);
    assert_eq!(
        refused.error_message,
        "tool radar is unavailable: the radar is offline"
    );
    assert_eq!(refused.metadata["error_code"], "E_TOOL_UNAVAILABLE");
    // Saying it again changes nothing.
    let again = harness
        .call(
            "radar_switch",
            json!({"online": false, "reason": "the radar is offline"}),
            &ctx(),
        )
        .await;
    assert_eq!(again.content, "online=false changed=false", "{again:?}");

    let back = harness
        .call("radar_switch", json!({"online": true}), &ctx())
        .await;
    assert_eq!(back.content, "online=true changed=true", "{back:?}");
    assert!(listed(&harness).await.contains(&"radar".to_owned()));
    assert_eq!(
        harness.call("radar", json!({}), &ctx()).await.content,
        "3 contacts"
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withdrawn_tool_is_offered_again_after_a_restart() {
    let harness = Harness::start(fast_config(), vec![RunnerSpec::new("fresh", BIN)]).await;
    let switched = harness
        .call(
            "radar_switch",
            json!({"online": false, "reason": "down"}),
            &ctx(),
        )
        .await;
    assert!(switched.success, "{switched:?}");
    assert!(!listed(&harness).await.contains(&"radar".to_owned()));
    let pid = harness.runner("fresh").pid;
    harness.runtime.restart_runner("fresh").await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = harness.runner("fresh");
        if status.pid != pid && status.state == RunnerState::Ready {
            break;
        }
        assert!(Instant::now() < deadline, "no restart: {status:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(listed(&harness).await.contains(&"radar".to_owned()));
    assert_eq!(
        harness.call("radar", json!({}), &ctx()).await.content,
        "3 contacts"
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_result_carries_its_post_history_messages() {
    let harness = Harness::start(fast_config(), vec![RunnerSpec::new("history", BIN)]).await;
    let result = harness
        .call("remember", json!({"note": "water the plants"}), &ctx())
        .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "noted");
    assert_eq!(
        result.post_history_messages,
        vec![json!({
            "role": "user",
            "content": "[note] water the plants",
            "message_id": "note-call-1",
        })]
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook_logs_carry_the_plugin_id_and_a_panic_is_one_record() {
    let harness = Harness::start(
        fast_config(),
        vec![
            RunnerSpec::new("logs", BIN)
                .env("RUST_BACKTRACE", "1")
                .plugin(PLUGIN, PluginSettings::default()),
        ],
    )
    .await;
    let loading = logs::wait_for(
        &["runtime plugin loading", "runner=\"logs\""],
        Duration::from_secs(5),
    )
    .await
    .expect("on_load logged");
    assert!(
        loading.contains("plugin_id=\"examples.runtime\""),
        "{loading}"
    );

    // A configuration change reaches on_config_update, whose record is tagged too.
    let mut settings = PluginSettings::default();
    settings.config.insert("level".into(), json!(2));
    let runner = ResolvedRunner {
        plugins: [(PLUGIN.to_owned(), settings)].into(),
        env: [("RUST_BACKTRACE".to_owned(), "1".to_owned())].into(),
        ..ResolvedRunner::maitool("logs".to_owned(), maitool_e2e::workspace_bin(BIN))
    };
    let report = harness.runtime.apply(vec![runner]).await;
    assert_eq!(
        report.reconfigured,
        vec!["logs/examples.runtime".to_owned()],
        "{report:?}"
    );
    let updated = logs::wait_for(
        &["runtime plugin configuration updated", "runner=\"logs\""],
        Duration::from_secs(5),
    )
    .await
    .expect("on_config_update logged");
    assert!(
        updated.contains("plugin_id=\"examples.runtime\""),
        "{updated}"
    );

    let result = harness.call("panic_lines", json!({}), &ctx()).await;
    assert_eq!(
        result.error_message,
        "tool panic_lines panicked: first line of the panic\nsecond line of the panic"
    );
    let record = logs::wait_for(
        &["first line of the panic", "runner=\"logs\""],
        Duration::from_secs(5),
    )
    .await
    .expect("the panic is logged");
    // Give stray per-line records (Rust's default panic output on stderr) time to arrive.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mentions = log_lines("logs", "panic");
    let mentions: Vec<_> = mentions
        .iter()
        .filter(|line| !line.contains("runtime plugin"))
        .collect();
    assert_eq!(mentions.len(), 1, "{mentions:#?}");
    assert!(record.contains("second line of the panic"), "{record}");
    assert!(
        record.contains("plugin_id=\"examples.runtime\""),
        "{record}"
    );
    // RUST_BACKTRACE=1: the backtrace is a field of the record, not records of its own.
    assert!(record.contains("exception="), "{record}");
    assert!(log_lines("logs", "stream=\"stderr\"").is_empty());
    harness.stop().await;
}

/// A configuration of the runtime runner alone, built-ins off, plugin calls limited to 1 s.
fn one_shot_config() -> (tempfile::TempDir, maitool_e2e::cli::Maitool) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().display();
    let config = dir.path().join("maitool.toml");
    std::fs::write(
        &config,
        format!(
            "[host]\ncontrol_socket = \"{root}/control.sock\"\ndata_dir = \"{root}/data\"\n\
             enable_builtin = false\n\n\
             [plugin_runtime]\ndefault_tool_timeout_ms = 1000\nshutdown_grace_ms = 300\n\
             terminate_grace_ms = 200\n\n\
             [[runners]]\nname = \"runtime\"\nexecutable = \"{}\"\n",
            maitool_e2e::workspace_bin(BIN).display()
        ),
    )
    .unwrap();
    let cli = maitool_e2e::cli::Maitool::new(&config, &dir.path().join("control.sock"));
    (dir, cli)
}

#[test]
fn a_one_shot_call_prints_the_plugins_logs() {
    let (_dir, cli) = one_shot_config();
    let output = cli
        .command()
        .env("RUST_LOG", "info")
        .args(["call", "spin_blocking", "--args", r#"{"ms": 1}"#])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{err}");
    let line = err
        .lines()
        .find(|line| line.contains("spun 1 ms on the blocking pool"))
        .unwrap_or_else(|| panic!("no plugin record in:\n{err}"));
    assert!(line.contains("examples.runtime"), "{line}");
}

#[test]
fn a_timed_out_call_says_so_once() {
    let (_dir, cli) = one_shot_config();
    let (code, _, err) = cli.run(&["call", "spin", "--args", r#"{"ms": 1500}"#]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        err.lines().last(),
        Some("tool spin timed out after 1 s"),
        "{err}"
    );
}

#[test]
fn call_json_shows_post_history_messages() {
    let (_dir, cli) = one_shot_config();
    let result = cli.json(&[
        "call",
        "remember",
        "--args",
        r#"{"note": "later"}"#,
        "--json",
    ]);
    assert_eq!(result["content"], "noted", "{result}");
    assert_eq!(
        result["post_history_messages"][0]["content"], "[note] later",
        "{result}"
    );
    assert_eq!(
        result["post_history_messages"][0]["role"], "user",
        "{result}"
    );
}
