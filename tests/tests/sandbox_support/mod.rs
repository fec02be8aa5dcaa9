//! The sandbox tests' fixture: a real `maitool serve` whose one runner tries to escape (the
//! Rust `maitool-example-escape`, or the MaiBot plugin `tests/fixtures/maibot-escape` under
//! MaiBot's own runner), next to what it must not reach: a planted secret, another plugin's
//! data folder, the configuration file, a folder to write into, a TCP listener on a port
//! other than 80 and 443, and a process outside its group.

#![allow(dead_code)] // Each test file uses a different part.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use maitool_e2e::cli::Maitool;
use maitool_e2e::workspace_bin;
use serde_json::Value;

/// How long the host gets to start its runner (a cold Python start under load included).
const START: Duration = Duration::from_secs(60);

/// The planted things and the host.
pub struct Escape {
    dir: tempfile::TempDir,
    pub config: PathBuf,
    pub listener: TcpListener,
    pub port: u16,
    /// An outside process, signalled by the plugin.
    pub bystander: Child,
}

/// Which runner tries to escape.
pub enum Runner<'a> {
    /// `maitool-example-escape`, plugin `examples.escape`.
    Rust,
    /// MaiBot's runner with `python`, plugin `tests.maibot_escape`.
    Maibot(&'a Path),
}

impl Escape {
    /// The fixture; `sandbox` is the body of the runner's `[runners.sandbox]` table.
    pub fn new(runner: Runner<'_>, sandbox: &str) -> Escape {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("home/.ssh")).unwrap();
        std::fs::write(root.join("home/.ssh/id_ed25519"), "PLANTED-SSH-KEY").unwrap();
        std::fs::create_dir_all(root.join("data/plugins/examples.other")).unwrap();
        std::fs::write(
            root.join("data/plugins/examples.other/diary.txt"),
            "ANOTHER-PLUGINS-DATA",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let sandbox = sandbox.replace("{port}", &port.to_string());
        let runner = match runner {
            Runner::Rust => format!(
                "[[runners]]\nname = \"escape\"\nexecutable = \"{}\"\n\n\
                 [runners.plugins.\"examples.escape\"]\n\n",
                workspace_bin("maitool-example-escape").display()
            ),
            Runner::Maibot(python) => {
                let plugins = root.join("plugins/escape");
                std::fs::create_dir_all(&plugins).unwrap();
                let fixture =
                    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/maibot-escape/escape");
                for file in ["_manifest.json", "plugin.py"] {
                    std::fs::copy(fixture.join(file), plugins.join(file)).unwrap();
                }
                format!(
                    "[[runners]]\nname = \"escape\"\nkind = \"maibot\"\npython = \"{}\"\n\
                     plugin_dirs = [\"plugins\"]\n\n",
                    python.display()
                )
            }
        };
        let config = root.join("maitool.toml");
        std::fs::write(
            &config,
            format!(
                "# API_KEY=PLANTED-IN-THE-CONFIG\n[host]\ncontrol_socket = \"control.sock\"\n\
                 data_dir = \"data\"\nenable_builtin = false\n\n{runner}\
                 [runners.sandbox]\nmax_processes = 64\n{sandbox}\n"
            ),
        )
        .unwrap();
        let bystander = Command::new("sleep").arg("120").spawn().unwrap();
        Escape {
            dir,
            config,
            listener,
            port,
            bystander,
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// A path under the fixture's folder.
    pub fn path(&self, relative: &str) -> String {
        self.dir.path().join(relative).display().to_string()
    }

    pub fn cli(&self) -> Maitool {
        Maitool::new(&self.config, &self.dir.path().join("control.sock"))
    }

    /// `maitool serve` on the fixture, once its runner is ready.
    pub fn serve(&self) -> Serve {
        let child = self
            .cli()
            .command()
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("serve starts");
        let mut serve = Serve { child: Some(child) };
        let deadline = Instant::now() + START;
        loop {
            let (code, out, _) = self.cli().run(&["status", "--json"]);
            if code == 0
                && let Ok(status) = serde_json::from_str::<Value>(&out)
                && status["answered_by"] == "serve"
                && status["runners"][0]["state"] == "ready"
            {
                return serve;
            }
            if Instant::now() > deadline {
                let log = serve.stop();
                panic!("the escape runner was not ready within {START:?}: {out}\n{log}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Calls a tool of the served host; (exit code, the printed result).
    pub fn call(&self, tool: &str, args: Value) -> (i32, Value) {
        let args = args.to_string();
        let (code, out, err) = self.cli().run(&["call", tool, "--args", &args, "--json"]);
        let result = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("call {tool} printed no JSON ({e}): {out}\n{err}"));
        (code, result)
    }

    /// A call that must fail with `os_error` in its message; returns the message.
    pub fn refused(&self, tool: &str, args: Value, os_error: &str) -> String {
        let (code, result) = self.call(tool, args.clone());
        let message = result["error_message"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert_eq!(code, 1, "{tool} {args} was not refused: {result}");
        assert!(
            message.contains(os_error),
            "{tool} {args} failed, but not with {os_error:?}: {message}"
        );
        message
    }

    /// A call that must succeed; returns its text.
    pub fn allowed(&self, tool: &str, args: Value) -> String {
        let (code, result) = self.call(tool, args.clone());
        assert_eq!(code, 0, "{tool} {args} failed: {result}");
        result["content"].as_str().unwrap_or_default().to_owned()
    }

    /// The line a client sent to the listener, if one connected.
    pub fn listener_heard(&self) -> Option<String> {
        let deadline = Instant::now() + Duration::from_millis(500);
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    stream.set_nonblocking(false).unwrap();
                    let mut line = String::new();
                    BufReader::new(stream).read_line(&mut line).unwrap();
                    return Some(line.trim_end().to_owned());
                }
                Err(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Err(_) => return None,
            }
        }
    }

    /// The runner's status.
    pub fn runner(&self) -> Value {
        self.cli().json(&["status", "--json"])["runners"][0].clone()
    }
}

impl Drop for Escape {
    fn drop(&mut self) {
        let _ = self.bystander.kill();
        let _ = self.bystander.wait();
    }
}

/// A running `maitool serve`, stopped (SIGTERM) when dropped.
pub struct Serve {
    child: Option<Child>,
}

impl Serve {
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// Stops the host; returns what it wrote to stderr.
    pub fn stop(&mut self) -> String {
        let Some(child) = self.child.take() else {
            return String::new();
        };
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        );
        let output = child.wait_with_output().expect("serve ends");
        String::from_utf8_lossy(&output.stderr).into_owned()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// Whether this machine can enforce the whole sandbox (Landlock with network rules and
/// scoping, and a process limit), read from the runner's status. Without it the caller skips,
/// loudly, unless `MAITOOL_REQUIRE_LANDLOCK=1` (CI), where that is a failure.
pub fn enforced(runner: &Value) -> bool {
    let sandbox = &runner["sandbox"];
    if sandbox["state"] == "full" {
        return true;
    }
    let reason = format!(
        "the sandbox tests need Landlock ABI 6 or later and a process limit (a pids cgroup, or a non-root user); this machine's sandbox: {sandbox}"
    );
    if std::env::var("MAITOOL_REQUIRE_LANDLOCK").is_ok_and(|v| v == "1") {
        panic!("{reason} (MAITOOL_REQUIRE_LANDLOCK=1)");
    }
    maitool_e2e::skip::announce(&reason);
    false
}
