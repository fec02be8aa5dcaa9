//! A runner whose executable was rebuilt at the same path is restarted by `reload`, and
//! `serve --watch` applies configuration edits and rebuilt executables by itself.

mod ops_support;

use std::path::Path;
use std::time::Duration;

use maitool_e2e::{eventually, workspace_bin};
use ops_support::Fixture;
use serde_json::Value;

/// Puts a copy of example `name` at `path` the way a build does: written under another name,
/// then renamed over the old file (a runner's running executable cannot be written in place).
fn install(name: &str, path: &Path) {
    let next = path.with_extension("new");
    std::fs::copy(workspace_bin(name), &next).unwrap();
    std::fs::rename(&next, path).unwrap();
}

/// A fixture whose only runner, `tool`, starts the executable at `dir/runner`.
fn fixture_with_copied_runner(runtime: &str) -> (Fixture, std::path::PathBuf) {
    let fixture = Fixture::new(&[], runtime, "");
    let runner = fixture.config.with_file_name("runner");
    install("maitool-example-dice", &runner);
    let text = std::fs::read_to_string(&fixture.config).unwrap();
    std::fs::write(
        &fixture.config,
        format!(
            "[[runners]]\nname = \"tool\"\nexecutable = \"{}\"\n\n{text}",
            runner.display()
        ),
    )
    .unwrap();
    (fixture, runner)
}

fn runner_pid(fixture: &Fixture) -> Option<u64> {
    let status = fixture.json(&["status", "--json"]);
    status["runners"][0]["pid"].as_u64()
}

fn tool_names(fixture: &Fixture) -> Vec<String> {
    let tools: Value = fixture.json(&["tools", "--json"]);
    tools
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

/// How long a reload may take to show.
const LIMIT: Duration = Duration::from_secs(20);

#[test]
fn reload_restarts_a_runner_whose_executable_was_rebuilt_at_the_same_path() {
    let (fixture, runner) = fixture_with_copied_runner("");
    let serve = fixture.serve(&[]);
    let first = runner_pid(&fixture).expect("the runner runs");

    // Nothing changed: the runner keeps running.
    let report = fixture.json(&["reload", "--json"]);
    assert_eq!(
        report["plugins"]["unchanged"],
        serde_json::json!(["tool"]),
        "{report}"
    );
    assert_eq!(runner_pid(&fixture), Some(first));

    // The same path now holds another program (the notes example instead of the dice one):
    // the launch settings are equal, the file is not.
    install("maitool-example-notes", &runner);
    let report = fixture.json(&["reload", "--json"]);
    assert_eq!(
        report["plugins"]["restarted"],
        serde_json::json!(["tool"]),
        "{report}"
    );
    eventually("the rebuilt runner serves", LIMIT, || {
        tool_names(&fixture).contains(&"remember".to_owned())
    });
    let second = runner_pid(&fixture).expect("the rebuilt runner runs");
    assert_ne!(second, first);
    assert!(!tool_names(&fixture).contains(&"roll_dice".to_owned()));
    serve.stop();
}

#[test]
fn serve_with_watch_applies_edits_and_rebuilt_executables_without_a_reload_command() {
    let (fixture, runner) = fixture_with_copied_runner("");
    let serve = fixture.serve(&["--watch"]);
    let first = runner_pid(&fixture).expect("the runner runs");
    assert!(!tool_names(&fixture).contains(&"greet".to_owned()));

    // An edit of the configuration file: a second runner.
    let text = std::fs::read_to_string(&fixture.config).unwrap();
    std::fs::write(
        &fixture.config,
        format!(
            "[[runners]]\nname = \"legacy\"\nexecutable = \"{}\"\n\n{text}",
            workspace_bin("maitool-example-legacy").display()
        ),
    )
    .unwrap();
    eventually("the added runner serves", LIMIT, || {
        tool_names(&fixture).contains(&"greet".to_owned())
    });
    let tool_pid = || {
        let status = fixture.json(&["status", "--json"]);
        status["runners"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "tool")
            .and_then(|r| r["pid"].as_u64())
    };
    assert_eq!(tool_pid(), Some(first), "the unchanged runner kept running");

    // A rebuilt executable.
    install("maitool-example-notes", &runner);
    eventually("the rebuilt runner serves", LIMIT, || {
        tool_names(&fixture).contains(&"remember".to_owned())
    });
    assert_ne!(tool_pid(), Some(first));
    let lines = serve.stop();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("watched files changed: reloading")),
        "{lines:#?}"
    );
}

#[test]
fn serve_with_watch_reloads_once_per_edit_and_never_for_a_read() {
    let (fixture, runner) = fixture_with_copied_runner("");
    let serve = fixture.serve(&["--watch"]);
    // Reading a watched file is no change: an editor opening it, `cat`, and above all the
    // host itself, which reads the configuration and the runner's executable on each reload.
    for _ in 0..5 {
        std::fs::read_to_string(&fixture.config).unwrap();
        std::fs::read(&runner).unwrap();
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = std::fs::read_to_string(&fixture.config).unwrap();
    std::fs::write(&fixture.config, format!("{text}\n# edited\n")).unwrap();
    serve.wait_for_log(|line| line["fields"]["message"] == "configuration reloaded");
    // Three debounce periods: time enough for the reload's own reads to start another one,
    // as they did when an opened file counted as changed.
    std::thread::sleep(Duration::from_secs(1));
    let lines = serve.stop();
    let batches: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("watched files changed: reloading"))
        .collect();
    assert_eq!(batches.len(), 1, "{batches:#?}");
    assert!(batches[0].contains("maitool.toml"), "{batches:#?}");
}
