use crate::circuit::{CircuitState, CircuitStatus};
use crate::mcp_client::{McpServerState, McpServerStatus, McpTransport};
use crate::metrics::tools::{CallTotals, LatencySummary, ToolCallStats};
use crate::plugin::{PluginLoadState, PluginStatus, RunnerState, RunnerStatus};

use super::{Exposition, render};

fn runner(name: &str, state: RunnerState, restarts: u32) -> RunnerStatus {
    RunnerStatus {
        uptime_seconds: None,
        name: name.into(),
        executable: "/bin/true".into(),
        pid: None,
        state,
        restart_count: restarts,
        last_exit_reason: None,
        environment: None,
        sandbox: None,
        plugins: vec![PluginStatus {
            id: format!("examples.{name}"),
            version: "1.0.0".into(),
            state: PluginLoadState::Loaded,
            reason: None,
            components: Vec::new(),
            declared_capabilities: Vec::new(),
            granted_capabilities: Vec::new(),
            grant_declared: false,
            unserved_capabilities: Vec::new(),
            circuit: None,
        }],
    }
}

fn server(name: &str, state: McpServerState) -> McpServerStatus {
    McpServerStatus {
        name: name.into(),
        transport: McpTransport::Stdio,
        state,
        protocol_version: None,
        server_name: None,
        server_version: None,
        tool_count: 3,
        exposed_tool_count: 2,
        last_error: None,
        reconnect_count: 1,
        pid: None,
        schema_errors: Vec::new(),
    }
}

/// Every sample line as (name, labels, value); panics on a line that is not valid text format.
fn samples(text: &str) -> Vec<(String, String, f64)> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let (series, value) = line
                .rsplit_once(' ')
                .unwrap_or_else(|| panic!("no value: {line}"));
            let value: f64 = value
                .parse()
                .unwrap_or_else(|_| panic!("bad value: {line}"));
            let (name, labels) = match series.split_once('{') {
                Some((name, rest)) => (
                    name,
                    rest.strip_suffix('}')
                        .unwrap_or_else(|| panic!("unclosed labels: {line}")),
                ),
                None => (series, ""),
            };
            assert!(
                name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "bad metric name: {line}"
            );
            (name.to_owned(), labels.to_owned(), value)
        })
        .collect()
}

#[test]
fn the_exposition_has_typed_families_and_one_sample_per_series() {
    let tools = [ToolCallStats {
        tool: "roll_dice".into(),
        provider: "plugin_runtime".into(),
        calls: 5,
        failures: 2,
        timeouts: 1,
        latency: LatencySummary {
            p50_ms: 12.0,
            p90_ms: 40.0,
            p99_ms: 80.0,
            max_ms: 81.0,
            mean_ms: 20.0,
            sum_seconds: 0.1,
        },
    }];
    let totals = CallTotals {
        unrouted: 3,
        uptime_seconds: 9.5,
        ..CallTotals::default()
    };
    let mut hung = runner("hung", RunnerState::Restarting, 4);
    hung.plugins[0].circuit = Some(CircuitStatus {
        state: CircuitState::Open,
        consecutive_failures: 5,
        last_failure: Some("tool t timed out after 1 s".into()),
        retry_in_ms: Some(9000),
        next_probe_at_ms: Some(1),
        next_cooldown_ms: 20_000,
        opened_total: 2,
        rejected_total: 7,
    });
    let runners = [runner("dice", RunnerState::Ready, 0), hung];
    let servers = [server("example", McpServerState::Connected)];
    let text = render(&Exposition {
        tools: &tools,
        totals: &totals,
        runners: &runners,
        mcp_servers: &servers,
    });
    let samples = samples(&text);
    let find = |name: &str, labels: &str| {
        samples
            .iter()
            .find(|(n, l, _)| n == name && l == labels)
            .map(|(_, _, v)| *v)
            .unwrap_or_else(|| panic!("no {name}{{{labels}}} in\n{text}"))
    };
    let tool = r#"provider="plugin_runtime",tool="roll_dice""#;
    assert_eq!(find("maitool_tool_calls_total", tool), 5.0);
    assert_eq!(find("maitool_tool_failures_total", tool), 2.0);
    assert_eq!(find("maitool_tool_timeouts_total", tool), 1.0);
    assert_eq!(
        find(
            "maitool_tool_call_duration_seconds",
            &format!("{tool},quantile=\"0.99\"")
        ),
        0.08
    );
    assert_eq!(find("maitool_tool_call_duration_seconds_count", tool), 5.0);
    assert_eq!(find("maitool_tool_call_duration_seconds_sum", tool), 0.1);
    assert_eq!(find("maitool_unrouted_calls_total", ""), 3.0);
    assert_eq!(find("maitool_runner_up", r#"runner="dice""#), 1.0);
    assert_eq!(find("maitool_runner_up", r#"runner="hung""#), 0.0);
    assert_eq!(
        find("maitool_runner_restarts_total", r#"runner="hung""#),
        4.0
    );
    assert_eq!(
        find(
            "maitool_plugin_loaded",
            r#"runner="dice",plugin="examples.dice""#
        ),
        1.0
    );
    let hung = r#"runner="hung",plugin="examples.hung""#;
    let dice = r#"runner="dice",plugin="examples.dice""#;
    assert_eq!(find("maitool_plugin_circuit_state", hung), 2.0);
    assert_eq!(find("maitool_plugin_circuit_state", dice), 0.0);
    assert_eq!(find("maitool_plugin_circuit_opened_total", hung), 2.0);
    assert_eq!(find("maitool_plugin_circuit_rejected_total", hung), 7.0);
    assert_eq!(find("maitool_plugin_circuit_rejected_total", dice), 0.0);
    assert_eq!(find("maitool_mcp_server_up", r#"server="example""#), 1.0);
    assert_eq!(
        find("maitool_mcp_server_reconnects_total", r#"server="example""#),
        1.0
    );

    // Every family is declared once with HELP and TYPE before its samples.
    for (name, _, _) in &samples {
        let family = ["_sum", "_count"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix))
            .unwrap_or(name);
        let family = if text.contains(&format!("# TYPE {family} ")) {
            family
        } else {
            name
        };
        assert_eq!(
            text.matches(&format!("# TYPE {family} ")).count(),
            1,
            "{family}"
        );
        assert_eq!(
            text.matches(&format!("# HELP {family} ")).count(),
            1,
            "{family}"
        );
    }
}

#[test]
fn label_values_are_escaped() {
    let tools = [ToolCallStats {
        tool: "we\"ird\\na\nme".into(),
        provider: "p".into(),
        calls: 1,
        ..ToolCallStats::default()
    }];
    let text = render(&Exposition {
        tools: &tools,
        totals: &CallTotals::default(),
        runners: &[],
        mcp_servers: &[],
    });
    assert!(
        text.contains(r#"maitool_tool_calls_total{provider="p",tool="we\"ird\\na\nme"} 1"#),
        "{text}"
    );
    assert!(
        !text.lines().any(|line| line == "me\"} 1"),
        "a raw line feed split the sample"
    );
}
