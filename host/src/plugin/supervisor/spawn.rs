//! Starting a runner's process: its command, environment and session token, its sandbox, its
//! own process group, and its stdout and stderr copied into the host's log.

use std::path::PathBuf;
use std::process::Stdio;

use maitool_protocol::launch as launch_env;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use super::Supervisor;
use crate::plugin::status::RunnerState;
use crate::sandbox::SandboxLaunch;

impl Supervisor {
    /// Starts the runner with `token`; `data_dirs` are its plugins' data folders; a MaiBot
    /// runner is told not to load the plugins in `blocked`. The sandbox returned lives as long
    /// as the launch (its temporary folder, its cgroup).
    pub(super) async fn spawn(
        &self,
        token: &str,
        blocked: &std::collections::BTreeMap<String, String>,
        data_dirs: Vec<PathBuf>,
    ) -> std::io::Result<(Child, SandboxLaunch)> {
        let launch = &self.runner.launch;
        let mut command = Command::new(&launch.executable);
        command.args(&launch.args).envs(&launch.env);
        // Kept open until the spawn has returned (the runner then holds the only copy).
        let _token_pipe = match &launch.maibot {
            None => {
                command
                    .env(launch_env::IPC_ADDRESS, &self.runtime.socket_path)
                    .env(launch_env::RUNNER_NAME, &self.runner.name);
                Some(crate::plugin::token_pipe::hand_over(&mut command, token)?)
            }
            Some(maibot) => {
                crate::plugin::data_dir::create_private(&maibot.instance_dir).map_err(|err| {
                    std::io::Error::new(
                        err.kind(),
                        format!(
                            "cannot create the instance directory {}: {err}",
                            maibot.instance_dir.display()
                        ),
                    )
                })?;
                if let Some(source) = &maibot.source {
                    // Made before the sandbox grants it; the runner's logger would make it.
                    let _ = std::fs::create_dir_all(source.join("logs"));
                }
                command
                    .envs(maibot.environment(
                        &self.runner.name,
                        &self.runtime.socket_path,
                        token,
                        &self.runner.settings(),
                        blocked,
                    ))
                    .current_dir(maibot.working_dir());
                None
            }
        };
        // Prepared once the folders it grants exist (the instance folder was made above).
        let needs = crate::plugin::sandbox_needs::needs(launch, data_dirs);
        let prepared = crate::sandbox::prepare(
            &self.runner.name,
            &launch.sandbox,
            self.runtime.config.sandbox,
            &needs,
            &self.sandbox,
        );
        let mut sandbox = match prepared {
            Ok(sandbox) => sandbox,
            Err(err) => {
                let text = crate::error_text::chain(&err);
                return Err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    text,
                ));
            }
        };
        self.runner.set_sandbox(sandbox.status().clone());
        // The sandbox first: the parent-death signal is set after the child's credentials
        // (capabilities) last change, which would otherwise clear it.
        sandbox.install(&mut command);
        crate::parent_death::kill_with_host(&mut command);
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: a terminal's Ctrl-C reaches only the host, which stops
            // runners in order, and the whole group can be killed at once.
            .process_group(0)
            .kill_on_drop(true);
        self.runner.note_executable();
        let mut child = sandbox.spawn(command).await?;
        self.runner.set_pid(child.id());
        self.runner.set_state(RunnerState::Starting);
        let name = self.runner.name.clone();
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(forward_output(name.clone(), "stdout", stdout));
        }
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(forward_output(name, "stderr", stderr));
        }
        Ok((child, sandbox))
    }
}

pub(super) fn fresh_token() -> String {
    let mut bytes = [0u8; 32];
    if let Err(err) = getrandom::fill(&mut bytes) {
        // Without OS randomness tokens would be guessable; refuse to continue silently.
        panic!("no OS randomness for session tokens: {err}");
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Copies a runner's stdout/stderr into the host log, line by line, tagged with the runner.
async fn forward_output(
    runner: String,
    stream: &'static str,
    output: impl tokio::io::AsyncRead + Unpin,
) {
    let mut lines = BufReader::new(output).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let (level, text) = match line.split_once("] ") {
            Some((prefix, rest)) if prefix.starts_with('[') => {
                (prefix.trim_start_matches('['), rest)
            }
            _ => ("", line.as_str()),
        };
        match level {
            "ERROR" => {
                tracing::error!(target: "maitool::runner", runner = %runner, stream, "{text}")
            }
            "WARN" => tracing::warn!(target: "maitool::runner", runner = %runner, stream, "{text}"),
            "INFO" => tracing::info!(target: "maitool::runner", runner = %runner, stream, "{text}"),
            "DEBUG" | "TRACE" => {
                tracing::debug!(target: "maitool::runner", runner = %runner, stream, "{text}")
            }
            _ if stream == "stderr" => {
                tracing::warn!(target: "maitool::runner", runner = %runner, stream, "{line}")
            }
            _ => tracing::info!(target: "maitool::runner", runner = %runner, stream, "{line}"),
        }
    }
}
