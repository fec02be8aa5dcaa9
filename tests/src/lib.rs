//! Shared support for the workspace end-to-end tests.
//!
//! The tests drive real example binaries (plugin runners, the example MCP server, the
//! `maitool` binary). Cargo only exposes `CARGO_BIN_EXE_*` for a package's own binaries, so
//! the binaries are found next to the test executable in the target directory; the README's
//! test command builds them first (`cargo build --workspace --bins`).

use std::path::PathBuf;

/// The target profile directory (`target/debug`) that holds the workspace binaries.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // target/debug/deps/<test-binary>
    let deps = exe.parent().expect("deps dir");
    deps.parent().expect("profile dir").to_path_buf()
}

/// Path of a workspace binary, e.g. `example_bin("maitool-example-dice")`. Panics with the
/// command to run when it has not been built.
pub fn workspace_bin(name: &str) -> PathBuf {
    let path = target_dir().join(name);
    assert!(
        path.exists(),
        "binary {} not found: build the workspace binaries first with `cargo build --workspace --bins`",
        path.display()
    );
    path
}

/// Installs a tracing subscriber for test output once (respects `RUST_LOG`).
pub fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_test_writer()
        .try_init();
}

pub mod browser;
pub mod chromium;
pub mod cli;
pub mod conformance;
pub mod fake_launch;
pub mod haproxy;
pub mod logs;
pub mod maibot;
pub mod maibot_env;
pub mod netns;
pub mod plan_client;
pub mod plugins;
pub mod postgres;
pub mod skip;
pub mod venv;

/// Polls `check` every 50 ms until it holds; panics naming `what` after `limit`. For
/// conditions a test cannot be told about (a process serving again after a reload).
pub fn eventually(what: &str, limit: std::time::Duration, mut check: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + limit;
    while !check() {
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: not within {limit:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
