//! Secrets and permissions: the per-launch session token stays out of runner argv, host logs
//! and plugin code; MCP bearer tokens and header values stay out of logs, `Debug` output and
//! `maitool status --json`; the runner and control sockets are owner-only. Every log check
//! captures every crate at trace level.

mod mcp_support;
mod security_support;

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::sync::Arc;

use maitool_e2e::logs;
use maitool_e2e::plugins::{Harness, RunnerSpec, fast_config};
use maitool_host::control::ControlServer;
use maitool_host::mcp_client::{McpAuthorizationMode, McpServerConfig, McpServerState};
use maitool_host::plugin::{PluginSettings, RunnerState};
use maitool_host::{Host, HostConfig};
use maitool_protocol::ToolExecutionContext;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use security_support::*;
use serde_json::json;

/// Lines of the capture that contain `secret`.
fn leaks(secret: &str) -> Vec<String> {
    logs::lines()
        .into_iter()
        .filter(|line| line.contains(secret))
        .collect()
}

#[tokio::test]
async fn session_token_never_in_argv_logs_or_plugin_environment() {
    logs::capture_everything();
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    // The runners log at trace as well; their records are forwarded into the host's log.
    let notes = RunnerSpec::new("notes", "maitool-example-notes")
        .env("RUST_LOG", "trace")
        .env("MAITOOL_EXAMPLE_MARKER", "visible")
        .plugin("examples.notes", PluginSettings::default());
    // This one peeks at its token the way a hostile runner would, and records it for us.
    let misbehaving = RunnerSpec::new("misbehaving", "maitool-example-misbehaving")
        .env("RUST_LOG", "trace")
        .env("MISBEHAVE_TOKEN_FILE", token_file.to_str().unwrap())
        .writes(dir.path());
    let harness = Harness::start(fast_config(), vec![notes, misbehaving]).await;
    let ctx = ToolExecutionContext::default();
    let mut tokens = Vec::new();
    for name in ["notes", "misbehaving"] {
        let pid = harness
            .wait_state(name, RunnerState::Ready, BOUND)
            .await
            .pid;
        let pid = pid.expect("a ready runner has a pid");
        let env = launch_env(pid);
        assert!(
            env.iter().all(|(key, _)| key != "MAITOOL_SESSION_TOKEN"),
            "{name}: {env:?}"
        );
        assert!(
            env.iter()
                .any(|(key, value)| key == TOKEN_FD_VAR
                    && value.parse::<u32>().is_ok_and(|fd| fd >= 3)),
            "{name} was launched without {TOKEN_FD_VAR}: {env:?}"
        );
        assert!(!cmdline(pid).is_empty(), "runner {name} has an argv");
    }
    let pid = harness.runner("misbehaving").pid.unwrap();
    let token = recorded_token(&token_file, "");
    assert_token_absent(pid, &token);
    tokens.push(token.clone());

    // Plugin code sees the operator's variables and the launch's socket, name and descriptor
    // number, but no token.
    let env = harness
        .call("visible_env", json!({"prefix": "MAITOOL_"}), &ctx)
        .await;
    assert!(env.success, "{env:?}");
    // The runner inherits the operator's environment, which may hold MAITOOL_* variables of its
    // own (CI sets some).
    let launch = ["MAITOOL_IPC_ADDRESS", "MAITOOL_RUNNER_NAME", TOKEN_FD_VAR];
    let mut expected: Vec<String> = std::env::vars()
        .map(|(name, _)| name)
        .filter(|name| name.starts_with("MAITOOL_"))
        .chain(["MAITOOL_EXAMPLE_MARKER".to_owned()])
        .collect();
    for name in launch {
        assert!(
            !expected.iter().any(|n| n == name),
            "{name} is set in the test"
        );
    }
    expected.extend(launch.map(str::to_owned));
    expected.sort();
    assert_eq!(
        env.structured_content.expect("names")["names"],
        json!(expected),
    );
    // Plugin code finds the token's descriptor closed (or reused for something else): the
    // runner read it and closed it before any plugin code ran.
    let fd = harness.call("token_fd", json!({}), &ctx).await;
    let fd = fd.structured_content.expect("the descriptor's fate");
    let at_start = fd["at_start"].as_str().unwrap();
    assert!(at_start.starts_with("pipe:["), "{fd}");
    assert_ne!(fd["now"].as_str().unwrap(), at_start, "{fd}");

    // A rejected handshake that presents a live token: a second connection of the same launch.
    let again = harness.call("connect_again", json!({}), &ctx).await;
    assert!(
        again.content.contains("already has an active connection"),
        "{again:?}"
    );

    // A restart gets a fresh token; the old one is dead.
    let old_pid = pid;
    let old_token = token;
    kill(Pid::from_raw(old_pid as i32), Signal::SIGKILL).unwrap();
    let restarted = harness.wait_restarted("misbehaving", 1, BOUND).await;
    let new_pid = restarted.pid.expect("restarted runner has a pid");
    assert_ne!(new_pid, old_pid);
    let new_token = recorded_token(&token_file, &old_token);
    assert_ne!(new_token, old_token, "every launch has its own token");
    assert_token_absent(new_pid, &new_token);
    tokens.push(new_token);

    // A rejected handshake that presents a stale token.
    let socket = harness.runtime.socket_path().to_path_buf();
    let stale = tokio::task::spawn_blocking(move || present_token(&socket, &old_token))
        .await
        .unwrap();
    assert!(!stale.accepted);
    assert_eq!(stale.reason, "invalid session token");
    let rejected = logs::wait_for(
        &["runner connection rejected", "invalid session token"],
        BOUND,
    )
    .await;
    assert!(rejected.is_some(), "the rejection is logged");

    let status = format!("{:?}", harness.runtime.status());
    harness.stop().await;

    // The capture did see the lifecycle, at debug and below, including both rejections.
    let lines = logs::lines();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("DEBUG") && l.contains("runner connected")),
        "debug records are captured"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("already has an active connection")),
        "the duplicate connection is logged"
    );
    for token in &tokens {
        assert_eq!(
            leaks(token),
            Vec::<String>::new(),
            "token {token} in the log"
        );
        assert!(!status.contains(token.as_str()));
    }
}

