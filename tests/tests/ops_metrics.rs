//! Observability through the real binary: per-tool call counts, failures, timeouts and
//! latency percentiles in `status --json` and on `serve --metrics`, and JSON logs tagged with
//! plugin and MCP server ids.

use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::Value;

mod ops_support;

use ops_support::Fixture;

/// `GET path` on the metrics endpoint; (status line, body).
fn http_get(address: &str, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_owned(), body.to_owned())
}

/// The value of one Prometheus sample line, by its exact series name.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| {
            line.strip_prefix(series)
                .and_then(|rest| rest.strip_prefix(' '))
        })
        .unwrap_or_else(|| panic!("no {series} in\n{text}"))
        .parse()
        .unwrap()
}

#[test]
fn serve_counts_calls_failures_and_timeouts_in_status_and_prometheus_with_json_logs() {
    let fixture = Fixture::new(&["dice", "media", "misbehaving"], "", "");
    let serve = fixture.serve(&["--metrics", "127.0.0.1:0"]);
    let endpoint = serve.wait_for_log(|line| {
        line["fields"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("serving Prometheus metrics"))
    });
    let address = endpoint["fields"]["address"].as_str().unwrap().to_owned();

    for (a, b) in [(1, 2), (20, 22), (5, 5)] {
        let sum = fixture.json(&[
            "call",
            "calculate",
            "--args",
            &format!(r#"{{"a": {a}, "b": {b}, "op": "add"}}"#),
            "--json",
        ]);
        assert_eq!(sum["success"], true);
    }
    let (code, _, _) = fixture.maitool(&[
        "call",
        "calculate",
        "--args",
        r#"{"a": 1, "b": 0, "op": "divide"}"#,
    ]);
    assert_eq!(code, 1, "division by zero fails");
    let (code, out, _) = fixture.maitool(&["call", "slow", "--args", r#"{"ms": 5000}"#, "--json"]);
    assert_eq!(code, 1);
    let plugin_timeout: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        plugin_timeout["metadata"]["error_code"], "E_TIMEOUT",
        "{plugin_timeout}"
    );
    let (code, out, _) = fixture.maitool(&[
        "call",
        "ex_slow",
        "--args",
        r#"{"ms": 5000, "steps": 1}"#,
        "--json",
    ]);
    assert_eq!(code, 1);
    let mcp_timeout: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        mcp_timeout["metadata"]["error_kind"], "timeout",
        "{mcp_timeout}"
    );
    let (code, _, _) =
        fixture.maitool(&["call", "roll_dice", "--args", r#"{"count": 2, "sides": 6}"#]);
    assert_eq!(code, 0);
    // The dice plugin logs each roll; the record reaches serve's log tagged with its ids.
    let plugin = serve.wait_for_log(|r| {
        r["target"] == "maitool::plugin"
            && r["fields"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("rolled 2 dice"))
    });
    assert_eq!(
        (
            plugin["fields"]["plugin_id"].as_str(),
            plugin["fields"]["runner"].as_str()
        ),
        (Some("examples.dice"), Some("dice"))
    );
    // A record logged after the first batch went out is forwarded too.
    let (code, _, _) =
        fixture.maitool(&["call", "roll_dice", "--args", r#"{"count": 3, "sides": 6}"#]);
    assert_eq!(code, 0);
    serve.wait_for_log(|r| {
        r["target"] == "maitool::plugin"
            && r["fields"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("rolled 3 dice"))
    });
    let (code, _, _) = fixture.maitool(&["call", "no_such_tool"]);
    assert_eq!(code, 1);

    let status = fixture.json(&["status", "--json"]);
    let row = |provider: &str, tool: &str| -> Value {
        status["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["provider"] == provider && row["tool"] == tool)
            .cloned()
            .unwrap_or_else(|| panic!("no {provider}/{tool} in {}", status["tools"]))
    };
    let calculate = row("plugin_runtime", "calculate");
    assert_eq!(
        (
            calculate["calls"].as_u64(),
            calculate["failures"].as_u64(),
            calculate["timeouts"].as_u64()
        ),
        (Some(4), Some(1), Some(0))
    );
    let latency = &calculate["latency"];
    let (p50, p90, p99, max) = (
        latency["p50_ms"].as_f64().unwrap(),
        latency["p90_ms"].as_f64().unwrap(),
        latency["p99_ms"].as_f64().unwrap(),
        latency["max_ms"].as_f64().unwrap(),
    );
    assert!(
        0.0 < p50 && p50 <= p90 && p90 <= p99 && p99 <= max,
        "{latency}"
    );
    let slow = row("plugin_runtime", "slow");
    assert_eq!(
        (
            slow["calls"].as_u64(),
            slow["failures"].as_u64(),
            slow["timeouts"].as_u64()
        ),
        (Some(1), Some(1), Some(1))
    );
    assert!(
        slow["latency"]["p50_ms"].as_f64().unwrap() >= 500.0,
        "the timeout took the tool timeout: {slow}"
    );
    let mcp_slow = row("mcp", "ex_slow");
    assert_eq!(
        (
            mcp_slow["calls"].as_u64(),
            mcp_slow["failures"].as_u64(),
            mcp_slow["timeouts"].as_u64()
        ),
        (Some(1), Some(1), Some(1))
    );
    assert_eq!(row("plugin_runtime", "roll_dice")["calls"], 2);
    let totals = &status["metrics"];
    assert_eq!(
        (
            totals["calls"].as_u64(),
            totals["failures"].as_u64(),
            totals["timeouts"].as_u64(),
            totals["unrouted"].as_u64()
        ),
        (Some(8), Some(3), Some(2), Some(1)),
        "{totals}"
    );
    assert!(
        status["runners"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["restart_count"] == 0)
    );

    let (line, text) = http_get(&address, "/metrics");
    assert_eq!(line, "HTTP/1.1 200 OK");
    let calculate = r#"{provider="plugin_runtime",tool="calculate"}"#;
    assert_eq!(
        sample(&text, &format!("maitool_tool_calls_total{calculate}")),
        4.0
    );
    assert_eq!(
        sample(&text, &format!("maitool_tool_failures_total{calculate}")),
        1.0
    );
    assert_eq!(
        sample(
            &text,
            r#"maitool_tool_timeouts_total{provider="plugin_runtime",tool="slow"}"#
        ),
        1.0
    );
    assert_eq!(
        sample(
            &text,
            r#"maitool_tool_timeouts_total{provider="mcp",tool="ex_slow"}"#
        ),
        1.0
    );
    assert_eq!(
        sample(
            &text,
            &format!("maitool_tool_call_duration_seconds_count{calculate}")
        ),
        4.0
    );
    let p99 = sample(
        &text,
        r#"maitool_tool_call_duration_seconds{provider="plugin_runtime",tool="calculate",quantile="0.99"}"#,
    );
    assert!(
        (p99 * 1000.0 - status_p99(&status)).abs() < 1e-6,
        "Prometheus and status agree on p99"
    );
    assert_eq!(sample(&text, "maitool_unrouted_calls_total"), 1.0);
    assert_eq!(sample(&text, r#"maitool_runner_up{runner="dice"}"#), 1.0);
    assert_eq!(
        sample(
            &text,
            r#"maitool_runner_restarts_total{runner="misbehaving"}"#
        ),
        0.0
    );
    assert_eq!(
        sample(
            &text,
            r#"maitool_plugin_loaded{runner="misbehaving",plugin="examples.fails_on_load"}"#
        ),
        0.0
    );
    assert_eq!(
        sample(&text, r#"maitool_mcp_server_up{server="example"}"#),
        1.0
    );
    assert_eq!(http_get(&address, "/").0, "HTTP/1.1 404 Not Found");

    // Every stderr line of serve is one JSON object; plugin and MCP server output carries
    // their ids.
    let lines = serve.stop();
    let records: Vec<Value> = lines
        .iter()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"))
        })
        .collect();
    assert!(
        records.iter().all(|r| r["level"].is_string()
            && r["target"].is_string()
            && r["timestamp"].is_string())
    );
    let server = records.iter().find(|r| {
        r["target"] == "maitool::mcp::server_stderr"
            && r["fields"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("ready on stdio"))
    });
    assert_eq!(
        server.unwrap_or_else(|| panic!("no MCP stderr record in\n{}", lines.join("\n")))["fields"]
            ["server"],
        "example"
    );
}

fn status_p99(status: &Value) -> f64 {
    status["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tool"] == "calculate")
        .unwrap()["latency"]["p99_ms"]
        .as_f64()
        .unwrap()
}

#[test]
fn a_busy_metrics_port_stops_serve_before_any_runner_starts() {
    let fixture = Fixture::new(&["dice", "media", "misbehaving"], "", "");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let (code, _, err) = fixture.maitool(&["serve", "--metrics", &address]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("cannot listen on {address} for --metrics")),
        "{err}"
    );
    assert!(!fixture.control().exists());
}
