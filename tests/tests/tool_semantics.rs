//! MaiBot 1.3's tool semantics through a real `maitool serve` and real runners
//! (`maitool-example-semantics`, the example MCP server, the built-in tools): `platforms` at
//! listing and call time, `stop_after_execution` in results, duplicate names kept under a
//! source prefix in every view, an invalid configuration pausing a plugin until a reload
//! fixes it, and the per-plugin circuit breaker.

mod ops_support;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use maitool_e2e::cli::Maitool;
use maitool_e2e::workspace_bin;
use maitool_host::control::ControlClient;
use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation};
use ops_support::Serve;
use serde_json::{Value, json};

/// A temporary host: the built-in tools, the semantics runner (its two plugins) and the
/// example MCP server without a prefix.
struct Fixture {
    dir: tempfile::TempDir,
    cli: Maitool,
}

impl Fixture {
    /// `runtime` goes into `[plugin_runtime]`, `runner` into the semantics runner's table,
    /// `extra` at the end.
    fn new(runtime: &str, runner: &str, extra: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("maitool.toml");
        let cli = Maitool::new(&config, &dir.path().join("control.sock"));
        let fixture = Fixture { dir, cli };
        fixture.write(runtime, runner, extra);
        fixture
    }

    fn write(&self, runtime: &str, runner: &str, extra: &str) {
        let root = self.dir.path().display();
        let text = format!(
            "[host]\ndata_dir = \"{root}/data\"\nenable_builtin = true\n\n\
             [builtin]\ndatabase = \"{root}/maitool.sqlite3\"\n\n\
             [plugin_runtime]\nhealth_check_interval_ms = 1000\n{runtime}\n\n\
             [[runners]]\nname = \"semantics\"\nexecutable = \"{semantics}\"\n{runner}\n\n\
             [mcp]\nenable = true\n\n\
             [[mcp.servers]]\nname = \"example\"\ntransport = \"stdio\"\ncommand = \"{mcp}\"\n\n{extra}",
            semantics = workspace_bin("maitool-example-semantics").display(),
            mcp = workspace_bin("maitool-example-mcp-server").display(),
        );
        std::fs::write(&self.cli.config, text).unwrap();
    }

    /// `maitool serve`; returns once the runner is ready and the MCP server connected.
    fn serve(&self) -> Serve {
        let mut command = self.cli.command();
        command.args(["--log-format", "json", "serve"]);
        let serve = Serve::spawn(command);
        serve.wait_for_log(|line| line["fields"]["message"] == "maitool is serving");
        eventually("runner ready and MCP connected", || {
            let status = self.json(&["status", "--json"]);
            status["runners"][0]["state"] == "ready"
                && status["mcp_servers"][0]["state"] == "connected"
        });
        serve
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.cli.run(args)
    }

    fn json(&self, args: &[&str]) -> Value {
        self.cli.json(args)
    }

    /// `call TOOL --args ARGS --json` with more flags; (exit code, the printed result).
    fn call(&self, tool: &str, args: Value, flags: &[&str]) -> (i32, Value) {
        let args = args.to_string();
        let mut argv = vec!["call", tool, "--args", args.as_str(), "--json"];
        argv.extend_from_slice(flags);
        let (code, out, err) = self.run(&argv);
        let result = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("call {tool} printed no JSON ({e}): {out}\n{err}"));
        (code, result)
    }

    fn names(&self, flags: &[&str]) -> Vec<String> {
        let mut argv = vec!["tools", "--json"];
        argv.extend_from_slice(flags);
        names(&self.json(&argv))
    }

    fn plugin_status(&self, id: &str) -> Value {
        let status = self.json(&["status", "--json"]);
        status["runners"][0]["plugins"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} not in {status}"))
    }

    async fn client(&self) -> ControlClient {
        ControlClient::connect(&self.cli.control)
            .await
            .expect("serve answers on its control socket")
    }
}

fn names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {tools}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed in {tools}"))
}

