//! What the `maitool` binary does with its output when the reader goes away.

mod ops_support;

use std::process::Stdio;

use ops_support::Fixture;

/// `maitool VERB... | head -0`: stdout is a pipe whose reader has already closed it, so the
/// first write fails with EPIPE, every time, however fast the command runs.
#[test]
fn a_closed_stdout_ends_each_verb_quietly_with_exit_0() {
    let fixture = Fixture::new(&["dice"], "", "");
    let verbs: [&[&str]; 5] = [
        &["tools", "--json"],
        &["tools"],
        &["status"],
        &["plugins", "--json"],
        &[
            "call",
            "calculate",
            "--args",
            r#"{"a": 1, "b": 2, "op": "add"}"#,
        ],
    ];
    for verb in verbs {
        let (reader, writer) = nix::unistd::pipe().unwrap();
        drop(reader);
        let output = fixture
            .command()
            .args(verb)
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{verb:?}: {stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "{verb:?}: {stderr}"
        );
    }
}
