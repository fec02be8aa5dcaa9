//! A MaiBot runner's Python environment, made ready before each launch: the stamp is checked
//! (nothing runs when it matches); a missing or stale environment is prepared here, in the
//! background of this runner alone, with the state `preparing` and each step in `status`
//! and the log, while every other tool source already serves.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::maibot_env::{self, Mode, PrepareObserver};
use crate::plugin::runner_shared::RunnerShared;
use crate::plugin::status::{EnvironmentState, PluginLoadState, RunnerState};

use super::{Outcome, Supervisor};

/// Hears a preparation for one runner: its status shows the step, its log the installer's
/// lines.
struct RunnerObserver {
    runner: Arc<RunnerShared>,
}

impl PrepareObserver for RunnerObserver {
    fn step(&self, step: &str) {
        if self.runner.state() != RunnerState::Preparing {
            self.runner.set_state(RunnerState::Preparing);
            self.runner.plugins_down(
                PluginLoadState::Pending,
                "waiting for its runner's Python environment",
            );
        }
        self.runner.update_environment(|env| {
            env.state = EnvironmentState::Preparing;
            env.detail = Some(step.to_owned());
            env.last_output = None;
        });
        tracing::info!(runner = %self.runner.name, "preparing the Python environment: {step}");
    }

    fn output(&self, line: &str) {
        self.runner
            .update_environment(|env| env.last_output = Some(line.to_owned()));
        tracing::info!(target: "maitool::maibot_env", runner = %self.runner.name, "{line}");
    }
}

impl Supervisor {
    /// Prepares (or, in a one-shot host and under `auto_prepare = false`, only checks) the
    /// environment of a MaiBot runner; returns the plugins it must not load, and why. Other
    /// runners need nothing.
    pub(super) async fn ready_environment(&mut self) -> Result<BTreeMap<String, String>, Outcome> {
        let Some(maibot) = &self.runner.launch.maibot else {
            return Ok(BTreeMap::new());
        };
        let target = maibot.env_target(&self.runner.name, &self.runner.settings());
        let mode = if target.settings.auto_prepare {
            self.runtime.environments
        } else {
            Mode::CheckOnly
        };
        let observer = RunnerObserver {
            runner: self.runner.clone(),
        };
        let outcome = tokio::select! {
            outcome = maibot_env::prepare(&target, mode, &observer) => outcome,
            // The install is a child of this future: dropping it kills the installer.
            _ = self.stop.changed() => return Err(Outcome::Stopped),
        };
        match outcome {
            Ok(prepared) => {
                if !prepared.done.is_empty() {
                    tracing::info!(runner = %self.runner.name, done = ?prepared.done, "Python environment prepared");
                }
                self.runner.update_environment(|env| {
                    env.state = EnvironmentState::Ready;
                    env.detail = None;
                    env.last_output = None;
                    if !prepared.done.is_empty() {
                        env.installed = prepared.done.clone();
                    }
                });
                self.runner.set_dependency_blocks(prepared.blocked.clone());
                Ok(prepared.blocked)
            }
            Err(err) => {
                let reason = crate::error_text::chain(&err);
                self.runner.update_environment(|env| {
                    env.state = EnvironmentState::Failed;
                    env.detail = Some(reason.clone());
                    env.last_output = None;
                });
                Err(Outcome::PrepareFailed(reason))
            }
        }
    }
}
