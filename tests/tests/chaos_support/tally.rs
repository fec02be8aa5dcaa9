//! The outcome of every call, counted per class and per tool, with latencies and everything
//! unacceptable (wrong answers, unclassified errors, late or lost calls) kept for the report.

use std::collections::BTreeMap;
use std::time::Duration;

use maitool_protocol::ToolExecutionResult;

use super::plan::{Call, Class, classify};
use super::{LATE_MARGIN, LOST_AFTER};

/// Violations kept verbatim; past this only the count grows.
const KEPT: usize = 25;

/// Counts of one driver, merged at the end.
#[derive(Debug, Default)]
pub struct Tally {
    /// Calls per class.
    pub classes: BTreeMap<Class, u64>,
    /// Calls per tool and class.
    pub by_tool: BTreeMap<String, BTreeMap<Class, u64>>,
    /// Calls with no result within their limit plus [`LOST_AFTER`].
    pub lost: u64,
    /// Calls that ended later than their limit plus [`LATE_MARGIN`].
    pub late: u64,
    /// Every unacceptable outcome (including lost and late calls).
    pub violation_count: u64,
    /// The first few, described.
    pub violations: Vec<String>,
    /// Every latency, in microseconds.
    pub latencies_us: Vec<u64>,
    /// The slowest call: latency, call number, tool, outcome.
    pub slowest: Option<(Duration, u64, String, String)>,
    /// The furthest any call ended past its limit.
    pub max_overshoot: Duration,
}

impl Tally {
    fn violation(&mut self, text: String) {
        self.violation_count += 1;
        if self.violations.len() < KEPT {
            self.violations.push(text);
        }
    }

    /// Records call `index`: its result, or `None` if it was abandoned as lost.
    pub fn record(
        &mut self,
        index: u64,
        call: &Call,
        result: Option<&ToolExecutionResult>,
        latency: Duration,
    ) {
        self.latencies_us.push(latency.as_micros() as u64);
        let outcome = match result {
            None => {
                self.lost += 1;
                self.violation(format!(
                    "call {index} ({}) got no result within {:?}",
                    call.tool,
                    call.timeout + LOST_AFTER
                ));
                "lost".to_owned()
            }
            Some(result) => match classify(call, result) {
                Ok(class) => {
                    *self.classes.entry(class).or_default() += 1;
                    *self
                        .by_tool
                        .entry(call.tool.clone())
                        .or_default()
                        .entry(class)
                        .or_default() += 1;
                    if class == Class::Success {
                        class.label().to_owned()
                    } else {
                        format!("{}: {}", class.label(), result.error_message)
                    }
                }
                Err(why) => {
                    self.violation(format!("call {index}: {why}"));
                    format!("unacceptable: {why}")
                }
            },
        };
        self.max_overshoot = self.max_overshoot.max(latency.saturating_sub(call.timeout));
        if latency > call.timeout + LATE_MARGIN {
            self.late += 1;
            self.violation(format!(
                "call {index} ({}) took {latency:?}, limit {:?} + margin {LATE_MARGIN:?}: {outcome}",
                call.tool, call.timeout
            ));
        }
        if self.slowest.as_ref().is_none_or(|(max, ..)| latency > *max) {
            self.slowest = Some((latency, index, call.tool.clone(), outcome));
        }
    }

    /// Adds another driver's counts.
    pub fn merge(&mut self, other: Tally) {
        for (class, count) in other.classes {
            *self.classes.entry(class).or_default() += count;
        }
        for (tool, classes) in other.by_tool {
            let mine = self.by_tool.entry(tool).or_default();
            for (class, count) in classes {
                *mine.entry(class).or_default() += count;
            }
        }
        self.max_overshoot = self.max_overshoot.max(other.max_overshoot);
        self.lost += other.lost;
        self.late += other.late;
        self.violation_count += other.violation_count;
        for violation in other.violations {
            if self.violations.len() < KEPT {
                self.violations.push(violation);
            }
        }
        self.latencies_us.extend(other.latencies_us);
        if let Some(slowest) = other.slowest
            && self
                .slowest
                .as_ref()
                .is_none_or(|(max, ..)| slowest.0 > *max)
        {
            self.slowest = Some(slowest);
        }
    }

    /// Calls of one class.
    pub fn count(&self, class: Class) -> u64 {
        self.classes.get(&class).copied().unwrap_or(0)
    }

    /// The latency at quantile `q` (0..=1).
    pub fn quantile(&mut self, q: f64) -> Duration {
        if self.latencies_us.is_empty() {
            return Duration::ZERO;
        }
        self.latencies_us.sort_unstable();
        let at = ((self.latencies_us.len() - 1) as f64 * q).round() as usize;
        Duration::from_micros(self.latencies_us[at])
    }
}
