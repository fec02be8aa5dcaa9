//! The runner sandbox around MaiBot's own runner from PyPI: `tests/fixtures/maibot-escape`, a
//! MaiBot plugin that makes the same attempts as the Rust one in `sandbox.rs`. Sandboxed, each
//! fails with an OS error inside the plugin while the host keeps serving; with the sandbox off,
//! each succeeds.
//!
//! The runner is installed by `.ci/install-maibot-runner.sh`. Without it these tests skip
//! loudly, except under `MAITOOL_REQUIRE_MAIBOT=1` (CI), where they fail.

mod sandbox_support;

use maitool_e2e::maibot::maibot_python;
use sandbox_support::{Escape, Runner, enforced};
use serde_json::json;

#[test]
fn a_sandboxed_maibot_plugin_is_refused_every_escape_and_the_host_keeps_serving() {
    let Some(python) = maibot_python() else {
        return;
    };
    let escape = Escape::new(Runner::Maibot(&python), "");
    let serve = escape.serve();
    if !enforced(&escape.runner()) {
        return;
    }
    for secret in [
        escape.path("home/.ssh/id_ed25519"),
        escape.path("data/plugins/examples.other/diary.txt"),
        escape.config.display().to_string(),
        format!("/proc/{}/environ", serve.pid()),
    ] {
        escape.refused("py_read_file", json!({"path": secret}), "Permission denied");
    }
    let outside = escape.path("outside/dropped.txt");
    escape.refused(
        "py_write_file",
        json!({"path": outside, "text": "x"}),
        "Permission denied",
    );
    assert!(!std::path::Path::new(&outside).exists());
    escape.refused(
        "py_connect",
        json!({"port": escape.port, "send": "leaked"}),
        "Permission denied",
    );
    assert_eq!(escape.listener_heard(), None);
    escape.refused("py_signal", json!({"pid": 0}), "Operation not permitted");
    escape.refused(
        "py_signal",
        json!({"pid": escape.bystander.id()}),
        "Operation not permitted",
    );
    escape.refused(
        "py_fork",
        json!({"count": 500}),
        "Resource temporarily unavailable",
    );

    // What a MaiBot plugin may do: write into its own folder, as market plugins do.
    let own = escape.path("plugins/escape/state.json");
    escape.allowed("py_write_file", json!({"path": own, "text": "{}"}));
    let runner = escape.runner();
    assert_eq!(runner["state"], "ready", "{runner}");
    assert_eq!(runner["restart_count"], 0, "{runner}");
}

#[test]
fn with_the_sandbox_off_every_maibot_escape_succeeds() {
    let Some(python) = maibot_python() else {
        return;
    };
    let escape = Escape::new(Runner::Maibot(&python), "mode = \"off\"");
    let _serve = escape.serve();
    let secret = escape.allowed(
        "py_read_file",
        json!({"path": escape.path("home/.ssh/id_ed25519")}),
    );
    assert!(secret.ends_with("PLANTED-SSH-KEY"), "{secret}");
    let outside = escape.path("outside/dropped.txt");
    escape.allowed("py_write_file", json!({"path": outside, "text": "x"}));
    assert!(std::path::Path::new(&outside).exists());
    escape.allowed("py_connect", json!({"port": escape.port, "send": "leaked"}));
    assert_eq!(escape.listener_heard().as_deref(), Some("leaked"));
    escape.allowed("py_signal", json!({"pid": 0}));
    assert_eq!(
        escape.allowed("py_fork", json!({"count": 100})),
        "started all 100 processes"
    );
    assert_eq!(escape.runner()["sandbox"]["state"], "off");
}
