//! A circuit breaker per plugin: after repeated failures of a plugin's handlers (timeouts, a
//! crashed runner), calls to it are skipped for a cooldown instead of each waiting out its
//! timeout, then one probe call tests whether it recovered.
//!
//! MaiBot's breaker (`host/circuit_breaker.py`) for its events and hooks, with two mends: a
//! probe whose call is dropped before it records an outcome frees the probe slot (MaiBot's
//! stays taken, so the plugin is skipped for good), and an open circuit keeps the failure that
//! opened it, for `status` and for whoever is refused.
//!
//! * closed: calls pass; `failure_threshold` failures in a row open the circuit;
//! * open: calls are refused for the cooldown, `base_cooldown × 2^level` capped at
//!   `max_cooldown`, the level rising each time the circuit opens;
//! * half-open (after the cooldown): one probe call passes, the others are refused; its
//!   success closes the circuit, its failure opens it again at the next level;
//! * the level drops back to 0 once the plugin has been recovered for `stable_reset`.

use std::sync::Arc;
use std::time::Duration;

use foldhash::HashMap;
use parking_lot::Mutex;
use serde::Serialize;
use tokio::time::Instant;

/// The breaker's limits (MaiBot's values by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CircuitPolicy {
    /// Failures in a row that open the circuit.
    pub failure_threshold: u32,
    /// The first cooldown.
    pub base_cooldown: Duration,
    /// The longest cooldown.
    pub max_cooldown: Duration,
    /// How long a recovered plugin stays healthy before its cooldown level resets.
    pub stable_reset: Duration,
}

impl Default for CircuitPolicy {
    fn default() -> Self {
        Self {
            failure_threshold: 3,
            base_cooldown: Duration::from_secs(60),
            max_cooldown: Duration::from_secs(300),
            stable_reset: Duration::from_secs(600),
        }
    }
}

#[derive(Debug, Clone, Default)]
enum Phase {
    #[default]
    Closed,
    Open {
        until: Instant,
    },
    HalfOpen {
        probing: bool,
    },
}

#[derive(Debug, Default)]
struct PluginCircuit {
    phase: Phase,
    failures: u32,
    level: u32,
    /// The failure that opened the circuit last.
    reason: String,
    recovered_at: Option<Instant>,
}

/// Why a call was not let through.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CircuitRefusal {
    /// The circuit is open.
    #[error(
        "plugin {plugin_id} is paused for {} s more after repeated failures (last: {reason})",
        remaining.as_secs().max(1)
    )]
    Open {
        /// The plugin.
        plugin_id: String,
        /// Until the probe.
        remaining: Duration,
        /// The failure that opened it.
        reason: String,
    },
    /// Another call is probing whether the plugin recovered.
    #[error("plugin {plugin_id} is being probed after repeated failures (last: {reason})")]
    Probing {
        /// The plugin.
        plugin_id: String,
        /// The failure that opened it.
        reason: String,
    },
}

/// A plugin's breaker as `status` shows it, when it is not closed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CircuitStatus {
    /// `open` or `half_open`.
    pub state: &'static str,
    /// Milliseconds until the next probe (0 when half-open).
    pub remaining_ms: u64,
    /// How many times it opened since it was last stable.
    pub level: u32,
    /// The failure that opened it.
    pub reason: String,
}

/// Breakers of every plugin.
#[derive(Debug, Default)]
pub struct CircuitBreaker {
    policy: CircuitPolicy,
    circuits: Mutex<HashMap<String, PluginCircuit>>,
}

/// Leave to make one call; record its outcome with [`CircuitPermit::succeeded`] or
/// [`CircuitPermit::failed`]. A probe dropped unrecorded frees the probe slot.
#[derive(Debug)]
pub struct CircuitPermit {
    breaker: Arc<CircuitBreaker>,
    plugin_id: String,
    probe: bool,
    recorded: bool,
}

impl CircuitBreaker {
    /// A breaker with `policy`.
    pub fn new(policy: CircuitPolicy) -> Self {
        Self {
            policy,
            circuits: Mutex::default(),
        }
    }

