//! Circuit breakers, one per key (the plugin runtime keys them by plugin id): after
//! `failure_threshold` consecutive failures a circuit opens and calls through it fail at once,
//! with the reason and when the next try is due; after a cool-down one call goes through as a
//! probe (half-open) while the others still fail fast; the probe's success closes the circuit,
//! its failure opens it again for twice as long, up to `max_cooldown`.
//!
//! The caller decides what counts: it asks [`CircuitBreakers::admit`] before a call and
//! reports the call's outcome on the [`Permit`] (`succeeded`, `failed`); a permit dropped
//! without either is neutral (a call that never reached the other side), and a probe permit
//! dropped that way frees the probe slot, so a cancelled probe cannot leave a circuit
//! half-open forever.
//!
//! Failures count **in a row, one per event**: a failure counts only if its call was admitted
//! after the last counted failure. Calls in flight together that fail together (a crash that
//! cuts off a hundred calls, a burst of concurrent calls to a hung plugin) are one failure, not
//! a hundred: the next failure counts only when a call made after it fails too. Outcomes of
//! calls admitted before the circuit last opened are ignored, so late timeouts neither reopen
//! nor extend it.
//!
//! Reusable by anything that calls out to a plugin: tools, and hooks or event handlers.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use parking_lot::{Mutex, RwLock};
use serde::{Deserialize, Serialize};

/// How the breakers behave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CircuitConfig {
    /// False: every call is admitted and nothing is recorded.
    pub enabled: bool,
    /// Consecutive failures that open a closed circuit (at least 1).
    pub failure_threshold: u32,
    /// How long a circuit stays open the first time.
    pub cooldown: Duration,
    /// The longest it stays open: each failed probe doubles the cool-down up to this. A
    /// circuit that stays closed this long after it recovered starts again from `cooldown`.
    pub max_cooldown: Duration,
}

impl Default for CircuitConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            failure_threshold: 5,
            cooldown: Duration::from_secs(10),
            max_cooldown: Duration::from_secs(300),
        }
    }
}

/// A circuit's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CircuitState {
    /// Calls go through; failures are counted.
    Closed,
    /// Calls fail at once until the cool-down ends.
    Open,
    /// The cool-down has ended: the next call is a probe; while one is in flight the others
    /// fail at once.
    HalfOpen,
}

impl CircuitState {
    /// `closed`, `open` or `half_open`.
    pub const fn as_str(self) -> &'static str {
        match self {
            CircuitState::Closed => "closed",
            CircuitState::Open => "open",
            CircuitState::HalfOpen => "half_open",
        }
    }
}

impl fmt::Display for CircuitState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// What `status` shows of one circuit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CircuitStatus {
    /// Its state now.
    pub state: CircuitState,
    /// Failures in a row since the last success.
    pub consecutive_failures: u32,
    /// The reason of the latest counted failure.
    pub last_failure: Option<String>,
    /// While open: milliseconds until the next probe is let through.
    pub retry_in_ms: Option<u64>,
    /// While open: when the next probe is let through (Unix time, milliseconds).
    pub next_probe_at_ms: Option<u64>,
    /// How long the circuit stays open the next time it opens, in milliseconds.
    pub next_cooldown_ms: u64,
    /// How many times it opened.
    pub opened_total: u64,
    /// How many calls it refused.
    pub rejected_total: u64,
}

/// A call the circuit refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct Rejection {
    /// The circuit's state.
    pub state: CircuitState,
    /// How many failures opened it.
    pub failures: u32,
    /// The reason of the failure that opened it (or of the failed probe).
    pub last_failure: String,
    /// How long until a probe is let through (zero while a probe is in flight).
    pub retry_in: Duration,
}

impl Rejection {
    fn describe(&self) -> String {
        match self.state {
            CircuitState::HalfOpen => format!(
                "the circuit breaker is half-open after {} consecutive failures (last: {}) and \
                 a probe call is in flight; retry when it ends",
                self.failures, self.last_failure
            ),
            _ => format!(
                "the circuit breaker is open after {} consecutive failures (last: {}); the \
                 next call is let through in {:.1} s",
                self.failures,
                self.last_failure,
                self.retry_in.as_secs_f64()
            ),
        }
    }
}

/// Circuit breakers by key. See the [module documentation](self).
#[derive(Debug)]
pub struct CircuitBreakers {
    config: CircuitConfig,
    circuits: RwLock<HashMap<String, Arc<Circuit>>>,
}

