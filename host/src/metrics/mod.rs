//! Observability: per-tool call statistics recorded by the registry, their Prometheus text
//! exposition and HTTP endpoint, and start-up progress.
//!
//! * [`tools`]: [`ToolMetrics`], the counters and latency histograms per tool, which every
//!   [`ToolRegistry`](crate::registry::ToolRegistry) keeps and `status --json` reports.
//! * [`histogram`]: the lock-free latency histogram behind the percentiles.
//! * [`prometheus`] and [`http`]: the text format and the `GET /metrics` endpoint of
//!   `maitool serve --metrics ADDR`.
//! * [`progress`]: runners ready and MCP servers connected while a host starts.

pub mod histogram;
pub mod http;
pub mod progress;
pub mod prometheus;
pub mod tools;

pub use http::{HttpLimits, MetricsEndpoint, MetricsSource, RenderError};
pub use progress::{StartObserver, StartProgress};
pub use tools::{CallOutcome, CallTotals, LatencySummary, ToolCallStats, ToolMetrics};
