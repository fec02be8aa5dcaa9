//! The runner sandbox, through a real runner: `maitool-example-escape`, a Rust plugin that
//! reads a planted secret, another plugin's data and the configuration, writes outside its
//! folders, connects to a local port, signals the host and a bystander process, and starts
//! processes without bound. Sandboxed (the default), every attempt fails with an OS error in
//! the plugin, the host keeps serving and the listener hears nothing; with its port granted,
//! the connect goes through; with the sandbox off, every attempt succeeds (so the refusals come
//! from the sandbox and nothing else).

mod sandbox_support;

use sandbox_support::{Escape, Runner, enforced};
use serde_json::json;

#[test]
fn a_sandboxed_plugin_is_refused_every_escape_and_the_host_keeps_serving() {
    let escape = Escape::new(Runner::Rust, "");
    let serve = escape.serve();
    if !enforced(&escape.runner()) {
        return;
    }
    let denied = "Permission denied (os error 13)";
    for secret in [
        escape.path("home/.ssh/id_ed25519"),
        escape.path("data/plugins/examples.other/diary.txt"),
        escape.config.display().to_string(),
        // The host's environment: Landlock refuses what ptrace guards outside the sandbox.
        format!("/proc/{}/environ", serve.pid()),
    ] {
        escape.refused("read_file", json!({"path": secret}), denied);
    }
    let outside = escape.path("outside/dropped.txt");
    escape.refused("write_file", json!({"path": outside, "text": "x"}), denied);
    assert!(!std::path::Path::new(&outside).exists());
    escape.refused(
        "connect",
        json!({"port": escape.port, "send": "leaked"}),
        denied,
    );
    assert_eq!(escape.listener_heard(), None);
    let not_permitted = "Operation not permitted (os error 1)";
    escape.refused("signal", json!({"pid": 0}), not_permitted);
    escape.refused(
        "signal",
        json!({"pid": escape.bystander.id()}),
        not_permitted,
    );
    let forked = escape.refused(
        "fork",
        json!({"count": 500}),
        "Resource temporarily unavailable (os error 11)",
    );
    assert!(forked.starts_with("started "), "{forked}");

    // What it may do: its own data folder.
    let own = escape.path("data/plugins/examples.escape/note.txt");
    escape.allowed("write_file", json!({"path": own, "text": "mine"}));
    let read = escape.allowed("read_file", json!({"path": own}));
    assert!(read.ends_with("mine"), "{read}");

    let runner = escape.runner();
    assert_eq!(runner["state"], "ready", "{runner}");
    assert_eq!(runner["restart_count"], 0, "{runner}");
    let sandbox = &runner["sandbox"];
    assert_eq!(sandbox["mode"], "on", "{sandbox}");
    assert_eq!(sandbox["connect_ports"], json!([80, 443]), "{sandbox}");
    assert_eq!(sandbox["bind_ports"], json!([]), "{sandbox}");
    assert_eq!(sandbox["limits"]["processes"], 64, "{sandbox}");
    let (code, text, _) = escape.cli().run(&["status"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("sandbox: full (Landlock ABI "),
        "status shows no sandbox line: {text}"
    );
}

/// The number of processes a `fork` call reports it started before the limit stopped it.
fn started_before_refusal(message: &str) -> u64 {
    message
        .strip_prefix("started ")
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {message:?}"))
}

/// A restart does not build the sandbox anew (the launch is forked from a thread already
/// waiting in a fresh pids cgroup, the ruleset is reused), so the restarted runner is checked
/// as the first launch was: the process limit of 64 holds in the new launch's own cgroup, the
/// same folders stay closed, and the private temporary folder is the same one, emptied.
#[test]
fn a_restarted_runner_is_contained_as_its_first_launch_was() {
    let escape = Escape::new(Runner::Rust, "");
    let _serve = escape.serve();
    let first = escape.runner();
    if !enforced(&first) {
        return;
    }
    let temp = first["sandbox"]["write"]
        .as_array()
        .and_then(|write| write.last())
        .and_then(|p| p.as_str())
        .expect("the private temporary folder is listed last")
        .to_owned();
    let left = format!("{temp}/left-by-the-first-launch.txt");
    escape.allowed("write_file", json!({"path": left, "text": "old"}));
    let again = "Resource temporarily unavailable (os error 11)";
    let before = started_before_refusal(&escape.refused("fork", json!({"count": 500}), again));

    let pid = first["pid"].as_i64().expect("the runner's pid") as i32;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let restarted = loop {
        let runner = escape.runner();
        if runner["state"] == "ready" && runner["restart_count"] == 1 {
            break runner;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the runner did not come back: {runner}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_ne!(restarted["pid"], first["pid"], "{restarted}");
    assert_eq!(restarted["sandbox"]["write"], first["sandbox"]["write"]);

    let after = started_before_refusal(&escape.refused("fork", json!({"count": 500}), again));
    assert!(
        after < 64 && after + 8 >= before,
        "the restarted launch started {after} processes, the first {before}: the limit of 64 is not the same"
    );
    escape.refused(
        "read_file",
        json!({"path": escape.path("home/.ssh/id_ed25519")}),
        "Permission denied (os error 13)",
    );
    escape.refused(
        "write_file",
        json!({"path": escape.path("outside/dropped.txt"), "text": "x"}),
        "Permission denied (os error 13)",
    );
    escape.refused(
        "read_file",
        json!({"path": left}),
        "No such file or directory (os error 2)",
    );
    let fresh = format!("{temp}/written-by-the-second-launch.txt");
    escape.allowed("write_file", json!({"path": fresh, "text": "new"}));
}

#[test]
fn a_granted_port_connects_and_only_that_one() {
    let escape = Escape::new(Runner::Rust, "connect_ports = [{port}]");
    let _serve = escape.serve();
    if !enforced(&escape.runner()) {
        return;
    }
    escape.allowed("connect", json!({"port": escape.port, "send": "granted"}));
    assert_eq!(escape.listener_heard().as_deref(), Some("granted"));
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let other_port = other.local_addr().unwrap().port();
    escape.refused(
        "connect",
        json!({"port": other_port}),
        "Permission denied (os error 13)",
    );
    let sandbox = &escape.runner()["sandbox"];
    assert_eq!(
        sandbox["connect_ports"],
        json!([80, 443, escape.port]),
        "{sandbox}"
    );
}

#[test]
fn with_the_sandbox_off_every_escape_succeeds_and_status_says_so() {
    let escape = Escape::new(Runner::Rust, "mode = \"off\"");
    let serve = escape.serve();
    let secret = escape.allowed(
        "read_file",
        json!({"path": escape.path("home/.ssh/id_ed25519")}),
    );
    assert!(secret.ends_with("PLANTED-SSH-KEY"), "{secret}");
    let diary = escape.path("data/plugins/examples.other/diary.txt");
    assert!(
        escape
            .allowed("read_file", json!({"path": diary}))
            .ends_with("ANOTHER-PLUGINS-DATA")
    );
    let config = escape.allowed("read_file", json!({"path": escape.config}));
    assert!(config.contains("PLANTED-IN-THE-CONFIG"), "{config}");
    let environ = format!("/proc/{}/environ", serve.pid());
    escape.allowed("read_file", json!({"path": environ}));
    let outside = escape.path("outside/dropped.txt");
    escape.allowed("write_file", json!({"path": outside, "text": "x"}));
    assert!(std::path::Path::new(&outside).exists());
    escape.allowed("connect", json!({"port": escape.port, "send": "leaked"}));
    assert_eq!(escape.listener_heard().as_deref(), Some("leaked"));
    escape.allowed("signal", json!({"pid": 0}));
    escape.allowed("signal", json!({"pid": escape.bystander.id()}));
    assert_eq!(
        escape.allowed("fork", json!({"count": 100})),
        "started all 100 processes"
    );
    let runner = escape.runner();
    assert_eq!(runner["state"], "ready", "{runner}");
    let sandbox = &runner["sandbox"];
    assert_eq!(sandbox["state"], "off", "{sandbox}");
    assert!(
        sandbox["detail"]
            .as_str()
            .unwrap()
            .starts_with("off by the operator's choice (the runner's sandbox.mode = \"off\")"),
        "{sandbox}"
    );
    let (_, text, _) = escape.cli().run(&["plugins"]);
    assert!(
        text.contains("sandbox: off: off by the operator's choice"),
        "{text}"
    );
}

#[test]
fn a_required_sandbox_reports_a_bad_port_as_a_configuration_error() {
    let escape = Escape::new(Runner::Rust, "mode = \"required\"\nbind_ports = [0]");
    let (code, _, err) = escape.cli().run(&["status"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("runners.escape.sandbox.bind_ports: port 0 is not a port"),
        "{err}"
    );
}