/// One key's circuit.
#[derive(Debug)]
struct Circuit {
    key: Arc<str>,
    config: CircuitConfig,
    /// Closed with no failure counted: admitting and recording a success need no lock.
    clean: AtomicBool,
    /// `Inner::generation`, for permits handed out without the lock.
    generation: AtomicU64,
    /// `Inner::failure_seq`, for the same.
    failure_seq: AtomicU64,
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    state: CircuitState,
    /// Failures in a row since the last success (not reset when the circuit opens).
    failures: u32,
    last_failure: Option<String>,
    /// Bumped each time the circuit opens; permits of an older generation are ignored.
    generation: u64,
    /// Bumped for each counted failure: a failed call counts only when it was admitted after
    /// the last one (its permit saw the current value).
    failure_seq: u64,
    open_until: Instant,
    /// Unix milliseconds of `open_until`, for status.
    open_until_unix_ms: u64,
    /// How many times in a row it has opened without staying closed `max_cooldown`.
    level: u32,
    closed_at: Option<Instant>,
    probe_in_flight: bool,
    opened_total: u64,
    rejected_total: u64,
}

impl Default for Inner {
    fn default() -> Self {
        Self {
            state: CircuitState::Closed,
            failures: 0,
            last_failure: None,
            generation: 0,
            failure_seq: 0,
            open_until: Instant::now(),
            open_until_unix_ms: 0,
            level: 0,
            closed_at: None,
            probe_in_flight: false,
            opened_total: 0,
            rejected_total: 0,
        }
    }
}

/// Leave to make one call through a circuit; report how it went with
/// [`succeeded`](Self::succeeded) or [`failed`](Self::failed). Dropping it reports nothing.
#[derive(Debug)]
#[must_use = "report the call's outcome on the permit"]
pub struct Permit {
    /// `None` when the breakers are off.
    circuit: Option<Arc<Circuit>>,
    generation: u64,
    failure_seq: u64,
    probe: bool,
}

impl CircuitBreakers {
    /// Breakers with `config`.
    pub fn new(config: CircuitConfig) -> Self {
        Self {
            config,
            circuits: RwLock::new(HashMap::new()),
        }
    }

    /// Their configuration.
    pub fn config(&self) -> CircuitConfig {
        self.config
    }

    /// Leave for one call through `key`'s circuit, or why not.
    pub fn admit(&self, key: &str) -> Result<Permit, Rejection> {
        self.admit_at(key, Instant::now())
    }

    /// [`admit`](Self::admit) at `now`.
    pub(crate) fn admit_at(&self, key: &str, now: Instant) -> Result<Permit, Rejection> {
        if !self.config.enabled {
            return Ok(Permit {
                circuit: None,
                generation: 0,
                failure_seq: 0,
                probe: false,
            });
        }
        let circuit = self.circuit(key);
        let permit = |generation, probe| Permit {
            circuit: Some(Arc::clone(&circuit)),
            generation,
            failure_seq: circuit.failure_seq.load(Ordering::Acquire),
            probe,
        };
        if circuit.clean.load(Ordering::Acquire) {
            return Ok(permit(circuit.generation.load(Ordering::Acquire), false));
        }
        let mut inner = circuit.inner.lock();
        if inner.state == CircuitState::Open && now >= inner.open_until {
            inner.state = CircuitState::HalfOpen;
            inner.probe_in_flight = false;
            tracing::info!(
                circuit = key,
                "circuit breaker cool-down over: the next call is a probe"
            );
        }
        match inner.state {
            CircuitState::Closed => Ok(permit(inner.generation, false)),
            CircuitState::HalfOpen if !inner.probe_in_flight => {
                inner.probe_in_flight = true;
                Ok(permit(inner.generation, true))
            }
            state => {
                inner.rejected_total += 1;
                Err(Rejection {
                    state,
                    failures: inner.failures,
                    last_failure: inner.last_failure.clone().unwrap_or_default(),
                    retry_in: inner.open_until.saturating_duration_since(now),
                })
            }
        }
    }

    /// The status of `key`'s circuit; `None` when nothing was ever recorded for it (or the
    /// breakers are off).
    pub fn status(&self, key: &str) -> Option<CircuitStatus> {
        let circuit = self.circuits.read().get(key).cloned()?;
        let now = Instant::now();
        let inner = circuit.inner.lock();
        if inner.state == CircuitState::Closed
            && inner.failures == 0
            && inner.opened_total == 0
            && inner.rejected_total == 0
        {
            return None;
        }
        let open = inner.state == CircuitState::Open && now < inner.open_until;
        let state = match inner.state {
            CircuitState::Open if !open => CircuitState::HalfOpen,
            state => state,
        };
        Some(CircuitStatus {
            state,
            consecutive_failures: inner.failures,
            last_failure: inner.last_failure.clone(),
            retry_in_ms: open
                .then(|| inner.open_until.saturating_duration_since(now).as_millis() as u64),
            next_probe_at_ms: open.then_some(inner.open_until_unix_ms),
            next_cooldown_ms: cooldown(&self.config, inner.level).as_millis() as u64,
            opened_total: inner.opened_total,
            rejected_total: inner.rejected_total,
        })
    }

