//! A temporary host for the hook and API tests: the Rust example runners `units` and `trip`,
//! MaiBot runners over copies of `tests/maibot-fixtures`, and a `maitool serve` whose JSON log
//! is collected.

#![allow(dead_code)] // Each test file uses a different part.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use maitool_e2e::cli::Maitool;
use maitool_e2e::workspace_bin;
use serde_json::Value;

/// A configuration folder with its MaiBot plugin folders.
pub struct World {
    dir: tempfile::TempDir,
    python: PathBuf,
    /// The MaiBot runners: (runner name, fixture folders it loads).
    maibot: Vec<(String, Vec<String>)>,
    pub config: PathBuf,
}

impl World {
    /// The Rust runners and one MaiBot runner per `(name, fixtures)`; `plugins` are the
    /// plugin tables of each runner, `(runner, TOML)`.
    pub fn new(python: &Path, maibot: &[(&str, &[&str])], plugins: &[(&str, String)]) -> World {
        let dir = tempfile::tempdir().unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("maibot-fixtures");
        for (runner, folders) in maibot {
            for folder in *folders {
                copy_dir(
                    &fixtures.join(folder),
                    &dir.path().join(runner).join(folder),
                );
            }
        }
        let world = World {
            config: dir.path().join("maitool.toml"),
            dir,
            python: python.to_path_buf(),
            maibot: maibot
                .iter()
                .map(|(runner, folders)| {
                    (
                        runner.to_string(),
                        folders.iter().map(|f| f.to_string()).collect(),
                    )
                })
                .collect(),
        };
        world.write_config(plugins);
        world
    }

    /// Rewrites the configuration with other plugin tables.
    pub fn write_config(&self, plugins: &[(&str, String)]) {
        let root = self.dir.path().display();
        let tables = |runner: &str| {
            plugins
                .iter()
                .filter(|(name, _)| *name == runner)
                .map(|(_, table)| table.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let mut text = format!(
            "[host]\ncontrol_socket = \"{root}/control.sock\"\ndata_dir = \"{root}/data\"\n\n\
             [builtin]\ndatabase = \"{root}/maitool.sqlite3\"\nfocus_mode = true\n\n"
        );
        for (runner, binary) in [
            ("units", "maitool-example-units"),
            ("trip", "maitool-example-trip"),
        ] {
            text.push_str(&format!(
                "[[runners]]\nname = \"{runner}\"\nexecutable = \"{}\"\n{}\n\n",
                workspace_bin(binary).display(),
                tables(runner)
            ));
        }
        for (runner, _) in &self.maibot {
            text.push_str(&format!(
                "[[runners]]\nname = \"{runner}\"\nkind = \"maibot\"\npython = \"{}\"\n\
                 plugin_dirs = [\"{runner}\"]\n{}\n\n",
                self.python.display(),
                tables(runner)
            ));
        }
        std::fs::write(&self.config, text).unwrap();
    }

    /// `maitool` on this configuration.
    pub fn cli(&self) -> Maitool {
        Maitool::new(&self.config, &self.dir.path().join("control.sock"))
    }

    /// Runs a verb; (exit code, stdout, stderr).
    pub fn maitool(&self, args: &[&str]) -> (i32, String, String) {
        self.cli().run(args)
    }

    /// Runs a verb that must succeed and print JSON.
    pub fn json(&self, args: &[&str]) -> Value {
        self.cli().json(args)
    }

    /// Calls `tool` with `args` in session `s1` and stream `st1`; (exit code, result).
    pub fn call(&self, tool: &str, args: &Value) -> (i32, Value) {
        let args = args.to_string();
        let (code, out, err) = self.maitool(&[
            "call",
            tool,
            "--args",
            &args,
            "--session-id",
            "s1",
            "--stream-id",
            "st1",
            "--json",
        ]);
        let result = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("call {tool} printed no JSON ({e}): {out}\n{err}"));
        (code, result)
    }

    /// A tool's JSON report (its content), from a call that must succeed.
    pub fn report(&self, tool: &str, args: &Value) -> Value {
        let (code, result) = self.call(tool, args);
        assert_eq!(code, 0, "{tool}: {result}");
        let content = result["content"]
            .as_str()
            .unwrap_or_else(|| panic!("{result}"));
        serde_json::from_str(content)
            .unwrap_or_else(|e| panic!("{tool} reported no JSON ({e}): {content}"))
    }

    /// `maitool serve` with its JSON log collected; returns once every runner is ready.
    pub fn serve(&self) -> Serve {
        let mut child = self
            .cli()
            .command()
            .args(["--log-format", "json", "serve"])
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("serve starts");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().unwrap();
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        let serve = Serve { child, lines };
        serve.wait_for_log(|line| line["fields"]["message"] == "maitool is serving");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let status = self.json(&["status", "--json"]);
            let runners = status["runners"].as_array().unwrap();
            if runners.iter().all(|runner| runner["state"] == "ready") {
                break;
            }
            assert!(Instant::now() < deadline, "runners not ready: {status}");
            std::thread::sleep(Duration::from_millis(50));
        }
        serve
    }
}

/// A running `maitool serve`; killed when dropped.
pub struct Serve {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Serve {
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
        let deadline = Instant::now() + Duration::from_secs(30);
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
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_dir(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
