//! The start-up progress line: live on a terminal, absent on a pipe.

use std::process::{Command, Stdio};

use maitool_e2e::workspace_bin;

mod ops_support;

use ops_support::Fixture;

/// A runner that connects and never says hello keeps the start waiting for the handshake
/// timeout: long enough for the progress line.
fn slow_start_fixture() -> Fixture {
    Fixture::new(
        &["dice", "misbehaving"],
        "handshake_timeout_ms = 1500\nready_timeout_ms = 500",
        &format!(
            "[[runners]]\nname = \"silent\"\nexecutable = \"{}\"\nenv = {{ MISBEHAVE = \"silent\" }}\n",
            workspace_bin("maitool-example-misbehaving").display()
        ),
    )
}

#[test]
fn start_progress_is_a_live_line_on_a_terminal_and_absent_otherwise() {
    let fixture = slow_start_fixture();
    // The silent runner never starts: named on stderr, exit 3 after the list.
    let (code, out, err) = fixture.maitool(&["tools"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("maitool: runner silent failed to start: "),
        "{err}"
    );
    assert!(out.contains("roll_dice"));
    assert!(
        !err.contains("runners ready") && !err.contains('\r') && !err.contains('\x1b'),
        "progress on a pipe: {err:?}"
    );

    // `script` runs the command on a pseudo-terminal and copies what it wrote there.
    let command = format!(
        "{} --config {} --control-socket {} tools",
        workspace_bin("maitool").display(),
        fixture.config.display(),
        fixture.control().display()
    );
    let output = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("`script` (util-linux) runs the command on a terminal");
    let terminal = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(3), "{terminal}");
    assert!(
        terminal.contains("\r\x1b[2Kstarting: ") && terminal.contains("/3 runners ready"),
        "no progress line on the terminal: {terminal:?}"
    );
    assert!(terminal.contains("MCP servers connected"), "{terminal:?}");
    let erased = terminal.rfind("\r\x1b[2K").unwrap();
    let table = terminal.find("NAME").unwrap();
    assert!(
        erased < table && !terminal[table..].contains("starting:"),
        "the line is erased before the output: {terminal:?}"
    );
}
