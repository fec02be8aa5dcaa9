//! Support for the interop tests that use the TypeScript MCP SDK (`@modelcontextprotocol/sdk`
//! from npm, installed at pinned versions by `.ci/install-node-mcp.sh`): finding an installed
//! version, and running its client (tests/node/mcp_client.mjs) on a plan of steps.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

/// The old v1 SDK: protocol 2024-11-05, stdio only (no Streamable HTTP client).
pub const SDK_OLD: &str = "1.0.4";
/// The current v1 SDK: protocol 2025-11-25, stdio and Streamable HTTP.
pub const SDK_CURRENT: &str = "1.32.2";

/// How long one client run may take before the test gives up on it.
const CLIENT_LIMIT: Duration = Duration::from_secs(120);

/// The SDK v2 client (`@modelcontextprotocol/client`), which negotiates 2026-07-28.
pub const CLIENT_V2: &str = "2.4.0";
/// MCP Inspector, run in its `--cli` mode.
pub const INSPECTOR: &str = "0.15.0";

/// Where `.ci/install-node-mcp.sh` installs.
fn base() -> PathBuf {
    std::env::var_os("MAITOOL_NODE_MCP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/maitool-node-mcp")
        })
}

/// The folder SDK `version` was installed into, or `None` (after a loud message) when it is
/// not. With `MAITOOL_REQUIRE_NODE_MCP=1` (CI) a missing SDK is a failure.
pub fn sdk(version: &str) -> Option<PathBuf> {
    installed(
        &format!("sdk-{version}"),
        "@modelcontextprotocol/sdk",
        version,
    )
}

/// The folder the SDK v2 client was installed into (see [`sdk`]).
pub fn client_v2() -> Option<PathBuf> {
    installed(
        &format!("client-{CLIENT_V2}"),
        "@modelcontextprotocol/client",
        CLIENT_V2,
    )
}

/// MCP Inspector's command-line entry point (see [`sdk`]).
pub fn inspector() -> Option<PathBuf> {
    let package = "@modelcontextprotocol/inspector";
    installed(&format!("inspector-{INSPECTOR}"), package, INSPECTOR).map(|dir| {
        dir.join("node_modules")
            .join(package)
            .join("cli/build/cli.js")
    })
}

/// `base()/folder` when it holds `package` at `version` and node runs.
fn installed(folder: &str, package: &str, version: &str) -> Option<PathBuf> {
    let dir = base().join(folder);
    let package_json = dir.join("node_modules").join(package).join("package.json");
    let installed = std::fs::read_to_string(&package_json)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .is_some_and(|json| json["version"] == version);
    let node = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if installed && node {
        return Some(dir);
    }
    let message = format!(
        "{package} {version} (or node) is not installed in {} (run `bash .ci/install-node-mcp.sh`)",
        dir.display()
    );
    if std::env::var("MAITOOL_REQUIRE_NODE_MCP").as_deref() == Ok("1") {
        panic!("{message}; MAITOOL_REQUIRE_NODE_MCP=1 requires it");
    }
    maitool_e2e::skip::announce(&format!("a TypeScript SDK interop test: {message}"));
    None
}

/// A script of tests/node/.
pub fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("node")
        .join(name)
}

/// Where the client connects: a command it launches on stdio, or a Streamable HTTP URL.
pub enum Server<'a> {
    Stdio(Command),
    Http(&'a str),
}

/// Runs the SDK v2 client on `plan` in negotiation mode `negotiation` (see
/// tests/node/mcp_client_v2.mjs) and returns its results by step id. Files go to `dir`.
pub fn run_client_v2(
    client: &Path,
    dir: &Path,
    server: Server<'_>,
    negotiation: &str,
    plan: Value,
) -> Value {
    let extra = ["--negotiation", negotiation];
    run_script(
        "mcp_client_v2.mjs",
        &extra,
        client,
        dir,
        server,
        plan,
        |_| {},
    )
}

/// Runs the SDK's client on `plan` (see tests/node/mcp_client.mjs) and returns its results by
/// step id. `on_ready` runs for each `ready` step while the client waits. Files go to `dir`.
pub fn run_client(
    sdk: &Path,
    dir: &Path,
    server: Server<'_>,
    plan: Value,
    on_ready: impl FnMut(&str),
) -> Value {
    run_script("mcp_client.mjs", &[], sdk, dir, server, plan, on_ready)
}

fn run_script(
    script_name: &str,
    extra: &[&str],
    sdk: &Path,
    dir: &Path,
    server: Server<'_>,
    plan: Value,
    mut on_ready: impl FnMut(&str),
) -> Value {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let plan_path = dir.join(format!("node-plan-{n}.json"));
    std::fs::write(&plan_path, plan.to_string()).expect("plan written");
    let stderr_path = dir.join(format!("node-client-{n}.stderr"));
    let mut command = Command::new("node");
    command
        .arg(script(script_name))
        .args(extra)
        .arg("--sdk")
        .arg(sdk)
        .arg("--plan")
        .arg(&plan_path);
    match server {
        Server::Http(url) => {
            command.arg("--url").arg(url);
        }
        Server::Stdio(launch) => {
            command.arg("--stdio").arg(launch.get_program());
            command.args(launch.get_args());
        }
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&stderr_path).expect("stderr file"))
        .spawn()
        .expect("node starts");
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    // A watchdog, so that a hung client fails the test instead of hanging it.
    std::thread::spawn(move || {
        if done_rx.recv_timeout(CLIENT_LIMIT).is_err() {
            let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
        }
    });
    let mut results = None;
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    while stdout.read_line(&mut line).unwrap_or(0) > 0 {
        let value: Value = serde_json::from_str(line.trim())
            .unwrap_or_else(|err| panic!("the node client printed non-JSON {line:?}: {err}"));
        if let Some(id) = value.get("ready").and_then(Value::as_str) {
            on_ready(id);
            stdin
                .write_all(b"done\n")
                .and_then(|()| stdin.flush())
                .expect("the client waits for the test");
        } else if let Some(found) = value.get("results") {
            results = Some(found.clone());
        }
        line.clear();
    }
    let mut rest = String::new();
    let _ = stdout.read_to_string(&mut rest);
    let status = child.wait().expect("node exits");
    let _ = done_tx.send(());
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    match results {
        Some(results) if status.success() => results,
        _ => panic!("the node client failed ({status}); its stderr (with the server's):\n{stderr}"),
    }
}
