use std::sync::Mutex;

use super::*;

#[derive(Default)]
struct Lines(Mutex<Vec<String>>);

impl PrepareObserver for Lines {
    fn step(&self, _step: &str) {}
    fn output(&self, line: &str) {
        self.0.lock().unwrap().push(line.to_owned());
    }
}

fn sh(script: &str) -> Command {
    let mut command = Command::new("sh");
    command.args(["-c", script]);
    command
}

#[tokio::test]
async fn output_lines_reach_the_observer_and_stdout_is_returned() {
    let lines = Lines::default();
    let stdout = run(sh("echo one; echo two >&2; echo three"), &lines)
        .await
        .unwrap();
    assert_eq!(stdout, "one\nthree\n");
    let mut seen = lines.0.into_inner().unwrap();
    seen.sort();
    assert_eq!(seen, ["one", "three", "two"]);
}

#[tokio::test]
async fn a_failure_keeps_the_last_lines_and_tells_a_network_failure() {
    let err = run(
        sh("for i in $(seq 1 20); do echo line$i; done; echo 'error: Failed to fetch: http://127.0.0.1:9/simple/cowsay/' >&2; exit 2"),
        &crate::maibot_env::observer::Silent,
    )
    .await
    .unwrap_err();
    assert!(err.is_network(), "{err:?}");
    let text = crate::error_text::chain(&err);
    assert!(text.contains("exit status: 2"), "{text}");
    assert!(text.contains("Failed to fetch"), "{text}");
    assert!(
        !text.contains("line5 "),
        "only the last lines are kept: {text}"
    );
    let plain = run(
        sh("echo 'No solution found'; exit 1"),
        &crate::maibot_env::observer::Silent,
    )
    .await
    .unwrap_err();
    assert!(!plain.is_network());
}

#[tokio::test]
async fn a_program_that_cannot_start_keeps_the_os_reason() {
    let err = run(
        Command::new("/nonexistent/python3.12"),
        &crate::maibot_env::observer::Silent,
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("/nonexistent/python3.12"), "{err}");
    assert_eq!(
        crate::error_text::io_source(&err).kind(),
        std::io::ErrorKind::NotFound
    );
}
