//! The hosts serving on one PostgreSQL store, as the shared `hosts` table lists them: no
//! cluster protocol of ours, only a row per `maitool serve` that the host itself keeps fresh.
//!
//! * [`Heartbeat`]: a serving host's background task. It writes its row every
//!   `[cluster] heartbeat_ms` (whether a first tool listing would be complete, what it still
//!   waits for, its tool and plugin counts), at once when it becomes ready, deletes rows silent
//!   for `forget_after_ms`, and deletes its own row when the host stops cleanly. A database
//!   that cannot be reached costs a warning and a retry at the next beat, never the host.
//! * [`ClusterView`]: what `maitool status` shows, read from the table; a row not written for
//!   `stale_after_ms` is [`HostState::Stale`] (its host died, hangs, or lost the database).
//!
//! Times are the database's clock (`now()`), so hosts with skewed clocks agree on staleness.
//! The embedded store has no table and no cluster: there is one host.

mod beat;
mod heartbeat;
mod identity;
mod view;

pub use beat::Beat;
pub use heartbeat::Heartbeat;
pub use identity::HostIdentity;
pub use view::{ClusterHost, ClusterView, HostState};

#[cfg(test)]
mod tests;