/// Polls `done` every 50 ms for up to 30 s.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_platform_restricted_tool_is_offered_and_callable_on_its_platforms_only() {
    let fixture = Fixture::new("", "", "");
    let _serve = fixture.serve();

    // Listing: on Telegram (any case) it is there; on QQ and without a platform it is not.
    assert!(
        fixture
            .names(&["--platform", "telegram"])
            .contains(&"send_sticker".to_owned())
    );
    assert!(
        fixture
            .names(&["--platform", "Telegram"])
            .contains(&"send_sticker".to_owned())
    );
    for flags in [&["--platform", "qq"][..], &[]] {
        let names = fixture.names(flags);
        assert!(
            !names.contains(&"send_sticker".to_owned()),
            "{flags:?}: {names:?}"
        );
        assert!(names.contains(&"wrap_up".to_owned()), "{names:?}");
    }
    let listed = fixture.json(&["tools", "--json", "--platform", "telegram"]);
    assert_eq!(
        tool(&listed, "send_sticker")["metadata"]["platforms"],
        json!(["telegram"])
    );
    // The model's definitions agree.
    let definitions = fixture.json(&[
        "definitions",
        "--format",
        "openai",
        "--json",
        "--platform",
        "qq",
    ]);
    assert!(
        !definitions.to_string().contains("send_sticker"),
        "{definitions}"
    );
    let definitions = fixture.json(&[
        "definitions",
        "--format",
        "openai",
        "--json",
        "--platform",
        "telegram",
    ]);
    assert!(
        definitions.to_string().contains("send_sticker"),
        "{definitions}"
    );

    // Calls: refused with a reason on QQ and without a platform, run on Telegram.
    let (code, refused) = fixture.call(
        "send_sticker",
        json!({"set": "cats"}),
        &["--platform", "qq"],
    );
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["metadata"]["error_code"], "E_PLATFORM_MISMATCH");
    assert_eq!(
        refused["error_message"],
        "tool send_sticker is not offered here: plugin examples.semantics offers it only on \
         telegram, and this call is on qq"
    );
    let (code, refused) = fixture.call("send_sticker", json!({"set": "cats"}), &[]);
    assert_eq!(code, 1);
    assert!(
        refused["error_message"]
            .as_str()
            .unwrap()
            .ends_with("and this call gives no platform"),
        "{refused}"
    );
    let (code, sent) = fixture.call(
        "send_sticker",
        json!({"set": "cats"}),
        &["--platform", "TELEGRAM"],
    );
    assert_eq!(code, 0, "{sent}");
    assert_eq!(sent["content"], "sent cats on TELEGRAM");

    // `plugins` shows the restriction.
    let (code, plugins, _) = fixture.run(&["plugins"]);
    assert_eq!(code, 0);
    assert!(
        plugins
            .lines()
            .any(|line| line.contains("examples.semantics.send_sticker")
                && line.contains("platforms=telegram")),
        "{plugins}"
    );
}

#[test]
fn a_malformed_platforms_value_refuses_that_plugin_alone() {
    let fixture = Fixture::new("", "env = { SEMANTICS_BAD_PLATFORMS = \"1\" }", "");
    let _serve = fixture.serve();
    let twin = fixture.plugin_status("examples.semantics_twin");
    assert_eq!(twin["state"], "failed", "{twin}");
    let reason = twin["reason"].as_str().unwrap();
    assert!(
        reason.contains(
            "component whoami: platforms must be a platform name or a list of platform names \
             (null or [] for every platform); got an empty name at position 1"
        ),
        "{reason}"
    );
    // The other plugin of the same runner serves, and keeps the bare name.
    assert_eq!(
        fixture.plugin_status("examples.semantics")["state"],
        "loaded"
    );
    let (code, answer) = fixture.call("whoami", json!({}), &[]);
    assert_eq!(
        (code, answer["content"].clone()),
        (0, json!("examples.semantics"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_executor_runs_the_rest_of_the_batch_then_ends_the_round_a_plugin_asked_to_end() {
    let fixture = Fixture::new("", "", "");
    let host =
        maitool_host::Host::start(maitool_host::HostConfig::load(&fixture.cli.config).unwrap())
            .await
            .unwrap();
    let engine = std::sync::Arc::new(maitool_host::builtin::StoreEngine::new(
        host.store.clone().expect("built-in store"),
    ));
    let executor =
        maitool_host::builtin::ToolCallExecutor::new(host.registry.clone(), engine.clone());
    let ctx = ToolExecutionContext {
        session_id: "s1".into(),
        stream_id: "st1".into(),
        ..ToolExecutionContext::default()
    };
    let call = |id: &str, name: &str| json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{}"}});
    let turn = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        call("c1", "whoami"),
        call("c2", "wrap_up"),
        call("c3", "plugin_examples_semantics_twin_whoami"),
        call("c4", "farewell"),
    ]}}]});
    let outcome = executor
        .execute_raw(maitool_host::llm::ModelApi::OpenAiChat, &turn, &ctx, None)
        .await
        .unwrap();
    let ran: Vec<(&str, &str)> = outcome
        .messages
        .iter()
        .map(|m| (m.call_id.as_str(), m.content.as_str()))
        .collect();
    assert_eq!(
        ran,
        [
            ("c1", "examples.semantics"),
            ("c2", "wrapped up"),
            ("c3", "examples.semantics_twin"),
            ("c4", "farewell"),
        ]
    );
    assert_eq!(outcome.stopped_by.as_deref(), Some("c2"));
    assert!(outcome.finish_round && outcome.paused_by.is_none());
    let state = engine.session_state("s1");
    assert_eq!(
        (state.rounds_ended, state.last_end_reason.as_str()),
        (1, "stop_after_execution")
    );
    host.shutdown().await;
}

