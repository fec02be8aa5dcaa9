//! One runner's supervisor: spawn, handshake, readiness, health, restarts with backoff and
//! an intensity limit, and graceful stop.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use maitool_protocol::launch as launch_env;
use maitool_protocol::rpc::{PeerConfig, RpcPeer};
use maitool_protocol::wire::methods::{
    AckPayload, HealthPayload, PluginBootstrap, ShutdownPayload, names,
};
use maitool_protocol::wire::{EmptyPayload, ErrorCode};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::watch;

use super::connection::RunnerConnectionHandler;
use super::exit::RunnerExit;
use super::live_peer::LivePeer;
use super::runner_shared::RunnerShared;
use super::shared::RuntimeShared;
use super::status::{PluginLoadState, RunnerState};

/// The longest quick re-check after a health-check timeout.
const HEALTH_RECHECK_CAP: Duration = Duration::from_secs(5);
/// How long a runner that exited after `plugin.shutdown` may take to be read to its end.
const FINAL_READ: Duration = Duration::from_millis(200);
/// Below this, a restart delay counts as "immediate" for the exponential backoff base.
const BACKOFF_BASE: Duration = Duration::from_millis(10);

/// How one launch of the runner ended.
enum Outcome {
    /// The process ended or was killed; restart unless the limit is reached.
    Exited(String),
    /// The process could not be spawned (`EMFILE`, `ENOMEM`, exec failed): not a crash.
    SpawnFailed(String),
    /// The host asked the runner to stop.
    Stopped,
}

pub(crate) struct Supervisor {
    runtime: Arc<RuntimeShared>,
    runner: Arc<RunnerShared>,
    stop: watch::Receiver<bool>,
    restarts: VecDeque<Instant>,
}

impl Supervisor {
    pub(crate) fn new(
        runtime: Arc<RuntimeShared>,
        runner: Arc<RunnerShared>,
        stop: watch::Receiver<bool>,
    ) -> Self {
        Self {
            runtime,
            runner,
            stop,
            restarts: VecDeque::new(),
        }
    }

    pub(crate) async fn run(mut self) {
        let config = self.runtime.config.clone();
        let name = self.runner.name.clone();
        // Failed spawns in a row, for their own backoff.
        let mut spawn_failures = 0u32;
        loop {
            if *self.stop.borrow() {
                self.stopped();
                return;
            }
            let outcome = self.launch_once().await;
            self.runner.set_peer(None);
            let reason = match outcome {
                Outcome::Stopped => {
                    self.stopped();
                    return;
                }
                Outcome::SpawnFailed(reason) => {
                    // Not a crash: the process never existed. The restart budget is left
                    // alone, and the next attempt waits longer than a restart would.
                    spawn_failures += 1;
                    let delay = spawn_backoff(
                        spawn_failures,
                        config.spawn_retry_initial_ms,
                        config.spawn_retry_max_ms,
                    );
                    let reason = format!("{reason}; retrying in {} ms", delay.as_millis());
                    tracing::error!(runner = %name, "runner could not be spawned: {reason}");
                    self.fail(reason);
                    if !self.pause(delay).await {
                        self.stopped();
                        return;
                    }
                    continue;
                }
                Outcome::Exited(reason) => reason,
            };
            spawn_failures = 0;
            let now = Instant::now();
            let window = Duration::from_millis(config.restart_window_ms);
            while self
                .restarts
                .front()
                .is_some_and(|t| now.duration_since(*t) > window)
            {
                self.restarts.pop_front();
            }
            if self.restarts.len() as u32 >= config.max_restarts {
                let mut reason = format!(
                    "{reason}; gave up after {} restarts within {} ms",
                    self.restarts.len(),
                    config.restart_window_ms
                );
                if config.failed_retry_ms > 0 {
                    reason.push_str(&format!("; trying again in {} ms", config.failed_retry_ms));
                }
                tracing::error!(runner = %name, "runner failed: {reason}");
                self.fail(reason);
                if config.failed_retry_ms == 0 {
                    return;
                }
                // The cool-down: whatever made it crash (a full disk, a dependency that was
                // down) may be gone by now, and an operator should not have to notice.
                if !self
                    .pause(Duration::from_millis(config.failed_retry_ms))
                    .await
                {
                    self.stopped();
                    return;
                }
                self.restarts.clear();
                self.runner.count_restart();
                tracing::info!(runner = %name, "starting the failed runner again after its cool-down");
                continue;
            }
            let delay = backoff(
                self.restarts.len(),
                config.restart_backoff_initial_ms,
                config.restart_backoff_max_ms,
            );
            self.restarts.push_back(now);
            tracing::warn!(runner = %name, delay_ms = delay.as_millis() as u64, "runner exited ({reason}); restarting");
            self.runner.record_exit(reason, true);
            // The state first: a call that finds the connection gone must also find the
            // runner restarting, so that it waits instead of failing.
            self.runner.set_state(RunnerState::Restarting);
            self.runtime.park_runner(&name);
            self.runner
                .plugins_down(PluginLoadState::Pending, "its runner is restarting");
            if !delay.is_zero() && !self.pause(delay).await {
                self.stopped();
                return;
            }
        }
    }

