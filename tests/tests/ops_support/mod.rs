//! The operator tests' fixture: a temporary configuration over the example runners and the
//! example MCP server, and `maitool` runs against it (in-process or through `serve`).

#![allow(dead_code)] // Each test file uses a different part.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use maitool_e2e::cli::Maitool;
use maitool_e2e::workspace_bin;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

/// A temporary configuration: the given example runners (`misbehaving` with its second plugin
/// failing on load), the example MCP server with `ex_`-prefixed tools and a 0.5 s call cap,
/// built-in tools on, plugin tools timing out after 500 ms.
pub struct Fixture {
    dir: tempfile::TempDir,
    pub config: PathBuf,
}

impl Fixture {
    /// `runners` are example names (`maitool-example-NAME`); `runtime` is appended to the
    /// `[plugin_runtime]` section, `extra` to the file.
    pub fn new(runners: &[&str], runtime: &str, extra: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().display();
        let mut text = format!(
            "[host]\ncontrol_socket = \"{root}/control.sock\"\ndata_dir = \"{root}/data\"\nenable_builtin = true\n\n\
             [plugin_runtime]\ndefault_tool_timeout_ms = 500\n{runtime}\n\n\
             [builtin]\ndatabase = \"{root}/maitool.sqlite3\"\n\n"
        );
        for runner in runners {
            let executable = workspace_bin(&format!("maitool-example-{runner}"));
            text.push_str(&format!(
                "[[runners]]\nname = \"{runner}\"\nexecutable = \"{}\"\n",
                executable.display()
            ));
            if *runner == "misbehaving" {
                text.push_str("env = { MISBEHAVE_FAIL_LOAD = \"1\" }\n");
            }
            text.push('\n');
        }
        text.push_str(&format!(
            "[mcp]\nenable = true\n\n\
             [[mcp.servers]]\nname = \"example\"\ntransport = \"stdio\"\ncommand = \"{}\"\ntool_prefix = \"ex_\"\nread_timeout_seconds = 0.5\n\n{extra}",
            workspace_bin("maitool-example-mcp-server").display(),
        ));
        let config = dir.path().join("maitool.toml");
        std::fs::write(&config, text).unwrap();
        Fixture { dir, config }
    }

    /// The directory of the configuration file (relative paths in it are against this).
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    pub fn control(&self) -> PathBuf {
        self.dir.path().join("control.sock")
    }

    /// `maitool` on this configuration and control socket.
    pub fn cli(&self) -> Maitool {
        Maitool::new(&self.config, &self.control())
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

    /// `maitool serve` with `--log-format json`, its stderr collected line by line; returns
    /// once it serves.
    pub fn serve(&self, extra: &[&str]) -> Serve {
        self.serve_under(&[], extra)
    }

    /// [`serve`](Self::serve) run through `wrapper` (a command and its arguments that end
    /// with the program to run, e.g. `["prlimit", "--nofile=256:256", "--"]`).
    pub fn serve_under(&self, wrapper: &[&str], extra: &[&str]) -> Serve {
        let mut command = match wrapper.split_first() {
            None => self.command(),
            Some((program, args)) => {
                let mut wrapped = Command::new(program);
                wrapped
                    .args(args)
                    .arg(workspace_bin("maitool"))
                    .args(self.command().get_args());
                wrapped
            }
        };
        command.args(["--log-format", "json", "serve"]).args(extra);
        let serve = Serve::spawn(command);
        serve.wait_for_log(|line| line["fields"]["message"] == "maitool is serving");
        serve
    }
}

/// A running `maitool serve`; killed when dropped.
pub struct Serve {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Serve {
    /// Runs `command` (a `maitool ... serve` with `--log-format json`), collecting its stderr
    /// line by line; returns at once.
    pub fn spawn(mut command: Command) -> Serve {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot run {:?}: {err}", command.get_program()));
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let sink = lines.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Serve {
            child,
            lines,
            reader: Some(reader),
        }
    }

    /// Waits for serve to exit, at most 30 s (then kills it and panics); its exit code and
    /// every stderr line.
    pub fn exit(mut self) -> (i32, Vec<String>) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!(
                    "serve still runs after 30 s:\n{}",
                    self.lines.lock().unwrap().join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        self.reader.take().unwrap().join().unwrap();
        let lines = self.lines.lock().unwrap().clone();
        (status.code().unwrap_or(-1), lines)
    }

    /// Waits for a JSON log line matching `wanted`; panics after 30 s.
    pub fn wait_for_log(&self, wanted: impl Fn(&Value) -> bool) -> Value {
        self.wait_for_log_or(&String::new, wanted)
    }

    /// [`Serve::wait_for_log`], showing `context()` too if it panics.
    pub fn wait_for_log_or(
        &self,
        context: &dyn Fn() -> String,
        wanted: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let found = self
                .lines
                .lock()
                .unwrap()
                .iter()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .find(|line| wanted(line));
            if let Some(line) = found {
                return line;
            }
            assert!(
                Instant::now() < deadline,
                "log line not found in:\n{}\n{}",
                self.lines.lock().unwrap().join("\n"),
                context()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops serve with SIGTERM and returns every stderr line.
    pub fn stop(mut self) -> Vec<String> {
        kill(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM).unwrap();
        assert!(self.child.wait().unwrap().success());
        self.reader.take().unwrap().join().unwrap();
        self.lines.lock().unwrap().clone()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
