//! The first listing's wait: a gate that opens when every tool source that is starting
//! normally has come up or failed, or when `[host] listing_wait_ms` has passed since the host
//! started, whichever comes first.
//!
//! A host that serves at once (an MCP front, whose client is waiting for its handshake)
//! answers `initialize` immediately, but many clients list tools once, at start, and never act
//! on `notifications/tools/list_changed`. So the first `tools/list` (and `definitions`, and
//! the one-shot verbs) waits at this gate: plugin runners and MCP servers a few milliseconds
//! from ready are in it, while a hung or slow source holds it no longer than the bound, and a
//! failed one not at all (its first launch or connection has ended). Sources that come up
//! after the gate opened still join through `list_changed`.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::mcp_client::{McpServerState, McpServerStatus};
use crate::plugin::{RunnerState, RunnerStatus};

/// Opens once the host's tool sources have settled or the bound passed. Cheap to clone; an
/// open gate costs one atomic load to pass.
#[derive(Clone)]
pub struct SettleGate {
    open: watch::Receiver<bool>,
    /// Names what a closed gate waits for (see [`SettleGate::waiting_for`]).
    pending: Option<Arc<dyn Fn() -> Vec<String> + Send + Sync>>,
}

impl std::fmt::Debug for SettleGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SettleGate")
            .field("open", &self.is_open())
            .finish_non_exhaustive()
    }
}

impl SettleGate {
    /// A gate that is already open: for a host whose sources were waited for at start, and
    /// for an embedder's registry with nothing starting.
    pub fn opened() -> SettleGate {
        let (_, open) = watch::channel(true);
        SettleGate {
            open,
            pending: None,
        }
    }

    /// A gate that opens when `settled` completes or `bound` passes, whichever is first;
    /// `on_open` runs then, told whether the bound cut the wait short. Spawns a task on the
    /// current Tokio runtime.
    pub fn spawn(
        settled: impl Future<Output = ()> + Send + 'static,
        bound: Duration,
        on_open: impl FnOnce(bool) + Send + 'static,
    ) -> SettleGate {
        let (opener, open) = watch::channel(false);
        tokio::spawn(async move {
            let cut_short = tokio::time::timeout(bound, settled).await.is_err();
            on_open(cut_short);
            // Every receiver may be gone (the host stopped): nobody is left to tell.
            let _ = opener.send(true);
        });
        SettleGate {
            open,
            pending: None,
        }
    }

    /// The gate, telling [`waiting_for`](Self::waiting_for) what it waits for with `pending`
    /// (called only while the gate is closed).
    pub fn describing(mut self, pending: impl Fn() -> Vec<String> + Send + Sync + 'static) -> Self {
        self.pending = Some(Arc::new(pending));
        self
    }

    /// What a closed gate is waiting for (`runner NAME starting`, `MCP server NAME
    /// connecting`), for a readiness probe to say why the host is not ready; empty once open,
    /// or when the gate was not told.
    pub fn waiting_for(&self) -> Vec<String> {
        match &self.pending {
            Some(pending) if !self.is_open() => pending(),
            _ => Vec::new(),
        }
    }

    /// Whether the gate is open.
    pub fn is_open(&self) -> bool {
        *self.open.borrow()
    }

    /// Waits until the gate is open (at once when it is). A gate whose task is gone without
    /// opening (its runtime shut down) counts as open: nothing will settle any more.
    pub async fn wait(&self) {
        if self.is_open() {
            return;
        }
        let mut open = self.open.clone();
        let _ = open.wait_for(|open| *open).await;
    }
}

/// `runner NAME STATE[: why]` and `MCP server NAME STATE[: why]` for each source that is
/// not up: what a listing made now goes without.
pub(crate) fn sources_not_up(runners: &[RunnerStatus], servers: &[McpServerStatus]) -> Vec<String> {
    let runners = runners
        .iter()
        .filter(|runner| !matches!(runner.state, RunnerState::Ready | RunnerState::Stopped))
        .map(|runner| {
            let state = serde_json::to_value(runner.state)
                .ok()
                .and_then(|state| state.as_str().map(str::to_owned))
                .unwrap_or_default();
            match &runner.last_exit_reason {
                Some(why) => format!("runner {} {state}: {why}", runner.name),
                None => format!("runner {} {state}", runner.name),
            }
        });
    let servers = servers
        .iter()
        .filter(|server| {
            !matches!(
                server.state,
                McpServerState::Connected | McpServerState::Disabled
            )
        })
        .map(|server| match &server.last_error {
            Some(why) => format!(
                "MCP server {} {}: {why}",
                server.name,
                server.state.as_str()
            ),
            None => format!("MCP server {} {}", server.name, server.state.as_str()),
        });
    runners.chain(servers).collect()
}

#[cfg(test)]
mod tests;
