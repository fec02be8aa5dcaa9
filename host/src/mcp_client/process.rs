//! Stdio server processes: spawned in their own process group with stderr forwarded to
//! the host log line by line, and killed as a group (SIGTERM, then SIGKILL) on shutdown,
//! so wrapper launchers (`npx`, `uvx`, shell scripts) cannot leave grandchildren behind.

use std::process::Stdio;
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use super::config::McpServerConfig;

/// Variables a stdio server gets from the host environment when `inherit_env` is off: the
/// same minimal set as the Python MCP SDK (which MaiBot uses), so host secrets do not leak.
const SAFE_ENV_VARS: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR",
];

/// Longest stderr line forwarded; the rest of a longer line is cut.
const MAX_STDERR_LINE: usize = 8 * 1024;

/// How long a server may take to exit after its stdin closes, and after SIGTERM.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// A running stdio server, leader of its own process group.
#[derive(Debug)]
pub struct StdioProcess {
    server: String,
    pid: u32,
    child: Child,
    done: bool,
}

/// The pipes of a freshly spawned server.
#[derive(Debug)]
pub struct StdioPipes {
    /// The server's stdout (JSON-RPC from the server).
    pub stdout: ChildStdout,
    /// The server's stdin (JSON-RPC to the server).
    pub stdin: ChildStdin,
}

impl StdioProcess {
    /// Spawns the server and starts forwarding its stderr into `tracing`.
    pub fn spawn(server: &McpServerConfig) -> std::io::Result<(Self, StdioPipes)> {
        let mut command = Command::new(&server.command);
        command
            .args(&server.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, so the whole tree can be signalled and a Ctrl-C in the
            // host terminal does not reach it before the host has shut it down.
            .process_group(0)
            .kill_on_drop(true);
        if !server.inherit_env {
            command.env_clear();
            for key in SAFE_ENV_VARS {
                if let Some(value) = std::env::var_os(key) {
                    command.env(key, value);
                }
            }
        }
        command.envs(&server.env);
        if let Some(cwd) = &server.cwd {
            command.current_dir(cwd);
        }
        // A server that ignores the end of its stdin still dies with the host.
        crate::parent_death::kill_with_host(&mut command);
        let mut child = command.spawn()?;
        let pid = child
            .id()
            .ok_or_else(|| std::io::Error::other("spawned server has no pid"))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(std::io::Error::other("spawned server has no stdio pipes"));
        };
        tokio::spawn(forward_stderr(server.name.clone(), stderr));
        tracing::debug!(server = %server.name, pid, command = %server.command, "spawned MCP stdio server");
        Ok((
            Self {
                server: server.name.clone(),
                pid,
                child,
                done: false,
            },
            StdioPipes { stdout, stdin },
        ))
    }

    /// The process id, which is also its process group id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Waits for the server to exit after its stdin was closed, then SIGTERMs the group,
    /// then SIGKILLs it; always SIGKILLs the group at the end so no grandchild survives.
    pub async fn shutdown(&mut self) {
        if self.done {
            return;
        }
        let ended = if self.wait_for_exit(EXIT_GRACE).await {
            "exited on its own after its stdin closed"
        } else {
            self.signal_group(Signal::SIGTERM);
            if self.wait_for_exit(EXIT_GRACE).await {
                "stopped by SIGTERM"
            } else {
                tracing::warn!(server = %self.server, pid = self.pid, "MCP server ignored SIGTERM; killing it");
                "killed by SIGKILL"
            }
        };
        self.signal_group(Signal::SIGKILL);
        let _ = self.child.wait().await;
        self.done = true;
        tracing::debug!(server = %self.server, pid = self.pid, ended, "MCP stdio server stopped");
    }

    /// Kills the group at once, for a server already known to be dead or hung.
    pub async fn kill(&mut self) {
        if self.done {
            return;
        }
        self.signal_group(Signal::SIGKILL);
        let _ = self.child.wait().await;
        self.done = true;
        tracing::debug!(server = %self.server, pid = self.pid, "MCP stdio server killed");
    }

    async fn wait_for_exit(&mut self, grace: Duration) -> bool {
        matches!(
            tokio::time::timeout(grace, self.child.wait()).await,
            Ok(Ok(_))
        )
    }

    fn signal_group(&self, signal: Signal) {
        let Ok(raw) = i32::try_from(self.pid) else {
            return;
        };
        match killpg(Pid::from_raw(raw), signal) {
            Ok(()) | Err(Errno::ESRCH) => {}
            Err(err) => {
                tracing::warn!(server = %self.server, pid = self.pid, %signal, "cannot signal MCP server group: {err}");
            }
        }
    }
}

impl Drop for StdioProcess {
    fn drop(&mut self) {
        // Dropped without `shutdown` (a timed-out connect, a dropped provider): kill the
        // group at once; tokio reaps the leader because of `kill_on_drop`.
        if !self.done {
            self.signal_group(Signal::SIGKILL);
        }
    }
}

async fn forward_stderr(server: String, stderr: ChildStderr) {
    let mut reader = BufReader::new(stderr);
    // Bounded: a server writing megabytes without a newline must not grow this buffer.
    let mut line = Vec::with_capacity(256);
    loop {
        let chunk = match reader.fill_buf().await {
            Ok([]) => break,
            Ok(chunk) => chunk,
            Err(err) => {
                tracing::debug!(server = %server, "stderr of MCP server unreadable: {err}");
                break;
            }
        };
        let (part, consumed, complete) = match chunk.iter().position(|b| *b == b'\n') {
            Some(pos) => (&chunk[..pos], pos + 1, true),
            None => (chunk, chunk.len(), false),
        };
        let room = MAX_STDERR_LINE.saturating_sub(line.len());
        line.extend_from_slice(&part[..part.len().min(room)]);
        reader.consume(consumed);
        if complete {
            emit_stderr_line(&server, &line);
            line.clear();
        }
    }
    emit_stderr_line(&server, &line);
}

fn emit_stderr_line(server: &str, line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end();
    if !text.is_empty() {
        tracing::info!(target: "maitool::mcp::server_stderr", server = %server, "{text}");
    }
}
