use serde_json::Value;

use super::{Report, Target};

#[test]
fn targets_are_judged_and_every_key_reaches_the_json() {
    let mut report = Report::default();
    report.check(
        "invoke",
        "invoke_p50_ratio",
        "p50 ratio",
        1.1,
        "x",
        Target::AtMost(1.3),
    );
    report.check(
        "memory",
        "runner_idle_rss_kib",
        "runner",
        6000.0,
        "KiB",
        Target::Below(5120.0),
    );
    report.add("floor", "floor_p50_us", "floor p50", 20.0, "us");
    report.absent("mcp", &["mcp_overhead_ratio", "floor_p50_us"]);

    let json = report.json();
    assert_eq!(json["invoke_p50_ratio"], 1.1);
    assert_eq!(json["floor_p50_us"], 20.0);
    assert_eq!(json["mcp_overhead_ratio"], Value::Null);
    assert_eq!(json["targets"]["invoke_p50_ratio"]["pass"], true);
    assert_eq!(json["targets"]["runner_idle_rss_kib"]["pass"], false);
    assert_eq!(report.misses(), vec!["runner_idle_rss_kib"]);

    let table = report.table();
    assert!(table.contains("== invoke =="), "{table}");
    assert!(table.contains("MISS"), "{table}");
    assert!(table.contains("PASS"), "{table}");
}

#[test]
fn a_failed_section_is_reported_and_flagged() {
    let mut report = Report::default();
    report.error("mcp", &anyhow::anyhow!("server missing"));
    assert!(report.has_errors());
    assert_eq!(report.json()["errors"][0], "mcp: server missing");
    assert!(report.table().contains("mcp: server missing"));
}

#[test]
fn a_skipped_section_is_printed_and_is_no_failure() {
    let mut report = Report::default();
    report.skip("7 maibot", "MaiBot's runner is not installed");
    report.absent("7 maibot", &["maibot_runner_restart_ms"]);
    assert!(!report.has_errors());
    assert_eq!(report.json()["maibot_runner_restart_ms"], Value::Null);
    let table = report.table();
    assert!(table.contains("== 7 maibot =="), "{table}");
    assert!(
        table.contains("== skipped ==\n  7 maibot: MaiBot's runner is not installed"),
        "{table}"
    );
}
