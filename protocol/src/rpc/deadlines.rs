//! The deadline sweeper: one task per connection that fails outgoing calls whose time is up.
//!
//! A timer per call (`tokio::time::timeout` around each response) registers an entry in the
//! runtime's timer wheel and removes it again for every call, although nearly every call is
//! answered long before its deadline. Here a call only records its deadline next to its
//! response channel; the sweeper sleeps until the earliest deadline it knows of, fails what has
//! expired, and sleeps again until the earliest deadline left. Calls with one timeout register
//! in deadline order, so they never wake it early: under load it wakes about once per timeout
//! period, and an idle connection's sweeper waits without a timer.

use std::sync::Arc;

use tokio::time::Instant;

use super::shared::Shared;

/// Sweeps `shared`'s pending calls until the connection stops.
pub(super) async fn run(shared: Arc<Shared>) {
    loop {
        let next = shared.next_sweep();
        tokio::select! {
            biased;
            () = shared.stop.cancelled() => return,
            // An earlier deadline was registered: look at the schedule again.
            () = shared.sweep_sooner.notified() => {}
            () = sleep_until(next) => shared.sweep(Instant::now()),
        }
    }
}

/// Sleeps until `at`; forever when there is nothing to wait for.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests;
