//! Runs a test client script (the Python and TypeScript MCP SDK clients under tests/python and
//! tests/node) on a plan of steps: the plan goes to a file the client is told of, each
//! `{"ready": ID}` line the client prints calls back into the test and is answered with a
//! line on the client's stdin, and the client's last line holds its results.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

/// Runs the client `command` makes (given the plan file's path) on `plan`, with its files in
/// `dir`. `on_ready` runs for each `ready` step while the client waits. Returns the client's line
/// that holds `results`. Panics with the client's stderr when it fails, prints no results, or
/// runs longer than `limit` (it is killed then).
pub fn run(
    command: impl FnOnce(&Path) -> Command,
    dir: &Path,
    plan: &Value,
    limit: Duration,
    mut on_ready: impl FnMut(&str),
) -> Value {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let plan_path = dir.join(format!("client-plan-{n}.json"));
    std::fs::write(&plan_path, plan.to_string()).expect("plan written");
    let stderr_path = dir.join(format!("client-{n}.stderr"));
    let mut command = command(&plan_path);
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&stderr_path).expect("stderr file"))
        .spawn()
        .unwrap_or_else(|err| panic!("{program} does not start: {err}"));
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    // A watchdog, so that a hung client fails the test instead of hanging it.
    std::thread::spawn(move || {
        if done_rx.recv_timeout(limit).is_err() {
            let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
        }
    });
    let mut report = None;
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    while stdout.read_line(&mut line).unwrap_or(0) > 0 {
        let value: Value = serde_json::from_str(line.trim())
            .unwrap_or_else(|err| panic!("the {program} client printed non-JSON {line:?}: {err}"));
        if let Some(id) = value.get("ready").and_then(Value::as_str) {
            on_ready(id);
            stdin
                .write_all(b"done\n")
                .and_then(|()| stdin.flush())
                .expect("the client waits for the test");
        } else if value.get("results").is_some() {
            report = Some(value);
        }
        line.clear();
    }
    let mut rest = String::new();
    let _ = stdout.read_to_string(&mut rest);
    let status = child.wait().expect("the client exits");
    let _ = done_tx.send(());
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    match report {
        Some(report) if status.success() => report,
        _ => panic!("the {program} client failed ({status}); its stderr:\n{stderr}"),
    }
}
