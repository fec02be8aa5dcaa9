//! The `maitool` binary on the shipped `maitool.toml`: in-process and against `maitool serve`.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use maitool_e2e::maibot_env::base_python_found;
use maitool_e2e::workspace_bin;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

fn repo_config() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../maitool.toml")
}

/// `maitool` on the shipped configuration.
fn shipped_maitool() -> Command {
    let mut command = Command::new(workspace_bin("maitool"));
    command.arg("--config").arg(repo_config());
    // One-shot listings wait for the runners as they start, however loaded the machine (the
    // default bound is for MCP clients; the bound itself is tested in
    // mcp_front_first_listing.rs).
    command.env("MAITOOL_LISTING_WAIT_MS", "120000");
    command
}

/// Whether the shipped configuration's MaiBot runner has its Python environment: prepared
/// once per test run with `maitool prepare maibot`, as a user who wants one-shot commands
/// before any `serve` would (CI's `.ci/install-maibot-runner.sh` has usually done it, and
/// then this is the second, instant run). False, after a loud skip, on a machine without a
/// Python 3.12+ (CI requires one).
fn shipped_maibot_ready() -> bool {
    static READY: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *READY.get_or_init(|| {
        if !base_python_found("the shipped configuration's MaiBot runner") {
            return false;
        }
        let output = shipped_maitool()
            .args(["prepare", "maibot"])
            .output()
            .expect("maitool prepare runs");
        assert!(
            output.status.success(),
            "maitool prepare maibot on the shipped configuration failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        true
    })
}

/// Runs `maitool` with the shipped configuration; returns (exit code, stdout, stderr).
fn maitool(control: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let output = shipped_maitool()
        .arg("--control-socket")
        .arg(control)
        .args(args)
        .output()
        .expect("maitool runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|err| panic!("not JSON ({err}): {text}"))
}

struct Serve {
    child: std::process::Child,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(control: &std::path::Path) -> Serve {
    // Prepared first, so that serve starts the MaiBot runner at once rather than preparing
    // it in the background while the tests look.
    shipped_maibot_ready();
    let log = control.with_extension("serve.log");
    let child = shipped_maitool()
        .arg("--control-socket")
        .arg(control)
        .arg("serve")
        .stdout(Stdio::null())
        .stderr(Stdio::from(
            std::fs::File::create(&log).expect("serve log file"),
        ))
        .spawn()
        .expect("serve starts");
    let mut serve = Serve { child };
    let deadline = Instant::now() + Duration::from_secs(30);
    while !control.exists() {
        let log = || std::fs::read_to_string(&log).unwrap_or_default();
        if let Some(status) = serve.child.try_wait().expect("serve is waitable") {
            panic!(
                "serve exited ({status}) before opening its control socket:\n{}",
                log()
            );
        }
        assert!(
            Instant::now() < deadline,
            "serve did not open its control socket within 30 s:\n{}",
            log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    serve
}

/// `maitool [global...] call calculate 20 + 22` answers 42.
fn assert_twenty_plus_twenty_two(control: &std::path::Path, global: &[&str]) {
    let call = [
        "call",
        "calculate",
        "--args",
        r#"{"a": 20, "b": 22, "op": "add"}"#,
        "--json",
    ];
    let args: Vec<&str> = global.iter().chain(&call).copied().collect();
    let (code, out, err) = maitool(control, &args);
    assert_eq!(code, 0, "{global:?}: {err}");
    let result = json(&out);
    assert_eq!(result["success"], true, "{global:?}: {out}");
    assert_eq!(result["content"], "42", "{global:?}: {out}");
}

/// `one_shot`: no serve runs on `control`, so a host is started for each command.
fn check_verbs(control: &std::path::Path, one_shot: bool) {
    // Without its Python environment, the MaiBot runner cannot start: a one-shot host names
    // it and `tools` and `status` exit 3; serve answers as usual.
    let maibot_ready = shipped_maibot_ready();
    let listing_code = if one_shot && !maibot_ready { 3 } else { 0 };
    let (code, out, err) = maitool(control, &["tools", "--json"]);
    assert_eq!(code, listing_code, "{err}");
    if listing_code == 3 {
        assert!(
            err.contains("maitool: runner maibot failed to start: the Python environment")
                && err.contains("`maitool prepare maibot`"),
            "{err}"
        );
    }
    let tools = json(&out);
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for expected in [
        "roll_dice",
        "calculate",
        "greet",
        "render_badge",
        "remember",
        "reply",
        "tool_search",
        "fetch_history",
        "weather_report",
        "tiny_image",
    ] {
        assert!(names.contains(&expected), "{expected} missing: {names:?}");
    }
    let dice = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "roll_dice")
        .unwrap();
    assert_eq!(dice["provider_type"], "plugin");
    assert!(dice["parameters_schema"]["properties"]["sides"].is_object());

    assert_twenty_plus_twenty_two(control, &[]);

    let (code, out, _) = maitool(
        control,
        &[
            "call",
            "calculate",
            "--args",
            r#"{"a": 1, "b": 0, "op": "divide"}"#,
            "--json",
        ],
    );
    assert_eq!(code, 1, "a failed result exits 1");
    assert_eq!(json(&out)["error_message"], "division by zero");

    let (code, out, _) = maitool(
        control,
        &[
            "call",
            "echo",
            "--args",
            r#"{"text": "ctx"}"#,
            "--session-id",
            "s9",
            "--stream-id",
            "st9",
            "--group-id",
            "g9",
            "--user-id",
            "u9",
            "--platform",
            "qq",
            "--group-chat",
            "--json",
        ],
    );
    assert_eq!(code, 0);
    let seen = &json(&out)["structured_content"];
    assert_eq!(
        (
            seen["session_id"].as_str(),
            seen["stream_id"].as_str(),
            seen["group_id"].as_str(),
            seen["is_group_chat"].as_bool()
        ),
        (Some("s9"), Some("st9"), Some("g9"), Some(true))
    );

    // A chat message reaches the chat example's command. In a stream of its own: the
    // shipped store outlives the test, and the seeded chats' last words are other tests'.
    let stream = format!("cli-message-{}", std::process::id());
    let (code, out, err) = maitool(
        control,
        &[
            "message",
            "--stream-id",
            &stream,
            "--platform",
            "qq",
            "--user-id",
            "u-alice",
            "--json",
            "/roll 1d20",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let outcome = json(&out);
    assert_eq!(
        outcome["command"]["full_name"], "examples.chat.roll",
        "{outcome}"
    );
    assert!(
        outcome["sent"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("u-alice rolled 1d20: ["),
        "{outcome}"
    );

    let (code, out, _) = maitool(control, &["call", "no_such_tool", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(json(&out)["error_message"], "tool not found: no_such_tool");

    let (code, _, err) = maitool(control, &["call", "calculate", "--args", "[1, 2]"]);
    assert_eq!(code, 2, "a usage error exits 2");
    assert!(err.contains("--args must be a JSON object"), "{err}");

    let (code, out, err) = maitool(control, &["status", "--json"]);
    assert_eq!(code, listing_code, "{err}");
    let status = json(&out);
    let runners = status["runners"].as_array().unwrap();
    assert_eq!(runners.len(), 6);
    for runner in runners {
        if runner["name"] == "maibot" && !maibot_ready {
            assert_ne!(runner["state"], "ready", "{runner}");
            continue;
        }
        assert_eq!(runner["state"], "ready", "{runner}");
        assert!(runner["pid"].as_u64().is_some());
        assert_eq!(runner["restart_count"], 0);
        assert_eq!(runner["plugins"][0]["state"], "loaded");
        // The Rust examples declare only what maitool serves, a family's `kv.*` included:
        // a shipped configuration whose status warned about its own examples would teach
        // users to ignore the warning. (A MaiBot example declares an unserved name on purpose.)
        if runner["name"] != "maibot" {
            for plugin in runner["plugins"].as_array().unwrap() {
                assert_eq!(
                    plugin["unserved_capabilities"],
                    Value::Array(Vec::new()),
                    "{plugin}"
                );
            }
        }
    }
    if maibot_ready {
        // The MaiBot plugin folders of the shipped configuration, through MaiBot's runner.
        let (code, out, err) = maitool(
            control,
            &[
                "call",
                "quote_order",
                "--args",
                r#"{"item": "pen", "quantity": 2}"#,
                "--json",
            ],
        );
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(
            json(&out)["content"],
            "2 x pen (medium) = 3.00; tags []; to -"
        );
    }
}

#[test]
fn verbs_work_in_process_on_the_shipped_config() {
    let dir = tempfile::tempdir().unwrap();
    check_verbs(&dir.path().join("none.sock"), true);
}

#[test]
fn verbs_work_against_serve_and_serve_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let control = dir.path().join("control.sock");
    let mut serve = serve(&control);
    check_verbs(&control, false);
    let (_, out, _) = maitool(&control, &["status", "--json"]);
    // A failed runner (MaiBot's, when its runner is not installed) has no pid.
    let pids: Vec<i32> = json(&out)["runners"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["pid"].as_i64().map(|pid| pid as i32))
        .collect();
    // A second serve on the same control socket refuses to start.
    let (code, _, err) = maitool(&control, &["serve"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("another maitool serve is already running"),
        "{err}"
    );
    // Component control goes through the running host.
    let (code, out, _) = maitool(&control, &["disable", "echo", "--session", "s1"]);
    assert_eq!(code, 0);
    assert_eq!(out.trim(), "disabled examples.dice.echo for session s1");
    // With the plugin's echo disabled for s1, the next provider that has `echo` (the example
    // MCP server, registered after the plugins) answers instead.
    let (_, out, _) = maitool(
        &control,
        &[
            "call",
            "echo",
            "--args",
            r#"{"text": "x"}"#,
            "--session-id",
            "s1",
            "--json",
        ],
    );
    assert_eq!(json(&out)["metadata"]["server_name"], "example", "{out}");
    let (_, out, _) = maitool(
        &control,
        &[
            "call",
            "echo",
            "--args",
            r#"{"text": "x"}"#,
            "--session-id",
            "s2",
            "--json",
        ],
    );
    assert_eq!(
        json(&out)["metadata"]["plugin_id"],
        "examples.dice",
        "{out}"
    );

    // Built-in tools on the seeded store: a reply lands in the stream's history.
    let text = format!("rolling now ({})", std::process::id());
    let chat = [
        "--stream-id",
        "demo-group",
        "--session-id",
        "demo-group",
        "--group-chat",
    ];
    let reply_args = format!(r#"{{"msg_id": "m-1003", "text": "{text}"}}"#);
    let (code, out, err) = maitool(
        &control,
        &[
            &["call", "reply", "--args", reply_args.as_str()][..],
            &chat[..],
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{out} {err}");
    let (code, out, err) = maitool(
        &control,
        &[
            &["call", "fetch_history", "--args", r#"{"num": 50}"#][..],
            &chat[..],
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&text),
        "the reply is not in the history: {out}"
    );
    assert!(
        out.contains("@bot can you roll a d20"),
        "seeded messages are in the history: {out}"
    );

    kill(Pid::from_raw(serve.child.id() as i32), Signal::SIGTERM).unwrap();
    let status = serve.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    for pid in pids {
        assert!(
            kill(Pid::from_raw(pid), None).is_err(),
            "runner {pid} outlived a graceful stop"
        );
    }
    assert!(!control.exists(), "the control socket is removed on exit");
}

#[test]
fn killing_the_host_with_sigkill_takes_every_runner_down() {
    let dir = tempfile::tempdir().unwrap();
    let control = dir.path().join("control.sock");
    let mut serve = serve(&control);
    let (_, out, _) = maitool(&control, &["status", "--json"]);
    let pids: Vec<i32> = json(&out)["runners"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["pid"].as_i64().map(|pid| pid as i32))
        .collect();
    // The MaiBot runner (Python, which does not watch its parent) is among them when its
    // runner is installed.
    let expected = if shipped_maibot_ready() { 6 } else { 5 };
    assert_eq!(pids.len(), expected, "{out}");
    kill(Pid::from_raw(serve.child.id() as i32), Signal::SIGKILL).unwrap();
    let _ = serve.child.wait();
    let killed = Instant::now();
    // Runners die through the parent-death signal and socket EOF; allow a generous bound.
    while pids
        .iter()
        .any(|pid| kill(Pid::from_raw(*pid), None).is_ok())
    {
        assert!(
            killed.elapsed() < Duration::from_secs(5),
            "runners outlived the host"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    eprintln!(
        "all runners gone {:?} after the host's SIGKILL",
        killed.elapsed()
    );
}

#[test]
fn a_bad_config_is_a_clear_error_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.toml");
    std::fs::write(&config, "[plugin_runtime]\nmax_restart = 3\n").unwrap();
    let output = Command::new(workspace_bin("maitool"))
        .arg("--config")
        .arg(&config)
        .arg("tools")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("unknown field `max_restart`"), "{err}");
}

#[test]
fn both_runtime_flavours_serve_calls_and_an_unknown_one_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let control = dir.path().join("none.sock");
    for flavour in ["current", "multi"] {
        assert_twenty_plus_twenty_two(&control, &["--runtime", flavour]);
    }
    let (code, _, err) = maitool(&control, &["--runtime", "threads", "tools"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("invalid value 'threads' for '--runtime"),
        "{err}"
    );
}

#[test]
fn version_names_the_features_the_binary_was_built_with() {
    let output = Command::new(workspace_bin("maitool"))
        .arg("--version")
        .output()
        .expect("maitool runs");
    assert!(output.status.success());
    let line = String::from_utf8_lossy(&output.stdout);
    // The workspace builds the host with its default features; the binary and the library
    // report the same set.
    assert_eq!(
        line.trim(),
        format!("maitool 0.1.0 (features: {})", maitool_host::FEATURES)
    );
    assert_eq!(maitool_host::FEATURES, "cli mimalloc http");
}

/// A local OpenAI-compatible chat endpoint that answers every prompt with `line for: PROMPT`
/// (streaming off, as the host asks); returns its base URL.
fn local_llm(runtime: &tokio::runtime::Runtime) -> String {
    use axum::Json;
    use axum::http::StatusCode;
    use axum::routing::post;

    async fn chat(Json(body): Json<Value>) -> (StatusCode, Json<Value>) {
        if body["stream"] != false || body["model"] != "qwen2.5:0.5b" {
            let error =
                serde_json::json!({"error": {"message": format!("unexpected request {body}")}});
            return (StatusCode::BAD_REQUEST, Json(error));
        }
        let prompt = body["messages"][0]["content"].as_str().unwrap_or_default();
        (
            StatusCode::OK,
            Json(serde_json::json!({
                "id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": format!("line for: {prompt}")}}],
                "usage": {"prompt_tokens": 9, "completion_tokens": 9, "total_tokens": 18},
            })),
        )
    }
    let app = axum::Router::new().route("/v1/chat/completions", post(chat));
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let address = listener.local_addr().unwrap();
    runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}/v1")
}

#[test]
fn a_maibot_plugin_on_the_shipped_config_reads_the_chat_looks_up_sends_an_emoji_and_asks_the_llm() {
    if !shipped_maibot_ready() {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let llm = local_llm(&runtime);
    let dir = tempfile::tempdir().unwrap();
    let output = shipped_maitool()
        .env("MAITOOL_LLM_BASE_URL", &llm)
        .arg("--control-socket")
        .arg(dir.path().join("none.sock"))
        .args([
            "call",
            "cheer_up",
            "--stream-id",
            "demo-group",
            "--group-chat",
            "--json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = json(&stdout);
    // The seeded chat's last human message is Alice's; her profile comes from the store.
    let content = result["content"].as_str().unwrap();
    assert!(content.starts_with("to Alice: line for: "), "{content}");
    assert!(
        content.contains("Organises the game nights")
            && content.contains("can you roll a d20 for who goes first?"),
        "{content}"
    );
    assert_eq!(result["structured_content"]["emoji_sent"], true, "{result}");
}