    /// Marks the runner failed with `reason`: its plugins are withdrawn and shown failed
    /// with it, and calls to them fail at once. The state comes first, so that a call waiting
    /// for a restart learns why it will not come.
    fn fail(&self, reason: String) {
        self.runner.plugins_down(
            PluginLoadState::Failed,
            &format!("its runner {} failed: {reason}", self.runner.name),
        );
        self.runner.record_exit(reason, false);
        self.runner.set_state(RunnerState::Failed);
        self.runtime.withdraw_runner(&self.runner.name);
    }

    /// The runner was asked to stop: the state first, as in [`Self::fail`].
    fn stopped(&self) {
        self.runner
            .plugins_down(PluginLoadState::Pending, "its runner was stopped");
        self.runner.set_state(RunnerState::Stopped);
        self.runtime.withdraw_runner(&self.runner.name);
    }

    /// Sleeps `delay`; false when the runner is asked to stop meanwhile.
    async fn pause(&mut self, delay: Duration) -> bool {
        if *self.stop.borrow() {
            return false;
        }
        tokio::select! {
            _ = tokio::time::sleep(delay) => !*self.stop.borrow(),
            _ = self.stop.changed() => false,
        }
    }

    async fn launch_once(&mut self) -> Outcome {
        let config = self.runtime.config.clone();
        let name = self.runner.name.clone();
        let token = fresh_token();
        let bootstrap = self
            .runner
            .settings()
            .iter()
            .map(|(id, s)| {
                let boot = PluginBootstrap {
                    enabled: s.enabled,
                    config: s.config.clone(),
                    config_version: String::new(),
                    capabilities: s.capabilities.clone(),
                    data_dir: self.runtime.plugin_data_dir(id, s.enabled),
                };
                (id.clone(), boot)
            })
            .collect();
        let connection = self
            .runtime
            .launches
            .expect(token.clone(), &name, bootstrap);
        let mut child = match self.spawn(&token) {
            Ok(child) => child,
            Err(err) => {
                self.runtime.launches.forget(&token);
                let hint = if self.runner.launch.maibot.is_some() {
                    "; `python` must be a Python 3.12+ with MaiBot's runner installed (docs/MAIBOT.md)"
                } else {
                    ""
                };
                return Outcome::SpawnFailed(format!(
                    "cannot start {}: {err}{hint}",
                    self.runner.launch.executable.display()
                ));
            }
        };
        // The group's id is the runner's pid. Taken now: once the runner has been waited for,
        // `child.id()` is gone, while the processes its plugins started may still run.
        let group = child.id().map(|pid| Pid::from_raw(pid as i32));
        let outcome = self.supervise(&mut child, connection, &config).await;
        self.runtime.launches.forget(&token);
        // Whatever happened, the process group must be gone before the next launch: the
        // runner, and everything it started that stayed in its group.
        if let Some(group) = group {
            let _ = killpg(group, Signal::SIGKILL);
        }
        let _ = child.wait().await;
        self.runner.set_pid(None);
        outcome
    }

