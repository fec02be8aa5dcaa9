//! The `maitool` binary run on a configuration, with its own control socket.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::workspace_bin;

/// A `maitool` command line: `--config CONFIG --control-socket CONTROL`.
#[derive(Debug, Clone)]
pub struct Maitool {
    /// The configuration file.
    pub config: PathBuf,
    /// The control socket.
    pub control: PathBuf,
}

impl Maitool {
    /// `maitool` on `config`, with `control` as its control socket.
    pub fn new(config: &Path, control: &Path) -> Maitool {
        Maitool {
            config: config.to_path_buf(),
            control: control.to_path_buf(),
        }
    }

    /// The command, ready for a verb.
    pub fn command(&self) -> Command {
        let mut command = Command::new(workspace_bin("maitool"));
        command
            .arg("--config")
            .arg(&self.config)
            .arg("--control-socket")
            .arg(&self.control);
        command
    }

    /// Runs a verb; (exit code, stdout, stderr).
    pub fn run(&self, args: &[&str]) -> (i32, String, String) {
        let output = self.command().args(args).output().expect("maitool runs");
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        (
            output.status.code().unwrap_or(-1),
            text(&output.stdout),
            text(&output.stderr),
        )
    }

    /// Runs a verb that must succeed and print JSON.
    pub fn json(&self, args: &[&str]) -> Value {
        let (code, out, err) = self.run(args);
        assert_eq!(code, 0, "maitool {args:?} failed: {err}");
        serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("maitool {args:?} printed no JSON ({e}): {out}"))
    }
}