    /// Leave for one call to `plugin_id`, or why not.
    pub fn acquire(self: &Arc<Self>, plugin_id: &str) -> Result<CircuitPermit, CircuitRefusal> {
        let now = Instant::now();
        let mut circuits = self.circuits.lock();
        let circuit = circuits.entry(plugin_id.to_owned()).or_default();
        if let Phase::Open { until } = circuit.phase {
            if now < until {
                return Err(CircuitRefusal::Open {
                    plugin_id: plugin_id.to_owned(),
                    remaining: until - now,
                    reason: circuit.reason.clone(),
                });
            }
            circuit.phase = Phase::HalfOpen { probing: false };
            tracing::info!(plugin_id, "cooldown over: the next call probes the plugin");
        }
        let probe = match &mut circuit.phase {
            Phase::HalfOpen { probing: true } => {
                return Err(CircuitRefusal::Probing {
                    plugin_id: plugin_id.to_owned(),
                    reason: circuit.reason.clone(),
                });
            }
            Phase::HalfOpen { probing } => {
                *probing = true;
                true
            }
            _ => false,
        };
        Ok(CircuitPermit {
            breaker: Arc::clone(self),
            plugin_id: plugin_id.to_owned(),
            probe,
            recorded: false,
        })
    }

    /// Every plugin whose breaker is not closed.
    pub fn statuses(&self) -> Vec<(String, CircuitStatus)> {
        let now = Instant::now();
        let circuits = self.circuits.lock();
        let mut statuses: Vec<(String, CircuitStatus)> = circuits
            .iter()
            .filter_map(|(plugin, circuit)| {
                let (state, remaining) = match circuit.phase {
                    Phase::Closed => return None,
                    Phase::Open { until } if until > now => ("open", until - now),
                    Phase::Open { .. } | Phase::HalfOpen { .. } => ("half_open", Duration::ZERO),
                };
                Some((
                    plugin.clone(),
                    CircuitStatus {
                        state,
                        remaining_ms: remaining.as_millis() as u64,
                        level: circuit.level,
                        reason: circuit.reason.clone(),
                    },
                ))
            })
            .collect();
        statuses.sort_by(|a, b| a.0.cmp(&b.0));
        statuses
    }

    /// Forgets a plugin (it unloaded): a new load starts closed.
    pub fn forget(&self, plugin_id: &str) {
        self.circuits.lock().remove(plugin_id);
    }

    fn record(&self, plugin_id: &str, probe: bool, failure: Option<&str>) {
        let now = Instant::now();
        let mut circuits = self.circuits.lock();
        let circuit = circuits.entry(plugin_id.to_owned()).or_default();
        if circuit
            .recovered_at
            .is_some_and(|at| now.duration_since(at) >= self.policy.stable_reset)
        {
            circuit.level = 0;
            circuit.recovered_at = None;
        }
        let half_open = probe || matches!(circuit.phase, Phase::HalfOpen { .. });
        let Some(reason) = failure else {
            circuit.failures = 0;
            if half_open {
                circuit.phase = Phase::Closed;
                circuit.recovered_at = Some(now);
                tracing::info!(plugin_id, "the probe succeeded: the plugin is called again");
            }
            return;
        };
        circuit.failures += 1;
        if !half_open && circuit.failures < self.policy.failure_threshold {
            tracing::warn!(
                plugin_id,
                failures = circuit.failures,
                threshold = self.policy.failure_threshold,
                "plugin call failed: {reason}"
            );
            return;
        }
        let factor = 1u32.checked_shl(circuit.level).unwrap_or(u32::MAX);
        let cooldown = self
            .policy
            .base_cooldown
            .saturating_mul(factor)
            .min(self.policy.max_cooldown);
        circuit.phase = Phase::Open {
            until: now + cooldown,
        };
        circuit.failures = 0;
        circuit.level = circuit.level.saturating_add(1);
        circuit.reason = reason.to_owned();
        tracing::warn!(
            plugin_id,
            cooldown_ms = cooldown.as_millis() as u64,
            "plugin paused after repeated failures: {reason}"
        );
    }

    fn release_probe(&self, plugin_id: &str) {
        if let Some(circuit) = self.circuits.lock().get_mut(plugin_id)
            && let Phase::HalfOpen { probing } = &mut circuit.phase
        {
            *probing = false;
        }
    }
}

impl CircuitPermit {
    /// The call succeeded (or failed for a reason that says nothing about the plugin's
    /// health).
    pub fn succeeded(mut self) {
        self.recorded = true;
        self.breaker.record(&self.plugin_id, self.probe, None);
    }

    /// The call failed in a way that counts against the plugin (a timeout, a crash).
    pub fn failed(mut self, reason: &str) {
        self.recorded = true;
        self.breaker
            .record(&self.plugin_id, self.probe, Some(reason));
    }
}

impl Drop for CircuitPermit {
    fn drop(&mut self) {
        if self.probe && !self.recorded {
            self.breaker.release_probe(&self.plugin_id);
        }
    }
}

#[cfg(test)]
mod tests;
