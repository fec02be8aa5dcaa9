//! Progress of a host start: how many runners are ready and MCP servers connected, sampled
//! while the host waits for them, for a live line on a terminal.

use std::future::Future;
use std::time::Duration;

use crate::mcp_client::{McpServerState, McpServerStatus};
use crate::plugin::{RunnerState, RunnerStatus};

/// How often progress is sampled; also how long a start must take before the first report,
/// so a fast start shows nothing.
pub const SAMPLE_PERIOD: Duration = Duration::from_millis(250);

/// Counts of a host start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StartProgress {
    /// Runners connected and serving.
    pub runners_ready: usize,
    /// Runners that gave up (failed) or were stopped.
    pub runners_failed: usize,
    /// Configured runners.
    pub runners_total: usize,
    /// Connected MCP servers; `None` while their first connection attempts still run.
    pub mcp_connected: Option<usize>,
    /// Enabled MCP servers.
    pub mcp_total: usize,
}

impl StartProgress {
    /// Counts from the runners' status and, once known, the MCP servers' status.
    pub fn of(
        runners: &[RunnerStatus],
        mcp: Option<&[McpServerStatus]>,
        mcp_total: usize,
    ) -> StartProgress {
        let count = |wanted: &[RunnerState]| {
            runners
                .iter()
                .filter(|runner| wanted.contains(&runner.state))
                .count()
        };
        StartProgress {
            runners_ready: count(&[RunnerState::Ready]),
            runners_failed: count(&[RunnerState::Failed, RunnerState::Stopped]),
            runners_total: runners.len(),
            mcp_connected: mcp.map(|servers| {
                servers
                    .iter()
                    .filter(|s| s.state == McpServerState::Connected)
                    .count()
            }),
            mcp_total,
        }
    }

    /// The one-line summary, e.g. `starting: 3/10 runners ready, 1/2 MCP servers connected`.
    pub fn line(&self) -> String {
        let mut parts = Vec::with_capacity(2);
        if self.runners_total > 0 {
            let failed = if self.runners_failed > 0 {
                format!(" ({} failed)", self.runners_failed)
            } else {
                String::new()
            };
            parts.push(format!(
                "{}/{} runners ready{failed}",
                self.runners_ready, self.runners_total
            ));
        }
        if self.mcp_total > 0 {
            parts.push(match self.mcp_connected {
                Some(connected) => format!("{connected}/{} MCP servers connected", self.mcp_total),
                None => format!("connecting {} MCP servers", self.mcp_total),
            });
        }
        if parts.is_empty() {
            return "starting".to_owned();
        }
        format!("starting: {}", parts.join(", "))
    }
}

/// Receives progress while a host starts.
pub trait StartObserver: Send + Sync {
    /// The current counts; called every [`SAMPLE_PERIOD`] while the start takes long.
    fn update(&self, progress: &StartProgress);
}

/// Runs `work`; while it runs, reports `sample()` to `observer` every [`SAMPLE_PERIOD`]
/// (first after one period). Without an observer, just runs `work`.
pub async fn observe<T>(
    work: impl Future<Output = T>,
    observer: Option<&dyn StartObserver>,
    sample: impl Fn() -> StartProgress,
) -> T {
    let Some(observer) = observer else {
        return work.await;
    };
    let mut work = std::pin::pin!(work);
    let mut ticks =
        tokio::time::interval_at(tokio::time::Instant::now() + SAMPLE_PERIOD, SAMPLE_PERIOD);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tokio::select! {
            done = &mut work => return done,
            _ = ticks.tick() => observer.update(&sample()),
        }
    }
}

#[cfg(test)]
mod tests;
