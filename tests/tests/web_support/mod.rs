//! `maitool serve --web` on a copy of the shipped `maitool.toml` (in a temporary folder, its
//! paths pointed back at the repository), and the `maitool` verbs against it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use maitool_e2e::cli::Maitool;
use maitool_e2e::{target_dir, workspace_bin};
use serde_json::Value;

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the repository")
}

/// The shipped configuration, its relative paths made absolute (the examples, and the data
/// folder where `maitool prepare` keeps the MaiBot runner's environment) so that a copy
/// elsewhere runs the same plugins; the control socket and the built-in store stay beside
/// the copy.
pub fn shipped_text() -> String {
    let repo = repo();
    let text = std::fs::read_to_string(repo.join("maitool.toml")).expect("maitool.toml");
    text.replace("\"examples/", &format!("\"{}/examples/", repo.display()))
        .replace(
            "data_dir = \"data\"",
            &format!("data_dir = \"{}/data\"", repo.display()),
        )
}

/// A serve with its console.
pub struct Console {
    pub dir: tempfile::TempDir,
    pub config: PathBuf,
    pub maitool: Maitool,
    /// `http://127.0.0.1:PORT/`.
    pub url: String,
    child: Child,
}

impl Console {
    /// Serves `text` (written to `maitool.toml` in a fresh folder) with `--web 127.0.0.1:0`.
    pub fn start(text: &str) -> Console {
        let dir = tempfile::tempdir().expect("a folder");
        let config = dir.path().join("maitool.toml");
        std::fs::write(&config, text).expect("the configuration is written");
        let control = dir.path().join("control.sock");
        let maitool = Maitool::new(&config, &control);
        let mut child = with_env(maitool.command())
            .args(["serve", "--web", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("maitool serve starts");
        let stdout = child.stdout.take().expect("piped");
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(line)) = lines.next() {
                let _ = sender.send(line);
            }
            for _ in lines {}
        });
        let url = receiver
            .recv_timeout(Duration::from_secs(240))
            .expect("serve prints the console's address");
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        Console {
            dir,
            config,
            maitool,
            url,
            child,
        }
    }

    /// The console on the shipped configuration, once the MaiBot runner's environment is
    /// prepared (`maitool prepare maibot`, instant when done before).
    pub fn shipped() -> Console {
        let text = shipped_text();
        let probe = tempfile::tempdir().unwrap();
        let config = probe.path().join("maitool.toml");
        std::fs::write(&config, &text).unwrap();
        let output = with_env(Maitool::new(&config, &probe.path().join("c.sock")).command())
            .args(["prepare", "maibot"])
            .output()
            .expect("maitool prepare runs");
        assert!(
            output.status.success(),
            "maitool prepare maibot failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        Console::start(&text)
    }

    /// The console's origin (`http://127.0.0.1:PORT`).
    pub fn origin(&self) -> &str {
        self.url.trim_end_matches('/')
    }

    /// `maitool ARGS --json` against this serve.
    pub fn json(&self, args: &[&str]) -> Value {
        let output = with_env(self.maitool.command())
            .args(args)
            .output()
            .expect("maitool runs");
        assert!(
            output.status.success(),
            "maitool {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("JSON")
    }

    /// The runner `name` of `maitool status --json`.
    pub fn runner(&self, name: &str) -> Value {
        let status = self.json(&["status", "--json"]);
        status["runners"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no runner {name} in {status}"))
    }

    /// Waits until every runner is ready.
    pub fn wait_ready(&self) {
        let start = std::time::Instant::now();
        loop {
            let status = self.json(&["status", "--json"]);
            let runners = status["runners"].as_array().unwrap();
            if runners.iter().all(|r| r["state"] == "ready") {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(240),
                "runners not ready: {status}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The configuration file's text now.
    pub fn file(&self) -> String {
        std::fs::read_to_string(&self.config).unwrap()
    }
}

impl Drop for Console {
    fn drop(&mut self) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        );
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The environment every `maitool` of these tests runs with: the workspace's binaries, and
/// listings that wait for the runners however loaded the machine.
fn with_env(mut command: Command) -> Command {
    let target = target_dir();
    command
        .env(
            "CARGO_TARGET_DIR",
            target.parent().unwrap_or(Path::new("target")),
        )
        .env("MAITOOL_LISTING_WAIT_MS", "120000");
    let _ = workspace_bin("maitool");
    command
}