    fn spawn(&self, token: &str) -> std::io::Result<Child> {
        let launch = &self.runner.launch;
        let mut command = Command::new(&launch.executable);
        command.args(&launch.args).envs(&launch.env);
        // Kept open until the spawn has returned (the runner then holds the only copy).
        let _token_pipe = match &launch.maibot {
            None => {
                command
                    .env(launch_env::IPC_ADDRESS, &self.runtime.socket_path)
                    .env(launch_env::RUNNER_NAME, &self.runner.name);
                Some(super::token_pipe::hand_over(&mut command, token)?)
            }
            Some(maibot) => {
                super::data_dir::create_private(&maibot.instance_dir).map_err(|err| {
                    std::io::Error::new(
                        err.kind(),
                        format!(
                            "cannot create the instance directory {}: {err}",
                            maibot.instance_dir.display()
                        ),
                    )
                })?;
                command
                    .envs(maibot.environment(
                        &self.runner.name,
                        &self.runtime.socket_path,
                        token,
                        &self.runner.settings(),
                    ))
                    .current_dir(maibot.working_dir());
                None
            }
        };
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
        let mut child = command.spawn()?;
        self.runner.set_pid(child.id());
        self.runner.set_state(RunnerState::Starting);
        let name = self.runner.name.clone();
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(forward_output(name.clone(), "stdout", stdout));
        }
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(forward_output(name, "stderr", stderr));
        }
        Ok(child)
    }

    async fn supervise(
        &mut self,
        child: &mut Child,
        connection: tokio::sync::oneshot::Receiver<super::listener::Connected>,
        config: &super::config::RuntimeConfig,
    ) -> Outcome {
        let name = self.runner.name.clone();
        let handshake_limit = Duration::from_millis(config.handshake_timeout_ms);
        let connected = tokio::select! {
            connected = tokio::time::timeout(handshake_limit, connection) => match connected {
                Ok(Ok(connected)) => connected,
                Ok(Err(_)) => return Outcome::Exited("handshake abandoned".into()),
                Err(_) => {
                    let detail = self.runtime.launches.take_rejection(&name).unwrap_or_default();
                    return Outcome::Exited(format!("no handshake within {} ms {detail}", handshake_limit.as_millis()).trim_end().to_owned());
                }
            },
            status = child.wait() => {
                let rejection = self.runtime.launches.take_rejection(&name).map(|r| format!(" (handshake rejected: {r})")).unwrap_or_default();
                return Outcome::Exited(format!("{} before connecting{rejection}", RunnerExit::from_wait(&status).describe()));
            }
            _ = self.stop.changed() => return Outcome::Stopped,
        };
        let ready = self.runner.expect_ready();
        let handler = Arc::new(RunnerConnectionHandler {
            runtime: self.runtime.clone(),
            runner: self.runner.clone(),
        });
        let peer_config = PeerConfig {
            name: name.clone(),
            ..PeerConfig::default()
        };
        let peer = RpcPeer::start_framed(connected.framed, handler, peer_config);
        let (live, launch_end) = LivePeer::new(peer.clone(), connected.hello.reads_context);
        self.runner.set_peer(Some(live.clone()));
        tracing::debug!(runner = %name, runner_id = %connected.hello.runner_id, pid = child.id(), sdk_version = %connected.hello.sdk_version, "runner connected");

        let ready_limit = Duration::from_millis(config.ready_timeout_ms);
        let ready = tokio::select! {
            ready = tokio::time::timeout(ready_limit, ready) => match ready {
                Ok(Ok(ready)) => ready,
                Ok(Err(_)) => return Outcome::Exited("readiness report lost".into()),
                Err(_) => return Outcome::Exited(format!("no runner.ready within {} ms", ready_limit.as_millis())),
            },
            status = child.wait() => return Outcome::Exited(format!("{} while loading plugins", RunnerExit::from_wait(&status).describe())),
            reason = peer.closed() => return Outcome::Exited(format!("connection lost while loading plugins: {reason:?}")),
            _ = self.stop.changed() => {
                self.graceful_stop(&peer, child, config).await;
                return Outcome::Stopped;
            }
        };
        self.runtime.expose(&name, &ready.loaded_plugins, &live);
        self.runner.set_state(RunnerState::Ready);
        if let Some(maibot) = &self.runner.launch.maibot {
            // MaiBot's runner reads only each plugin's own config.toml: the operator's
            // settings reach it as a configuration update once the plugin is loaded.
            super::maibot::deliver_overrides(&peer, &self.runner, maibot, &ready.loaded_plugins)
                .await;
        }
        tracing::info!(runner = %name, loaded = ?ready.loaded_plugins, failed = ?ready.failed_plugins, "runner ready");
        let settings = self.runner.settings();
        for (plugin, reason) in &ready.failed_plugin_reasons {
            if settings.get(plugin).is_some_and(|s| !s.enabled) {
                tracing::info!(runner = %name, plugin_id = %plugin, "plugin not loaded: disabled by the operator");
            } else {
                tracing::error!(runner = %name, plugin_id = %plugin, "plugin failed to load: {reason}");
            }
        }

        let health_every = (config.health_check_interval_ms > 0)
            .then(|| Duration::from_millis(config.health_check_interval_ms));
        let mut health = tokio::time::interval(health_every.unwrap_or(Duration::from_secs(3600)));
        health.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        health.tick().await;
        loop {
            tokio::select! {
                status = child.wait() => {
                    let exit = RunnerExit::from_wait(&status);
                    launch_end.record(&exit.for_callers());
                    peer.close_because(exit.for_callers());
                    return Outcome::Exited(exit.describe());
                }
                reason = peer.closed() => {
                    // The process usually exits at the same moment; prefer its status.
                    let status = tokio::time::timeout(Duration::from_millis(100), child.wait()).await;
                    return Outcome::Exited(match status {
                        Ok(status) => {
                            let exit = RunnerExit::from_wait(&status);
                            launch_end.record(&exit.for_callers());
                            exit.describe()
                        }
                        Err(_) => {
                            launch_end.record("the runner closed its connection but kept running");
                            format!("connection lost ({reason}) while the process kept running")
                        }
                    });
                }
                _ = health.tick(), if health_every.is_some() => {
                    if let Err(failure) = self.check_health(&peer, config).await {
                        tracing::error!(runner = %name, "{}; killing it", failure.reason);
                        // The calls still in flight fail with what happened to them, not
                        // with a bare "connection closed".
                        launch_end.record(failure.for_callers());
                        peer.close_because(failure.for_callers());
                        return Outcome::Exited(failure.reason);
                    }
                }
                _ = self.stop.changed() => {
                    self.graceful_stop(&peer, child, config).await;
                    return Outcome::Stopped;
                }
            }
        }
    }

    /// One health check, with a quick re-check when it goes unanswered, so that a host that
    /// was briefly too busy to read the answer does not kill a healthy runner (MaiBot #1896).
    ///
    /// Unanswered means a timeout, or a send queue still full at the re-check: a runner that
    /// stopped reading its socket never sees the check, and counting that as healthy would
    /// leave it `Ready`, failing every call with `E_BACK_PRESSURE`, forever.
    async fn check_health(
        &self,
        peer: &RpcPeer,
        config: &super::config::RuntimeConfig,
    ) -> Result<(), HealthFailure> {
        let limit = Duration::from_millis(config.health_check_timeout_ms);
        let first = peer
            .call::<_, HealthPayload>(names::HEALTH, "", &EmptyPayload {}, limit)
            .await;
        let err = match first {
            Ok(health) if health.healthy => return Ok(()),
            Ok(_) => return Err(HealthFailure::unhealthy()),
            Err(err) if unanswered(&err) => err,
            // A closed connection is handled by the disconnect branch.
            Err(_) => return Ok(()),
        };
        let recheck = limit.min(HEALTH_RECHECK_CAP);
        if err.code == ErrorCode::BackPressure {
            // A reading runner drains even a full queue within milliseconds; one second
            // tells a busy runner from one that stopped reading.
            tokio::time::sleep(recheck.min(Duration::from_secs(1))).await;
        }
        match peer
            .call::<_, HealthPayload>(names::HEALTH, "", &EmptyPayload {}, recheck)
            .await
        {
            Ok(health) if health.healthy => {
                tracing::warn!(runner = %self.runner.name, "health check unanswered ({err}), answered on the quick re-check: the host or the runner was busy, the runner is kept");
                Ok(())
            }
            Ok(_) => Err(HealthFailure::unhealthy()),
            Err(again) if again.code == ErrorCode::Timeout && err.code == ErrorCode::Timeout => {
                Err(HealthFailure::unanswered(format!(
                    "runner hung: health check timed out twice ({err}; then {again})"
                )))
            }
            Err(again) if unanswered(&again) => Err(HealthFailure::unanswered(format!(
                "runner hung: not reading its socket, health check unanswered twice ({err}; then {again})"
            ))),
            Err(_) => Ok(()),
        }
    }

    /// `prepare_shutdown`, `shutdown`, then SIGTERM, then SIGKILL to the process group.
    async fn graceful_stop(
        &self,
        peer: &RpcPeer,
        child: &mut Child,
        config: &super::config::RuntimeConfig,
    ) {
        let grace = Duration::from_millis(config.shutdown_grace_ms);
        let payload = ShutdownPayload {
            reason: "normal".into(),
            drain_timeout_ms: config.shutdown_grace_ms / 2,
        };
        if !peer.is_closed() {
            let _ = peer
                .call::<_, AckPayload>(names::PREPARE_SHUTDOWN, "", &payload, grace / 2)
                .await;
            let _ = peer
                .call::<_, AckPayload>(names::SHUTDOWN, "", &payload, grace)
                .await;
        }
        if tokio::time::timeout(grace, child.wait()).await.is_ok() {
            // Read what it wrote before exiting (its last log records) up to the end of
            // stream, rather than dropping the connection with frames still unread.
            let _ = tokio::time::timeout(FINAL_READ, peer.closed()).await;
            return;
        }
        let Some(pid) = child.id() else { return };
        let group = Pid::from_raw(pid as i32);
        tracing::warn!(runner = %self.runner.name, "runner did not exit after shutdown; sending SIGTERM");
        let _ = killpg(group, Signal::SIGTERM);
        if tokio::time::timeout(
            Duration::from_millis(config.terminate_grace_ms),
            child.wait(),
        )
        .await
        .is_ok()
        {
            return;
        }
        tracing::warn!(runner = %self.runner.name, "runner ignored SIGTERM; sending SIGKILL");
        let _ = killpg(group, Signal::SIGKILL);
        let _ = child.wait().await;
    }
}

