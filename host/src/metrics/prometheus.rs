//! The Prometheus text exposition format (version 0.0.4) of the host's metrics.
//!
//! Tool latencies are a `summary` (p50, p90, p99 with `_sum` and `_count`): the histogram's
//! fine buckets would make hundreds of series per tool as a Prometheus `histogram`.

use std::fmt::Write as _;

use crate::circuit::CircuitState;
use crate::mcp_client::{McpServerState, McpServerStatus};
use crate::plugin::{PluginLoadState, RunnerState, RunnerStatus};

use super::tools::{CallTotals, ToolCallStats};

/// The `Content-Type` of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// What one exposition covers.
#[derive(Debug, Clone, Copy)]
pub struct Exposition<'a> {
    /// Per-tool statistics.
    pub tools: &'a [ToolCallStats],
    /// Registry totals.
    pub totals: &'a CallTotals,
    /// Plugin runners.
    pub runners: &'a [RunnerStatus],
    /// MCP servers.
    pub mcp_servers: &'a [McpServerStatus],
}

/// Renders the exposition.
pub fn render(exposition: &Exposition<'_>) -> String {
    let mut out = String::with_capacity(256 + exposition.tools.len() * 600);
    let tools = exposition.tools;
    let tool_labels = |stats: &ToolCallStats| {
        format!(
            "provider=\"{}\",tool=\"{}\"",
            escape(&stats.provider),
            escape(&stats.tool)
        )
    };

    family(
        &mut out,
        "maitool_tool_calls_total",
        "counter",
        "Tool calls routed to a provider.",
    );
    for stats in tools {
        sample(
            &mut out,
            "maitool_tool_calls_total",
            &tool_labels(stats),
            stats.calls as f64,
        );
    }
    family(
        &mut out,
        "maitool_tool_failures_total",
        "counter",
        "Tool calls that returned a failed result, timeouts included.",
    );
    for stats in tools {
        sample(
            &mut out,
            "maitool_tool_failures_total",
            &tool_labels(stats),
            stats.failures as f64,
        );
    }
    family(
        &mut out,
        "maitool_tool_timeouts_total",
        "counter",
        "Tool calls that timed out.",
    );
    for stats in tools {
        sample(
            &mut out,
            "maitool_tool_timeouts_total",
            &tool_labels(stats),
            stats.timeouts as f64,
        );
    }
    family(
        &mut out,
        "maitool_tool_call_duration_seconds",
        "summary",
        "Tool call latency, from the registry to the result.",
    );
    for stats in tools {
        let labels = tool_labels(stats);
        let latency = &stats.latency;
        for (quantile, millis) in [
            ("0.5", latency.p50_ms),
            ("0.9", latency.p90_ms),
            ("0.99", latency.p99_ms),
        ] {
            sample(
                &mut out,
                "maitool_tool_call_duration_seconds",
                &format!("{labels},quantile=\"{quantile}\""),
                millis / 1000.0,
            );
        }
        sample(
            &mut out,
            "maitool_tool_call_duration_seconds_sum",
            &labels,
            latency.sum_seconds,
        );
        sample(
            &mut out,
            "maitool_tool_call_duration_seconds_count",
            &labels,
            stats.calls as f64,
        );
    }
    family(
        &mut out,
        "maitool_unrouted_calls_total",
        "counter",
        "Calls of tools no provider had.",
    );
    sample(
        &mut out,
        "maitool_unrouted_calls_total",
        "",
        exposition.totals.unrouted as f64,
    );
    family(
        &mut out,
        "maitool_uptime_seconds",
        "gauge",
        "Seconds since the tool registry was created.",
    );
    sample(
        &mut out,
        "maitool_uptime_seconds",
        "",
        exposition.totals.uptime_seconds,
    );

    let runner_label = |runner: &RunnerStatus| format!("runner=\"{}\"", escape(&runner.name));
    family(
        &mut out,
        "maitool_runner_up",
        "gauge",
        "1 when the plugin runner is ready.",
    );
    for runner in exposition.runners {
        sample(
            &mut out,
            "maitool_runner_up",
            &runner_label(runner),
            f64::from(u8::from(runner.state == RunnerState::Ready)),
        );
    }
    family(
        &mut out,
        "maitool_runner_restarts_total",
        "counter",
        "Restarts of the plugin runner since the host started.",
    );
    for runner in exposition.runners {
        sample(
            &mut out,
            "maitool_runner_restarts_total",
            &runner_label(runner),
            f64::from(runner.restart_count),
        );
    }
    family(
        &mut out,
        "maitool_plugin_loaded",
        "gauge",
        "1 when the plugin is loaded.",
    );
    for runner in exposition.runners {
        for plugin in &runner.plugins {
            let labels = format!("{},plugin=\"{}\"", runner_label(runner), escape(&plugin.id));
            sample(
                &mut out,
                "maitool_plugin_loaded",
                &labels,
                f64::from(u8::from(plugin.state == PluginLoadState::Loaded)),
            );
        }
    }

    circuit_families(&mut out, exposition.runners);

    let server_label = |server: &McpServerStatus| format!("server=\"{}\"", escape(&server.name));
    family(
        &mut out,
        "maitool_mcp_server_up",
        "gauge",
        "1 when the MCP server is connected.",
    );
    for server in exposition.mcp_servers {
        let up = server.state == McpServerState::Connected;
        sample(
            &mut out,
            "maitool_mcp_server_up",
            &server_label(server),
            f64::from(u8::from(up)),
        );
    }
    family(
        &mut out,
        "maitool_mcp_server_reconnects_total",
        "counter",
        "Successful reconnections of the MCP server.",
    );
    for server in exposition.mcp_servers {
        sample(
            &mut out,
            "maitool_mcp_server_reconnects_total",
            &server_label(server),
            server.reconnect_count as f64,
        );
    }
    family(
        &mut out,
        "maitool_mcp_server_tools",
        "gauge",
        "Tools of the MCP server that are exposed.",
    );
    for server in exposition.mcp_servers {
        sample(
            &mut out,
            "maitool_mcp_server_tools",
            &server_label(server),
            server.exposed_tool_count as f64,
        );
    }
    out
}

