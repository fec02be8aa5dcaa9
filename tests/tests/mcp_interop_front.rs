//! The MCP server front against the TypeScript MCP SDK's client (`@modelcontextprotocol/sdk`
//! from npm: 1.0.4, an old v1 still shipped by desktop-era apps, and the current 1.32.2): what
//! apps built on it see of `maitool serve --mcp-stdio` / `--mcp-http`.
//!
//! Needs `bash .ci/install-node-mcp.sh`; without it the tests say so loudly and skip, unless
//! `MAITOOL_REQUIRE_NODE_MCP=1` (CI), where they fail.

mod mcp_front_support;
mod node_support;

use std::process::Command;

use mcp_front_support::{Fixture, HttpServe};
use node_support::{SDK_CURRENT, SDK_OLD, Server, client_v2, run_client, run_client_v2, sdk};
use serde_json::{Value, json};

/// `serve` flags without `--mcp-page-size`: the default, every tool in one page.
const FLAGS: [&str; 4] = [
    "--mcp-platform",
    "qq",
    "--mcp-session-id",
    "default-session",
];

fn stdio(fixture: &Fixture, extra: &[&str]) -> Command {
    let mut command = fixture.maitool();
    command
        .args(["serve", "--mcp-stdio"])
        .args(FLAGS)
        .args(extra);
    command
}

/// The fixture with three more copies of the example MCP server (prefixes `ex2_` to `ex4_`):
/// over 50 tools, more than a typical server page, so a client that reads one page would miss
/// some if the front paged.
fn many_tools() -> Fixture {
    let fixture = Fixture::new();
    let example = maitool_e2e::workspace_bin("maitool-example-mcp-server");
    let mut config = std::fs::read_to_string(&fixture.config).unwrap();
    for copy in 2..=4 {
        config.push_str(&format!(
            "\n[[mcp.servers]]\nname = \"example{copy}\"\ntransport = \"stdio\"\ncommand = \"{}\"\ntool_prefix = \"ex{copy}_\"\n",
            example.display()
        ));
    }
    std::fs::write(&fixture.config, config).unwrap();
    fixture
}