    /// Forgets `key`'s circuit (its plugin is gone for good).
    pub fn forget(&self, key: &str) {
        self.circuits.write().remove(key);
    }

    fn circuit(&self, key: &str) -> Arc<Circuit> {
        if let Some(circuit) = self.circuits.read().get(key) {
            return Arc::clone(circuit);
        }
        let mut circuits = self.circuits.write();
        Arc::clone(circuits.entry(key.to_owned()).or_insert_with(|| {
            Arc::new(Circuit {
                key: Arc::from(key),
                config: self.config,
                clean: AtomicBool::new(true),
                generation: AtomicU64::new(0),
                failure_seq: AtomicU64::new(0),
                inner: Mutex::new(Inner::default()),
            })
        }))
    }
}

impl Permit {
    /// The call went through: a probe closes its circuit, any other call resets the count.
    pub fn succeeded(self) {
        self.succeeded_at(Instant::now());
    }

    /// The call failed in a way that counts (`reason` says how).
    pub fn failed(self, reason: impl Into<String>) {
        self.failed_at(reason.into(), Instant::now());
    }

    /// Whether this call is the probe of a half-open circuit.
    pub fn is_probe(&self) -> bool {
        self.probe
    }

    pub(crate) fn succeeded_at(mut self, now: Instant) {
        let Some(circuit) = self.circuit.take() else {
            return;
        };
        if !self.probe && circuit.clean.load(Ordering::Acquire) {
            return;
        }
        let mut inner = circuit.inner.lock();
        if self.generation != inner.generation {
            return;
        }
        match inner.state {
            CircuitState::Closed => inner.failures = 0,
            CircuitState::HalfOpen if self.probe => {
                inner.state = CircuitState::Closed;
                inner.failures = 0;
                inner.probe_in_flight = false;
                inner.closed_at = Some(now);
                tracing::info!(circuit = %circuit.key, "circuit breaker probe succeeded: the circuit is closed");
            }
            _ => return,
        }
        circuit.clean.store(true, Ordering::Release);
    }

    pub(crate) fn failed_at(mut self, reason: String, now: Instant) {
        let Some(circuit) = self.circuit.take() else {
            return;
        };
        let mut inner = circuit.inner.lock();
        if self.generation != inner.generation {
            return;
        }
        match inner.state {
            // In flight with a failure already counted: the same event.
            CircuitState::Closed if self.failure_seq != inner.failure_seq => {}
            CircuitState::Closed => {
                circuit.clean.store(false, Ordering::Release);
                count_failure(&circuit, &mut inner, reason);
                if inner.failures >= circuit.config.failure_threshold.max(1) {
                    open(&circuit, &mut inner, now);
                }
            }
            CircuitState::HalfOpen if self.probe => {
                count_failure(&circuit, &mut inner, reason);
                open(&circuit, &mut inner, now);
            }
            _ => {}
        }
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        // Neither outcome was reported: a probe frees its slot for the next call.
        if let Some(circuit) = self.circuit.take()
            && self.probe
        {
            let mut inner = circuit.inner.lock();
            if inner.generation == self.generation && inner.state == CircuitState::HalfOpen {
                inner.probe_in_flight = false;
            }
        }
    }
}

fn count_failure(circuit: &Circuit, inner: &mut Inner, reason: String) {
    inner.failures += 1;
    inner.failure_seq += 1;
    circuit
        .failure_seq
        .store(inner.failure_seq, Ordering::Release);
    inner.last_failure = Some(reason);
}

/// How long a circuit stays open at `level`.
fn cooldown(config: &CircuitConfig, level: u32) -> Duration {
    let factor = 1u32.checked_shl(level.min(31)).unwrap_or(u32::MAX);
    config
        .cooldown
        .saturating_mul(factor)
        .min(config.max_cooldown.max(config.cooldown))
}

fn open(circuit: &Circuit, inner: &mut Inner, now: Instant) {
    let config = &circuit.config;
    // A circuit that stayed closed for a long while starts again from the short cool-down.
    if inner
        .closed_at
        .is_some_and(|closed| now.saturating_duration_since(closed) >= config.max_cooldown)
    {
        inner.level = 0;
    }
    let wait = cooldown(config, inner.level);
    inner.level = inner.level.saturating_add(1);
    inner.state = CircuitState::Open;
    inner.generation += 1;
    circuit
        .generation
        .store(inner.generation, Ordering::Release);
    inner.probe_in_flight = false;
    inner.open_until = now + wait;
    let unix_now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    inner.open_until_unix_ms = (unix_now + wait).as_millis() as u64;
    inner.opened_total += 1;
    tracing::warn!(
        circuit = %circuit.key,
        failures = inner.failures,
        cooldown_ms = wait.as_millis() as u64,
        last_failure = inner.last_failure.as_deref().unwrap_or_default(),
        "circuit breaker opened"
    );
}

#[cfg(test)]
mod tests;
