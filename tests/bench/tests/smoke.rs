//! Runs the whole benchmark in `--quick` mode: every section must work, every tracked key
//! must be in the JSON, and no process may outlive it. Nothing here judges speed.
//!
//! Needs the workspace binaries next to the benchmark (`cargo build --workspace --bins`),
//! like the other end-to-end tests.

use std::process::Command;

const TRACKED: &[&str] = &[
    "invoke_p50_ratio",
    "invoke_p99_ratio",
    "throughput_256_ratio",
    "restart_ms_median",
    "cold_start_10_runners_ms",
    "list_10k_tools_ms",
    "route_cost_ratio_10k_vs_1",
    "runner_idle_rss_kib",
    "host_10_runners_rss_kib",
    "mcp_overhead_ratio",
];

/// Live (non-zombie) processes whose parent is this test process.
fn our_children() -> Vec<String> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter(|stat| {
            let rest = &stat[stat.rfind(')').map(|i| i + 1).unwrap_or(0)..];
            let mut fields = rest.split_whitespace();
            let state = fields.next().unwrap_or("Z");
            fields.next() == Some(me.as_str()) && state != "Z"
        })
        .collect()
}

#[test]
fn a_quick_run_reports_every_tracked_figure_and_leaves_no_process_behind() {
    // As subreaper, any process the benchmark leaves behind would become our child.
    nix::sys::prctl::set_child_subreaper(true).expect("subreaper");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bench.json");
    let output = Command::new(env!("CARGO_BIN_EXE_maitool-bench"))
        .args(["--quick", "--no-build", "--timeout-secs", "240", "--out"])
        .arg(&out)
        .output()
        .expect("the benchmark runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "benchmark failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    for section in [
        "== 1 floor ==",
        "== 2 invoke ==",
        "== 3 restart ==",
        "== 4 scale ==",
        "== 5 memory ==",
        "== 6 mcp ==",
    ] {
        assert!(
            stdout.contains(section),
            "{section} missing from the table:\n{stdout}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    for key in TRACKED {
        assert!(
            json[key].as_f64().is_some_and(|v| v > 0.0),
            "{key} is not a positive number: {}",
            json[key]
        );
        assert!(
            json["targets"].get(*key).is_none() || json["targets"][key]["pass"].is_boolean(),
            "{key} has no verdict"
        );
    }
    assert_eq!(json["errors"], serde_json::json!([]));
    // Which build was measured: the benchmark's host library, and the binary it ran.
    let features = json["meta"]["host_features"].as_str().unwrap_or_default();
    assert!(features.contains("cli"), "host_features: {features:?}");
    let version = json["meta"]["maitool_version"].as_str().unwrap_or_default();
    assert!(
        version.starts_with("maitool ") && version.contains("(features: cli"),
        "maitool_version: {version:?}"
    );
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(
        our_children(),
        Vec::<String>::new(),
        "processes outlived the benchmark"
    );
}
