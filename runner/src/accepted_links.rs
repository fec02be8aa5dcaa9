//! What a pool member's readiness probe reads: how many of its connections a host has
//! accepted right now, whether it drains, and why its last connection attempt failed.
//!
//! An orchestrator paces a rolling update on readiness: a new member counts as ready only
//! once a host has accepted it and its plugins are loaded, so the old members are not
//! stopped before the new ones can take calls.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parking_lot::Mutex;

/// The member's connections as its probes see them.
#[derive(Debug, Default)]
pub(crate) struct AcceptedLinks {
    accepted: AtomicUsize,
    draining: AtomicBool,
    last_failure: Mutex<Option<String>>,
}

/// One accepted connection, counted until dropped.
#[derive(Debug)]
pub(crate) struct AcceptedLink(Arc<AcceptedLinks>);

impl Drop for AcceptedLink {
    fn drop(&mut self) {
        self.0.accepted.fetch_sub(1, Ordering::Relaxed);
    }
}

impl AcceptedLinks {
    /// Counts a connection a host accepted (its `runner.ready` sent) until the guard drops.
    pub(crate) fn accepted(self: &Arc<Self>) -> AcceptedLink {
        self.accepted.fetch_add(1, Ordering::Relaxed);
        AcceptedLink(self.clone())
    }

    /// From now on the member is not ready: it takes no new calls.
    pub(crate) fn set_draining(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    /// Why the last connection attempt failed or ended, for the probe's answer.
    pub(crate) fn note_failure(&self, why: String) {
        *self.last_failure.lock() = Some(why);
    }

    /// `Ok(accepted connections)` when ready, or why not.
    pub(crate) fn readiness(&self) -> Result<usize, String> {
        if self.draining.load(Ordering::Relaxed) {
            return Err("draining: the member takes no new calls".into());
        }
        match self.accepted.load(Ordering::Relaxed) {
            0 => Err(match &*self.last_failure.lock() {
                Some(why) => format!("no host has accepted this member; last attempt: {why}"),
                None => "no host has accepted this member yet".into(),
            }),
            accepted => Ok(accepted),
        }
    }
}

#[cfg(test)]
mod tests;
