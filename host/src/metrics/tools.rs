//! Per-tool call statistics, recorded by the [`ToolRegistry`](crate::registry::ToolRegistry)
//! for every routed invocation.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use foldhash::{HashMap, HashMapExt};
use maitool_protocol::ToolExecutionResult;
use parking_lot::RwLock;
use serde::{Deserialize, Serialize};

use super::histogram::LatencyHistogram;

/// How a call ended, for the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallOutcome {
    /// `success == true`.
    Success,
    /// A failed result that was not a timeout.
    Failure,
    /// The provider gave up waiting: a plugin call answered `E_TIMEOUT` (`metadata.error_code`)
    /// or an MCP call timed out (`metadata.error_kind == "timeout"`).
    Timeout,
}

impl CallOutcome {
    /// Classifies a result by its `success` flag and the metadata providers set on timeouts.
    pub fn of(result: &ToolExecutionResult) -> CallOutcome {
        if result.success {
            return CallOutcome::Success;
        }
        let tag = |key: &str| result.metadata.get(key).and_then(|value| value.as_str());
        if tag("error_code") == Some("E_TIMEOUT") || tag("error_kind") == Some("timeout") {
            CallOutcome::Timeout
        } else {
            CallOutcome::Failure
        }
    }
}

/// The live counters of one tool of one provider.
#[derive(Debug, Default)]
struct ToolCounters {
    calls: AtomicU64,
    failures: AtomicU64,
    timeouts: AtomicU64,
    latency: LatencyHistogram,
}

impl ToolCounters {
    fn record(&self, outcome: CallOutcome, latency: Duration) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        match outcome {
            CallOutcome::Success => {}
            CallOutcome::Failure => {
                self.failures.fetch_add(1, Ordering::Relaxed);
            }
            CallOutcome::Timeout => {
                self.failures.fetch_add(1, Ordering::Relaxed);
                self.timeouts.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.latency.record(latency);
    }
}

/// Latency percentiles of one tool, in milliseconds (bucket precision: within 6.25 % above
/// the true value).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LatencySummary {
    /// Median.
    pub p50_ms: f64,
    /// 90th percentile.
    pub p90_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Slowest call.
    pub max_ms: f64,
    /// Mean.
    pub mean_ms: f64,
    /// Sum of every call's latency, in seconds (for Prometheus `_sum`).
    pub sum_seconds: f64,
}

/// A snapshot of one tool's statistics, as `status --json` reports it under `tools`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolCallStats {
    /// Tool name.
    pub tool: String,
    /// The registry provider that ran it (`maisaka_builtin`, `plugin_runtime`, `mcp`, ...).
    pub provider: String,
    /// Calls routed to the provider.
    pub calls: u64,
    /// Calls that returned a failed result, timeouts included.
    pub failures: u64,
    /// Calls that timed out (a subset of `failures`).
    pub timeouts: u64,
    /// Latency, measured from the registry's `invoke` to the result.
    pub latency: LatencySummary,
}

/// Registry-wide totals, as `status --json` reports them under `metrics`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CallTotals {
    /// Every routed call.
    pub calls: u64,
    /// Every failed routed call, timeouts included.
    pub failures: u64,
    /// Every timed-out call.
    pub timeouts: u64,
    /// Calls of a tool no provider had (`tool not found`, or no provider could answer);
    /// counted once here rather than per name, so made-up names cannot grow the table.
    pub unrouted: u64,
    /// Seconds since the registry was created.
    pub uptime_seconds: f64,
}

type ByTool = HashMap<Box<str>, ToolCounters>;

/// Call statistics of every tool a registry routed, keyed by provider and tool name.
///
/// Recording takes a shared read lock and a few relaxed atomics; only a tool's first call
/// takes the write lock, to add its entry. Entries are only ever added, for tools a provider
/// declared, so the table is bounded by the declared tool sets.
#[derive(Debug)]
pub struct ToolMetrics {
    tools: RwLock<HashMap<Arc<str>, ByTool>>,
    unrouted: AtomicU64,
    created: Instant,
}

impl Default for ToolMetrics {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolMetrics {
    /// An empty table.
    pub fn new() -> Self {
        Self {
            tools: RwLock::new(HashMap::new()),
            unrouted: AtomicU64::new(0),
            created: Instant::now(),
        }
    }

    /// Records one routed call of `tool` on `provider`.
    pub fn record(&self, provider: &Arc<str>, tool: &str, outcome: CallOutcome, latency: Duration) {
        {
            let tools = self.tools.read();
            if let Some(counters) = tools.get(provider).and_then(|by_tool| by_tool.get(tool)) {
                counters.record(outcome, latency);
                return;
            }
        }
        let mut tools = self.tools.write();
        let counters = tools
            .entry(Arc::clone(provider))
            .or_default()
            .entry(Box::from(tool))
            .or_default();
        counters.record(outcome, latency);
    }

    /// Records a call that no provider ran.
    pub fn record_unrouted(&self) {
        self.unrouted.fetch_add(1, Ordering::Relaxed);
    }

    /// Every tool's statistics, sorted by provider, then tool.
    pub fn snapshot(&self) -> Vec<ToolCallStats> {
        let tools = self.tools.read();
        let mut stats: Vec<ToolCallStats> = tools
            .iter()
            .flat_map(|(provider, by_tool)| {
                by_tool
                    .iter()
                    .map(move |(tool, counters)| stats_of(provider, tool, counters))
            })
            .collect();
        stats.sort_by(|a, b| {
            a.provider
                .cmp(&b.provider)
                .then_with(|| a.tool.cmp(&b.tool))
        });
        stats
    }

    /// Totals over every tool.
    pub fn totals(&self) -> CallTotals {
        let tools = self.tools.read();
        let mut totals = CallTotals {
            unrouted: self.unrouted.load(Ordering::Relaxed),
            uptime_seconds: self.created.elapsed().as_secs_f64(),
            ..CallTotals::default()
        };
        for counters in tools.values().flat_map(HashMap::values) {
            totals.calls += counters.calls.load(Ordering::Relaxed);
            totals.failures += counters.failures.load(Ordering::Relaxed);
            totals.timeouts += counters.timeouts.load(Ordering::Relaxed);
        }
        totals
    }
}

fn stats_of(provider: &str, tool: &str, counters: &ToolCounters) -> ToolCallStats {
    let latency = &counters.latency;
    let [p50, p90, p99] = latency.quantiles([0.5, 0.9, 0.99]);
    let count = latency.count();
    let millis = |micros: u64| micros as f64 / 1000.0;
    ToolCallStats {
        tool: tool.to_owned(),
        provider: provider.to_owned(),
        calls: counters.calls.load(Ordering::Relaxed),
        failures: counters.failures.load(Ordering::Relaxed),
        timeouts: counters.timeouts.load(Ordering::Relaxed),
        latency: LatencySummary {
            p50_ms: millis(p50),
            p90_ms: millis(p90),
            p99_ms: millis(p99),
            max_ms: millis(latency.max_micros()),
            mean_ms: if count == 0 {
                0.0
            } else {
                millis(latency.sum_micros()) / count as f64
            },
            sum_seconds: latency.sum_micros() as f64 / 1_000_000.0,
        },
    }
}

#[cfg(test)]
mod tests;
