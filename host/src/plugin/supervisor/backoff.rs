//! How long the supervisor waits before a restart, and before retrying a spawn that failed.

use std::time::Duration;

/// Below this, a restart delay counts as "immediate" for the exponential backoff base.
const BACKOFF_BASE: Duration = Duration::from_millis(10);

/// Delay before the restart that follows `recent` restarts inside the window: the first is
/// `initial`, then doubling from at least 10 ms, capped at `max`.
pub(super) fn backoff(recent: usize, initial_ms: u64, max_ms: u64) -> Duration {
    if recent == 0 {
        return Duration::from_millis(initial_ms);
    }
    let base = Duration::from_millis(initial_ms).max(BACKOFF_BASE);
    let factor = 1u32
        .checked_shl(recent.min(20) as u32 - 1)
        .unwrap_or(u32::MAX);
    base.saturating_mul(factor)
        .min(Duration::from_millis(max_ms))
}

/// Delay before spawn attempt `failures + 1` after `failures` failed spawns in a row:
/// `initial`, doubling, capped at `max`.
pub(super) fn spawn_backoff(failures: u32, initial_ms: u64, max_ms: u64) -> Duration {
    let factor = 1u64
        .checked_shl(failures.saturating_sub(1).min(30))
        .unwrap_or(u64::MAX);
    Duration::from_millis(initial_ms.saturating_mul(factor).min(max_ms))
}