#[test]
fn stop_after_execution_reaches_call_json_and_the_text_output() {
    let fixture = Fixture::new("", "", "");
    let _serve = fixture.serve();
    for name in ["wrap_up", "farewell"] {
        let (code, result) = fixture.call(name, json!({}), &[]);
        assert_eq!(code, 0, "{result}");
        assert_eq!(result["stop_after_execution"], true, "{name}: {result}");
    }
    let (_, plain) = fixture.call("whoami", json!({}), &[]);
    assert_eq!(plain["stop_after_execution"], false);
    let (code, out, _) = fixture.run(&["call", "wrap_up", "--args", "{}"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "wrapped up\n(stop_after_execution: the tool ends the planner round)\n"
    );
    let listed = fixture.json(&["tools", "--json"]);
    assert_eq!(
        tool(&listed, "farewell")["metadata"]["stop_after_execution"],
        true
    );
}

/// Sends `serve --mcp-stdio` JSON-RPC requests and reads their answers.
struct McpStdio {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl McpStdio {
    fn start(fixture: &Fixture) -> McpStdio {
        let mut child = fixture
            .cli
            .command()
            .args(["serve", "--mcp-stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut mcp = McpStdio {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "tool-semantics-test", "version": "0"}}),
        );
        assert!(init["result"]["serverInfo"].is_object(), "{init}");
        writeln!(
            mcp.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        mcp
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )
        .unwrap();
        self.stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the front closed stdout"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    fn tool_names(&mut self) -> Vec<String> {
        let list = self.request("tools/list", json!({}));
        names(&list["result"]["tools"])
    }
}

impl Drop for McpStdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn duplicate_names_are_kept_under_a_source_prefix_and_every_view_agrees() {
    let fixture = Fixture::new("", "", "");
    let _serve = fixture.serve();
    let tools = fixture.json(&["tools", "--json"]);
    let listed = names(&tools);
    // Between plugins, between a plugin and the built-ins, between an MCP server and a plugin.
    for (kept, renamed, source) in [
        (
            "whoami",
            "plugin_examples_semantics_twin_whoami",
            "examples.semantics_twin",
        ),
        (
            "finish",
            "plugin_examples_semantics_twin_finish",
            "examples.semantics_twin",
        ),
        ("echo", "mcp_example_echo", "example"),
    ] {
        assert!(listed.contains(&kept.to_owned()), "{listed:?}");
        let spec = tool(&tools, renamed);
        assert_eq!(spec["metadata"]["registry_original_name"], kept, "{spec}");
        let source_key = if renamed.starts_with("mcp_") {
            "server_name"
        } else {
            "plugin_id"
        };
        assert_eq!(spec["metadata"][source_key], source, "{spec}");
        assert!(
            !tool(&tools, kept)["metadata"]
                .as_object()
                .unwrap()
                .contains_key("registry_original_name")
        );
    }
    assert_eq!(tool(&tools, "finish")["provider_type"], "builtin");
    assert_eq!(
        tool(&tools, "echo")["metadata"]["plugin_id"],
        "examples.semantics_twin"
    );

    // The table shows where a renamed tool comes from.
    let (code, table, _) = fixture.run(&["tools"]);
    assert_eq!(code, 0);
    let row = table
        .lines()
        .find(|line| line.starts_with("plugin_examples_semantics_twin_whoami "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        row.contains("examples.semantics_twin (renamed from whoami)"),
        "{row}"
    );
    assert!(table.lines().next().unwrap().contains("ORIGIN"), "{table}");

    // Routing: each name reaches its own tool, and the result carries the name called.
    for (name, args, expected) in [
        ("whoami", json!({}), "examples.semantics"),
        (
            "plugin_examples_semantics_twin_whoami",
            json!({}),
            "examples.semantics_twin",
        ),
        (
            "plugin_examples_semantics_twin_finish",
            json!({}),
            "twin finished",
        ),
        ("echo", json!({"text": "hi"}), "twin: hi"),
    ] {
        let (code, result) = fixture.call(name, args, &[]);
        assert_eq!(code, 0, "{result}");
        assert_eq!(result["content"], expected);
        assert_eq!(result["tool_name"], name);
    }
    let (code, mcp_echo) = fixture.call("mcp_example_echo", json!({"text": "hi"}), &[]);
    assert_eq!(code, 0, "{mcp_echo}");
    assert_eq!(mcp_echo["metadata"]["server_name"], "example");
    assert!(
        mcp_echo["content"].as_str().unwrap().contains("hi"),
        "{mcp_echo}"
    );

    // tool_search finds a deferred renamed tool by what it does, under its new name.
    let (code, found) = fixture.call(
        "tool_search",
        json!({"query": "which plugin answered"}),
        &["--session-id", "s1", "--stream-id", "st1"],
    );
    assert_eq!(code, 0, "{found}");
    let found = found.to_string();
    assert!(
        found.contains("plugin_examples_semantics_twin_whoami"),
        "{found}"
    );

    // The model's definitions list it (deferred: in the reminder list) under the same name.
    let definitions = fixture.json(&["definitions", "--format", "openai", "--json"]);
    let text = definitions.to_string();
    assert!(
        text.contains("plugin_examples_semantics_twin_whoami"),
        "{text}"
    );
    assert!(text.contains("mcp_example_echo"), "{text}");

    // The MCP front lists and calls the same names.
    let mut front = McpStdio::start(&fixture);
    let deadline = Instant::now() + Duration::from_secs(30);
    let front_names = loop {
        let names = front.tool_names();
        if names.contains(&"plugin_examples_semantics_twin_whoami".to_owned())
            && names.contains(&"mcp_example_echo".to_owned())
        {
            break names;
        }
        assert!(Instant::now() < deadline, "{names:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        front_names.contains(&"whoami".to_owned()),
        "{front_names:?}"
    );
    let answer = front.request(
        "tools/call",
        json!({"name": "plugin_examples_semantics_twin_whoami", "arguments": {}}),
    );
    assert_eq!(
        answer["result"]["content"][0]["text"], "examples.semantics_twin",
        "{answer}"
    );
    let stop = front.request("tools/call", json!({"name": "wrap_up", "arguments": {}}));
    assert_eq!(
        stop["result"]["_meta"]["maitool/stop_after_execution"], true,
        "{stop}"
    );
}

#[test]
fn an_invalid_configuration_pauses_the_plugin_until_a_reload_brings_a_valid_one() {
    let invalid = "[runners.plugins.\"examples.semantics\"]\nconfig = { times = 9 }\n";
    let fixture = Fixture::new("", "", invalid);
    let _serve = fixture.serve();

    // Loaded, paused, and saying why.
    let status = fixture.plugin_status("examples.semantics");
    assert_eq!(status["state"], "config_error", "{status}");
    let problem = "times must be between 1 and 5, got 9";
    assert!(
        status["reason"].as_str().unwrap().contains(problem),
        "{status}"
    );
    let (_, text, _) = fixture.run(&["status"]);
    assert!(
        text.lines()
            .any(|line| line.contains("examples.semantics ") && line.contains("config_error")),
        "{text}"
    );
    // Its tools are neither offered nor callable; the twin's are.
    let listed = fixture.names(&[]);
    assert!(!listed.contains(&"greet".to_owned()), "{listed:?}");
    assert!(listed.contains(&"plugin_examples_semantics_twin_whoami".to_owned()));
    let (code, refused) = fixture.call("greet", json!({}), &[]);
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["metadata"]["error_code"], "E_PLUGIN_CONFIG_INVALID");
    assert!(
        refused["error_message"].as_str().unwrap().contains(problem),
        "{refused}"
    );

    // Fixed and reloaded: back without a restart (the runner keeps its pid).
    let pid = fixture.json(&["status", "--json"])["runners"][0]["pid"].clone();
    fixture.write(
        "",
        "",
        "[runners.plugins.\"examples.semantics\"]\nconfig = { greeting = \"hi\", times = 2 }\n",
    );
    let (code, out, err) = fixture.run(&["reload"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        fixture.plugin_status("examples.semantics")["state"],
        "loaded"
    );
    let (code, greeting) = fixture.call("greet", json!({}), &[]);
    assert_eq!((code, greeting["content"].clone()), (0, json!("hi hi")));
    assert!(fixture.names(&[]).contains(&"greet".to_owned()));

    // Broken again by a reload: paused again, and `reload` says so with exit 1.
    fixture.write(
        "",
        "",
        "[runners.plugins.\"examples.semantics\"]\nconfig = { greeting = \"hi\", times = 0 }\n",
    );
    let (code, out, _) = fixture.run(&["reload"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.lines().any(|line| line.trim_start().starts_with("paused")
            && line.contains("semantics/examples.semantics: invalid configuration: times must be between 1 and 5, got 0")),
        "{out}"
    );
    assert_eq!(
        fixture.plugin_status("examples.semantics")["state"],
        "config_error"
    );
    let (code, refused) = fixture.call("greet", json!({}), &[]);
    assert_eq!(code, 1);
    assert_eq!(refused["metadata"]["error_code"], "E_PLUGIN_CONFIG_INVALID");
    // Back to the configuration it ran with: delivered again, and running.
    fixture.write(
        "",
        "",
        "[runners.plugins.\"examples.semantics\"]\nconfig = { greeting = \"hi\", times = 2 }\n",
    );
    let (code, out, err) = fixture.run(&["reload"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, greeting) = fixture.call("greet", json!({}), &[]);
    assert_eq!((code, greeting["content"].clone()), (0, json!("hi hi")));
    assert_eq!(
        fixture.json(&["status", "--json"])["runners"][0]["pid"],
        pid
    );
}

async fn call(client: &ControlClient, tool: &str, args: Value) -> ToolExecutionResult {
    let invocation = ToolInvocation::new(tool, args.as_object().unwrap().clone());
    client
        .call(invocation, ToolExecutionContext::default())
        .await
        .unwrap()
}

fn circuit(status: &Value) -> Value {
    status["circuit"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_circuit_breaker_opens_on_a_flood_of_timeouts_fails_fast_probes_and_closes() {
    let fixture = Fixture::new(
        "circuit_failure_threshold = 3\ncircuit_cooldown_ms = 1500\ncircuit_max_cooldown_ms = 60000",
        "",
        "",
    );
    let _serve = fixture.serve();
    let client = fixture.client().await;

    // A flood of concurrent calls that all time out (300 ms): the circuit opens once, after
    // the third; the late timeouts neither count nor open it again.
    let flood = (0..12).map(|_| call(&client, "nap", json!({"ms": 2000})));
    let results = futures::future::join_all(flood).await;
    for result in &results {
        assert!(!result.success);
        assert_eq!(result.metadata["error_code"], "E_TIMEOUT", "{result:?}");
    }
    let open = circuit(&fixture.plugin_status("examples.semantics"));
    assert_eq!(open["state"], "open", "{open}");
    assert_eq!(open["consecutive_failures"], 3, "{open}");
    assert_eq!(open["opened_total"], 1, "{open}");
    assert_eq!(open["last_failure"], "tool nap timed out after 300 ms");
    assert!(open["retry_in_ms"].as_u64().unwrap() <= 1500, "{open}");
    assert!(open["next_probe_at_ms"].as_u64().unwrap() > 0, "{open}");

    // Every tool of the plugin fails at once, with the reason and when to retry; the other
    // plugin of the same runner is not affected.
    let started = Instant::now();
    let refused = call(&client, "whoami", json!({})).await;
    assert!(
        started.elapsed() < Duration::from_millis(300),
        "failed fast"
    );
    assert_eq!(
        refused.metadata["error_code"], "E_CIRCUIT_OPEN",
        "{refused:?}"
    );
    assert_eq!(refused.metadata["circuit_state"], "open");
    assert!(refused.metadata["retry_in_ms"].as_u64().unwrap() <= 1500);
    assert!(
        refused.error_message.starts_with(
            "tool whoami was not called: plugin examples.semantics's the circuit breaker is \
             open after 3 consecutive failures (last: tool nap timed out after 300 ms)"
        ),
        "{}",
        refused.error_message
    );
    let twin = call(&client, "plugin_examples_semantics_twin_whoami", json!({})).await;
    assert!(twin.success, "{twin:?}");
    let (_, text, _) = fixture.run(&["status"]);
    assert!(
        text.contains("circuit open: 3 failed call(s) in a row (last: tool nap timed out after 300 ms); next probe in"),
        "{text}"
    );
    let metrics = client.metrics().await.unwrap();
    assert!(
        metrics.contains(
            "maitool_plugin_circuit_state{runner=\"semantics\",plugin=\"examples.semantics\"} 2"
        ),
        "{metrics}"
    );

    // After the cool-down one probe goes through; while it runs, other calls still fail
    // fast. It times out: the circuit opens again, for twice as long.
    eventually("the cool-down to end", || {
        circuit(&fixture.plugin_status("examples.semantics"))["state"] == "half_open"
    });
    let probe = {
        let client = fixture.client().await;
        tokio::spawn(async move { call(&client, "nap", json!({"ms": 2000})).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let busy = call(&client, "whoami", json!({})).await;
    assert_eq!(busy.metadata["error_code"], "E_CIRCUIT_OPEN", "{busy:?}");
    assert_eq!(busy.metadata["circuit_state"], "half_open");
    assert!(
        busy.error_message.contains("a probe call is in flight"),
        "{busy:?}"
    );
    let probe = probe.await.unwrap();
    assert_eq!(probe.metadata["error_code"], "E_TIMEOUT", "{probe:?}");
    let reopened = circuit(&fixture.plugin_status("examples.semantics"));
    assert_eq!(
        (reopened["state"].clone(), reopened["opened_total"].clone()),
        (json!("open"), json!(2))
    );
    assert!(
        reopened["retry_in_ms"].as_u64().unwrap() > 1500,
        "doubled: {reopened}"
    );

    // The next probe succeeds: closed, and every tool is called again.
    eventually("the second cool-down to end", || {
        circuit(&fixture.plugin_status("examples.semantics"))["state"] == "half_open"
    });
    let probe = call(&client, "nap", json!({"ms": 0})).await;
    assert!(probe.success, "{probe:?}");
    let closed = circuit(&fixture.plugin_status("examples.semantics"));
    assert_eq!(closed["state"], "closed", "{closed}");
    assert_eq!(closed["consecutive_failures"], 0);
    assert!(call(&client, "whoami", json!({})).await.success);
    let metrics = client.metrics().await.unwrap();
    assert!(
        metrics.contains(
            "maitool_plugin_circuit_opened_total{runner=\"semantics\",plugin=\"examples.semantics\"} 2"
        ),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tools_own_failures_never_open_the_circuit_and_the_breaker_can_be_turned_off() {
    for (runtime, trips) in [
        ("circuit_failure_threshold = 2", true),
        (
            "circuit_breaker = false\ncircuit_failure_threshold = 2",
            false,
        ),
    ] {
        let fixture = Fixture::new(runtime, "", "");
        let _serve = fixture.serve();
        let client = fixture.client().await;
        // Failed results are answers: the plugin works, it said no.
        for _ in 0..5 {
            let declined = call(&client, "decline", json!({})).await;
            assert_eq!(
                (declined.success, declined.error_message.as_str()),
                (false, "declined")
            );
        }
        assert!(call(&client, "whoami", json!({})).await.success);
        assert!(circuit(&fixture.plugin_status("examples.semantics")).is_null());
        for _ in 0..2 {
            let timed_out = call(&client, "nap", json!({"ms": 2000})).await;
            assert_eq!(timed_out.metadata["error_code"], "E_TIMEOUT");
        }
        let after = call(&client, "whoami", json!({})).await;
        assert_eq!(!after.success, trips, "{runtime}: {after:?}");
        let circuit = circuit(&fixture.plugin_status("examples.semantics"));
        if trips {
            assert_eq!(circuit["state"], "open", "{circuit}");
        } else {
            assert!(circuit.is_null(), "off: no circuit in status: {circuit}");
        }
    }
}

#[test]
fn bad_circuit_settings_are_configuration_errors() {
    for (runtime, problem) in [
        (
            "circuit_failure_threshold = 0",
            "plugin_runtime.circuit_failure_threshold must be greater than 0",
        ),
        (
            "circuit_cooldown_ms = 0",
            "plugin_runtime.circuit_cooldown_ms must be greater than 0",
        ),
        (
            "circuit_cooldown_ms = 5000\ncircuit_max_cooldown_ms = 1000",
            "plugin_runtime.circuit_max_cooldown_ms must be >= circuit_cooldown_ms",
        ),
    ] {
        let fixture = Fixture::new(runtime, "", "");
        let (code, _, err) = fixture.run(&["status"]);
        assert_eq!(code, 2, "{runtime}: {err}");
        assert!(err.contains(problem), "{runtime}: {err}");
    }
}
