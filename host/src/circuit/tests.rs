use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{CircuitBreakers, CircuitConfig, CircuitState};

fn breakers(threshold: u32) -> CircuitBreakers {
    CircuitBreakers::new(CircuitConfig {
        enabled: true,
        failure_threshold: threshold,
        cooldown: Duration::from_secs(10),
        max_cooldown: Duration::from_secs(40),
    })
}

fn fail(breakers: &CircuitBreakers, now: Instant, reason: &str) {
    breakers
        .admit_at("p", now)
        .expect("admitted")
        .failed_at(reason.to_owned(), now);
}

#[test]
fn consecutive_failures_open_the_circuit_and_a_success_resets_the_count() {
    let breakers = breakers(3);
    let t0 = Instant::now();
    fail(&breakers, t0, "timed out");
    fail(&breakers, t0, "timed out");
    assert_eq!(breakers.status("p").unwrap().consecutive_failures, 2);
    breakers.admit_at("p", t0).unwrap().succeeded_at(t0);
    assert!(
        breakers.status("p").is_none(),
        "a success leaves a clean circuit"
    );
    fail(&breakers, t0, "timed out");
    fail(&breakers, t0, "timed out");
    assert!(
        breakers.admit_at("p", t0).is_ok(),
        "two failures in a row do not open it"
    );
    fail(&breakers, t0, "crashed");

    let refused = breakers
        .admit_at("p", t0 + Duration::from_secs(3))
        .unwrap_err();
    assert_eq!(refused.state, CircuitState::Open);
    assert_eq!(refused.failures, 3);
    assert_eq!(refused.last_failure, "crashed");
    assert_eq!(refused.retry_in, Duration::from_secs(7));
    assert_eq!(
        refused.to_string(),
        "the circuit breaker is open after 3 consecutive failures (last: crashed); the next \
         call is let through in 7.0 s"
    );
    let status = breakers.status("p").unwrap();
    assert_eq!(status.state, CircuitState::Open);
    assert_eq!(status.opened_total, 1);
    assert_eq!(status.rejected_total, 1);
    assert_eq!(status.next_cooldown_ms, 20_000);
    assert!(status.retry_in_ms.is_some() && status.next_probe_at_ms.is_some());
    // Other keys are not affected.
    assert!(breakers.admit_at("other", t0).is_ok());
}

#[test]
fn after_the_cool_down_one_probe_goes_through_and_its_success_closes_the_circuit() {
    let breakers = breakers(1);
    let t0 = Instant::now();
    fail(&breakers, t0, "timed out");
    let after = t0 + Duration::from_secs(10);
    let probe = breakers.admit_at("p", after).expect("the probe");
    assert!(probe.is_probe());
    let busy = breakers.admit_at("p", after).unwrap_err();
    assert_eq!(busy.state, CircuitState::HalfOpen);
    assert!(
        busy.to_string().contains("a probe call is in flight"),
        "{busy}"
    );
    probe.succeeded_at(after);
    assert!(breakers.status("p").unwrap().state == CircuitState::Closed);
    let call = breakers.admit_at("p", after).expect("closed again");
    assert!(!call.is_probe());
    call.succeeded_at(after);
}

#[test]
fn a_failed_probe_opens_the_circuit_for_twice_as_long_up_to_the_maximum() {
    let breakers = breakers(1);
    let mut now = Instant::now();
    fail(&breakers, now, "timed out");
    for expected in [20, 40, 40] {
        now += Duration::from_secs(41);
        let probe = breakers.admit_at("p", now).expect("a probe");
        probe.failed_at("still down".to_owned(), now);
        let refused = breakers.admit_at("p", now).unwrap_err();
        assert_eq!(refused.retry_in, Duration::from_secs(expected));
        assert_eq!(refused.last_failure, "still down");
    }
}

#[test]
fn a_probe_dropped_without_an_outcome_frees_the_slot() {
    let breakers = breakers(1);
    let t0 = Instant::now();
    fail(&breakers, t0, "timed out");
    let after = t0 + Duration::from_secs(10);
    drop(breakers.admit_at("p", after).expect("the probe"));
    let next = breakers
        .admit_at("p", after)
        .expect("the slot is free again");
    assert!(next.is_probe());
}

