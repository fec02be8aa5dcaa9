//! The executables the benchmark drives, found next to itself in the target directory.
//!
//! All are this package's own binaries: the echo runner, the floor's server, and the `maitool`
//! command line and the example MCP server under the benchmark's names
//! (`maitool-bench-maitool`, `maitool-bench-mcp-server`), built from the benchmark's own
//! dependencies, without `http`. So building them never replaces the `maitool` or
//! `maitool-example-mcp-server` of another command (`target/release/maitool serve --mcp-http`
//! keeps working after a benchmark run). `cargo run -p maitool-bench` builds only the
//! benchmark itself, so when it runs under cargo (`CARGO` is set) it first builds the others
//! with the same profile (a no-op when they are fresh; every dependency is already built).

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
    /// The relay that records a runner connection's frames (`maitool-bench-capture`).
    pub capture: PathBuf,
}

/// The executables: echo runner, floor server, `maitool`, example MCP server, capture relay.
const NAMES: [&str; 5] = [
    "maitool-bench-echo",
    "maitool-bench-floor",
    "maitool-bench-maitool",
    "maitool-bench-mcp-server",
    "maitool-bench-capture",
];

/// The `cargo build` arguments of the executables: this package's binaries, so that features
/// unify exactly as in `cargo run -p maitool-bench`.
const BUILD: &[&str] = &["-p", "maitool-bench", "--bins"];

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
                "{} not found: run the benchmark with `cargo run --release -p maitool-bench`, or build it with `cargo build --release -p maitool-bench --bins`",
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
        capture: find(NAMES[4])?,
    })
}

fn build_siblings(cargo: &Path, dir: &Path) -> Result<()> {
    // target/<profile>/maitool-bench: the profile directory's name is the profile.
    let profile = dir
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("release");
    build(cargo, profile, BUILD)?;
    // The cluster section runs `maitool serve --mcp-http`, which the benchmark's own
    // `maitool` (without `http`) cannot: the workspace's, built only when that section can run.
    if std::env::var_os(crate::cluster::URL_VAR).is_some() {
        build(cargo, profile, &["-p", "maitool-host", "--bin", "maitool"])?;
    }
    Ok(())
}

fn build(cargo: &Path, profile: &str, what: &[&str]) -> Result<()> {
    let mut command = Command::new(cargo);
    command.args(["build", "--quiet"]).args(what);
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
        bail!("`cargo build {}` failed ({status})", what.join(" "));
    }
    Ok(())
}
