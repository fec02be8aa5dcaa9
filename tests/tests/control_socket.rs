//! `maitool serve`'s control socket and metrics endpoint against careless and hostile
//! clients, through the real binary: connections that never send, a descriptor limit, paths
//! that are not sockets, a second serve.

mod ops_support;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use maitool_e2e::workspace_bin;
use ops_support::{Fixture, Serve};
use serde_json::{Value, json};

/// The pid of every runner, by name, from `status --json`.
fn runner_pids(status: &Value) -> Vec<(String, u64)> {
    status["runners"]
        .as_array()
        .expect("runners")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["pid"].as_u64().expect("a ready runner has a pid"),
            )
        })
        .collect()
}

/// Opens `count` connections at once and keeps them; those the kernel would not even queue
/// within a second are left out.
async fn hold_connections<S, F>(count: usize, connect: impl Fn() -> F) -> Vec<S>
where
    F: std::future::Future<Output = std::io::Result<S>>,
{
    let attempts = (0..count).map(|_| tokio::time::timeout(Duration::from_secs(1), connect()));
    futures::future::join_all(attempts)
        .await
        .into_iter()
        .filter_map(|attempt| attempt.ok()?.ok())
        .collect()
}

#[test]
fn serve_answers_with_400_idle_connections_on_each_socket_at_a_256_descriptor_limit() {
    let fixture = Fixture::new(&["dice"], "", "");
    let serve = fixture.serve_under(
        &["prlimit", "--nofile=256:256", "--"],
        &["--metrics", "127.0.0.1:0"],
    );
    let endpoint = serve.wait_for_log(|line| {
        line["fields"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("serving Prometheus metrics"))
    });
    let metrics: std::net::SocketAddr = endpoint["fields"]["address"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let before = runner_pids(&fixture.json(&["status", "--json"]));

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let control = fixture.control();
    let (idle_control, idle_metrics) = runtime.block_on(async {
        let control = hold_connections(400, || tokio::net::UnixStream::connect(&control)).await;
        let metrics = hold_connections(400, || tokio::net::TcpStream::connect(metrics)).await;
        (control, metrics)
    });
    eprintln!(
        "holding {} idle control and {} idle metrics connections",
        idle_control.len(),
        idle_metrics.len()
    );

    // The same runners answer: serve itself, not a one-shot host of the CLI's own.
    let status = fixture.json(&["status", "--json"]);
    assert_eq!(runner_pids(&status), before, "{status}");
    let sum = fixture.json(&[
        "call",
        "calculate",
        "--args",
        r#"{"a": 20, "b": 22, "op": "add"}"#,
        "--json",
    ]);
    assert_eq!(sum["content"], "42", "{sum}");

    drop((idle_control, idle_metrics));
    let lines = serve.stop();
    let exhausted: Vec<&String> = lines
        .iter()
        .filter(|line| line.contains("Too many open files"))
        .collect();
    assert!(
        exhausted.is_empty(),
        "serve ran out of descriptors {} times, first: {}",
        exhausted.len(),
        exhausted[0]
    );
}

/// `maitool --config CONFIG --control-socket CONTROL`, run in `cwd`.
fn maitool_at(fixture: &Fixture, control: impl AsRef<std::ffi::OsStr>, cwd: &Path) -> Command {
    let mut command = Command::new(workspace_bin("maitool"));
    command
        .current_dir(cwd)
        .arg("--config")
        .arg(&fixture.config)
        .arg("--control-socket")
        .arg(control);
    command
}

/// Whether serve's log says a runner came up.
fn started_a_runner(lines: &[String]) -> bool {
    lines.iter().any(|line| line.contains("\"runner ready\""))
}

#[test]
fn serve_refuses_a_control_socket_path_that_is_not_a_socket_before_starting_anything() {
    let fixture = Fixture::new(&["dice"], "", "");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "keep me").unwrap();
    let mut command = maitool_at(&fixture, &file, dir.path());
    command.args(["--log-format", "json", "serve"]);
    let (code, lines) = Serve::spawn(command).exit();
    let log = lines.join("\n");
    assert_eq!(code, 2, "{log}");
    assert!(
        log.contains(&format!(
            "{} is a regular file, not a socket: refusing to replace it",
            file.display()
        )),
        "{log}"
    );
    assert!(!started_a_runner(&lines), "a runner started: {log}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
}

#[test]
fn a_bare_control_socket_name_is_in_the_working_directory() {
    let fixture = Fixture::new(&["dice"], "", "");
    let cwd = tempfile::tempdir().unwrap();
    let mut command = maitool_at(&fixture, "bare.sock", cwd.path());
    command.args(["--log-format", "json", "serve"]);
    let serve = Serve::spawn(command);
    serve.wait_for_log(|line| line["fields"]["message"] == "maitool is serving");
    let socket = cwd.path().join("bare.sock");
    assert!(
        std::fs::symlink_metadata(&socket)
            .unwrap()
            .file_type()
            .is_socket()
    );
    // `disable` needs a running serve: it finds this one by the same bare name.
    let output = maitool_at(&fixture, "bare.sock", cwd.path())
        .args(["disable", "roll_dice"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "disabled examples.dice.roll_dice",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serve.stop();
    assert!(!socket.exists(), "serve removes its socket on exit");
}

#[test]
fn a_second_serve_on_the_same_config_stops_before_starting_any_runner() {
    let fixture = Fixture::new(&["dice"], "", "");
    let first = fixture.serve(&[]);
    let before = runner_pids(&fixture.json(&["status", "--json"]));
    let mut second = fixture.command();
    second.args(["--log-format", "json", "serve"]);
    let (code, lines) = Serve::spawn(second).exit();
    let log = lines.join("\n");
    assert_eq!(code, 2, "{log}");
    assert!(
        log.contains("another maitool serve is already running on"),
        "{log}"
    );
    assert!(!started_a_runner(&lines), "a runner started: {log}");
    // The first serve is untouched.
    assert_eq!(runner_pids(&fixture.json(&["status", "--json"])), before);
    first.stop();
}

#[test]
fn a_second_serve_with_mcp_stdio_serves_mcp_without_a_control_socket() {
    let fixture = Fixture::new(&["dice"], "", "");
    let first = fixture.serve(&[]);
    let before = runner_pids(&fixture.json(&["status", "--json"]));
    let mut child = fixture
        .command()
        .args(["--log-format", "json", "serve", "--mcp-stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = move |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    // The next response; notifications the server may send first are passed over.
    let mut answer = || loop {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let message = serde_json::from_str::<Value>(&line)
            .unwrap_or_else(|err| panic!("not a JSON-RPC message ({err}): {line:?}"));
        if message.get("id").is_some() {
            return message;
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "control-socket-test", "version": "0"}}}),
    );
    let init = answer();
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // The front answers at once; the runners' tools join as they become ready.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    for id in 2.. {
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}}));
        let list = answer();
        let names: Vec<&str> = list["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{list}"))
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        if names.contains(&"roll_dice") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{names:?}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    drop(send);
    let output = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{log}");
    assert!(
        log.contains("serving MCP on stdio without a control socket"),
        "{log}"
    );
    // The first serve still owns its socket and answers on it.
    assert_eq!(runner_pids(&fixture.json(&["status", "--json"])), before);
    first.stop();
}

