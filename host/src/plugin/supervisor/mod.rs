//! One runner's supervisor: spawn, handshake, readiness, health, restarts with backoff and
//! an intensity limit, and graceful stop. `spawn.rs` starts the process, `health.rs` checks
//! it, `backoff.rs` paces restarts.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use maitool_protocol::rpc::{PeerConfig, RpcPeer};
use maitool_protocol::wire::methods::{AckPayload, PluginBootstrap, ShutdownPayload, names};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::Child;
use tokio::sync::watch;

mod backoff;
mod environment;
mod health;
mod spawn;

use self::backoff::{backoff, spawn_backoff};
use self::spawn::fresh_token;
use super::connection::RunnerConnectionHandler;
use super::exit::RunnerExit;
use super::live_peer::LivePeer;
use super::runner_shared::RunnerShared;
use super::shared::RuntimeShared;
use super::status::{PluginLoadState, RunnerState};

/// How long a runner that exited after `plugin.shutdown` may take to be read to its end.
const FINAL_READ: Duration = Duration::from_millis(200);

/// How one launch of the runner ended.
enum Outcome {
    /// The process ended or was killed; restart unless the limit is reached.
    Exited(String),
    /// The process could not be spawned (`EMFILE`, `ENOMEM`, exec failed): not a crash.
    SpawnFailed(String),
    /// A MaiBot runner's Python environment could not be prepared (or, checked only, is not
    /// prepared): not a crash either.
    PrepareFailed(String),
    /// The host asked the runner to stop.
    Stopped,
}

pub(crate) struct Supervisor {
    runtime: Arc<RuntimeShared>,
    runner: Arc<RunnerShared>,
    stop: watch::Receiver<bool>,
    restarts: VecDeque<Instant>,
    /// What the runner's sandbox keeps across launches.
    sandbox: crate::sandbox::SandboxHome,
}

impl Supervisor {
    pub(crate) fn new(
        runtime: Arc<RuntimeShared>,
        runner: Arc<RunnerShared>,
        stop: watch::Receiver<bool>,
    ) -> Self {
        let sandbox = crate::sandbox::SandboxHome::new(&runner.name);
        Self {
            runtime,
            runner,
            stop,
            restarts: VecDeque::new(),
            sandbox,
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
            let was_prepare = matches!(outcome, Outcome::PrepareFailed(_));
            let reason = match outcome {
                Outcome::Stopped => {
                    self.stopped();
                    return;
                }
                Outcome::SpawnFailed(reason) | Outcome::PrepareFailed(reason) => {
                    let what = if was_prepare {
                        "its Python environment is not ready"
                    } else {
                        "runner could not be spawned"
                    };
                    // Not a crash: the process never existed. The restart budget is left
                    // alone, and the next attempt waits longer than a restart would.
                    spawn_failures += 1;
                    let delay = spawn_backoff(
                        spawn_failures,
                        config.spawn_retry_initial_ms,
                        config.spawn_retry_max_ms,
                    );
                    let reason = format!("{reason}; retrying in {} ms", delay.as_millis());
                    tracing::error!(runner = %name, "{what}: {reason}");
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
        let blocked = match self.ready_environment().await {
            Ok(blocked) => blocked,
            Err(outcome) => return outcome,
        };
        let token = fresh_token();
        let bootstrap: std::collections::BTreeMap<_, _> = self
            .runner
            .settings()
            .iter()
            .map(|(id, s)| {
                let boot = PluginBootstrap {
                    enabled: s.enabled,
                    config: s.config.clone(),
                    config_version: String::new(),
                    capabilities: s.grants(),
                    data_dir: self.runtime.plugin_data_dir(id, s.enabled),
                };
                (id.clone(), boot)
            })
            .collect();
        let data_dirs = bootstrap
            .values()
            .filter(|boot| !boot.data_dir.is_empty())
            .map(|boot| std::path::PathBuf::from(&boot.data_dir))
            .collect();
        let connection = self
            .runtime
            .launches
            .expect(token.clone(), &name, bootstrap);
        // The sandbox lives until the process group is gone (its cgroup, its temporary folder).
        let (mut child, _sandbox) = match self.spawn(&token, &blocked, data_dirs).await {
            Ok(spawned) => spawned,
            Err(err) => {
                self.runtime.launches.forget(&token);
                let hint = match self
                    .runner
                    .launch
                    .maibot
                    .as_ref()
                    .map(|m| &m.environment.location)
                {
                    Some(crate::maibot_env::EnvLocation::Own { .. }) => {
                        "; `python` must be a Python 3.12+ with MaiBot's runner installed, or leave it out and maitool prepares an environment (docs/MAIBOT.md)"
                    }
                    _ => "",
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
                launch_end.record("the runner was stopped");
                self.graceful_stop(&peer, child, config).await;
                return Outcome::Stopped;
            }
        };
        self.runtime.expose(&name, &ready.loaded_plugins, &live);
        self.runner.set_state(RunnerState::Ready);
        if let Some(maibot) = &self.runner.launch.maibot {
            // MaiBot's runner reads only each plugin's own config.toml: the operator's
            // settings reach it as a configuration update once the plugin is loaded.
            super::maibot::deliver_overrides(
                &peer,
                &self.runtime,
                &self.runner,
                maibot,
                &ready.loaded_plugins,
            )
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
                    let for_callers = exit.for_callers();
                    launch_end.record(&for_callers);
                    peer.close_because(for_callers);
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
                    // Calls the runner drops on its way out fail saying so, at once.
                    launch_end.record("the runner was stopped");
                    self.graceful_stop(&peer, child, config).await;
                    return Outcome::Stopped;
                }
            }
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

#[cfg(test)]
mod tests;
