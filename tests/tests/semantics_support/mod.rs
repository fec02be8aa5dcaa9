//! The fixture of the tool-semantics tests (`tool_semantics.rs`, `config_pause.rs`,
//! `circuit_breaker.rs`): a temporary `maitool serve` over the built-in tools, the semantics
//! runner (`maitool-example-semantics`, two plugins) and the example MCP server without a
//! prefix; `maitool` verbs and control-socket calls against it.

#![allow(dead_code)] // Each test file uses a different part.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use maitool_e2e::cli::Maitool;
use maitool_e2e::workspace_bin;
use maitool_host::control::ControlClient;
use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation};
use serde_json::{Value, json};

use crate::ops_support::Serve;

/// A temporary host: the built-in tools, the semantics runner (its two plugins) and the
/// example MCP server without a prefix.
pub struct Fixture {
    dir: tempfile::TempDir,
    pub cli: Maitool,
}

impl Fixture {
    /// `runtime` goes into `[plugin_runtime]`, `runner` into the semantics runner's table,
    /// `extra` at the end.
    pub fn new(runtime: &str, runner: &str, extra: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("maitool.toml");
        let cli = Maitool::new(&config, &dir.path().join("control.sock"));
        let fixture = Fixture { dir, cli };
        fixture.write(runtime, runner, extra);
        fixture
    }

    pub fn write(&self, runtime: &str, runner: &str, extra: &str) {
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
    pub fn serve(&self) -> Serve {
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

    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.cli.run(args)
    }

    pub fn json(&self, args: &[&str]) -> Value {
        self.cli.json(args)
    }

    /// `call TOOL --args ARGS --json` with more flags; (exit code, the printed result).
    pub fn call(&self, tool: &str, args: Value, flags: &[&str]) -> (i32, Value) {
        let args = args.to_string();
        let mut argv = vec!["call", tool, "--args", args.as_str(), "--json"];
        argv.extend_from_slice(flags);
        let (code, out, err) = self.run(&argv);
        let result = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("call {tool} printed no JSON ({e}): {out}\n{err}"));
        (code, result)
    }

    pub fn names(&self, flags: &[&str]) -> Vec<String> {
        let mut argv = vec!["tools", "--json"];
        argv.extend_from_slice(flags);
        names(&self.json(&argv))
    }

    pub fn plugin_status(&self, id: &str) -> Value {
        let status = self.json(&["status", "--json"]);
        status["runners"][0]["plugins"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} not in {status}"))
    }

    pub async fn client(&self) -> ControlClient {
        ControlClient::connect(&self.cli.control)
            .await
            .expect("serve answers on its control socket")
    }
}

pub fn names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {tools}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

pub fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed in {tools}"))
}

/// Polls `done` every 50 ms for up to 30 s.
pub fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub struct McpStdio {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl McpStdio {
    pub fn start(fixture: &Fixture) -> McpStdio {
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

    pub fn request(&mut self, method: &str, params: Value) -> Value {
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

    pub fn tool_names(&mut self) -> Vec<String> {
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

/// A call through `serve`'s control socket, in an empty context.
pub async fn call(client: &ControlClient, tool: &str, args: Value) -> ToolExecutionResult {
    let invocation = ToolInvocation::new(tool, args.as_object().unwrap().clone());
    client
        .call(invocation, ToolExecutionContext::default())
        .await
        .unwrap()
}

/// The `circuit` of a plugin's status.
pub fn circuit(status: &Value) -> Value {
    status["circuit"].clone()
}
