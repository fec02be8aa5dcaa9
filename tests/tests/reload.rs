//! Hot reload of a running `maitool serve`: runners added, removed, restarted and
//! reconfigured while calls on unchanged runners keep succeeding; a bad file changes nothing.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use maitool_e2e::workspace_bin;
use maitool_host::control::ControlClient;
use maitool_protocol::{ToolAvailabilityContext, ToolExecutionContext, ToolInvocation};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

fn runner(name: &str, binary: &str, extra: &str) -> String {
    format!(
        "[[runners]]\nname = \"{name}\"\nexecutable = \"{}\"\n{extra}\n",
        workspace_bin(binary).display()
    )
}

fn write_config(dir: &Path, runners: &[String]) {
    let text = format!(
        "[host]\nenable_builtin = false\ndata_dir = \"data\"\n[plugin_runtime]\nhealth_check_interval_ms = 500\n{}",
        runners.join("\n")
    );
    std::fs::write(dir.join("maitool.toml"), text).unwrap();
}

fn maitool(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(workspace_bin("maitool"))
        .arg("--config")
        .arg(dir.join("maitool.toml"))
        .arg("--control-socket")
        .arg(dir.join("control.sock"))
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into(),
        String::from_utf8_lossy(&output.stderr).into(),
    )
}

async fn tool_names(client: &ControlClient) -> Vec<String> {
    client
        .tools(ToolAvailabilityContext::default())
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.clone())
        .collect()
}

