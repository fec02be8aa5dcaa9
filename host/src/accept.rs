//! What an accept loop does when `accept` fails: back off, and log without flooding.
//!
//! `accept` fails most often because the process is out of file descriptors (`EMFILE`,
//! `ENFILE`) or the kernel is out of buffers (`ENOBUFS`, `ENOMEM`). The pending connection
//! stays in the listen backlog, so retrying at once fails again at once, and a loop with a
//! short fixed pause would only log errors. Each failure in a row doubles the pause (up to a
//! second), and after the first error of a run only a summary is logged, at most every ten
//! seconds.

use std::time::{Duration, Instant};

/// The first pause after a failed `accept`.
const FIRST_PAUSE: Duration = Duration::from_millis(10);
/// The longest pause.
const MAX_PAUSE: Duration = Duration::from_secs(1);
/// The shortest time between two log records of one run of failures.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// The state of one accept loop's failures.
#[derive(Debug)]
pub(crate) struct AcceptBackoff {
    what: &'static str,
    pause: Duration,
    failures: u64,
    unlogged: u64,
    last_log: Option<Instant>,
}

impl AcceptBackoff {
    /// Failures of the listener named `what` (in log records).
    pub(crate) fn new(what: &'static str) -> AcceptBackoff {
        AcceptBackoff {
            what,
            pause: FIRST_PAUSE,
            failures: 0,
            unlogged: 0,
            last_log: None,
        }
    }

    /// A connection was accepted: the run of failures, if any, is over.
    pub(crate) fn succeeded(&mut self) {
        if self.failures > 0 {
            tracing::info!(
                "{} accepts connections again after {} failed accepts",
                self.what,
                self.failures
            );
        }
        self.pause = FIRST_PAUSE;
        self.failures = 0;
        self.unlogged = 0;
        self.last_log = None;
    }

    /// `accept` failed: logs (the first failure, then a summary at most every ten seconds)
    /// and gives the pause to sleep for before the next `accept`; the next one is twice as
    /// long.
    pub(crate) fn failed(&mut self, err: &std::io::Error) -> Duration {
        self.failures += 1;
        self.unlogged += 1;
        let due = self.last_log.is_none_or(|last| last.elapsed() >= LOG_EVERY);
        if due {
            tracing::error!(
                failures = self.unlogged,
                "{} cannot accept connections: {err}; retrying in up to {} ms",
                self.what,
                MAX_PAUSE.as_millis()
            );
            self.unlogged = 0;
            self.last_log = Some(Instant::now());
        }
        let pause = self.pause;
        self.pause = (self.pause * 2).min(MAX_PAUSE);
        pause
    }
}

#[cfg(test)]
mod tests;