/// The mode bits of `path`.
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_folder_shared_by_the_control_socket_and_data_dir_is_private() {
    let dice = workspace_bin("maitool-example-dice");
    for one_shot_first in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("maitool.toml");
        std::fs::write(
            &config,
            format!(
                "[host]\ncontrol_socket = \"state/control.sock\"\ndata_dir = \"state/data\"\nenable_builtin = false\n\n\
                 [[runners]]\nname = \"dice\"\nexecutable = \"{}\"\n",
                dice.display()
            ),
        )
        .unwrap();
        let maitool = || {
            let mut command = Command::new(workspace_bin("maitool"));
            command.arg("--config").arg(&config);
            command
        };
        if one_shot_first {
            // A one-shot host creates the data directory, and so the shared folder, first.
            let output = maitool().arg("tools").output().unwrap();
            assert!(output.status.success(), "{output:?}");
        }
        let mut command = maitool();
        command.args(["--log-format", "json", "serve"]);
        let serve = Serve::spawn(command);
        serve.wait_for_log(|line| line["fields"]["message"] == "maitool is serving");
        let state = dir.path().join("state");
        assert_eq!(
            (mode(&state), mode(&state.join("data"))),
            (0o700, 0o700),
            "one-shot first: {one_shot_first}"
        );
        serve.stop();
    }
}
