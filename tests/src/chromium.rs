//! Headless Chromium for the tests that need a real browser (Debian's `chromium`, installed by
//! `.ci/run`): finding it, and loading a page until its scripts are done.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The Chromium executable (`MAITOOL_CHROMIUM`, else `chromium` or `chromium-browser` on
/// `PATH`), or `None` after a loud skip when there is none. With `MAITOOL_REQUIRE_CHROMIUM=1`
/// (CI) a missing browser is a failure.
pub fn chromium(needed_by: &str) -> Option<PathBuf> {
    let candidates: Vec<PathBuf> = match std::env::var_os("MAITOOL_CHROMIUM") {
        Some(path) => vec![PathBuf::from(path)],
        None => ["chromium", "chromium-browser"]
            .iter()
            .map(PathBuf::from)
            .collect(),
    };
    for candidate in candidates {
        let runs = Command::new(&candidate)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if runs {
            return Some(candidate);
        }
    }
    let message = "Chromium is not installed (run `apt-get install chromium`, as .ci/run does)";
    if std::env::var("MAITOOL_REQUIRE_CHROMIUM").as_deref() == Ok("1") {
        panic!("{needed_by}: {message}; MAITOOL_REQUIRE_CHROMIUM=1 requires it");
    }
    crate::skip::announce(&format!("{needed_by}: {message}"));
    None
}

/// Loads `url` in headless Chromium and returns the page's DOM once its scripts are done:
/// `--virtual-time-budget` lets timers run for `budget` of virtual time, and virtual time stands
/// still while a fetch is pending, so the DOM is printed after the page's requests are answered.
/// Run with the flags that keep Chromium off the network (this machine's network is closed) and
/// in a fresh profile.
pub fn dump_dom(chromium: &std::path::Path, url: &str, budget: Duration) -> String {
    let profile = tempfile::tempdir().expect("a profile folder");
    let mut command = Command::new(chromium);
    command.args([
        "--headless",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]);
    // Chromium refuses to start its sandbox as root; CI runs as root.
    if nix::unistd::geteuid().is_root() {
        command.arg("--no-sandbox");
    }
    let output = command
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--virtual-time-budget={}", budget.as_millis()))
        .arg("--dump-dom")
        .arg(url)
        .stdin(Stdio::null())
        .output()
        .expect("chromium runs");
    assert!(
        output.status.success(),
        "chromium failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}
