//! The executables the benchmark drives, found next to itself in the target directory.
//!
//! `cargo run -p maitool-bench` builds only the benchmark itself, so when it runs under
//! cargo (`CARGO` is set) it first builds its siblings with the same profile: the echo
//! runner, the `maitool` binary and the example MCP server (a no-op when they are fresh).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Paths of the executables under test.
#[derive(Debug, Clone)]
pub struct Bins {
    /// The echo runner (`maitool-bench-echo`).
    pub echo: PathBuf,
    /// The floor's server (`maitool-bench-floor`).
    pub floor: PathBuf,
    /// The `maitool` binary.
    pub maitool: PathBuf,
    /// The example MCP server.
    pub mcp_server: PathBuf,
}

/// The executables: echo runner, floor server, `maitool`, example MCP server.
const NAMES: [&str; 4] = [
    "maitool-bench-echo",
    "maitool-bench-floor",
    "maitool",
    "maitool-example-mcp-server",
];

/// The `cargo build` arguments of the siblings, in one build that also selects this package,
/// so that features unify exactly as in `cargo run -p maitool-bench` and nothing built for it
/// is built again. The benchmark's dependencies enable a superset of the features the MCP
/// server's do; built on its own, the server got a second copy of Tokio, rmcp, serde_json and
/// some hundred crates under them (2–3 minutes of a cold build on two cores).
///
/// `--no-default-features` keeps the `http` features of the host and the MCP server off, as the
/// benchmark's own dependencies on them do; the host still gets `cli` and `mimalloc`, the
/// `maitool` binary's, through the benchmark's dependency on it.
const BUILD: &[&str] = &[
    "--no-default-features",
    "-p",
    "maitool-bench",
    "-p",
    "maitool-host",
    "-p",
    "maitool-example-mcp-server",
    "--bin",
    "maitool-bench-echo",
    "--bin",
    "maitool-bench-floor",
    "--bin",
    "maitool",
    "--bin",
    "maitool-example-mcp-server",
];

/// Finds the executables, building them first when `build` is set and cargo is available.
pub fn locate(build: bool) -> Result<Bins> {
    let exe = std::env::current_exe().context("cannot find the benchmark executable")?;
    let dir = exe
        .parent()
        .context("the benchmark executable has no directory")?
        .to_path_buf();
    if build {
        match std::env::var_os("CARGO") {
            Some(cargo) => build_siblings(Path::new(&cargo), &dir)?,
            None => tracing::info!(
                "not run by cargo; using the executables in {}",
                dir.display()
            ),
        }
    }
    let find = |name: &str| -> Result<PathBuf> {
        let path = dir.join(name);
        if !path.exists() {
            bail!(
                "{} not found: run the benchmark with `cargo run --release -p maitool-bench`, or build it with `cargo build --release --workspace --bins`",
                path.display()
            );
        }
        Ok(path)
    };
    Ok(Bins {
        echo: find(NAMES[0])?,
        floor: find(NAMES[1])?,
        maitool: find(NAMES[2])?,
        mcp_server: find(NAMES[3])?,
    })
}

fn build_siblings(cargo: &Path, dir: &Path) -> Result<()> {
    // target/<profile>/maitool-bench: the profile directory's name is the profile.
    let profile = dir
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("release");
    let mut command = Command::new(cargo);
    command.args(["build", "--quiet"]).args(BUILD);
    match profile {
        "debug" => {}
        "release" => {
            command.arg("--release");
        }
        other => {
            command.args(["--profile", other]);
        }
    }
    let status = command
        .status()
        .with_context(|| format!("cannot run {}", cargo.display()))?;
    if !status.success() {
        bail!("`cargo build {}` failed ({status})", BUILD.join(" "));
    }
    Ok(())
}
