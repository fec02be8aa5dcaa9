//! Fixture of the hostile-input tests: the good runner every case checks, hostile runner
//! specs, the host's resident memory, and waiting for log lines.

#![allow(dead_code)] // Not every test uses every helper.

use std::time::Duration;

use maitool_e2e::logs;
use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_host::plugin::RuntimeConfig;
use maitool_protocol::ToolExecutionContext;
use serde_json::{Value, json};

/// A generous bound on what one hostile case may add to the host's resident memory.
pub const MEMORY_BOUND: u64 = 64 * 1024 * 1024;

/// Held by every test: `VmRSS` is the whole process's, so cases must not overlap.
pub static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A plain execution context.
pub fn ctx() -> ToolExecutionContext {
    ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        ..ToolExecutionContext::default()
    }
}

/// This process's resident memory, in bytes.
pub fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status");
    kib * 1024
}

/// Fails when the host's resident memory grew by [`MEMORY_BOUND`] or more since `before`.
pub fn assert_memory_bounded(before: u64, case: &str) {
    let after = rss_bytes();
    let grown = after.saturating_sub(before);
    eprintln!(
        "{case}: host VmRSS {} MiB -> {} MiB",
        before >> 20,
        after >> 20
    );
    assert!(
        grown < MEMORY_BOUND,
        "{case}: host memory grew by {} MiB (bound {} MiB)",
        grown >> 20,
        MEMORY_BOUND >> 20
    );
}

/// The good runner still answers, within a bounded time.
pub async fn assert_serving(harness: &Harness) {
    let sum = tokio::time::timeout(
        Duration::from_secs(10),
        harness.call("calculate", json!({"a": 1, "b": 2, "op": "add"}), &ctx()),
    )
    .await
    .expect("the good runner answers within 10 s");
    assert_eq!(sum.content, "3", "{sum:?}; warnings: {:#?}", warnings());
}

/// The captured warnings and errors, for failure messages.
pub fn warnings() -> Vec<String> {
    logs::lines()
        .into_iter()
        .filter(|l| l.starts_with("WARN") || l.starts_with("ERROR"))
        .map(|l| l.chars().take(400).collect())
        .collect()
}

/// The first captured line with every needle, waiting up to `limit`; fails with the log.
pub async fn expect_log(needles: &[&str], limit: Duration) -> String {
    match logs::wait_for(needles, limit).await {
        Some(line) => line,
        None => panic!("no log line with {needles:?}; log: {:#?}", logs::lines()),
    }
}

/// The good runner: the dice example, whose `calculate` every case calls.
pub fn good() -> RunnerSpec {
    RunnerSpec::new("good", "maitool-example-dice")
}

/// The misbehaving runner in `mode`.
pub fn hostile(name: &str, mode: &str) -> RunnerSpec {
    RunnerSpec::new(name, "maitool-example-misbehaving").env("MISBEHAVE", mode)
}

/// Fast supervision, no restarts (a hostile runner is run once), 1.5 s handshake limit.
pub fn no_restarts() -> RuntimeConfig {
    RuntimeConfig {
        max_restarts: 0,
        handshake_timeout_ms: 1500,
        ..fast_config()
    }
}

/// Polls the log for a line with every needle while checking, each round, that the good
/// runner still serves; `None` after `rounds` rounds of 250 ms.
pub async fn report_while_serving(
    harness: &Harness,
    needles: &[&str],
    rounds: usize,
) -> Option<String> {
    for _ in 0..rounds {
        assert_serving(harness).await;
        let report = logs::lines()
            .into_iter()
            .find(|l| needles.iter().all(|n| l.contains(n)));
        if report.is_some() {
            return report;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    None
}

/// Parses `KEY=N` out of a runner's report.
pub fn count_of(line: &str, key: &str) -> u64 {
    line.split_whitespace()
        .find_map(|word| word.strip_prefix(&format!("{key}=")))
        .and_then(|n| n.trim_matches(|c: char| !c.is_ascii_digit()).parse().ok())
        .unwrap_or(0)
}

/// `[[[...0...]]]`, `depth` arrays deep, built without recursion.
pub fn nested(depth: usize) -> Value {
    let mut value = Value::from(0);
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}
