//! Running Python and the installers as subprocesses: on Tokio (never blocking the host's
//! thread), killed with the host and when dropped, their output streamed line by line to the
//! observer and the last lines kept for the error.

use std::collections::VecDeque;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Command;

use super::observer::PrepareObserver;

/// How many of a failed command's last output lines its error keeps.
const KEPT_LINES: usize = 12;

/// What an installer prints when it could not reach the package index (uv, pip and the
/// libraries under them), checked case-insensitively.
const NETWORK_SIGNS: &[&str] = &[
    "connection refused",
    "failed to fetch",
    "error sending request",
    "dns error",
    "failed to lookup address",
    "temporary failure in name resolution",
    "name or service not known",
    "network is unreachable",
    "could not connect",
    "tcp connect error",
    "newconnectionerror",
    "max retries exceeded",
    "connection timed out",
    "operation timed out",
    "no matching distribution found",
    "could not find a version that satisfies",
];

/// A subprocess that could not run, or failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The program could not be started.
    #[error("cannot run {program}")]
    Spawn {
        /// The program.
        program: String,
        /// The OS's reason.
        #[source]
        source: std::io::Error,
    },
    /// It ran and failed; its last output lines are the source.
    #[error("`{command}` failed ({status})")]
    Failed {
        /// The command line, shortened.
        command: String,
        /// How it ended.
        status: String,
        /// Whether the output shows that the package index could not be reached.
        network: bool,
        /// Its last output lines.
        #[source]
        output: ProcessOutput,
    },
}

impl ToolError {
    /// Whether the failure looks like no network (the index unreachable).
    pub fn is_network(&self) -> bool {
        matches!(self, ToolError::Failed { network: true, .. })
    }
}

/// The last lines a failed command printed, joined with ` | `.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ProcessOutput(pub String);

/// Prepares `command` the way every tool here runs: no stdin, output piped, its own process
/// group, killed with the host and when its future is dropped (a stopped runner stops its
/// install).
fn configure(command: &mut Command) {
    crate::parent_death::kill_with_host(command);
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
}

/// Runs `command`, handing each output line (stdout and stderr) to `observer`; returns its
/// stdout.
pub async fn run(
    mut command: Command,
    observer: &dyn PrepareObserver,
) -> Result<String, ToolError> {
    configure(&mut command);
    let program = describe(&command);
    let mut child = command.spawn().map_err(|source| ToolError::Spawn {
        program: program.clone(),
        source,
    })?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (lines_tx, mut lines_rx) = tokio::sync::mpsc::unbounded_channel::<(bool, String)>();
    let out_task = tokio::spawn(read_lines(stdout, true, lines_tx.clone()));
    let err_task = tokio::spawn(read_lines(stderr, false, lines_tx));
    let mut tail = VecDeque::with_capacity(KEPT_LINES);
    let mut captured = String::new();
    while let Some((is_stdout, line)) = lines_rx.recv().await {
        if is_stdout {
            captured.push_str(&line);
            captured.push('\n');
        }
        if !line.trim().is_empty() {
            observer.output(line.trim_end());
            if tail.len() == KEPT_LINES {
                tail.pop_front();
            }
            tail.push_back(line.trim().to_owned());
        }
    }
    let _ = out_task.await;
    let _ = err_task.await;
    let status = child.wait().await.map_err(|source| ToolError::Spawn {
        program: program.clone(),
        source,
    })?;
    if status.success() {
        return Ok(captured);
    }
    let text = Vec::from(tail).join(" | ");
    let lower = text.to_lowercase();
    Err(ToolError::Failed {
        command: program,
        status: status.to_string(),
        network: NETWORK_SIGNS.iter().any(|sign| lower.contains(sign)),
        output: ProcessOutput(text),
    })
}

async fn read_lines(
    output: impl AsyncRead + Unpin,
    is_stdout: bool,
    lines: tokio::sync::mpsc::UnboundedSender<(bool, String)>,
) {
    let mut reader = BufReader::new(output).lines();
    while let Ok(Some(line)) = reader.next_line().await {
        if lines.send((is_stdout, line)).is_err() {
            return;
        }
    }
}

/// `program arg arg ...`, shortened for a message.
fn describe(command: &Command) -> String {
    let std = command.as_std();
    let mut text = std.get_program().to_string_lossy().into_owned();
    for arg in std.get_args().take(8) {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    if std.get_args().count() > 8 {
        text.push_str(" ...");
    }
    text
}

#[cfg(test)]
mod tests;