/// Why a health check condemned a runner.
struct HealthFailure {
    /// The exit reason recorded in the runner's status and log.
    reason: String,
    /// Whether the runner stopped answering (else it answered that it is unhealthy).
    unanswered: bool,
}

impl HealthFailure {
    fn unhealthy() -> Self {
        Self {
            reason: "runner reported itself unhealthy".into(),
            unanswered: false,
        }
    }

    fn unanswered(reason: String) -> Self {
        Self {
            reason,
            unanswered: true,
        }
    }

    /// The error of the calls in flight when the runner is killed: usually collateral
    /// damage of another call that blocked the runner, so it says what happened to the
    /// runner rather than to the call.
    fn for_callers(&self) -> &'static str {
        if self.unanswered {
            "the runner was restarted because it stopped answering health checks"
        } else {
            "the runner was restarted because it reported itself unhealthy"
        }
    }
}

/// Delay before the restart that follows `recent` restarts inside the window: the first is
/// `initial`, then doubling from at least 10 ms, capped at `max`.
fn backoff(recent: usize, initial_ms: u64, max_ms: u64) -> Duration {
    if recent == 0 {
        return Duration::from_millis(initial_ms);
    }
    let base = Duration::from_millis(initial_ms).max(BACKOFF_BASE);
    let factor = 1u32
        .checked_shl(recent.min(20) as u32 - 1)
        .unwrap_or(u32::MAX);
    base.saturating_mul(factor)
        .min(Duration::from_millis(max_ms))
}

/// Delay before spawn attempt `failures + 1` after `failures` failed spawns in a row:
/// `initial`, doubling, capped at `max`.
fn spawn_backoff(failures: u32, initial_ms: u64, max_ms: u64) -> Duration {
    let factor = 1u64
        .checked_shl(failures.saturating_sub(1).min(30))
        .unwrap_or(u64::MAX);
    Duration::from_millis(initial_ms.saturating_mul(factor).min(max_ms))
}

fn fresh_token() -> String {
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

/// The check never reached the runner or was never answered.
fn unanswered(err: &maitool_protocol::rpc::RpcError) -> bool {
    matches!(err.code, ErrorCode::Timeout | ErrorCode::BackPressure)
}

#[cfg(test)]
mod tests;
