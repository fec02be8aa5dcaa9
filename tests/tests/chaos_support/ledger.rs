//! What the runners say they ran: the test plugins append the id of every call they execute
//! to one file (`RECORD_CALLS`, see `examples/plugins/src/record_calls.rs`). Checked against
//! what the callers got, it shows a call run twice (a retry inside the host, a request sent
//! twice) or answered without running, which counting answers alone cannot.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};

/// The outcome the caller saw, per call number.
pub const NO_ANSWER: u8 = 0;
/// Answered with success.
pub const SUCCEEDED: u8 = 1;
/// Answered with a failure.
pub const FAILED: u8 = 2;

/// Whether call `tool` runs on a runner that records its calls. Not `echo`: the dice example
/// has one too, and which of the two a bare `echo` reaches depends on which plugin
/// registered first.
pub fn recorded(tool: &str) -> bool {
    tool == "slow" || tool.starts_with("replica")
}

/// Executions per call number, from the record file.
pub fn executions(file: &Path) -> HashMap<u64, u32> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut runs = HashMap::new();
    for line in text.lines() {
        if let Some(index) = line
            .strip_prefix("chaos-")
            .and_then(|n| n.parse::<u64>().ok())
        {
            *runs.entry(index).or_default() += 1;
        }
    }
    runs
}

/// Adds to `failures` every call that ran more than once, and every call answered with
/// success that did not run exactly once. `tools[i]` is call i's tool, `answers[i]` what its
/// caller saw. Returns (calls recorded, recorded calls answered with success).
pub fn check(
    file: &Path,
    tools: &[String],
    answers: &[AtomicU8],
    failures: &mut Vec<String>,
) -> (usize, usize) {
    let runs = executions(file);
    let mut twice: Vec<String> = runs
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(index, n)| format!("call {index} ({}) ran {n} times", tools[*index as usize]))
        .collect();
    twice.sort();
    if !twice.is_empty() {
        failures.push(format!(
            "{} calls ran more than once, first: {:?}",
            twice.len(),
            &twice[..twice.len().min(10)]
        ));
    }
    let mut successes = 0;
    let mut unran = Vec::new();
    for (index, tool) in tools.iter().enumerate() {
        if !recorded(tool) || answers[index].load(Ordering::SeqCst) != SUCCEEDED {
            continue;
        }
        successes += 1;
        if !runs.contains_key(&(index as u64)) {
            unran.push(format!("call {index} ({tool})"));
        }
    }
    if !unran.is_empty() {
        failures.push(format!(
            "{} calls answered with success never ran on a runner, first: {:?}",
            unran.len(),
            &unran[..unran.len().min(10)]
        ));
    }
    (runs.len(), successes)
}
