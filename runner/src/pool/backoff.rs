//! Reconnection delays: doubling from 100 ms to a 10 s cap, each drawn at random between
//! half and all of its step ("equal jitter"), so that members cut off together by a host
//! restart do not all dial it again at the same instant.

use std::time::Duration;

const FIRST: Duration = Duration::from_millis(100);
const CAP: Duration = Duration::from_secs(10);

/// The delays of one connection's attempts.
#[derive(Debug)]
pub(crate) struct Backoff {
    step: Duration,
}

impl Backoff {
    pub(crate) fn new() -> Self {
        Self { step: FIRST }
    }

    /// A connection succeeded: the next failure starts from the first step.
    pub(crate) fn reset(&mut self) {
        self.step = FIRST;
    }

    /// The delay before the next attempt; the step doubles up to the cap.
    pub(crate) fn next_delay(&mut self) -> Duration {
        let step = self.step;
        self.step = (self.step * 2).min(CAP);
        let half = step / 2;
        half + half.mul_f64(unit_random())
    }
}

/// A number in [0, 1) from the OS's generator (0.5 if it cannot be read).
fn unit_random() -> f64 {
    let mut bytes = [0u8; 4];
    if getrandom::fill(&mut bytes).is_err() {
        return 0.5;
    }
    f64::from(u32::from_le_bytes(bytes)) / (f64::from(u32::MAX) + 1.0)
}

#[cfg(test)]
mod tests;
