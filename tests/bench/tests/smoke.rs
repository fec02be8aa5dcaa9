//! Runs the whole benchmark in `--quick` mode: every section must work, every tracked key
//! must be in the JSON, and no process may outlive it. Nothing here judges speed.
//!
//! Needs the workspace binaries next to the benchmark (`cargo build --workspace --bins`),
//! like the other end-to-end tests.

use std::process::Command;

#[path = "../src/keys.rs"]
mod keys;

/// Tracked keys that are counts of failures (0 when all is well), or a difference of two
/// timings (the restart's overhead over the interpreter's start, which one quick sample of
/// each may put below zero): numbers, not necessarily positive.
const ANY_NUMBER: &[&str] = &[
    "calls_failed_during_restart",
    "maibot_runner_rejected_256",
    "maibot_host_rejected_256",
    "maibot_runner_calls_failed_not_ready",
    "maibot_runner_restart_overhead_ms",
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
        "== 7 maibot ==",
        "== 9 cluster ==",
    ] {
        assert!(
            stdout.contains(section),
            "{section} missing from the table:\n{stdout}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    // Without MaiBot's runner the benchmark skips its section loudly and leaves its keys null
    // (CI installs it and sets MAITOOL_REQUIRE_MAIBOT=1, which makes a missing runner an error).
    let maibot_skipped = json["meta"]["maibot_skipped"].is_string();
    if maibot_skipped {
        assert_ne!(
            std::env::var("MAITOOL_REQUIRE_MAIBOT").as_deref(),
            Ok("1"),
            "the maibot section was skipped: {}",
            json["meta"]["maibot_skipped"]
        );
        assert!(stdout.contains("== skipped =="), "{stdout}");
        eprintln!(
            "\n!!! the benchmark skipped its maibot section: {} !!!\n",
            json["meta"]["maibot_skipped"]
        );
    }
    // Without PostgreSQL (or HAProxy, for the balancer's key) the cluster section skips
    // loudly; CI sets MAITOOL_REQUIRE_POSTGRES=1 and MAITOOL_REQUIRE_BALANCER=1.
    let cluster_skipped = json["meta"]["cluster_skipped"].is_string();
    if cluster_skipped {
        for var in ["MAITOOL_REQUIRE_POSTGRES", "MAITOOL_REQUIRE_BALANCER"] {
            assert_ne!(
                std::env::var(var).as_deref(),
                Ok("1"),
                "the cluster section was skipped: {}",
                json["meta"]["cluster_skipped"]
            );
        }
        eprintln!(
            "\n!!! the benchmark skipped (part of) its cluster section: {} !!!\n",
            json["meta"]["cluster_skipped"]
        );
    }
    for key in keys::TRACKED
        .iter()
        .chain(keys::MAIBOT)
        .chain(keys::CLUSTER)
    {
        if cluster_skipped && keys::CLUSTER.contains(key) && json[key].is_null() {
            continue;
        }
        if maibot_skipped && key.starts_with("maibot_") {
            assert!(
                json[key].is_null(),
                "{key} of a skipped section: {}",
                json[key]
            );
            continue;
        }
        let wanted = if ANY_NUMBER.contains(key) {
            json[key].as_f64().is_some()
        } else {
            json[key].as_f64().is_some_and(|v| v > 0.0)
        };
        assert!(wanted, "{key} is not a positive number: {}", json[key]);
        assert!(
            json["targets"].get(*key).is_none() || json["targets"][key]["pass"].is_boolean(),
            "{key} has no verdict"
        );
    }
    assert_eq!(json["errors"], serde_json::json!([]));
    // The floor's frames are the captured real ones, but for the request id's width, the same
    // in both frames.
    let frames = &json["meta"]["frame_bytes"];
    let grown = |which: &str| {
        frames[which].as_i64().unwrap_or(-1) - frames["captured"][which].as_i64().unwrap_or(-100)
    };
    assert_eq!(grown("request"), grown("response"), "frame_bytes: {frames}");
    assert!((0..=8).contains(&grown("request")), "frame_bytes: {frames}");
    for key in ["floor_raw_p50_us", "floor_raw_pipelined_256_calls_s"] {
        assert!(
            json[key].as_f64().is_some_and(|v| v > 0.0),
            "{key} is not a positive number: {}",
            json[key]
        );
    }
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