/// Each plugin's circuit breaker: its state, and how often it opened and refused a call.
fn circuit_families(out: &mut String, runners: &[RunnerStatus]) {
    let plugins = || {
        runners.iter().flat_map(|runner| {
            runner.plugins.iter().map(move |plugin| {
                let labels = format!(
                    "runner=\"{}\",plugin=\"{}\"",
                    escape(&runner.name),
                    escape(&plugin.id)
                );
                (labels, plugin.circuit.as_ref())
            })
        })
    };
    family(
        out,
        "maitool_plugin_circuit_state",
        "gauge",
        "The plugin's circuit breaker: 0 closed, 1 half-open (probing), 2 open (calls fail at once).",
    );
    for (labels, circuit) in plugins() {
        let state = match circuit.map(|c| c.state) {
            None | Some(CircuitState::Closed) => 0.0,
            Some(CircuitState::HalfOpen) => 1.0,
            Some(CircuitState::Open) => 2.0,
        };
        sample(out, "maitool_plugin_circuit_state", &labels, state);
    }
    family(
        out,
        "maitool_plugin_circuit_opened_total",
        "counter",
        "Times the plugin's circuit breaker opened.",
    );
    for (labels, circuit) in plugins() {
        let opened = circuit.map_or(0, |c| c.opened_total);
        sample(
            out,
            "maitool_plugin_circuit_opened_total",
            &labels,
            opened as f64,
        );
    }
    family(
        out,
        "maitool_plugin_circuit_rejected_total",
        "counter",
        "Calls the plugin's circuit breaker refused.",
    );
    for (labels, circuit) in plugins() {
        let rejected = circuit.map_or(0, |c| c.rejected_total);
        sample(
            out,
            "maitool_plugin_circuit_rejected_total",
            &labels,
            rejected as f64,
        );
    }
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

fn sample(out: &mut String, name: &str, labels: &str, value: f64) {
    if labels.is_empty() {
        let _ = writeln!(out, "{name} {value}");
    } else {
        let _ = writeln!(out, "{name}{{{labels}}} {value}");
    }
}

/// Label values escape `\`, `"` and line feeds.
fn escape(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            '"' => escaped.push_str("\\\""),
            '\n' => escaped.push_str("\\n"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests;
