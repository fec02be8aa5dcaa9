//! The message-flow tests' fixture: a temporary host with the built-in store (focus mode, so
//! `fetch_history` reads a chat's history), the runners a test names, and `maitool message`
//! against it, one-shot or through a real `maitool serve`.

#![allow(dead_code)] // Each test file uses a different part.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use maitool_e2e::cli::Maitool;
use maitool_e2e::workspace_bin;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

/// A temporary host configuration.
pub struct Host {
    dir: tempfile::TempDir,
    pub config: PathBuf,
}

impl Host {
    /// A host whose configuration is the store and `runners` (TOML of `[[runners]]` tables,
    /// `{root}` replaced by the temporary folder).
    pub fn new(runners: &str) -> Host {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().display().to_string();
        let text = format!(
            "[host]\ncontrol_socket = \"{root}/control.sock\"\ndata_dir = \"{root}/data\"\n\
             enable_builtin = true\n\n\
             [plugin_runtime]\nhealth_check_interval_ms = 500\nrestart_backoff_initial_ms = 0\n\n\
             [builtin]\ndatabase = \"{root}/maitool.sqlite3\"\nfocus_mode = true\n\n{}",
            runners.replace("{root}", &root)
        );
        let config = dir.path().join("maitool.toml");
        std::fs::write(&config, text).unwrap();
        Host { dir, config }
    }

    /// The Rust example runner `maitool-example-chat` as `[[runners]]` TOML.
    pub fn chat_runner(extra: &str) -> String {
        format!(
            "[[runners]]\nname = \"chat\"\nexecutable = \"{}\"\n\n\
             [runners.plugins.\"examples.chat\"]\ncapabilities = [\"kv.*\", \"send.text\"]\n{extra}\n",
            workspace_bin("maitool-example-chat").display()
        )
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn cli(&self) -> Maitool {
        Maitool::new(&self.config, &self.dir.path().join("control.sock"))
    }

    /// Runs a verb; (exit code, stdout, stderr).
    pub fn maitool(&self, args: &[&str]) -> (i32, String, String) {
        self.cli().run(args)
    }

    /// `maitool message TEXT --json` in group `g1` of platform `qq`, stream `stream`, from
    /// user `u1` (Alice); (exit code, the outcome, stderr).
    pub fn message(&self, stream: &str, text: &str) -> (i32, Value, String) {
        self.message_with(&[
            "--stream-id",
            stream,
            "--user-id",
            "u1",
            "--user-name",
            "Alice",
            "--platform",
            "qq",
            "--group-id",
            "g1",
            text,
        ])
    }

    /// `maitool message --json` with these arguments; (exit code, the outcome, stderr).
    pub fn message_with(&self, args: &[&str]) -> (i32, Value, String) {
        let mut all = vec!["message", "--json"];
        all.extend_from_slice(args);
        let (code, out, err) = self.maitool(&all);
        let outcome = serde_json::from_str(&out).unwrap_or(Value::Null);
        (code, outcome, err)
    }

    /// The stream's history as `fetch_history` reads it: its lines, oldest first.
    pub fn history(&self, stream: &str) -> Vec<String> {
        let (code, out, err) = self.maitool(&[
            "call",
            "fetch_history",
            "--args",
            r#"{"num": 50}"#,
            "--stream-id",
            stream,
            "--session-id",
            stream,
            "--group-chat",
            "--json",
        ]);
        assert_eq!(code, 0, "{out}{err}");
        let result: Value = serde_json::from_str(&out).unwrap();
        let content = result["content"].as_str().unwrap_or_default();
        let mut lines: Vec<String> = content
            .lines()
            .filter(|line| line.contains(']'))
            .map(str::to_owned)
            .collect();
        // Newest first, as the tool lists them.
        lines.reverse();
        lines
    }

    /// `maitool serve` on this configuration; returns once it serves and every runner is
    /// ready. Killed when dropped.
    pub fn serve(&self) -> Serve {
        let child = self
            .cli()
            .command()
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("serve starts");
        let serve = Serve { child };
        self.wait_ready();
        serve
    }

    /// Waits until `maitool status` (from serve) says every runner is ready.
    pub fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        // Until serve binds its socket, `status` would start a one-shot host of its own.
        let socket = self.dir.path().join("control.sock");
        while !socket.exists() {
            assert!(
                Instant::now() < deadline,
                "serve did not bind {}",
                socket.display()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        loop {
            let (code, out, _) = self.maitool(&["status", "--json"]);
            if code == 0
                && let Ok(status) = serde_json::from_str::<Value>(&out)
                && status["answered_by"] == "serve"
                && status["runners"]
                    .as_array()
                    .is_some_and(|runners| runners.iter().all(|r| r["state"] == "ready"))
            {
                return;
            }
            assert!(Instant::now() < deadline, "runners not ready: {out}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A running `maitool serve`.
pub struct Serve {
    child: Child,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM);
        let _ = self.child.wait();
    }
}
