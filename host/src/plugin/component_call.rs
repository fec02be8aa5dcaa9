//! Runs one component of a plugin that is not a tool (a command, an event handler) on its
//! runner: the same route as a tool call (a restarting runner is waited for, a call cut off
//! by the runner's death says what happened to it), with the answer decoded as the caller's
//! type.

use std::time::Duration;

use maitool_protocol::rpc::RpcError;
use maitool_protocol::wire::ErrorCode;
use maitool_protocol::wire::methods::InvokePayload;
use serde::de::DeserializeOwned;
use tokio::time::Instant;

use super::call_error::duration;
use super::restart_wait::NotReady;
use super::shared::RuntimeShared;

/// How long a call cut off by its runner's end waits for the supervisor's account of it.
const CUT_OFF_PATIENCE: Duration = Duration::from_millis(500);

/// Why a component did not answer. The text completes "component X of plugin P ...".
#[derive(Debug, Clone, thiserror::Error)]
pub enum ComponentCallError {
    /// No runner serves the plugin now.
    #[error("could not run: {0}")]
    NotRunning(String),
    /// The runner did not answer within the limit.
    #[error("did not answer within {}", duration(*.0))]
    Timeout(u64),
    /// The runner went away during the call, for this reason.
    #[error("failed: {}", .0.message)]
    Crashed(#[source] RpcError),
    /// The runner refused the call or answered something unreadable.
    #[error("failed: {0}")]
    Refused(#[source] RpcError),
}

impl ComponentCallError {
    fn of(err: RpcError, timeout: Duration) -> Self {
        match err.code {
            ErrorCode::Timeout => ComponentCallError::Timeout(timeout.as_millis() as u64),
            ErrorCode::PluginCrashed => ComponentCallError::Crashed(err),
            _ => ComponentCallError::Refused(err),
        }
    }

    /// The wire code behind the failure (`E_TIMEOUT`, `E_PLUGIN_CRASHED`, ...), for programs.
    pub fn code(&self) -> ErrorCode {
        match self {
            ComponentCallError::NotRunning(_) => ErrorCode::PluginNotFound,
            ComponentCallError::Timeout(_) => ErrorCode::Timeout,
            ComponentCallError::Crashed(err) | ComponentCallError::Refused(err) => err.code.clone(),
        }
    }
}

fn not_running(plugin_id: &str, why: NotReady) -> ComponentCallError {
    let down = format!("the runner of plugin {plugin_id} is not running");
    ComponentCallError::NotRunning(match why {
        NotReady::NotRunning => down,
        NotReady::Failed(runner) => format!("{down} (runner {runner} is marked failed)"),
        NotReady::Stopped(runner) => format!("{down} (runner {runner} was stopped)"),
        NotReady::WaitCap(waited) | NotReady::CallDeadline(waited) => format!(
            "{down} (not back from its restart within {})",
            duration(waited.as_millis() as u64)
        ),
        NotReady::NoMember { pool, waited } => format!(
            "no member of pool {pool}, which serves plugin {plugin_id}, took calls within {}",
            duration(waited.as_millis() as u64)
        ),
    })
}

impl RuntimeShared {
    /// Sends `method` with `payload` to the runner of `plugin_id` and decodes its answer,
    /// waiting for a restarting runner within `timeout`.
    pub(crate) async fn call_component<T: DeserializeOwned>(
        &self,
        plugin_id: &str,
        method: &str,
        payload: &InvokePayload,
        timeout: Duration,
    ) -> Result<T, ComponentCallError> {
        let started = Instant::now();
        let live = match self.live_peer(plugin_id) {
            Some(live) => live,
            None => self
                .wait_live(plugin_id, started + timeout)
                .await
                .map_err(|why| not_running(plugin_id, why))?,
        };
        let answer = match live.peer.start_call(method, plugin_id, payload, timeout) {
            Ok(pending) => match pending.await {
                Ok(answer) => answer,
                Err(err) => {
                    let err = live.explain_cut_off(err, CUT_OFF_PATIENCE).await;
                    return Err(ComponentCallError::of(err, timeout));
                }
            },
            // Never sent: the connection had just closed. Wait for the restart, as a call
            // arriving during one does.
            Err(err) if err.code == ErrorCode::PluginCrashed => {
                let next = self
                    .wait_live(plugin_id, started + timeout)
                    .await
                    .map_err(|why| not_running(plugin_id, why))?;
                let left = timeout.saturating_sub(started.elapsed());
                let pending = next
                    .peer
                    .start_call(method, plugin_id, payload, left)
                    .map_err(|err| ComponentCallError::of(err, timeout))?;
                match pending.await {
                    Ok(answer) => answer,
                    Err(err) => {
                        let err = next.explain_cut_off(err, CUT_OFF_PATIENCE).await;
                        return Err(ComponentCallError::of(err, timeout));
                    }
                }
            }
            Err(err) => return Err(ComponentCallError::of(err, timeout)),
        };
        answer.payload().map_err(ComponentCallError::Refused)
    }
}