const BEARER_GOOD: &str = "bearer-good-3f9d2c71e8a4";
const HEADER_SECRET: &str = "header-value-8b1e4f0a77c2";
const BEARER_REFUSED: &str = "bearer-401-5c7a9e13d2b6";
const BEARER_NOWHERE: &str = "bearer-closed-port-e1d4a8f2c93b";
const SECRETS: [&str; 4] = [BEARER_GOOD, HEADER_SECRET, BEARER_REFUSED, BEARER_NOWHERE];

/// The header lines the refusing server expects from the `refused` server.
fn refused_headers() -> Vec<String> {
    vec![
        format!("authorization: Bearer {BEARER_REFUSED}"),
        format!("x-api-key: {HEADER_SECRET}"),
    ]
}

fn sent_secrets(server: &Unauthorized) -> usize {
    server
        .with_secrets
        .load(std::sync::atomic::Ordering::SeqCst)
}

fn with_secrets(name: &str, url: &str, token: &str) -> McpServerConfig {
    let mut server = McpServerConfig::streamable_http(name, url);
    server.authorization.mode = McpAuthorizationMode::Bearer;
    server.authorization.bearer_token = token.to_owned();
    server
        .headers
        .insert("X-Api-Key".to_owned(), HEADER_SECRET.to_owned());
    server.http_timeout_seconds = 2.0;
    server
}

#[tokio::test]
async fn mcp_bearer_tokens_and_headers_never_reach_logs_debug_or_status() {
    logs::capture_everything();
    let dir = tempfile::tempdir().unwrap();
    let example = ExampleHttpServer::start(dir.path()).await;
    let refusing = Unauthorized::start(&refused_headers()).await;
    let nowhere = format!("http://127.0.0.1:{}/mcp", closed_port());
    let config = mcp_support::config(vec![
        with_secrets("good", &example.url(), BEARER_GOOD),
        with_secrets("refused", &refusing.url(), BEARER_REFUSED),
        with_secrets("nowhere", &nowhere, BEARER_NOWHERE),
    ]);
    let debug = format!("{config:?} {config:#?}");
    let provider = mcp_support::start(config).await;
    mcp_support::wait_connected(&provider, "good").await;
    let weather = mcp_support::invoke(&provider, "weather_report", json!({"city": "Oslo"})).await;
    assert!(weather.success, "the good server serves calls: {weather:?}");

    // The secrets are really sent: the refusing server saw the token and the header on the
    // first attempt and again on a reconnection. (The example server's `request_headers`
    // would show it too, but it returns the secrets in a tool result: data the server chose
    // to send back, which rmcp traces, not something the host leaked.)
    mcp_support::wait_until("two attempts at the 401 server", || {
        sent_secrets(&refusing) >= 2
    })
    .await;
    for name in ["refused", "nowhere"] {
        mcp_support::wait_until(&format!("{name} reports its error"), || {
            let status = mcp_support::status_of(&provider, name);
            status.state != McpServerState::Connected && status.last_error.is_some()
        })
        .await;
    }
    let refused_error = mcp_support::status_of(&provider, "refused").last_error;
    let refused_error = refused_error.unwrap();
    assert!(
        refused_error.contains("authorization required"),
        "the 401 is the failure: {refused_error}"
    );
    let status = serde_json::to_string(&provider.status()).unwrap();
    maitool_host::ToolProvider::close(&*provider).await.unwrap();

    assert!(debug.contains("X-Api-Key") && debug.contains("<redacted>"));
    assert!(
        logs::lines().iter().any(|l| l.starts_with("TRACE rmcp")),
        "rmcp's trace records are captured"
    );
    for secret in SECRETS {
        assert!(!debug.contains(secret), "{secret} in Debug output: {debug}");
        assert!(!status.contains(secret), "{secret} in status: {status}");
        assert_eq!(leaks(secret), Vec::<String>::new(), "{secret} in the log");
    }
}

