//! The MaiBot tests' fixture: the MaiBot-style example plugins (`examples/maibot-plugins`),
//! copied into a temporary folder, run by MaiBot's own runner from PyPI under a real
//! `maitool serve`.

#![allow(dead_code)] // Each test file uses a different part.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use maitool_e2e::cli::Maitool;
#[allow(unused_imports)] // Not every test binary that includes this module uses it.
pub use maitool_e2e::maibot::maibot_python;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

/// A temporary host: built-in tools, and one MaiBot runner over a copy of the example
/// plugins, with `examples.maibot_typed` granted `send.text`.
pub struct Fixture {
    dir: tempfile::TempDir,
    python: PathBuf,
    runner_keys: String,
    pub config: PathBuf,
}

impl Fixture {
    /// `extra` is appended to the configuration (more plugin settings).
    pub fn new(python: PathBuf, extra: &str) -> Fixture {
        Fixture::with_runner_keys(python, "", extra)
    }

    /// [`Fixture::new`], with `runner_keys` added to the runner's own table.
    pub fn with_runner_keys(python: PathBuf, runner_keys: &str, extra: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/maibot-plugins"),
            &dir.path().join("plugins"),
        );
        let fixture = Fixture {
            config: dir.path().join("maitool.toml"),
            dir,
            python,
            runner_keys: runner_keys.to_owned(),
        };
        fixture.write_config(extra);
        fixture
    }

    /// Rewrites the configuration with another `extra`. One-shot listings wait for MaiBot's
    /// runner however long a loaded machine takes to start it (`listing_wait_ms`).
    pub fn write_config(&self, extra: &str) {
        let root = self.dir.path().display();
        let text = format!(
            "[host]\ncontrol_socket = \"{root}/control.sock\"\ndata_dir = \"{root}/data\"\n\
             enable_builtin = true\nlisting_wait_ms = 120000\n\n\
             [builtin]\ndatabase = \"{root}/maitool.sqlite3\"\nfocus_mode = true\n\n\
             [[runners]]\nname = \"maibot\"\nkind = \"maibot\"\npython = \"{}\"\n\
             plugin_dirs = [\"plugins\"]\n{}\n\n\
             [runners.plugins.\"examples.maibot_typed\"]\ncapabilities = [\"send.text\"]\n\n{extra}",
            self.python.display(),
            self.runner_keys
        );
        std::fs::write(&self.config, text).unwrap();
    }

    /// The fixture's temporary folder.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn plugins_dir(&self) -> PathBuf {
        self.dir.path().join("plugins")
    }

    /// `maitool` on this configuration and control socket.
    pub fn cli(&self) -> Maitool {
        Maitool::new(&self.config, &self.dir.path().join("control.sock"))
    }

    pub fn command(&self) -> Command {
        self.cli().command()
    }

    /// Runs a verb; (exit code, stdout, stderr).
    pub fn maitool(&self, args: &[&str]) -> (i32, String, String) {
        self.cli().run(args)
    }

    /// Runs a verb that must succeed and print JSON.
    pub fn json(&self, args: &[&str]) -> Value {
        self.cli().json(args)
    }

    /// Calls a tool in group chat `st1`; (exit code, the printed result).
    pub fn call(&self, tool: &str, args: &str) -> (i32, Value) {
        let (code, out, err) = self.maitool(&[
            "call",
            tool,
            "--args",
            args,
            "--stream-id",
            "st1",
            "--session-id",
            "s1",
            "--group-chat",
            "--json",
        ]);
        let result = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("call {tool} printed no JSON ({e}): {out}\n{err}"));
        (code, result)
    }

    /// The MaiBot runner's status.
    pub fn runner(&self) -> Value {
        self.json(&["status", "--json"])["runners"][0].clone()
    }

    /// `maitool serve`, its JSON log collected; returns once the MaiBot runner is ready.
    pub fn serve(&self) -> Serve {
        self.serve_with(&[])
    }

    /// [`serve`](Self::serve) with more arguments.
    pub fn serve_with(&self, args: &[&str]) -> Serve {
        let mut command = self.command();
        command
            .args(["--log-format", "json", "serve"])
            .args(args)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let serve = Serve::start(command);
        serve.wait_for_log(|line| line["fields"]["message"] == "maitool is serving");
        self.wait_ready(0);
        serve
    }

    /// Waits until the runner is ready with `restarts` restarts; returns its status.
    pub fn wait_ready(&self, restarts: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let runner = self.runner();
            if runner["state"] == "ready" && runner["restart_count"] == restarts {
                return runner;
            }
            assert!(Instant::now() < deadline, "runner not ready: {runner}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A running `maitool serve`; killed when dropped.
pub struct Serve {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Serve {
    /// Starts `command` (a `serve` with `--log-format json` and stderr piped) and collects its
    /// log lines.
    pub fn start(mut command: Command) -> Serve {
        let mut child = command.spawn().expect("serve starts");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Serve { child, lines }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Every JSON log line so far.
    pub fn log(&self) -> Vec<Value> {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// Waits for a JSON log line matching `wanted`; panics after 30 s.
    pub fn wait_for_log(&self, wanted: impl Fn(&Value) -> bool) -> Value {
        self.wait_for_log_within(Duration::from_secs(30), wanted)
    }

    /// [`wait_for_log`](Self::wait_for_log), panicking after `limit`.
    pub fn wait_for_log_within(&self, limit: Duration, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + limit;
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

    /// Kills serve with SIGKILL: nothing of it runs afterwards.
    pub fn kill_hard(&mut self) {
        kill(Pid::from_raw(self.child.id() as i32), Signal::SIGKILL).unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM);
        let _ = self.child.wait();
    }
}

/// Whether `pid` is a live (not zombie) process.
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// The command line of `pid`, arguments joined by spaces.
pub fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| String::from_utf8_lossy(&bytes).replace('\0', " "))
        .unwrap_or_default()
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_dir(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
