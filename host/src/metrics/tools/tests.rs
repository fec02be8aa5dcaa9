use std::sync::Arc;
use std::time::Duration;

use maitool_protocol::ToolExecutionResult;

use super::{CallOutcome, ToolMetrics};

#[test]
fn outcomes_follow_success_and_the_timeout_tags_of_plugins_and_mcp() {
    assert_eq!(
        CallOutcome::of(&ToolExecutionResult::success("t", "ok")),
        CallOutcome::Success
    );
    assert_eq!(
        CallOutcome::of(&ToolExecutionResult::failure("t", "no")),
        CallOutcome::Failure
    );
    let plugin = ToolExecutionResult::failure("t", "late").with_metadata("error_code", "E_TIMEOUT");
    assert_eq!(CallOutcome::of(&plugin), CallOutcome::Timeout);
    let mcp = ToolExecutionResult::failure("t", "late").with_metadata("error_kind", "timeout");
    assert_eq!(CallOutcome::of(&mcp), CallOutcome::Timeout);
    let other =
        ToolExecutionResult::failure("t", "gone").with_metadata("error_code", "E_PLUGIN_CRASHED");
    assert_eq!(CallOutcome::of(&other), CallOutcome::Failure);
    // A successful result is a success whatever its metadata says.
    let odd = ToolExecutionResult::success("t", "ok").with_metadata("error_kind", "timeout");
    assert_eq!(CallOutcome::of(&odd), CallOutcome::Success);
}

#[test]
fn counts_are_kept_per_provider_and_tool_and_add_up_in_the_totals() {
    let metrics = ToolMetrics::new();
    let (plugins, mcp): (Arc<str>, Arc<str>) = (Arc::from("plugin_runtime"), Arc::from("mcp"));
    for millis in [10, 20, 30] {
        metrics.record(
            &plugins,
            "roll",
            CallOutcome::Success,
            Duration::from_millis(millis),
        );
    }
    metrics.record(
        &plugins,
        "roll",
        CallOutcome::Failure,
        Duration::from_millis(40),
    );
    metrics.record(
        &plugins,
        "slow",
        CallOutcome::Timeout,
        Duration::from_millis(500),
    );
    metrics.record(&mcp, "roll", CallOutcome::Success, Duration::from_millis(5));
    metrics.record_unrouted();

    let stats = metrics.snapshot();
    let keys: Vec<(&str, &str)> = stats
        .iter()
        .map(|s| (s.provider.as_str(), s.tool.as_str()))
        .collect();
    assert_eq!(
        keys,
        [
            ("mcp", "roll"),
            ("plugin_runtime", "roll"),
            ("plugin_runtime", "slow")
        ]
    );
    let roll = &stats[1];
    assert_eq!((roll.calls, roll.failures, roll.timeouts), (4, 1, 0));
    assert!(
        (roll.latency.mean_ms - 25.0).abs() < 1e-9,
        "{:?}",
        roll.latency
    );
    assert!(
        (20.0..=20.0 * 17.0 / 16.0).contains(&roll.latency.p50_ms),
        "{:?}",
        roll.latency
    );
    assert_eq!(roll.latency.max_ms, 40.0);
    assert!((roll.latency.sum_seconds - 0.1).abs() < 1e-9);
    let slow = &stats[2];
    assert_eq!((slow.calls, slow.failures, slow.timeouts), (1, 1, 1));

    let totals = metrics.totals();
    assert_eq!(
        (
            totals.calls,
            totals.failures,
            totals.timeouts,
            totals.unrouted
        ),
        (6, 2, 1, 1)
    );
}

#[test]
fn concurrent_first_calls_of_a_tool_share_one_entry() {
    let metrics = Arc::new(ToolMetrics::new());
    let provider: Arc<str> = Arc::from("p");
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (metrics, provider) = (metrics.clone(), provider.clone());
            std::thread::spawn(move || {
                for _ in 0..1000 {
                    metrics.record(
                        &provider,
                        "t",
                        CallOutcome::Success,
                        Duration::from_micros(50),
                    );
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let stats = metrics.snapshot();
    assert_eq!(stats.len(), 1);
    assert_eq!(stats[0].calls, 4000);
}