/// A `[[mcp.servers]]` entry with a bearer token and a secret header.
fn server_toml(name: &str, url: &str, token: &str) -> String {
    format!(
        "[[mcp.servers]]\nname = \"{name}\"\ntransport = \"streamable_http\"\nurl = \"{url}\"\n\
         http_timeout_seconds = 2\nheaders = {{ \"X-Api-Key\" = \"{HEADER_SECRET}\" }}\n\
         authorization = {{ mode = \"bearer\", bearer_token = \"{token}\" }}\n"
    )
}

#[tokio::test]
async fn maitool_status_at_trace_level_shows_no_mcp_secret() {
    let dir = tempfile::tempdir().unwrap();
    let example = ExampleHttpServer::start(dir.path()).await;
    let refusing = Unauthorized::start(&refused_headers()).await;
    let nowhere = format!("http://127.0.0.1:{}/mcp", closed_port());
    let config = format!(
        "[host]\ncontrol_socket = \"ctl/control.sock\"\ndata_dir = \"data\"\n\
         enable_builtin = false\n[mcp]\nenable = true\n{}{}{}",
        server_toml("good", &example.url(), BEARER_GOOD),
        server_toml("refused", &refusing.url(), BEARER_REFUSED),
        server_toml("nowhere", &nowhere, BEARER_NOWHERE),
    );
    let path = dir.path().join("maitool.toml");
    std::fs::write(&path, config).unwrap();
    for format in ["text", "json"] {
        let path = path.clone();
        let control = dir.path().join("ctl/control.sock");
        let output = tokio::task::spawn_blocking(move || {
            std::process::Command::new(maitool_e2e::workspace_bin("maitool"))
                .arg("--config")
                .arg(&path)
                .arg("--control-socket")
                .arg(&control)
                .args(["--log-format", format, "status", "--json"])
                .env("RUST_LOG", "trace")
                .output()
                .expect("maitool runs")
        })
        .await
        .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Two servers cannot connect: the one-shot host names them, and exits 3.
        assert_eq!(output.status.code(), Some(3), "{stderr}");
        for name in ["refused", "nowhere"] {
            assert!(
                stderr.contains(&format!("maitool: MCP server {name} failed to start: ")),
                "{stderr}"
            );
        }
        let status: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let servers = status["mcp_servers"].as_array().expect("mcp_servers");
        let state = |name: &str| {
            servers
                .iter()
                .find(|s| s["name"] == name)
                .map(|s| s["state"].clone())
        };
        assert_eq!(state("good"), Some(json!("connected")), "{stdout}");
        assert_eq!(state("refused"), Some(json!("failed")), "{stdout}");
        assert_eq!(state("nowhere"), Some(json!("failed")), "{stdout}");
        assert!(stderr.contains("TRACE"), "trace records are on: {stderr}");
        for secret in SECRETS {
            assert!(!stdout.contains(secret), "{secret} in status: {stdout}");
            assert!(!stderr.contains(secret), "{secret} in the {format} log");
        }
    }
    assert!(sent_secrets(&refusing) >= 2, "each run sent the secrets");
}

#[tokio::test]
async fn runner_and_control_sockets_are_owner_only() {
    logs::capture_everything();
    let harness = Harness::start(
        fast_config(),
        vec![RunnerSpec::new("dice", "maitool-example-dice")],
    )
    .await;
    harness.wait_state("dice", RunnerState::Ready, BOUND).await;
    let uid = nix::unistd::getuid().as_raw();
    let socket = harness.runtime.socket_path().to_path_buf();
    let dir = socket.parent().unwrap().to_path_buf();
    let meta = std::fs::symlink_metadata(&dir).unwrap();
    assert!(meta.is_dir());
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o700,
        "{}",
        dir.display()
    );
    assert_eq!(meta.uid(), uid);
    let meta = std::fs::symlink_metadata(&socket).unwrap();
    assert!(meta.file_type().is_socket());
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o600,
        "{}",
        socket.display()
    );
    assert_eq!(meta.uid(), uid);
    // The directory holds nothing but the socket.
    let entries: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(entries.len(), 1);
    harness.stop().await;
    assert!(!dir.exists(), "the socket directory is removed at shutdown");

    // The control socket of `maitool serve`, in a directory it creates.
    let temp = tempfile::tempdir().unwrap();
    let text = "[host]\nenable_builtin = false\ndata_dir = \"data\"\n";
    let config = HostConfig::from_toml(text, &temp.path().join("maitool.toml"))
        .unwrap()
        .resolve(None, temp.path())
        .unwrap();
    let host = Arc::new(Host::start(config).await.unwrap());
    let control = temp.path().join("run").join("control.sock");
    let server = ControlServer::start(&control, host.clone()).await.unwrap();
    let meta = std::fs::metadata(control.parent().unwrap()).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o700);
    let meta = std::fs::symlink_metadata(&control).unwrap();
    assert!(meta.file_type().is_socket());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(meta.uid(), uid);
    drop(server);
    host.shutdown().await;
}
