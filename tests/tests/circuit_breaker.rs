//! The per-plugin circuit breaker through a real `maitool serve` and the semantics runner: a
//! flood of timeouts, fail-fast refusals, half-open probing, closing, metrics, the off switch,
//! a tool's own failures, and settings that cannot work.

mod ops_support;
mod semantics_support;

use std::time::{Duration, Instant};

use semantics_support::{Fixture, call, circuit, eventually};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_circuit_breaker_opens_on_a_flood_of_timeouts_fails_fast_probes_and_closes() {
    let fixture = Fixture::new(
        "circuit_failure_threshold = 3\ncircuit_cooldown_ms = 1500\ncircuit_max_cooldown_ms = 60000",
        "",
        "",
    );
    let _serve = fixture.serve();
    let client = fixture.client().await;

    // Floods of concurrent calls that all time out (300 ms). The calls of one flood fail
    // together, which is one failure: the runner may be stuck once, not twelve times.
    let flood = || {
        let client = &client;
        async move {
            let calls = (0..12).map(|_| call(client, "nap", json!({"ms": 2000})));
            for result in futures::future::join_all(calls).await {
                assert!(!result.success);
                assert_eq!(result.metadata["error_code"], "E_TIMEOUT", "{result:?}");
            }
        }
    };
    flood().await;
    let after_one = circuit(&fixture.plugin_status("examples.semantics"));
    assert_eq!(after_one["state"], "closed", "{after_one}");
    assert_eq!(after_one["consecutive_failures"], 1, "{after_one}");
    // The third flood opens it, once; its other eleven timeouts neither count nor reopen it.
    flood().await;
    flood().await;
    let open = circuit(&fixture.plugin_status("examples.semantics"));
    assert_eq!(open["state"], "open", "{open}");
    assert_eq!(open["consecutive_failures"], 3, "{open}");
    assert_eq!(open["opened_total"], 1, "{open}");
    assert_eq!(open["last_failure"], "tool nap timed out after 300 ms");
    assert!(open["retry_in_ms"].as_u64().unwrap() <= 1500, "{open}");
    assert!(open["next_probe_at_ms"].as_u64().unwrap() > 0, "{open}");

    // Every tool of the plugin fails at once, with the reason and when to retry; the other
    // plugin of the same runner is not affected.
    let started = Instant::now();
    let refused = call(&client, "whoami", json!({})).await;
    assert!(
        started.elapsed() < Duration::from_millis(300),
        "failed fast"
    );
    assert_eq!(
        refused.metadata["error_code"], "E_CIRCUIT_OPEN",
        "{refused:?}"
    );
    assert_eq!(refused.metadata["circuit_state"], "open");
    assert!(refused.metadata["retry_in_ms"].as_u64().unwrap() <= 1500);
    assert!(
        refused.error_message.starts_with(
            "tool whoami was not called: plugin examples.semantics's the circuit breaker is \
             open after 3 consecutive failures (last: tool nap timed out after 300 ms)"
        ),
        "{}",
        refused.error_message
    );
    let twin = call(&client, "plugin_examples_semantics_twin_whoami", json!({})).await;
    assert!(twin.success, "{twin:?}");
    let (_, text, _) = fixture.run(&["status"]);
    assert!(
        text.contains("circuit open: 3 failed call(s) in a row (last: tool nap timed out after 300 ms); next probe in"),
        "{text}"
    );
    let metrics = client.metrics().await.unwrap();
    assert!(
        metrics.contains(
            "maitool_plugin_circuit_state{runner=\"semantics\",plugin=\"examples.semantics\"} 2"
        ),
        "{metrics}"
    );

    // After the cool-down one probe goes through; while it runs, other calls still fail
    // fast. It times out: the circuit opens again, for twice as long.
    eventually("the cool-down to end", || {
        circuit(&fixture.plugin_status("examples.semantics"))["state"] == "half_open"
    });
    let probe = {
        let client = fixture.client().await;
        tokio::spawn(async move { call(&client, "nap", json!({"ms": 2000})).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let busy = call(&client, "whoami", json!({})).await;
    assert_eq!(busy.metadata["error_code"], "E_CIRCUIT_OPEN", "{busy:?}");
    assert_eq!(busy.metadata["circuit_state"], "half_open");
    assert!(
        busy.error_message.contains("a probe call is in flight"),
        "{busy:?}"
    );
    let probe = probe.await.unwrap();
    assert_eq!(probe.metadata["error_code"], "E_TIMEOUT", "{probe:?}");
    let reopened = circuit(&fixture.plugin_status("examples.semantics"));
    assert_eq!(
        (reopened["state"].clone(), reopened["opened_total"].clone()),
        (json!("open"), json!(2))
    );
    assert!(
        reopened["retry_in_ms"].as_u64().unwrap() > 1500,
        "doubled: {reopened}"
    );

    // The next probe succeeds: closed, and every tool is called again.
    eventually("the second cool-down to end", || {
        circuit(&fixture.plugin_status("examples.semantics"))["state"] == "half_open"
    });
    let probe = call(&client, "nap", json!({"ms": 0})).await;
    assert!(probe.success, "{probe:?}");
    let closed = circuit(&fixture.plugin_status("examples.semantics"));
    assert_eq!(closed["state"], "closed", "{closed}");
    assert_eq!(closed["consecutive_failures"], 0);
    assert!(call(&client, "whoami", json!({})).await.success);
    let metrics = client.metrics().await.unwrap();
    assert!(
        metrics.contains(
            "maitool_plugin_circuit_opened_total{runner=\"semantics\",plugin=\"examples.semantics\"} 2"
        ),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tools_own_failures_never_open_the_circuit_and_the_breaker_can_be_turned_off() {
    for (runtime, trips) in [
        ("circuit_failure_threshold = 2", true),
        (
            "circuit_breaker = false\ncircuit_failure_threshold = 2",
            false,
        ),
    ] {
        let fixture = Fixture::new(runtime, "", "");
        let _serve = fixture.serve();
        let client = fixture.client().await;
        // Failed results are answers: the plugin works, it said no.
        for _ in 0..5 {
            let declined = call(&client, "decline", json!({})).await;
            assert_eq!(
                (declined.success, declined.error_message.as_str()),
                (false, "declined")
            );
        }
        assert!(call(&client, "whoami", json!({})).await.success);
        assert!(circuit(&fixture.plugin_status("examples.semantics")).is_null());
        for _ in 0..2 {
            let timed_out = call(&client, "nap", json!({"ms": 2000})).await;
            assert_eq!(timed_out.metadata["error_code"], "E_TIMEOUT");
        }
        let after = call(&client, "whoami", json!({})).await;
        assert_eq!(!after.success, trips, "{runtime}: {after:?}");
        let circuit = circuit(&fixture.plugin_status("examples.semantics"));
        if trips {
            assert_eq!(circuit["state"], "open", "{circuit}");
        } else {
            assert!(circuit.is_null(), "off: no circuit in status: {circuit}");
        }
    }
}

#[test]
fn bad_circuit_settings_are_configuration_errors() {
    for (runtime, problem) in [
        (
            "circuit_failure_threshold = 0",
            "plugin_runtime.circuit_failure_threshold must be greater than 0",
        ),
        (
            "circuit_cooldown_ms = 0",
            "plugin_runtime.circuit_cooldown_ms must be greater than 0",
        ),
        (
            "circuit_cooldown_ms = 5000\ncircuit_max_cooldown_ms = 1000",
            "plugin_runtime.circuit_max_cooldown_ms must be >= circuit_cooldown_ms",
        ),
    ] {
        let fixture = Fixture::new(runtime, "", "");
        let (code, _, err) = fixture.run(&["status"]);
        assert_eq!(code, 2, "{runtime}: {err}");
        assert!(err.contains(problem), "{runtime}: {err}");
    }
}
