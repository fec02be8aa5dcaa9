//! Calls that arrive while their runner restarts wait for it, rather than failing for a
//! hiccup the supervisor heals in milliseconds.
//!
//! A runner that exited and will be restarted keeps its plugin claims and components
//! ([`RuntimeShared::park_runner`]); only its connection leaves the invoke path. A call to
//! one of its tools waits on the runner's state until the new launch is ready, bounded by the
//! call's own timeout and `restart_wait_ms`. It fails at once when the runner is marked failed
//! or stopped (the host is stopping, or the runner was removed).

use std::time::Duration;

use tokio::time::Instant;

use super::live_peer::LivePeer;
use super::shared::RuntimeShared;
use super::status::RunnerState;

/// Why a call found no runner to run on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotReady {
    /// The plugin has no runner, or its runner is ready without it.
    NotRunning,
    /// Its runner is marked failed.
    Failed(String),
    /// Its runner was stopped (the host is stopping, or the runner was removed).
    Stopped(String),
    /// The runner did not come back before the call's own deadline.
    CallDeadline(Duration),
    /// The runner did not come back within `restart_wait_ms`.
    WaitCap(Duration),
    /// No member of the plugin's pool took calls within `restart_wait_ms`.
    NoMember { pool: String, waited: Duration },
}

impl NotReady {
    /// The failed result's message for tool `tool` of plugin `plugin_id`.
    pub(crate) fn message(&self, tool: &str, plugin_id: &str) -> String {
        let down =
            format!("tool {tool} is unavailable: the runner of plugin {plugin_id} is not running");
        match self {
            NotReady::NotRunning => down,
            NotReady::Failed(runner) => format!("{down} (runner {runner} is marked failed)"),
            NotReady::Stopped(runner) => format!("{down} (runner {runner} was stopped)"),
            NotReady::WaitCap(waited) => format!(
                "{down} (not back from its restart within restart_wait_ms, {} ms)",
                waited.as_millis()
            ),
            NotReady::NoMember { pool, waited } => format!(
                "tool {tool} is unavailable: no member of pool {pool}, which serves plugin \
                 {plugin_id}, took calls within restart_wait_ms ({} ms)",
                waited.as_millis()
            ),
            // As any timed-out call reads (`call_error`); the code is in the metadata.
            NotReady::CallDeadline(waited) => format!(
                "tool {tool} timed out after {} waiting for the runner of plugin {plugin_id} to come back from its restart",
                super::call_error::duration(waited.as_millis() as u64)
            ),
        }
    }
}

impl RuntimeShared {
    /// Whether a call to `plugin_id` can be routed: its runner serves it, or the runner is
    /// starting or restarting and the call will wait for it.
    pub(crate) fn is_routable(&self, plugin_id: &str) -> bool {
        self.is_live(plugin_id)
            // A pool's calls wait for a member as a runner's wait for its restart.
            || self.pool_of(plugin_id).is_some()
            || self.owner_of(plugin_id).is_some_and(|runner| {
                self.states.read().get(&runner).is_some_and(|state| {
                    matches!(
                        *state.borrow(),
                        RunnerState::Starting | RunnerState::Restarting
                    )
                })
            })
    }

    /// Waits until `plugin_id` has a connection that is not closed, until `call_deadline`
    /// (the call's own timeout) or `restart_wait_ms`, whichever comes first.
    pub(crate) async fn wait_live(
        &self,
        plugin_id: &str,
        call_deadline: Instant,
    ) -> Result<LivePeer, NotReady> {
        self.wait_live_for(plugin_id, None, call_deadline).await
    }

    /// [`wait_live`](Self::wait_live) for a call to `component` (a pool's member must
    /// declare it as registered).
    pub(crate) async fn wait_live_for(
        &self,
        plugin_id: &str,
        component: Option<&str>,
        call_deadline: Instant,
    ) -> Result<LivePeer, NotReady> {
        let started = Instant::now();
        let cap = started + Duration::from_millis(self.config.restart_wait_ms);
        let deadline = cap.min(call_deadline);
        if let Some(pool) = self.pool_of(plugin_id) {
            return match pool.wait_pick(component, deadline).await {
                Some(live) => Ok(live),
                None if deadline == call_deadline => Err(NotReady::CallDeadline(started.elapsed())),
                None => Err(NotReady::NoMember {
                    pool: pool.pool.clone(),
                    waited: started.elapsed(),
                }),
            };
        }
        // The runner is looked up once: failing or stopping withdraws its claims, and the
        // wait must still learn which of the two it was.
        let Some(runner) = self.owner_of(plugin_id) else {
            return Err(NotReady::NotRunning);
        };
        let Some(mut state) = self.states.read().get(&runner).cloned() else {
            return Err(NotReady::NotRunning);
        };
        loop {
            // Read (and marked seen) before the connection is looked at: a change after the
            // look wakes the wait below.
            let current = *state.borrow_and_update();
            let live = self.live_peer(plugin_id);
            if let Some(live) = &live
                && !live.peer.is_closed()
            {
                return Ok(live.clone());
            }
            match current {
                RunnerState::Failed => return Err(NotReady::Failed(runner)),
                RunnerState::Stopped => return Err(NotReady::Stopped(runner)),
                // Ready, and this plugin not on it (it failed to load this time). A closed
                // connection still listed means the supervisor has not seen the exit yet.
                RunnerState::Ready if live.is_none() => return Err(NotReady::NotRunning),
                _ if self.owner_of(plugin_id).as_deref() != Some(runner.as_str()) => {
                    return Err(NotReady::NotRunning);
                }
                _ => {}
            }
            match tokio::time::timeout_at(deadline, state.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(NotReady::Stopped(runner)),
                Err(_) if deadline == call_deadline => {
                    return Err(NotReady::CallDeadline(started.elapsed()));
                }
                Err(_) => return Err(NotReady::WaitCap(started.elapsed())),
            }
        }
    }
}
