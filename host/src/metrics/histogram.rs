//! A lock-free latency histogram with log-linear buckets.
//!
//! Values (microseconds) below 16 get a bucket each; above, every power of two is split into
//! 16 equal sub-buckets, so a bucket is at most 1/16 (6.25 %) of its lower edge wide. That is
//! the precision of an HDR histogram with one significant hex digit, in a fixed array of
//! atomics: recording is three relaxed `fetch_add`s and one `fetch_max`, with no lock and no
//! allocation, so concurrent calls of the same tool never wait for each other.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Sub-buckets per power of two (and exact buckets below `SUB_BUCKETS`).
const SUB_BUCKETS: u64 = 16;
const SUB_BITS: u32 = SUB_BUCKETS.trailing_zeros();
/// The highest power of two with its own buckets: 2^37 µs is about 38 hours. Longer values
/// are counted in the last bucket (and still in `max` and `sum`).
const MAX_EXPONENT: u32 = 37;
const BUCKETS: usize = (SUB_BUCKETS + (MAX_EXPONENT - SUB_BITS + 1) as u64 * SUB_BUCKETS) as usize;

/// The bucket a value falls in.
fn bucket_of(value: u64) -> usize {
    if value < SUB_BUCKETS {
        return value as usize;
    }
    let exponent = (63 - value.leading_zeros()).min(MAX_EXPONENT);
    if exponent == MAX_EXPONENT && value >> MAX_EXPONENT > 1 {
        return BUCKETS - 1;
    }
    let sub = (value >> (exponent - SUB_BITS)) & (SUB_BUCKETS - 1);
    (SUB_BUCKETS + u64::from(exponent - SUB_BITS) * SUB_BUCKETS + sub) as usize
}

/// The highest value that falls in `bucket`.
fn upper_edge(bucket: usize) -> u64 {
    let bucket = bucket as u64;
    if bucket < SUB_BUCKETS {
        return bucket;
    }
    let exponent = (bucket - SUB_BUCKETS) / SUB_BUCKETS + u64::from(SUB_BITS);
    let sub = (bucket - SUB_BUCKETS) % SUB_BUCKETS;
    let width = 1u64 << (exponent - u64::from(SUB_BITS));
    (1u64 << exponent) + (sub + 1) * width - 1
}

/// Latencies of one tool. See the [module documentation](self).
pub struct LatencyHistogram {
    buckets: Box<[AtomicU64]>,
    count: AtomicU64,
    sum_micros: AtomicU64,
    max_micros: AtomicU64,
}

impl std::fmt::Debug for LatencyHistogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LatencyHistogram")
            .field("count", &self.count())
            .finish_non_exhaustive()
    }
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    /// An empty histogram (about 4.5 KiB of counters).
    pub fn new() -> Self {
        Self {
            buckets: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
            count: AtomicU64::new(0),
            sum_micros: AtomicU64::new(0),
            max_micros: AtomicU64::new(0),
        }
    }

    /// Records one latency.
    pub fn record(&self, latency: Duration) {
        let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.buckets[bucket_of(micros)].fetch_add(1, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_micros.fetch_add(micros, Ordering::Relaxed);
        self.max_micros.fetch_max(micros, Ordering::Relaxed);
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// The sum of every value, in microseconds.
    pub fn sum_micros(&self) -> u64 {
        self.sum_micros.load(Ordering::Relaxed)
    }

    /// The largest value, in microseconds.
    pub fn max_micros(&self) -> u64 {
        self.max_micros.load(Ordering::Relaxed)
    }

    /// The values (microseconds) at the given quantiles (each in `0.0..=1.0`), in one pass.
    /// Each is the upper edge of the bucket holding that rank, capped at the maximum, so it
    /// overstates the true value by at most 6.25 %. All zero when nothing was recorded.
    pub fn quantiles<const N: usize>(&self, quantiles: [f64; N]) -> [u64; N] {
        // Read the buckets once; their total, not `count`, is the reference, so a value
        // recorded concurrently cannot push a rank past the end.
        let counts: Vec<u64> = self
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        let total: u64 = counts.iter().sum();
        let max = self.max_micros();
        let mut answers = [0u64; N];
        if total == 0 {
            return answers;
        }
        for (answer, quantile) in answers.iter_mut().zip(quantiles) {
            let rank = ((quantile.clamp(0.0, 1.0) * total as f64).ceil() as u64).max(1);
            let mut seen = 0;
            for (bucket, count) in counts.iter().enumerate() {
                seen += count;
                if seen >= rank {
                    *answer = upper_edge(bucket).min(max);
                    break;
                }
            }
        }
        answers
    }
}

#[cfg(test)]
mod tests;