fn registry_names(fixture: &Fixture) -> Vec<String> {
    let specs = fixture.query(&[
        "tools",
        "--json",
        "--session-id",
        "default-session",
        "--platform",
        "qq",
    ]);
    let names: Vec<String> = specs
        .as_array()
        .expect("maitool tools --json")
        .iter()
        .map(|spec| spec["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        names.len() > 20,
        "plugin, built-in and MCP tools: {names:?}"
    );
    names
}

fn listed_names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {list}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

/// One `listTools()` (what SDK v1 apps call, never following `nextCursor`) returns every tool
/// the registry lists, in its order, with no cursor.
fn check_one_page(version: &str, fixture: &Fixture, server: Server<'_>) {
    let Some(sdk) = sdk(version) else { return };
    let mut registry = Vec::new();
    let plan = json!([
        {"id": "up", "kind": "ready"},
        {"id": "list", "kind": "list"},
        {"id": "registry", "kind": "ready"},
    ]);
    let results = run_client(&sdk, fixture.dir.path(), server, plan, |step| {
        if step == "up" {
            fixture.wait_settled();
        } else {
            registry = registry_names(fixture);
        }
    });
    let list = &results["list"];
    assert_eq!(list["next_cursor"], Value::Null, "one page: {list}");
    assert!(registry.len() > 50, "{} tools", registry.len());
    assert_eq!(listed_names(list), registry);
    check_standard_schemas(list);
}

/// Published schemas use standard JSON Schema only: no schemars formats such as `uint32`
/// (integer widths are `minimum`/`maximum`).
fn check_standard_schemas(list: &Value) {
    fn formats(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(object) => {
                if let Some(Value::String(format)) = object.get("format") {
                    found.push(format.clone());
                }
                object.values().for_each(|value| formats(value, found));
            }
            Value::Array(items) => items.iter().for_each(|value| formats(value, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for tool in list["tools"].as_array().unwrap() {
        formats(&tool["inputSchema"], &mut found);
        formats(&tool["outputSchema"], &mut found);
    }
    let rust_formats = ["int", "uint", "double", "float"];
    assert!(
        !found
            .iter()
            .any(|format| rust_formats.iter().any(|rust| format.starts_with(rust))),
        "non-standard formats published: {found:?}"
    );
    let dice = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "roll_dice")
        .unwrap();
    let sides = &dice["inputSchema"]["properties"]["sides"];
    assert_eq!(sides["type"], "integer", "{sides}");
    assert_eq!(sides["minimum"], 0, "{sides}");
    assert_eq!(sides["maximum"], json!(u32::MAX), "u32 bounds: {sides}");
}

#[test]
fn old_sdk_v1_list_tools_gets_every_tool_over_stdio() {
    let fixture = many_tools();
    check_one_page(SDK_OLD, &fixture, Server::Stdio(stdio(&fixture, &[])));
}

#[test]
fn current_sdk_v1_list_tools_gets_every_tool_over_stdio_and_http() {
    let fixture = many_tools();
    check_one_page(SDK_CURRENT, &fixture, Server::Stdio(stdio(&fixture, &[])));
    let serve = HttpServe::start_with(&fixture, &FLAGS);
    check_one_page(SDK_CURRENT, &fixture, Server::Http(&serve.url));
    // The SDK ends its session with DELETE (answered 204) and forgets it.
    if let Some(dir) = sdk(SDK_CURRENT) {
        let plan = json!([{"id": "end", "kind": "terminate"}]);
        let results = run_client(
            &dir,
            fixture.dir.path(),
            Server::Http(&serve.url),
            plan,
            |_| {},
        );
        assert_eq!(results["end"], json!({"ok": true, "session_after": null}));
    }
    assert!(serve.stop().success());
}

/// The SDK v2 client in `auto` mode (it probes with `server/discover`) negotiates 2026-07-28
/// with the front over stdio and Streamable HTTP; its one `listTools()`, made as soon as it
/// connected, holds every tool the registry lists, and a call through the 2026 wire (with
/// `Mcp-Method` and `Mcp-Name` headers over HTTP) returns the tool's answer.
#[test]
fn sdk_v2_client_in_auto_mode_speaks_2026_over_stdio_and_http() {
    let Some(client) = client_v2() else { return };
    let fixture = many_tools();
    let serve = HttpServe::start_with(&fixture, &FLAGS);
    fixture.wait_settled();
    let registry = registry_names(&fixture);
    let plan = json!([
        {"id": "info", "kind": "info"},
        {"id": "list", "kind": "list"},
        {"id": "call", "kind": "call", "name": "ex2_echo", "arguments": {"text": "from v2"}},
    ]);
    let servers = [
        ("stdio", Server::Stdio(stdio(&fixture, &[]))),
        ("http", Server::Http(&serve.url)),
    ];
    for (transport, server) in servers {
        let results = run_client_v2(
            &client,
            fixture.dir.path(),
            server,
            "auto",
            plan.clone(),
            |_| {},
        );
        let info = &results["info"];
        assert_eq!(
            info["protocol_version"], "2026-07-28",
            "{transport}: {info}"
        );
        assert_eq!(
            info["server_info"]["name"], "maitool",
            "{transport}: {info}"
        );
        let list = &results["list"];
        assert_eq!(list["nextCursor"], Value::Null, "{transport}: one page");
        let mut listed = listed_names(list);
        if transport == "stdio" {
            // A host of its own, whose runners registered in their own race: the same tools,
            // in the order its plugins came up, and the `echo` both the dice and the misbehaving
            // plugins declare kept by whichever came first (the other's under its prefix).
            let canonical = |names: &mut Vec<String>| {
                for name in names.iter_mut() {
                    if name == "plugin_examples_dice_echo"
                        || name == "plugin_examples_misbehaving_echo"
                    {
                        *name = "plugin_<second>_echo".to_owned();
                    }
                }
                names.sort();
            };
            let mut expected = registry.clone();
            canonical(&mut expected);
            canonical(&mut listed);
            assert_eq!(listed, expected, "{transport}");
        } else {
            assert_eq!(listed, registry, "{transport}");
        }
        let call = &results["call"];
        assert_ne!(call["isError"], true, "{transport}: {call}");
        assert!(
            call["content"].to_string().contains("from v2"),
            "{transport}: {call}"
        );
    }
    assert!(serve.stop().success());
}

/// Paging stays available on request: `--mcp-page-size 3` gives SDK v1 a first page of three
/// tools and a cursor.
#[test]
fn paging_is_opt_in() {
    let Some(sdk) = sdk(SDK_CURRENT) else { return };
    let fixture = Fixture::new();
    let plan = json!([{"id": "list", "kind": "list"}]);
    let server = Server::Stdio(stdio(&fixture, &["--mcp-page-size", "3"]));
    let results = run_client(&sdk, fixture.dir.path(), server, plan, |_| {});
    let list = &results["list"];
    assert_eq!(listed_names(list).len(), 3, "{list}");
    assert!(list["next_cursor"].is_string(), "{list}");
}

/// Scalars sent as strings (as form-based clients do) are coerced to the schema's type before
/// validation, whatever the tool's source; what cannot be coerced is refused naming the field.
#[test]
fn string_scalars_are_coerced_to_the_schema_type() {
    let Some(sdk) = sdk(SDK_CURRENT) else { return };
    let fixture = Fixture::new();
    let call = |id: &str, name: &str, arguments: Value| json!({"id": id, "kind": "call", "name": name, "arguments": arguments});
    let plan = json!([
        {"id": "up", "kind": "ready"},
        call("dice", "roll_dice", json!({"sides": "6", "count": "3"})),
        call(
            "sum",
            "calculate",
            json!({"a": "20", "b": "2.5", "op": "add"})
        ),
        call("mcp", "ex_add", json!({"a": "2", "b": "40"})),
        call("bad", "roll_dice", json!({"sides": "six"})),
    ]);
    let server = Server::Stdio(stdio(&fixture, &[]));
    let results = run_client(&sdk, fixture.dir.path(), server, plan, |_| {
        fixture.wait_settled()
    });
    for id in ["dice", "sum", "mcp"] {
        let result = &results[id]["result"];
        assert_ne!(result["isError"], true, "{id}: {result}");
    }
    let dice = results["dice"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    let faces = dice
        .strip_prefix("rolled [")
        .and_then(|rest| rest.split(']').next())
        .unwrap_or_else(|| panic!("{dice}"));
    assert_eq!(faces.split(", ").count(), 3, "count \"3\" became 3: {dice}");
    assert!(
        results["sum"]["result"].to_string().contains("22.5"),
        "{}",
        results["sum"]
    );
    assert!(
        results["mcp"]["result"].to_string().contains("2 + 40 = 42"),
        "the MCP server received numbers: {}",
        results["mcp"]
    );
    let bad = &results["bad"]["result"];
    assert_eq!(bad["isError"], true, "{bad}");
    let text = bad["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("invalid arguments for tool roll_dice") && text.contains("/sides"),
        "{text}"
    );
}

/// Structured content that breaks the tool's own `outputSchema` (here from an MCP server on the
/// TypeScript SDK 1.32.2, behind the front) reaches the Python SDK client as a failed result
/// naming the mismatch, instead of a result the client rejects as invalid.
#[test]
fn structured_content_that_breaks_its_output_schema_is_a_failed_result() {
    let Some(python) = mcp_front_support::python() else {
        return;
    };
    let Some(dir) = sdk(SDK_CURRENT) else { return };
    let fixture = Fixture::new();
    let extra = format!(
        r#"
[[mcp.servers]]
name = "interop"
transport = "stdio"
command = "node"
args = ["{script}", "--sdk", "{dir}"]
tool_prefix = "iop_"
"#,
        script = node_support::script("mcp_server.mjs").display(),
        dir = dir.display()
    );
    let mut config = std::fs::read_to_string(&fixture.config).unwrap();
    config.push_str(&extra);
    std::fs::write(&fixture.config, config).unwrap();
    let plan = json!([
        {"id": "up", "kind": "ready"},
        {"id": "bad", "kind": "call", "name": "iop_bad_output", "arguments": {}},
        {"id": "good", "kind": "call", "name": "ex_add", "arguments": {"a": 1, "b": 2}},
    ]);
    let results = mcp_front_support::run_plan(
        &python,
        &fixture,
        mcp_front_support::Transport::Stdio,
        None,
        "legacy",
        plan,
        |_| fixture.wait_settled(),
    );
    let bad = &results["bad"]["result"];
    assert_eq!(bad["isError"], true, "{}", results["bad"]);
    let text = mcp_front_support::texts(bad).join("\n");
    assert!(
        text.contains("structured content of tool iop_bad_output does not match its output schema")
            && text.contains("at /n")
            && text.contains("\"three\" is not of type \"integer\""),
        "{text}"
    );
    assert!(bad.get("structuredContent").is_none(), "{bad}");
    // Valid structured content still passes.
    let good = &results["good"]["result"];
    assert_eq!(good["isError"], false, "{good}");
    assert_eq!(good["structuredContent"]["sum"], 3.0, "{good}");
}
