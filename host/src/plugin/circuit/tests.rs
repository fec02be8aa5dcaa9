use std::sync::Arc;
use std::time::Duration;

use super::*;

fn breaker() -> Arc<CircuitBreaker> {
    Arc::new(CircuitBreaker::new(CircuitPolicy::default()))
}

fn fail(breaker: &Arc<CircuitBreaker>, times: u32) {
    for _ in 0..times {
        breaker
            .acquire("p")
            .unwrap()
            .failed("timed out after 6000 ms");
    }
}

#[tokio::test(start_paused = true)]
async fn three_failures_in_a_row_open_the_circuit_with_the_reason() {
    let breaker = breaker();
    fail(&breaker, 2);
    breaker.acquire("p").unwrap().succeeded();
    fail(&breaker, 2);
    assert!(breaker.acquire("p").is_ok(), "a success resets the count");
    fail(&breaker, 1);
    let refusal = breaker.acquire("p").unwrap_err();
    assert_eq!(
        refusal.to_string(),
        "plugin p is paused for 60 s more after repeated failures (last: timed out after 6000 ms)"
    );
    assert!(breaker.acquire("other").is_ok(), "breakers are per plugin");
    let statuses = breaker.statuses();
    assert_eq!(statuses.len(), 1);
    assert_eq!(statuses[0].1.state, "open");
    assert_eq!(statuses[0].1.level, 1);
}

#[tokio::test(start_paused = true)]
async fn after_the_cooldown_one_probe_passes_and_its_outcome_decides() {
    let breaker = breaker();
    fail(&breaker, 3);
    tokio::time::advance(Duration::from_secs(61)).await;
    let probe = breaker.acquire("p").unwrap();
    assert!(matches!(
        breaker.acquire("p"),
        Err(CircuitRefusal::Probing { .. })
    ));
    probe.failed("crashed");
    // Opened again, at the next level: twice the cooldown.
    tokio::time::advance(Duration::from_secs(61)).await;
    assert!(matches!(
        breaker.acquire("p"),
        Err(CircuitRefusal::Open { .. })
    ));
    tokio::time::advance(Duration::from_secs(60)).await;
    breaker.acquire("p").unwrap().succeeded();
    assert!(breaker.statuses().is_empty());
    assert!(breaker.acquire("p").is_ok());
}

#[tokio::test(start_paused = true)]
async fn a_probe_dropped_unrecorded_frees_the_slot() {
    let breaker = breaker();
    fail(&breaker, 3);
    tokio::time::advance(Duration::from_secs(61)).await;
    drop(breaker.acquire("p").unwrap());
    assert!(breaker.acquire("p").is_ok(), "the next call may probe");
}

#[tokio::test(start_paused = true)]
async fn cooldowns_double_up_to_the_cap_and_reset_once_stable() {
    let breaker = breaker();
    let mut cooldowns = Vec::new();
    for _ in 0..5 {
        fail(&breaker, 3);
        let Err(CircuitRefusal::Open { remaining, .. }) = breaker.acquire("p") else {
            panic!("open");
        };
        cooldowns.push(remaining.as_secs());
        tokio::time::advance(remaining).await;
        breaker.acquire("p").unwrap().succeeded();
    }
    assert_eq!(cooldowns, [60, 120, 240, 300, 300]);
    tokio::time::advance(Duration::from_secs(601)).await;
    breaker.acquire("p").unwrap().succeeded();
    fail(&breaker, 3);
    let Err(CircuitRefusal::Open { remaining, .. }) = breaker.acquire("p") else {
        panic!("open");
    };
    assert_eq!(remaining.as_secs(), 60);
}