async fn runner_pid(client: &ControlClient, name: &str) -> Option<i64> {
    let status = client.status().await.unwrap();
    status["runners"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .and_then(|r| r["pid"].as_i64())
}

async fn call(
    client: &ControlClient,
    tool: &str,
    args: Value,
) -> maitool_protocol::ToolExecutionResult {
    let invocation = ToolInvocation::new(tool, args.as_object().unwrap().clone());
    client
        .call(invocation, ToolExecutionContext::default())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_adds_removes_restarts_and_reconfigures_while_calls_continue() {
    let dir = tempfile::tempdir().unwrap();
    let dice_cfg =
        |max: u32| format!("[runners.plugins.\"examples.dice\".config]\nmax_dice = {max}\n");
    write_config(
        dir.path(),
        &[
            runner("dice", "maitool-example-dice", &dice_cfg(5)),
            runner("legacy", "maitool-example-legacy", ""),
            runner("media", "maitool-example-media", ""),
        ],
    );
    let mut serve = Command::new(workspace_bin("maitool"))
        .arg("--config")
        .arg(dir.path().join("maitool.toml"))
        .arg("--control-socket")
        .arg(dir.path().join("control.sock"))
        .arg("serve")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let control = dir.path().join("control.sock");
    let deadline = Instant::now() + Duration::from_secs(30);
    let client = loop {
        if let Some(client) = ControlClient::connect(&control).await {
            break client;
        }
        assert!(Instant::now() < deadline, "serve did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        tool_names(&client)
            .await
            .contains(&"render_badge".to_owned())
    );
    let dice_pid = runner_pid(&client, "dice").await.unwrap();
    let legacy_pid = runner_pid(&client, "legacy").await.unwrap();
    assert!(
        call(&client, "roll_dice", json!({"sides": 6, "count": 4}))
            .await
            .success
    );

    // Calls to the unchanged runner keep going through the whole reload; only while its
    // plugin's configuration is invalid (below) are they refused, as paused.
    let stop = Arc::new(AtomicBool::new(false));
    let (ok, failed, paused) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicUsize::new(0)),
    );
    let load = {
        let (client, stop, ok, failed, paused) = (
            client.clone(),
            stop.clone(),
            ok.clone(),
            failed.clone(),
            paused.clone(),
        );
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let result = call(&client, "calculate", json!({"a": 1, "b": 2, "op": "add"})).await;
                if result.success && result.content == "3" {
                    &ok
                } else if result.metadata.get("error_code")
                    == Some(&json!("E_PLUGIN_CONFIG_INVALID"))
                {
                    &paused
                } else {
                    &failed
                }
                .fetch_add(1, Ordering::Relaxed);
            }
        })
    };

    write_config(
        dir.path(),
        &[
            runner("dice", "maitool-example-dice", &dice_cfg(2)),
            runner(
                "legacy",
                "maitool-example-legacy",
                "env = { GREETING_LANG = \"en\" }",
            ),
            runner("notes", "maitool-example-notes", ""),
        ],
    );
    let (code, out, err) = maitool(dir.path(), &["reload", "--json"]);
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let plugins = &report["plugins"];
    assert_eq!(plugins["added"], json!(["notes"]));
    assert_eq!(plugins["removed"], json!(["media"]));
    assert_eq!(plugins["restarted"], json!(["legacy"]));
    assert_eq!(plugins["reconfigured"], json!(["dice/examples.dice"]));

    // The dice runner kept its process and applied the new limit through on_config_update.
    assert_eq!(runner_pid(&client, "dice").await, Some(dice_pid));
    let limited = call(&client, "roll_dice", json!({"sides": 6, "count": 4})).await;
    assert_eq!(
        limited.error_message,
        "count must be between 1 and 2, got 4"
    );
    let names = tool_names(&client).await;
    assert!(!names.contains(&"render_badge".to_owned()), "{names:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !tool_names(&client).await.contains(&"remember".to_owned())
        || !tool_names(&client).await.contains(&"greet".to_owned())
    {
        assert!(
            Instant::now() < deadline,
            "added or restarted runners did not come up"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_ne!(runner_pid(&client, "legacy").await, Some(legacy_pid));
    assert!(
        kill(Pid::from_raw(legacy_pid as i32), None).is_err(),
        "the old legacy runner is gone"
    );

    // A configuration that is invalid for the plugin: reload exits 1 and names it; the plugin
    // keeps its old configuration, but its tools are paused until a valid one arrives.
    write_config(
        dir.path(),
        &[
            runner("dice", "maitool-example-dice", &dice_cfg(0)),
            runner(
                "legacy",
                "maitool-example-legacy",
                "env = { GREETING_LANG = \"en\" }",
            ),
            runner("notes", "maitool-example-notes", ""),
        ],
    );
    let (code, out, _) = maitool(dir.path(), &["reload", "--json"]);
    assert_eq!(code, 1, "an invalid configuration: {out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let paused_line = report["plugins"]["paused"][0].as_str().unwrap_or_default();
    assert!(
        paused_line.starts_with("dice/examples.dice: invalid configuration: ")
            && paused_line.contains("max_dice"),
        "{report}"
    );
    let held = call(&client, "roll_dice", json!({"sides": 6, "count": 4})).await;
    assert_eq!(
        held.metadata["error_code"], "E_PLUGIN_CONFIG_INVALID",
        "{held:?}"
    );

    // A file that fails validation is rejected as a whole; nothing changes.
    std::fs::write(
        dir.path().join("maitool.toml"),
        "[plugin_runtime]\nmax_restart = 1\n",
    )
    .unwrap();
    let (code, _, err) = maitool(dir.path(), &["reload"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("configuration rejected, nothing changed")
            && err.contains("unknown field `max_restart`"),
        "{err}"
    );
    assert!(tool_names(&client).await.contains(&"remember".to_owned()));

    // SIGHUP reloads too.
    write_config(
        dir.path(),
        &[
            runner("dice", "maitool-example-dice", &dice_cfg(2)),
            runner(
                "legacy",
                "maitool-example-legacy",
                "env = { GREETING_LANG = \"en\" }",
            ),
            runner("notes", "maitool-example-notes", ""),
            runner("media", "maitool-example-media", ""),
        ],
    );
    kill(Pid::from_raw(serve.id() as i32), Signal::SIGHUP).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !tool_names(&client)
        .await
        .contains(&"render_badge".to_owned())
    {
        assert!(Instant::now() < deadline, "SIGHUP did not reload");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The dice plugin's valid configuration resumed it, without a restart.
    let back = call(&client, "roll_dice", json!({"sides": 6, "count": 2})).await;
    assert!(back.success, "{back:?}");

    stop.store(true, Ordering::Relaxed);
    load.await.unwrap();
    assert_eq!(
        failed.load(Ordering::Relaxed),
        0,
        "calls on the unchanged runner failed during reload"
    );
    assert!(ok.load(Ordering::Relaxed) > 0);
    assert!(
        paused.load(Ordering::Relaxed) > 0,
        "calls were paused while the configuration was invalid"
    );
    kill(Pid::from_raw(serve.id() as i32), Signal::SIGTERM).unwrap();
    assert!(serve.wait().unwrap().success());
}
