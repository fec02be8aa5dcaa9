//! `maitool serve --mcp-stdio` / `--mcp-http` answers its client at once, even with an MCP
//! server that never answers behind it; a server that comes up later reaches the client as
//! `notifications/tools/list_changed` and its tools are then listed and callable. Driven by
//! the Python MCP SDK client (`mcp` from PyPI).

mod mcp_front_support;

use std::time::{Duration, Instant};

use maitool_e2e::workspace_bin;
use mcp_front_support::*;
use serde_json::{Value, json};

/// The file whose creation lets the late server start: the test creates it once its client
/// is connected, so the server is late by construction rather than by a delay that a loaded
/// machine could outrun.
fn go_marker(fixture: &Fixture) -> std::path::PathBuf {
    fixture.dir.path().join("late-may-start")
}

/// The fixture plus a hung MCP server (`sleep`, never answers) and one that starts only after
/// the client connected (`go_marker`).
fn fixture() -> Fixture {
    let fixture = Fixture::new();
    let marker = go_marker(&fixture);
    let extra = format!(
        r#"
[[mcp.servers]]
name = "hung"
transport = "stdio"
command = "sleep"
args = ["600"]

[[mcp.servers]]
name = "late"
transport = "stdio"
command = "sh"
args = ["-c", "while [ ! -e '{marker}' ]; do sleep 0.05; done; exec '{example}'"]
tool_prefix = "late_"
"#,
        marker = marker.display(),
        example = workspace_bin("maitool-example-mcp-server").display()
    );
    let mut config = std::fs::read_to_string(&fixture.config).unwrap();
    config.push_str(&extra);
    std::fs::write(&fixture.config, config).unwrap();
    fixture
}

fn state(fixture: &Fixture, server: &str) -> Value {
    let status = fixture.query(&["status", "--json"]);
    status["mcp_servers"]
        .as_array()
        .and_then(|servers| servers.iter().find(|s| s["name"] == server))
        .map(|s| s["state"].clone())
        .unwrap_or_else(|| panic!("no server {server} in {status}"))
}

const MODE: &str = "legacy";

fn check(fixture: &Fixture, transport: Transport, url: Option<&str>, started: Instant) {
    let Some(python) = python() else { return };
    let plan = json!([
        {"id": "connected", "kind": "ready"},
        {"id": "changed", "kind": "wait_list_changed", "timeout": 30},
        {"id": "listed", "kind": "wait_tool", "name": "late_echo", "timeout": 30},
        {"id": "call", "kind": "call", "name": "late_echo", "arguments": {"text": "late but here"}},
    ]);
    let mut connected_after = None;
    let mut hung_state = Value::Null;
    let results = run_plan(&python, fixture, transport, url, MODE, plan, |_| {
        connected_after = Some(started.elapsed());
        hung_state = state(fixture, "hung");
        std::fs::write(go_marker(fixture), b"").unwrap();
    });
    let connected_after = connected_after.unwrap();
    // Waiting for the hung server would take its whole connect timeout (30 s), and waiting for
    // the late one would never end, since it starts only once the client is connected; the client's own start (a Python interpreter and the MCP SDK) is most
    // of this figure.
    assert!(
        connected_after < Duration::from_secs(25),
        "the client waited {connected_after:?} for its handshake"
    );

    assert_ne!(hung_state, "connected", "the hung server never answers");
    assert_eq!(
        results["changed"]["received"], true,
        "{}",
        results["changed"]
    );
    assert_eq!(results["listed"]["listed"], true, "{}", results["listed"]);
    let call = &results["call"]["result"];
    assert_eq!(call["isError"], false, "{call}");
    assert!(call.to_string().contains("late but here"), "{call}");
}

#[test]
fn stdio_client_is_served_at_once_and_told_of_a_late_server() {
    let fixture = fixture();
    check(&fixture, Transport::Stdio, None, Instant::now());
}

#[test]
fn http_client_is_served_at_once_and_told_of_a_late_server() {
    let fixture = fixture();
    let started = Instant::now();
    let serve = HttpServe::start(&fixture);
    check(&fixture, Transport::Http, Some(&serve.url), started);
    assert!(serve.stop().success());
}
