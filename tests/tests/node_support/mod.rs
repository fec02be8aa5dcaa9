//! Support for the interop tests that use the TypeScript MCP SDK (`@modelcontextprotocol/sdk`
//! from npm, installed at pinned versions by `.ci/install-node-mcp.sh`): finding an installed
//! version, and running its client (tests/node/mcp_client.mjs) on a plan of steps.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

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
/// tests/node/mcp_client_v2.mjs) and returns its results by step id. `on_ready` runs for each
/// `ready` step while the client waits. Files go to `dir`.
pub fn run_client_v2(
    client: &Path,
    dir: &Path,
    server: Server<'_>,
    negotiation: &str,
    plan: Value,
    on_ready: impl FnMut(&str),
) -> Value {
    let extra = ["--negotiation", negotiation];
    run_script(
        "mcp_client_v2.mjs",
        &extra,
        client,
        dir,
        server,
        plan,
        on_ready,
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
    on_ready: impl FnMut(&str),
) -> Value {
    let command = |plan: &Path| {
        let mut command = Command::new("node");
        command
            .arg(script(script_name))
            .args(extra)
            .arg("--sdk")
            .arg(sdk)
            .arg("--plan")
            .arg(plan);
        match server {
            Server::Http(url) => {
                command.arg("--url").arg(url);
            }
            Server::Stdio(launch) => {
                command.arg("--stdio").arg(launch.get_program());
                command.args(launch.get_args());
            }
        }
        command
    };
    maitool_e2e::plan_client::run(command, dir, &plan, CLIENT_LIMIT, on_ready)["results"].clone()
}
