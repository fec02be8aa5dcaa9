//! A client's first `tools/list` is complete: `maitool serve --mcp-stdio` / `--mcp-http`
//! answers `initialize` at once, and its first listing waits for the tool sources that are
//! starting normally (plugin runners, MaiBot's runner, MCP servers a moment from ready), but
//! no longer than `[host] listing_wait_ms` for one that hangs. Most clients list once, at
//! start, and never act on `notifications/tools/list_changed`: the Python MCP SDK client, MCP
//! Inspector's CLI and the TypeScript SDK v2 client are each run as such a user would.

mod mcp_front_support;
mod node_support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use maitool_e2e::maibot::maibot_python;
use maitool_e2e::workspace_bin;
use mcp_front_support::{Fixture, HttpServe, Transport, python, run_plan, run_plan_report};
use serde_json::{Value, json};

/// The context flags `mcp_front_support`'s stdio launch passes (`SERVE_FLAGS`), for the
/// listings the first one is compared with.
const CONTEXT: [&str; 4] = ["--platform", "qq", "--session-id", "default-session"];

/// An MCP server that comes up about two seconds after it is started: a source "merely a
/// moment from ready", which a front that lists at once misses.
fn slow_server(name: &str, prefix: &str) -> String {
    format!(
        "\n[[mcp.servers]]\nname = \"{name}\"\ntransport = \"stdio\"\ncommand = \"sh\"\nargs = [\"-c\", \"sleep 2; exec '{}'\"]\ntool_prefix = \"{prefix}\"\n",
        workspace_bin("maitool-example-mcp-server").display()
    )
}

/// The shipped `maitool.toml`, as a user has it, in a folder of its own: the repository's
/// `examples` and target folder linked in (its relative paths resolve as in the checkout),
/// fresh data and control socket, plus one slow MCP server. `listing_wait_ms` is raised from
/// its default (5 s) so that a runner starting slowly on a loaded CI machine is still waited
/// for: this test is about what the first listing holds, the bound is the next test's.
fn shipped_copy() -> Fixture {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::os::unix::fs::symlink(repo.join("examples"), root.join("examples")).unwrap();
    // `${CARGO_TARGET_DIR:-target}/debug/...`: the folder above the binaries' profile folder.
    let target = workspace_bin("maitool")
        .parent()
        .and_then(Path::parent)
        .expect("the target folder")
        .to_path_buf();
    std::os::unix::fs::symlink(&target, root.join("target")).unwrap();
    let shipped = std::fs::read_to_string(repo.join("maitool.toml")).expect("maitool.toml");
    let marker = "listing_wait_ms = ${MAITOOL_LISTING_WAIT_MS:-5000}";
    assert!(
        shipped.contains(marker),
        "the shipped [host] section changed"
    );
    let mut config = shipped.replacen(marker, "listing_wait_ms = 60000", 1);
    // The MaiBot runner on the environment `.ci/install-maibot-runner.sh` prepared, for every
    // process that starts this configuration (the clients launch `serve` themselves); without
    // one, the runner fails at once rather than installing one for minutes.
    let anchor = "[runners.plugins.\"examples.maibot_typed\"]";
    assert!(config.contains(anchor), "the shipped MaiBot runner changed");
    let python_env = match maibot_python() {
        Some(python) => {
            let venv = python
                .parent()
                .and_then(Path::parent)
                .expect("a venv's python");
            format!("[runners.python_env]\npath = \"{}\"\n\n", venv.display())
        }
        None => "[runners.python_env]\nauto_prepare = false\n\n".to_string(),
    };
    config = config.replacen(anchor, &format!("{python_env}{anchor}"), 1);
    config.push_str(&slow_server("slow", "slow_"));
    let path = root.join("maitool.toml");
    std::fs::write(&path, config).unwrap();
    Fixture {
        config: path,
        control: root.join(".maitool/control.sock"),
        dir,
    }
}

/// Every tool of `fixture` once all its sources are up: a plain `serve` (which waits for its
/// sources before it answers) asked through its control socket.
fn settled_names(fixture: &Fixture) -> BTreeSet<String> {
    let mut serve = fixture
        .maitool()
        .arg("serve")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    // The socket is bound before the host starts, and answers once it has: a plain serve
    // waits for every source first, so this listing is the settled one.
    while !fixture.control.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "serve never opened its control socket"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = fixture
        .maitool()
        .args(["tools", "--json"])
        .args(CONTEXT)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let names = names_of(&serde_json::from_slice(&output.stdout).unwrap(), "name");
    let _ = serve.kill();
    let _ = serve.wait();
    let _ = std::fs::remove_file(&fixture.control);
    names
}

fn names_of(tools: &Value, key: &str) -> BTreeSet<String> {
    tools
        .as_array()
        .unwrap_or_else(|| panic!("no tool list in {tools}"))
        .iter()
        .map(|tool| tool[key].as_str().unwrap().to_owned())
        .collect()
}

fn assert_complete(who: &str, first: &BTreeSet<String>, settled: &BTreeSet<String>) {
    let missing: Vec<_> = settled.difference(first).collect();
    assert!(
        missing.is_empty(),
        "{who}'s first tools/list missed {} of {} tools: {missing:?}",
        missing.len(),
        settled.len()
    );
}

