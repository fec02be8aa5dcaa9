//! Summaries of timing samples.

use std::time::Duration;

use serde::Serialize;

/// Percentiles and mean of a set of latencies, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Latency {
    /// Number of samples.
    pub samples: usize,
    /// Median.
    pub p50_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// Mean.
    pub mean_us: f64,
}

impl Latency {
    /// Summarises `samples` (sorted in place). Empty input gives zeros.
    pub fn of(samples: &mut [Duration]) -> Latency {
        if samples.is_empty() {
            return Latency {
                samples: 0,
                p50_us: 0.0,
                p99_us: 0.0,
                mean_us: 0.0,
            };
        }
        samples.sort_unstable();
        let total: Duration = samples.iter().sum();
        Latency {
            samples: samples.len(),
            p50_us: micros(percentile(samples, 50.0)),
            p99_us: micros(percentile(samples, 99.0)),
            mean_us: micros(total) / samples.len() as f64,
        }
    }
}

/// The nearest-rank percentile of sorted samples.
pub fn percentile(sorted: &[Duration], pct: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((pct / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The median of plain numbers (empty: 0).
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    }
}

/// A duration in microseconds.
pub fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

/// A duration in milliseconds.
pub fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// `a / b`, or 0 when `b` is 0 (a missing measurement never reads as infinitely good).
pub fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 { 0.0 } else { a / b }
}

#[cfg(test)]
mod tests;
