//! The figures of a chaos run: what is printed, and what the test asserts on them.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use maitool_e2e::logs;
use maitool_host::mcp_client::McpServerStatus;
use maitool_host::plugin::RunnerStatus;

use super::monkey::{ChaosReport, HUNG_RUNNER};
use super::plan::Class;
use super::tally::Tally;
use super::{LATE_MARGIN, Settings};

/// The last 40 captured log lines other than the per-call failures, which would drown them.
pub fn log_tail() -> Vec<String> {
    let lines: Vec<String> = logs::lines()
        .into_iter()
        .filter(|l| !l.contains("tool reported a failure"))
        .collect();
    lines[lines.len().saturating_sub(40)..].to_vec()
}

/// The exit reasons the supervisor logged, grouped.
pub fn exit_reasons() -> BTreeMap<String, u64> {
    let mut reasons = BTreeMap::new();
    for line in logs::lines() {
        let Some(start) = line.find("runner exited (") else {
            continue;
        };
        let rest = &line[start + "runner exited (".len()..];
        let reason = rest.split("); restarting").next().unwrap_or(rest);
        let runner = line
            .split("runner=")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or("?");
        let group = if reason.starts_with("runner hung") {
            format!("runner hung ({runner})")
        } else {
            reason.split(" (").next().unwrap_or(reason).to_owned()
        };
        *reasons.entry(group).or_default() += 1;
    }
    reasons
}

/// Prints the figures of the run.
pub fn print_report(
    settings: &Settings,
    tally: &mut Tally,
    report: &ChaosReport,
    (elapsed, pids_seen): (Duration, usize),
    statuses: &[RunnerStatus],
    mcp_statuses: &[McpServerStatus],
) {
    let restarts: u32 = statuses.iter().map(|s| s.restart_count).sum();
    eprintln!(
        "chaos: {} calls in {elapsed:.2?} ({:.0} calls/s), seed {:#x}",
        settings.calls,
        settings.calls as f64 / elapsed.as_secs_f64(),
        settings.seed
    );
    for class in Class::ALL {
        eprintln!("  {:<12} {}", class.label(), tally.count(class));
    }
    eprintln!(
        "  lost {} / late {} / unacceptable {}",
        tally.lost, tally.late, tally.violation_count
    );
    eprintln!(
        "  latency p50 {:.1?} p99 {:.1?} max {:.1?}",
        tally.quantile(0.5),
        tally.quantile(0.99),
        tally.quantile(1.0)
    );
    eprintln!(
        "  furthest past its limit: {:.1?} (late past {LATE_MARGIN:?})",
        tally.max_overshoot
    );
    if let Some((latency, index, tool, outcome)) = &tally.slowest {
        eprintln!("  slowest: call {index} {tool} {latency:.1?}: {outcome}");
    }
    eprintln!(
        "  runner SIGKILLs {} (per runner {:?}), restarts in status {restarts}",
        report.kill_count(),
        report
            .kills
            .iter()
            .map(|(name, pids)| (name.as_str(), pids.len()))
            .collect::<Vec<_>>()
    );
    for status in statuses {
        eprintln!(
            "    {:<12} restarts {:>3} last exit {:?}",
            status.name, status.restart_count, status.last_exit_reason
        );
    }
    eprintln!("  exit reasons logged: {:?}", exit_reasons());
    if let Some(hang) = &report.hang {
        eprintln!(
            "  hang: pid {:?}, {} attempt(s); call ended after {:.1?} with {:?}; replaced after {:.1?}: {:?}",
            hang.pid,
            hang.attempts,
            hang.call_latency,
            hang.result.error_message,
            hang.replaced_after,
            hang.exit_reason
        );
    }
    for status in mcp_statuses {
        eprintln!(
            "  MCP {:<4} reconnects {} state {:?} last error {:?}",
            status.name, status.reconnect_count, status.state, status.last_error
        );
    }
    eprintln!(
        "  MCP stdio SIGKILLs {}, HTTP restarts {}; processes seen {}",
        report.stdio_kills.len(),
        report.web_restarts,
        pids_seen
    );
    for (tool, classes) in &tally.by_tool {
        let counts: Vec<String> = classes
            .iter()
            .map(|(class, count)| format!("{} {count}", class.label()))
            .collect();
        eprintln!("    {tool:<18} {}", counts.join(", "));
    }
    for violation in &tally.violations {
        eprintln!("  ! {violation}");
    }
}

/// Adds to `failures` whatever the figures show went wrong. `seen` counts the results of
/// each call.
pub fn check(
    seen: &[AtomicU8],
    tally: &Tally,
    report: &ChaosReport,
    statuses: &[RunnerStatus],
    mcp_statuses: &[McpServerStatus],
    failures: &mut Vec<String>,
) {
    let calls = seen.len() as u64;
    let not_once: Vec<usize> = seen
        .iter()
        .enumerate()
        .filter(|(_, seen)| seen.load(Ordering::SeqCst) != 1)
        .map(|(index, _)| index)
        .take(10)
        .collect();
    if !not_once.is_empty() {
        failures.push(format!("calls without exactly one result: {not_once:?}"));
    }
    if tally.latencies_us.len() as u64 != calls {
        failures.push(format!(
            "{} outcomes recorded for {calls} calls",
            tally.latencies_us.len()
        ));
    }
    if tally.violation_count > 0 {
        failures.push(format!(
            "{} unacceptable outcomes (lost {}, late {}), first: {:#?}",
            tally.violation_count, tally.lost, tally.late, tally.violations
        ));
    }
    if tally.count(Class::Success) == 0 {
        failures.push("no call succeeded".into());
    }
    if report.kill_count() == 0 {
        failures.push("the monkey killed no runner".into());
    }
    // Exactly: a restart the monkey did not cause (a health check that killed a healthy
    // runner under load, a handshake that timed out) is a fault of the host.
    let hung_runner_replaced = report
        .hang
        .as_ref()
        .is_some_and(|hang| hang.replaced_after.is_some());
    for status in statuses {
        let killed = report.kills.get(&status.name).map_or(0, |pids| pids.len());
        let hung = usize::from(status.name == HUNG_RUNNER && hung_runner_replaced);
        if status.restart_count as usize != killed + hung {
            failures.push(format!(
                "runner {} restarted {} times after {killed} SIGKILLs{}; last exit {:?}",
                status.name,
                status.restart_count,
                if hung == 1 { " and a hang" } else { "" },
                status.last_exit_reason
            ));
        }
    }
    match &report.hang {
        None => failures.push("the hang never happened".into()),
        Some(hang) => {
            let detected = hang
                .exit_reason
                .as_deref()
                .is_some_and(|r| r.contains("runner hung: health check timed out twice"));
            if hang.replaced_after.is_none() || !detected {
                failures.push(format!(
                    "the hung runner was not detected and replaced: {hang:?}"
                ));
            }
        }
    }
    // Each SIGKILL of the stdio server ends its session: the host must reconnect. The HTTP
    // server speaks the sessionless 2026-07-28 era, so its restart needs a reconnect only
    // when a health check fell into the gap; the probes showed it serves again either way.
    let stdio = mcp_statuses.iter().find(|s| s.name == "mcp");
    if stdio.is_none_or(|s| s.reconnect_count < report.stdio_kills.len() as u64) {
        failures.push(format!(
            "the stdio MCP server reconnected fewer times than its {} SIGKILLs: {stdio:?}",
            report.stdio_kills.len()
        ));
    }
    if report.web_restarts == 0 {
        failures.push("the HTTP MCP server was never restarted".into());
    }
}
