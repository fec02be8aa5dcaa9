use super::{backoff, spawn_backoff};
use std::time::Duration;

#[test]
fn spawn_retries_start_at_the_initial_delay_and_double_to_the_cap() {
    assert_eq!(spawn_backoff(1, 1000, 30_000), Duration::from_millis(1000));
    assert_eq!(spawn_backoff(2, 1000, 30_000), Duration::from_millis(2000));
    assert_eq!(
        spawn_backoff(5, 1000, 30_000),
        Duration::from_millis(16_000)
    );
    assert_eq!(
        spawn_backoff(6, 1000, 30_000),
        Duration::from_millis(30_000)
    );
    assert_eq!(
        spawn_backoff(500, 1000, 30_000),
        Duration::from_millis(30_000)
    );
}

#[test]
fn backoff_starts_immediate_then_doubles_to_the_cap() {
    assert_eq!(backoff(0, 0, 5000), Duration::ZERO);
    assert_eq!(backoff(1, 0, 5000), Duration::from_millis(10));
    assert_eq!(backoff(2, 0, 5000), Duration::from_millis(20));
    assert_eq!(backoff(3, 0, 5000), Duration::from_millis(40));
    assert_eq!(backoff(30, 0, 5000), Duration::from_millis(5000));
    assert_eq!(backoff(1, 100, 5000), Duration::from_millis(100));
}
