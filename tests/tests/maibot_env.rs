//! The managed Python environment of a MaiBot runner, end to end: a configuration without
//! `python`, plugin folders that declare packages (or import the baseline's without declaring
//! them), and the real `maitool` preparing a venv from PyPI with uv (or pip), MaiBot's real
//! runner loading the plugins, their tools answering. Nothing is installed by hand.
//!
//! Needs a Python 3.12+ (found as the host finds it) and PyPI; without the Python these tests
//! skip loudly, except under `MAITOOL_REQUIRE_MAIBOT=1` (CI), where they fail.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use maitool_e2e::cli::Maitool;
use maitool_e2e::maibot_env::base_python_found;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

/// How long a first preparation may take (a cold cache downloads MaiBot's runner and the
/// baseline, about 60 MB).
const PREPARE_LIMIT: Duration = Duration::from_secs(600);

/// A tiny pure-Python package from PyPI, pinned, that nothing else installs.
const COWSAY: &str = "==6.1";

/// A configuration with one MaiBot runner whose environment maitool manages, in a temporary
/// folder, and the plugin folders the test writes.
struct Managed {
    dir: tempfile::TempDir,
}

impl Managed {
    fn new() -> Managed {
        let managed = Managed {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(managed.plugins()).unwrap();
        managed.configure("");
        managed
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn plugins(&self) -> PathBuf {
        self.root().join("plugins")
    }

    fn venv(&self) -> PathBuf {
        self.root().join("data/maibot-venv/maibot")
    }

    /// Writes the configuration; `python_env` is the runner's `[runners.python_env]` body.
    fn configure(&self, python_env: &str) {
        let root = self.root().display();
        std::fs::write(
            self.root().join("maitool.toml"),
            format!(
                "[host]\ncontrol_socket = \"{root}/control.sock\"\ndata_dir = \"{root}/data\"\n\
                 enable_builtin = false\n\n\
                 [[runners]]\nname = \"maibot\"\nkind = \"maibot\"\nplugin_dirs = [\"plugins\"]\n\n\
                 [runners.python_env]\n{python_env}\n"
            ),
        )
        .unwrap();
    }

    /// Writes a plugin folder: `dependencies` goes into its manifest as it is, and its one
    /// tool, `tool`, returns what `body` (Python, in an async function) returns.
    fn plugin(
        &self,
        folder: &str,
        id: &str,
        dependencies: Value,
        imports: &str,
        tool: &str,
        body: &str,
    ) {
        let dir = self.plugins().join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        let manifest = json!({
            "manifest_version": 2,
            "id": id,
            "version": "1.0.0",
            "name": folder,
            "description": "a plugin of the managed-environment tests",
            "author": {"name": "maitool tests", "url": "https://example.invalid/maitool"},
            "license": "MIT",
            "urls": {"repository": "https://example.invalid/maitool"},
            "host_application": {"min_version": "1.0.0", "max_version": "1.99.99"},
            "sdk": {"min_version": "2.0.0", "max_version": "2.99.99"},
            "dependencies": dependencies,
            "capabilities": [],
            "i18n": {"default_locale": "en-US", "supported_locales": ["en-US"]},
        });
        std::fs::write(dir.join("_manifest.json"), manifest.to_string()).unwrap();
        let code = format!(
            "from typing import Any\n\
             {imports}\n\
             from maibot_sdk import MaiBotPlugin, Tool\n\
             from maibot_sdk.types import ToolParameterInfo, ToolParamType\n\n\
             class TestPlugin(MaiBotPlugin):\n\
             \x20   async def on_load(self) -> None:\n        pass\n\n\
             \x20   async def on_unload(self) -> None:\n        pass\n\n\
             \x20   async def on_config_update(self, scope: str, config_data: dict[str, Any], version: str) -> None:\n        pass\n\n\
             \x20   @Tool(\"{tool}\", description=\"test tool\", parameters=[ToolParameterInfo(name=\"text\", param_type=ToolParamType.STRING, description=\"text\")], core_tool=True)\n\
             \x20   async def handle(self, text: str, **kwargs: Any) -> dict[str, Any]:\n\
             \x20       return {{\"content\": {body}}}\n\n\
             def create_plugin() -> TestPlugin:\n    return TestPlugin()\n"
        );
        std::fs::write(dir.join("plugin.py"), code).unwrap();
    }

    /// The plugin that declares cowsay and says the text through it.
    fn cow_plugin(&self, folder: &str, id: &str, spec: &str, tool: &str) {
        self.plugin(
            folder,
            id,
            json!([{"type": "python_package", "name": "cowsay", "version_spec": spec}]),
            "import cowsay",
            tool,
            "cowsay.get_output_string('cow', text)",
        );
    }

    /// The plugin that imports the baseline's httpx and numpy without declaring them.
    fn baseline_plugin(&self) {
        self.plugin(
            "fetcher",
            "tests.undeclared",
            json!([]),
            "import httpx\nimport numpy",
            "versions",
            "f'{text}: httpx {httpx.__version__}, numpy {numpy.__version__}'",
        );
    }

    fn cli(&self) -> Maitool {
        Maitool::new(
            &self.root().join("maitool.toml"),
            &self.root().join("control.sock"),
        )
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.cli().run(args)
    }

    fn json(&self, args: &[&str]) -> Value {
        self.cli().json(args)
    }

    /// Calls `tool`; the result's text, asserting success.
    fn call(&self, tool: &str, text: &str) -> String {
        let args = json!({ "text": text }).to_string();
        let (code, out, err) = self.run(&["call", tool, "--args", &args, "--json"]);
        let result: Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("call {tool}: no JSON ({e}): {out}\n{err}"));
        assert_eq!(code, 0, "call {tool} failed: {result}\n{err}");
        result["content"].as_str().unwrap_or_default().to_owned()
    }

    fn runner(&self) -> Value {
        self.json(&["status", "--json"])["runners"][0].clone()
    }

    fn plugin_status(&self, id: &str) -> Value {
        let runner = self.runner();
        runner["plugins"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} not in {runner}"))
    }

    /// Waits until the runner is ready after `restarts` restarts.
    fn wait_ready(&self, restarts: u64, limit: Duration) -> Value {
        let deadline = Instant::now() + limit;
        loop {
            let runner = self.runner();
            if runner["state"] == "ready" && runner["restart_count"] == restarts {
                return runner;
            }
            assert!(Instant::now() < deadline, "runner not ready: {runner}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until a runner other than the one with `old_pid` is ready: a reload that
    /// restarts the runner starts a new one (its restart count starts again at 0).
    fn wait_relaunched(&self, old_pid: &Value, limit: Duration) -> Value {
        let deadline = Instant::now() + limit;
        loop {
            let runner = self.runner();
            if runner["state"] == "ready" && runner["pid"].is_u64() && &runner["pid"] != old_pid {
                return runner;
            }
            assert!(Instant::now() < deadline, "runner not relaunched: {runner}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn stamp(&self) -> Value {
        let text = std::fs::read_to_string(self.venv().join("maitool-env.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// `maitool serve` with its JSON log collected; returns once it serves.
    fn serve(&self) -> Serve {
        let mut child = self
            .cli()
            .command()
            .args(["--log-format", "json", "serve"])
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("serve starts");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        let serve = Serve { child, lines };
        serve.wait_for(|line| line["fields"]["message"] == "maitool is serving");
        serve
    }
}

struct Serve {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Serve {
    fn log(&self) -> Vec<Value> {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    fn messages(&self) -> Vec<String> {
        self.log()
            .iter()
            .filter_map(|line| line["fields"]["message"].as_str().map(str::to_owned))
            .collect()
    }

    fn wait_for(&self, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(line) = self.log().into_iter().find(|line| wanted(line)) {
                return line;
            }
            assert!(
                Instant::now() < deadline,
                "log line not found in:\n{}",
                self.lines.lock().unwrap().join("\n")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops serve with SIGTERM and waits for it.
    fn stop(mut self) {
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM);
        let _ = self.child.wait();
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM);
        let _ = self.child.wait();
    }
}

fn reason(plugin: &Value) -> String {
    plugin["reason"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn serve_prepares_a_fresh_environment_and_a_second_start_installs_nothing() {
    if !base_python_found("the managed MaiBot environment tests") {
        return;
    }
    let managed = Managed::new();
    managed.cow_plugin("cow", "tests.cow", COWSAY, "cow_say");
    managed.baseline_plugin();

    // A one-shot command never installs: it says which command prepares the environment.
    let (code, _, err) = managed.run(&["status"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("is not prepared"), "{err}");
    assert!(err.contains("`maitool prepare maibot`"), "{err}");
    assert!(
        !managed.venv().exists(),
        "a one-shot command installed something"
    );

    let serve = managed.serve();
    // serve answers at once while the runner's environment is prepared in the background.
    let runner = managed.runner();
    assert_eq!(runner["state"], "preparing", "{runner}");
    assert_eq!(runner["environment"]["state"], "preparing", "{runner}");
    assert!(runner["environment"]["detail"].is_string(), "{runner}");
    managed.wait_ready(0, PREPARE_LIMIT);
    assert_eq!(managed.plugin_status("tests.cow")["state"], "loaded");
    assert_eq!(managed.plugin_status("tests.undeclared")["state"], "loaded");
    let said = managed.call("cow_say", "moo from maitool");
    assert!(
        said.contains("moo from maitool") && said.contains("^__^"),
        "{said}"
    );
    let versions = managed.call("versions", "baseline");
    assert_eq!(versions, "baseline: httpx 0.29.0, numpy 2.5.5");
    // The installer's progress reached the log, tagged with the runner.
    let progress: Vec<Value> = serve
        .log()
        .into_iter()
        .filter(|l| l["target"] == "maitool::maibot_env" && l["fields"]["runner"] == "maibot")
        .collect();
    assert!(
        progress
            .iter()
            .any(|l| l["fields"]["message"] == " + cowsay==6.1"),
        "{progress:?}"
    );
    let stamp = managed.stamp();
    assert_eq!(
        stamp["plugins"]["tests.cow"]["requires"],
        json!(["cowsay==6.1"])
    );
    assert_eq!(
        stamp["plugins"]["tests.cow"]["outcome"]["installed"]["added"],
        json!({"cowsay": "6.1"})
    );
    serve.stop();

    // The second start: the stamp matches, so nothing runs and nothing is installed.
    let stamped = std::fs::metadata(managed.venv().join("maitool-env.json"))
        .unwrap()
        .modified()
        .unwrap();
    let serve = managed.serve();
    let runner = managed.wait_ready(0, Duration::from_secs(60));
    assert_eq!(runner["environment"]["state"], "ready", "{runner}");
    assert_eq!(runner["environment"]["installed"], json!([]), "{runner}");
    assert!(
        !serve
            .messages()
            .iter()
            .any(|m| m.starts_with("preparing the Python environment")),
        "{:?}",
        serve.messages()
    );
    assert_eq!(
        std::fs::metadata(managed.venv().join("maitool-env.json"))
            .unwrap()
            .modified()
            .unwrap(),
        stamped
    );
    assert!(managed.call("cow_say", "again").contains("again"));
    serve.stop();

    // And a one-shot command now runs on the prepared environment.
    let (code, out, err) = managed.run(&["status", "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");
}

#[test]
fn conflicts_refuse_the_plugin_that_brings_them_with_both_sides_named() {
    if !base_python_found("the managed MaiBot environment tests") {
        return;
    }
    let managed = Managed::new();
    // pip, not uv: the fallback path prepares the same environment.
    managed.configure("installer = \"pip\"");
    managed.cow_plugin("a_cow", "tests.cow", COWSAY, "cow_say");
    managed.cow_plugin("b_cow", "tests.older_cow", "==6.0", "older_cow_say");
    managed.plugin(
        "old_pydantic",
        "tests.old_pydantic",
        json!([{"name": "pydantic", "version": "<2", "reason": "written for pydantic 1"}]),
        "",
        "old",
        "text",
    );
    // `maitool prepare` ahead of time: the environment is made, two plugins refused (exit 1).
    let (code, out, err) = managed.run(&["prepare"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("runner maibot: prepared"), "{out}");
    assert!(
        out.contains("installed cowsay==6.1 for plugin tests.cow"),
        "{out}"
    );
    assert!(
        out.contains("plugin tests.older_cow will not load"),
        "{out}"
    );
    assert!(
        err.contains("Successfully installed cowsay-6.1"),
        "pip's output: {err}"
    );
    assert_eq!(managed.stamp()["base"]["installer"], "pip");

    let _serve = managed.serve();
    managed.wait_ready(0, Duration::from_secs(120));
    assert_eq!(managed.plugin_status("tests.cow")["state"], "loaded");
    let older = managed.plugin_status("tests.older_cow");
    assert_eq!(older["state"], "failed", "{older}");
    let why = reason(&older);
    assert!(why.contains("cowsay==6.0"), "{why}");
    assert!(
        why.contains("plugin tests.cow, which needs cowsay==6.1"),
        "{why}"
    );
    let pydantic = managed.plugin_status("tests.old_pydantic");
    assert_eq!(pydantic["state"], "failed", "{pydantic}");
    let why = reason(&pydantic);
    assert!(why.contains("pydantic<2"), "{why}");
    assert!(why.contains("pydantic 2.14.4"), "{why}");
    assert!(why.contains("MaiBot's runner"), "{why}");
    // `plugins` shows the same reasons; the refused plugins' tools are not there.
    let (_, listing, _) = managed.run(&["plugins"]);
    assert!(
        listing.contains("tests.older_cow") && listing.contains("cowsay==6.0"),
        "{listing}"
    );
    let tools = managed.json(&["tools", "--json"]);
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"cow_say") && !names.contains(&"older_cow_say"),
        "{names:?}"
    );
    assert!(managed.call("cow_say", "still here").contains("still here"));
}

#[test]
fn reload_installs_a_changed_manifests_package_and_no_network_blocks_with_the_command() {
    if !base_python_found("the managed MaiBot environment tests") {
        return;
    }
    let managed = Managed::new();
    managed.baseline_plugin();
    let _serve = managed.serve();
    let first = managed.wait_ready(0, PREPARE_LIMIT);
    assert_eq!(managed.plugin_status("tests.undeclared")["state"], "loaded");

    // The plugin's manifest now declares cowsay, and its code uses it: reload installs it.
    managed.plugin(
        "fetcher",
        "tests.undeclared",
        json!([{"type": "python_package", "name": "cowsay", "version_spec": COWSAY}]),
        "import cowsay",
        "versions",
        "cowsay.get_output_string('cow', text)",
    );
    let (code, out, err) = managed.run(&["reload"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("restarted") && out.contains("maibot"), "{out}");
    let runner = managed.wait_relaunched(&first["pid"], Duration::from_secs(180));
    assert_eq!(
        runner["environment"]["installed"],
        json!(["installed cowsay==6.1 for plugin tests.undeclared"]),
        "{runner}"
    );
    assert!(managed.call("versions", "new package").contains("^__^"));

    // No network: the package index is a closed local port. A new plugin cannot get its
    // package; it is blocked with the package and the command, and the others still serve.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    managed.configure(&format!("index_url = \"http://127.0.0.1:{port}/simple\""));
    managed.plugin(
        "offline",
        "tests.offline",
        json!([{"type": "python_package", "name": "text-unidecode", "version_spec": "==1.3"}]),
        "import text_unidecode",
        "unidecode",
        "text_unidecode.unidecode(text)",
    );
    let (code, out, err) = managed.run(&["reload"]);
    assert_eq!(code, 0, "{out}\n{err}");
    managed.wait_relaunched(&runner["pid"], Duration::from_secs(180));
    let offline = managed.plugin_status("tests.offline");
    assert_eq!(offline["state"], "failed", "{offline}");
    let why = reason(&offline);
    assert!(why.contains("text-unidecode==1.3"), "{why}");
    assert!(why.contains("could not be reached"), "{why}");
    assert!(why.contains("`maitool prepare maibot`"), "{why}");
    assert!(why.contains(&format!("127.0.0.1:{port}")), "{why}");
    assert_eq!(managed.plugin_status("tests.undeclared")["state"], "loaded");
    assert!(managed.call("versions", "offline").contains("offline"));
    // The failure is not recorded: the next preparation tries again.
    assert!(managed.stamp()["plugins"].get("tests.offline").is_none());
}

#[test]
fn prepare_names_only_maibot_runners() {
    let managed = Managed::new();
    let (code, _, err) = managed.run(&["prepare", "nosuch"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no enabled MaiBot runner"), "{err}");
    assert!(err.contains("MaiBot runners: maibot"), "{err}");
}
