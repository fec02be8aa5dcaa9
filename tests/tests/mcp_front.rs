//! The MCP server front (`maitool serve --mcp-stdio` / `--mcp-http`) driven by the Python
//! MCP SDK client from PyPI, which no one here wrote: every page of `tools/list` with every
//! field mapped, calls to plugin, built-in and MCP tools (text, image, audio, resources,
//! structured content, errors), per-request chat context, progress, cancelled calls, and
//! `tools/list_changed` after a runner restart, over stdio and Streamable HTTP, in both
//! protocol eras (`initialize` 2025-11-25 and `server/discover` 2026-07-28).
//!
//! Needs `bash .ci/install-python-mcp.sh`; without it the tests say so loudly and skip, unless
//! `MAITOOL_REQUIRE_PYTHON_MCP=1` (CI), where they fail.

mod mcp_front_support;

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use maitool_protocol::BinaryData;
use mcp_front_support::*;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

/// Every call the session plan makes, with its id.
fn session_plan() -> Value {
    let call = |id: &str, name: &str, arguments: Value| json!({"id": id, "kind": "call", "name": name, "arguments": arguments});
    json!([
        {"id": "registry", "kind": "ready"},
        {"id": "info", "kind": "info"},
        {"id": "all", "kind": "list_all"},
        {"id": "bad_cursor", "kind": "list", "cursor": "not-a-cursor"},
        call("dice", "roll_dice", json!({"sides": 6, "count": 3})),
        call("badge", "render_badge", json!({"width": 3, "height": 2, "colour": "#00ff00"})),
        call("numbers", "describe_numbers", json!({"numbers": [1, 2, 3]})),
        call("search", "tool_search", json!({"query": "view_forward_message"})),
        call("mcp_echo", "ex_echo", json!({"text": "through two MCP hops"})),
        call("beep", "ex_beep", json!({})),
        call("resources", "ex_resource_demo", json!({})),
        call("divide", "calculate", json!({"a": 1, "b": 0, "op": "divide"})),
        call("unknown", "no_such_tool", json!({})),
        call("default_context", "echo", json!({"text": "plain"})),
        {"id": "meta_context", "kind": "call", "name": "echo", "arguments": {"text": "ctx"},
         "meta": {"maitool/session_id": "s7", "maitool/group_id": 77, "maitool/is_group_chat": true, "maitool/reasoning": "why"}},
        {"id": "bad_meta", "kind": "call", "name": "echo", "arguments": {"text": "x"}, "meta": {"maitool/is_group_chat": "yes"}},
        call("progress", "slow", json!({"ms": 900})),
        {"id": "cancel_plugin", "kind": "cancel", "name": "slow", "arguments": {"ms": 60000}, "after": 0.5},
        {"id": "cancel_mcp", "kind": "cancel", "name": "ex_slow", "arguments": {"ms": 60000, "steps": 60}, "after": 0.5},
        {"id": "settle", "kind": "sleep", "seconds": 0.3},
        call("slow_stats", "ex_slow_stats", json!({})),
        call("after_cancel", "calculate", json!({"a": 20, "b": 22, "op": "add"})),
    ])
}

