//! Plugin data directories: each configured plugin gets `<host.data_dir>/plugins/<id>`,
//! created 0700 by the host and kept across restarts; plugin code writes there through the
//! SDK; plugin ids that would escape that directory are refused with the config errors; a
//! runner refuses a data directory that is not absolute.

mod security_support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use maitool_e2e::workspace_bin;
use maitool_host::plugin::RunnerState;
use maitool_host::{Host, HostConfig};
use maitool_protocol::wire::methods::{
    HelloPayload, HelloResponsePayload, PluginBootstrap, RunnerReadyPayload, names,
};
use maitool_protocol::wire::{
    Envelope, MessageType, decode_header, decode_payload, encode_envelope,
};
use maitool_protocol::{ToolExecutionContext, ToolExecutionResult, ToolInvocation};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use security_support::{BOUND, frame, read_frame};
use serde_json::json;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

/// A config with the notes runner (its plugin named) and the dice runner (its plugin
/// disabled), keeping data in `state` next to the file.
fn write_config(dir: &Path, plugins_of_notes: &str) -> PathBuf {
    let text = format!(
        "[host]\ncontrol_socket = \"ctl/control.sock\"\ndata_dir = \"state\"\nenable_builtin = false\n\
         [[runners]]\nname = \"notes\"\nexecutable = \"{notes}\"\n{plugins_of_notes}\n\
         [[runners]]\nname = \"dice\"\nexecutable = \"{dice}\"\n\
         [runners.plugins.\"examples.dice\"]\nenabled = false\n",
        notes = workspace_bin("maitool-example-notes").display(),
        dice = workspace_bin("maitool-example-dice").display(),
    );
    let path = dir.join("maitool.toml");
    std::fs::write(&path, text).unwrap();
    path
}

async fn call(host: &Host, tool: &str, args: serde_json::Value) -> ToolExecutionResult {
    let args = args.as_object().cloned().unwrap_or_default();
    tokio::time::timeout(
        BOUND,
        host.registry.invoke(
            ToolInvocation::new(tool, args),
            &ToolExecutionContext::default(),
        ),
    )
    .await
    .expect("the call finishes")
}