#[test]
fn python_sdk_and_mcp_inspector_get_every_tool_of_the_shipped_config_on_their_first_listing() {
    let Some(python) = python() else { return };
    let fixture = shipped_copy();
    let settled = settled_names(&fixture);
    for expected in [
        "quote_order", // MaiBot's runner
        "roll_dice",   // a Rust runner
        "slow_echo",   // the slow MCP server
        "tool_search", // built-in
    ] {
        assert!(settled.contains(expected), "{expected} in {settled:?}");
    }

    for mode in ["legacy", "auto"] {
        let plan = json!([{"id": "first", "kind": "list_all"}]);
        let results = run_plan(
            &python,
            &fixture,
            Transport::Stdio,
            None,
            mode,
            plan,
            |_| {},
        );
        let first = names_of(&results["first"]["tools"], "name");
        assert_complete(&format!("the Python SDK ({mode})"), &first, &settled);
    }

    // MCP Inspector's CLI, as `npx @modelcontextprotocol/inspector --cli ...` runs it.
    let Some(inspector) = node_support::inspector() else {
        return;
    };
    let mut command = Command::new("node");
    // `--` ends the inspector's own options (it has a `--config` of its own).
    command
        .arg(inspector)
        .args(["--cli", "--method", "tools/list", "--"])
        .arg(workspace_bin("maitool"))
        .arg("--config")
        .arg(&fixture.config)
        .arg("--control-socket")
        .arg(&fixture.control)
        .args(["serve", "--mcp-stdio", "--mcp-platform", "qq"])
        .args(["--mcp-session-id", "default-session"]);
    let output = command.output().expect("the inspector runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "inspector failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listing: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|err| panic!("the inspector printed no JSON ({err}): {stdout}"));
    let first = names_of(&listing["tools"], "name");
    assert_complete("MCP Inspector", &first, &settled);
}

/// The bound of [`with_a_hung_server`]: well above the slow server's 2 s, so that a loaded
/// machine still brings it up in time, and far below the hung server's 30 s connect timeout.
const BOUND: Duration = Duration::from_secs(6);

/// The fixture's runners and example MCP server, a slow MCP server (about 2 s), a hung one,
/// and [`BOUND`].
fn with_a_hung_server() -> Fixture {
    let fixture = Fixture::new();
    let mut config = std::fs::read_to_string(&fixture.config).unwrap();
    config = config.replacen(
        "enable_builtin = true\n",
        &format!(
            "enable_builtin = true\nlisting_wait_ms = {}\n",
            BOUND.as_millis()
        ),
        1,
    );
    config.push_str(
        "\n[[mcp.servers]]\nname = \"hung\"\ntransport = \"stdio\"\ncommand = \"sleep\"\nargs = [\"600\"]\n",
    );
    config.push_str(&slow_server("slow", "slow_"));
    std::fs::write(&fixture.config, config).unwrap();
    fixture
}

#[test]
fn a_hung_mcp_server_delays_initialize_not_at_all_and_the_first_listing_no_longer_than_the_bound() {
    let Some(python) = python() else { return };
    let fixture = with_a_hung_server();
    let serve = HttpServe::start(&fixture);
    let plan = json!([{"id": "first", "kind": "list_all"}]);
    let report = run_plan_report(
        &python,
        &fixture,
        Transport::Http,
        Some(&serve.url),
        "legacy",
        plan,
        |_| {},
    );
    assert!(
        report.connect_seconds < 1.0,
        "initialize took {:.2} s",
        report.connect_seconds
    );
    let first = &report.results["first"];
    let elapsed = first["elapsed"].as_f64().unwrap();
    // The gate opens BOUND after the host started; the client connected some time after that
    // start, so its listing waits less, never more (plus a margin for a loaded machine).
    assert!(
        elapsed < BOUND.as_secs_f64() + 1.5,
        "the first listing took {elapsed:.2} s"
    );
    let names = names_of(&first["tools"], "name");
    for expected in ["slow_echo", "ex_echo", "roll_dice", "tool_search"] {
        assert!(
            names.contains(expected),
            "the first listing holds the sources that were a moment from ready: {expected} not in {names:?}"
        );
    }
    let status = fixture.query(&["status", "--json"]);
    let hung = status["mcp_servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|server| server["name"] == "hung")
        .unwrap_or_else(|| panic!("no hung server in {status}"));
    assert_ne!(hung["state"], "connected", "{hung}");
    assert!(serve.stop().success());
    let log = std::fs::read_to_string(fixture.dir.path().join("serve.stderr")).unwrap();
    assert!(
        log.contains(&format!(
            "listing without sources not up after {} ms",
            BOUND.as_millis()
        )) && log.contains("MCP server hung connecting"),
        "the log names the hung server: {log}"
    );
}

/// One-shot `tools` with a hung MCP server: no longer than the bound, the hung server named
/// on stderr and exit 3, every other source listed.
#[test]
fn a_one_shot_listing_waits_for_a_hung_server_no_longer_than_the_bound() {
    let fixture = with_a_hung_server();
    let started = std::time::Instant::now();
    let output = fixture
        .maitool()
        .args(["tools", "--json"])
        .output()
        .expect("maitool runs");
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        took < BOUND + Duration::from_secs(4),
        "a hung server's 30 s connect timeout held the listing: {took:?}"
    );
    assert!(stderr.contains("MCP server hung"), "{stderr}");
    let names = names_of(&serde_json::from_slice(&output.stdout).unwrap(), "name");
    for expected in ["slow_echo", "ex_echo", "roll_dice"] {
        assert!(names.contains(expected), "{expected} not in {names:?}");
    }
}
