//! Configurations the `maitool` binary refuses with exit 2 before anything starts, naming the
//! key at fault.

use std::process::Command;

use maitool_e2e::workspace_bin;

/// Runs `maitool --config FILE tools` on `text` (with `{dice}` replaced by the dice runner's
/// path); (exit code, stderr).
fn tools_with(text: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().display();
    let text = format!(
        "[host]\ncontrol_socket = \"{root}/control.sock\"\ndata_dir = \"{root}/data\"\nenable_builtin = false\n\n{}",
        text.replace(
            "{dice}",
            &workspace_bin("maitool-example-dice").display().to_string()
        )
    );
    let config = dir.path().join("maitool.toml");
    std::fs::write(&config, text).unwrap();
    let output = Command::new(workspace_bin("maitool"))
        .arg("--config")
        .arg(&config)
        .arg("tools")
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_plugin_id_configured_for_two_runners_is_exit_2_naming_both() {
    let (code, err) = tools_with(
        "[[runners]]\nname = \"dice\"\nexecutable = \"{dice}\"\n[runners.plugins.\"examples.dice\"]\n\n\
         [[runners]]\nname = \"dice_again\"\nexecutable = \"{dice}\"\n[runners.plugins.\"examples.dice\"]\n",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "runners.dice_again.plugins: plugin id \"examples.dice\" is also configured for runner \"dice\"; a plugin id belongs to one runner"
        ),
        "{err}"
    );
}

#[test]
fn a_bare_family_grant_is_exit_2_suggesting_the_family_with_a_star() {
    let (code, err) = tools_with(
        "[[runners]]\nname = \"dice\"\nexecutable = \"{dice}\"\n[runners.plugins.\"examples.dice\"]\ncapabilities = [\"send.text\", \"kv\"]\n",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "runners.dice.plugins.examples.dice.capabilities: \"kv\" is a capability family, not a capability: grant \"kv.*\" for all of it, or name each (kv.get, kv.set, kv.delete, kv.list)"
        ),
        "{err}"
    );
}

#[test]
fn a_grant_nobody_serves_is_exit_2_suggesting_the_nearest_known_names_dotted_or_not() {
    let cases = [
        (
            "send.video",
            "\"send.video\" is not a capability maitool serves; the send family has send.text, send.image, send.emoji, send.forward, send.hybrid, send.custom, send.command: grant one of them, or \"send.*\" for all",
        ),
        (
            "send_message",
            "\"send_message\" is not a capability maitool serves; the send family has send.text, send.image,",
        ),
        (
            "kv.gte",
            "\"kv.gte\" is not a capability maitool serves; did you mean kv.get?",
        ),
    ];
    for (grant, expected) in cases {
        let (code, err) = tools_with(&format!(
            "[[runners]]\nname = \"dice\"\nexecutable = \"{{dice}}\"\n[runners.plugins.\"examples.dice\"]\ncapabilities = [\"kv.*\", \"{grant}\"]\n",
        ));
        assert_eq!(code, 2, "{grant}: {err}");
        assert!(
            err.contains(&format!(
                "runners.dice.plugins.examples.dice.capabilities: {expected}"
            )),
            "{grant}: {err}"
        );
    }
}

#[test]
fn a_runner_executable_that_is_a_directory_or_not_executable_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain-file");
    std::fs::write(&plain, "#!/bin/sh\n").unwrap();
    for (path, expected) in [
        (dir.path().to_path_buf(), "is a directory, not a program"),
        (plain, "is not executable (no execute permission)"),
    ] {
        let (code, err) = tools_with(&format!(
            "[[runners]]\nname = \"broken\"\nexecutable = \"{}\"\n",
            path.display()
        ));
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("runners.broken: executable") && err.contains(expected),
            "{err}"
        );
    }
}