#[tokio::test]
async fn a_plugin_writes_into_its_private_data_directory_which_outlives_restarts() {
    maitool_e2e::logs::capture();
    let temp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(temp.path()).unwrap();
    let path = write_config(&dir, "[runners.plugins.\"examples.notes\"]\n");
    let host = Host::start(HostConfig::load(&path).unwrap()).await.unwrap();

    let root = dir.join("state").join("plugins");
    let data = root.join("examples.notes");
    assert_eq!(mode(&root), 0o700);
    assert_eq!(mode(&data), 0o700);
    assert!(
        !root.join("examples.dice").exists(),
        "a disabled plugin gets no directory"
    );

    let saved = call(
        &host,
        "export_note",
        json!({"name": "hello", "text": "hi there"}),
    )
    .await;
    assert!(saved.success, "{saved:?}");
    let file = data.join("hello.txt");
    assert_eq!(
        saved.structured_content.unwrap()["path"],
        json!(file.display().to_string())
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hi there");

    // The example checks names, so a model cannot steer a write outside the directory.
    let escape = call(
        &host,
        "export_note",
        json!({"name": "../escape", "text": "x"}),
    )
    .await;
    assert!(!escape.success);
    assert!(
        escape
            .error_message
            .contains("invalid note name \"../escape\""),
        "{escape:?}"
    );
    assert!(!root.join("escape.txt").exists());

    // The next launch finds the same directory with its files.
    let status = |name: &str| {
        host.plugins
            .status()
            .into_iter()
            .find(|r| r.name == name)
            .unwrap()
    };
    let pid = status("notes").pid.unwrap();
    kill(Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
    let deadline = tokio::time::Instant::now() + BOUND;
    while !(status("notes").restart_count >= 1 && status("notes").state == RunnerState::Ready) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{:?}",
            status("notes")
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let again = call(&host, "export_note", json!({"name": "second", "text": "2"})).await;
    assert!(again.success, "{again:?}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hi there");
    assert_eq!(
        std::fs::read_to_string(data.join("second.txt")).unwrap(),
        "2"
    );
    assert_eq!(mode(&data), 0o700);
    host.shutdown().await;
}

#[tokio::test]
async fn plugin_ids_that_would_escape_are_refused_naming_the_plugin() {
    let temp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(temp.path()).unwrap();
    let cases = [
        ("../evil", "must not start with '.'"),
        ("..", "must not start with '.'"),
        (".hidden", "must not start with '.'"),
        ("a/../../evil", "must not contain '/'"),
        ("/etc", "must not contain '/'"),
        ("", "must not be empty"),
    ];
    for (id, problem) in cases {
        let path = write_config(&dir, &format!("[runners.plugins.{id:?}]\n"));
        let err = HostConfig::load(&path).expect_err(id).to_string();
        assert_eq!(
            err,
            format!(
                "{}: runners.notes.plugins: plugin id {id:?} {problem}: it names the plugin's data directory",
                path.display()
            )
        );
    }

    // The same through a plugin folder's manifest.
    let folder = dir.join("evil-plugin");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(
        folder.join("maitool-plugin.toml"),
        format!(
            "id = \"../evil\"\nversion = \"1.0.0\"\nexecutable = \"{}\"\n",
            workspace_bin("maitool-example-notes").display()
        ),
    )
    .unwrap();
    let path = dir.join("manifest.toml");
    std::fs::write(
        &path,
        "[host]\nenable_builtin = false\n[[runners]]\nname = \"folder\"\nplugin_dir = \"evil-plugin\"\n",
    )
    .unwrap();
    let err = HostConfig::load(&path).unwrap_err().to_string();
    assert!(
        err.ends_with("runners.folder.plugins: plugin id \"../evil\" must not start with '.': it names the plugin's data directory"),
        "{err}"
    );

    // The CLI rejects the file like any invalid configuration, before anything starts.
    let path = write_config(&dir, "[runners.plugins.\"../evil\"]\n");
    let output = std::process::Command::new(workspace_bin("maitool"))
        .arg("--config")
        .arg(&path)
        .arg("--control-socket")
        .arg(dir.join("ctl/control.sock"))
        .arg("plugins")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("runners.notes.plugins: plugin id \"../evil\" must not start with '.'"),
        "{stderr}"
    );
    assert!(!dir.join("state").exists(), "nothing was created");
    assert!(!dir.join("evil").exists());
}

/// Plays the host for one real runner over a real socket, giving `examples.notes` a relative
/// data directory, and returns the methods the runner called and its readiness report.
async fn launch_with_data_dir(data_dir: &str, cwd: &Path) -> (Vec<String>, RunnerReadyPayload) {
    let socket = cwd.join("fake-host.sock");
    let listener = tokio::net::UnixListener::bind(&socket).unwrap();
    let mut runner = maitool_e2e::fake_launch::runner_command(
        &workspace_bin("maitool-example-notes"),
        "fake-host-token",
    )
    .current_dir(cwd)
    .env("MAITOOL_IPC_ADDRESS", &socket)
    .env("MAITOOL_RUNNER_NAME", "notes")
    .env("RUST_LOG", "off")
    .kill_on_drop(true)
    .spawn()
    .unwrap();
    let (stream, _) = tokio::time::timeout(BOUND, listener.accept())
        .await
        .expect("the runner connects")
        .unwrap();
    let mut stream = stream.into_std().unwrap();
    stream.set_nonblocking(false).unwrap();
    stream.set_read_timeout(Some(BOUND)).unwrap();
    let data_dir = data_dir.to_owned();
    let outcome = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let hello = read_frame(&mut stream).unwrap();
        let header = decode_header(&hello).unwrap();
        assert_eq!(header.method, names::HELLO);
        let payload: HelloPayload = decode_payload(&hello).unwrap();
        assert_eq!(payload.session_token, "fake-host-token");
        let bootstrap = PluginBootstrap {
            data_dir,
            ..PluginBootstrap::default()
        };
        let answer = HelloResponsePayload {
            accepted: true,
            host_version: "0.1.0".into(),
            reason: String::new(),
            protocol_version: "1.0.0".into(),
            plugins: [("examples.notes".to_owned(), bootstrap)].into(),
        };
        let body = encode_envelope(&Envelope::response_to(&header, answer)).unwrap();
        stream.write_all(&frame(&body)).unwrap();
        let mut methods = Vec::new();
        loop {
            let body = read_frame(&mut stream).expect("the runner reports ready");
            let header = decode_header(&body).unwrap();
            if header.message_type != MessageType::Request {
                continue;
            }
            methods.push(header.method.to_string());
            if header.method == names::READY {
                return (
                    methods,
                    decode_payload::<RunnerReadyPayload>(&body).unwrap(),
                );
            }
            // Anything else (a registration) is left unanswered: the test fails below.
            panic!("unexpected request {} before runner.ready", header.method);
        }
    })
    .await
    .unwrap();
    let _ = runner.kill().await;
    outcome
}

#[tokio::test]
async fn the_runner_refuses_a_data_dir_that_is_not_absolute() {
    let temp = tempfile::tempdir().unwrap();
    let (methods, ready) = launch_with_data_dir("relative/notes", temp.path()).await;
    assert_eq!(methods, vec![names::READY.to_owned()], "nothing registered");
    assert_eq!(ready.failed_plugins, vec!["examples.notes".to_owned()]);
    assert!(ready.loaded_plugins.is_empty());
    assert_eq!(
        ready.failed_plugin_reasons["examples.notes"],
        "the host sent a data_dir that is not an absolute path: \"relative/notes\""
    );
    assert!(!temp.path().join("relative").exists());
}