/// Waits until both runners that declare `echo` registered: dice, configured first, keeps
/// the name whichever registered first, and the misbehaving one's is renamed.
fn echo_from_dice(fixture: &Fixture) {
    let owner = |tools: &Value, name: &str| {
        tools.as_array().and_then(|tools| {
            tools
                .iter()
                .find(|t| t["name"] == name)
                .map(|t| t["metadata"]["plugin_id"].clone())
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let tools = fixture.query(&["tools", "--json"]);
        if let Some(renamed) = owner(&tools, "plugin_examples_misbehaving_echo") {
            assert_eq!(renamed, json!("examples.misbehaving"));
            assert_eq!(
                owner(&tools, "echo"),
                Some(json!("examples.dice")),
                "{tools}"
            );
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the misbehaving runner's echo never came: {tools}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Runs the session plan and checks everything it returned.
fn check_session(
    python: &Path,
    fixture: &Fixture,
    transport: Transport,
    url: Option<&str>,
    mode: &str,
) {
    let mut registry = Value::Null;
    let results = run_plan(
        python,
        fixture,
        transport,
        url,
        mode,
        session_plan(),
        |_| {
            // serve answers before its runners and MCP server are up.
            fixture.wait_settled();
            // Two runners declare `echo`: the one configured first (dice, which reports the
            // chat context it ran in) keeps the name, and the other's is renamed under its
            // source prefix, `plugin_examples_misbehaving_echo`.
            echo_from_dice(fixture);
            // And the other stays off (through the running host).
            let output = fixture
                .maitool()
                .args(["disable", "examples.misbehaving.echo"])
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            registry = fixture.query(&[
                "tools",
                "--json",
                "--session-id",
                "default-session",
                "--platform",
                "qq",
            ]);
        },
    );
    let expected_version = if mode == "legacy" {
        "2025-11-25"
    } else {
        "2026-07-28"
    };
    let info = &results["info"];
    assert_eq!(info["protocol_version"], expected_version, "{info}");
    assert_eq!(info["server_info"]["name"], "maitool");
    assert_eq!(info["capabilities"]["tools"]["listChanged"], true);

    check_listing(&results["all"], &registry);
    let bad_cursor = &results["bad_cursor"]["error"];
    assert_eq!(bad_cursor["code"], -32602, "{bad_cursor}");
    assert!(
        bad_cursor["message"]
            .as_str()
            .unwrap()
            .contains("invalid tools/list cursor"),
        "{bad_cursor}"
    );

    check_calls(&results);
    check_cancellation(&results);
}

/// Every page holds at most two tools, the pages together hold exactly what the registry
/// lists, in its order, and every tool has every field of its spec.
fn check_listing(all: &Value, registry: &Value) {
    let pages = all["pages"].as_array().unwrap();
    let specs = registry.as_array().expect("maitool tools --json");
    assert!(
        specs.len() > 20,
        "the fixture has plugin, built-in and MCP tools: {}",
        specs.len()
    );
    assert_eq!(pages.len(), specs.len().div_ceil(2), "page size 2");
    assert!(pages.iter().all(|page| page.as_array().unwrap().len() <= 2));
    let tools = all["tools"].as_array().unwrap();
    let listed: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let registered: Vec<&str> = specs.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(listed, registered);
    assert_eq!(
        listed.iter().collect::<HashSet<_>>().len(),
        listed.len(),
        "no tool twice"
    );
    for (tool, spec) in tools.iter().zip(specs) {
        assert_eq!(
            tool,
            &expected_tool(spec),
            "tool {} differs from its spec {spec}",
            spec["name"]
        );
    }
    let kinds: HashSet<&str> = tools
        .iter()
        .map(|t| t["_meta"]["maitool/provider_type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, HashSet::from(["plugin", "builtin", "mcp"]));
    // A tool with a title, icons, annotations and server `_meta`, through two MCP hops.
    let echo = tools.iter().find(|t| t["name"] == "ex_echo").unwrap();
    assert_eq!(echo["title"], "Echo");
    assert_eq!(echo["annotations"]["readOnlyHint"], true);
    assert_eq!(echo["icons"][0]["mimeType"], "image/svg+xml");
    assert_eq!(echo["_meta"]["category"], "demo");
    let numbers = tools
        .iter()
        .find(|t| t["name"] == "describe_numbers")
        .unwrap();
    assert_eq!(
        numbers["outputSchema"]["required"],
        json!(["count", "min", "max", "mean"])
    );
}

fn check_calls(results: &Value) {
    let ok = |id: &str| -> &Value {
        let result = &results[id]["result"];
        assert_eq!(result["isError"], false, "{id}: {}", results[id]);
        result
    };
    let dice = ok("dice");
    let faces = dice["structuredContent"]["faces"].as_array().unwrap();
    assert_eq!(faces.len(), 3);
    assert_eq!(
        dice["structuredContent"]["total"],
        faces.iter().map(|f| f.as_u64().unwrap()).sum::<u64>()
    );
    assert!(texts(dice)[0].starts_with("rolled"));

    let badge = ok("badge");
    let image = block(badge, "image");
    assert_eq!(image["mimeType"], "image/png");
    let png = BinaryData::from_base64(image["data"].as_str().unwrap())
        .unwrap()
        .0;
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(
        (&png[16..20], &png[20..24]),
        (&3u32.to_be_bytes()[..], &2u32.to_be_bytes()[..]),
        "IHDR 3x2"
    );
    assert_eq!(
        badge["structuredContent"],
        json!({"width": 3, "height": 2, "colour": "#00ff00"})
    );

    // The Python client validated this against the tool's outputSchema.
    assert_eq!(
        ok("numbers")["structuredContent"],
        json!({"count": 3, "min": 1.0, "max": 3.0, "mean": 2.0})
    );
    let search = ok("search");
    assert_eq!(
        search["structuredContent"]["matched_tool_names"],
        json!(["view_forward_message"]),
        "{search}"
    );

    assert_eq!(texts(ok("mcp_echo")), ["through two MCP hops"]);
    assert_eq!(block(ok("beep"), "audio")["mimeType"], "audio/wav");
    let resources = ok("resources");
    let link = block(resources, "resource_link");
    assert_eq!(
        (
            link["uri"].as_str(),
            link["title"].as_str(),
            link["size"].as_u64()
        ),
        (
            Some("example://docs/readme"),
            Some("Example README"),
            Some(42)
        )
    );
    assert_eq!(link["annotations"]["audience"], json!(["user"]));
    let embedded: Vec<&Value> = resources["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "resource")
        .collect();
    assert_eq!(embedded.len(), 2);
    assert_eq!(embedded[0]["resource"]["text"], "remember the milk");
    assert!(
        embedded[1]["resource"]["blob"].is_string(),
        "{}",
        embedded[1]
    );

    let divide = &results["divide"]["result"];
    assert_eq!(
        (divide["isError"].as_bool(), texts(divide)),
        (Some(true), vec!["division by zero".to_owned()])
    );
    let unknown = &results["unknown"]["result"];
    assert_eq!(
        (unknown["isError"].as_bool(), texts(unknown)),
        (Some(true), vec!["tool not found: no_such_tool".to_owned()])
    );

    let seen = &ok("default_context")["structuredContent"];
    assert_eq!(
        (
            seen["session_id"].as_str(),
            seen["platform"].as_str(),
            seen["is_group_chat"].as_bool()
        ),
        (Some("default-session"), Some("qq"), None)
    );
    let seen = &ok("meta_context")["structuredContent"];
    assert_eq!(
        (
            seen["session_id"].as_str(),
            seen["group_id"].as_str(),
            seen["is_group_chat"].as_bool(),
            seen["reasoning"].as_str(),
            seen["platform"].as_str()
        ),
        (Some("s7"), Some("77"), Some(true), Some("why"), Some("qq"))
    );
    assert_eq!(
        results["bad_meta"]["error"]["code"], -32602,
        "{}",
        results["bad_meta"]
    );

    let progress = &results["progress"];
    assert_eq!(texts(&progress["result"]), ["slept 900 ms"]);
    let values: Vec<f64> = progress["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert!(
        values.len() >= 2,
        "progress every 200 ms of a 900 ms call: {progress}"
    );
    assert!(
        values.windows(2).all(|w| w[0] < w[1]),
        "progress increases: {values:?}"
    );
}

fn check_cancellation(results: &Value) {
    for id in ["cancel_plugin", "cancel_mcp"] {
        let cancel = &results[id];
        assert_eq!(cancel["cancelled"], true, "{id}: {cancel}");
        assert!(cancel["elapsed"].as_f64().unwrap() < 5.0, "{id}: {cancel}");
    }
    // The cancel went through the front to the example MCP server, which stopped the call.
    let stats = &results["slow_stats"]["result"]["structuredContent"];
    assert_eq!(
        (
            stats["started"].as_u64(),
            stats["cancelled"].as_u64(),
            stats["completed"].as_u64()
        ),
        (Some(1), Some(1), Some(0)),
        "{stats}"
    );
    assert_eq!(texts(&results["after_cancel"]["result"]), ["42"]);
}

#[test]
fn stdio_legacy_client_lists_calls_and_cancels() {
    let Some(python) = python() else { return };
    let fixture = Fixture::new();
    check_session(&python, &fixture, Transport::Stdio, None, "legacy");
    assert!(
        !fixture.control.exists(),
        "serve --mcp-stdio exits and removes its control socket when the client leaves"
    );
}

#[test]
fn stdio_2026_client_lists_calls_and_cancels() {
    let Some(python) = python() else { return };
    let fixture = Fixture::new();
    check_session(&python, &fixture, Transport::Stdio, None, "auto");
}

#[test]
fn http_2026_client_lists_calls_and_cancels() {
    let Some(python) = python() else { return };
    let fixture = Fixture::new();
    let serve = HttpServe::start(&fixture);
    check_session(&python, &fixture, Transport::Http, Some(&serve.url), "auto");
    let stderr = serve.stderr();
    let status = serve.stop();
    assert!(status.success(), "{status}\n{stderr}");
}

#[test]
fn http_legacy_client_lists_calls_and_cancels() {
    let Some(python) = python() else { return };
    let fixture = Fixture::new();
    let serve = HttpServe::start(&fixture);
    check_session(
        &python,
        &fixture,
        Transport::Http,
        Some(&serve.url),
        "legacy",
    );
    assert!(serve.stop().success());
}

/// Kills the dice runner while the client waits; the client must receive
/// `tools/list_changed`, see `roll_dice` again, and call it on the restarted runner.
fn check_list_changed_after_restart(
    python: &Path,
    fixture: &Fixture,
    transport: Transport,
    url: Option<&str>,
    mode: &str,
) {
    let plan = json!([
        {"id": "up", "kind": "ready"},
        {"id": "before", "kind": "list_all"},
        {"id": "kill", "kind": "ready"},
        {"id": "changed", "kind": "wait_list_changed", "timeout": 30},
        {"id": "back", "kind": "wait_tool", "name": "roll_dice", "timeout": 30},
        {"id": "dice", "kind": "call", "name": "roll_dice", "arguments": {"sides": 2}},
        {"id": "check", "kind": "ready"},
    ]);
    let mut old_pid = None;
    let mut after = Value::Null;
    let results = run_plan(python, fixture, transport, url, mode, plan, |step| {
        if step == "up" {
            fixture.wait_settled();
            return;
        }
        let runner = fixture.runner("dice");
        if step == "kill" {
            let pid = runner["pid"].as_i64().expect("dice runner pid") as i32;
            kill(Pid::from_raw(pid), Signal::SIGKILL).expect("kill the runner");
            old_pid = Some(pid as i64);
        } else {
            // Asked while the host still runs (a stdio host ends with its client).
            after = runner;
        }
    });
    let before = results["before"]["tools"].as_array().unwrap();
    assert!(before.iter().any(|t| t["name"] == "roll_dice"));
    let changed = &results["changed"];
    assert_eq!(
        changed["received"], true,
        "no tools/list_changed after the runner restart: {changed}"
    );
    assert_eq!(results["back"]["listed"], true, "{}", results["back"]);
    assert_eq!(
        results["dice"]["result"]["isError"], false,
        "{}",
        results["dice"]
    );
    assert!(after["restart_count"].as_u64().unwrap() >= 1, "{after}");
    assert_ne!(
        after["pid"].as_i64(),
        old_pid,
        "a new runner process: {after}"
    );
}

#[test]
fn stdio_legacy_client_receives_list_changed_after_a_runner_restart() {
    let Some(python) = python() else { return };
    let fixture = Fixture::new();
    check_list_changed_after_restart(&python, &fixture, Transport::Stdio, None, "legacy");
}

#[test]
fn http_2026_client_receives_list_changed_after_a_runner_restart() {
    let Some(python) = python() else { return };
    let fixture = Fixture::new();
    let serve = HttpServe::start(&fixture);
    check_list_changed_after_restart(&python, &fixture, Transport::Http, Some(&serve.url), "auto");
    assert!(serve.stop().success());
}

#[test]
fn a_busy_http_port_is_a_clear_error_and_starts_nothing() {
    let fixture = Fixture::new();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let started = Instant::now();
    let output = fixture
        .maitool()
        .args(["serve", "--mcp-http", &addr])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot listen on {addr} for --mcp-http")),
        "{stderr}"
    );
    assert!(!fixture.control.exists(), "no host was started");
    assert!(started.elapsed() < Duration::from_secs(10));
}