#[test]
fn calls_that_fail_together_are_one_failure_and_late_outcomes_are_ignored() {
    let breakers = breakers(2);
    let t0 = Instant::now();
    // A crash cuts off ten calls in flight together: one failure, not ten.
    let cut_off: Vec<_> = (0..10)
        .map(|_| breakers.admit_at("p", t0).unwrap())
        .collect();
    for permit in cut_off {
        permit.failed_at("crashed".to_owned(), t0);
    }
    let status = breakers.status("p").unwrap();
    assert_eq!(
        (status.state, status.consecutive_failures),
        (CircuitState::Closed, 1)
    );
    // Calls made after it fail too: the second failure opens the circuit.
    let t1 = t0 + Duration::from_secs(1);
    let mut flood: Vec<_> = (0..10)
        .map(|_| breakers.admit_at("p", t1).unwrap())
        .collect();
    let last = flood.pop().unwrap();
    let mut flood = flood.into_iter();
    flood.next().unwrap().failed_at("timed out".to_owned(), t1);
    let opened = breakers.status("p").unwrap();
    assert_eq!((opened.state, opened.opened_total), (CircuitState::Open, 1));
    // The late ones neither reopen nor extend it, and a late success does not close it.
    let late = t1 + Duration::from_secs(5);
    for permit in flood {
        permit.failed_at("timed out".to_owned(), late);
    }
    last.succeeded_at(late);
    let status = breakers.status("p").unwrap();
    assert_eq!(status.state, CircuitState::Open);
    assert_eq!(status.opened_total, 1);
    assert_eq!(status.consecutive_failures, 2);
    assert_eq!(status.last_failure.as_deref(), Some("timed out"));
    assert!(breakers.admit_at("p", t1 + Duration::from_secs(10)).is_ok());
}

#[test]
fn a_circuit_closed_for_a_long_while_starts_again_from_the_short_cool_down() {
    let breakers = breakers(1);
    let mut now = Instant::now();
    fail(&breakers, now, "x");
    now += Duration::from_secs(10);
    breakers.admit_at("p", now).unwrap().succeeded_at(now);
    // Failing again soon: the longer cool-down.
    fail(&breakers, now, "x");
    assert_eq!(
        breakers.admit_at("p", now).unwrap_err().retry_in,
        Duration::from_secs(20)
    );
    now += Duration::from_secs(20);
    breakers.admit_at("p", now).unwrap().succeeded_at(now);
    // Failing after the maximum cool-down of calm: the short one again.
    now += Duration::from_secs(40);
    fail(&breakers, now, "x");
    assert_eq!(
        breakers.admit_at("p", now).unwrap_err().retry_in,
        Duration::from_secs(10)
    );
}

#[test]
fn disabled_breakers_admit_everything_and_record_nothing() {
    let breakers = CircuitBreakers::new(CircuitConfig {
        enabled: false,
        ..CircuitConfig::default()
    });
    let t0 = Instant::now();
    for _ in 0..100 {
        fail(&breakers, t0, "timed out");
    }
    assert!(breakers.admit_at("p", t0).is_ok());
    assert!(breakers.status("p").is_none());
}

#[test]
fn a_clean_circuit_has_no_status_and_concurrent_callers_share_one_circuit() {
    let breakers = Arc::new(breakers(5));
    assert!(breakers.status("p").is_none());
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let breakers = Arc::clone(&breakers);
            std::thread::spawn(move || {
                for _ in 0..25 {
                    if let Ok(permit) = breakers.admit("p") {
                        permit.failed("timed out");
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    // 200 attempts from eight threads: opened exactly once, at the fifth counted failure
    // (a failure concurrent with a counted one is the same event); the rest were refused, or
    // admitted before it opened and ignored.
    let status = breakers.status("p").unwrap();
    assert_eq!(status.state, CircuitState::Open);
    assert_eq!(status.opened_total, 1);
    assert_eq!(status.consecutive_failures, 5, "{status:?}");
    assert!(status.rejected_total > 100, "{status:?}");
}
