//! Support for the MCP front tests: a host configuration over the example runners and the
//! example MCP server, `maitool serve --mcp-http` as a child process, and the Python MCP
//! client (tests/python/mcp_front_client.py) run on a plan of steps.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use maitool_e2e::workspace_bin;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

/// How long one Python client run may take before the test gives up on it.
const CLIENT_LIMIT: Duration = Duration::from_secs(120);

/// The venv's Python with the `mcp` package, or `None` (after a loud message) when it is
/// not installed. With `MAITOOL_REQUIRE_PYTHON_MCP=1` (CI) a missing client is a failure.
pub fn python() -> Option<PathBuf> {
    maitool_e2e::venv::Venv {
        env_var: "MAITOOL_PY_VENV",
        default_dir: "maitool-py-venv",
        check: "import mcp.client.stdio, mcp.client.streamable_http",
        needed_by: "the MCP front test",
        installer: ".ci/install-python-mcp.sh",
        holds: "the Python MCP client",
        require_var: "MAITOOL_REQUIRE_PYTHON_MCP",
    }
    .python()
}

/// Which transport and handshake the Python client uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// The client launches `maitool serve --mcp-stdio`.
    Stdio,
    /// The client connects to `maitool serve --mcp-http`.
    Http,
}

/// A temporary host configuration: the dice, media and misbehaving runners, the example MCP
/// server (tools prefixed `ex_`) and the built-in tools, all with absolute paths.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub config: PathBuf,
    pub control: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        let bin = |name: &str| workspace_bin(name).display().to_string();
        let config = format!(
            r#"
[host]
control_socket = "{control}"
data_dir = "{data}"
socket_dir = "{root}"
enable_builtin = true

[plugin_runtime]
health_check_interval_ms = 500
health_check_timeout_ms = 1000
restart_window_ms = 60000
max_restarts = 5

[[runners]]
name = "dice"
executable = "{dice}"

[[runners]]
name = "media"
executable = "{media}"

[[runners]]
name = "misbehaving"
executable = "{misbehaving}"

[mcp]
enable = true

[[mcp.servers]]
name = "example"
transport = "stdio"
command = "{mcp}"
tool_prefix = "ex_"

[builtin]
database = "{data}/maitool.sqlite3"
"#,
            control = root.join("control.sock").display(),
            data = root.join("data").display(),
            root = root.display(),
            dice = bin("maitool-example-dice"),
            media = bin("maitool-example-media"),
            misbehaving = bin("maitool-example-misbehaving"),
            mcp = bin("maitool-example-mcp-server"),
        );
        let path = root.join("maitool.toml");
        std::fs::write(&path, config).expect("config written");
        Fixture {
            config: path,
            control: root.join("control.sock"),
            dir,
        }
    }

    /// `maitool --config C --control-socket S ARGS...` (the part before the verb).
    pub fn maitool(&self) -> Command {
        let mut command = Command::new(workspace_bin("maitool"));
        command
            .arg("--config")
            .arg(&self.config)
            .arg("--control-socket")
            .arg(&self.control);
        command
    }

    /// Runs a verb against the running host and parses its JSON output.
    pub fn query(&self, args: &[&str]) -> Value {
        // Without a running host, the verbs would start one of their own and answer for it.
        assert!(
            self.control.exists(),
            "no maitool serve answers on {}",
            self.control.display()
        );
        let output = self.maitool().args(args).output().expect("maitool runs");
        assert!(
            output.status.success(),
            "maitool {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|err| panic!("maitool {args:?} printed no JSON ({err})"))
    }

    /// Waits (up to 60 s) until every runner is ready and every MCP server connected:
    /// `serve` with a front answers before its sources are up.
    pub fn wait_settled(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let status = self.query(&["status", "--json"]);
            let all = |key: &str, state: &str| {
                status[key]
                    .as_array()
                    .is_some_and(|items| items.iter().all(|item| item["state"] == state))
            };
            if all("runners", "ready") && all("mcp_servers", "connected") {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "sources not up within 60 s: {status}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The runner's pid from `maitool status --json`.
    pub fn runner(&self, name: &str) -> Value {
        let status = self.query(&["status", "--json"]);
        status["runners"]
            .as_array()
            .and_then(|runners| runners.iter().find(|r| r["name"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("no runner {name} in {status}"))
    }
}

/// The `serve` options every test uses: two tools per page (so listing takes many pages),
/// progress every 200 ms, and a default chat context.
pub const SERVE_FLAGS: [&str; 8] = [
    "--mcp-page-size",
    "2",
    "--mcp-progress-interval-ms",
    "200",
    "--mcp-platform",
    "qq",
    "--mcp-session-id",
    "default-session",
];

/// `maitool serve --mcp-http 127.0.0.1:0` in the background; stopped with SIGTERM on drop.
pub struct HttpServe {
    child: Child,
    pub url: String,
    stderr: PathBuf,
}

impl HttpServe {
    pub fn start(fixture: &Fixture) -> HttpServe {
        HttpServe::start_with(fixture, &SERVE_FLAGS)
    }

    /// `serve --mcp-http 127.0.0.1:0` with `flags` instead of [`SERVE_FLAGS`].
    pub fn start_with(fixture: &Fixture, flags: &[&str]) -> HttpServe {
        let stderr = fixture.dir.path().join("serve.stderr");
        let mut child = fixture
            .maitool()
            .args(["serve", "--mcp-http", "127.0.0.1:0"])
            .args(flags)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"))
            .spawn()
            .expect("maitool serve starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let url = rx.recv_timeout(Duration::from_secs(60)).unwrap_or_default();
        let url = url.trim().to_owned();
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
            "serve printed no URL ({url:?}); stderr:\n{}",
            std::fs::read_to_string(&stderr).unwrap_or_default()
        );
        HttpServe { child, url, stderr }
    }

    /// SIGTERM, then the exit status.
    pub fn stop(mut self) -> std::process::ExitStatus {
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "serve did not stop within 15 s of SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for HttpServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the Python client on `plan` and returns its results by step id. `on_ready` runs for
/// each `ready` step while the client waits for the next one.
pub fn run_plan(
    python: &Path,
    fixture: &Fixture,
    transport: Transport,
    url: Option<&str>,
    mode: &str,
    plan: Value,
    on_ready: impl FnMut(&str),
) -> Value {
    run_plan_report(python, fixture, transport, url, mode, plan, on_ready).results
}

/// What the Python client reported of a plan.
pub struct PlanReport {
    /// The results by step id.
    pub results: Value,
    /// How long the client took to connect (over HTTP, the handshake alone).
    pub connect_seconds: f64,
}

/// [`run_plan`], with how long the client took to connect.
pub fn run_plan_report(
    python: &Path,
    fixture: &Fixture,
    transport: Transport,
    url: Option<&str>,
    mode: &str,
    plan: Value,
    on_ready: impl FnMut(&str),
) -> PlanReport {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/mcp_front_client.py");
    let command = |plan: &Path| {
        let mut command = Command::new(python);
        command
            .arg(&script)
            .arg("--plan")
            .arg(plan)
            .arg("--mode")
            .arg(mode);
        match transport {
            Transport::Http => {
                command.arg("--url").arg(url.expect("an HTTP URL"));
            }
            Transport::Stdio => {
                command
                    .arg("--stdio")
                    .arg(workspace_bin("maitool"))
                    .arg("--config")
                    .arg(&fixture.config)
                    .arg("--control-socket")
                    .arg(&fixture.control)
                    .args(["serve", "--mcp-stdio"])
                    .args(SERVE_FLAGS);
            }
        }
        command
    };
    let report =
        maitool_e2e::plan_client::run(command, fixture.dir.path(), &plan, CLIENT_LIMIT, on_ready);
    PlanReport {
        results: report["results"].clone(),
        connect_seconds: report["connect_seconds"]
            .as_f64()
            .expect("the client reports connect_seconds"),
    }
}

/// The MCP tool the front should list for a `ToolSpec` from `maitool tools --json`, built
/// from the mapping rules in docs/MCP_SERVER.md.
pub fn expected_tool(spec: &Value) -> Value {
    let mut tool = json!({ "name": spec["name"] });
    let mut input = spec["parameters_schema"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    if input.is_empty() {
        input.insert("properties".into(), json!({}));
    }
    input.entry("type").or_insert(json!("object"));
    tool["inputSchema"] = Value::Object(input);
    let description = spec["description"].as_str().unwrap_or_default().trim();
    if !description.is_empty() {
        tool["description"] = json!(description);
    }
    let annotation = &spec["annotation"];
    let annotation_title = annotation["title"].as_str().unwrap_or_default().trim();
    let title = spec["title"].as_str().unwrap_or_default().trim();
    if !title.is_empty() {
        tool["title"] = json!(title);
    } else if !annotation_title.is_empty() {
        tool["title"] = json!(annotation_title);
    }
    if !spec["output_schema"].is_null() {
        tool["outputSchema"] = spec["output_schema"].clone();
    }
    let icons: Vec<Value> = spec["icons"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|icon| {
            let mut mapped = json!({ "src": icon["src"] });
            if icon["mime_type"].as_str().is_some_and(|m| !m.is_empty()) {
                mapped["mimeType"] = icon["mime_type"].clone();
            }
            if icon["sizes"].as_array().is_some_and(|s| !s.is_empty()) {
                mapped["sizes"] = icon["sizes"].clone();
            }
            mapped
        })
        .collect();
    if !icons.is_empty() {
        tool["icons"] = Value::Array(icons);
    }
    let mut meta = spec["metadata"].as_object().cloned().unwrap_or_default();
    if annotation.is_object() {
        let mut hints = serde_json::Map::new();
        if !annotation_title.is_empty() {
            hints.insert("title".into(), json!(annotation_title));
        }
        for (from, to) in [
            ("read_only", "readOnlyHint"),
            ("destructive", "destructiveHint"),
            ("idempotent", "idempotentHint"),
            ("open_world", "openWorldHint"),
        ] {
            if annotation[from].is_boolean() {
                hints.insert(to.into(), annotation[from].clone());
            }
        }
        if !hints.is_empty() {
            tool["annotations"] = Value::Object(hints);
        }
        if annotation["audience"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
        {
            meta.insert("maitool/audience".into(), annotation["audience"].clone());
        }
        if annotation["priority"].is_number() {
            meta.insert("maitool/priority".into(), annotation["priority"].clone());
        }
        if annotation["metadata"]
            .as_object()
            .is_some_and(|m| !m.is_empty())
        {
            meta.insert(
                "maitool/annotation_metadata".into(),
                annotation["metadata"].clone(),
            );
        }
    }
    meta.insert(
        "maitool/provider_name".into(),
        spec["provider_name"].clone(),
    );
    meta.insert(
        "maitool/provider_type".into(),
        spec["provider_type"].clone(),
    );
    tool["_meta"] = Value::Object(meta);
    tool
}

/// The text of a call result's text blocks.
pub fn texts(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|block| block["type"] == "text")
        .filter_map(|block| block["text"].as_str().map(str::to_owned))
        .collect()
}

/// The first block of a type.
pub fn block<'a>(result: &'a Value, kind: &str) -> &'a Value {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|block| block["type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} block in {result}"))
}
